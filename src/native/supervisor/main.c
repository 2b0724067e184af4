/* asb-supervisor: the trusted PID 1 inside a native sandbox.
 *
 * The host execs this binary (an fd it opened, so the path is never resolved inside) as the first
 * process of the new namespaces. It builds the root, forks the workload, forwards the workload's
 * attestation to the host, and only when the host sends the job (which it does only for a valid
 * attestation) copies the files in and lets the workload exec it. A cold run (the host knows the
 * job from the start) takes the job first and makes the workload with vfork semantics; the
 * workload attests to the host itself and execs on the host's "go" (start_cold). Then it relays
 * stdout/stderr with exact caps, enforces the deadline, reaps every process and reports how the
 * workload ended. When it exits the pid namespace dies with it: no orphan survives the run. */
#include "core/error.h"
#include "native/fdpass.h"
#include "native/proto.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct stream {
    int fd;        /* read end from the workload, -1 when closed */
    int out;       /* where it goes on the host side (1 or 2), non-blocking */
    uint64_t sent; /* bytes forwarded (or queued to be) */
    bool truncated;
    /* Read from the workload but not yet taken by the host: while any is left we wait for the
     * host's pipe, not for more output, so the workload blocks on its own full pipe and we
     * never block on the host's (a stopped caller held a blocking write here, and with it the
     * deadline: red-team finding). */
    unsigned char pend[65536];
    size_t pend_off, pend_len;
} stream_t;

typedef struct run_state {
    const sup_spec_t *spec;
    pid_t workload;
    int workload_status;
    bool workload_done;
    bool timed_out, output_limit, killed_all, host_abort;
    char exec_error[600];
} run_state_t;

#if defined(__SANITIZE_ADDRESS__)
/* Sanitizer builds: the supervisor exits right after its run, holding what it still needs; a
 * leak report at exit would only change its exit status (which the host cross-checks). */
__attribute__((used, visibility("default"))) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
#endif

static void kill_all(run_state_t *st)
{
    /* From PID 1 of the namespace, -1 means every other process in it. */
    kill(-1, SIGKILL);
    st->killed_all = true;
}

/* Forward what is readable now; exactly `cap` bytes reach the host, never more. Without
 * until_eof it returns as soon as the workload has nothing more or the host's pipe is full (the
 * caller's poll then waits for whichever it is). With until_eof (the workload is gone) it drains
 * to the end, waiting for the host as long as it takes: nothing of the run is left to run. */
static void pump(stream_t *s, run_state_t *st, bool until_eof)
{
    for (;;) {
        if (!sup_flush(s->out, s->pend, &s->pend_off, &s->pend_len, until_eof))
            return; /* the host's pipe is full: the main loop waits for room */
        if (s->fd < 0)
            return;
        ssize_t n = read(s->fd, s->pend, sizeof(s->pend));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN && !until_eof)
            return;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd p = {.fd = s->fd, .events = POLLIN};
            if (poll(&p, 1, 1000) <= 0) /* writers are dead; never wait forever */
                goto closed;
            continue;
        }
        if (n <= 0)
            goto closed;
        uint64_t cap = st->spec->output_bytes;
        uint64_t room = s->sent < cap ? cap - s->sent : 0;
        size_t fwd = (uint64_t)n < room ? (size_t)n : (size_t)room;
        s->pend_off = 0;
        s->pend_len = fwd;
        s->sent += fwd;
        if ((size_t)n > fwd && !s->truncated) {
            s->truncated = true;
            if (!st->output_limit) {
                st->output_limit = true;
                kill_all(st);
            }
        }
    }
closed:
    close(s->fd);
    s->fd = -1;
    /* what is left waits for the drain after the loop */
    (void)sup_flush(s->out, s->pend, &s->pend_off, &s->pend_len, until_eof);
}

static void stream_init(stream_t *s, int fd, int out)
{
    s->fd = fd;
    s->out = out;
    s->sent = 0;
    s->truncated = false;
    s->pend_off = s->pend_len = 0; /* pend itself is written before it is read */
}

/* What the main loop polls for a stream: the host's pipe while bytes are pending, else more
 * output from the workload. */
static struct pollfd stream_poll(const stream_t *s)
{
    if (s->pend_off < s->pend_len)
        return (struct pollfd){.fd = s->out, .events = POLLOUT};
    return (struct pollfd){.fd = s->fd, .events = POLLIN};
}

