/* watch.h - a thread that scans the host's /proc while a run is live and records what the
 * kernel says about every process of the run (uids, caps, threads, nice, namespaces,
 * kernel-object fds). Also finds and kills survivors after a run.
 *
 * A process of the run: its command line carries the run's nonce (the attack program does), or
 * it is tied to one that did by what the program cannot shed: the same pid namespace when that
 * is not the host's (native and docker runs; the sandbox's PID 1, our supervisor, excepted), the
 * same session (the subprocess profile's own session), a parent already known to be the run's,
 * or it was seen as the run's before. Matching the nonce alone missed anything the attack exec'd
 * without it (red-team finding: 251 threads and a surviving daemon judged "blocked"). */
#ifndef ASB_CHAOS_WATCH_H
#define ASB_CHAOS_WATCH_H

#include "agent_sandbox.h"
#include "chaos/obs.h"

#include <pthread.h>

#define ASB_CHAOS_WATCH_INTERVAL_MS 10

#define ASB_CHAOS_MAX_ANCHORS 8
#define ASB_CHAOS_MAX_SEEN 4096

/* What ties processes to the run, learned from those that carried its nonce. */
typedef struct asb_chaos_anchor {
    unsigned long id; /* a pid namespace's inode, or a session id */
    int pid;          /* the process that carried the nonce (pid ns), or the session's leader */
    unsigned long long start;
} asb_chaos_anchor_t;

/* Namespace inodes, session ids and pids are reused once freed, so each tie is checked: a pid
 * namespace only while the run lives and the process it was learned from is alive; a session
 * while the run lives (its leader, alive or an unreaped zombie, holds the id), and after it for
 * processes that started before it returned or while a member seen as the run's is alive in it;
 * a parent by its pid and start time (watch.c, anchored). */
typedef struct asb_chaos_anchors {
    asb_chaos_anchor_t pidns[ASB_CHAOS_MAX_ANCHORS]; /* pid namespaces other than the host's */
    int n_pidns;
    asb_chaos_anchor_t sids[ASB_CHAOS_MAX_ANCHORS]; /* sessions other than the harness's own */
    int n_sids;
    struct {
        int pid;
        unsigned long long start;
    } seen[ASB_CHAOS_MAX_SEEN]; /* every process of the run seen (pid, start time) */
    int n_seen;
    unsigned long long end_ticks; /* when the run returned, in /proc start-time ticks; 0: not yet */
} asb_chaos_anchors_t;

typedef struct asb_chaos_watcher {
    char nonce[ASB_CHAOS_NONCE_LEN + 1];
    bool fds; /* also look at fd tables (io_uring, bpf, perf_event, userfaultfd) */
    pthread_t thread;
    int stop_efd;
    bool running;
    asb_chaos_watch_t w;
    unsigned long host_userns, host_pidns;
    int own_sid;
    unsigned gen; /* bumped when an anchor is added: cached "not the run's" answers expire */
    asb_chaos_anchors_t anch;
} asb_chaos_watcher_t;

/* Now, in the units of /proc/PID/stat's start time (clock ticks since boot), rounded up. */
unsigned long long asb_chaos_now_ticks(void);

/* fds: also read fd tables; migration: also read the migration threads' CPU time at the start and
 * the stop (otherwise migr_*_ticks stay -1). */
int asb_chaos_watch_start(asb_chaos_watcher_t *wt, const char *nonce, bool fds, bool migration,
                          asb_error_t *err);
void asb_chaos_watch_stop(asb_chaos_watcher_t *wt, asb_chaos_watch_t *out);

/* Count host processes of the run: its nonce in their command line, or (anchors from a watcher
 * of the run, may be NULL) tied to it as above; with kill_them, SIGKILL each through a pidfd
 * opened before the match (so a recycled pid is never hit). Returns the count found. */
int asb_chaos_survivors(const char *nonce, const asb_chaos_anchors_t *anchors, bool kill_them);

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
