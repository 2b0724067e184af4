/* policy_hardened.c - ASB_SECCOMP_HARDENED: Docker's allowlist minus every call untrusted,
 * AI-written code has no business making, each refused with EPERM.
 *
 * Why each refusal exists is the `why` text of the table below (it is also printed by
 * `asb-seccomp-gen --list` and copied into the generated header). The hardened sandbox already
 * drops every capability, so many of these would fail anyway; the filter makes the refusal not
 * depend on one more kernel permission check being right, and takes the call's code path out of
 * the reachable attack surface altogether, which is what matters against kernel exploits.
 * Entries that Docker's list never allowed are kept here too: the generator checks that none of
 * them is allowed, so a later edit of the base list cannot quietly let one back in.
 *
 * Beyond whole calls: clone(2) with any namespace flag is refused as in docker_default (clone(2)
 * cannot express CLONE_NEWTIME, which lives in its exit-signal byte; unshare and clone3 are
 * refused whole); personality(2) is narrowed to the plain Linux personas; ioctl(2) refuses
 * TIOCSTI and TIOCLINUX (see the bottom of this file).
 */
#include "native/seccomp/gen/policy.h"

#include <errno.h>
#include <linux/personality.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* sync(2) writes back every file system of the host, not the sandbox's tmpfs alone: one run
 * made 76,179 calls in 8 s and the host's disk counted as many flush requests (review finding;
 * on a disk where a flush is slow every fsync on the host waits). Everything a hardened run can
 * write is tmpfs, and POSIX lets sync return before anything is written. */
static const gen_refusal_t HARDENED_NOOP[] = {
    {"sync", "flushes every file system of the host; all the sandbox can write is tmpfs"},
};

/* Moving file pages into a pipe keeps references to the host's page cache (whole large folios)
 * in the pipe's buffers, charged to whoever cached them, not to the run: 60 processes splicing
 * /usr libraries into pipes they never read kept 604 MiB of host memory from being reclaimed
 * under a 128 MiB limit (red-team finding, session 7; the RLIMIT_MEMLOCK cap covers mlock, not
 * this). sendfile(2) to a pipe is such a splice. EINVAL, which runtimes (Go, libuv, Python's
 * shutil, Rust's io::copy) read as "not for these files" and fall back to read/write from. */
static const gen_refusal_t HARDENED_EOPNOTSUPP[] = {GEN_XATTR_SET_REFUSALS};

static const gen_refusal_t HARDENED_EINVAL[] = {
    {"splice", "file pages into a pipe: pins the host's page cache beyond the memory limit"},
    {"tee", "duplicates pipe buffers, and with them pinned page-cache references"},
    {"sendfile", "to a pipe it is a splice: the same pinning (read/write serves every copy)"},
};

/* MSG_OOB on unix sockets: out-of-band data is a rarely used path of af_unix where a
 * use-after-free let a sandboxed renderer into the kernel (CVE-2025-38236), after another race
 * with the garbage collector (CVE-2024-36972). With lo down there is no TCP for urgent data to
 * matter (review finding). Bit 0 of the flags, in every send and receive call. */
#define MSG_OOB_WHY "MSG_OOB: af_unix out-of-band data (CVE-2025-38236, CVE-2024-36972)"
/* Huge pages come from the host's hugetlb pool, reserved by the administrator for whoever runs
 * there (databases, VMs) and charged to no memory limit of ours on cgroup v1 (nor on v2 without
 * the memory_hugetlb_accounting mount option): a run could take the whole pool. Refused at the
 * three doors to it: mmap's MAP_HUGETLB, memfd_create's MFD_HUGETLB, shmget's SHM_HUGETLB.
 * Transparent huge pages (madvise MADV_HUGEPAGE) are ordinary, charged memory and stay. */
#define HUGETLB_WHY "huge pages from the host's reserved hugetlb pool, charged to no limit"

