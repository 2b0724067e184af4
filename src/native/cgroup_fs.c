/* cgroup_fs.c - small-file I/O on cgroupfs and /proc, signalling a cgroup's processes, and the
 * bounded kill-and-rmdir loop used by destroy and by the reaper. */
#include "native/cgroup_fs.h"

#include "core/limits.h"
#include "native/cgroup_parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One pass reads cgroup.procs into a 16 KiB buffer and handles up to PROCS_MAX pids (about 32 KiB
 * of stack in all; no allocation on the kill path, which runs when memory may be short). A longer
 * list is finished by later passes of asb_cgroup_fs_remove, since killed pids leave the list; the
 * profiles' pids limits (<= 1024) keep a run well inside one pass. */
#define PROCS_BUF_SIZE 16384
#define PROCS_MAX 2048
#define PROCS_BATCH 128

/* Waiting for killed tasks to leave: 100 us doubling to 20 ms. Most are gone within the first
 * steps; a task freeing a large address space takes milliseconds. */
#define DRAIN_STEP_MIN_NS 100000LL
#define DRAIN_STEP_MAX_NS 20000000LL

int asb_cgroup_fs_read_at(int dirfd, const char *name, char *buf, size_t size, size_t *len)
{
    if (len)
        *len = 0;
    if (size == 0)
        return -EINVAL;
    int fd;
    do {
        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    size_t used = 0;
    int rc = 0;
    while (used < size - 1) {
        ssize_t n = read(fd, buf + used, size - 1 - used);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    buf[used] = '\0';
    if (len)
        *len = used;
    close(fd);
    return rc;
}

int asb_cgroup_fs_write_at(int dirfd, const char *name, const char *data)
{
    int fd;
    do {
        fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -errno;
    size_t len = strlen(data);
    ssize_t n;
    do {
        n = write(fd, data, len);
    } while (n < 0 && errno == EINTR);
    int rc = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
    close(fd);
    return rc;
}

int asb_cgroup_fs_read_u64_at(int dirfd, const char *name, uint64_t *out)
{
    char buf[64];
    size_t len;
    int rc = asb_cgroup_fs_read_at(dirfd, name, buf, sizeof(buf), &len);
    if (rc < 0)
        return rc;
    return asb_cgroup_parse_u64(buf, len, out);
}

/* The reader's boottime offset in nanoseconds (0 outside a time namespace, or on a kernel
 * without them). */
static int boottime_offset_ns(int64_t *ns)
{
    char buf[256];
    size_t len;
    *ns = 0;
    int rc = asb_cgroup_fs_read_at(AT_FDCWD, "/proc/self/timens_offsets", buf, sizeof(buf), &len);
    if (rc == -ENOENT)
        return 0;
    if (rc < 0)
        return rc;
    return asb_cgroup_parse_timens_boottime(buf, len, ns);
}

int asb_cgroup_fs_starttime(pid_t pid, uint64_t *start)
{
    char path[32], buf[1024];
    size_t len;
    if (pid == 0)
        snprintf(path, sizeof(path), "/proc/self/stat");
    else
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int rc = asb_cgroup_fs_read_at(AT_FDCWD, path, buf, sizeof(buf), &len);
    if (rc == -ESRCH)
        rc = -ENOENT; /* exited between open and read */
    if (rc < 0)
        return rc;
    uint64_t raw;
    int64_t off;
    if ((rc = asb_cgroup_parse_stat_starttime(buf, len, &raw)) < 0 ||
        (rc = boottime_offset_ns(&off)) < 0)
        return rc;
    long hz = sysconf(_SC_CLK_TCK);
    int64_t tick = hz > 0 && hz <= 1000000000l ? 1000000000ll / hz : 10000000ll;
    /* The kernel adds the READER's boottime offset to every starttime it shows: a caller in a
     * time namespace named its runs with a starttime no one outside saw, and saw every other
     * owner's shifted, i.e. dead, and reaped their live runs (QA finding). Taken back out, every
     * reader and every tag speak of the host's boot clock. */
    return asb_cgroup_host_starttime(raw, off, tick, start);
}

bool asb_cgroup_fs_start_matches(uint64_t now, uint64_t start)
{
    /* One tick either way: the kernel rounds start + offset, and the offset is taken back out
     * rounded on its own. A recycled pid started within that tick is only a delayed reap. */
    return now + 1 >= start && now <= start + 1;
}

bool asb_cgroup_fs_owner_alive(pid_t pid, uint64_t start)
{
    uint64_t now;
    int rc = asb_cgroup_fs_starttime(pid, &now);
    if (rc == -ENOENT)
        return false;
    if (rc < 0)
        return true;
    return asb_cgroup_fs_start_matches(now, start);
}

static bool pid_listed(const pid_t *pids, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++) {
        if (pids[i] == pid)
            return true;
    }
    return false;
}

/* Signal a batch. A pid read from cgroup.procs may exit and be reused by an unrelated host process
 * before we signal it; a sandboxed program that cycles pids could aim that at something of ours.
 * So: pin each process with a pidfd, re-read cgroup.procs, and signal through the pidfd only those
 * still listed. A pidfd names one process, never its pid's successor, so a process that left in
 * between gets ESRCH, not a stranger. Without pidfd_open (kernel < 5.3) fall back to kill(2). */
static int signal_batch(int dir_fd, const pid_t *pids, size_t n, int sig, char *buf, pid_t *listed)
{
    int pidfds[PROCS_BATCH];
    size_t nfds = 0;
    int signalled = 0, rc = 0;
    for (size_t i = 0; i < n; i++) {
        int pfd = (int)syscall(SYS_pidfd_open, pids[i], 0);
        if (pfd < 0 && errno == ENOSYS) {
            if (kill(pids[i], sig) == 0)
                signalled++;
            else if (errno != ESRCH)
                rc = -errno;
            pidfds[nfds++] = -1;
            continue;
        }
        if (pfd < 0 && errno != ESRCH) {
            rc = -errno;
            goto out;
        }
        pidfds[nfds++] = pfd; /* -1 when already gone */
    }
    size_t len = 0, nlisted;
    int rrc = asb_cgroup_fs_read_at(dir_fd, "cgroup.procs", buf, PROCS_BUF_SIZE, &len);
    if (rrc < 0) {
        rc = rrc == -ENOENT ? 0 : rrc;
        goto out;
    }
    nlisted = asb_cgroup_parse_pids(buf, len, listed, PROCS_MAX);
    for (size_t i = 0; i < nfds; i++) {
        if (pidfds[i] < 0 || !pid_listed(listed, nlisted, pids[i]))
            continue;
        if (syscall(SYS_pidfd_send_signal, pidfds[i], sig, NULL, 0) == 0)
            signalled++;
        else if (errno != ESRCH)
            rc = -errno;
    }
out:
    for (size_t i = 0; i < nfds; i++) {
        if (pidfds[i] >= 0)
            close(pidfds[i]);
    }
    return rc < 0 ? rc : signalled;
}

int asb_cgroup_fs_signal_procs(int dir_fd, int sig)
{
    char buf[PROCS_BUF_SIZE];
    pid_t pids[PROCS_MAX], listed[PROCS_MAX];
    size_t len = 0;
    int rc = asb_cgroup_fs_read_at(dir_fd, "cgroup.procs", buf, sizeof(buf), &len);
    if (rc < 0)
        return rc;
    size_t n = asb_cgroup_parse_pids(buf, len, pids, sizeof(pids) / sizeof(pids[0]));
    int total = 0;
    for (size_t off = 0; off < n; off += PROCS_BATCH) {
        size_t chunk = n - off < PROCS_BATCH ? n - off : PROCS_BATCH;
        int got = signal_batch(dir_fd, pids + off, chunk, sig, buf, listed);
        if (got < 0)
            return got;
        total += got;
    }
    return total;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
    /* An EINTR just shortens one step; the loop is bounded by its own deadline. */
    (void)clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* ENODEV: the directory is being removed right now (kernfs deactivated it), by a concurrent
 * reaper: for us that is the same as already gone. */
static int rmdir_at(int parent_fd, const char *name)
{
    if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0)
        return 0;
    return errno == ENODEV ? -ENOENT : -errno;
}

/* SIGKILL everything in the cgroup once. v2's cgroup.kill also catches processes forked while it
 * runs; v1 (and v2 before 5.14) can only walk cgroup.procs. */
static int kill_once(int dir_fd, bool use_kill_file)
{
    if (use_kill_file) {
        int rc = asb_cgroup_fs_write_at(dir_fd, "cgroup.kill", "1");
        if (rc != -ENOENT)
            return rc;
    }
    int rc = asb_cgroup_fs_signal_procs(dir_fd, SIGKILL);
    return rc < 0 ? rc : 0;
}

int asb_cgroup_fs_remove(int parent_fd, const char *name, bool use_kill_file)
{
    /* Fast path: a finished run's cgroup is empty and goes in one syscall. */
    int rc = rmdir_at(parent_fd, name);
    if (rc != -EBUSY)
        return rc;

    int dir_fd = openat(parent_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir_fd < 0)
        return errno == ENODEV ? -ENOENT : -errno;
    const int64_t deadline = now_ns() + (int64_t)ASB_CGROUP_DRAIN_TIMEOUT_MS * 1000000LL;
    int64_t step = DRAIN_STEP_MIN_NS;
    for (;;) {
        rc = kill_once(dir_fd, use_kill_file);
        if (rc == -ENODEV)
            rc = -ENOENT;
        if (rc < 0 && rc != -ENOENT)
            break;
        sleep_ns(step);
        if (step < DRAIN_STEP_MAX_NS)
            step *= 2;
        rc = rmdir_at(parent_fd, name);
        if (rc != -EBUSY || now_ns() >= deadline)
            break;
    }
    close(dir_fd);
    return rc;
}

int asb_cgroup_fs_block_devices(unsigned (*devs)[2], size_t max, size_t *n)
{
    *n = 0;
    int fd = open("/sys/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return -e;
    }
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            rc = -errno;
            break;
        }
        if (e->d_name[0] == '.')
            continue;
        char path[NAME_MAX + 8], buf[64];
        size_t len;
        uint64_t size;
        snprintf(path, sizeof(path), "%s/size", e->d_name);
        int r = asb_cgroup_fs_read_at(dirfd(d), path, buf, sizeof(buf), &len);
        if (r == -ENOENT)
            continue; /* removed while we looked */
        if (r < 0 || asb_cgroup_parse_u64(buf, len, &size) < 0) {
            rc = r < 0 ? r : -EINVAL;
            break;
        }
        if (size == 0)
            continue; /* no media: nothing to read from */
        snprintf(path, sizeof(path), "%s/dev", e->d_name);
        r = asb_cgroup_fs_read_at(dirfd(d), path, buf, sizeof(buf), &len);
        if (r == -ENOENT)
            continue;
        unsigned maj, min;
        if (r < 0 || asb_cgroup_parse_devnum(buf, len, &maj, &min) < 0) {
            rc = r < 0 ? r : -EINVAL;
            break;
        }
        if (*n >= max) {
            rc = -E2BIG;
            break;
        }
        devs[*n][0] = maj;
        devs[*n][1] = min;
        (*n)++;
    }
    closedir(d);
    return rc;
}
