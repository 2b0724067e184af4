/* limits.h - every constant and limit in one place. The profile table (profiles.c) uses these;
 * enforcing code reads the resolved values from the policy, never from a literal. */
#ifndef ASB_CORE_LIMITS_H
#define ASB_CORE_LIMITS_H

#define ASB_KIB 1024ull
#define ASB_MIB (1024ull * 1024ull)

/* Defaults shared by all profiles. */
#define ASB_DEFAULT_TIMEOUT_S 10.0
#define ASB_DEFAULT_OUTPUT_BYTES (1 * ASB_MIB) /* per stream */
/* The most a run may be asked to keep, per stream: it is held in the caller's memory, and the
 * CLI's JSON of NUL bytes is six times larger (QA finding: a 4 GiB cap took the CLI to 5.5 GB). */
#define ASB_MAX_OUTPUT_BYTES (64 * ASB_MIB)
#define ASB_DEFAULT_FILE_IN_BYTES (16 * ASB_MIB)
#define ASB_DEFAULT_FILE_OUT_BYTES (1 * ASB_MIB)
/* Largest caps a caller may ask for: a file in is snapshotted into a memfd of the caller's
 * memory, a file out is read into it. */
#define ASB_MAX_FILE_IN_BYTES (1024 * ASB_MIB)
#define ASB_MAX_FILE_OUT_BYTES (256 * ASB_MIB)
#define ASB_MAX_TIMEOUT_S 86400.0
#define ASB_MAX_FILES_IN 64
#define ASB_MAX_FILES_OUT 64
#define ASB_MAX_ENV 128
#define ASB_MAX_ARGV 4096
#define ASB_MAX_CODE_BYTES (16 * ASB_MIB)
#define ASB_MAX_STDIN_BYTES (64 * ASB_MIB)
#define ASB_MAX_NAME_LEN 255

/* baseline: container defaults plus host-safety limits. */
#define ASB_BASELINE_MEMORY_BYTES (512 * ASB_MIB)
#define ASB_BASELINE_PIDS 1024
#define ASB_BASELINE_CPUS 0.0 /* no CPU bandwidth limit, as a default container */
/* Open files per process, soft and hard (Docker's usual soft limit). The kernel counts open
 * files host-wide only (fs.file-max, sized from RAM: 2.47 M here) and a run's own memory limit
 * pays for ~2.7 M of them: inheriting a caller's 20,000, 160 processes of one baseline run took
 * every file of the host, and other sandboxes and non-root host processes got ENFILE (red-team
 * finding, session 14). Now one run holds at most pids x 1024 (~1 M, THREAT_MODEL). */
#define ASB_BASELINE_NOFILE 1024
/* Disk reads per block device (cgroup io / v1 blkio): the disk here does ~1.6 GB/s and
 * ~14,000 reads/s of 4 KiB; a cold python start reads ~18 MB in ~330 operations. */
#define ASB_BASELINE_IO_READ_BPS (128 * ASB_MIB)
#define ASB_BASELINE_IO_READ_IOPS 2000
#define ASB_BASELINE_WORKSPACE_BYTES (256 * ASB_MIB)
#define ASB_BASELINE_TMP_BYTES (256 * ASB_MIB)

/* hardened */
#define ASB_HARDENED_MEMORY_BYTES (128 * ASB_MIB)
/* Charged memory per file a run keeps open through a mapping (measured, red team session 20):
 * what bounds a run's share of the host's fs.file-max. */
#define ASB_BYTES_PER_PINNED_FILE 400ull
#define ASB_HARDENED_PIDS 64
#define ASB_HARDENED_CPUS 1.0
#define ASB_HARDENED_FSIZE_BYTES (16 * ASB_MIB)
#define ASB_HARDENED_NOFILE 256
#define ASB_HARDENED_IO_READ_BPS (64 * ASB_MIB)
#define ASB_HARDENED_IO_READ_IOPS 1000
#define ASB_HARDENED_WORKSPACE_BYTES (64 * ASB_MIB)
#define ASB_HARDENED_TMP_BYTES (16 * ASB_MIB)
#define ASB_HARDENED_UID 65534
#define ASB_HARDENED_GID 65534

/* User namespace mapping: inside ids 0..ASB_USERNS_RANGE-1 map to a host range of their own per
 * live sandbox, slot k starting at ASB_USERNS_HOST_BASE + k * ASB_USERNS_RANGE (native/idslot.c).
 * The host ranges are unprivileged and own no host files, so root inside is nobody outside; and
 * no two running sandboxes share a host uid, so per-user kernel counters (pipe pages, fds in
 * flight, inotify, signals) are not shared either. Slots stay below 2^31. */
