/* backend.h - what core calls in each backend. A backend executes a validated plan. */
#ifndef ASB_CORE_BACKEND_H
#define ASB_CORE_BACKEND_H

#include "core/plan.h"

int asb_subprocess_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err);
int asb_native_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err);
int asb_docker_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err);

/* backend, profile, limits and weakenings of the plan into the result (run.c). */
void asb_run_fill_header(asb_result_t *res, const asb_plan_t *plan);
/* 0, or an error naming a caller soft RLIMIT_NOFILE below ASB_MIN_CALLER_NOFILE (run.c). */
int asb_check_caller_nofile(asb_error_t *err);
/* 0, or an error naming a caller soft RLIMIT_FSIZE below what the run writes in the caller's
 * name (its stdin, code and files in into memfds and files, the sandbox's setup): past it the
 * caller would get SIGXFSZ, which ends a process that does not ignore it (run.c). */
int asb_check_caller_fsize(const asb_plan_t *plan, asb_error_t *err);

#endif
