/* shared_usr.c - one read-only overlay of the host's /usr for all of a pool's sandboxes.
 *
 * Each cold hardened run builds its own overlay (supervisor/rootfs.c): a new superblock whose
 * dentries start cold, which cost python ~2 ms of lookups on its first start. A pool instead
 * builds one overlay here, detached (never attached on the host), and hands each sandbox a new
 * mount of it (native.c: send_shared_usr). Same shape as the per-sandbox one: /usr's tree as
 * the lower layer plus an empty one (no upper layer: read-only), so the sandbox's mount table
 * shows "overlay", never the host's block device. The layers are given as fds: their host paths
 * appear nowhere in the mount options. */
#include "core/error.h"
#include "native/native.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FSCONFIG_SET_FD
#define FSCONFIG_SET_FD 5
#endif

static int fs_create(const char *type, int fd, asb_error_t *err)
{
    if (syscall(SYS_fsconfig, fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
        int e = errno;
        char log[256];
        ssize_t n = read(fd, log, sizeof(log) - 1); /* the kernel's reason, when it gave one */
        log[n > 0 ? n - (log[n - 1] == '\n') : 0] = '\0';
        return asb_err_sys(err, e, "shared /usr: create %s%s%s", type, n > 0 ? ": " : "", log);
    }
    return 0;
}

int asb_native_shared_usr(asb_error_t *err)
{
    int usr = -1, tfs = -1, empty = -1, ofs = -1, mnt = -1, rc;
    usr = (int)syscall(SYS_open_tree, AT_FDCWD, "/usr",
                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (usr < 0) {
        rc = asb_err_sys(err, errno, "shared /usr: clone /usr");
        goto out;
    }
    tfs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
    if (tfs < 0 || syscall(SYS_fsconfig, tfs, FSCONFIG_SET_STRING, "size", "4k", 0) < 0 ||
        syscall(SYS_fsconfig, tfs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0) {
        rc = asb_err_sys(err, errno, "shared /usr: empty layer");
        goto out;
    }
    if ((rc = fs_create("tmpfs", tfs, err)) < 0)
        goto out;
    empty = (int)syscall(SYS_fsmount, tfs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
    if (empty < 0) {
        rc = asb_err_sys(err, errno, "shared /usr: mount the empty layer");
        goto out;
    }
    ofs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
    if (ofs < 0 || syscall(SYS_fsconfig, ofs, FSCONFIG_SET_FD, "lowerdir+", NULL, usr) < 0 ||
        syscall(SYS_fsconfig, ofs, FSCONFIG_SET_FD, "lowerdir+", NULL, empty) < 0) {
        rc = asb_err_sys(err, errno, "shared /usr: overlay layers as fds");
        goto out;
    }
    if ((rc = fs_create("overlay", ofs, err)) < 0)
        goto out;
    mnt = (int)syscall(SYS_fsmount, ofs, FSMOUNT_CLOEXEC,
                       MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
    if (mnt < 0)
        rc = asb_err_sys(err, errno, "shared /usr: mount the overlay");
out:;
    /* The overlay holds private clones of its layers: the fds used to build it can go. */
    int fds[] = {usr, tfs, empty, ofs};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return mnt >= 0 ? mnt : rc;
}