#define ASB_USERNS_HOST_BASE 1500000000u
#define ASB_USERNS_RANGE 65536u
#define ASB_USERNS_SLOTS ((0x7fffffffu - ASB_USERNS_HOST_BASE) / ASB_USERNS_RANGE)
/* Slot k's user namespace is owned (created) by host uid ASB_USERNS_OWNER_BASE + k: its own, so
 * what the kernel counts per user up the namespaces is the sandbox's alone, and below every
 * mapped range, so no id inside any sandbox is an owner outside (the owner has every capability
 * in the namespace it owns: a file a sandbox's root could leave on the host must not carry it). */
#define ASB_USERNS_OWNER_BASE (ASB_USERNS_HOST_BASE - ASB_USERNS_SLOTS)
/* Where a process holds the slot of each sandbox it runs: a lock file per slot, root only. */
#define ASB_USERNS_SLOT_DIR "/run/agent-sandbox/idslots"

/* Host-side backstop: the supervisor enforces the deadline; the host kills the whole cgroup if the
 * supervisor has not finished this long after it. TERM, then KILL after the grace. */
#define ASB_BACKSTOP_SLACK_S 1.0
/* The supervisor starts the program's clock only after it has copied the files in (into tmpfs,
 * ~1.5 GB/s here); the host's clock starts when it sends the job. So the backstop also allows
 * the copy at this floor rate: hundreds of MiB in under load could otherwise take the slack, and
 * a program inside its limit would be reported as timed out (review finding). */
#define ASB_BACKSTOP_COPY_FLOOR_BYTES_PER_S (64.0 * ASB_MIB)
#define ASB_BACKSTOP_GRACE_S 2.0

/* Paired latency statistics (src/stats). */
#define ASB_STATS_EXACT_MAX_N                                                                      \
    50 /* exact signed-rank null distribution up to here (as scipy 'auto') */
#define ASB_STATS_MAX_WALSH_N 2000 /* n(n+1)/2 Walsh averages held in memory: 2001000 doubles */
#define ASB_STATS_DEFAULT_CONF 0.95
#define ASB_STATS_DEFAULT_ALPHA 0.05
#define ASB_STATS_DEFAULT_POWER 0.80

/* The latency study (`agent-sandbox latency`, src/stats/latency_*.c). */
#define ASB_LATENCY_DEFAULT_ROUNDS 100
#define ASB_LATENCY_MAX_ROUNDS ASB_STATS_MAX_WALSH_N /* every round is one paired difference */
#define ASB_LATENCY_DEFAULT_WARMUP 2                 /* rounds before the measured ones, dropped */
#define ASB_LATENCY_MAX_WARMUP 1000
#define ASB_LATENCY_MAX_ARMS 8          /* the three profiles, or one plus five ablations */
#define ASB_LATENCY_DEFAULT_CODE "pass" /* run as /usr/bin/python3 -c CODE */
#define ASB_LATENCY_MAX_CODE_BYTES (128 * ASB_KIB - 1) /* one argv string: MAX_ARG_STRLEN - NUL */
#define ASB_LATENCY_MAX_SEED ((1ull << 53) - 1)        /* exact as a JSON number everywhere */

/* Host-wide kernel counters are charged to every user namespace up to host root, so a sandbox
 * gets small shares of them (red-team finding: queued signals and inotify instances of host root
 * could be used up from inside). */
/* 128: every posix timer holds one slot of it for its whole life, without a signal ever queued,
 * so at 1024 about 95 concurrent runs holding timers left host root (96,365 here) unable to
 * create a timer or queue a real-time signal (red-team finding, session 8). It does not bound
 * signals below SIGRTMIN sent with kill(2): the kernel queues those whatever the limit and still
 * counts them against host root (THREAT_MODEL, "Shared per-user counters"). */
#define ASB_SANDBOX_SIGPENDING 128       /* RLIMIT_SIGPENDING of the workload */
#define ASB_SANDBOX_INOTIFY_INSTANCES 16 /* /proc/sys/user/max_inotify_instances in its userns */
#define ASB_SANDBOX_INOTIFY_WATCHES 8192 /* /proc/sys/user/max_inotify_watches in its userns */
/* RLIMIT_MEMLOCK of the workload (per process): pages a program locks may belong to the host's
 * page cache of /usr, charged to whoever cached them, not to the run; at the caller's 8 MiB and
 * 64 pids one hardened run pinned ~430 MB of host memory beyond its 128 MiB (red-team finding).
 * 64 KiB is the kernel's old default: enough for the few pages gpg or a crypto library locks. */
#define ASB_SANDBOX_MEMLOCK (64 * 1024)

