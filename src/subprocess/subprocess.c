/* subprocess.c - the UNSAFE baseline backend, on purpose.
 *
 * A host process in a fresh private temp dir, with the fixed minimal environment, its own session
 * and process group, a wall clock and output caps. Nothing else: it exists so every other profile
 * can be measured against "no sandbox at all". The code runs on the host with the caller's
 * privileges; a process that leaves the process group (setsid + double fork) survives the run. */
#include "core/backend.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/owner.h"
#include "core/result.h"
#include "io/capture.h"
#include "io/file_in.h"
#include "io/file_out.h"
#include "io/rmtree.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A program (an executable file in) gets mode 0755, every other file 0644. */
static int copy_in(int dirfd, const char *name, int src, uint64_t max, bool executable,
                   asb_error_t *err)
{
    int out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     executable ? 0755 : 0644);
    if (out < 0)
        return asb_err_sys(err, errno, "file-in %s", name);
    int rc = asb_copy_fd(src, out, max, err);
    close(out);
    return rc;
}

/* In the child, before exec: a setup step failed. Tell the parent on the exec pipe ({1,
 * errno}; an exec failure is {0, errno}) and end. Async-signal-safe. */
__attribute__((noreturn)) static void child_setup_failed(int execw, int e)
{
    int report[2] = {1, e};
    ssize_t w = write(execw, report, sizeof(report));
    (void)w;
    _exit(125);
}

static int write_code(int dirfd, const asb_plan_t *plan, asb_error_t *err)
{
    int fd =
        openat(dirfd, plan->code_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return asb_err_sys(err, errno, "write code");
    size_t off = 0;
    while (off < plan->code_len) {
        ssize_t w = write(fd, plan->code + off, plan->code_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return asb_err_sys(err, e, "write code");
        }
        off += (size_t)w;
    }
    close(fd);
    return 0;
}

/* Candidate paths for argv[0], resolved in the parent (the child only calls execve). */
static char **exec_candidates(const asb_plan_t *plan)
{
    const char *name = plan->argv[0];
    char **c = calloc(64, sizeof(char *));
    if (!c)
        return NULL;
    if (strchr(name, '/')) {
        c[0] = strdup(name);
        return c;
    }
    const char *path = ASB_DEFAULT_PATH;
    for (size_t i = 0; plan->env[i]; i++)
        if (strncmp(plan->env[i], "PATH=", 5) == 0)
            path = plan->env[i] + 5;
    size_t n = 0;
    for (const char *p = path; *p && n < 63;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len) {
            size_t sz = len + strlen(name) + 2;
            if ((c[n] = malloc(sz)))
                snprintf(c[n++], sz, "%.*s/%s", (int)len, p, name);
        }
        p += len;
        if (*p == ':')
            p++;
    }
    return c;
}

