/* rootfs.c - build the sandbox's root file system inside the new mount namespace.
 *
 * Nothing here is visible on the host: every mount happens in a private mount namespace whose
 * propagation to the host is cut first, and the whole tree lives on tmpfs except the read-only
 * bind mounts of the allowlisted system paths. When the supervisor exits the namespace is gone,
 * so a crashed run leaves no mount behind. */
#include "core/error.h"
#include "core/limits.h"
#include "core/proc_masks.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Staging: a small tmpfs over the host's /tmp, private to our mount namespace. The new root is
 * built at NEWROOT inside it; the overlay layers' staging mounts (STAGE/l, /e, /u) stay beside
 * it in the old tree and go with it in the one detach after pivot_root. Every lazy unmount
 * waits for an RCU grace period (~0.07 ms alone, ~0.35 ms while the netns helper works on the
 * other CPU); one detach instead of three keeps that off the run's path. */
#define STAGE "/tmp"
#define NEWROOT STAGE "/r"

static int xmount(const char *src, const char *dst, const char *type, unsigned long flags,
                  const char *data, asb_error_t *err)
{
    if (mount(src, dst, type, flags, data) < 0)
        return asb_err_sys(err, errno, "mount %s on %s", type ? type : (src ? src : "-"), dst);
    return 0;
}

/* Add restrictions to a mount (and its submounts when recursive) without touching its other
 * flags: mount_setattr keeps locked atime flags intact, which a bind remount in a user
 * namespace would trip over. */
static int restrict_mount(const char *path, uint64_t attrs, bool recursive, asb_error_t *err)
{
    struct mount_attr a = {.attr_set = attrs};
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &a, sizeof(a)) < 0)
        return asb_err_sys(err, errno, "mount_setattr %s", path);
    return 0;
}

static int bind_ro(const char *src, const char *dst, asb_error_t *err)
{
    int rc;
    if ((rc = xmount(src, dst, NULL, MS_BIND | MS_REC, NULL, err)) < 0)
        return rc;
    return restrict_mount(dst, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, true, err);
}

