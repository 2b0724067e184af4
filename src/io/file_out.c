#include "io/file_out.h"
#include "core/plan.h"
#include "io/printable.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FILE_OUT_REFUSED 1

/* Resolution stays inside the workspace: no "..", no absolute paths, no symlinks (ELOOP), no
 * /proc magic links, no crossing into another mount. */
#define FILE_OUT_RESOLVE                                                                           \
    (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

static int say(char *why, size_t why_len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(char *why, size_t why_len, int rc, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* openat2 with the workspace resolution rules; returns an fd or -errno. */
static int open_beneath(int dirfd, const char *name, uint64_t flags)
{
    struct open_how how = {.flags = flags, .mode = 0, .resolve = FILE_OUT_RESOLVE};
    long fd;
    do {
        fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
    } while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : (int)fd;
}

/* An open that failed: the workload's doing (a refusal) or ours (an internal error). */
static int open_failure(int e, char *why, size_t why_len)
{
    switch (e) {
    case ELOOP:
        return say(why, why_len, FILE_OUT_REFUSED, "symlink refused");
    case ENOENT:
        return say(why, why_len, FILE_OUT_REFUSED, "no such file");
    case EXDEV:
        return say(why, why_len, FILE_OUT_REFUSED, "mount point refused");
    case EACCES:
    case EPERM:
        return say(why, why_len, FILE_OUT_REFUSED, "permission denied");
    case ENXIO:
    case ENODEV:
        /* A socket or a device without a driver: never a regular file. */
        return say(why, why_len, FILE_OUT_REFUSED, "not a regular file (special file)");
    case ENOSYS:
        /* A weaker open (O_NOFOLLOW alone) would follow a symlinked directory component; there
         * is no such fallback. */
        return say(why, why_len, -ENOSYS, "openat2 unavailable: refusing to read outputs");
    default:
        return say(why, why_len, -e, "openat2 (%s)", strerror(e));
    }
}

/* 0 when st describes a file we may read, FILE_OUT_REFUSED otherwise. */
static int check_stat(const struct stat *st, uint64_t cap, char *why, size_t why_len)
{
    if (S_ISLNK(st->st_mode))
        return say(why, why_len, FILE_OUT_REFUSED, "symlink refused");
    if (!S_ISREG(st->st_mode))
        return say(why, why_len, FILE_OUT_REFUSED, "not a regular file (%s)",
                   asb_file_type_name(st->st_mode));
    /* A hard link to a host file the workload could read but not copy out (a mounted secret, a
     * file of the harness in a shared filesystem) must not be exported under a workspace name. */
    if (st->st_nlink == 0)
        return say(why, why_len, FILE_OUT_REFUSED, "file removed while being read");
    if (st->st_nlink != 1)
        return say(why, why_len, FILE_OUT_REFUSED, "hard link refused (%ju links)",
                   (uintmax_t)st->st_nlink);
    if (st->st_size < 0 || (uint64_t)st->st_size > cap)
        return say(why, why_len, FILE_OUT_REFUSED, "larger than %ju bytes", (uintmax_t)cap);
    return 0;
}

/* Read at most max bytes from fd into a malloc'd buffer (never NULL on success). */
static int read_bounded(int fd, size_t hint, size_t max, unsigned char **out, size_t *out_len,
                        char *why, size_t why_len)
{
    size_t alloc = hint < max ? hint : max, used = 0;
    if (alloc == 0)
        alloc = 1;
    unsigned char *buf = malloc(alloc);
    if (!buf)
        return say(why, why_len, -ENOMEM, "out of memory");
    while (used < max) {
        if (used == alloc) {
            size_t next = alloc > max / 2 ? max : alloc * 2;
            unsigned char *grown = realloc(buf, next);
            if (!grown) {
                free(buf);
                return say(why, why_len, -ENOMEM, "out of memory");
            }
            buf = grown, alloc = next;
        }
        ssize_t n = read(fd, buf + used, alloc - used);
        if (n < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            free(buf);
            if (e == EAGAIN)
                return say(why, why_len, FILE_OUT_REFUSED, "read would block");
            return say(why, why_len, -e, "read (%s)", strerror(e));
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    *out = buf;
    *out_len = used;
    return 0;
}

int asb_file_out_read(int dirfd, const char *name, uint64_t cap, unsigned char **data, size_t *len,
                      char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!data || !len)
        return say(why, why_len, -EINVAL, "no place for the data");
    *data = NULL;
    *len = 0;
    const char *bad = NULL;
    if (!asb_valid_plain_name(name, &bad))
        return say(why, why_len, FILE_OUT_REFUSED, "invalid name (%s)", bad);

    int pathfd = -1, fd = -1, rc;
    struct stat seen, opened;

    /* Look before opening: opening a device node runs its driver's open (a watchdog arms, a tape
     * rewinds) even with O_NONBLOCK, and a workload with CAP_MKNOD in its own namespace can plant
     * one. An O_PATH fd runs no driver code. */
    pathfd = open_beneath(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (pathfd < 0) {
        rc = open_failure(-pathfd, why, why_len);
        goto out;
    }
    if (fstat(pathfd, &seen) < 0) {
        rc = say(why, why_len, -errno, "fstat (%s)", strerror(errno));
        goto out;
    }
    if ((rc = check_stat(&seen, cap, why, why_len)) != 0)
        goto out;

    /* O_NONBLOCK: if the name was swapped for a FIFO since the look, the open must not wait for a
     * writer. The fd's own fstat below is what decides. */
    fd = open_beneath(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        rc = open_failure(-fd, why, why_len);
        goto out;
    }
    if (fstat(fd, &opened) < 0) {
        rc = say(why, why_len, -errno, "fstat (%s)", strerror(errno));
        goto out;
    }
    if ((rc = check_stat(&opened, cap, why, why_len)) != 0)
        goto out;
    if (opened.st_dev != seen.st_dev || opened.st_ino != seen.st_ino) {
        rc = say(why, why_len, FILE_OUT_REFUSED, "file replaced while being read");
        goto out;
    }

    /* One byte past the cap tells "exactly cap" from "more": a file that grew after the fstat is
     * refused, never silently truncated. */
    size_t max = cap >= (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)cap + 1;
    size_t hint = (size_t)opened.st_size + 1;
    size_t got = 0;
    unsigned char *buf = NULL;
    if ((rc = read_bounded(fd, hint, max, &buf, &got, why, why_len)) != 0)
        goto out;
    if ((uint64_t)got > cap) {
        free(buf);
        rc = say(why, why_len, FILE_OUT_REFUSED, "larger than %ju bytes", (uintmax_t)cap);
        goto out;
    }
    *data = buf;
    *len = got;
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    if (pathfd >= 0)
        close(pathfd);
    return rc;
}
