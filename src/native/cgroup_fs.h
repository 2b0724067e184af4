/* cgroup_fs.h - the cgroup module's file and process primitives, shared by cgroup.c,
 * cgroup_detect.c and cgroup_reap.c. Not for use outside src/native/cgroup*.c.
 * All return 0 (or a count) on success and -errno on failure; none fills an asb_error_t, so each
 * caller words its own "cgroup: <what>" message. */
#ifndef ASB_NATIVE_CGROUP_FS_H
#define ASB_NATIVE_CGROUP_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read a small file relative to dirfd into buf (NUL-terminated; at most size-1 bytes). */
int asb_cgroup_fs_read_at(int dirfd, const char *name, char *buf, size_t size, size_t *len);

/* Write data to a control file relative to dirfd in one write(2): cgroupfs takes each write as one
 * command, so a short write is an error, never something to continue. */
int asb_cgroup_fs_write_at(int dirfd, const char *name, const char *data);

int asb_cgroup_fs_read_u64_at(int dirfd, const char *name, uint64_t *out);

/* The block devices with media (size > 0) listed in /sys/block: whole disks, device-mapper and
 * md devices, loop devices in use; partitions are throttled through their disk. devs[i][0] is
 * the major, devs[i][1] the minor. 0, or -E2BIG when there are more than max, or -errno. */
int asb_cgroup_fs_block_devices(unsigned (*devs)[2], size_t max, size_t *n);

/* Field 22 of /proc/<pid>/stat on the host's boot clock (the reader's time-namespace boottime
 * offset taken back out); pid 0 means the calling process. -ENOENT when the process is gone. */
int asb_cgroup_fs_starttime(pid_t pid, uint64_t *start);

/* Two starttimes (asb_cgroup_fs_starttime) of the same process: equal within one clock tick. */
bool asb_cgroup_fs_start_matches(uint64_t now, uint64_t start);

/* The owner of a run is the process with that pid AND that starttime; a reused pid is not it.
 * When it cannot be told (an unexpected /proc error), the owner counts as alive: the reaper must
 * never touch a live owner's run. */
bool asb_cgroup_fs_owner_alive(pid_t pid, uint64_t start);

/* Signal every process listed in dir_fd's cgroup.procs once. Returns how many were signalled. */
int asb_cgroup_fs_signal_procs(int dir_fd, int sig);

/* Remove the cgroup parent_fd/name: rmdir; while busy, SIGKILL its processes (cgroup.kill when
 * use_kill_file and present) and retry, for at most ASB_CGROUP_DRAIN_TIMEOUT_MS.
 * 0 removed, -ENOENT it was already gone, -EBUSY still busy at the deadline, else -errno. */
int asb_cgroup_fs_remove(int parent_fd, const char *name, bool use_kill_file);

#endif
