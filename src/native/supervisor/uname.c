/* uname.c - answering the workload's uname(2) in hardened.
 *
 * The kernel's release string ("6.18.44-fc-v1045") and version ("#1 SMP PREEMPT_DYNAMIC <build
 * date>") name the exact kernel a sandbox runs on, and with it every bug that kernel still has:
 * what an exploit needs first. A UTS namespace cannot change them, so the workload's uname(2)
 * is a seccomp notification (the uname_notify filter, stacked on hardened's own), and we answer
 * it: the major and minor version only ("6.18.0"), which programs that check for a feature by
 * version still read correctly, and a fixed "#1 SMP". What stays readable: the numeric version
 * (6.18.44) in the vDSO's note, in the process's own memory, which nothing here can reach.
 *
 * The answer is written into the caller's buffer with process_vm_writev, which keeps to the page
 * protections the kernel's own uname would meet (EFAULT otherwise), after the notification is
 * checked to be still pending (SECCOMP_IOCTL_NOTIF_ID_VALID). The calling thread could still be
 * killed, or replaced by another thread's execve, between that check and the write; its pid is
 * then not reused that soon (pids go round pid_max first), and were it reused, the 390 bytes of
 * this answer would land in another process of the same workload: nothing it could not do
 * itself.
 *
 * Natively we hold CAP_SYS_PTRACE in the sandbox's user namespace, which owns the credentials
 * and (after its exec) the memory of every program the workload runs. A container's supervisor
 * holds no capability and shares the workload's uid: it may write a dumpable process's memory,
 * and a process that made itself non-dumpable gets EFAULT there. A host that forbids the write
 * anyway (Yama ptrace_scope 3, or 2 without the capability) refuses the run at sup_uname_take.
 * Where an LSM or an unreadable program's memory (owned by an id the sandbox does not map)
 * still refuses it, uname(2) fails with EFAULT: the release is never given out. Our own
 * workload process, before its exec, never asks (natively its memory belongs to the host's
 * user namespace). */
#include "core/error.h"
#include "native/fdpass.h"
#include "native/supervisor/seccomp_install.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#define UTS_FIELD 65

static void put_field(char answer[390], int i, const char *value)
{
    char *f = answer + (size_t)i * UTS_FIELD;
    memset(f, 0, UTS_FIELD);
    snprintf(f, UTS_FIELD, "%s", value);
}

void sup_uname_answer(const struct utsname *real, char answer[390])
{
    unsigned major = 0, minor = 0;
    char release[UTS_FIELD];
    if (sscanf(real->release, "%u.%u", &major, &minor) != 2)
        major = 0, minor = 0;
    snprintf(release, sizeof(release), "%u.%u.0", major, minor);
    put_field(answer, 0, "Linux");
    put_field(answer, 1, real->nodename);
    put_field(answer, 2, release);
    put_field(answer, 3, "#1 SMP");
    put_field(answer, 4, real->machine);
    /* The kernel's sixth field; musl and glibc name it differently, so it is read from the
     * structure by offset, as the kernel writes it. */
    put_field(answer, 5, (const char *)real + 5 * UTS_FIELD);
}

int sup_uname_prepare(sup_uname_t *u, bool ptrace_cap, asb_error_t *err)
{
    memset(u, 0, sizeof(*u));
    u->listener = -1;
    struct seccomp_notif_sizes sizes;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
        return asb_err_sys(err, errno, "uname: seccomp notification sizes");
    /* The kernel's structures may have grown past the ones we were built with. */
    u->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ? sizes.seccomp_notif
                                                                     : sizeof(struct seccomp_notif);
    u->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
                       ? sizes.seccomp_notif_resp
                       : sizeof(struct seccomp_notif_resp);
    u->req = calloc(1, u->req_size);
    u->resp = calloc(1, u->resp_size);
    if (!u->req || !u->resp) {
        sup_uname_free(u);
        return asb_err_sys(err, ENOMEM, "uname: notification buffers");
    }
    struct utsname real;
    if (uname(&real) < 0) {
        int e = errno;
        sup_uname_free(u);
        return asb_err_sys(err, e, "uname: the kernel's own answer");
    }
    sup_uname_answer(&real, u->answer);
    /* Yama: scope 3 forbids every process to write another's memory; scope 2 needs
     * CAP_SYS_PTRACE, which a container's supervisor does not hold (scope 1 lets an ancestor,
     * as PID 1 is of every process here). Refused here rather than every uname failing with
     * EFAULT (review finding). */
    int64_t scope = sup_read_int("/proc/sys/kernel/yama/ptrace_scope", 0);
    if (scope >= 3 || (scope >= 2 && !ptrace_cap)) {
        sup_uname_free(u);
        return asb_err(err, -EPERM,
                       "uname: Yama's ptrace_scope is %lld%s, so the workload's uname(2) could not "
                       "be answered without the kernel's release",
                       (long long)scope,
                       scope >= 3 ? "" : " and this supervisor has no CAP_SYS_PTRACE");
    }
    return 0;
}