static void send_exit(int ctl, run_state_t *st, stream_t *out, stream_t *err)
{
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    getrusage(RUSAGE_CHILDREN, &ru);
    int code = -1, sig = 0;
    if (st->workload_done) {
        if (WIFEXITED(st->workload_status))
            code = WEXITSTATUS(st->workload_status) + (SUP_TAMPERED(EXIT) ? 1 : 0);
        else if (WIFSIGNALED(st->workload_status))
            sig = WTERMSIG(st->workload_status);
    }
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    asb_wire_buf_t o = {0};
    asb_wire_put_int(&o, "exit_code", code);
    asb_wire_put_int(&o, "signal", sig);
    asb_wire_put_bool(&o, "workload_done", st->workload_done);
    asb_wire_put_bool(&o, "timed_out", st->timed_out);
    asb_wire_put_bool(&o, "output_limit", st->output_limit);
    asb_wire_put_int(&o, "stdout_bytes", (int64_t)out->sent);
    asb_wire_put_int(&o, "stderr_bytes", (int64_t)err->sent);
    asb_wire_put_bool(&o, "stdout_truncated", out->truncated);
    asb_wire_put_bool(&o, "stderr_truncated", err->truncated);
    asb_wire_put_double(&o, "cpu_time_s", cpu);
    asb_wire_put_int(&o, "max_rss_kb", (int64_t)ru.ru_maxrss);
    asb_wire_put_text(&o, "exec_error", st->exec_error);
    sup_send_msg(ctl, st->spec->nonce, "exit", &o);
}

static int exit_code_for(const run_state_t *st)
{
    if (!st->workload_done)
        return 125;
    if (WIFEXITED(st->workload_status))
        return WEXITSTATUS(st->workload_status);
    if (WIFSIGNALED(st->workload_status))
        return 128 + WTERMSIG(st->workload_status);
    return 125;
}

static int fatal(const sup_spec_t *spec, const char *msg)
{
    sup_send_error(ASB_FD_CONTROL, spec ? spec->nonce : "", msg);
    return 125;
}

/* What both ways of starting the workload share (main). */
typedef struct start {
    sup_spec_t *spec;
    const char *workspace;
    int ctl, sfd;
    int outp[2], errp[2], attp[2], jobsk[2];
    const char *probe_name;
    int probe;
    run_state_t *st;
    sup_uname_t *un;
    int attfd;       /* the workload's error pipe for the main loop, -1 once read to its end */
    size_t exec_len; /* what of an exec error is in st->exec_error already */
} start_t;

static int fork_failed(const sup_spec_t *spec, int e)
{
    /* EAGAIN here is most often the caller's RLIMIT_NPROC, which passes down to us */
    asb_error_t err = {0};
    struct rlimit np;
    if (e == EAGAIN && getrlimit(RLIMIT_NPROC, &np) == 0 && np.rlim_cur != RLIM_INFINITY)
        asb_err_sys(&err, e, "fork the workload (the caller's RLIMIT_NPROC, %llu, applies)",
                    (unsigned long long)np.rlim_cur);
    else
        asb_err_sys(&err, e, "fork the workload");
    return fatal(spec, err.message);
}

/* The job from the host: "job" with [its spec, stdin, files in...]. Its spec taken into ours,
 * its files copied into the workspace; jfds[0] and jfds[1] stay open for the caller. 0, or
 * main's exit code: the run is over. */
static int take_job(start_t *s, int *jfds)
{
    run_state_t *st = s->st;
    asb_error_t err = {0};
    size_t njfds = 0;
    int jr;
    while ((jr = sup_recv_job(s->ctl, s->sfd, jfds, SUP_JOB_MAX_FDS, &njfds)) == -EINTR) {
        /* While prepared: a workload that died (it never ran anything of the job) or the host's
         * abort ends the sandbox now, so a pool never hands a job to a sandbox that cannot run
         * it (it sees our exit). */
        struct signalfd_siginfo si;
        bool abort_run = false;
        while (read(s->sfd, &si, sizeof(si)) == sizeof(si))
            abort_run |= sup_from_outside(&si);
        if (st->workload > 0)
            sup_reap_workload(st->workload, &st->workload_status, &st->workload_done);
        if (abort_run) {
            kill_all(st);
            return 125;
        }
        if (st->workload_done) {
            kill_all(st);
            return fatal(s->spec, "the workload ended before its job");
        }
    }
    if (jr < 0) {
        kill_all(st);
        return 125; /* the host refused the attestation or went away */
    }
    sup_spec_t job;
    int jrc = sup_spec_read(jfds[0], &job, &err);
    if (jrc < 0 || sup_spec_take_job(s->spec, &job, &err) < 0) {
        kill_all(st);
        return fatal(s->spec, err.message);
    }
    if (s->spec->n_files_in != njfds - 2) {
        kill_all(st);
        return fatal(s->spec, "job: files in and their descriptors differ");
    }
    for (size_t i = 0; i < s->spec->n_files_in; i++)
        s->spec->files_in[i].fd = jfds[2 + i];
    if (sup_copy_files_in(s->spec, s->workspace, &err) < 0) {
        kill_all(st);
        return fatal(s->spec, err.message);
    }
    return 0;
}