static const gen_flag_refusal_t HARDENED_FLAG_REFUSED[] = {
    {"sendto", 3, 0x1, MSG_OOB_WHY},
    {"recvfrom", 3, 0x1, MSG_OOB_WHY},
    {"sendmsg", 2, 0x1, MSG_OOB_WHY},
    {"recvmsg", 2, 0x1, MSG_OOB_WHY},
    {"sendmmsg", 3, 0x1, MSG_OOB_WHY},
    {"recvmmsg", 3, 0x1, MSG_OOB_WHY},
    {"mmap", 3, 0x40000 /* MAP_HUGETLB */, HUGETLB_WHY},
    {"memfd_create", 1, 0x4 /* MFD_HUGETLB */, HUGETLB_WHY},
    {"shmget", 2, 04000 /* SHM_HUGETLB */, HUGETLB_WHY},
    GEN_O_DIRECT_FLAG_REFUSALS,
};

static const gen_refusal_t HARDENED_REFUSED[] = {
    /* rarely used memory-management calls with a history of kernel bugs (review finding) */
    {"vmsplice", "pages of the caller's memory into a pipe: the usual trigger of copy-on-write "
                 "pinning bugs (CVE-2008-0600, CVE-2020-29374)"},
    {"remap_file_pages", "deprecated emulation that skipped the mmap security hook "
                         "(CVE-2024-47745)"},
    {"process_mrelease", "reaps another process's memory: for OOM-killer daemons only"},
    /* the mount table: the sandbox's root and its read-only, nosuid, noexec mounts are the
     * filesystem boundary; these calls would rearrange, remount or escape it */
    {"mount", "remount read-only or noexec paths writable/executable, overmount the sandbox's own "
              "files, or expose hidden host mounts"},
    {"umount2", "unmount a masking mount (e.g. over /proc entries) to reveal what it hides"},
    {"pivot_root", "swap the root to escape the prepared filesystem view"},
    {"move_mount", "new mount API: attach detached trees, same escapes as mount"},
    {"open_tree", "new mount API: clone a mount tree, including ones hidden below masks"},
    {"fsopen", "new mount API: create a filesystem context (a route to filesystem parsers)"},
    {"fsconfig", "new mount API: configure a superblock (historic heap overflow CVE-2022-0185)"},
    {"fsmount", "new mount API: turn a configured superblock into a mount"},
    {"fspick", "new mount API: reconfigure an existing superblock, e.g. remount it writable"},
    {"mount_setattr", "clear MOUNT_ATTR_RDONLY/NOSUID/NOEXEC on a mount tree"},
    {"chroot", "with a second chroot and a kept directory fd, the classic chroot escape; nothing "
               "a workload runs needs it"},
    /* namespaces: a new user namespace hands out a full capability set over new namespaces, which
     * is the entry point of most container-escape kernel exploits */
    {"unshare", "create user/mount/net namespaces and gain capabilities inside them"},
    {"setns", "join another namespace through an inherited or /proc fd"},
    /* kernel keyring: not namespaced, shared with the host */
    {"keyctl", "read or poison keyrings shared with the host; rich kernel attack surface"},
    {"add_key", "store keys in keyrings the host also sees"},
    {"request_key", "make the kernel run the host's /sbin/request-key upcall"},
    /* programmable kernel interfaces: the richest sources of kernel exploits */
    {"bpf", "load eBPF into the kernel (verifier bugs are a kernel code-execution primitive)"},
    {"perf_event_open", "kernel pointer and side-channel leaks; many privilege escalations"},
    {"userfaultfd", "pause a kernel copy_from_user mid-way: turns kernel races into reliable "
                    "exploits"},
    {"io_uring_setup", "io_uring runs I/O on kernel workers that seccomp never sees, and is a "
                       "leading source of kernel exploits"},
    {"io_uring_enter", "as io_uring_setup"},
    {"io_uring_register", "as io_uring_setup"},
    /* other processes: even inside one sandbox, the workload must not inspect or steer the
     * supervisor or its siblings */
    {"ptrace", "read and rewrite another process's memory and registers, e.g. the supervisor"},
    {"process_vm_readv", "read another process's memory without ptrace-attaching"},
    {"process_vm_writev", "write another process's memory without ptrace-attaching"},
    {"pidfd_getfd", "steal an open file descriptor from another process"},
    {"kcmp", "compare kernel objects of two processes: kernel pointer ordering leaks (KASLR)"},
    {"process_madvise", "act on another process's memory"},
    /* the kernel itself */
    {"kexec_load", "replace the running kernel"},
    {"kexec_file_load", "replace the running kernel"},
    {"init_module", "load kernel code"},
    {"finit_module", "load kernel code"},
    {"delete_module", "unload kernel code, e.g. a security module"},
    {"reboot", "reboot or halt the host, enable Ctrl-Alt-Del"},
    {"swapon", "swap to an attacker-controlled file: read other processes' memory from it"},
    {"swapoff", "disturb the host's memory management"},
    {"acct", "make the kernel write process accounting to a chosen file"},
    {"syslog", "read the kernel log: kernel addresses (KASLR bypass) and host activity"},
    {"quotactl", "host filesystem quota control; historic kernel bugs"},
    {"quotactl_fd", "as quotactl"},
    {"lookup_dcookie", "kernel-internal profiling interface; resolves host paths"},
    {"uselib", "legacy a.out library loader: old, unmaintained kernel code"},
    {"vhangup", "hang up the terminal shared with the caller"},
    /* clocks and names shared with the host (clocks are not namespaced for writing) */
    {"settimeofday", "change the host's clock: breaks TLS validity checks, logs, Kerberos"},
    {"clock_settime", "as settimeofday"},
    {"clock_adjtime", "slew the host's clock; read-only use is not needed by a workload"},
    {"adjtimex", "as clock_adjtime"},
    {"sethostname", "not needed: the sandbox's name is fixed by the supervisor"},
    {"setdomainname", "as sethostname"},
    /* files by handle: bypass path-based checks */
    {"open_by_handle_at", "open any inode of a filesystem by guessed handle, outside the sandbox "
                          "root (the 'shocker' container escape)"},
    {"name_to_handle_at", "mint file handles for open_by_handle_at; leaks inode identities"},
    /* raw hardware and odd CPU modes */
    {"iopl", "raw I/O port access"},
    {"ioperm", "raw I/O port access"},
    {"modify_ldt", "16-bit segment tricks behind several x86 kernel bugs (CVE-2015-5157, "
                   "CVE-2017-17053)"},
    {"fanotify_init", "filesystem-wide monitoring and permission decisions over other processes"},
    /* host-global counters a sandbox could exhaust for everyone */
    {"io_setup", "Linux AIO contexts count against the host-wide fs.aio-max-nr: two calls can use "
                 "it all up and fail io_setup for every process on the host"},
    {"io_destroy", "Linux AIO (see io_setup)"},
    {"io_submit", "Linux AIO (see io_setup)"},
    {"io_cancel", "Linux AIO (see io_setup)"},
    {"io_getevents", "Linux AIO (see io_setup)"},
    {"io_pgetevents", "Linux AIO (see io_setup)"},
    {"inotify_init", "inotify instances count against host root's per-user limit "
                     "(fs.inotify.max_user_instances, 128): every sandbox's user namespace is "
                     "created by root, so eight sandboxes left host root with none (measured)"},
    {"inotify_init1", "as inotify_init"},
    {"inotify_add_watch", "watches count against host root's per-user watch limit (see "
                          "inotify_init)"},
    {"inotify_rm_watch", "inotify (see inotify_init)"},
    /* the host's BPF JIT space (net.core.bpf_jit_limit): see HARDENED_SOCKOPT_REFUSED */
    {"seccomp", "install seccomp filters of its own: each is JIT-compiled into the one space the "
                "whole host has for unprivileged BPF code; ours is already in place"},
    /* CPU time outside the run's cgroup */
    {"sched_setaffinity", "every move of a running task to another CPU is done by a per-CPU "
                          "stopper (migration) thread, which belongs to no cgroup and preempts "
                          "everything: "
                          "four processes moving themselves took 1.65 CPUs of the host under a "
                          "1-CPU limit (red-team finding, session 15)"},
    /* memory hidden from the kernel */
    {"memfd_secret", "memory taken out of the kernel's direct map: unmovable, unswappable, hidden "
                     "from inspection, with a short history of mm bugs; no workload needs it"},
};

