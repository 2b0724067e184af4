/* idslot.c - host id ranges per live sandbox, held with flock (see idslot.h). */
#include "native/idslot.h"

#include "core/limits.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The slot directory, made root-only if missing; a directory that anyone else could write would
 * let them hold slots (or swap lock files), so it must be root's and 0700. */
static int slot_dir(asb_error_t *err)
{
    (void)mkdir("/run/agent-sandbox", 0700);
    (void)mkdir(ASB_USERNS_SLOT_DIR, 0700);
    int fd = open(ASB_USERNS_SLOT_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return asb_err_sys(err, errno, "id slots: open %s", ASB_USERNS_SLOT_DIR);
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 077)) {
        close(fd);
        return asb_err(err, -EPERM, "id slots: %s must be root's and mode 0700",
                       ASB_USERNS_SLOT_DIR);
    }
    return fd;
}

/* Lock slot k: open (or create) its file, flock it, and check that the name still leads to the
 * locked file (a releaser may have unlinked it between our open and our lock). 1 taken, 0 busy,
 * <0 error. */
static int try_slot(int dir, uint32_t k, int *out)
{
    char name[16];
    snprintf(name, sizeof(name), "%u", k);
    int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        return e == EWOULDBLOCK ? 0 : -e;
    }
    struct stat a, b;
    if (fstat(fd, &a) < 0 || fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
        a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
        close(fd); /* unlinked under us: someone else may lock the new file; not ours */
        return 0;
    }
    *out = fd;
    return 1;
}

int asb_idslot_take(asb_idslot_t *s, asb_error_t *err)
{
    s->fd = -1;
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
            s->slot = k;
            s->base = ASB_USERNS_HOST_BASE + k * ASB_USERNS_RANGE;
            /* Name the lock file's owner, for people looking at the directory. */
            char pid[24];
            int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
            if (ftruncate(fd, 0) < 0 || write(fd, pid, (size_t)n) != n)
                (void)0; /* only informative */
            break;
        }
    }
    close(dir);
    if (rc < 0)
        return asb_err_sys(err, -rc, "id slots: lock a slot in %s", ASB_USERNS_SLOT_DIR);
    if (s->fd < 0)
        return asb_err(err, -EAGAIN, "id slots: all %u host id ranges are in use",
                       (unsigned)ASB_USERNS_SLOTS);
    return 0;
}

void asb_idslot_release(asb_idslot_t *s)
{
    if (s->fd < 0)
        return;
    /* Unlink while still holding the lock (try_slot checks for that), then unlock by closing:
     * nothing is left in the directory by a sandbox that ended. */
    char name[16];
    snprintf(name, sizeof(name), "%u", s->slot);
    int dir = open(ASB_USERNS_SLOT_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir >= 0) {
        (void)unlinkat(dir, name, 0);
        close(dir);
    }
    close(s->fd);
    s->fd = -1;
}

int asb_idslot_reap(void)
{
    int dir = open(ASB_USERNS_SLOT_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return 0;
    int dfd = dup(dir), removed = 0;
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        close(dir);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        int fd = openat(dir, e->d_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* Locked by nobody: its holder died. Unlinked while we hold the lock (try_slot checks). */
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dir, e->d_name, 0) == 0)
            removed++;
        close(fd);
    }
    closedir(d);
    close(dir);
    return removed;
}
