/* native.c - the native backend, host side. (skeleton) */
#include "core/backend.h"
#include "core/error.h"

#include <errno.h>

int asb_native_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err)
{
    (void)plan;
    (void)res;
    return asb_err(err, -ENOSYS, "native backend is not built yet");
}
