/* cgroup.h - per-run cgroups for the native backend: memory (never swap), pids and CPU limits, the
 * OOM evidence the result reports, killing a whole run, and reaping runs whose owner died.
 *
 * Works on cgroup v2 (one unified hierarchy with memory, pids and cpu available) and on v1 (one
 * hierarchy per controller, or co-mounted ones such as "cpu,cpuacct"); which one is detected from
 * /proc/self/mountinfo, never assumed. A run's directory is
 *     <hierarchy mount>/<ASB_CGROUP_PARENT>/<ASB_OWNER_PREFIX>-<owner pid>-<owner starttime>-
 *     p<owner's pid namespace>-<run id>
 * in every hierarchy we use, so a later process of the same pid namespace can tell whether the
 * run's owner is still alive.
 *
 * Thread-safe: no global state; each asb_cgroup_t belongs to one caller. Every fd is O_CLOEXEC. */
#ifndef ASB_NATIVE_CGROUP_H
#define ASB_NATIVE_CGROUP_H

#include "agent_sandbox.h"
#include "core/limits.h"
#include "native/cgroup_parse.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum asb_cgroup_version {
    ASB_CGROUP_NONE = 0,
    ASB_CGROUP_V1,
    ASB_CGROUP_V2,
} asb_cgroup_version_t;

typedef struct asb_cgroup_hierarchy {
    char mount[ASB_CGROUP_PATH_MAX]; /* where the hierarchy is mounted */
    unsigned controllers;            /* ASB_CGROUP_CTRL_* bits we may use in it */
} asb_cgroup_hierarchy_t;

typedef struct asb_cgroup_host {
    asb_cgroup_version_t version;
    /* The directory under each hierarchy root that holds the runs: ASB_CGROUP_PARENT, set by
     * detect. Another plain name gives an independent set of runs that other agent-sandbox
     * processes' reapers never see (the integration test uses one to be deterministic). */
    char parent[ASB_CGROUP_PARENT_NAME_MAX];
    size_t n_hierarchies; /* v2: 1; v1: one per distinct hierarchy of memory/pids/cpu/cpuacct */
    asb_cgroup_hierarchy_t hierarchies[ASB_CGROUP_MAX_HIERARCHIES];
    unsigned controllers; /* union of the hierarchies' bits */
    bool swap_active;     /* /proc/swaps lists an active area (at detect time) */
    /* Whether a swap limit file (v2 memory.swap.max, v1 memory.memsw.limit_in_bytes) was seen.
     * On v2 it can only be seen in a non-root cgroup: swap_limit_known is false when none was
     * there to look at. asb_cgroup_create checks again on the real cgroup either way. */
    bool can_limit_swap;
    bool swap_limit_known;
} asb_cgroup_host_t;

/* Find the hierarchies: v2 when a cgroup2 mount has memory, pids and cpu available; else v1 when
 * memory, pids and cpu hierarchies are mounted (cpuacct is used for CPU time when present; io,
 * v1 blkio, for disk reads when present: a run that asks for a disk limit without it is refused
 * by asb_cgroup_create). Fails
 * with a message naming what is missing. */
int asb_cgroup_detect(asb_cgroup_host_t *host, asb_error_t *err);

/* A v2 host description for the cgroup2 hierarchy mounted at mount, using the given controller
 * bits (detect passes what cgroup.controllers offers), parent ASB_CGROUP_PARENT. Swap facts are
 * left false/unknown. */
int asb_cgroup_host_init_v2(asb_cgroup_host_t *host, const char *mount, unsigned controllers,
                            asb_error_t *err);

const char *asb_cgroup_version_name(asb_cgroup_version_t v); /* "none", "v1", "v2" */

/* 0 in a field means "do not limit this": the policy layer decides, this layer never defaults. */
typedef struct asb_cgroup_limits {
    uint64_t memory_bytes; /* memory limit; swap is always limited to 0 when memory is limited */
    uint64_t pids;         /* pids.max */
    double cpus;           /* CPU bandwidth in CPUs (0.5 = half of one CPU) */
    /* Disk reads per block device (v2 io.max rbps/riops, v1 blkio.throttle.read_*_device), on
     * every block device with media the host lists when the cgroup is made. */
    uint64_t io_read_bps;
    uint64_t io_read_iops;
} asb_cgroup_limits_t;

typedef struct asb_cgroup_dir {
    unsigned controllers;           /* the ASB_CGROUP_CTRL_* bits of this hierarchy */
    int parent_fd;                  /* O_PATH fd of <mount>/<host parent>, or -1 */
    int dir_fd;                     /* O_PATH fd of the run's directory, or -1 */
    bool created;                   /* we made the directory and have not removed it yet */
    char path[ASB_CGROUP_PATH_MAX]; /* the run's directory, for messages and re-opening */
} asb_cgroup_dir_t;

/* A run's cgroup: fixed size, no allocation. A zeroed struct is a valid "nothing created" state,
 * and asb_cgroup_create leaves a state asb_cgroup_destroy accepts whatever happens. */
typedef struct asb_cgroup {
    asb_cgroup_version_t version;
    char name[ASB_CGROUP_NAME_MAX];
    size_t n_dirs;
    asb_cgroup_dir_t dirs[ASB_CGROUP_MAX_HIERARCHIES];
    /* The block devices its disk reads are throttled on (major, minor), for the lift. */
    size_t n_io_devs;
    unsigned io_devs[ASB_CGROUP_MAX_IO_DEVICES][2];
    bool io_lifted;
} asb_cgroup_t;

