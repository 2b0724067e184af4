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
/* Run plan in sb and free sb, whatever happens. The caller checked that plan is compatible with
 * the template sb was prepared from (core/pool.c). res->duration_s counts from this call.
 * *mnt_ns (when not NULL) gets an fd of the sandbox's mount namespace, or -1: when this returns
 * every process of the run is gone and the verdict is final, but the namespace (its mounts and
 * tmpfs contents, reachable from nowhere else) is torn down only when the caller closes the fd;
 * that teardown waits for an RCU grace period (~0.4 ms), which a pool does in its own thread. */
int asb_native_run_prepared(asb_native_sandbox_t *sb, const asb_plan_t *plan, asb_result_t *res,
                            asb_error_t *err, int *mnt_ns);
/* Is the prepared sandbox still waiting for its job (supervisor alive, control socket open)? */
bool asb_native_alive(const asb_native_sandbox_t *sb);
/* End a prepared sandbox that will not run a job: kill, wait, remove its cgroup. */
void asb_native_discard(asb_native_sandbox_t *sb);

#endif
