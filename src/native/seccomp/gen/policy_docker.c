/* policy_docker.c - ASB_SECCOMP_DOCKER_DEFAULT: what `docker run` applies by default.
 *
 * Modelled on moby's default profile (profiles/seccomp/default.json) as it resolves for a container
 * on x86_64 with Docker's default capability set, i.e. without CAP_SYS_ADMIN, CAP_SYS_PTRACE,
 * CAP_SYS_MODULE, CAP_SYS_TIME, CAP_SYS_BOOT, CAP_SYS_RAWIO, CAP_BPF, CAP_PERFMON ...: the
 * allowlist below; everything else fails with EPERM. Of the capability-gated entries only chroot(2)
 * remains, because CAP_SYS_CHROOT is in Docker's default set.
 *
 * Differences from moby, each deliberate:
 *  - 32-bit-only names (chown32, fcntl64, _llseek, ...) are absent: i386 and x32 get ENOSYS.
 *  - io_uring_* are absent, as in moby since v25 (moby#46762): io_uring performs file and socket
 *    operations on a kernel worker that seccomp never sees, and it has been a steady source of
 *    privilege-escalation bugs.
 *  - socket(AF_VSOCK) is refused on the low 32 bits of the family. moby's `arg0 != 40` compares
 *    all 64 bits, so a family of (1 << 32) | 40 passes that test and the kernel, which reads an
 *    int, creates an AF_VSOCK socket anyway.
 *  - A few calls newer than the moby profile we read are allowed because they only do what an
 *    allowed call already does: fchmodat2 (glibc >= 2.39 uses it for lchmod and only falls back
 *    on ENOSYS), futex_wake/futex_wait/futex_requeue, cachestat (like mincore), map_shadow_stack
 *    (CET shadow stacks) and mseal (a process can only take rights away from itself).
 *  - memfd_secret is refused (moby allows it): its pages are taken out of the kernel's direct
 *    map, which splits the host's 1 GiB and 2 MiB kernel mappings into smaller ones for good (a
 *    baseline run took DirectMap1G from 24 to 22 GiB, until reboot: red-team finding, session
 *    14), a lasting host-wide slowdown no limit of a run bounds. Refused with EPERM, as every
 *    call outside the list; no workload a container runs needs it.
 *  - Setting extended attributes fails with EOPNOTSUPP, and multicast joins and TCP MD5/AO keys
 *    with EPERM (red-team findings, session 16): an ACL pins kernel memory no cgroup is charged
 *    for (policy.h), a key is uncharged socket option memory, and a join lands on the host's
 *    own interfaces (baseline shares the host's network namespace, where Docker's container
 *    has a veth of its own): 209,840 groups on the host's lo, +67 MiB of host memory, and a
 *    run that ended 20 s past its deadline leaving them under the host-wide RTNL lock.
 */
#include "native/seccomp/gen/policy.h"

#include <linux/personality.h>