/* Plain Linux (and its 32-bit uname variant) and the query. UNAME26 is dropped: it exists for
 * 2.6-era binaries and once leaked kernel stack bytes through uname(2) (CVE-2012-0957). */
static const uint64_t HARDENED_PERSONALITIES[] = {PER_LINUX, PER_LINUX32, 0xffffffffu};

/* TIOCSTI pushes bytes into a terminal's input queue: a sandboxed program sharing the caller's
 * terminal types commands into the shell that started it (CVE-2016-7545, CVE-2017-5226).
 * TIOCLINUX can do the same on a Linux console through its selection/paste subcodes. */
/* SIOCGSTAMP and SIOCGSTAMPNS (old and 64-bit-time forms) switch on receive timestamps for the
 * socket as SO_TIMESTAMP does: see HARDENED_SOCKOPT_REFUSED. */
static const uint32_t HARDENED_IOCTL_REFUSED[] = {TIOCSTI,
                                                  TIOCLINUX,
                                                  0x8906 /* SIOCGSTAMP_OLD */,
                                                  0x8907 /* SIOCGSTAMPNS_OLD */,
                                                  0x80108906 /* SIOCGSTAMP_NEW */,
                                                  0x80108907 /* SIOCGSTAMPNS_NEW */};

/* Attaching a classic BPF program to a socket: the kernel JIT-compiles each one (it cannot be
 * switched off on this kernel), and the space for compiled code is one counter for the whole
 * host, net.core.bpf_jit_limit, which only privileged callers may exceed. Three hardened runs
 * attaching 4096-instruction filters to their sockets used it up: every new sandbox's own
 * seccomp filter, and any unprivileged BPF on the host, then failed (red-team finding).
 * SO_ATTACH_BPF and SO_ATTACH_REUSEPORT_EBPF need the fd of a loaded eBPF program, which a
 * workload cannot get (bpf(2) is refused), so the two classic ones are enough; every listed
 * value costs the filter about 50 instructions, which every sandbox start pays to load. */
