#include "io/rmtree.h"
#include "core/error.h"
#include "core/plan.h"
#include "io/printable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Attempts at a fresh random name before giving up (a collision is already astronomically rare). */
#define MKDTEMP_ATTEMPTS 16
#define MKDTEMP_RANDOM_BYTES 8
#define RMTREE_MOVE_ATTEMPTS 16
#define RMTREE_MOVE_RANDOM_BYTES 8

/* One open directory on the way down. */
typedef struct rm_level {
    DIR *dir;                /* owns fd */
    int fd;                  /* dirfd(dir) */
    bool worked;             /* this pass removed or moved an entry: scan again before rmdir */
    char name[NAME_MAX + 1]; /* its name in the level above */
} rm_level_t;

typedef struct rm_walk {
    rm_level_t *lv; /* [ASB_RMTREE_MAX_OPEN_DIRS] */
    size_t depth;   /* open levels; lv[0] is the top of the tree */
    char top[96];   /* printable name of the top, for messages */
    asb_error_t *err;
} rm_walk_t;

/* A single path component: no '/', not "." or "..". Control characters are allowed here because
 * the tree's own entries are named by the workload. */
static bool single_component(const char *name)
{
    return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 &&
           strcmp(name, "..") != 0 && strlen(name) <= NAME_MAX;
}

static int walk_fail(rm_walk_t *w, int e, const char *what, const char *entry)
{
    char shown[96];
    return asb_err_sys(w->err, e, "rmtree '%s': %s '%s'", w->top, what,
                       asb_printable(entry, shown, sizeof(shown)));
}

/* Open the directory parent/name without following a symlink and without entering another
 * mount. A directory we may not enter is chmod'ed to 0700 once (its owner or root can), without
 * following a symlink planted in its place. Returns an fd or -errno (-ENOTDIR/-ELOOP: not a
 * directory). */
static int open_subdir(int parent, const char *name)
{
    struct open_how how = {
        .flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
    };
    bool chmodded = false;
    for (;;) {
        long fd = syscall(SYS_openat2, parent, name, &how, sizeof(how));
        if (fd >= 0)
            return (int)fd;
        int e = errno;
        if (e == EINTR)
            continue;
        if (e == EACCES && !chmodded) {
            chmodded = true;
            if (fchmodat(parent, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) == 0)
                continue;
        }
        return -e;
    }
}

/* Make sure we can list and empty an opened directory (a workload plants mode 000 or 0500). */
static void grant_owner_rwx(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && (st.st_mode & S_IRWXU) != S_IRWXU)
        (void)fchmod(fd, S_IRWXU); /* EPERM: not ours; the unlink that follows reports it */
}

static int push_level(rm_walk_t *w, int fd, const char *name)
{
    grant_owner_rwx(fd);
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return walk_fail(w, e, "fdopendir", name);
    }
    rm_level_t *l = &w->lv[w->depth++];
    l->dir = d;
    l->fd = fd;
    l->worked = false;
    snprintf(l->name, sizeof(l->name), "%s", name);
    return 0;
}

/* The fd budget is spent: move the subdirectory up to the top of the tree, to be removed from
 * there. This is how a hostile 100000-deep chain is removed with ASB_RMTREE_MAX_OPEN_DIRS fds.
 * The new name is random: the workload cannot pre-create the names a counter would use and make
 * every move collide. */
static int move_to_top(rm_walk_t *w, rm_level_t *cur, const char *name)
{
    bool chmodded = false;
    for (unsigned attempt = 0; attempt < RMTREE_MOVE_ATTEMPTS;) {
        char hex[2 * RMTREE_MOVE_RANDOM_BYTES + 1], moved[64];
        int rc = asb_random_hex(hex, RMTREE_MOVE_RANDOM_BYTES, w->err);
        if (rc < 0)
            return asb_err_wrap(w->err, "rmtree '%s': move up", w->top);
        snprintf(moved, sizeof(moved), ".asb-rmtree-%s", hex);
        if (renameat2(cur->fd, name, w->lv[0].fd, moved, RENAME_NOREPLACE) == 0) {
            w->lv[0].worked = true;
            cur->worked = true;
            return 0;
        }
        int e = errno;
        if (e == ENOENT)
            return 0;
        if (e == EEXIST) {
            attempt++;
            continue;
        }
        /* Moving a directory to a new parent rewrites its "..": it needs write permission. */
        if (e == EACCES && !chmodded) {
            chmodded = true;
            if (fchmodat(cur->fd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) == 0)
                continue;
        }
        return walk_fail(w, e, "move up", name);
    }
    return walk_fail(w, EEXIST, "move up", name);
}

