/* subprocess.c - the unsafe baseline backend. (skeleton) */
#include "core/backend.h"
#include "core/error.h"

#include <errno.h>

int asb_subprocess_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err)
{
    (void)plan;
    (void)res;
    return asb_err(err, -ENOSYS, "subprocess backend is not built yet");
}