static const uint32_t HARDENED_SOCKOPT_REFUSED[] = {
    26 /* SO_ATTACH_FILTER */, 51 /* SO_ATTACH_REUSEPORT_CBPF */,
    /* Receive timestamps: the first socket that asks for them, and the last one that stops,
     * flips a host-wide static key, and each flip rewrites kernel code on a shared kernel
     * worker under global locks with an IPI to every CPU. A loop of socket, SO_TIMESTAMP,
     * close kept that worker at ~0.35 CPU and sent ~8,900 IPIs a second, none of it charged to
     * the run (red-team finding, session 15). With lo down there is nothing to timestamp. */
    29 /* SO_TIMESTAMP_OLD */, 35 /* SO_TIMESTAMPNS_OLD */, 37 /* SO_TIMESTAMPING_OLD */,
    63 /* SO_TIMESTAMP_NEW */, 64 /* SO_TIMESTAMPNS_NEW */, 65 /* SO_TIMESTAMPING_NEW */};

/* Multicast group joins: each join adds to one list on the sandbox's lo, searched from the start
 * by every join and leave while the host-wide RTNL lock is held. Thousands of groups made the
 * run's exit (leaving them all, on its throttled 1-CPU cgroup, with RTNL taken) last 458 s past a
 * 5 s timeout, and every network change on the host waited seconds behind it (red-team finding,
 * session 7). With lo down a hardened run has no multicast to join. IPPROTO_IP: */
