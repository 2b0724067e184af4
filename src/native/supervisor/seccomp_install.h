/* seccomp_install.h - load one of the build-time seccomp programs into the calling process. */
#ifndef ASB_NATIVE_SUPERVISOR_SECCOMP_INSTALL_H
#define ASB_NATIVE_SUPERVISOR_SECCOMP_INSTALL_H

#include "agent_sandbox.h"
#include "core/profiles.h"

/* Install `policy` on the calling process (all its threads), to be inherited by everything it
 * execs and forks. ASB_SECCOMP_NONE does nothing and returns 0. Returns 0 or a negative errno and
 * fills err.
 *
 * The caller must have set no_new_privs (prctl(PR_SET_NO_NEW_PRIVS, 1)) or hold CAP_SYS_ADMIN in
 * its user namespace; otherwise the kernel refuses with EACCES, because a filter could otherwise
 * trick a set-uid program it execs into misbehaving. The supervisor calls this in the workload
 * process right before execve: execve itself is allowed by both policies, and nothing after this
 * call runs unfiltered. */
int asb_seccomp_install(asb_seccomp_policy_t policy, asb_error_t *err);

/* Install the memfd_refuse program (memfd_create fails with EPERM), before the profile's own
 * filter, which refuses seccomp(2): every filter of a process runs, and the strictest answer
 * wins. For hardened on kernels without vm.memfd_noexec (before Linux 6.3), where a memfd could
 * not be made non-executable. Same contract as asb_seccomp_install. */
int asb_seccomp_install_memfd_refuse(asb_error_t *err);

/* Install the uname_notify program: uname(2) becomes a notification on *listener (a new fd,
 * close-on-exec), for the supervisor to answer (uname.c); everything else is left to the
 * filters below. Before the profile's own filter, which refuses seccomp(2). Same contract as
 * asb_seccomp_install. */
int asb_seccomp_install_uname_notify(int *listener, asb_error_t *err);

/* "none", "docker_default", "hardened" (the names of the generated arrays), or "unknown". */
const char *asb_seccomp_policy_name(asb_seccomp_policy_t policy);

#endif