/* A prepared sandbox (a pool's, or any run whose job is not yet known): the workload is forked,
 * applies every control and attests; its attestation goes to the host through us, and only
 * the job, which the host sends for a valid attestation alone, releases it. 0, or main's exit
 * code. */
static int start_prepared(start_t *s)
{
    sup_spec_t *spec = s->spec;
    run_state_t *st = s->st;
    asb_error_t err = {0};
    st->workload = fork();
    if (st->workload < 0)
        return fork_failed(spec, errno);
    if (st->workload == 0) {
        close(s->outp[0]), close(s->errp[0]), close(s->attp[0]), close(s->jobsk[0]);
        close(s->sfd);
        sup_workload_fds_t fds = {.out_w = s->outp[1],
                                  .err_w = s->errp[1],
                                  .attest_w = s->attp[1],
                                  .job_r = s->jobsk[1],
                                  .ctl = -1,
                                  .job_stdin = -1,
                                  .scope_probe = s->probe_name};
        sup_workload_main(spec, s->workspace, &fds);
    }
    close(s->outp[1]), close(s->errp[1]), close(s->attp[1]), close(s->jobsk[1]);

    char att[8192] = "";
    int alen = sup_read_attestation(s->attp[0], att, sizeof(att), ASB_SETUP_TIMEOUT_MS);
    if (alen < 0) {
        kill_all(st);
        if (strncmp(att, "error:", 6) == 0)
            return fatal(spec, att + 6);
        return fatal(spec, "the workload sent no attestation");
    }
    close(s->probe);
    /* Sent before the attestation, so it is queued by now. */
    if (spec->uname_hidden && sup_uname_take(s->un, s->jobsk[0], true, &err) < 0) {
        kill_all(st);
        return fatal(spec, err.message);
    }
    asb_wire_buf_t ao = {0};
    uint8_t *araw = NULL;
    size_t arlen = 0;
    if (asb_wire_unhex(att, &araw, &arlen) == 0)
        asb_wire_put_raw(&ao, araw, arlen); /* checks the records */
    free(araw);
    if (!asb_wire_ok(&ao) || arlen == 0) {
        asb_wire_free(&ao);
        kill_all(st);
        return fatal(spec, "malformed attestation");
    }
    if (SUP_TAMPERED(NONCE)) {
        /* Another run's nonce: the host must not take this for our attestation. Should it send
         * the job all the same, the run goes on (and the test sees it complete); else we end. */
        char other[sizeof(spec->nonce)];
        snprintf(other, sizeof(other), "%s", spec->nonce);
        other[0] = other[0] == '0' ? '1' : '0';
        sup_send_msg(s->ctl, other, "attest", &ao);
        struct pollfd jp = {.fd = s->ctl, .events = POLLIN};
        if (poll(&jp, 1, 2000) <= 0) {
            kill_all(st);
            return fatal(spec, "tampered supervisor: no job came for a mis-tagged attestation");
        }
    } else {
        sup_send_msg(s->ctl, spec->nonce, "attest", &ao);
    }

    /* Prepared: everything above is the sandbox, its workload process with every control in
     * force and attested, made before anyone knew what would run in it (a pool prepares it
     * ahead). The host sends the job only once it has checked the attestation: what to run,
     * its stdin and files. */
    int jfds[SUP_JOB_MAX_FDS];
    int rc = take_job(s, jfds);
    if (rc != 0)
        return rc;
    /* Release the workload: the job's spec (argv, env) and stdin travel to it as fds. */
    if (asb_fd_send(s->jobsk[0], "g", 1, jfds, 2) < 0) {
        kill_all(st);
        return fatal(spec, "cannot release the workload");
    }
    close(jfds[0]), close(jfds[1]), close(s->jobsk[0]);
    return 0;
}