static const uint32_t HARDENED_IP_MCAST_REFUSED[] = {GEN_IP_MCAST_JOINS};
/* IPPROTO_IPV6: the same joins, and anycast addresses (a list of the same kind). And flow
 * labels: the kernel's pool of them (4,096) is one for the whole host, every network namespace
 * included, and past 3,072 in use it refuses them to every unprivileged process on the host; a
 * hardened run held 3,072 (red-team finding, session 15). */
/* IPV6_2292PKTOPTIONS: sticky options kept as socket option memory, charged to no cgroup (+122
 * MiB of host memory against 16 MiB charged: red-team finding, session 16); the RFC 3542 options
 * programs use instead stay. */
static const uint32_t HARDENED_IPV6_MCAST_REFUSED[] = {
    GEN_IPV6_MCAST_JOINS, 32 /* IPV6_FLOWLABEL_MGR */, 6 /* IPV6_2292PKTOPTIONS */};
static const uint32_t HARDENED_TCP_REFUSED[] = {GEN_TCP_KEY_OPTIONS};
/* SOL_UDP: UDP_ENCAP and UDP_GRO flip a host-wide static key too (the encapsulation receive
 * path): ~22,000 IPIs a second from a loop of socket, UDP_ENCAP, close (red-team finding, session
 * 15). The kernel takes both at level SOL_UDPLITE (136) as well, on a plain UDP socket (review
 * finding: 80,000 IPIs in 3 s that way past a SOL_UDP-only refusal); UDP-Lite sockets themselves
 * are refused, so nothing legitimate uses that level here. */
static const uint32_t HARDENED_UDP_REFUSED[] = {100 /* UDP_ENCAP */, 104 /* UDP_GRO */};
static const gen_gate_t HARDENED_SOCKOPT_MORE_GATES[] = {
    {0 /* IPPROTO_IP */, HARDENED_IP_MCAST_REFUSED,
     sizeof(HARDENED_IP_MCAST_REFUSED) / sizeof(HARDENED_IP_MCAST_REFUSED[0]), false},
    {41 /* IPPROTO_IPV6 */, HARDENED_IPV6_MCAST_REFUSED,
     sizeof(HARDENED_IPV6_MCAST_REFUSED) / sizeof(HARDENED_IPV6_MCAST_REFUSED[0]), false},
    {17 /* SOL_UDP */, HARDENED_UDP_REFUSED,
     sizeof(HARDENED_UDP_REFUSED) / sizeof(HARDENED_UDP_REFUSED[0]), false},
    {6 /* IPPROTO_TCP */, HARDENED_TCP_REFUSED,
     sizeof(HARDENED_TCP_REFUSED) / sizeof(HARDENED_TCP_REFUSED[0]), false},
    /* every option: UDP-Lite sockets are refused, so nothing legitimate sets this level */
    {136 /* SOL_UDPLITE */, NULL, 0, true},
};

/* PR_SET_SECCOMP installs a filter through prctl(2): the same JIT counter (seccomp(2) itself is
 * refused whole above). PR_SET_MEMORY_MERGE hands all of the process's memory to KSM, the
 * host's page deduplication: where KSM runs, two sandboxes whose pages merge can time the
 * copy-on-write of a shared page, a channel between them (and a probe for what other KSM users
 * hold), and the host's ksmd scans their memory on no cgroup's account. */
/* PR_SCHED_CORE (core scheduling, where the kernel has it: CONFIG_SCHED_CORE on an SMT host):
 * creating a cookie flips a host-wide static key and takes every CPU's run-queue lock, and the
 * disable runs on a shared workqueue, the pattern of the timestamp keys below (review finding,
 * session 15; not measurable on this kernel, which lacks it). */