/* Grouped by what they are for, so a reviewer can see why each group is needed. */
static const char *const DOCKER_ALLOW[] = {
    /* file descriptors and plain I/O */
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "pwrite64",
    "preadv",
    "preadv2",
    "pwritev",
    "pwritev2",
    "open",
    "openat",
    "openat2",
    "creat",
    "close",
    "close_range",
    "lseek",
    "dup",
    "dup2",
    "dup3",
    "fcntl",
    "flock",
    "fsync",
    "fdatasync",
    "sync",
    "syncfs",
    "sync_file_range",
    "truncate",
    "ftruncate",
    "fallocate",
    "fadvise64",
    "readahead",
    "sendfile",
    "splice",
    "tee",
    "vmsplice",
    "copy_file_range",
    "ioctl",
    "pipe",
    "pipe2",
    /* the file tree */
    "stat",
    "fstat",
    "lstat",
    "newfstatat",
    "statx",
    "statfs",
    "fstatfs",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getdents",
    "getdents64",
    "getcwd",
    "chdir",
    "fchdir",
    "chroot",
    "mkdir",
    "mkdirat",
    "rmdir",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "unlink",
    "unlinkat",
    "mknod",
    "mknodat",
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "umask",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "name_to_handle_at",
    /* extended attributes */
    "getxattr",
    "lgetxattr",
    "fgetxattr",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "listxattr",
    "llistxattr",
    "flistxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    /* change notification */
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "inotify_rm_watch",
    "fanotify_mark",
    /* waiting for events */
    "select",
    "pselect6",
    "poll",
    "ppoll",
    "epoll_create",
    "epoll_create1",
    "epoll_ctl",
    "epoll_ctl_old",
    "epoll_wait",
    "epoll_wait_old",
    "epoll_pwait",
    "epoll_pwait2",
    "eventfd",
    "eventfd2",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    /* POSIX AIO (not io_uring) */
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    /* memory */
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "madvise",
    "mincore",
    "msync",
    "mlock",
    "mlock2",
    "mlockall",
    "munlock",
    "munlockall",
    "remap_file_pages",
    "membarrier",
    "memfd_create",
    "pkey_alloc",
    "pkey_free",
    "pkey_mprotect",
    "process_mrelease",
    "cachestat",
    "map_shadow_stack",
    "mseal",
    /* processes and threads (clone, clone3, personality: conditional, see policy_build.c) */
    "fork",
    "vfork",
    "execve",
    "execveat",
    "exit",
    "exit_group",
    "wait4",
    "waitid",
    "kill",
    "tkill",
    "tgkill",
    "getpid",
    "getppid",
    "gettid",
    "getpgid",
    "setpgid",
    "getpgrp",
    "getsid",
    "setsid",
    "set_tid_address",
    "set_robust_list",
    "get_robust_list",
    "rseq",
    "arch_prctl",
    "modify_ldt",
    "get_thread_area",
    "set_thread_area",
    "prctl",
    "seccomp",
    "pidfd_open",
    "pidfd_send_signal",
    "capget",
    "capset",
    /* debugging another process: moby allows these on kernels >= 4.8, where ptrace can no longer
     * be used to step around a seccomp filter */
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    /* credentials */
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setgroups",
    /* signals */
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigpending",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "rt_sigreturn",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "sigaltstack",
    "pause",
    "alarm",
    "restart_syscall",
    /* time (adjtimex/clock_adjtime only read the clock without CAP_SYS_TIME) */
    "time",
    "gettimeofday",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "nanosleep",
    "adjtimex",
    "clock_adjtime",
    "getitimer",
    "setitimer",
    "timer_create",
    "timer_delete",
    "timer_settime",
    "timer_gettime",
    "timer_getoverrun",
    "times",
    /* scheduling and resources */
    "sched_yield",
    "sched_getaffinity",
    "sched_setaffinity",
    "sched_getattr",
    "sched_setattr",
    "sched_getparam",
    "sched_setparam",
    "sched_getscheduler",
    "sched_setscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "sched_rr_get_interval",
    "getpriority",
    "setpriority",
    "ioprio_get",
    "ioprio_set",
    "getcpu",
    "getrlimit",
    "setrlimit",
    "getrusage",
    "sysinfo",
    "uname",
    /* synchronisation and randomness */
    "futex",
    "futex_waitv",
    "futex_wake",
    "futex_wait",
    "futex_requeue",
    "getrandom",
    /* sockets (socket itself: conditional, see policy_build.c) */
    "socketpair",
    "bind",
    "connect",
    "listen",
    "accept",
    "accept4",
    "getsockname",
    "getpeername",
    "getsockopt",
    "setsockopt",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "shutdown",
    /* System V and POSIX IPC (private to the sandbox's IPC namespace) */
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    /* a program may sandbox itself further */
    "landlock_create_ruleset",
    "landlock_add_rule",
    "landlock_restrict_self",
};

/* The same persona values moby allows: PER_LINUX, PER_LINUX32, each with UNAME26, and the query
 * 0xffffffff. Everything else (ADDR_NO_RANDOMIZE above all, READ_IMPLIES_EXEC) is refused. */
static const uint64_t DOCKER_PERSONALITIES[] = {
    PER_LINUX, PER_LINUX32, UNAME26, UNAME26 | PER_LINUX32, 0xffffffffu,
};

/* Host safety beside moby's list (see the top of this file). */
static const gen_refusal_t DOCKER_EOPNOTSUPP[] = {GEN_XATTR_SET_REFUSALS};
/* sync(2) flushes every file system of the host: 1,753 calls from a baseline run made 1,753
 * flush requests on the host's disk (red-team finding, session 17), while everything a native
 * baseline run can write is tmpfs. POSIX lets sync return before anything is written. */
static const gen_refusal_t DOCKER_NOOP[] = {
    {"sync", "flushes every file system of the host; a sandbox's writes need no host flush"},
};
static const uint32_t DOCKER_IP_MCAST_REFUSED[] = {GEN_IP_MCAST_JOINS};
/* and IPV6_2292PKTOPTIONS: sticky options kept as socket option memory, uncharged (review
 * finding: a baseline run's sockets grew the host's unreclaimable slab by 66 MiB, 12 MiB charged)
 */
static const uint32_t DOCKER_IPV6_MCAST_REFUSED[] = {GEN_IPV6_MCAST_JOINS,
                                                     6 /* IPV6_2292PKTOPTIONS */};
static const uint32_t DOCKER_TCP_REFUSED[] = {GEN_TCP_KEY_OPTIONS};
static const gen_gate_t DOCKER_SOCKOPT_MORE_GATES[] = {
    {41 /* IPPROTO_IPV6 */, DOCKER_IPV6_MCAST_REFUSED,
     sizeof(DOCKER_IPV6_MCAST_REFUSED) / sizeof(DOCKER_IPV6_MCAST_REFUSED[0]), false},
    {6 /* IPPROTO_TCP */, DOCKER_TCP_REFUSED,
     sizeof(DOCKER_TCP_REFUSED) / sizeof(DOCKER_TCP_REFUSED[0]), false},
};
/* Netlink families that read the host itself when the network namespace is the host's, as
 * baseline's is: NETLINK_SOCK_DIAG dumps every socket of the host with its owner's uid (host
 * services, other sandboxes' connections), NETLINK_KOBJECT_UEVENT delivers the host's device
 * events (red-team finding, session 19), NETLINK_CONNECTOR's process events every fork, exec,
 * id change and exit of the host with its pids and uids (red-team finding, session 20). moby
 * allows them: its containers have a network namespace of their own. NETLINK_ROUTE, which
 * getifaddrs() needs, stays. */
