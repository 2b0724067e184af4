/* sigwatch.c - what a signal that would end the CLI mid-work does (run, chaos).
 *
 * A signal that would end us mid-run (timeout(1), ^C, a closed terminal) must not leave the run
 * behind. A docker run's container is the engine's, not a child of ours (red-team finding); a
 * subprocess run's program died with us but what it forked lived on as root, past its timeout
 * (QA finding). While the work is in progress, TERM, INT, HUP and the other signals that would
 * end us (WATCHED) are taken by a thread of ours,
 * which kills the process group of each child of ours (a subprocess run's program leads its own;
 * a native run's supervisor takes its pid namespace with it) and removes our containers.
 *
 * Without a cancel flag (run) it then removes our subprocess temp directories and ends the
 * process as the signal would have. With one (chaos) it sets the flag and keeps killing what we
 * start until the work has wound down, so that the work's own teardown removes what it planted
 * on the host (QA finding: an interrupted chaos matrix left canaries in /root and /tmp that no
 * cleanup knew); a second signal ends the process at once, unless it is the same one within a
 * second (timeout(1) sends TERM twice: to the command, then to its process group). Once the
 * work has wound down after a signal, the watched signals are ignored: the caller is ending.
 *
 * A native or subprocess `run` needs neither thread nor handler (cli_sigwatch_start_cancel): the
 * signals are blocked and their signalfd is the run's cancellation fd, so the library itself
 * kills the run when one comes and removes everything of it (its cgroup and id slot too, which
 * a handler that killed the supervisor and ended the process left for the next run), and then
 * we end by that signal. Starting and ending the thread cost every `run` about 1 ms on a 2-vCPU
 * VM (bench_cli: /bin/true 1.31x bubblewrap, then 1.21x); a signalfd costs two system calls. */
#include "cli/cli.h"
#include "core/owner.h"
#include "docker/docker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIGWATCH_KILL_EVERY_MS 100 /* while winding down: what a run started since dies too */
#define SIGWATCH_ENGINE_EVERY 10   /* ... and our containers go every tenth time */
#define SIGWATCH_CREATE_SWEEPS 4   /* after the first, 250 ms apart: a create still in flight */
/* The same signal again this soon is the same request: timeout(1) sends TERM to the command and
 * then to its process group, and the second TERM took the end-at-once path (review finding). */
#define SIGWATCH_REPEAT_S 1.0
#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1u << 2) /* Linux 6.9 */
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The signals whose default action ends us and that come from outside (kill(1), a timer, a
 * terminal). Only TERM, INT and HUP until session 19: USR1, ALRM, XCPU and the rest ended `run`
 * with its cgroups, id slot or temp dir left, and a subprocess run's children running as root
 * (QA finding). Not XFSZ, which main.c ignores (a write past the caller's RLIMIT_FSIZE fails
 * with EFBIG), nor the signals of a fault of ours (SEGV, BUS, ILL, FPE, TRAP, SYS), which
 * blocking cannot hold. */
static const int WATCHED[] = {SIGTERM,   SIGINT,  SIGHUP,  SIGQUIT, SIGUSR1,   SIGUSR2, SIGALRM,
                              SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR,  SIGSTKFLT, SIGIO};
#define N_WATCHED (sizeof(WATCHED) / sizeof(WATCHED[0]))

/* Is sig one whose default action ends us and that comes from outside? WATCHED, and every
 * real-time signal libc leaves to applications (SIGRTMIN..SIGRTMAX: their default action is to
 * terminate; review finding: SIGIO and SIGRTMIN left a run behind as USR1 did before). */
static bool watched_signal(int sig)
{
    if (sig >= SIGRTMIN && sig <= SIGRTMAX)
        return true;
    for (size_t k = 0; k < N_WATCHED; k++)
        if (WATCHED[k] == sig)
            return true;
    return false;
}

/* Our child `pid` and its process group (when it leads one: a subprocess run's program; a native
 * run's supervisor stays in ours, and the group call fails with ESRCH), SIGKILLed through a
 * pidfd: the number read from /proc may be reaped by a worker thread and reused meanwhile
 * (review finding), the pidfd cannot name anyone else once the kernel says it is still our child
 * (a non-reaping waitid on it fails with ECHILD for anyone else's). */