static int mkdir_p(const char *path, mode_t mode, asb_error_t *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return asb_err(err, -ENAMETOOLONG, "mkdir %s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, mode) < 0 && errno != EEXIST)
                return asb_err_sys(err, errno, "mkdir %s", buf);
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

static int write_file(const char *path, const char *content, mode_t mode, asb_error_t *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return asb_err_sys(err, errno, "create %s", path);
    size_t len = strlen(content), off = 0;
    while (off < len) {
        ssize_t w = write(fd, content + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return asb_err_sys(err, e, "write %s", path);
        }
        off += (size_t)w;
    }
    close(fd);
    return 0;
}

static int tmpfs(const char *dst, uint64_t bytes, const char *mode, unsigned long flags,
                 asb_error_t *err)
{
    char opts[128];
    snprintf(opts, sizeof(opts), "size=%llu,mode=%s", (unsigned long long)bytes, mode);
    return xmount("tmpfs", dst, "tmpfs", flags, opts, err);
}

/* The merged-/usr links (/bin -> usr/bin, ...) as the host has them; a real directory on a host
 * without merged /usr is bound read-only instead. */
/* baseline: /usr as an overlay whose upper layer is a tmpfs, like a container's writable layer:
 * writable inside, and no write ever reaches the host's /usr. The layers are staged beside the
 * new root and detached with the old one (overlayfs keeps private clones of its layers), so no
 * staging path stays mounted. */
static int overlay_usr(int usr_tree, uint64_t upper_bytes, asb_error_t *err)
{
    /* Short neutral names: they show up in the overlay's mount options. */
    const char *lower = STAGE "/l", *layer = STAGE "/u";
    int rc;
    if (usr_tree < 0)
        return asb_err(err, -EBADF, "overlay /usr: no idmapped /usr from the host");
    if ((rc = mkdir_p(lower, 0700, err)) < 0)
        return rc;
    if (syscall(SYS_move_mount, usr_tree, "", AT_FDCWD, lower, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        return asb_err_sys(err, errno, "attach idmapped /usr");
    if ((rc = mkdir_p(layer, 0700, err)) < 0 ||
        (rc = tmpfs(layer, upper_bytes, "0755", MS_NOSUID | MS_NODEV, err)) < 0 ||
        (rc = mkdir_p(STAGE "/u/upper", 0755, err)) < 0 ||
        (rc = mkdir_p(STAGE "/u/work", 0755, err)) < 0)
        return rc;
    /* Relative layer paths, resolved from the staging tmpfs: the mount options then name no
     * path of the host's tree. The staging mounts go with the old root (overlayfs keeps private
     * clones of its layers). userxattr: mounted in our user namespace, overlayfs cannot set its
     * trusted.* xattrs and fell back to the same features with four warnings in the host's
     * kernel log every run (red-team finding); user.overlay.* on the tmpfs upper layer works. */
    if (chdir(STAGE) < 0)
        return asb_err_sys(err, errno, "chdir staging");
    rc = xmount("overlay", NEWROOT "/usr", "overlay", MS_NOSUID | MS_NODEV,
                "lowerdir=l,upperdir=u/upper,workdir=u/work,userxattr", err);
    if (chdir("/") < 0 && rc == 0)
        rc = asb_err_sys(err, errno, "chdir /");
    return rc;
}

/* hardened: /usr as a read-only overlay with a single lower layer (a private bind of the host's
 * /usr, staged beside the new root and detached with the old one). The workload's mount table then
 * shows "overlay" where a bind mount would show the host's block device and file system options
 * (mountinfo_leak). */
/* A read-only overlay of host directory `src` on `dst`, its lower layer staged as STAGE/<stage>
 * plus an empty layer (an overlay without an upper layer needs two). The sandbox then sees
 * inodes of its own: a bind of the host's directory would share the host's inodes, so an inotify
 * watch inside saw every host process reading them and a flock reached other sandboxes
 * (red-team finding, /etc/ssl in baseline). */
static int readonly_overlay(const char *src, const char *stage, const char *dst, asb_error_t *err)
{
    char lower[64], opts[96];
    snprintf(lower, sizeof(lower), STAGE "/%s", stage);
    snprintf(opts, sizeof(opts), "lowerdir=%s:e", stage);
    int rc;
    if ((rc = mkdir_p(lower, 0700, err)) < 0 || (rc = mkdir_p(STAGE "/e", 0755, err)) < 0 ||
        (rc = xmount(src, lower, NULL, MS_BIND | MS_REC, NULL, err)) < 0)
        return rc;
    /* Relative layer names: the mount options name no host path. */
    if (chdir(STAGE) < 0)
        return asb_err_sys(err, errno, "chdir staging");
    rc = xmount("overlay", dst, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opts, err);
    if (chdir("/") < 0 && rc == 0)
        rc = asb_err_sys(err, errno, "chdir /");
    if (rc < 0)
        return rc;
    return restrict_mount(dst, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false,
                          err);
}

static int readonly_overlay_usr(asb_error_t *err)
{
    return readonly_overlay("/usr", "l", NEWROOT "/usr", err);
}

static int system_paths(const sup_spec_t *spec, int usr_tree, asb_error_t *err)
{
    static const char *const top[] = {"bin", "sbin", "lib", "lib32", "lib64", "libx32"};
    int rc;
    if ((rc = mkdir_p(NEWROOT "/usr", 0755, err)) < 0)
        return rc;
    if (spec->root == ASB_ROOT_OVERLAY_RW)
        rc = overlay_usr(usr_tree, spec->tmp_bytes, err);
    else if (spec->root == ASB_ROOT_ALLOWLIST_RO)
        rc = readonly_overlay_usr(err);
    else
        rc = bind_ro("/usr", NEWROOT "/usr", err);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
        char src[64], dst[64], target[256];
        snprintf(src, sizeof(src), "/%s", top[i]);
        snprintf(dst, sizeof(dst), NEWROOT "/%s", top[i]);
        struct stat st;
        if (lstat(src, &st) < 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(src, target, sizeof(target) - 1);
            if (n < 0)
                return asb_err_sys(err, errno, "readlink %s", src);
            target[n] = '\0';
            if (symlink(target, dst) < 0)
                return asb_err_sys(err, errno, "symlink %s", dst);
        } else if (S_ISDIR(st.st_mode)) {
            char stage[16];
            snprintf(stage, sizeof(stage), "s%zu", i); /* a host without merged /usr */
            if ((rc = mkdir_p(dst, 0755, err)) < 0 ||
                (rc = readonly_overlay(src, stage, dst, err)) < 0)
                return rc;
        }
    }
    return 0;
}

/* The host's loader cache into the sandbox's /etc, when it is small and names only paths the
 * sandbox sees anyway; otherwise none (programs load slower, nothing else). */
static int copy_ld_cache(const char *dst, asb_error_t *err)
{
    int in = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (in < 0)
        return 0;
    struct stat st;
    char *buf = NULL;
    int rc = 0;
    if (fstat(in, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        st.st_size <= (off_t)(512 * ASB_KIB) && (buf = malloc((size_t)st.st_size))) {
        size_t len = (size_t)st.st_size, got = 0;
        while (got < len) {
            ssize_t n = read(in, buf + got, len - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        if (got == len && sup_ld_cache_paths_visible(buf, len)) {
            int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
            if (out < 0) {
                rc = asb_err_sys(err, errno, "create %s", dst);
            } else {
                for (size_t off = 0; off < len && rc == 0;) {
                    ssize_t n = write(out, buf + off, len - off);
                    if (n < 0 && errno == EINTR)
                        continue;
                    if (n <= 0)
                        rc = asb_err_sys(err, n < 0 ? errno : EIO, "write %s", dst);
                    else
                        off += (size_t)n;
                }
                close(out);
            }
        }
    }
    free(buf);
    close(in);
    return rc;
}

/* A synthesized /etc: never the host's (no shadow, no host users, no host names). */
static int synth_etc(const sup_spec_t *spec, asb_error_t *err)
{
    int rc;
    char passwd[512];
    snprintf(passwd, sizeof(passwd),
             "root:x:0:0:root:/root:/usr/sbin/nologin\n"
             "sandbox:x:%ld:%ld:sandbox:" ASB_WORKSPACE ":/bin/sh\n",
             spec->uid, spec->gid);
    if (spec->uid == 0)
        snprintf(passwd, sizeof(passwd),
                 "root:x:0:0:root:" ASB_WORKSPACE ":/bin/sh\n"
                 "nobody:x:65534:65534:nobody:/nonexistent:"
                 "/usr/sbin/nologin\n");
    char group[256];
    snprintf(group, sizeof(group), "root:x:0:\n%s:x:%ld:\n", spec->gid == 0 ? "nogroup" : "sandbox",
             spec->gid == 0 ? 65534L : spec->gid);
    if ((rc = mkdir_p(NEWROOT "/etc", 0755, err)) < 0 ||
        (rc = write_file(NEWROOT "/etc/passwd", passwd, 0644, err)) < 0 ||
        (rc = write_file(NEWROOT "/etc/group", group, 0644, err)) < 0 ||
        (rc = write_file(NEWROOT "/etc/hosts",
                         "127.0.0.1\tlocalhost " ASB_SANDBOX_HOSTNAME "\n::1\tlocalhost\n", 0644,
                         err)) < 0 ||
        (rc = write_file(NEWROOT "/etc/nsswitch.conf",
                         "passwd: files\ngroup: files\nhosts: files dns\n", 0644, err)) < 0 ||
        (rc = write_file(NEWROOT "/etc/hostname", ASB_SANDBOX_HOSTNAME "\n", 0644, err)) < 0)
        return rc;
    /* The dynamic loader's cache, as the host built it for the /usr we show: without it every
     * program's every library is searched through ~30 hwcaps/tls directories (overlay lookups
     * and Landlock checks each). Only when it names nothing but paths the sandbox sees anyway. */
    int rc_cache = copy_ld_cache(NEWROOT "/etc/ld.so.cache", err);
    if (rc_cache < 0)
        return rc_cache;
    if (!spec->netns) {
        /* Host network (baseline): name resolution as the host does it. */
        char buf[4096];
        int fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t n = read(fd, buf, sizeof(buf) - 1);
            close(fd);
            if (n > 0) {
                buf[n] = '\0';
                if ((rc = write_file(NEWROOT "/etc/resolv.conf", buf, 0644, err)) < 0)
                    return rc;
            }
        }
    }
    return 0;
}

static int minimal_dev(const sup_spec_t *spec, int dev_tree, asb_error_t *err)
{
    int rc;
    if (dev_tree < 0)
        return asb_err(err, -EBADF, "/dev: no device nodes from the host");
    /* The host's read-only tmpfs of this sandbox's own nodes and links (trees.c): made by real
     * root, so its nodes work (the mount is not nodev); nothing in it can be added or changed. */
    if ((rc = mkdir_p(NEWROOT "/dev", 0755, err)) < 0)
        return rc;
    if (syscall(SYS_move_mount, dev_tree, "", AT_FDCWD, NEWROOT "/dev", MOVE_MOUNT_F_EMPTY_PATH) <
        0)
        return asb_err_sys(err, errno, "attach /dev");
    /* Pseudo-terminals (pexpect, `script`, pty.fork), as a container has them: a devpts instance
     * of this sandbox's own (every devpts mount in a user namespace is a new instance), so no
     * terminal of the host or of another sandbox is reachable (compatibility QA). */
    char ptsopts[96];
    snprintf(ptsopts, sizeof(ptsopts), "newinstance,ptmxmode=0666,mode=0620,max=%d",
             ASB_SANDBOX_PTYS);
    if (spec->devpts && (rc = xmount("devpts", NEWROOT "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                                     ptsopts, err)) < 0)
        return rc;
    /* POSIX semaphores and shared memory (Python multiprocessing) need a writable /dev/shm. */
    if ((rc = mkdir_p(NEWROOT "/dev/shm", 01777, err)) < 0 ||
        (rc = tmpfs(NEWROOT "/dev/shm", spec->tmp_bytes, "1777", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                    err)) < 0)
        return rc;
    return 0;
}

/* hardened: what /proc says of the kernel agrees with our answer to uname(2) (uname.c), not the
 * kernel's release, version and build. */
static int kernel_names(asb_error_t *err)
{
    struct utsname real;
    if (uname(&real) < 0)
        return asb_err_sys(err, errno, "uname");
    char answer[390], text[256];
    sup_uname_answer(&real, answer);
    const char *release = answer + 2 * 65, *version = answer + 3 * 65;
    static const struct {
        const char *dst, *stage;
    } files[] = {{NEWROOT "/proc/version", STAGE "/version"},
                 {NEWROOT "/proc/sys/kernel/osrelease", STAGE "/osrelease"},
                 {NEWROOT "/proc/sys/kernel/version", STAGE "/kversion"}};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (access(files[i].dst, F_OK) < 0)
            continue;
        if (i == 0)
            snprintf(text, sizeof(text), "Linux version %s %s\n", release, version);
        else
            snprintf(text, sizeof(text), "%s\n", i == 1 ? release : version);
        int rc;
        if ((rc = write_file(files[i].stage, text, 0444, err)) < 0 ||
            (rc = xmount(files[i].stage, files[i].dst, NULL, MS_BIND, NULL, err)) < 0)
            return rc;
    }
    /* The host's /usr names its kernels too: /usr/lib/modules/<release>, emptied (nothing in a
     * sandbox loads a module). Package names elsewhere (/usr/src/linux-headers-*,
     * /usr/share/doc/linux-image-*) stay visible in their directories: an empty mount on a
     * release-named directory hides its contents, not its name (review finding), and those
     * directories hold what builds and tests read (THREAT_MODEL). */
    struct stat st;
    if (lstat(NEWROOT "/usr/lib/modules", &st) == 0 && S_ISDIR(st.st_mode) &&
        mount("tmpfs", NEWROOT "/usr/lib/modules", "tmpfs",
              MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=0,mode=0555") < 0)
        return asb_err_sys(err, errno, "mask " NEWROOT "/usr/lib/modules");
    return 0;
}

/* A random boot id (the kernel's format: a version 4 UUID) over the host's. */
static int boot_id(asb_error_t *err)
{
    static const char dst[] = NEWROOT "/proc/sys/kernel/random/boot_id";
    if (access(dst, F_OK) < 0)
        return 0;
    unsigned char u[16];
    if (getrandom(u, sizeof(u), 0) != (ssize_t)sizeof(u))
        return asb_err_sys(err, errno, "a boot id for the sandbox (getrandom)");
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
    char text[40];
    snprintf(text, sizeof(text),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    int rc;
    if ((rc = write_file(STAGE "/boot_id", text, 0444, err)) < 0)
        return rc;
    return xmount(STAGE "/boot_id", dst, NULL, MS_BIND, NULL, err);
}

/* The pid namespace's procfs, made as host root (userns.c: the namespace is the host's user
 * namespace's, so no root of ours could make it), mounted at path. */
static int attach_proc(int proc_mnt, const char *path, asb_error_t *err)
{
    if (syscall(SYS_move_mount, proc_mnt, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        return asb_err_sys(err, errno, "mount /proc at %s", path);
    return 0;
}

/* /proc for the new pid namespace, with the entries that leak host kernel state or act on the
 * host masked and the kernel tunables under /proc/sys made read-only: the lists, and why each
 * entry is there, are core/proc_masks.h (the docker backend masks the same). */
static int proc_fs(const sup_spec_t *spec, int proc_mnt, asb_error_t *err)
{
    int rc;
    if ((rc = mkdir_p(NEWROOT "/proc", 0555, err)) < 0 ||
        (rc = attach_proc(proc_mnt, NEWROOT "/proc", err)) < 0)
        return rc;
    /* Namespaced sysctls, set while /proc/sys is still writable for us (it is made read-only
     * below). The user-namespace limits cap what this sandbox's processes hold of its owner
     * uid's counters (userns.c). */
    char val[32];
    snprintf(val, sizeof(val), "%d\n", ASB_SANDBOX_INOTIFY_INSTANCES);
    if ((rc = write_file(NEWROOT "/proc/sys/user/max_inotify_instances", val, 0644, err)) < 0)
        return rc;
    snprintf(val, sizeof(val), "%d\n", ASB_SANDBOX_INOTIFY_WATCHES);
    if ((rc = write_file(NEWROOT "/proc/sys/user/max_inotify_watches", val, 0644, err)) < 0)
        return rc;
    if (!spec->mask_proc)
        return 0;
    char dst[128];
    /* An entry this kernel does not have (ENOENT) needs no mask; any other failure is one. */
    for (size_t i = 0; i < ASB_PROC_MASK_N_FILES; i++) {
        snprintf(dst, sizeof(dst), NEWROOT "/proc/%s", ASB_PROC_MASK_FILES[i]);
        if (mount(NEWROOT "/dev/null", dst, NULL, MS_BIND, NULL) < 0 && errno != ENOENT)
            return asb_err_sys(err, errno, "mask %s", dst);
    }
    for (size_t i = 0; i < ASB_PROC_MASK_N_DIRS; i++) {
        snprintf(dst, sizeof(dst), NEWROOT "/proc/%s", ASB_PROC_MASK_DIRS[i]);
        if (mount("tmpfs", dst, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=0,mode=0555") < 0 &&
            errno != ENOENT)
            return asb_err_sys(err, errno, "mask %s", dst);
    }
    /* boot_id names the host's boot (it is the host's in every namespace): a random one per
     * sandbox instead, bound read-only with /proc/sys below (red-team finding). The kernel's
     * names, where the supervisor answers uname, likewise. */
    if ((rc = boot_id(err)) < 0 || (spec->uname_hidden && (rc = kernel_names(err)) < 0))
        return rc;
    for (size_t i = 0; i < ASB_PROC_N_READONLY; i++) {
        snprintf(dst, sizeof(dst), NEWROOT "/proc/%s", ASB_PROC_READONLY[i]);
        if (access(dst, F_OK) < 0)
            continue;
        if ((rc = xmount(dst, dst, NULL, MS_BIND | MS_REC, NULL, err)) < 0 ||
            (rc = restrict_mount(
                 dst, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                 true, err)) < 0)
            return rc;
    }
    return 0;
}

static int host_root_workspace(const sup_spec_t *spec, int proc_mnt, const char **workspace,
                               asb_error_t *err)
{
    /* Weakened (ablation / test) mode: the host's tree, a private tmpfs on /tmp, new /proc. */
    int rc;
    unsigned long nx = spec->tmp_noexec ? MS_NOEXEC : 0;
    if ((rc = tmpfs("/tmp", spec->tmp_bytes + spec->workspace_bytes, "1777",
                    MS_NOSUID | MS_NODEV | nx, err)) < 0 ||
        (rc = attach_proc(proc_mnt, "/proc", err)) < 0)
        return rc;
    if (mkdir("/tmp/workspace", 0755) < 0)
        return asb_err_sys(err, errno, "mkdir /tmp/workspace");
    if (chown("/tmp/workspace", (uid_t)spec->uid, (gid_t)spec->gid) < 0)
        return asb_err_sys(err, errno, "chown /tmp/workspace");
    *workspace = "/tmp/workspace";
    return 0;
}

int sup_build_root(const sup_spec_t *spec, int usr_tree, int dev_tree, int proc_mnt,
                   const char **workspace, asb_error_t *err)
{
    int rc;
    /* Cut propagation first: nothing mounted below may ever appear in the host's namespace. */
    if ((rc = xmount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL, err)) < 0)
        return rc;
    if (spec->root == ASB_ROOT_HOST)
        return host_root_workspace(spec, proc_mnt, workspace, err);

    uint64_t root_bytes = spec->root == ASB_ROOT_OVERLAY_RW ? spec->tmp_bytes : 1 * ASB_MIB;
    unsigned long wsx = spec->workspace_noexec && !SUP_TAMPERED(MOUNTS) ? MS_NOEXEC : 0;
    unsigned long tmpx = spec->tmp_noexec ? MS_NOEXEC : 0;
    if ((rc = tmpfs(STAGE, 64 * ASB_KIB, "0700", MS_NOSUID | MS_NODEV | MS_NOEXEC, err)) < 0 ||
        (rc = mkdir_p(NEWROOT, 0755, err)) < 0 ||
        (rc = tmpfs(NEWROOT, root_bytes, "0755", MS_NOSUID | MS_NODEV, err)) < 0 ||
        (rc = system_paths(spec, usr_tree, err)) < 0 || (rc = synth_etc(spec, err)) < 0 ||
        (rc = minimal_dev(spec, dev_tree, err)) < 0 || (rc = proc_fs(spec, proc_mnt, err)) < 0)
        return rc;
    for (size_t i = 0; i < spec->n_bind_ro; i++) {
        char dst[4096];
        struct stat st;
        if (stat(spec->bind_ro[i], &st) < 0 || !S_ISDIR(st.st_mode))
            continue; /* optional extras (e.g. /etc/ssl) that this host lacks */
        snprintf(dst, sizeof(dst), NEWROOT "%s", spec->bind_ro[i]);
        char stage[16];
        snprintf(stage, sizeof(stage), "b%zu", i);
        if ((rc = mkdir_p(dst, 0755, err)) < 0 ||
            (rc = readonly_overlay(spec->bind_ro[i], stage, dst, err)) < 0)
            return rc;
    }
    if ((rc = mkdir_p(NEWROOT "/tmp", 01777, err)) < 0 ||
        (rc = tmpfs(NEWROOT "/tmp", spec->tmp_bytes, "1777", MS_NOSUID | MS_NODEV | tmpx, err)) <
            0 ||
        (rc = mkdir_p(NEWROOT ASB_WORKSPACE, 0755, err)) < 0 ||
        (rc = tmpfs(NEWROOT ASB_WORKSPACE, spec->workspace_bytes, "0755",
                    MS_NOSUID | MS_NODEV | wsx, err)) < 0)
        return rc;
    if (chown(NEWROOT ASB_WORKSPACE, (uid_t)spec->uid, (gid_t)spec->gid) < 0)
        return asb_err_sys(err, errno, "chown " ASB_WORKSPACE);
    /* The job's programs (executable files in): a tmpfs of its own that allows exec, ours
     * (the workload's user cannot write it), made read-only once the job's files are in
     * (sup_copy_files_in). Built now, before the workload's Landlock domain: its rule must hold
     * this mount's root, not the directory under it. */
    if (spec->exec_dir) {
        char opts[128];
        snprintf(opts, sizeof(opts), "size=%llu,nr_inodes=%d,mode=0755",
                 (unsigned long long)spec->workspace_bytes, ASB_MAX_FILES_IN + 8);
        if ((rc = mkdir_p(NEWROOT ASB_EXEC_DIR, 0755, err)) < 0 ||
            (rc = xmount("tmpfs", NEWROOT ASB_EXEC_DIR, "tmpfs", MS_NOSUID | MS_NODEV, opts, err)) <
                0)
            return rc;
    }
    /* The attestation's Landlock probe: readable by everyone's file modes, by no Landlock rule. */
    if ((rc = write_file(NEWROOT ASB_LANDLOCK_PROBE, "", 0444, err)) < 0)
        return rc;

    /* pivot_root onto itself, then detach the old root stacked underneath (with the staging
     * tmpfs and the overlays' layer mounts in it): the host's tree is no longer reachable by
     * any path. */
    if (chdir(NEWROOT) < 0)
        return asb_err_sys(err, errno, "chdir new root");
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return asb_err_sys(err, errno, "pivot_root");
    if (umount2(".", MNT_DETACH) < 0)
        return asb_err_sys(err, errno, "detach old root");
    if (chdir("/") < 0)
        return asb_err_sys(err, errno, "chdir /");
    if (spec->root == ASB_ROOT_ALLOWLIST_RO) {
        if ((rc = restrict_mount("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                                 false, err)) < 0 ||
            (rc = restrict_mount("/dev", MOUNT_ATTR_RDONLY, false, err)) < 0)
            return rc;
    }
    *workspace = ASB_WORKSPACE;
    return 0;
}

/* An executable file in: the program at ASB_EXEC_DIR/NAME, ours and mode 0555, and NAME in the
 * workspace a symlink to it (the workload's), so that `./NAME` runs it. */
static int exec_file_in(const sup_spec_t *spec, int ws, int xdir, const sup_file_in_t *f,
                        asb_error_t *err)
{
    char target[512];
    if (snprintf(target, sizeof(target), ASB_EXEC_DIR "/%s", f->name) >= (int)sizeof(target))
        return asb_err(err, -ENAMETOOLONG, "file-in %s", f->name);
    if (symlinkat(target, ws, f->name) < 0)
        return asb_err_sys(err, errno, "file-in %s: link in the workspace", f->name);
    if (fchownat(ws, f->name, (uid_t)spec->uid, (gid_t)spec->gid, AT_SYMLINK_NOFOLLOW) < 0)
        return asb_err_sys(err, errno, "file-in %s: chown the link", f->name);
    int out = openat(xdir, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0555);
    if (out < 0)
        return asb_err_sys(err, errno, "file-in %s", f->name);
    return out;
}

int sup_copy_files_in(const sup_spec_t *spec, const char *workspace, asb_error_t *err)
{
    int dir = open(workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return asb_err_sys(err, errno, "open %s", workspace);
    bool place = spec->exec_dir && spec->root != ASB_ROOT_HOST;
    int xdir = place ? open(ASB_EXEC_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (place && xdir < 0) {
        int e = errno;
        close(dir);
        return asb_err_sys(err, e, "open " ASB_EXEC_DIR);
    }
    int rc = 0;
    for (size_t i = 0; i < spec->n_files_in && rc == 0; i++) {
        const sup_file_in_t *f = &spec->files_in[i];
        int out;
        if (f->exec && xdir < 0) /* sup_spec_take_job refuses it first */
            out = asb_err(err, -EINVAL, "file-in %s: no place for programs", f->name);
        else if (f->exec)
            out = exec_file_in(spec, dir, xdir, f, err);
        else if ((out = openat(dir, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                               0644)) < 0)
            out = asb_err_sys(err, errno, "file-in %s", f->name);
        if (out < 0) {
            rc = out;
            break;
        }
        off_t off = 0;
        for (;;) {
            ssize_t n = sendfile(out, f->fd, &off, 1 << 20);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                rc = asb_err_sys(err, errno, "file-in %s: copy", f->name);
                break;
            }
            if (n == 0)
                break;
        }
        if (rc == 0 && !f->exec && fchown(out, (uid_t)spec->uid, (gid_t)spec->gid) < 0)
            rc = asb_err_sys(err, errno, "file-in %s: chown", f->name);
        close(out);
        close(f->fd);
    }
    close(dir);
    if (xdir >= 0)
        close(xdir);
    /* Sealed before the program starts, with or without programs in it: from now on nothing
     * in the sandbox can change what it may execute. */
    if (rc == 0 && place)
        rc = restrict_mount(ASB_EXEC_DIR, MOUNT_ATTR_RDONLY, false, err);
    return rc;
}
