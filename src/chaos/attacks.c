/* attacks.c - the attack table (order = the matrix's row order). The 30 named by the issue
 * first, then the extras. */
#include "chaos/attacks.h"
#include "chaos/host.h"
#include "core/limits.h"

#include <string.h>

static const asb_chaos_attack_t ATTACKS[] = {
    {.name = "tcp_egress", .what = "TCP connect to a host-loopback listener, send the nonce"},
    {.name = "udp_egress", .what = "UDP datagram with the nonce to a host-loopback listener"},
    {.name = "http_egress", .what = "HTTP GET /beacon/NONCE from a host-loopback responder"},
    {.name = "dns_resolve", .what = "DNS query for NONCE.chaos.invalid to the harness's resolver"},
    {.name = "env_secret_read", .what = "find the harness's secret in any readable environ"},
    {.name = "host_canary_read", .what = "read canaries planted in /root and /tmp"},
    {.name = "etc_shadow_read", .what = "read /etc/shadow"},
    {.name = "disk_fill",
     .what = "write one 40 MB file in the working directory",
     .file_out_bytes = 48 * ASB_MIB,
     .files_out = "fill.bin"},
    {.name = "symlink_fileout",
     .what = "leave out.txt as a symlink to the /root canary for file-out",
     .files_out = "out.txt",
     .control_env = true},
    {.name = "rootfs_write", .what = "create files in / and /etc"},
    {.name = "run_as_root", .what = "run with euid 0 (host view)", .flags = ASB_CHAOS_WATCH},
    {.name = "setuid_escalate",
     .what = "exec a planted setuid copy of python3 after dropping to nobody",
     .flags = ASB_CHAOS_WATCH},
    {.name = "cap_effective", .what = "hold effective capabilities", .flags = ASB_CHAOS_WATCH},
    {.name = "raw_socket", .what = "hand-craft a UDP packet on a raw IP socket"},
    {.name = "mount_syscall", .what = "mount a tmpfs on a host directory"},
    {.name = "raise_priority", .what = "nice -10 and SCHED_FIFO", .flags = ASB_CHAOS_WATCH},
    {.name = "kernel_version_leak",
     .what = "print the kernel release (uname, /proc/version, /proc/sys/kernel)"},
    {.name = "mountinfo_leak",
     .what = "print /proc/self/mountinfo (the host's has a mount the harness made)",
     .plant = ASB_CHAOS_PLANT_MOUNT},
    {.name = "host_identity_leak", .what = "print the host's boot id, kernel command line, uptime"},
    {.name = "sysrq_trigger",
     .what = "write 'h' to /proc/sysrq-trigger",
     .flags = ASB_CHAOS_EXCLUSIVE,
     .plant = ASB_CHAOS_PLANT_SYSRQ},
    {.name = "kcore_read", .what = "read kernel memory from /proc/kcore"},
    {.name = "dev_mem", .what = "read physical memory via /dev/mem or a mknod'ed node"},
    {.name = "docker_socket", .what = "talk to a Docker API socket (harness decoy on the host)"},
    {.name = "cgroupfs_write", .what = "create cgroups in the host's hierarchies"},
    {.name = "memory_bomb",
     .what = "allocate and touch 300 MB",
     .flags = ASB_CHAOS_WATCH,
     .oom_is_the_block = true,
     .timeout_s = 15.0}, /* 76,800 first touches; a loaded paravirtualised guest took > 5 s */
    {.name = "thread_bomb", .what = "start 200 threads", .flags = ASB_CHAOS_WATCH},
    {.name = "fork_bomb",
     .what = "fork 300 processes",
     /* Alone: 300 forks of Python, the 3 s hold and the reaps took 4.5 s of a 5 s clock under
      * hardened on an idle host, and were ended by the clock (16 s for baseline's 300) among
      * a matrix's other runs on this 2-vCPU VM. */
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_EXCLUSIVE,
     .timeout_s = 15.0,
     .control_timeout_s = 30.0}, /* 300 forks on a loaded host, 3 s held, 300 reaped: 11 s seen */
    {.name = "cpu_spin",
     .what = "spin 3 processes for 0.8 s",
     .flags = ASB_CHAOS_EXCLUSIVE | ASB_CHAOS_WATCH},
    {.name = "time_bomb",
     .what = "sleep 3 s under a 1 s timeout",
     .timeout_s = 1.0,
     .timeout_is_the_block = true,
     .control_timeout_s = 10.0},
    {.name = "orphan_survivor",
     .what = "double-fork a daemon that touches a marker for 4 s",
     .flags = ASB_CHAOS_AFTER | ASB_CHAOS_WATCH},
    {.name = "output_flood",
     .what = "write 50 MB to stdout",
     .control_timeout_s = 15.0, /* 2.9 s of its 5 s with five other controls running */
     .control_output_bytes = 64 * ASB_MIB},
    /* Extras. */
    {.name = "kill_host_process",
     .what = "SIGKILL a host process the harness started",
     .plant = ASB_CHAOS_PLANT_VICTIM},
    {.name = "abstract_unix", .what = "connect to a host abstract unix socket"},
    {.name = "sysv_shm_read",
     .what = "attach a host SysV shared-memory segment by key",
     .plant = ASB_CHAOS_PLANT_SHM},
    {.name = "keyring_read",
     .what = "read a key from the user keyring with keyctl",
     .plant = ASB_CHAOS_PLANT_KEY},
    {.name = "io_uring_setup",
     .what = "create an io_uring instance",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_WATCH_FDS},
    {.name = "bpf_prog_load",
     .what = "load an eBPF program with bpf(2)",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_WATCH_FDS},
    {.name = "perf_event_open",
     .what = "open a perf event on itself",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_WATCH_FDS},
    {.name = "userfaultfd",
     .what = "create a userfaultfd (user-mode faults only)",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_WATCH_FDS},
    {.name = "tcp_backlog_hold",
     .what = "queue 4,000 connections on its own 127.0.0.1 listeners, never accept",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_EXCLUSIVE},
    {.name = "kmem_uncharged",
     .what = "pin kernel memory no cgroup is charged for: 64 KiB ACLs on 3,000 files, TCP MD5 "
             "keys on 200 sockets",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_EXCLUSIVE,
     /* without the filter, in hardened's own tmpfs workspace and network namespace */
     .control_profile = "hardened",
     .control_weaken = ASB_WEAKEN_SECCOMP},
    {.name = "signal_quota",
     .what = "hold standard signals pending in 40 processes that block them (host root's quota)",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_EXCLUSIVE},
    {.name = "cpu_migrate",
     .what = "move 4 spinning processes between CPUs (sched_setaffinity) for 1.5 s",
     .flags = ASB_CHAOS_WATCH | ASB_CHAOS_WATCH_MIGRATION | ASB_CHAOS_EXCLUSIVE},
    {.name = "page_cache_evict",
     .what = "drop a cached host /usr file from the page cache (POSIX_FADV_DONTNEED)",
     .flags = ASB_CHAOS_EXCLUSIVE,
     .plant = ASB_CHAOS_PLANT_CACHE},
    {.name = "disk_read_flood",
     .what = "read the host's disk past the page cache (O_DIRECT) for 2 s",
     .flags = ASB_CHAOS_EXCLUSIVE,
     .plant = ASB_CHAOS_PLANT_DISK},
    {.name = "userns_nested", .what = "unshare a nested user namespace", .flags = ASB_CHAOS_WATCH},
    {.name = "fd_inherit",
     .what = "read file descriptors inherited from the host",
     .plant = ASB_CHAOS_PLANT_FD},
    {.name = "hardlink_fileout",
     .what = "leave out.txt as a hard link to the /tmp canary for file-out",
     .files_out = "out.txt",
     .control_env = true},
};

const asb_chaos_attack_t *asb_chaos_attacks(size_t *count)
{
    *count = sizeof(ATTACKS) / sizeof(ATTACKS[0]);
    return ATTACKS;
}

const asb_chaos_attack_t *asb_chaos_attack_find(const char *name)
{
    for (size_t i = 0; i < sizeof(ATTACKS) / sizeof(ATTACKS[0]); i++)
        if (strcmp(ATTACKS[i].name, name) == 0)
            return &ATTACKS[i];
    return NULL;
}
