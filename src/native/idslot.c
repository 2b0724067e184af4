/* idslot.c - host id ranges per live sandbox, held with flock (see idslot.h). */
#include "native/idslot.h"

#include "core/limits.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* One directory level of the slot path, made if missing, which must be root's and writable by
 * nobody else (mask: the mode bits that must be clear). Opened without following links. */
static int trusted_dir(int at, const char *name, const char *path, mode_t mask, asb_error_t *err)
{
    int made = mkdirat(at, name, 0700) == 0 ? 0 : errno;
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && geteuid() != 0)
        return asb_err_sys(err, errno, "id slots: open %s (native sandboxes need root)", path);
    /* Missing because it could not be made (a read-only /run): say why (QA finding: "No such
     * file or directory"), still as ENOENT, which the reaper takes as "nothing to reap". */
    if (fd < 0 && errno == ENOENT && made && made != EEXIST)
        return asb_err(err, -ENOENT, "id slots: cannot create %s (%s)", path, strerror(made));
    if (fd < 0)
        return asb_err_sys(err, errno, "id slots: open %s", path);
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & mask)) {
        close(fd);
        return asb_err(err, -EPERM, "id slots: %s must be root's and writable only by root", path);
    }
    return fd;
}

/* /run/agent-sandbox/idslots, each level checked: anyone else able to write a level could move
 * the directory away and have slots handed out twice, or swap lock files (review finding). */
static int slot_dir(asb_error_t *err)
{
    int run = open("/run", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (run < 0)
        return asb_err_sys(err, errno, "id slots: open /run");
    int top = trusted_dir(run, "agent-sandbox", "/run/agent-sandbox", 022, err);
    close(run);
    if (top < 0)
        return top;
    int dir = trusted_dir(top, "idslots", ASB_USERNS_SLOT_DIR, 077, err);
    close(top);
    return dir;
}

/* Does `name` in dir still lead to the file open at fd? Only a slot's lock holder unlinks its
 * name, so once we hold the lock and this holds, the name is ours until we let go. */
static bool same_file(int dir, const char *name, int fd)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
           a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* Lock slot k: open (or create) its file, flock it, and check that the name still leads to the
 * locked file (a releaser may have unlinked it between our open and our lock). 1 taken, 0 busy,
 * <0 error. */
static int try_slot(int dir, uint32_t k, int *out)
{
    char name[16];
    snprintf(name, sizeof(name), "%u", k);
    int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        return e == EWOULDBLOCK ? 0 : -e;
    }
    if (!same_file(dir, name, fd)) {
        close(fd); /* unlinked under us: someone else may lock the new file; not ours */
        return 0;
    }
    *out = fd;
    return 1;
}

int asb_idslot_take(asb_idslot_t *s, asb_error_t *err)
{
    s->fd = s->dir = -1;
    int dir = slot_dir(err);
    if (dir < 0)
        return dir;
    uint32_t start = 0;
    if (getrandom(&start, sizeof(start), 0) != (ssize_t)sizeof(start))
        start = (uint32_t)getpid();
    int rc = 0;
    for (uint32_t i = 0; i < ASB_USERNS_SLOTS; i++) {
        uint32_t k = (start + i) % ASB_USERNS_SLOTS;
        int fd = -1;
        rc = try_slot(dir, k, &fd);
        if (rc < 0)
            break;
        if (rc == 1) {
            s->fd = fd;
            s->dir = dir;
            s->slot = k;
            s->base = ASB_USERNS_HOST_BASE + k * ASB_USERNS_RANGE;
            s->owner = ASB_USERNS_OWNER_BASE + k;
            /* Name the lock file's holder, for people looking at the directory: fixed width at
             * offset 0, no truncation (on ext4 a truncated-then-written file is flushed on close:
             * 0.4 ms of every run when /run is not a tmpfs). */
            char pid[16];
            int n = snprintf(pid, sizeof(pid), "%-11d\n", (int)getpid());
            if (pwrite(fd, pid, (size_t)n, 0) != n)
                (void)0; /* only informative */
            return 0;
        }
    }
    close(dir);
    if (rc < 0)
        return asb_err_sys(err, -rc, "id slots: lock a slot in %s", ASB_USERNS_SLOT_DIR);
    return asb_err(err, -EAGAIN, "id slots: all %u host id ranges are in use",
                   (unsigned)ASB_USERNS_SLOTS);
}

void asb_idslot_release(asb_idslot_t *s)
{
    if (s->fd < 0)
        return;
    /* Unlink while still holding the lock (try_slot checks for that), through the directory
     * checked at take, then unlock by closing: nothing is left by a sandbox that ended. */
    char name[16];
    snprintf(name, sizeof(name), "%u", s->slot);
    if (same_file(s->dir, name, s->fd))
        (void)unlinkat(s->dir, name, 0);
    close(s->fd);
    close(s->dir);
    s->fd = s->dir = -1;
}

int asb_idslot_reap(asb_error_t *err)
{
    asb_error_t local;
    if (!err)
        err = &local;
    int dir = slot_dir(err);
    if (dir < 0) {
        /* No directory (and none could be made: a read-only /run) holds no slot to reap. */
        if (err->code == -ENOENT)
            return 0;
        return dir;
    }
    int dfd = fcntl(dir, F_DUPFD_CLOEXEC, 0), removed = 0, failed = 0, last = 0;
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        close(dir);
        return asb_err_sys(err, e, "id slots: read %s", ASB_USERNS_SLOT_DIR);
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        /* O_NONBLOCK and only regular files: nothing planted here can hang us. */
        int fd = openat(dir, e->d_name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            /* Gone meanwhile, or not a slot file (a directory, a link): nothing to reap. A file
             * we may not open (a read-only /run, no permission) is one we could not examine. */
            if (errno == EROFS || errno == EACCES || errno == EPERM)
                failed++, last = errno;
            continue;
        }
        struct stat st;
        /* Locked by nobody: its holder died. Removed only if the name still leads to the file we
         * locked: a holder may have released it and a new sandbox made and locked another file
         * under that name in between (review finding: the reaper removed a live slot). */
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            same_file(dir, e->d_name, fd)) {
            if (unlinkat(dir, e->d_name, 0) == 0)
                removed++;
            else
                failed++, last = errno; /* a dead owner's lock we could not remove */
        }
        close(fd);
    }
    closedir(d);
    close(dir);
    if (failed)
        return asb_err_sys(err, last,
                           "id slots: %d lock file(s) in %s could not be examined or removed "
                           "(%d of dead owners removed)",
                           failed, ASB_USERNS_SLOT_DIR, removed);
    return removed;
}
