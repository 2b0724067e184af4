/* watch.h - a thread that scans the host's /proc while a run is live and records what the
 * kernel says about every process whose command line carries the run's nonce (uids, caps,
 * threads, nice, namespaces, kernel-object fds). Also finds and kills survivors after a run. */
#ifndef ASB_CHAOS_WATCH_H
#define ASB_CHAOS_WATCH_H

#include "agent_sandbox.h"
#include "chaos/obs.h"

#include <pthread.h>

#define ASB_CHAOS_WATCH_INTERVAL_MS 10

typedef struct asb_chaos_watcher {
    char nonce[ASB_CHAOS_NONCE_LEN + 1];
    bool fds; /* also look at fd tables (io_uring, bpf, perf_event, userfaultfd) */
    pthread_t thread;
    int stop_efd;
    bool running;
    asb_chaos_watch_t w;
    unsigned long host_userns;
} asb_chaos_watcher_t;

int asb_chaos_watch_start(asb_chaos_watcher_t *wt, const char *nonce, bool fds, asb_error_t *err);
void asb_chaos_watch_stop(asb_chaos_watcher_t *wt, asb_chaos_watch_t *out);

/* Count host processes whose command line carries nonce; with kill_them, SIGKILL each through a
 * pidfd opened after the match (so a recycled pid is never hit). Returns the count found. */
int asb_chaos_survivors(const char *nonce, bool kill_them);

/* Kernel objects whose presence in a process's fd table is the evidence of an attack on the
 * kernel's programmable interfaces. */
enum {
    ASB_CHAOS_FD_IO_URING = 1u << 0,    /* anon_inode:[io_uring] */
    ASB_CHAOS_FD_BPF = 1u << 1,         /* anon_inode:bpf-prog, bpf-map, bpf-link, ... */
    ASB_CHAOS_FD_PERF_EVENT = 1u << 2,  /* anon_inode:[perf_event] */
    ASB_CHAOS_FD_USERFAULTFD = 1u << 3, /* anon_inode:[userfaultfd] */
};

/* The ASB_CHAOS_FD_* kind of a /proc/PID/fd link target, 0 for anything else (exposed for unit
 * tests). */
unsigned asb_chaos_kernel_fd_kind(const char *link);

/* Merge one process's /proc/<pid>/status text into w (exposed for unit tests). */
void asb_chaos_watch_status(asb_chaos_watch_t *w, const char *status, bool in_host_userns);

#endif