/* Process state a sandbox never takes over from its caller (supervisor/inherited.c; red-team
 * finding: the caller's personality, NIS domain, OOM protection and real-time scheduling all
 * reached the workload). The host's OOM killer takes sandboxed code before anything else. */
#define ASB_SANDBOX_OOM_SCORE_ADJ 1000
#define ASB_SANDBOX_DOMAINNAME "(none)" /* the kernel's own default: no NIS domain */
#define ASB_SANDBOX_UMASK 022

/* Names and places. */
#define ASB_OWNER_PREFIX "asb"            /* cgroups, temp dirs: asb-<pid>-<start>-p<pidns>-<id> */
#define ASB_CGROUP_PARENT "agent-sandbox" /* under each controller root */
#define ASB_SUBPROCESS_TMP_PARENT "/tmp"
/* Debian JDK configuration directories (/etc/java-<n>-openjdk) bound into a sandbox, at most. */
#define ASB_MAX_JDK_CONF_DIRS 4
/* An empty, world-readable file in the root of a private sandbox root that no Landlock rule lets
 * anyone read: the attestation proves Landlock is in force by failing to open it. */
#define ASB_LANDLOCK_PROBE "/.asb-landlock-probe"
/* Pseudo-terminals one sandbox may hold (baseline's devpts `max=`): every devpts instance but
 * the host's draws on one host-wide pool (kernel.pty.max less pty.reserve); unbounded, one run
 * took all 3071 and every other sandbox and container got ENOSPC (review finding). */
#define ASB_SANDBOX_PTYS 32
#define ASB_SANDBOX_HOSTNAME "sandbox"
#define ASB_WORKSPACE "/workspace"
#define ASB_CODE_FILE ".asb-code"
#define ASB_DEFAULT_INTERPRETER "/usr/bin/python3"
#define ASB_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* cgroups (src/native/cgroup*.c). */
#define ASB_CGROUP_PATH_MAX 512  /* any cgroup directory path we build, with its NUL */
#define ASB_CGROUP_RUN_ID_MAX 64 /* the run id part of a cgroup name */
#define ASB_CGROUP_MAX_HIERARCHIES                                                                 \
    5                                 /* v1: memory, pids, cpu, cpuacct, blkio (fewer co-mounted)  \
                                       */
#define ASB_CGROUP_MAX_IO_DEVICES 256 /* block devices a run's disk reads are throttled on */
#define ASB_CGROUP_CPU_PERIOD_US 100000  /* CFS bandwidth period (cpu.max / cpu.cfs_period_us) */
#define ASB_CGROUP_CPU_MIN_QUOTA_US 1000 /* the kernel refuses quotas below 1 ms */
#define ASB_MIN_CALLER_NOFILE                                                                      \
    64 /* a run's own descriptors: a soft RLIMIT_NOFILE below is refused */
#define ASB_MIN_CALLER_FSIZE (1ull << 20) /* a sandbox's setup writes (/etc, the loader cache) */
#define ASB_POOL_FDS_PER_SANDBOX                                                                   \
    19u                             /* descriptors a prepared sandbox holds (measured: 18 on v1)   \
                                     */
#define ASB_MAX_PIDS (1ull << 22)   /* PID_MAX_LIMIT on 64-bit */
#define ASB_MAX_NOFILE (1ull << 20) /* fs.nr_open's default */
#define ASB_MAX_FSIZE_BYTES (1ull << 50) /* 1 PiB: below RLIM_INFINITY, above any disk here */
#define ASB_MIN_IO_READ_BPS (1ull << 20) /* below 1 MiB/s a program may not even load */
#define ASB_MIN_IO_READ_IOPS 16ull
#define ASB_MAX_IO_READ_BPS (1ull << 40) /* 1 TiB/s: "as fast as the disk", still a number */
#define ASB_MAX_IO_READ_IOPS (1ull << 30)
#define ASB_CGROUP_DRAIN_TIMEOUT_MS                                                                \
    2000                              /* destroy/reap: how long to wait for killed tasks to go     \
                                       */
#define ASB_CGROUP_PARENT_NAME_MAX 64 /* the runs' parent directory name (ASB_CGROUP_PARENT) */
/* A finished run that leaves more kernel memory than this charged to its cgroup (v1
 * memory.kmem.usage_in_bytes, v2 slab_reclaimable) is reclaimed before the cgroup is removed. A
 * python run leaves about 0.1 MiB. What stays below it goes to the parent cgroup: at most this
 * much per run (8 MiB let ten runs of 18,000 missing-name lookups each leave 180,000 dentries:
 * review finding). */
#define ASB_CGROUP_RECLAIM_KMEM_BYTES (1 * ASB_MIB)

#endif