static const uint32_t HARDENED_PRCTL_REFUSED[] = {22 /* PR_SET_SECCOMP */, 62 /* PR_SCHED_CORE */,
                                                  67 /* PR_SET_MEMORY_MERGE */};

/* MADV_MERGEABLE: the same KSM deduplication for one range. Advice, so a no-op that reports
 * success (the kernel ignores it too where KSM is not built in). */
static const uint32_t HARDENED_MADVISE_NOOP[] = {12 /* MADV_MERGEABLE */};

/* POSIX_FADV_DONTNEED drops a file's clean pages from the page cache, the host's included: a
 * hardened run emptied the host's cache of any /usr file it could open, and by dropping and
 * rereading them drove 4.6 GB of disk reads in 8 s (red-team finding). The advice becomes a
 * no-op that reports success, as the kernel may ignore advice anyway; every other advice works. */
static const uint32_t HARDENED_FADVISE_NOOP[] = {4 /* POSIX_FADV_DONTNEED */};

/* The priority-inheritance futex operations: the kernel's PI state machine behind several local
 * privilege escalations (CVE-2014-3153, used by towelroot, CVE-2021-3347); Chromium's renderer
 * policy refuses them too. Plain futex waits and wakes, which every threaded program uses, stay.
 * Refused with and without FUTEX_PRIVATE_FLAG (128) and FUTEX_CLOCK_REALTIME (256). */
static const uint32_t HARDENED_FUTEX_REFUSED[] = {
    6 /* FUTEX_LOCK_PI */,          7 /* FUTEX_UNLOCK_PI */,       8 /* FUTEX_TRYLOCK_PI */,
    11 /* FUTEX_WAIT_REQUEUE_PI */, 12 /* FUTEX_CMP_REQUEUE_PI */, 13 /* FUTEX_LOCK_PI2 */};

/* Open-file-description locks: every byte-range lock is kernel memory no memory cgroup pays for
 * (the kernel's file_lock_cache is not accounted), and an OFD lock lives as long as its open
 * file, which a mapping keeps after the descriptor is closed: 4 processes pinned 610 MiB of host
 * memory in a 10 s run under a 128 MiB limit (red-team finding, session 20). Refused (EPERM:
 * F_SETFL shares the list and its gated rule, and two errno rules for one call would
 * conflict); classic F_SETLK locks die with the process's descriptors and stay allowed (SQLite
 * needs them: THREAT_MODEL for what remains). */
static const uint32_t HARDENED_FCNTL_REFUSED[] = {4 /* F_SETFL: allowed again without O_DIRECT */,
                                                  37 /* F_OFD_SETLK */, 38 /* F_OFD_SETLKW */};
static const gen_gated_flag_t HARDENED_GATED_FLAGS[] = {GEN_O_DIRECT_SETFL};
static const gen_refusal_t HARDENED_ENOSYS[] = {{"openat2", GEN_O_DIRECT_WHY " (flags in memory)"}};