static void kill_child(pid_t pid)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd < 0)
        return;
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    if (syscall(SYS_waitid, P_PIDFD, pfd, &si, WEXITED | WNOHANG | WNOWAIT, NULL) == 0) {
        if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, PIDFD_SIGNAL_PROCESS_GROUP) < 0 &&
            errno == EINVAL)
            syscall(SYS_kill, -pid, SIGKILL); /* before 6.9; still held to our child above */
        syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
    }
    close(pfd);
}

/* Every child of ours (see kill_child), found by a scan of /proc: /proc/self/task/TID/children
 * exists only on kernels built with CONFIG_PROC_CHILDREN (review finding). Only system calls and
 * our own code, no stdio or malloc. */
static void kill_children(void)
{
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    _Alignas(struct dirent64) char buf[4096];
    long got;
    pid_t self = getpid();
    while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < got;) {
            const struct dirent64 *d = (const struct dirent64 *)(void *)(buf + off);
            unsigned long v = 0;
            size_t i = 0;
            for (; d->d_name[i] >= '0' && d->d_name[i] <= '9' && v < (1ul << 22); i++)
                v = v * 10 + (unsigned long)(d->d_name[i] - '0');
            if (i > 0 && d->d_name[i] == '\0' && v > 0 && v < (1ul << 22) && (pid_t)v != self)
                kill_child((pid_t)v);
            if (d->d_reclen == 0)
                break;
            off += d->d_reclen;
        }
    }
    close(dir);
}

/* End the process as the signal would have, once the run is dealt with: dying of it, not
 * exiting 128+N, so that a shell loop running us stops at ^C (bash ends a script only when its
 * child died of SIGINT; review finding). Async-signal-safe. */
static void die_of(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    _exit(128 + sig); /* not reached unless the signal could not be delivered */
}

static void end_now(int sig, bool docker)
{
    kill_children();
    asb_error_t e;
    bool engine = asb_docker_remove_own(&e) >= 0 && docker;
    usleep(100 * 1000); /* the killed programs let go of their directories */
    asb_cleanup_own_temp_dirs();
    /* A container the engine was still creating when the signal came appears after that sweep
     * (red-team finding: TERM 20-100 ms into a docker run left a Created container and its
     * volume for the next run): for work that makes containers, with an engine there, sweep
     * again for a second (a slower create is left to the next run or `cleanup`). */
    for (int i = 0; engine && i < SIGWATCH_CREATE_SWEEPS; i++) {
        usleep(250 * 1000);
        asb_docker_remove_own(&e);
    }
    die_of(sig);
}

/* Waits for a watched signal or for the end of the work, whichever comes first: the end wakes
 * it at once (it polled with a 100 ms tick, and every `run` waited up to that long for it at the
 * end: 103 ms for /bin/true in `make bench`, found in session 6). */
static void *watch(void *arg)
{
    cli_sigwatch_t *w = arg;
    unsigned ticks = 0;
    double first_at = 0;
    for (;;) {
        struct pollfd p[2] = {{.fd = w->sigfd, .events = POLLIN},
                              {.fd = w->stopfd, .events = POLLIN}};
        int caught = atomic_load(&w->caught);
        int r = poll(p, 2, caught ? SIGWATCH_KILL_EVERY_MS : -1);
        if (r < 0 && errno != EINTR)
            return NULL;
        if (r > 0 && p[1].revents)
            return NULL;
        if (r > 0 && p[0].revents) {
            struct signalfd_siginfo si;
            int sig =
                read(w->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) ? (int)si.ssi_signo : 0;
            if (sig <= 0)
                continue;
            if (!w->cancel ||
                (caught && (sig != caught || now_s() - first_at >= SIGWATCH_REPEAT_S)))
                end_now(sig, w->docker);
            if (caught)
                continue; /* the same request again (timeout(1)): keep winding down */
            first_at = now_s();
            atomic_store(&w->caught, sig);
            atomic_store(w->cancel, true);
            ticks = 0;
        }
        if (atomic_load(&w->caught)) {
            kill_children();
            if (ticks++ % SIGWATCH_ENGINE_EVERY == 0) {
                asb_error_t e;
                asb_docker_remove_own(&e);
            }
        }
    }
}

