/* seccomp_install.c - load a build-time seccomp program (generated/seccomp_bpf.h).
 *
 * Compiled into the static supervisor, which does not link libseccomp nor src/core: the programs
 * are plain arrays, and errors are written into the caller's asb_error_t here.
 *
 * Decisions:
 *  - SECCOMP_FILTER_FLAG_TSYNC: the workload process is single-threaded when it installs its
 *    filter, so this normally changes nothing; it makes "every thread of the workload is filtered"
 *    hold even if a helper thread is ever added before execve, and fails loudly otherwise.
 *  - No SECCOMP_FILTER_FLAG_SPEC_ALLOW: the kernel's default for filtered tasks keeps the
 *    Speculative Store Bypass mitigation on, which is what untrusted code should run under.
 *  - prctl(PR_SET_SECCOMP) only when seccomp(2) itself is ENOSYS (kernels before 3.17, or a
 *    filter above us refusing seccomp(2) that way). prctl cannot synchronise threads; the caller
 *    is single-threaded at this point, which is the documented contract.
 */
#include "native/supervisor/seccomp_install.h"

#include "seccomp_bpf.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int seccomp_fail(asb_error_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int seccomp_fail(asb_error_t *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

const char *asb_seccomp_policy_name(asb_seccomp_policy_t policy)
{
    switch (policy) {
    case ASB_SECCOMP_NONE:
        return "none";
    case ASB_SECCOMP_DOCKER_DEFAULT:
        return "docker_default";
    case ASB_SECCOMP_HARDENED:
        return "hardened";
    }
    return "unknown";
}

/* The kernel copies the program, and never writes to it: dropping const here is safe. */
static int seccomp_program(asb_seccomp_policy_t policy, struct sock_fprog *prog)
{
    switch (policy) {
    case ASB_SECCOMP_DOCKER_DEFAULT:
        prog->len = (unsigned short)asb_bpf_docker_default_len;
        prog->filter = (struct sock_filter *)asb_bpf_docker_default;
        return 0;
    case ASB_SECCOMP_HARDENED:
        prog->len = (unsigned short)asb_bpf_hardened_len;
        prog->filter = (struct sock_filter *)asb_bpf_hardened;
        return 0;
    case ASB_SECCOMP_NONE:
        break;
    }
    return -EINVAL;
}

static int install_program(const char *name, struct sock_fprog prog, asb_error_t *err)
{
#if !defined(__x86_64__)
    /* The programs check for AUDIT_ARCH_X86_64 and kill anything else: loading one here would
     * kill the workload on its first syscall. Refuse instead of failing that way. */
    (void)prog;
    return seccomp_fail(err, -ENOTSUP, "seccomp %s: the generated filters are for x86_64 only",
                        name);
#else
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
    if (rc > 0)
        return seccomp_fail(err, -EBUSY,
                            "seccomp %s: thread %ld could not be synchronised to the filter", name,
                            rc);
    if (rc < 0 && errno == ENOSYS)
        rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
    if (rc < 0) {
        int e = errno;
        if (e == EACCES)
            return seccomp_fail(err, -EACCES,
                                "seccomp %s: needs no_new_privs or CAP_SYS_ADMIN (%s)", name,
                                strerror(e));
        return seccomp_fail(err, -e, "seccomp %s: install filter (%s)", name, strerror(e));
    }
    return 0;
#endif
}

int asb_seccomp_install(asb_seccomp_policy_t policy, asb_error_t *err)
{
    if (policy == ASB_SECCOMP_NONE)
        return 0;
    struct sock_fprog prog;
    if (seccomp_program(policy, &prog) < 0)
        return seccomp_fail(err, -EINVAL, "seccomp: unknown policy %d", (int)policy);
    return install_program(asb_seccomp_policy_name(policy), prog, err);
}

int asb_seccomp_install_memfd_refuse(asb_error_t *err)
{
    struct sock_fprog prog = {.len = (unsigned short)asb_bpf_memfd_refuse_len,
                              .filter = (struct sock_filter *)asb_bpf_memfd_refuse};
    return install_program("memfd_refuse", prog, err);
}

int asb_seccomp_install_uname_notify(int *listener, asb_error_t *err)
{
    *listener = -1;
#if !defined(__x86_64__)
    return seccomp_fail(err, -ENOTSUP,
                        "seccomp uname_notify: the generated filters are for "
                        "x86_64 only");
#else
    struct sock_fprog prog = {.len = (unsigned short)asb_bpf_uname_notify_len,
                              .filter = (struct sock_filter *)asb_bpf_uname_notify};
    /* No TSYNC: the kernel takes it with a listener only as TSYNC_ESRCH, and the caller is
     * single-threaded (the contract above). WAIT_KILLABLE_RECV (Linux 5.19+): once the
     * supervisor has taken a call, only a fatal signal ends the caller's wait. Without it a
     * signal could end uname with EINTR after we took it, and our answer then landed in a
     * buffer the program had already reused (red-team finding, session 21). A signal before
     * we take the call still ends it (EINTR, or a restart under SA_RESTART); older kernels
     * refuse the flag and keep the late-write window, microseconds wide (SPEC). */
    long fd =
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
    if (fd < 0 && errno == EINVAL)
        fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (fd < 0) {
        int e = errno;
        if (e == EBUSY) /* the kernel allows one listener per chain of filters */
            return seccomp_fail(err, -e,
                                "seccomp uname_notify: a seccomp filter this process inherited "
                                "already has a listener (a container runtime's system call "
                                "interception?), so the kernel release cannot be hidden");
        return seccomp_fail(err, -e,
                            "seccomp uname_notify: install filter with a listener (%s): the "
                            "kernel release cannot be hidden",
                            strerror(e));
    }
    *listener = (int)fd;
    return 0;
#endif
}
