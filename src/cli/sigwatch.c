/* sigwatch.c - what a signal that would end the CLI mid-work does (run, chaos).
 *
 * A signal that would end us mid-run (timeout(1), ^C, a closed terminal) must not leave the run
 * behind. A docker run's container is the engine's, not a child of ours (red-team finding); a
 * subprocess run's program died with us but what it forked lived on as root, past its timeout
 * (QA finding). While the work is in progress, TERM, INT and HUP are taken by a thread of ours,
 * which kills the process group of each child of ours (a subprocess run's program leads its own;
 * a native run's supervisor takes its pid namespace with it) and removes our containers.
 *
 * Without a cancel flag (run) it then removes our subprocess temp directories and ends the
 * process as the signal would have. With one (chaos) it sets the flag and keeps killing what we
 * start until the work has wound down, so that the work's own teardown removes what it planted
 * on the host (QA finding: an interrupted chaos matrix left canaries in /root and /tmp that no
 * cleanup knew); a second signal ends the process at once, unless it is the same one within a
 * second (timeout(1) sends TERM twice: to the command, then to its process group). Once the
 * work has wound down after a signal, the watched signals are ignored: the caller is ending. A
 * cgroup left by a native run goes with the next run or `cleanup`.
 *
 * A native `run` needs no thread: only its supervisor is to be killed, and a signal handler
 * does that with system calls alone (cli_sigwatch_start_native), waiting for the supervisor's
 * exit, which comes after its whole pid namespace's. Starting and ending the thread cost every
 * native `run` about 1 ms on a 2-vCPU VM (bench_cli: /bin/true 1.31x bubblewrap, then 1.21x). */
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

/* Our child `pid` and its process group (when it leads one), SIGKILLed through a pidfd: the
 * number read from /proc may be reaped by a worker thread and reused meanwhile (review
 * finding), the pidfd cannot name anyone else once the kernel says it is still our child (a
 * non-reaping waitid on it fails with ECHILD for anyone else's). */
static void kill_child(pid_t pid)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd < 0)
        return;
    siginfo_t si;
    if (waitid(P_PIDFD, (id_t)pfd, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
        if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, PIDFD_SIGNAL_PROCESS_GROUP) < 0)
            kill(-pid, SIGKILL); /* before 6.9; the check above still holds it to our child */
        syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
    }
    close(pfd);
}

static void kill_children(void)
{
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *t;
    while (tasks && (t = readdir(tasks))) {
        if (t->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/self/task/%s/children", t->d_name);
        FILE *f = fopen(path, "re");
        long pid;
        while (f && fscanf(f, "%ld", &pid) == 1)
            kill_child((pid_t)pid);
        if (f)
            fclose(f);
    }
    if (tasks)
        closedir(tasks);
}

static void end_now(int sig)
{
    kill_children();
    asb_error_t e;
    asb_docker_remove_own(&e);
    usleep(100 * 1000); /* the killed programs let go of their directories */
    asb_cleanup_own_temp_dirs();
    _exit(128 + sig);
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
                end_now(sig);
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

/* ---- native runs: a handler instead of a thread ---------------------------------------------
 * Only system calls and our own code below: no stdio, no malloc, no snprintf (the signal may
 * come inside any of them). Nothing returns: the process ends with 128 + N. */

#define SIGWATCH_WAIT_MS 3000 /* per child: the supervisor's exit after SIGKILL takes ~1 ms */

/* Kill our child `pid` (and its process group), wait until it has exited and reap it. */
static void kill_child_and_wait(pid_t pid)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd < 0)
        return;
    siginfo_t si;
    si.si_pid = 0;
    if (syscall(SYS_waitid, P_PIDFD, pfd, &si, WEXITED | WNOHANG | WNOWAIT, NULL) == 0) {
        if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, PIDFD_SIGNAL_PROCESS_GROUP) < 0)
            syscall(SYS_kill, -pid, SIGKILL);
        syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
        /* Readable once it has exited; a supervisor exits after every process of its pid
         * namespace is gone. Then reaped: no zombie of ours is left for init either. */
        struct pollfd p = {.fd = pfd, .events = POLLIN};
        while (poll(&p, 1, SIGWATCH_WAIT_MS) < 0 && errno == EINTR)
            ;
        syscall(SYS_waitid, P_PIDFD, pfd, &si, WEXITED | WNOHANG, NULL);
    }
    close(pfd);
}

/* The children of one thread of ours, from /proc/self/task/TID/children. */
static void kill_children_of_task(const char *tid)
{
    char path[64] = "/proc/self/task/";
    size_t n = strlen(path), tl = strnlen(tid, 20);
    memcpy(path + n, tid, tl);
    memcpy(path + n + tl, "/children", sizeof("/children"));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[512];
    unsigned long v = 0;
    bool digits = false, too_long = false;
    for (;;) {
        ssize_t got = read(fd, buf, sizeof(buf));
        if (got < 0 && errno == EINTR)
            continue;
        bool end = got <= 0;
        ssize_t len = end ? 0 : got;
        for (ssize_t i = 0; i < len + (end ? 1 : 0); i++) { /* at the end: one more separator */
            if (i < len && buf[i] >= '0' && buf[i] <= '9') {
                if (v < (1ul << 22)) /* PID_MAX_LIMIT */
                    v = v * 10 + (unsigned long)(buf[i] - '0');
                else
                    too_long = true;
                digits = true;
                continue;
            }
            if (digits && !too_long && v > 0 && v < (1ul << 22))
                kill_child_and_wait((pid_t)v);
            v = 0;
            digits = too_long = false;
        }
        if (end)
            break;
    }
    close(fd);
}

static void on_native_signal(int sig)
{
    int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        _Alignas(struct dirent64) char buf[4096];
        long got;
        while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
            for (long off = 0; off < got;) {
                const struct dirent64 *d = (const struct dirent64 *)(void *)(buf + off);
                if (d->d_name[0] != '.')
                    kill_children_of_task(d->d_name);
                if (d->d_reclen == 0)
                    break;
                off += d->d_reclen;
            }
        }
        close(dir);
    }
    _exit(128 + sig);
}

bool cli_sigwatch_start_native(cli_sigwatch_t *w)
{
    memset(w, 0, sizeof(*w));
    atomic_init(&w->caught, 0);
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    sigemptyset(&w->set);
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
        sigaddset(&w->set, sigs[k]);
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_native_signal;
        sa.sa_mask = w->set; /* one handler at a time */
        /* Only signals that would end us: one the caller ignores stays ignored. */
        if (sigaction(sigs[k], NULL, &w->old_act[k]) == 0 && w->old_act[k].sa_handler != SIG_IGN)
            sigaction(sigs[k], &sa, NULL);
    }
    w->handler = true;
    w->active = true;
    return true;
}

bool cli_sigwatch_start(cli_sigwatch_t *w, atomic_bool *cancel)
{
    memset(w, 0, sizeof(*w));
    w->cancel = cancel;
    atomic_init(&w->caught, 0);
    /* Only signals that would end us: one the caller ignores (nohup, a background job's SIGINT)
     * must stay ignored, and a blocked ignored signal would be queued for us. */
    sigemptyset(&w->set);
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
        struct sigaction sa;
        if (sigaction(sigs[k], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&w->set, sigs[k]);
    }
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
    if (w->handler) {
        static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
        for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
            if (w->old_act[k].sa_handler != SIG_IGN)
                sigaction(sigs[k], &w->old_act[k], NULL);
        w->active = false;
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
