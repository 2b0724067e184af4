/* native.h - prepared sandboxes of the native backend (the pool's building block).
 *
 * A sandbox is prepared from a plan's profile and limits: cgroup, namespaces, the supervisor with
 * its root built, lo up, waiting for its job. Running a job in it hands over what depends on the
 * job (argv, environment, stdin, files, timeout, output caps) and then runs exactly as asb_run.
 * A prepared sandbox runs one job and is gone: sandboxes are never reused. */
#ifndef ASB_NATIVE_NATIVE_H
#define ASB_NATIVE_NATIVE_H

#include "core/plan.h"

typedef struct native_run asb_native_sandbox_t;

/* Prepare a sandbox for tmpl's profile and limits, under tmpl's nonce and run id. Nothing of it is
 * shared with any other sandbox (not even a /usr overlay: inotify watches and flock on shared
 * inodes would let two sandboxes observe and signal each other). */
int asb_native_prepare(const asb_plan_t *tmpl, asb_native_sandbox_t **out, asb_error_t *err);
/* Run plan in sb. The caller checked that plan is compatible with the template sb was prepared
 * from (core/pool.c). res->duration_s counts from this call. sb is freed, whatever happens,
 * unless remains is not NULL and the run ended normally: then *remains gets sb back once every
 * process of the run is gone and the verdict is final (the supervisor's exit status seen, the
 * cgroup read), and the rest of the teardown is the caller's, with asb_native_discard: removing
 * the empty cgroup, and the sandbox's mount namespace (held open since preparation, so that the
 * supervisor's exit skipped unmounting it and its RCU grace period, ~0.4 ms). A pool does that
 * in its own thread. Otherwise *remains is NULL. */
int asb_native_run_prepared(asb_native_sandbox_t *sb, const asb_plan_t *plan, asb_result_t *res,
                            asb_error_t *err, asb_native_sandbox_t **remains);
/* Is the prepared sandbox still waiting for its job (supervisor alive, control socket open)? */
bool asb_native_alive(const asb_native_sandbox_t *sb);
/* End a prepared sandbox that will not run a job (kill, wait, remove its cgroup), or finish the
 * remains of one that did. */
void asb_native_discard(asb_native_sandbox_t *sb);

#endif
