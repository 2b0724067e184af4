/* outfile.c - where the CLI writes its artifacts (--out, --plot, results/latency.json).
 *
 * The CLI runs as root, often inside a checkout it did not write. So an output path is never a
 * way to overwrite something else:
 *  - only a regular file (or a new one) is replaced, and always by writing a new file beside it
 *    and renaming it over: a symlink, device, FIFO or directory there is refused (naming it), and
 *    a hard link to another file only loses its name, the other file is untouched;
 *  - a relative path walks its directories without following symlinks, creating missing ones
 *    (so the default results/latency.json just works); a symlinked directory is refused;
 *  - an absolute path is the caller's explicit choice: its longest existing directory is opened
 *    as given, and the directories missing below it are made and walked as for a relative
 *    path.
 * "-" is standard output. The checks run before any work (cli_output_check) and again when
 * writing, on the directory fd actually used. Red-team finding: chaos --out, latency --out and
 * --plot followed symlinks with fopen. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* Walk the directories of rel (up to end) below dirfd without following symlinks, making
 * missing ones when create. Consumes dirfd; the directory's O_PATH fd, -1 after an error
 * (printed), -2 when one is missing and !create. */
static int walk_down(const char *flag, const char *path, int dirfd, const char *rel,
                     const char *end, bool create)
{
    const char *p = rel;
    while (p < end) {
        const char *slash = memchr(p, '/', (size_t)(end - p));
        size_t len = slash ? (size_t)(slash - p) : (size_t)(end - p);
        const char *next = slash ? slash + 1 : end;
        if (len == 0 || (len == 1 && p[0] == '.')) {
            p = next;
            continue;
        }
        char comp[256];
        if (len >= sizeof(comp)) {
            cli_error("%s '%s': a directory name is too long", flag, path);
            close(dirfd);
            return -1;
        }
        memcpy(comp, p, len);
        comp[len] = '\0';
        if (create && mkdirat(dirfd, comp, 0755) < 0 && errno != EEXIST) {
            cli_error("%s '%s': cannot create directory '%s' (%s)", flag, path, comp,
                      strerror(errno));
            close(dirfd);
            return -1;
        }
        int fd = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(dirfd);
        if (fd < 0 && e == ENOENT && !create)
            return -2; /* made when writing; nothing below it exists yet either */
        if (fd < 0 && (e == ENOTDIR || e == ELOOP)) {
            cli_error("%s '%s': '%s' is a symlink or not a directory (a symlink is never "
                      "followed here)",
                      flag, path, comp);
            return -1;
        }
        if (fd < 0) {
            cli_error("%s '%s': open directory '%s': %s", flag, path, comp, strerror(e));
            return -1;
        }
        dirfd = fd;
        p = next;
    }
    return dirfd;
}

/* The directory that will hold path's last component, as an O_PATH fd; *base points into path
 * at that component. A relative path's directories are walked from the current directory
 * without following symlinks; an absolute path's longest existing directory is the caller's
 * explicit choice and opened as given, and what is missing below it is made (create) and
 * walked like a relative path. -2: a directory is missing and !create. */
static int open_parent(const char *flag, const char *path, bool create, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (**base == '\0' || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0) {
        cli_error("%s '%s': not a file name", flag, path);
        return -1;
    }
    if (path[0] != '/') {
        int dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0) {
            cli_error("%s '%s': current directory: %s", flag, path, strerror(errno));
            return -1;
        }
        return walk_down(flag, path, dirfd, path, *base, create);
    }
    size_t dlen = (size_t)(slash - path);
    char *dir = strndup(path, dlen ? dlen : 1);
    if (!dir) {
        cli_error("%s: out of memory", flag);
        return -1;
    }
    /* The longest existing prefix of the directory part. */
    size_t have = strlen(dir);
    int fd;
    for (;;) {
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT || have <= 1)
            break;
        char *cut = strrchr(dir, '/');
        if (!cut)
            break;
        have = cut == dir ? 1 : (size_t)(cut - dir);
        dir[have] = '\0';
    }
    if (fd < 0) {
        cli_error("%s '%s': directory %s: %s", flag, path, dir, strerror(errno));
        free(dir);
        return -1;
    }
    free(dir);
    return walk_down(flag, path, fd, path + have, *base, create);
}

/* 0 when base in dirfd is absent or a regular file. */
static int check_target(const char *flag, const char *path, int dirfd, const char *base)
{
    struct stat st;
    if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            return 0;
        cli_error("%s '%s': %s", flag, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("%s '%s': not a regular file (a symlink, device, directory or FIFO is never "
                  "replaced; use - for standard output)",
                  flag, path);
        return -1;
    }
    return 0;
}

int cli_output_check(const char *flag, const char *path)
{
    if (!path || strcmp(path, "-") == 0)
        return 0;
    const char *base;
    int dirfd = open_parent(flag, path, false, &base);
    if (dirfd == -2)
        return 0; /* a directory still to be made: nothing in it to check */
    if (dirfd < 0)
        return -1;
    int rc = check_target(flag, path, dirfd, base);
    /* A directory where a new file cannot be made (/proc, /sys, a read-only mount, no write
     * permission) is refused now, not after the study's work (QA finding). */
    struct statfs sf;
    if (rc == 0 && fstatfs(dirfd, &sf) == 0 &&
        (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC)) {
        cli_error("%s '%s': under /proc or /sys, not a place for a file", flag, path);
        rc = -1;
    } else if (rc == 0 && faccessat(dirfd, ".", W_OK, AT_EACCESS) < 0) {
        cli_error("%s '%s': its directory is not writable (%s)", flag, path, strerror(errno));
        rc = -1;
    }
    close(dirfd);
    return rc;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int cli_output_write_line(const char *flag, const char *path, const char *text)
{
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    if (!buf) {
        cli_error("%s: out of memory", flag);
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = '\n';
    int rc = cli_output_write(flag, path, buf, len + 1);
    free(buf);
    return rc;
}

int cli_output_write(const char *flag, const char *path, const void *data, size_t len)
{
    if (!path || strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            cli_error("%s: standard output: %s", flag, strerror(errno));
            return -1;
        }
        return 0;
    }
    const char *base;
    int dirfd = open_parent(flag, path, true, &base);
    if (dirfd < 0)
        return -1;
    if (check_target(flag, path, dirfd, base) < 0) {
        close(dirfd);
        return -1;
    }
    char tmp[300];
    unsigned char r[6];
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        cli_error("%s '%s': no random name for the temporary file", flag, path);
        close(dirfd);
        return -1;
    }
    snprintf(tmp, sizeof(tmp), ".%.200s.tmp%02x%02x%02x%02x%02x%02x", base, r[0], r[1], r[2], r[3],
             r[4], r[5]);
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        cli_error("%s '%s': %s", flag, path, strerror(errno));
        close(dirfd);
        return -1;
    }
    int rc = write_all(fd, data, len);
    if (rc == 0 && fchmod(fd, 0644) < 0)
        rc = -1;
    if (close(fd) < 0)
        rc = -1;
    if (rc == 0 && renameat(dirfd, tmp, dirfd, base) < 0)
        rc = -1;
    if (rc < 0) {
        cli_error("%s '%s': %s", flag, path, strerror(errno));
        unlinkat(dirfd, tmp, 0);
    }
    close(dirfd);
    return rc;
}