static int remove_entry(rm_walk_t *w, rm_level_t *cur, const struct dirent *de)
{
    const char *name = de->d_name;
    bool is_dir = de->d_type == DT_DIR;
    if (de->d_type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(cur->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            return errno == ENOENT ? 0 : walk_fail(w, errno, "stat", name);
        is_dir = S_ISDIR(st.st_mode);
    }
    if (!is_dir) {
        /* unlink never follows: a symlink to a host file loses the link, not the file. */
        if (unlinkat(cur->fd, name, 0) == 0 || errno == ENOENT) {
            cur->worked = true;
            return 0;
        }
        if (errno != EISDIR)
            return walk_fail(w, errno, "unlink", name);
        /* It became a directory since readdir: remove it as one. */
    }
    if (w->depth == ASB_RMTREE_MAX_OPEN_DIRS)
        return move_to_top(w, cur, name);
    int fd = open_subdir(cur->fd, name);
    if (fd == -ENOENT)
        return 0;
    if (fd == -ENOTDIR || fd == -ELOOP) {
        if (unlinkat(cur->fd, name, 0) == 0 || errno == ENOENT) {
            cur->worked = true;
            return 0;
        }
        return walk_fail(w, errno, "unlink", name);
    }
    if (fd == -EXDEV)
        return walk_fail(w, EXDEV, "mount point inside the tree, not entered:", name);
    if (fd < 0)
        return walk_fail(w, -fd, "open directory", name);
    return push_level(w, fd, name);
}

/* Readdir the deepest open level once more; at its end remove it from its parent. */
static int walk_step(rm_walk_t *w, int top_parent)
{
    rm_level_t *cur = &w->lv[w->depth - 1];
    errno = 0;
    struct dirent *de = readdir(cur->dir);
    if (de) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            return 0;
        return remove_entry(w, cur, de);
    }
    if (errno != 0)
        return walk_fail(w, errno, "readdir", cur->name);
    if (cur->worked) {
        /* Entries removed (or moved in) during a scan: scan once more until one finds nothing. */
        cur->worked = false;
        rewinddir(cur->dir);
        return 0;
    }
    char name[NAME_MAX + 1];
    snprintf(name, sizeof(name), "%s", cur->name);
    closedir(cur->dir);
    cur->dir = NULL;
    w->depth--;
    int parent = w->depth > 0 ? w->lv[w->depth - 1].fd : top_parent;
    if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return walk_fail(w, errno, "rmdir", name);
    if (w->depth > 0)
        w->lv[w->depth - 1].worked = true;
    return 0;
}

int asb_rmtree_at(int parent_dirfd, const char *name, asb_error_t *err)
{
    char shown[96];
    if (!single_component(name))
        return asb_err(err, -EINVAL, "rmtree '%s': not a single path component",
                       asb_printable(name, shown, sizeof(shown)));
    asb_printable(name, shown, sizeof(shown));

    int fd = open_subdir(parent_dirfd, name);
    if (fd == -ENOTDIR || fd == -ELOOP) {
        if (unlinkat(parent_dirfd, name, 0) < 0)
            return asb_err_sys(err, errno, "rmtree '%s': unlink", shown);
        return 0;
    }
    if (fd < 0)
        return asb_err_sys(err, -fd, "rmtree '%s': open", shown);

    rm_walk_t w = {.err = err};
    snprintf(w.top, sizeof(w.top), "%s", shown);
    w.lv = calloc(ASB_RMTREE_MAX_OPEN_DIRS, sizeof(*w.lv));
    if (!w.lv) {
        close(fd);
        return asb_err_sys(err, ENOMEM, "rmtree '%s'", shown);
    }
    int rc = push_level(&w, fd, name);
    while (rc == 0 && w.depth > 0)
        rc = walk_step(&w, parent_dirfd);
    while (w.depth > 0)
        closedir(w.lv[--w.depth].dir);
    free(w.lv);
    return rc;
}

int asb_mkdtemp_owned(const char *parent, const char *prefix, char *out_path, size_t out_len,
                      int *out_dirfd, asb_error_t *err)
{
    if (out_dirfd)
        *out_dirfd = -1;
    if (!parent || !*parent || !out_path || out_len == 0)
        return asb_err(err, -EINVAL, "mkdtemp: missing parent or output buffer");
    if (!prefix)
        prefix = "";
    if (strchr(prefix, '/') || strlen(prefix) > NAME_MAX - 2 * MKDTEMP_RANDOM_BYTES)
        return asb_err(err, -EINVAL, "mkdtemp: bad prefix");
    const char *sep = parent[strlen(parent) - 1] == '/' ? "" : "/";

    int pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return asb_err_sys(err, errno, "mkdtemp: open %s", parent);
    int rc, fd = -1;
    bool made = false;
    char name[NAME_MAX + 1];
    for (unsigned attempt = 0;; attempt++) {
        char hex[2 * MKDTEMP_RANDOM_BYTES + 1];
        if ((rc = asb_random_hex(hex, MKDTEMP_RANDOM_BYTES, err)) < 0)
            goto out;
        snprintf(name, sizeof(name), "%s%s", prefix, hex);
        int n = snprintf(out_path, out_len, "%s%s%s", parent, sep, name);
        if (n < 0 || (size_t)n >= out_len) {
            rc = asb_err(err, -ENAMETOOLONG, "mkdtemp: path under %s does not fit", parent);
            goto out;
        }
        if (mkdirat(pfd, name, S_IRWXU) == 0) {
            made = true;
            break;
        }
        if (errno != EEXIST || attempt + 1 >= MKDTEMP_ATTEMPTS) {
            rc = asb_err_sys(err, errno, "mkdtemp: mkdir %s", out_path);
            goto out;
        }
    }
    do {
        fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        rc = asb_err_sys(err, errno, "mkdtemp: open %s", out_path);
        goto out;
    }
    /* In a world-writable parent without the sticky bit another user could swap the name; the
     * fd must be the directory we made, ours, and exactly 0700 whatever the umask. */
    struct stat st;
    if (fstat(fd, &st) < 0) {
        rc = asb_err_sys(err, errno, "mkdtemp: fstat %s", out_path);
        goto out;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
        made = false; /* not ours to remove */
        rc = asb_err(err, -EPERM, "mkdtemp: %s was replaced by another owner", out_path);
        goto out;
    }
    if (fchmod(fd, S_IRWXU) < 0) {
        rc = asb_err_sys(err, errno, "mkdtemp: chmod %s", out_path);
        goto out;
    }
    rc = 0;
out:
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        fd = -1;
        if (made)
            (void)unlinkat(pfd, name, AT_REMOVEDIR);
        out_path[0] = '\0';
    }
    close(pfd);
    if (out_dirfd)
        *out_dirfd = fd;
    else if (fd >= 0)
        close(fd);
    return rc;
}