/* ---- runs the library can cancel (native, subprocess): no thread, no handler --------------- */

/* The watched signals that are the CLI's to act on: not ignored (nohup, a background job's
 * SIGINT), not blocked by the caller (that one stays the caller's to deliver). */
static void watchable(sigset_t *set)
{
    sigemptyset(set);
    sigset_t blocked;
    sigemptyset(&blocked);
    pthread_sigmask(SIG_BLOCK, NULL, &blocked);
    for (int sig = 1; sig <= SIGRTMAX; sig++) {
        struct sigaction sa;
        if (watched_signal(sig) && sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
            sigismember(&blocked, sig) != 1)
            sigaddset(set, sig);
    }
}

bool cli_sigwatch_start_cancel(cli_sigwatch_t *w, asb_config_t *cfg)
{
    memset(w, 0, sizeof(*w));
    atomic_init(&w->caught, 0);
    w->sigfd = w->stopfd = -1;
    watchable(&w->set);
    pthread_sigmask(SIG_BLOCK, &w->set, &w->old);
    w->sigfd = signalfd(-1, &w->set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (w->sigfd < 0) {
        pthread_sigmask(SIG_SETMASK, &w->old, NULL);
        return cli_sigwatch_start(w, NULL, false); /* the thread does the same, at ~1 ms */
    }
    cfg->cancellable = true;
    cfg->cancel_fd = w->sigfd;
    w->library = true;
    w->active = true;
    return true;
}

bool cli_sigwatch_start(cli_sigwatch_t *w, atomic_bool *cancel, bool docker)
{
    memset(w, 0, sizeof(*w));
    w->cancel = cancel;
    w->docker = docker;
    atomic_init(&w->caught, 0);
    /* Only signals that would end us: one the caller ignores (nohup, a background job's SIGINT)
     * must stay ignored, and a blocked ignored signal would be queued for us. One the caller
     * blocks stays the caller's to deliver: the signalfd would read it at once (and a native
     * run's handler never sees it; review finding). */
    watchable(&w->set);
    pthread_sigmask(SIG_BLOCK, &w->set, &w->old);
    w->sigfd = signalfd(-1, &w->set, SFD_CLOEXEC);
    w->stopfd = eventfd(0, EFD_CLOEXEC);
    w->active = w->sigfd >= 0 && w->stopfd >= 0 && pthread_create(&w->thread, NULL, watch, w) == 0;
    if (!w->active) {
        if (w->sigfd >= 0)
            close(w->sigfd);
        if (w->stopfd >= 0)
            close(w->stopfd);
        pthread_sigmask(SIG_SETMASK, &w->old, NULL);
    }
    return w->active;
}

int cli_sigwatch_stop(cli_sigwatch_t *w)
{
    if (!w->active)
        return 0;
    if (w->library) {
        /* The run has returned: a signal that came meanwhile cancelled it, and the library
         * has killed and removed all of it. Now we end as that signal would have ended us. */
        struct signalfd_siginfo si;
        int sig = read(w->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) ? (int)si.ssi_signo : 0;
        close(w->sigfd);
        w->active = false;
        if (sig > 0)
            die_of(sig); /* re-raised while still blocked, then unblocked: never returns */
        pthread_sigmask(SIG_SETMASK, &w->old, NULL);
        return 0;
    }
    uint64_t one = 1;
    if (write(w->stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
        pthread_cancel(w->thread); /* cannot happen on an eventfd; never wait forever */
    pthread_join(w->thread, NULL);
    close(w->sigfd);
    close(w->stopfd);
    w->active = false;
    int caught = atomic_load(&w->caught);
    /* After a caught signal the caller ends with 128+N, so the watched signals are ignored from
     * here on: timeout(1)'s second TERM, arriving after the wind-down, killed us before the
     * message (review finding), and blocking them instead would leave them blocked for anything
     * started after (review note). Otherwise a signal that comes after takes its default. */
    if (caught)
        for (int s = 1; s < NSIG; s++)
            if (sigismember(&w->set, s) == 1)
                signal(s, SIG_IGN);
    pthread_sigmask(SIG_SETMASK, &w->old, NULL);
    return caught;
}
