#include "io/file_in.h"
#include "core/error.h"
#include "io/printable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* Largest single copy request; the kernel caps it near 2 GiB anyway. */
#define COPY_MAX_REQUEST (1u << 30)
#define COPY_RW_CHUNK 65536

const char *asb_pseudo_fs_name(int fd)
{
    /* Kernel interfaces that look like regular files: their size says nothing (0), they make
     * their text when read, and some block a read until the kernel has something to say
     * (tracefs trace_pipe, /proc/kmsg, debugfs files) whatever O_NONBLOCK asks (QA finding: a
     * file-in of trace_pipe hung the CLI). */
    static const struct {
        unsigned long magic;
        const char *name;
    } pseudo[] = {{PROC_SUPER_MAGIC, "procfs"},
                  {SYSFS_MAGIC, "sysfs"},
                  {TRACEFS_MAGIC, "tracefs"},
                  {DEBUGFS_MAGIC, "debugfs"},
                  {SECURITYFS_MAGIC, "securityfs"},
                  {BPF_FS_MAGIC, "bpf"},
                  {PSTOREFS_MAGIC, "pstore"},
                  {EFIVARFS_MAGIC, "efivarfs"},
                  {SELINUX_MAGIC, "selinuxfs"},
                  {SMACK_MAGIC, "smackfs"},
                  {BINFMTFS_MAGIC, "binfmt_misc"},
                  {NSFS_MAGIC, "nsfs"},
                  {CGROUP_SUPER_MAGIC, "cgroupfs"},
                  {CGROUP2_SUPER_MAGIC, "cgroup2"},
                  {0x62656570 /* CONFIGFS_MAGIC */, "configfs"}};
    struct statfs sf;
    if (fstatfs(fd, &sf) < 0)
        return NULL;
    for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
        if ((unsigned long)sf.f_type == pseudo[i].magic)
            return pseudo[i].name;
    return NULL;
}