int asb_subprocess_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err)
{
    double t0 = now_s();
    int rc = 0, dirfd = -1, stdin_fd = -1, pidfd = -1, parent = -1;
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, execp[2] = {-1, -1};
    char dir[4096] = "", tag[96], home[4200];
    char **cands = NULL, **envp = NULL;
    pid_t pid = -1;
    asb_capbuf_t cout, cerr;
    asb_capbuf_init(&cout, plan->limits.output_bytes);
    asb_capbuf_init(&cerr, plan->limits.output_bytes);

    if (asb_owner_tag(tag, sizeof(tag) - 1) < 0) {
        rc = asb_err(err, -ENAMETOOLONG, "owner tag");
        goto out;
    }
    strcat(tag, "-");
    /* What a killed caller's runs left (their directories, and processes their programs left
     * running), reaped at the next start as the native backend reaps stale cgroups (QA
     * finding, session 17: only `cleanup` did). */
    asb_cleanup_dead_temp_dirs();
    /* The parent is opened before the dir is made, so the teardown needs no new fd for it: a
     * caller whose fd table filled up during the run left the dir behind for as long as it lived
     * (QA finding: 8 threads at a soft limit of 64). */
    parent = open(ASB_SUBPROCESS_TMP_PARENT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) {
        rc = asb_err_sys(err, errno, "open %s", ASB_SUBPROCESS_TMP_PARENT);
        goto out;
    }
    if ((rc = asb_mkdtemp_owned(ASB_SUBPROCESS_TMP_PARENT, tag, dir, sizeof(dir), &dirfd, err)) < 0)
        goto out;
    for (size_t i = 0; i < plan->n_files_in; i++) {
        int fd;
        uint64_t size;
        if ((rc = asb_file_in_open(plan->files_in[i].host_path, plan->limits.file_in_bytes, &fd,
                                   &size, err)) < 0)
            goto out;
        rc = copy_in(dirfd, plan->files_in[i].name, fd, plan->limits.file_in_bytes,
                     plan->files_in[i].executable, err);
        close(fd);
        if (rc < 0)
            goto out;
    }
    if (plan->code && (rc = write_code(dirfd, plan, err)) < 0)
        goto out;
    if ((stdin_fd = memfd_create("stdin", MFD_CLOEXEC)) < 0) {
        rc = asb_err_sys(err, errno, "stdin");
        goto out;
    }
    for (size_t off = 0; off < plan->stdin_len;) {
        ssize_t w = write(stdin_fd, plan->stdin_data + off, plan->stdin_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            rc = asb_err_sys(err, errno, "stdin");
            goto out;
        }
        off += (size_t)w;
    }
    lseek(stdin_fd, 0, SEEK_SET);
    envp = calloc(plan->n_env + 2, sizeof(char *));
    cands = exec_candidates(plan);
    if (!envp || !cands) {
        rc = asb_err_sys(err, ENOMEM, "exec");
        goto out;
    }
    size_t ne = 0;
    bool have_home = false;
    for (size_t i = 0; plan->env[i]; i++) {
        have_home |= strncmp(plan->env[i], "HOME=", 5) == 0;
        envp[ne++] = plan->env[i];
    }
    snprintf(home, sizeof(home), "HOME=%s", dir);
    if (!have_home)
        envp[ne++] = home;
    if (asb_plan_cancelled(plan)) {
        rc = asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began");
        goto out;
    }
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 || pipe2(execp, O_CLOEXEC) < 0) {
        rc = asb_err_sys(err, errno, "pipes");
        goto out;
    }
    /* clone3 with no exit signal and a pidfd: a caller that reaps children in a SIGCHLD
     * handler, or ignores SIGCHLD, cannot take the child's status from us (found by review: it
     * made asb_run spin). All signals blocked across it, so none of the caller's handlers runs
     * in the child; the child resets every disposition and the mask before exec. */
    pid_t caller = getpid();
    struct clone_args ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = CLONE_PIDFD;
    ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
    ca.exit_signal = 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
    int clone_errno = errno;
    if (pid != 0)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        rc = asb_err_sys(err, clone_errno, "clone3");
        goto out;
    }
    if (pid == 0) {
        /* Child: async-signal-safe calls only until execve. */
        setsid();
        /* Dies with the caller (red-team finding: a SIGTERM'd CLI left it running past its
         * timeout): with the thread that called asb_run, which waits for the run. What it starts
         * itself and leaves behind, and a setuid program it execs (which clears the signal), are
         * not covered: subprocess is the unsafe baseline. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != caller)
            _exit(125);
        /* Every fd we need moved above 2 first: a caller with 0, 1 or 2 closed had ours there,
         * and the dup2 onto 0-2 below closed one we still needed (QA finding: the temp dir's
         * fd at 2, a failed fchdir, and an exit 125 taken for the program's). A setup step that
         * fails says so on the exec pipe: the run is a sandbox_error, never the program's 125. */
        int hx = fcntl(execp[1], F_DUPFD_CLOEXEC, 10);
        if (hx < 0)
            child_setup_failed(execp[1], errno); /* still where it was: nothing moved yet */
        int hin = fcntl(stdin_fd, F_DUPFD_CLOEXEC, 10), hout = fcntl(outp[1], F_DUPFD_CLOEXEC, 10),
            herr = fcntl(errp[1], F_DUPFD_CLOEXEC, 10), hdir = fcntl(dirfd, F_DUPFD_CLOEXEC, 10);
        if (hin < 0 || hout < 0 || herr < 0 || hdir < 0 || dup2(hin, 0) < 0 || dup2(hout, 1) < 0 ||
            dup2(herr, 2) < 0 || fchdir(hdir) < 0 || dup3(hx, 3, O_CLOEXEC) < 0)
            child_setup_failed(hx, errno);
        syscall(SYS_close_range, 4, ~0U, 0);
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = SIG_DFL;
        for (int s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP)
                sigaction(s, &sa, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int last = ENOENT;
        for (size_t i = 0; cands[i]; i++) {
            execve(cands[i], plan->argv, envp);
            if (errno != ENOENT && errno != ENOTDIR)
                last = errno;
        }
        int report[2] = {0, last}; /* the exec itself failed */
        ssize_t w = write(3, report, sizeof(report));
        (void)w;
        _exit(127);
    }
    close(outp[1]), close(errp[1]), close(execp[1]);
    outp[1] = errp[1] = execp[1] = -1;
    /* Read once the program is reaped, without waiting for an end: a fork by another thread of
     * the caller may hold a copy of the write end (O_CLOEXEC never applies to a child that does
     * not exec), and a blocking read waited for that child's exit (QA finding, session 17). By
     * the time of the reap a failed exec's errno is in the pipe already. */
    fcntl(execp[0], F_SETFL, O_NONBLOCK);
    fcntl(outp[0], F_SETFL, O_NONBLOCK);
    fcntl(errp[0], F_SETFL, O_NONBLOCK);

    double deadline = now_s() + plan->limits.timeout_s;
    bool exited = false, timed_out = false, output_limit = false, status_lost = false;
    bool cancelled = false;
    double drain_until = 0;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    while (!exited || outp[0] >= 0 || errp[0] >= 0) {
        struct pollfd p[4] = {{.fd = outp[0], .events = POLLIN},
                              {.fd = errp[0], .events = POLLIN},
                              {.fd = exited ? -1 : pidfd, .events = POLLIN},
                              {.fd = cancelled ? -1 : plan->cancel_fd, .events = POLLIN}};
        double t = now_s();
        if (!exited && (t >= deadline || cancelled) && !status_lost) {
            /* Again on every pass until it is gone: the first kill may have come before the
             * child's setsid() made its process group. */
            timed_out = !cancelled;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
        if (exited && t >= drain_until)
            break;
        /* After exit, wait a little for the pipes, from the moment of exit on: a daemonised
         * descendant may hold them open and keep writing. */
        double wait_until = exited ? drain_until : deadline;
        int ms = wait_until > t ? (int)((wait_until - t) * 1000) + 1 : 0;
        int r = poll(p, 4, (timed_out || cancelled) && !exited ? 100 : ms);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && p[3].revents && !cancelled) {
            cancelled = true; /* killed at the top of the next pass, like a timeout */
            continue;
        }
        if (r == 0 && exited)
            break;
        for (int i = 0; i < 2; i++) {
            int *fd = i ? &errp[0] : &outp[0];
            asb_capbuf_t *b = i ? &cerr : &cout;
            if (*fd >= 0 && p[i].revents) {
                if (asb_capture_drain(*fd, b, NULL) != 0) {
                    close(*fd);
                    *fd = -1;
                }
                if (b->truncated && !output_limit) {
                    output_limit = true;
                    kill(-pid, SIGKILL);
                }
            }
        }
        if (!exited && p[2].revents) {
            /* Exited but not reaped yet: its pid (and process group id) cannot be reused, so
             * the group kill cannot hit anyone else. Then reap. */
            siginfo_t si;
            memset(&si, 0, sizeof(si));
            int wr = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOWAIT | __WALL);
            if (wr < 0 && errno == ECHILD) {
                /* Reaped by the caller (a SIGCHLD handler, or SIGCHLD ignored): the status,
                 * the only evidence this profile has, is gone, and the pid may be reused. */
                exited = true;
                status_lost = true;
                drain_until = now_s() + 0.2;
            } else if (wr == 0 && si.si_pid == pid) {
                kill(-pid, SIGKILL); /* the rest of its process group */
                pid_t w = wait4(pid, &status, __WALL, &ru);
                exited = true;
                drain_until = now_s() + 0.2;
                if (w != pid) {
                    rc = asb_err_sys(err, errno, "wait for the program");
                    goto out;
                }
            }
        }
    }
    if (!exited) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        while (wait4(pid, &status, __WALL, &ru) < 0 && errno == EINTR)
            ;
    }
    int exec_errno = 0;
    int report[2] = {0, 0};
    bool exec_failed = read(execp[0], report, sizeof(report)) == sizeof(report);
    bool setup_failed = exec_failed && report[0] == 1;
    exec_errno = report[1];

    asb_capbuf_take(&cout, &res->out);
    asb_capbuf_take(&cerr, &res->err);
    res->stdout_truncated = cout.truncated;
    res->stderr_truncated = cerr.truncated;
    res->cpu_time_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    res->max_rss_kb = ru.ru_maxrss;
    if (status_lost)
        ; /* unknown: exit_code stays -1 */
    else if (WIFEXITED(status))
        res->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
    if (cancelled) {
        rc = asb_err(err, -ECANCELED, "the run was cancelled by the caller");
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, err->message);
    } else if (timed_out) {
        res->status = ASB_STATUS_TIMEOUT;
        res->timed_out = true;
    } else if (output_limit) {
        res->status = ASB_STATUS_OUTPUT_LIMIT;
    } else if (status_lost) {
        rc = asb_err(err, -ECHILD,
                     "the program's exit status was taken by the caller (it reaps "
                     "children itself or ignores SIGCHLD)");
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, err->message);
    } else if (exec_failed) {
        char msg[600];
        if (setup_failed)
            snprintf(msg, sizeof(msg), "the program's process could not be set up: %s",
                     strerror(exec_errno));
        else
            snprintf(msg, sizeof(msg), "exec %s: %s", plan->argv[0], strerror(exec_errno));
        rc = asb_err(err, -exec_errno, "%s", msg);
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, msg);
        res->exit_code = -1; /* the program never ran: no exit status of its own (SPEC) */
    } else if (res->signal) {
        res->status = ASB_STATUS_KILLED;
    } else {
        res->status = ASB_STATUS_COMPLETED;
    }
    for (size_t i = 0; !cancelled && i < plan->n_files_out; i++) {
        unsigned char *data = NULL;
        size_t len = 0;
        char why[256];
        int fr = asb_file_out_read(dirfd, plan->files_out[i], plan->limits.file_out_bytes, &data,
                                   &len, why, sizeof(why));
        if (fr == 0)
            asb_result_add_file(res, plan->files_out[i], data, len);
        else
            asb_result_add_refused(res, plan->files_out[i], fr > 0 ? why : "internal error");
    }
out:
    if (pidfd >= 0)
        close(pidfd);
    int fds[] = {stdin_fd, outp[0], outp[1], errp[0], errp[1], execp[0], execp[1]};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (cands) {
        for (size_t i = 0; cands[i]; i++)
            free(cands[i]);
        free(cands);
    }
    free(envp);
    asb_capbuf_free(&cout);
    asb_capbuf_free(&cerr);
    if (dirfd >= 0)
        close(dirfd);
    if (dir[0]) {
        const char *slash = strrchr(dir, '/');
        asb_error_t e;
        if (slash && asb_rmtree_at(parent, slash + 1, &e) < 0 && rc == 0)
            rc = asb_err(err, e.code, "remove temp dir %s: %s", dir, e.message);
    }
    if (parent >= 0)
        close(parent);
    res->duration_s = now_s() - t0;
    return rc;
}
