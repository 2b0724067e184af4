/* docker.c - the docker backend (Docker Engine API over its unix socket). */
#include "core/backend.h"
#include "core/error.h"

#include <errno.h>

int asb_docker_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err)
{
    (void)plan;
    (void)res;
    return asb_err(err, -ENOSYS, "docker backend is not built yet");
}

int asb_docker_profiles_json(char **json, asb_error_t *err)
{
    *json = NULL;
    return asb_err(err, -ENOSYS, "docker backend is not built yet");
}