static const gen_arg_refusal_t HARDENED_ARG_REFUSED[] = {
    {.name = "fcntl",
     .arg = 1,
     .deny = HARDENED_FCNTL_REFUSED,
     .n_deny = sizeof(HARDENED_FCNTL_REFUSED) / sizeof(HARDENED_FCNTL_REFUSED[0]),
     .when_arg = -1,
     .why = "F_OFD_SETLK(W): locks no memory cgroup pays for, kept past close by a mapping; "
            "F_SETFL only without O_DIRECT"},
    {.name = "futex",
     .arg = 1,
     .deny = HARDENED_FUTEX_REFUSED,
     .n_deny = sizeof(HARDENED_FUTEX_REFUSED) / sizeof(HARDENED_FUTEX_REFUSED[0]),
     .when_arg = -1,
     .ignore_bits = 128u | 256u,
     /* ENOSYS: glibc's pthread_mutex_init probes PI support and then refuses a
      * PTHREAD_PRIO_INHERIT mutex with ENOTSUP; after EPERM it aborted on first contention
      * (compatibility QA) */
     .refuse_errno = ENOSYS,
     .why = "priority-inheritance operations: the PI state machine behind kernel exploits"},
    {.name = "ioctl",
     .arg = 1,
     .deny = HARDENED_IOCTL_REFUSED,
     .n_deny = sizeof(HARDENED_IOCTL_REFUSED) / sizeof(HARDENED_IOCTL_REFUSED[0]),
     .when_arg = -1,
     .why = "TIOCSTI, TIOCLINUX: typing into the caller's terminal; SIOCGSTAMP(NS): "
            "receive timestamps, a host-wide static key"},
    {.name = "setsockopt",
     .arg = 2,
     .deny = HARDENED_SOCKOPT_REFUSED,
     .n_deny = sizeof(HARDENED_SOCKOPT_REFUSED) / sizeof(HARDENED_SOCKOPT_REFUSED[0]),
     .when_arg = 1,
     .when_value = 1 /* SOL_SOCKET */,
     .more_gates = HARDENED_SOCKOPT_MORE_GATES,
     .n_more_gates = sizeof(HARDENED_SOCKOPT_MORE_GATES) / sizeof(HARDENED_SOCKOPT_MORE_GATES[0]),
     .why = "SO_ATTACH_FILTER, SO_ATTACH_REUSEPORT_CBPF: BPF programs use up the host's JIT "
            "limit; SO_TIMESTAMP*, UDP_ENCAP, UDP_GRO (SOL_UDP; every SOL_UDPLITE option): "
            "host-wide static "
            "keys flipped on a shared kernel "
            "worker; IPv4/IPv6 multicast joins: a list searched under the host's RTNL lock; "
            "IPV6_FLOWLABEL_MGR: the host-wide flow label pool; TCP_MD5SIG, TCP-AO keys, "
            "IPV6_2292PKTOPTIONS: socket option memory no cgroup is charged for"},
    {.name = "prctl",
     .arg = 0,
     .deny = HARDENED_PRCTL_REFUSED,
     .n_deny = sizeof(HARDENED_PRCTL_REFUSED) / sizeof(HARDENED_PRCTL_REFUSED[0]),
     .when_arg = -1,
     .why = "PR_SET_SECCOMP: a filter of its own, against the host's JIT limit; "
            "PR_SCHED_CORE: a host-wide static key and every run-queue lock; "
            "PR_SET_MEMORY_MERGE: KSM page sharing between sandboxes"},
    {.name = "fadvise64",
     .arg = 3,
     .deny = HARDENED_FADVISE_NOOP,
     .n_deny = 1,
     .when_arg = -1,
     .noop = true,
     .why = "POSIX_FADV_DONTNEED: evicting the host's page cache"},
    {.name = "madvise",
     .arg = 2,
     .deny = HARDENED_MADVISE_NOOP,
     .n_deny = 1,
     .when_arg = -1,
     .noop = true,
     .why = "MADV_MERGEABLE: KSM page sharing between sandboxes"},
};

/* Socket families a workload needs: local (unix) and IPv4/IPv6 on its own loopback. Every other
 * family (AF_ALG crypto, AF_PACKET, AF_KEY, rarely used protocol stacks) is kernel attack surface
 * with nothing to reach. AF_NETLINK is refused too: what queues on a netlink socket (messages a
 * NETLINK_USERSOCK socket sends itself, the kernel's replies on NETLINK_ROUTE) is kernel memory
 * no memory cgroup is charged for, up to the receive buffer per socket, so 64 processes with 256
 * sockets each could hold tens of GB of host memory under a 128 MiB limit (red-team finding: 2.1
 * GB in one run). Without it getifaddrs(3) and if_nameindex(3) fail with EPERM; getaddrinfo(3)
 * with AI_ADDRCONFIG falls back to assuming both address families. */