typedef struct cold_child {
    const sup_spec_t *spec;
    const char *workspace;
    const sup_workload_fds_t *fds;
    int ours[5]; /* our ends, which the workload must not hold */
} cold_child_t;

static int cold_child_main(void *arg)
{
    const cold_child_t *c = arg;
    for (size_t i = 0; i < sizeof(c->ours) / sizeof(c->ours[0]); i++)
        close(c->ours[i]);
    sup_workload_main(c->spec, c->workspace, c->fds); /* never returns */
    return 125;
}

#if defined(__SANITIZE_ADDRESS__)
#define SUP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SUP_SANITIZED 1
#endif
#endif

#define COLD_STACK_SIZE (256u * 1024u)

/* The cold run's workload, with vfork semantics: it runs on a stack of its own in our memory
 * (no copy of our address space, ~0.4 ms of page tables made and torn down per run on a
 * paravirtualized VM) while we wait, until its exec or its end. Its own fd table, signal
 * dispositions, credentials, limits, cwd and filters, as with fork: only the memory is shared
 * (and with it the dumpable flag, workload.c), and only until the exec, while nothing else runs
 * in the sandbox. Killed in the middle of a malloc or stdio call (only from outside: an OOM kill
 * takes every task of the memory), it would leave our heap half-updated and us liable to crash:
 * a sandbox_error either way. The kernel refuses CLONE_VM where our children would get another
 * time namespace than ours: the host made ours with the pid namespace, and nothing here may
 * unshare one (review 24). Sanitizer builds fork instead (their runtime does not expect a second
 * task on our memory); main then waits for the exec itself (cold_wait). */
static pid_t cold_spawn(cold_child_t *c)
{
#ifdef SUP_SANITIZED
    pid_t pid = fork();
    if (pid == 0)
        _exit(cold_child_main(c));
    return pid;
#else
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = COLD_STACK_SIZE + page;
    void *mem =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mem == MAP_FAILED)
        return -1;
    if (mprotect(mem, page, PROT_NONE) < 0) { /* a guard page: an overflow faults */
        int e = errno;
        munmap(mem, size);
        errno = e;
        return -1;
    }
    pid_t pid = clone(cold_child_main, (char *)mem + size, CLONE_VM | CLONE_VFORK | SIGCHLD, c);
    int e = errno;
    munmap(mem, size); /* it has exec'd or ended: nothing runs on this stack any more */
    errno = e;
    return pid;
#endif
}

/* What the workload said on its error pipe until its end (its exec closes it): nothing or an
 * exec error if it exec'd or failed to, "error:..." if its setup failed, "refused:" if the host
 * refused it the go. Read to the end here; an abort from outside meanwhile ends the run. */