static const uint32_t DOCKER_NETLINK_REFUSED[] = {
    4 /* NETLINK_SOCK_DIAG */, 11 /* NETLINK_CONNECTOR */, 15 /* NETLINK_KOBJECT_UEVENT */};
/* (the socket rule is built in policy_build.c, beside its AF_VSOCK refusal) */
/* F_OFD_SETLK(W): open-file-description locks are kernel memory no memory cgroup pays for and
 * outlive their descriptor through a mapping (red-team finding, session 20: 679 MiB pinned by a
 * default baseline run); moby allows them. Classic locks stay. */
static const uint32_t DOCKER_FCNTL_REFUSED[] = {4 /* F_SETFL: allowed again without O_DIRECT */,
                                                37 /* F_OFD_SETLK */, 38 /* F_OFD_SETLKW */};
static const gen_flag_refusal_t DOCKER_FLAG_REFUSED[] = {GEN_O_DIRECT_FLAG_REFUSALS};
static const gen_gated_flag_t DOCKER_GATED_FLAGS[] = {GEN_O_DIRECT_SETFL};
static const gen_refusal_t DOCKER_ENOSYS[] = {{"openat2", GEN_O_DIRECT_WHY " (flags in memory)"}};
static const gen_arg_refusal_t DOCKER_ARG_REFUSED[] = {
    {.name = "fcntl",
     .arg = 1,
     .deny = DOCKER_FCNTL_REFUSED,
     .n_deny = sizeof(DOCKER_FCNTL_REFUSED) / sizeof(DOCKER_FCNTL_REFUSED[0]),
     .when_arg = -1,
     .why = "F_OFD_SETLK(W): locks no memory cgroup pays for, kept past close by a mapping; "
            "F_SETFL only without O_DIRECT"},
    {.name = "setsockopt",
     .arg = 2,
     .deny = DOCKER_IP_MCAST_REFUSED,
     .n_deny = sizeof(DOCKER_IP_MCAST_REFUSED) / sizeof(DOCKER_IP_MCAST_REFUSED[0]),
     .when_arg = 1,
     .when_value = 0 /* IPPROTO_IP */,
     .more_gates = DOCKER_SOCKOPT_MORE_GATES,
     .n_more_gates = sizeof(DOCKER_SOCKOPT_MORE_GATES) / sizeof(DOCKER_SOCKOPT_MORE_GATES[0]),
     .why = "IPv4/IPv6 multicast joins: on the host's own interfaces (baseline shares the host "
            "network), uncharged, left under RTNL after the deadline; TCP_MD5SIG, TCP-AO keys, "
            "IPV6_2292PKTOPTIONS: socket option memory no cgroup is charged for"},
};

const gen_policy_t asb_gen_policy_docker_default = {
    .name = "docker_default",
    .title = "Docker's default profile (moby), for a container without CAP_SYS_ADMIN",
    .allow = DOCKER_ALLOW,
    .n_allow = sizeof(DOCKER_ALLOW) / sizeof(DOCKER_ALLOW[0]),
    .personalities = DOCKER_PERSONALITIES,
    .n_personalities = sizeof(DOCKER_PERSONALITIES) / sizeof(DOCKER_PERSONALITIES[0]),
    .netlink_refused = DOCKER_NETLINK_REFUSED,
    .n_netlink_refused = sizeof(DOCKER_NETLINK_REFUSED) / sizeof(DOCKER_NETLINK_REFUSED[0]),
    .arg_refused = DOCKER_ARG_REFUSED,
    .n_arg_refused = sizeof(DOCKER_ARG_REFUSED) / sizeof(DOCKER_ARG_REFUSED[0]),
    .eopnotsupp = DOCKER_EOPNOTSUPP,
    .n_eopnotsupp = sizeof(DOCKER_EOPNOTSUPP) / sizeof(DOCKER_EOPNOTSUPP[0]),
    .noop = DOCKER_NOOP,
    .n_noop = sizeof(DOCKER_NOOP) / sizeof(DOCKER_NOOP[0]),
    .flag_refused = DOCKER_FLAG_REFUSED,
    .n_flag_refused = sizeof(DOCKER_FLAG_REFUSED) / sizeof(DOCKER_FLAG_REFUSED[0]),
    .gated_flags = DOCKER_GATED_FLAGS,
    .n_gated_flags = sizeof(DOCKER_GATED_FLAGS) / sizeof(DOCKER_GATED_FLAGS[0]),
    .enosys = DOCKER_ENOSYS,
    .n_enosys = sizeof(DOCKER_ENOSYS) / sizeof(DOCKER_ENOSYS[0]),
};