int asb_file_in_open(const char *host_path, uint64_t cap, int *fd, uint64_t *size, asb_error_t *err)
{
    if (fd)
        *fd = -1;
    if (!host_path || !*host_path || !fd)
        return asb_err(err, -EINVAL, "file-in: missing path");
    char shown[512];
    asb_printable(host_path, shown, sizeof(shown));

    /* O_NONBLOCK: opening a FIFO for reading waits for a writer, which would hang the harness on
     * a path the caller did not know was one. O_NOCTTY: a terminal never becomes ours. */
    int f;
    do {
        f = open(host_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    } while (f < 0 && errno == EINTR);
    if (f < 0)
        return asb_err_sys(err, errno, "file-in '%s'", shown);
    int rc;
    struct stat st;
    if (fstat(f, &st) < 0) {
        rc = asb_err_sys(err, errno, "file-in '%s': fstat", shown);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = asb_err(err, -EINVAL, "file-in '%s': not a regular file (%s)", shown,
                     asb_file_type_name(st.st_mode));
        goto fail;
    }
    /* /proc and /sys files say size 0 and produce their text only when read: they cannot be
     * copied by size (the copy failed with a bare "Invalid argument"; red-team finding), and
     * some kernel files block a read for ever (asb_pseudo_fs_name). */
    const char *pseudo = asb_pseudo_fs_name(f);
    if (pseudo) {
        rc = asb_err(err, -EINVAL,
                     "file-in '%s': a kernel pseudo-file on %s (copy its contents to a regular "
                     "file first)",
                     shown, pseudo);
        goto fail;
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > cap) {
        rc = asb_err(err, -EFBIG, "file-in '%s': larger than %ju bytes", shown, (uintmax_t)cap);
        goto fail;
    }
    /* Readable at all: a file host root may open but not read (a write-only control file on a
     * file system we do not list above) failed only in the copy, as an error of the run instead
     * of the caller's (QA finding). One byte at offset 0; nothing is consumed. */
    unsigned char probe;
    ssize_t got;
    do
        got = pread(f, &probe, 1, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        rc = asb_err_sys(err, errno, "file-in '%s': cannot be read", shown);
        goto fail;
    }
    /* The copy itself must not see EAGAIN (regular files never block; this keeps it simple). */
    int flags = fcntl(f, F_GETFL);
    if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0) {
        rc = asb_err_sys(err, errno, "file-in '%s': fcntl", shown);
        goto fail;
    }
    *fd = f;
    if (size)
        *size = (uint64_t)st.st_size;
    return 0;
fail:
    close(f);
    return rc;
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

static int write_all(int out, const unsigned char *buf, size_t n, asb_error_t *err);

int asb_file_in_snapshot(const char *host_path, uint64_t cap, int *fd, uint64_t *size,
                         asb_error_t *err)
{
    *fd = -1;
    int in;
    uint64_t declared;
    int rc = asb_file_in_open(host_path, cap, &in, &declared, err);
    if (rc < 0)
        return rc;
    char shown[512];
    asb_printable(host_path, shown, sizeof(shown));
    int m = memfd_create("file-in", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (m < 0 && errno == EINVAL)
        m = memfd_create("file-in", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m < 0) {
        rc = asb_err_sys(err, errno, "file-in '%s': memfd", shown);
        close(in);
        return rc;
    }
    /* read(), not the size: cap + 1 bytes at most, so a larger or growing file is refused.
     * Without blocking: a regular file never says EAGAIN, a file that would is refused. */
    int fl = fcntl(in, F_GETFL);
    if (fl < 0 || fcntl(in, F_SETFL, fl | O_NONBLOCK) < 0) {
        rc = asb_err_sys(err, errno, "file-in '%s': fcntl", shown);
        close(in);
        close(m);
        return rc;
    }
    unsigned char *buf = malloc(COPY_RW_CHUNK); /* not on a caller thread's stack (capture.c) */
    if (!buf) {
        close(in);
        close(m);
        return asb_err_sys(err, ENOMEM, "file-in '%s': buffer", shown);
    }
    /* The copy is written in the caller's name: past its soft RLIMIT_FSIZE the write would
     * raise SIGXFSZ. asb_run checked the file's size against it, but the file may have grown
     * since (review finding: a library caller killed mid-run, its cgroup left). */
    struct rlimit fsz;
    uint64_t fsize_cap = UINT64_MAX;
    if (getrlimit(RLIMIT_FSIZE, &fsz) == 0 && fsz.rlim_cur != RLIM_INFINITY)
        fsize_cap = (uint64_t)fsz.rlim_cur;
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(in, buf, COPY_RW_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            rc = asb_err(err, -EAGAIN, "file-in '%s': its read would wait (not a plain file)",
                         shown);
            break;
        }
        if (n < 0) {
            rc = asb_err_sys(err, errno, "file-in '%s': read", shown);
            break;
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        if (total > cap) {
            rc = asb_err(err, -EFBIG, "file-in '%s': larger than %ju bytes", shown, (uintmax_t)cap);
            break;
        }
        if (total > fsize_cap) {
            rc = asb_err(err, -EFBIG,
                         "file-in '%s': grew past the caller's RLIMIT_FSIZE soft limit (%ju "
                         "bytes) while it was copied",
                         shown, (uintmax_t)fsize_cap);
            break;
        }
        if ((rc = write_all(m, buf, (size_t)n, err)) < 0)
            break;
    }
    free(buf);
    close(in);
    if (rc == 0 &&
        (fcntl(m, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
         lseek(m, 0, SEEK_SET) != 0))
        rc = asb_err_sys(err, errno, "file-in '%s': seal", shown);
    if (rc < 0) {
        close(m);
        return rc;
    }
    *fd = m;
    if (size)
        *size = total;
    return 0;
}

typedef enum copy_mode { COPY_RANGE, COPY_SENDFILE, COPY_READ_WRITE } copy_mode_t;

static int write_all(int out, const unsigned char *buf, size_t n, asb_error_t *err)
{
    while (n > 0) {
        ssize_t w = write(out, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return asb_err_sys(err, errno, "copy: write");
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One read and its full write. Returns bytes copied (0 at EOF) or a negative code. */
static ssize_t copy_chunk_rw(int in, int out, size_t want, asb_error_t *err)
{
    unsigned char *buf = malloc(COPY_RW_CHUNK); /* not on a caller thread's stack (capture.c) */
    if (!buf)
        return asb_err_sys(err, ENOMEM, "copy: buffer");
    if (want > COPY_RW_CHUNK)
        want = COPY_RW_CHUNK;
    ssize_t n;
    do {
        n = read(in, buf, want);
    } while (n < 0 && errno == EINTR);
    int rc = n < 0 ? asb_err_sys(err, errno, "copy: read") : write_all(out, buf, (size_t)n, err);
    free(buf);
    return rc < 0 ? rc : n;
}

/* The kernel-side copies decline some fd pairs (pipes, sockets, O_APPEND, old kernels): these
 * errors mean "use the next method", not "the copy failed". */
static bool copy_unsupported(int e)
{
    return e == EXDEV || e == EINVAL || e == ENOSYS || e == EOPNOTSUPP || e == EBADF ||
           e == ETXTBSY || e == EPERM;
}

int asb_copy_fd(int in, int out, uint64_t max, asb_error_t *err)
{
    copy_mode_t mode = COPY_RANGE;
    uint64_t done = 0;
    while (done < max) {
        uint64_t left = max - done;
        size_t want = left < COPY_MAX_REQUEST ? (size_t)left : COPY_MAX_REQUEST;
        ssize_t n;
        if (mode == COPY_READ_WRITE) {
            n = copy_chunk_rw(in, out, want, err);
            if (n < 0)
                return (int)n;
        } else {
            n = mode == COPY_RANGE ? copy_file_range(in, NULL, out, NULL, want, 0)
                                   : sendfile(out, in, NULL, want);
            if (n < 0) {
                int e = errno;
                if (e == EINTR)
                    continue;
                if (copy_unsupported(e)) {
                    mode = mode == COPY_RANGE ? COPY_SENDFILE : COPY_READ_WRITE;
                    continue;
                }
                return asb_err_sys(err, e, "copy: %s",
                                   mode == COPY_RANGE ? "copy_file_range" : "sendfile");
            }
            /* Files whose size is not known up front (procfs, sysfs) report 0 here on some
             * kernels; only a read(2) tells EOF for sure. */
            if (n == 0 && done == 0) {
                mode = COPY_READ_WRITE;
                continue;
            }
        }
        if (n == 0)
            return 0;
        done += (uint64_t)n;
    }
    /* Exactly max copied: one more byte means the source was larger than allowed. */
    unsigned char probe;
    ssize_t n;
    do {
        n = read(in, &probe, 1);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return asb_err_sys(err, errno, "copy: read");
    if (n > 0)
        return asb_err(err, -EFBIG, "copy: more than %ju bytes", (uintmax_t)max);
    return 0;
}
