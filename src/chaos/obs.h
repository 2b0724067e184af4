/* obs.h - what the harness itself observed around one attack run. Judges read only this and the
 * run's result record (the harness's own clocks and byte counts, the kernel's cgroup counters);
 * nothing the sandboxed program says about itself is evidence. */
#ifndef ASB_CHAOS_OBS_H
#define ASB_CHAOS_OBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Listener channels of the beacon: on host loopback (or host-only unix sockets); for docker
 * runs the IP channels also listen on the docker bridge's host address (see beacon.h). */
typedef enum asb_chaos_channel {
    ASB_CHAOS_CH_TCP = 0,
    ASB_CHAOS_CH_UDP,
    ASB_CHAOS_CH_HTTP,
    ASB_CHAOS_CH_DNS, /* decoded query names, one per line */
    ASB_CHAOS_CH_ABSTRACT,
    ASB_CHAOS_CH_DOCKER,
    ASB_CHAOS_CH_COUNT
} asb_chaos_channel_t;

#define ASB_CHAOS_NONCE_LEN 32
#define ASB_CHAOS_SECRET_LEN 48

/* The process watcher's view of every host process whose command line carries the nonce. */
typedef struct asb_chaos_watch {
    int scans;               /* /proc scans done while the run was live */
    int max_procs;           /* most processes of the run seen at once */
    uint64_t max_rss_sum_kb; /* most resident memory of all the run's processes at once */
    long tcp_alloc_base, tcp_alloc_peak; /* host TCP sockets (/proc/net/sockstat) at the start,
                                          * and the most seen while the run lived */
    /* The host's unreclaimable slab (SUnreclaim of /proc/meminfo, KiB) at the start and the most
     * seen while the run lived, -1 when unreadable: kernel memory a run can pin outside its
     * cgroup shows here. */
    long sunreclaim_base_kb, sunreclaim_peak_kb;
    long sigq_base, sigq_peak; /* the pending signals counted against the harness's user (host
                                * root: SigQ of /proc/self/status), at the start and the most */
    /* CPU time (clock ticks) of the host's per-CPU migration threads, which move a running task
     * to another CPU and belong to no cgroup: at the watcher's start and after the run; -1 when
     * not readable (none found: a kernel without them, or a /proc that hides kernel threads). */
    long migr_base_ticks, migr_end_ticks;
    int max_threads; /* most threads in one process of the run */
    bool host_root;  /* euid 0 in the host's user namespace */
    long euid_seen;  /* an effective uid seen (host view), -1 when none */
    bool escalated;  /* euid != ruid (a setuid exec took effect) */
    long esc_ruid, esc_euid;
    uint64_t cap_eff;        /* union of CapEff over the run's processes */
    bool cap_in_host_userns; /* ... held by a process in the host's user namespace */
    int min_nice;            /* lowest nice value seen (0 when none below 0) */
    int rt_policy;           /* highest scheduling policy seen: 1 FIFO, 2 RR */
    int userns_count;        /* distinct user namespaces among the run's processes */
    unsigned kernel_fds;     /* ASB_CHAOS_FD_* seen in a process's fd table */
    /* Harness clock (CLOCK_MONOTONIC, s) of the first and last scan that found a process of the
     * run; 0 when none did. Bounds the time the run's processes existed, which for a docker run
     * is much shorter than the run's wall clock (the engine's create and start come first). */
    double first_seen_s, last_seen_s;
} asb_chaos_watch_t;

typedef struct asb_chaos_obs {
    char nonce[ASB_CHAOS_NONCE_LEN + 1];
    double timeout_s; /* the run's wall-clock limit as configured by the harness */

    /* Bytes the harness's listeners received (NUL-terminated, capped): on 127.0.0.1 (and the
     * unix sockets), and separately on the docker bridge's host address. */
    char *beacon[ASB_CHAOS_CH_COUNT];
    size_t beacon_len[ASB_CHAOS_CH_COUNT];
    char *beacon_bridge[ASB_CHAOS_CH_COUNT];
    size_t beacon_bridge_len[ASB_CHAOS_CH_COUNT];
    bool bridge_wanted;   /* a docker run: the IP listeners must be on the bridge too */
    char bridge_addr[16]; /* the bridge address listened on, "" when none */

    /* Random values the harness planted; empty string when not planted. */
    char secret[ASB_CHAOS_SECRET_LEN + 1];      /* in the harness's own environment */
    char canary_root[ASB_CHAOS_SECRET_LEN + 1]; /* content of a file in /root */
    char canary_tmp[ASB_CHAOS_SECRET_LEN + 1];  /* content of a file in /tmp */
    char canary_fd[ASB_CHAOS_SECRET_LEN + 1];   /* content of a file the harness holds open */
    char canary_shm[ASB_CHAOS_SECRET_LEN + 1];  /* a SysV shared-memory segment */
    char canary_key[ASB_CHAOS_SECRET_LEN + 1];  /* a key in the user keyring */
    char plant_error[256];                      /* why a planted object could not be made */

    /* Host state after the run. */
    int host_files_created;
    char host_file[256];
    bool mount_appeared;
    char mount_target[256];
    int cgroup_dirs_created;
    char cgroup_dir[256];
    bool victim_planted;
    bool victim_killed;  /* died of a signal (any: SIGTERM counts as much as SIGKILL) */
    bool victim_stopped; /* stopped by a signal (SIGSTOP, SIGTSTP): it no longer runs */
    int victim_signal;   /* which one */
    int victim_pid;

    bool watched;
    asb_chaos_watch_t watch;
    bool after_checked;
    int alive_after;           /* processes of the run alive after asb_run returned */
    bool marker_changed_after; /* the orphan's marker kept changing after the run */

    /* Reference facts the harness read itself. */
    char kernel_release[128];
    char boot_id[64];        /* the host's /proc/sys/kernel/random/boot_id, "" when unreadable */
    char *shadow;            /* host /etc/shadow, NULL when unreadable */
    char planted_mount[300]; /* a mount the harness made on the host (random path), "" if none */
    char *kcore_hex;         /* first 1 KiB of /proc/kcore, NULL when the host has none */
    char *devmem_hex;        /* first 256 bytes of physical memory, NULL when unavailable */
    bool sysrq_available;
    int sysrq_lines; /* new "sysrq" records in the kernel log during the run */
    /* PLANT_CACHE: a host file under /usr the harness read into the page cache before the run,
     * its size in pages, and how many of them mincore found cached before and after it. */
    char cache_file[128];
    int cache_pages, cache_before, cache_after;
    /* PLANT_DISK: a host file under /usr on a block device, that device's stat file, and the
     * bytes the kernel counted read from it before and after the run (-1: not read). */
    char disk_file[128];
    char disk_stat[64];
    int64_t disk_read_before, disk_read_after;
} asb_chaos_obs_t;

void asb_chaos_obs_init(asb_chaos_obs_t *o);
void asb_chaos_obs_free(asb_chaos_obs_t *o);

#endif
