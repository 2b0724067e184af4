/* trees.c - mount trees the host makes for a sandbox and hands to its supervisor (proto.h:
 * "usr_tree", "dev_tree"). Only real root can make them: idmapping a host file system, mknod of
 * device nodes. Each is a detached mount (never attached on the host), freed with its last fd. */
#include "core/error.h"
#include "native/fdpass.h"
#include "native/trees.h"
#include "native/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* One tree as a message of `type` carrying its fd. */
static int send_tree(int ctl, const char *type, int tree, asb_error_t *err)
{
    uint8_t msg[64];
    asb_wire_buf_t b;
    asb_wire_init_fixed(&b, msg, sizeof(msg));
    asb_wire_put_str(&b, "type", type);
    int rc = asb_wire_ok(&b) ? asb_fd_send(ctl, msg, b.len, &tree, 1) : -ENOMEM;
    if (rc < 0)
        return asb_err_sys(err, -rc, "hand %s to the supervisor", type);
    return 0;
}

/* The sandbox's /dev: a tmpfs made here, by real root (mknod needs it), with its own device
 * nodes, the fd/stdin/stdout/stderr links and an empty shm directory (the supervisor mounts a
 * tmpfs there); read-only, nosuid, noexec, detached, and handed to the supervisor, which mounts it
 * as /dev. Binding the host's devtmpfs nodes instead let a sandbox inotify-watch /dev/null and see
 * every host process that used it, and flock it against other sandboxes (red-team finding): these
 * inodes belong to this sandbox. Made whole here, it is one mount in the sandbox instead of a
 * tmpfs and a bind mount per node (~10 mount calls less per run). */
int asb_native_send_dev_tree(int ctl, asb_error_t *err)
{
    static const struct {
        const char *name;
        unsigned minor;
    } nodes[] = {{"null", 3}, {"zero", 5}, {"full", 7}, {"random", 8}, {"urandom", 9}};
    int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC), mnt = -1, rc = 0;
    if (fs < 0 || syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "4k", 0) < 0 ||
        syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
        syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
        (mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
                            MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)) < 0) {
        rc = asb_err_sys(err, errno, "device nodes: a tmpfs for them");
        goto out;
    }
    for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
        /* fchmodat after: the caller's umask applies to mknod. */
        if (mknodat(mnt, nodes[i].name, S_IFCHR | 0666, makedev(1, nodes[i].minor)) < 0 ||
            fchmodat(mnt, nodes[i].name, 0666, 0) < 0) {
            rc = asb_err_sys(err, errno, "device nodes: /dev/%s", nodes[i].name);
            goto out;
        }
    }
    static const char *const links[][2] = {{"/proc/self/fd", "fd"},
                                           {"/proc/self/fd/0", "stdin"},
                                           {"/proc/self/fd/1", "stdout"},
                                           {"/proc/self/fd/2", "stderr"}};
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        if (symlinkat(links[i][0], mnt, links[i][1]) < 0) {
            rc = asb_err_sys(err, errno, "device nodes: /dev/%s", links[i][1]);
            goto out;
        }
    }
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    /* pts: where a profile with pseudo-terminals mounts its own devpts (ptmx leads into it);
     * an empty directory and a dangling link elsewhere. */
    if (mkdirat(mnt, "pts", 0755) < 0 || symlinkat("pts/ptmx", mnt, "ptmx") < 0) {
        rc = asb_err_sys(err, errno, "device nodes: /dev/pts, /dev/ptmx");
        goto out;
    }
    if (mkdirat(mnt, "shm", 0755) < 0 || fchmodat(mnt, "shm", 01777, 0) < 0 ||
        syscall(SYS_mount_setattr, mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0) {
        rc = asb_err_sys(err, errno, "device nodes: /dev/shm, read-only");
        goto out;
    }
    rc = send_tree(ctl, "dev_tree", mnt, err);
out:
    if (mnt >= 0)
        close(mnt);
    if (fs >= 0)
        close(fs);
    return rc;
}

/* baseline's writable /usr: a detached clone of the host's /usr, idmapped into the sandbox's
 * user namespace so root inside owns what host root owns, then handed to the supervisor as the
 * overlay's lower layer. Detached: it is never attached anywhere on the host, and it is freed
 * with the last fd. Only real root can idmap a host file system, hence the host does it. */
int asb_native_send_usr_tree(int ctl, int userns, asb_error_t *err)
{
    int tree = (int)syscall(SYS_open_tree, AT_FDCWD, "/usr",
                            OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    int rc = 0;
    if (tree < 0) {
        rc = asb_err_sys(err, errno, "clone /usr for the overlay");
    } else {
        /* Read-only: through this clone, root inside would write the host's /usr as host root.
         * The overlay never writes its lower layer; this makes it impossible, not just unused. */
        struct mount_attr a = {.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY |
                                           MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                               .userns_fd = (uint64_t)userns};
        if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0)
            rc = asb_err_sys(err, errno, "idmap /usr for the overlay");
    }
    if (rc == 0)
        rc = send_tree(ctl, "usr_tree", tree, err);
    if (tree >= 0)
        close(tree);
    return rc;
}
