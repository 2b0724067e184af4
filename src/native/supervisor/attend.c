/* attend.c - attending the workload, for the native and the container mode alike: reading its
 * attestation, reaping it, and the clock and write loop both modes' relays use. */
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t sup_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool sup_flush(int fd, const unsigned char *buf, size_t *off, size_t *len, bool wait)
{
    int nomem = 0;
    while (*off < *len) {
        ssize_t w = -1;
        if (SUP_TAMPERED(OUTPUT)) /* a test build: every write fails as in a full cgroup */
            errno = ENOMEM;
        else
            w = write(fd, buf + *off, *len - *off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            if (!wait)
                return false;
            struct pollfd pw = {.fd = fd, .events = POLLOUT};
            (void)poll(&pw, 1, -1);
            continue;
        }
        if (w < 0 && errno == ENOMEM && wait && nomem++ < 50) {
            /* The pipe's pages are charged to the run's memory cgroup: in the last drain the
             * workload is gone and its memory with it, so a moment later they may fit. */
            struct timespec pause = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
            continue;
        }
        if (w <= 0)
            break; /* the reader is gone, or its pipe could not take the bytes: dropped. The
                    * host compares what it received with the exit report's counts: a run
                    * that would be killed or completed is then a sandbox_error; a timeout,
                    * output_limit or oom_killed stands, its output possibly incomplete */
        *off += (size_t)w;
    }
    *off = *len = 0;
    return true;
}

int sup_write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) { /* a non-blocking fd: wait for room, however long */
            struct pollfd pw = {.fd = fd, .events = POLLOUT};
            (void)poll(&pw, 1, -1);
            continue;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads in chunks: after the NUL the workload writes nothing until it has its go (it blocks
 * waiting for it), so no byte after the terminator can be consumed here. One byte per read cost
 * ~0.5 ms. */
int sup_read_attestation(int fd, char *buf, size_t size, int timeout_ms)
{
    size_t len = 0;
    uint64_t deadline = sup_now_ms() + (uint64_t)timeout_ms;
    while (len < size - 1) {
        uint64_t t = sup_now_ms();
        if (t >= deadline) {
            buf[len] = '\0';
            return -ETIMEDOUT;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)(deadline - t));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            buf[len] = '\0';
            return -ETIMEDOUT;
        }
        ssize_t n = read(fd, buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        char *nul = memchr(buf + len, '\0', (size_t)n);
        if (nul)
            return nul + 1 == buf + len + n ? (int)(nul - buf) : -EPROTO; /* nothing after it */
        len += (size_t)n;
    }
    buf[len] = '\0';
    return -EPROTO;
}

void sup_reap_workload(pid_t workload, int *status, bool *done)
{
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0)
            return;
        if (WIFSTOPPED(st)) {
            /* A child that made us its tracer (PTRACE_TRACEME: baseline's filter allows ptrace,
             * as Docker's does) stops for us at every signal it takes, and only its tracer's
             * wait sees that stop. We are no debugger: it goes on as if untraced, with the
             * signal it took (red team 24: the stop was taken for the workload's end, and a
             * program could make its own run a sandbox_error). Not a SIGTRAP: a traced exec
             * sends one that an untraced program never gets. */
            int sig = WSTOPSIG(st);
            ptrace(PTRACE_DETACH, p, NULL, (void *)(intptr_t)(sig == SIGTRAP ? 0 : sig));
            continue;
        }
        if (p == workload) {
            *status = st;
            *done = true;
        }
    }
}

bool sup_from_outside(const struct signalfd_siginfo *si)
{
    return (si->ssi_signo == SIGTERM || si->ssi_signo == SIGINT) && si->ssi_code == SI_USER &&
           si->ssi_pid == 0;
}

int64_t sup_read_int(const char *path, int64_t unknown)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return unknown;
    char b[24] = "";
    ssize_t n = read(fd, b, sizeof(b) - 1);
    close(fd);
    return n > 0 ? (int64_t)strtoll(b, NULL, 10) : unknown;
}