static const uint32_t HARDENED_SOCKET_FAMILIES[] = {AF_UNIX, AF_INET, AF_INET6};

/* Within IPv4 and IPv6, the sockets programs ask for: stream sockets with the default protocol
 * or TCP, datagram sockets with the default, UDP, or ICMP/ICMPv6 (ping sockets). Type and
 * protocol together pick the kernel code a socket reaches, and on kernels that load modules on
 * demand a socket call names the module to load, as host root: SCTP (132, or SOCK_SEQPACKET
 * with protocol 0), DCCP (33, or SOCK_DCCP with protocol 0) and L2TP (115) have been loaded that
 * way into hosts for their bugs (CVE-2017-6074 was DCCP). MPTCP (262) and UDP-Lite (136), built
 * in here, are rarely used paths with their own bug histories (review findings). socketpair(2)
 * follows the same list: it creates the sockets before it fails for these families. */
static const gen_inet_pair_t HARDENED_INET_PAIRS[] = {
    {SOCK_STREAM, 0},
    {SOCK_STREAM, 6 /* IPPROTO_TCP */},
    {SOCK_DGRAM, 0},
    {SOCK_DGRAM, 17 /* IPPROTO_UDP */},
    {SOCK_DGRAM, 1 /* IPPROTO_ICMP */},
    {SOCK_DGRAM, 58 /* IPPROTO_ICMPV6 */},
};

const gen_policy_t asb_gen_policy_hardened = {
    .name = "hardened",
    .title = "docker_default minus namespace, mount, keyring, kernel-programming, cross-process "
             "and host-global calls",
    .base = &asb_gen_policy_docker_default,
    .refused = HARDENED_REFUSED,
    .n_refused = sizeof(HARDENED_REFUSED) / sizeof(HARDENED_REFUSED[0]),
    .personalities = HARDENED_PERSONALITIES,
    .n_personalities = sizeof(HARDENED_PERSONALITIES) / sizeof(HARDENED_PERSONALITIES[0]),
    .arg_refused = HARDENED_ARG_REFUSED,
    .n_arg_refused = sizeof(HARDENED_ARG_REFUSED) / sizeof(HARDENED_ARG_REFUSED[0]),
    .socket_families = HARDENED_SOCKET_FAMILIES,
    .n_socket_families = sizeof(HARDENED_SOCKET_FAMILIES) / sizeof(HARDENED_SOCKET_FAMILIES[0]),
    .inet_pairs = HARDENED_INET_PAIRS,
    .n_inet_pairs = sizeof(HARDENED_INET_PAIRS) / sizeof(HARDENED_INET_PAIRS[0]),
    .noop = HARDENED_NOOP,
    .n_noop = sizeof(HARDENED_NOOP) / sizeof(HARDENED_NOOP[0]),
    .einval = HARDENED_EINVAL,
    .n_einval = sizeof(HARDENED_EINVAL) / sizeof(HARDENED_EINVAL[0]),
    .eopnotsupp = HARDENED_EOPNOTSUPP,
    .n_eopnotsupp = sizeof(HARDENED_EOPNOTSUPP) / sizeof(HARDENED_EOPNOTSUPP[0]),
    .flag_refused = HARDENED_FLAG_REFUSED,
    .n_flag_refused = sizeof(HARDENED_FLAG_REFUSED) / sizeof(HARDENED_FLAG_REFUSED[0]),
    .gated_flags = HARDENED_GATED_FLAGS,
    .n_gated_flags = sizeof(HARDENED_GATED_FLAGS) / sizeof(HARDENED_GATED_FLAGS[0]),
    .enosys = HARDENED_ENOSYS,
    .n_enosys = sizeof(HARDENED_ENOSYS) / sizeof(HARDENED_ENOSYS[0]),
};