/* Create the run's cgroup, owned by the calling process, and apply the limits. On failure
 * everything created is removed and err reads "cgroup: <what> (<why>)"; should even that removal
 * fail, cg remembers what is left and asb_cgroup_destroy may be called again (else the reaper
 * takes it once this process is gone). Refuses (never allows swap silently) when memory is
 * limited, swap is active and swap cannot be limited. CPU quotas below
 * ASB_CGROUP_CPU_MIN_QUOTA_US per ASB_CGROUP_CPU_PERIOD_US are raised to that minimum. */
int asb_cgroup_create(asb_cgroup_t *cg, const asb_cgroup_host_t *host, const char *run_id,
                      const asb_cgroup_limits_t *lim, asb_error_t *err);

/* asb_cgroup_create with an explicit owner: what the reaper's tests (and a future owner handing a
 * run to a helper process) need. owner_start is field 22 of /proc/<owner_pid>/stat. */
int asb_cgroup_create_for_owner(asb_cgroup_t *cg, const asb_cgroup_host_t *host, pid_t owner_pid,
                                uint64_t owner_start, const char *run_id,
                                const asb_cgroup_limits_t *lim, asb_error_t *err);

/* Move pid (and its threads) into the run's cgroup in every hierarchy. */
int asb_cgroup_attach(asb_cgroup_t *cg, pid_t pid, asb_error_t *err);

/* v2: an O_PATH|O_DIRECTORY fd of the run's cgroup, for clone3(CLONE_INTO_CGROUP), so the child
 * starts inside its limits with no window. Owned by cg: do not close. -1 on v1 or before create. */
int asb_cgroup_dirfd_v2(const asb_cgroup_t *cg);

/* v1: one O_WRONLY fd per hierarchy on the run's `tasks` file, for a freshly cloned child to join
 * by writing "0" itself. A task moving its own single thread skips the global threadgroup rwsem
 * that every other migration takes, and with it the RCU grace period (4-18 ms here) that rwsem
 * waits for. The fds carry the opener's (root's) credentials for the permission check. Returns
 * the number of fds (close them), or a negative code. */
int asb_cgroup_open_self_join(const asb_cgroup_t *cg, int *fds, size_t max, asb_error_t *err);

/* 0 when every hierarchy line of /proc/<pid>/cgroup that belongs to the run's cgroup names it
 * (read from the host: evidence that a join really happened), else -EPERM with the line. */
int asb_cgroup_has_pid(const asb_cgroup_t *cg, pid_t pid, asb_error_t *err);

typedef struct asb_cgroup_stats {
    uint64_t oom_kills;         /* the cgroup's own OOM-kill counter */
    uint64_t memory_peak_bytes; /* 0 when the kernel does not record it */
    /* The memory usage reached the limit at least once (v2: memory.events "max"; v1: the
     * peak at the limit, or memory.failcnt, which the kernel leaves at 0 when the memory+swap
     * limit is the one that refused): the kernel reclaimed then, and OOM-killed only when
     * that failed. */
    bool memory_limit_reached;
    /* The run's own memory limit invoked the OOM killer (v2: memory.events "oom", exact; v1,
     * which has no such count: memory_limit_reached). An OOM kill without it was the host's
     * OOM killer's (red-team finding, session 20). */
    bool limit_oom;
    uint64_t cpu_usage_ns; /* 0 when no cpu accounting is available */
    uint64_t pids_current;
    uint64_t io_read_bytes; /* read from block devices (0 without the io controller) */
} asb_cgroup_stats_t;

/* Read the counters. They are kernel-maintained: nothing the workload says or writes changes them.
 */
int asb_cgroup_read_stats(const asb_cgroup_t *cg, asb_cgroup_stats_t *st, asb_error_t *err);

/* Take the run's disk read limits off, once its deadline has passed or it is being killed: a
 * thread waiting for a throttled read (a page fault, a stat of cold metadata, behind reads it
 * queued with readahead) cannot die before that read completes, so under the limit a killed
 * run outlived its 3 s timeout by 17-43 s (red-team finding, session 20). What it had queued
 * then completes at the disk's speed: at most its memory limit's worth (each queued page is
 * charged to it; O_DIRECT, which is not, is refused). Idempotent; best effort (a failure leaves
 * the limit, which only delays the end). */
void asb_cgroup_lift_io(asb_cgroup_t *cg);

/* Signal every process in the run once (v2 SIGKILL: cgroup.kill, atomic against forks). Processes
 * forked during a v1 pass may be missed; asb_cgroup_destroy repeats until the cgroup is empty. */
int asb_cgroup_kill(asb_cgroup_t *cg, int sig, asb_error_t *err);

/* cgroup v1: the separate limit on a run's TCP socket buffers, for a memory limit of `bytes`
 * (a quarter of it, at least 1 MiB; v1 does not count them in the memory limit). */
uint64_t asb_cgroup_v1_tcp_bytes(uint64_t bytes);

/* SIGKILL whatever remains, wait (at most ASB_CGROUP_DRAIN_TIMEOUT_MS) until empty, remove every
 * directory, close every fd. Idempotent; safe on a half-created or zeroed cgroup. On failure the
 * directories that could not be removed are remembered, so calling it again retries them. */
int asb_cgroup_destroy(asb_cgroup_t *cg, asb_error_t *err);

/* Remove the cgroups of runs whose owner process is gone (no /proc/<pid>, or another starttime):
 * kill their processes, rmdir, and append "removed cgroup <path>\n" to *report (malloc'd; stays
 * NULL when nothing was removed; the caller frees it). Runs of live owners are never touched.
 * Safe against concurrent reapers: what another one removed first is simply skipped. */
int asb_cgroup_reap_stale(const asb_cgroup_host_t *host, char **report, asb_error_t *err);

#endif
