#include "core/backend.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/result.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void asb_run_fill_header(asb_result_t *res, const asb_plan_t *plan)
{
    snprintf(res->backend, sizeof(res->backend), "%s", plan->backend);
    snprintf(res->profile, sizeof(res->profile), "%s", plan->profile.name);
    res->limits_requested = plan->requested;
    res->limits_enforced = plan->limits;
    res->weakened = plan->weaken;
}

int asb_run(const asb_config_t *cfg, asb_result_t *res, asb_error_t *err)
{
    asb_error_t local;
    if (!err)
        err = &local;
    asb_err_clear(err);
    if (!res)
        return asb_err(err, -22, "no result to fill");
    asb_result_init(res);

    asb_plan_t plan;
    int rc = asb_plan_build(cfg, &plan, err);
    if (rc == 0) {
        asb_run_fill_header(res, &plan);
        if (strcmp(plan.backend, "subprocess") == 0)
            rc = asb_subprocess_run(&plan, res, err);
        else if (strcmp(plan.backend, "docker") == 0)
            rc = asb_docker_run(&plan, res, err);
        else
            rc = asb_native_run(&plan, res, err);
    } else {
        snprintf(res->profile, sizeof(res->profile), "%s",
                 cfg && cfg->profile ? cfg->profile : "hardened");
    }
    asb_plan_free(&plan);
    if (rc < 0) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, err->message);
    }
    return rc;
}
