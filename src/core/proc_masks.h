/* proc_masks.h - the /proc entries every sandbox hides, in one list for both backends.
 *
 * The native supervisor (rootfs.c) binds /dev/null over each file and an empty read-only tmpfs
 * over each directory; the docker backend (docker_request.c) sends the same names in
 * HostConfig.MaskedPaths, where the runtime does the same (the masks; see ASB_PROC_READONLY). Names
 * are relative to /proc; an entry a kernel does not have needs no mask. Header-only: the static
 * supervisor links nothing of src/core. */
#ifndef ASB_CORE_PROC_MASKS_H
#define ASB_CORE_PROC_MASKS_H

#include <stddef.h>

/* Files: kernel memory and addresses (kcore, kallsyms, kpage*, vmallocinfo), kernel heap
 * layout (slabinfo, pagetypeinfo), keyrings shared with the host (keys, key-users), other
 * processes' timing (timer_list, sched_debug, latency_stats, timer_stats), host control
 * (sysrq-trigger), the host's log (kmsg), its configuration (config.gz), host-wide activity
 * nobody's program needs (cgroups counted concurrent sandboxes; interrupts, diskstats), and
 * what names the host: its boot command line, disks, devices and consoles, its physical memory
 * and I/O port map (red-team findings). locks: each read takes a host-wide lock and walks
 * every file lock of the host, so a run holding many locks and rereading it stalled every host
 * process that locks a file (SQLite: 12,443 commits/s to 34; red-team finding, session 20).
 * stat, loadavg and meminfo stay: programs count CPUs and memory with them (THREAT_MODEL.md). */
static const char *const ASB_PROC_MASK_FILES[] = {
    "kcore",         "kallsyms",    "keys",          "key-users",  "timer_list",   "sched_debug",
    "latency_stats", "timer_stats", "sysrq-trigger", "kmsg",       "kpagecount",   "kpageflags",
    "kpagecgroup",   "config.gz",   "vmallocinfo",   "slabinfo",   "pagetypeinfo", "cgroups",
    "interrupts",    "diskstats",   "cmdline",       "partitions", "misc",         "devices",
    "consoles",      "iomem",       "ioports",       "locks"};
#define ASB_PROC_MASK_N_FILES (sizeof(ASB_PROC_MASK_FILES) / sizeof(ASB_PROC_MASK_FILES[0]))

/* Directories: hardware and driver state of the host, host-wide pressure stall counters, the
 * host's buses (PCI ids and physical addresses), its filesystems' state (/proc/fs/ext4/<disk>
 * named the host's disk, its mount options and free blocks per group, changing with every host
 * write) and its interrupt lines (/proc/irq/N/ names each device: virtio0-config, nvme0q1, ...):
 * red-team findings. */
static const char *const ASB_PROC_MASK_DIRS[] = {
    "acpi", "scsi", "asound", "driver", "tty/driver", "pressure", "bus", "fs", "irq"};
#define ASB_PROC_MASK_N_DIRS (sizeof(ASB_PROC_MASK_DIRS) / sizeof(ASB_PROC_MASK_DIRS[0]))

/* Read-only, native backend only (the kernel's tunables). The docker backend leaves Docker's
 * default ReadonlyPaths in place: this one, and bus, fs, irq and sysrq-trigger (masked above);
 * the verifier does not check them. */
static const char *const ASB_PROC_READONLY[] = {"sys"};
#define ASB_PROC_N_READONLY (sizeof(ASB_PROC_READONLY) / sizeof(ASB_PROC_READONLY[0]))

#endif