static int cold_wait(start_t *s, char *buf, size_t size, size_t *len)
{
    *len = 0;
    for (;;) {
        struct pollfd p[2] = {{.fd = s->attp[0], .events = POLLIN},
                              {.fd = s->sfd, .events = POLLIN}};
        int r = poll(p, 2, -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        if (p[1].revents) {
            struct signalfd_siginfo si;
            bool abort_run = false;
            while (read(s->sfd, &si, sizeof(si)) == sizeof(si))
                abort_run |= sup_from_outside(&si);
            if (abort_run)
                return -ECANCELED;
        }
        if (!p[0].revents)
            continue;
        ssize_t n = read(s->attp[0], buf + *len, size - 1 - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
        if (*len == size - 1)
            break;
    }
    buf[*len] = '\0';
    return 0;
}

/* A cold run (the host knows the job from the start and sent it right after the cgroup): the
 * job is taken first, then the workload is made with vfork semantics (cold_spawn). It applies
 * every control, attests to the host itself and execs on the host's "go", which the host sends
 * for a valid attestation alone; anything else ends it before anything of the job runs. No
 * relay through us, no copy of our memory. 0, or main's exit code. */
static int start_cold(start_t *s)
{
    sup_spec_t *spec = s->spec;
    run_state_t *st = s->st;
    asb_error_t err = {0};
    int jfds[SUP_JOB_MAX_FDS];
    int rc = take_job(s, jfds);
    if (rc != 0)
        return rc;
    /* What could refuse the uname answers, checked before anything runs. */
    if (spec->uname_hidden && sup_uname_prepare(s->un, true, &err) < 0) {
        close(jfds[0]), close(jfds[1]);
        return fatal(spec, err.message);
    }
    sup_workload_fds_t fds = {.out_w = s->outp[1],
                              .err_w = s->errp[1],
                              .attest_w = s->attp[1],
                              .job_r = s->jobsk[1],
                              .ctl = s->ctl,
                              .job_stdin = jfds[1],
                              .scope_probe = s->probe_name};
    cold_child_t c = {.spec = spec,
                      .workspace = s->workspace,
                      .fds = &fds,
                      .ours = {s->outp[0], s->errp[0], s->attp[0], s->jobsk[0], s->sfd}};
    st->workload = cold_spawn(&c);
    int spawn_errno = errno;
    /* It shared our memory, dumpable flag included, and changed its ids (which set that flag to
     * fs.suid_dumpable): it cleared the flag before its exec, and so do we, for every path. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    close(jfds[0]), close(jfds[1]);
    close(s->outp[1]), close(s->errp[1]), close(s->attp[1]), close(s->jobsk[1]);
    if (st->workload < 0)
        return fork_failed(spec, spawn_errno);
    char said[sizeof(st->exec_error)];
    size_t len = 0;
    int waited = cold_wait(s, said, sizeof(said), &len);
    close(s->attp[0]);
    s->attfd = -1;
    close(s->probe);
    /* Its SIGCHLD may have been read above: reaped now if it ended, the main loop is skipped. */
    sup_reap_workload(st->workload, &st->workload_status, &st->workload_done);
    if (waited < 0) {
        kill_all(st);
        return 125;
    }
    if (strncmp(said, "error:", 6) == 0) {
        kill_all(st);
        return fatal(spec, said + 6);
    }
    if (strncmp(said, "refused:", 8) == 0) {
        kill_all(st);
        return 125; /* the host refused the attestation or went away */
    }
    /* Only a workload that had its go says so first: an end of the pipe without the mark is a
     * workload that died before (killed, a fault in its setup), and nothing of the job ran. */
    if (strncmp(said, "go:", 3) != 0) {
        kill_all(st);
        return fatal(spec, "the workload ended before its go");
    }
    len -= 3;
    memcpy(st->exec_error, said + 3, len + 1); /* nothing, or why its exec failed */
    s->exec_len = len;
    /* Sent before the attestation, so it is queued by now. */
    if (spec->uname_hidden && sup_uname_attach(s->un, s->jobsk[0], &err) < 0) {
        kill_all(st);
        return fatal(spec, err.message);
    }
    close(s->jobsk[0]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--container") == 0)
        return sup_container_main(); /* docker backend: container.c */
    asb_error_t err = {0};
    sup_spec_t spec;
    const int ctl = ASB_FD_CONTROL;
    /* We start as host root in new pid and time namespaces (native.c); the user namespace and
     * the others come below (userns.c). Not dumpable: nothing in the sandbox may ptrace us or
     * open our /proc entries (exe, mem, fd), even as root of the namespace (set again once our
     * ids have changed, which clears both flags). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    /* Nothing of the caller's signal state survives: an ignored SIGCHLD would auto-reap the
     * workload behind our back, an ignored SIGINT would reach the program. Exec already reset
     * handlers; SIG_IGN dispositions and the (all-blocked) mask are inherited. */
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (sup_spec_read(ASB_FD_SPEC, &spec, &err) < 0)
        return fatal(NULL, err.message);
    close(ASB_FD_SPEC);
    /* Nothing of the caller's personality, OOM protection or priority goes further. */
    if (sup_reset_inherited(&err) < 0)
        return fatal(&spec, err.message);
    int proc_mnt = -1;
    if (sup_enter_userns(&spec, ctl, &proc_mnt, &err) < 0)
        return fatal(&spec, err.message);
    /* The host sent the device nodes as we started; baseline's /usr and the ids follow our
     * "userns". */
    const char *workspace = NULL;
    int dev_tree = -1;
    if (spec.root != ASB_ROOT_HOST &&
        (dev_tree = sup_recv_fd(ctl, "dev_tree", ASB_SETUP_TIMEOUT_MS)) < 0)
        return fatal(&spec, "no device nodes from the host");
    int usr_tree = -1;
    if (spec.usr_from_host && (usr_tree = sup_recv_fd(ctl, "usr_tree", ASB_SETUP_TIMEOUT_MS)) < 0)
        return fatal(&spec, "no idmapped /usr from the host");
    if (sup_take_ids(ctl, &err) < 0)
        return fatal(&spec, err.message);
    int built = sup_build_root(&spec, usr_tree, dev_tree, proc_mnt, &workspace, &err);
    if (usr_tree >= 0)
        close(usr_tree);
    if (dev_tree >= 0)
        close(dev_tree);
    close(proc_mnt);
    if (built < 0)
        return fatal(&spec, err.message);
    int wsfd = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (wsfd < 0 || sup_send_fd(ctl, spec.nonce, "workspace", wsfd) < 0)
        return fatal(&spec, "cannot hand the workspace to the host");
    close(wsfd);
    /* Into the run's cgroup (v2: we were cloned into it; v1: the host made it while we built
     * the root and sends its tasks files). Nothing that counts against the run's limits
     * happens before: files in and the workload come after, and the host checks that we are
     * in it before it lets the workload run. */
    int joined = sup_join_cgroup(ctl, ASB_SETUP_TIMEOUT_MS);
    if (joined < 0) {
        asb_err(&err, joined, "cannot join the run's cgroup (%s)", strerror(-joined));
        return fatal(&spec, err.message);
    }
    /* Rooting a cgroup namespace
     * here shows the workload "/" and none of the host's cgroup paths. */
    if (unshare(CLONE_NEWCGROUP) < 0) {
        asb_err_sys(&err, errno, "unshare cgroup namespace");
        return fatal(&spec, err.message);
    }
    if (setgroups(0, NULL) < 0) {
        asb_err_sys(&err, errno, "setgroups");
        return fatal(&spec, err.message);
    }

    /* The new UTS namespace starts as a copy of the caller's: both names are replaced (the NIS
     * domain name leaked the caller's until a red team noticed). */
    if (sethostname(ASB_SANDBOX_HOSTNAME, strlen(ASB_SANDBOX_HOSTNAME)) < 0 ||
        setdomainname(ASB_SANDBOX_DOMAINNAME, strlen(ASB_SANDBOX_DOMAINNAME)) < 0)
        return fatal(&spec, "sethostname/setdomainname failed");
    /* The network namespace's lo stays down: with it up, listening sockets on 127.0.0.1 let a
     * workload hold connections it never accepts, and the kernel charges those (and what
     * queues on them) to no cgroup: one run held 1.1 GB of host memory that way and filled the
     * host-wide TCP memory (red-team finding). The attestation reports it down. */

    int outp[2], errp[2], attp[2], jobsk[2];
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 || pipe2(attp, O_CLOEXEC) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, jobsk) < 0)
        return fatal(&spec, "pipe failed");
    /* The workload's stdout and stderr pipes are its own: a program that reopens /dev/stdout or
     * /dev/stderr (logging configs, `tee /dev/stderr`) passes the permission check of the pipe's
     * inode, which is ours until now (compatibility QA: EACCES in hardened). */
    if (fchown(outp[1], (uid_t)spec.uid, (gid_t)spec.gid) < 0 ||
        fchown(errp[1], (uid_t)spec.uid, (gid_t)spec.gid) < 0)
        return fatal(&spec, "cannot give the output pipes to the workload's user");
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        return fatal(&spec, "signalfd failed");

    /* The listener the workload's scope probe must fail to reach (see workload.c). */
    /* Named by a token of its own, not the run's nonce: in baseline (the host's network
     * namespace) /proc/net/unix shows abstract names to every other sandbox (red-team finding). */
    char probe_name[64];
    unsigned char tok[12];
    if (getrandom(tok, sizeof(tok), 0) != (ssize_t)sizeof(tok))
        return fatal(&spec, "cannot name the scope probe socket (getrandom)");
    int pn = snprintf(probe_name, sizeof(probe_name), "asb-scope-probe-");
    for (size_t i = 0; i < sizeof(tok); i++)
        pn += snprintf(probe_name + pn, sizeof(probe_name) - (size_t)pn, "%02x", tok[i]);
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un psa = {.sun_family = AF_UNIX};
    memcpy(psa.sun_path + 1, probe_name, strlen(probe_name));
    if (probe < 0 ||
        bind(probe, (struct sockaddr *)&psa,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(probe_name))) < 0 ||
        listen(probe, 1) < 0)
        return fatal(&spec, "cannot create the scope probe socket");

    run_state_t st = {.spec = &spec};
    sup_uname_t un = {.listener = -1};
    start_t sc = {.spec = &spec,
                  .workspace = workspace,
                  .ctl = ctl,
                  .sfd = sfd,
                  .outp = {outp[0], outp[1]},
                  .errp = {errp[0], errp[1]},
                  .attp = {attp[0], attp[1]},
                  .jobsk = {jobsk[0], jobsk[1]},
                  .probe_name = probe_name,
                  .probe = probe,
                  .st = &st,
                  .un = &un,
                  .attfd = attp[0]};
    int started = spec.early_job ? start_cold(&sc) : start_prepared(&sc);
    if (started != 0)
        return started;
    uint64_t deadline = sup_now_ms() + spec.timeout_ms;
    if (SUP_TAMPERED(DEADLINE)) /* a test build that misses it: the host's backstop must act */
        deadline += 24 * 3600 * 1000;

    fcntl(outp[0], F_SETFL, O_NONBLOCK);
    fcntl(errp[0], F_SETFL, O_NONBLOCK);
    /* The host's pipes without blocking (pump); only our file descriptions, not the host's. */
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
    fcntl(2, F_SETFL, fcntl(2, F_GETFL) | O_NONBLOCK);
    /* Field by field: an initializer would zero both 64 KiB buffers, and touching those 32
     * fresh stack pages cost every run a page fault each (a memset high in a profile of cold
     * runs on a paravirtualized VM), also when the program writes nothing. */
    stream_t out, errs;
    stream_init(&out, outp[0], 1);
    stream_init(&errs, errp[0], 2);
    int attfd = sc.attfd;
    size_t exec_len = sc.exec_len;
    while (!st.workload_done) {
        struct pollfd p[6] = {stream_poll(&out),
                              stream_poll(&errs),
                              {.fd = sfd, .events = POLLIN},
                              {.fd = ctl, .events = POLLIN},
                              {.fd = attfd, .events = POLLIN},
                              {.fd = un.listener, .events = POLLIN}};
        uint64_t t = sup_now_ms();
        int timeout = t >= deadline ? 0 : (int)(deadline - t);
        int r = poll(p, 6, timeout);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && p[2].revents)
            sup_reap_workload(st.workload, &st.workload_status,
                              &st.workload_done); /* a workload that ended right at the deadline did
                                                     not time out */
        if (!st.workload_done && sup_now_ms() >= deadline && !st.timed_out) {
            st.timed_out = true;
            kill_all(&st);
        }
        if (r <= 0)
            continue;
        if (p[0].revents)
            pump(&out, &st, false);
        if (p[1].revents)
            pump(&errs, &st, false);
        if (p[2].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
                /* Only a signal from outside the namespace (the host's backstop) ends the run:
                 * from there the sender's pid reads as 0. The workload may not stop us. */
                if (sup_from_outside(&si)) {
                    st.host_abort = true;
                    kill_all(&st);
                }
            }
            sup_reap_workload(st.workload, &st.workload_status, &st.workload_done);
        }
        if (p[3].revents) {
            char buf[256];
            ssize_t n = recv(ctl, buf, sizeof(buf), MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                st.host_abort = true; /* host gone or abort: nothing may outlive it */
                kill_all(&st);
            }
            if (n > 0) {
                st.host_abort = true;
                kill_all(&st);
            }
        }
        if (attfd >= 0 && p[4].revents) {
            ssize_t n = read(attfd, st.exec_error + exec_len, sizeof(st.exec_error) - 1 - exec_len);
            if (n > 0) {
                exec_len += (size_t)n;
            } else if (n == 0 || errno != EINTR) {
                close(attfd);
                attfd = -1;
            }
        }
        /* One notification per turn, so a uname loop cannot starve the output relay. A hang-up
         * means no process holds the filter any more. */
        if (p[5].revents & POLLIN)
            sup_uname_serve(&un);
        else if (p[5].revents)
            sup_uname_free(&un);
    }
    sup_uname_free(&un);
    /* The workload ended: whatever it left behind dies now, then the pipes drain to EOF. */
    kill_all(&st);
    pump(&out, &st, true);
    pump(&errs, &st, true);
    sup_collect_exec_error(attfd, st.exec_error, sizeof(st.exec_error), exec_len);
    sup_reap_all();
    send_exit(ctl, &st, &out, &errs);
    return exit_code_for(&st);
}