int sup_uname_listen(int sock, asb_error_t *err)
{
    int listener = -1;
    int rc = asb_seccomp_install_uname_notify(&listener, err);
    if (rc < 0)
        return rc;
    rc = asb_fd_send(sock, "u", 1, &listener, 1);
    close(listener);
    if (rc < 0)
        return asb_err_sys(err, -rc, "uname: cannot hand the listener to the supervisor");
    return 0;
}

int sup_uname_attach(sup_uname_t *u, int sock, asb_error_t *err)
{
    int lfd = -1;
    size_t nl = 0;
    char tag = 0;
    ssize_t got = asb_fd_recv(sock, &tag, 1, MSG_DONTWAIT, &lfd, 1, &nl);
    if (got != 1 || tag != 'u' || nl != 1) {
        if (nl == 1)
            close(lfd);
        return asb_err(err, got < 0 ? (int)got : -EPROTO,
                       "uname: the workload sent no notification listener (%s)",
                       got < 0 ? strerror((int)-got) : "no message with one descriptor");
    }
    u->listener = lfd;
    return 0;
}

int sup_uname_take(sup_uname_t *u, int sock, bool ptrace_cap, asb_error_t *err)
{
    int rc = sup_uname_prepare(u, ptrace_cap, err);
    if (rc == 0 && (rc = sup_uname_attach(u, sock, err)) < 0)
        sup_uname_free(u);
    return rc;
}

void sup_uname_serve(sup_uname_t *u)
{
    if (u->listener < 0)
        return;
    memset(u->req, 0, u->req_size);
    if (ioctl(u->listener, SECCOMP_IOCTL_NOTIF_RECV, u->req) < 0)
        return; /* EINTR, or the caller is gone (ENOENT): nothing to answer */
    memset(u->resp, 0, u->resp_size);
    u->resp->id = u->req->id;
    if (u->req->data.nr != SYS_uname) {
        u->resp->error = -ENOSYS; /* the filter sends nothing else */
    } else {
        /* Into the caller's memory as the kernel would write it: no write past a page's
         * protection (unlike /proc/PID/mem), EFAULT for an address it cannot take. */
        if (ioctl(u->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &u->req->id) < 0)
            return; /* the caller is gone: no one to answer */
        uint64_t addr = u->req->data.args[0];
        struct iovec local = {.iov_base = u->answer, .iov_len = sizeof(u->answer)};
        struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof(u->answer)};
        ssize_t w = process_vm_writev(u->req->pid, &local, 1, &remote, 1, 0);
        if (w < 0 && (errno == EPERM || errno == ENOSYS)) {
            /* A filter above us refuses process_vm_writev (Docker's engine profile does, in
             * container mode; so may a caller's natively): /proc/PID/mem, opened before the
             * notification is checked again so that the file is the caller's memory. It writes
             * through a read-only page's private copy where uname would fail with EFAULT: nothing
             * the caller could not do to its own memory. */
            char path[48];
            snprintf(path, sizeof(path), "/proc/%d/mem", (int)u->req->pid);
            int fd = open(path, O_WRONLY | O_CLOEXEC);
            if (fd >= 0 && ioctl(u->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &u->req->id) < 0) {
                close(fd);
                return;
            }
            w = fd < 0 || addr > (uint64_t)INT64_MAX - sizeof(u->answer)
                    ? -1
                    : pwrite(fd, u->answer, sizeof(u->answer), (off_t)addr);
            if (fd >= 0)
                close(fd);
        }
        u->resp->error = w == (ssize_t)sizeof(u->answer) ? 0 : -EFAULT;
    }
    (void)ioctl(u->listener, SECCOMP_IOCTL_NOTIF_SEND, u->resp);
}

void sup_uname_free(sup_uname_t *u)
{
    if (u->listener >= 0)
        close(u->listener);
    free(u->req);
    free(u->resp);
    u->listener = -1;
    u->req = NULL;
    u->resp = NULL;
}
