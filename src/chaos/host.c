/* host.c - plant, observe, remove. Every name carries a fresh random part, so concurrent runs
 * never share an object and a leftover is recognisable (asb-chaos-*). */
#include "chaos/host.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/owner.h"
#include "core/plan.h"
#include "io/rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING (-4)
#define KEYCTL_INVALIDATE 21

extern char **environ;

void asb_chaos_host_env(asb_chaos_host_t *h, const char *key, const char *fmt, ...)
{
    if (h->n_env >= ASB_CHAOS_ENV_MAX)
        return;
    char *e = h->env_store[h->n_env];
    int n = snprintf(e, sizeof(h->env_store[0]), "ASB_CHAOS_%s=", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e + n, sizeof(h->env_store[0]) - (size_t)n, fmt, ap);
    va_end(ap);
    h->env[h->n_env] = e;
    h->n_env++;
}

static int write_file(const char *path, const char *content, int extra_flags, asb_error_t *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | extra_flags, 0600);
    if (fd < 0)
        return asb_err_sys(err, errno, "plant %s", path);
    size_t len = strlen(content);
    ssize_t w = write(fd, content, len);
    if (w != (ssize_t)len) {
        int e = errno;
        close(fd);
        unlink(path);
        return asb_err_sys(err, w < 0 ? e : EIO, "plant %s", path);
    }
    return fd;
}

static char *read_text(const char *path, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = malloc(cap + 1);
    size_t off = 0;
    while (buf && off < cap) {
        ssize_t n = read(fd, buf + off, cap - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    if (buf)
        buf[off] = '\0';
    return buf;
}

static char *hex_of(const char *path, off_t offset, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    unsigned char buf[1024];
    if (len > sizeof(buf))
        len = sizeof(buf);
    ssize_t n = pread(fd, buf, len, offset);
    close(fd);
    if (n <= 0)
        return NULL;
    char *hex = malloc((size_t)n * 2 + 1);
    for (ssize_t i = 0; hex && i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", buf[i]);
    return hex;
}

static void cgroup_targets(asb_chaos_host_t *h)
{
    DIR *d = opendir("/sys/fs/cgroup");
    if (!d)
        return;
    struct dirent *de;
    char probe[300];
    snprintf(probe, sizeof(probe), "/sys/fs/cgroup/cgroup.procs");
    if (access(probe, F_OK) == 0) /* pure v2: the root itself is the hierarchy */
        snprintf(h->cgroup_targets[h->n_cgroup_targets++], sizeof(h->cgroup_targets[0]),
                 "/sys/fs/cgroup/" ASB_CHAOS_TMP_PREFIX "%s", h->rnd);
    while ((de = readdir(d)) && h->n_cgroup_targets < ASB_CHAOS_MAX_CGROUP_TARGETS) {
        if (de->d_name[0] == '.' || de->d_type != DT_DIR)
            continue;
        snprintf(probe, sizeof(probe), "/sys/fs/cgroup/%.64s/cgroup.procs", de->d_name);
        if (access(probe, F_OK) == 0)
            snprintf(h->cgroup_targets[h->n_cgroup_targets++], sizeof(h->cgroup_targets[0]),
                     "/sys/fs/cgroup/%.64s/" ASB_CHAOS_TMP_PREFIX "%s", de->d_name, h->rnd);
    }
    closedir(d);
}

/* How many of path's first `pages` pages the host's page cache holds (mincore), -1 on error.
 * With fill, the file is read through first, so that all of it is cached. */
static int cached_pages(const char *path, int pages, bool fill)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    long pg = sysconf(_SC_PAGESIZE);
    char buf[8192];
    while (fill && read(fd, buf, sizeof(buf)) > 0)
        ;
    int n = -1;
    void *m = mmap(NULL, (size_t)pages * (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char vec[64];
    if (m != MAP_FAILED && pages <= (int)sizeof(vec) &&
        mincore(m, (size_t)pages * (size_t)pg, vec) == 0) {
        n = 0;
        for (int i = 0; i < pages; i++)
            n += vec[i] & 1;
    }
    if (m != MAP_FAILED)
        munmap(m, (size_t)pages * (size_t)pg);
    close(fd);
    return n;
}

/* A regular file of /usr every Debian host has (the sandbox sees the host's /usr), read into
 * the page cache now; the attack tries to drop it from there. Only its whole pages count. */
static void plant_cache(asb_chaos_host_t *h, asb_chaos_obs_t *o)
{
    static const char *const cands[] = {"/usr/share/common-licenses/GPL-3",
                                        "/usr/share/common-licenses/GPL-2",
                                        "/usr/share/common-licenses/Apache-2.0"};
    long pg = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
        struct stat st;
        if (lstat(cands[i], &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 4 * pg)
            continue;
        int pages = (int)(st.st_size / pg);
        if (pages > 64)
            pages = 64;
        int before = cached_pages(cands[i], pages, true);
        if (before < 0)
            continue;
        snprintf(o->cache_file, sizeof(o->cache_file), "%s", cands[i]);
        o->cache_pages = pages;
        o->cache_before = before;
        asb_chaos_host_env(h, "CACHE_FILE", "%s", cands[i]);
        return;
    }
    snprintf(o->plant_error, sizeof(o->plant_error),
             "no file of the host's /usr/share/common-licenses to cache");
}

/* Bytes the kernel counted read from a block device (its stat file's third field, sectors of
 * 512 bytes); -1 when it cannot be read. */
static int64_t disk_read_bytes(const char *stat_path)
{
    char *t = read_text(stat_path, 4096);
    unsigned long long ios, merges, sectors;
    int64_t v = t && sscanf(t, "%llu %llu %llu", &ios, &merges, &sectors) == 3
                    ? (int64_t)(sectors * 512ull)
                    : -1;
    free(t);
    return v;
}

/* The interpreter's own file (the sandbox sees the host's /usr), on the block device whose
 * read count the harness takes before and after the run. */
static void plant_disk(asb_chaos_host_t *h, asb_chaos_obs_t *o)
{
    char *real = realpath("/usr/bin/python3", NULL);
    struct stat st;
    if (!real || stat(real, &st) < 0 || major(st.st_dev) == 0) {
        snprintf(o->plant_error, sizeof(o->plant_error),
                 "/usr/bin/python3 is not on a block device of the host's");
        free(real);
        return;
    }
    snprintf(o->disk_stat, sizeof(o->disk_stat), "/sys/dev/block/%u:%u/stat", major(st.st_dev),
             minor(st.st_dev));
    o->disk_read_before = disk_read_bytes(o->disk_stat);
    if (o->disk_read_before < 0) {
        snprintf(o->plant_error, sizeof(o->plant_error), "%s cannot be read", o->disk_stat);
        o->disk_stat[0] = '\0';
        free(real);
        return;
    }
    snprintf(o->disk_file, sizeof(o->disk_file), "%s", real);
    asb_chaos_host_env(h, "READ_FILE", "%s", real);
    free(real);
}

static int plant_extras(asb_chaos_host_t *h, asb_chaos_obs_t *o, asb_error_t *err)
{
    if (h->plant & ASB_CHAOS_PLANT_CACHE)
        plant_cache(h, o);
    if (h->plant & ASB_CHAOS_PLANT_DISK)
        plant_disk(h, o);
    char rnd[ASB_CHAOS_SECRET_LEN + 1];
    if (h->plant & ASB_CHAOS_PLANT_VICTIM) {
        char *const argv[] = {"sleep", "30", NULL};
        char *const envp[] = {NULL};
        pid_t pid;
        int rc = posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, envp);
        if (rc != 0)
            return asb_err_sys(err, rc, "spawn victim");
        h->victim = pid;
        o->victim_planted = true;
        o->victim_pid = pid;
        asb_chaos_host_env(h, "VICTIM_PID", "%d", (int)pid);
    }
    if (h->plant & ASB_CHAOS_PLANT_SHM) {
        unsigned key = 0;
        if (asb_random_hex(rnd, ASB_CHAOS_SECRET_LEN / 2, err) < 0)
            return err->code;
        for (int i = 0; i < 8; i++)
            key = key * 31u + (unsigned)rnd[i];
        key |= 0x40000000u;
        h->shm_id = shmget((key_t)key, 4096, IPC_CREAT | IPC_EXCL | 0600);
        if (h->shm_id >= 0) {
            /* Said in the directory, for a reaper after a kill (only the id and key name it) */
            char path[320], line[64];
            snprintf(path, sizeof(path), "%s/shm", h->dir);
            snprintf(line, sizeof(line), "%d %u\n", h->shm_id, key);
            int sfd = write_file(path, line, O_CLOEXEC, err);
            if (sfd < 0) {
                shmctl(h->shm_id, IPC_RMID, NULL);
                h->shm_id = -1;
                return sfd;
            }
            close(sfd);
        }
        void *p = h->shm_id >= 0 ? shmat(h->shm_id, NULL, 0) : (void *)-1;
        if (p == (void *)-1) {
            snprintf(o->plant_error, sizeof(o->plant_error), "shmget/shmat: %s", strerror(errno));
        } else {
            memcpy(p, rnd, sizeof(rnd));
            shmdt(p);
            memcpy(o->canary_shm, rnd, sizeof(rnd));
            asb_chaos_host_env(h, "SHM_KEY", "%u", key);
        }
    }
    if (h->plant & ASB_CHAOS_PLANT_KEY) {
        char desc[64];
        snprintf(desc, sizeof(desc), ASB_CHAOS_TMP_PREFIX "%s", h->rnd);
        if (asb_random_hex(rnd, ASB_CHAOS_SECRET_LEN / 2, err) < 0)
            return err->code;
        h->key_id = syscall(SYS_add_key, "user", desc, rnd, strlen(rnd), KEY_SPEC_USER_KEYRING);
        if (h->key_id < 0) {
            snprintf(o->plant_error, sizeof(o->plant_error), "add_key: %s", strerror(errno));
        } else {
            memcpy(o->canary_key, rnd, sizeof(rnd));
            asb_chaos_host_env(h, "KEY_DESC", "%s", desc);
        }
    }
    if (h->plant & ASB_CHAOS_PLANT_FD) {
        char path[300];
        snprintf(path, sizeof(path), "%s/fdcanary", h->dir);
        if (asb_random_hex(rnd, ASB_CHAOS_SECRET_LEN / 2, err) < 0)
            return err->code;
        /* Deliberately NOT O_CLOEXEC: this is the leaked descriptor the attack hunts for. */
        if ((h->fd_canary = write_file(path, rnd, 0, err)) < 0)
            return h->fd_canary;
        memcpy(o->canary_fd, rnd, sizeof(rnd));
    }
    if (h->plant & ASB_CHAOS_PLANT_MOUNT) {
        /* A mount only the host's mount table has, under a random name: seeing its path in the
         * output is seeing the host's mount table (fixed markers such as " /dev/vda " could be
         * printed by a program that read nothing; red-team finding). */
        char name[ASB_CHAOS_SECRET_LEN + 1];
        if (asb_random_hex(name, ASB_CHAOS_SECRET_LEN / 2, err) < 0)
            return err->code;
        snprintf(h->planted_mount, sizeof(h->planted_mount), "%s/hostmount-%s", h->dir, name);
        if (mkdir(h->planted_mount, 0755) < 0)
            return asb_err_sys(err, errno, "mkdir %s", h->planted_mount);
        if (mount("asb-chaos", h->planted_mount, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=16k,mode=0755") < 0) {
            int e = errno;
            h->planted_mount[0] = '\0';
            return asb_err_sys(err, e, "mount the planted host tmpfs");
        }
        snprintf(o->planted_mount, sizeof(o->planted_mount), "%s", h->planted_mount);
    }
    if (h->plant & ASB_CHAOS_PLANT_SYSRQ) {
        o->sysrq_available = access("/proc/sysrq-trigger", F_OK) == 0;
        if (o->sysrq_available) {
            h->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (h->kmsg_fd < 0 || lseek(h->kmsg_fd, 0, SEEK_END) < 0)
                o->sysrq_available = false;
        }
    }
    return 0;
}

int asb_chaos_host_setup(asb_chaos_host_t *h, unsigned plant, asb_chaos_obs_t *o, asb_error_t *err)
{
    memset(h, 0, sizeof(*h));
    h->plant = plant;
    h->victim = -1;
    h->shm_id = -1;
    h->key_id = -1;
    h->fd_canary = h->kmsg_fd = -1;
    int rc, fd;
    char tag[96], hex[17];
    if ((rc = asb_owner_tag(tag, sizeof(tag))) < 0)
        return asb_err(err, rc, "owner tag");
    if ((rc = asb_random_hex(hex, 8, err)) < 0 || (rc = asb_random_hex(o->nonce, 16, err)) < 0)
        return rc;
    snprintf(h->rnd, sizeof(h->rnd), "%s-%s", tag + strlen(ASB_OWNER_PREFIX "-"), hex);
    snprintf(h->dir, sizeof(h->dir), "/tmp/" ASB_CHAOS_TMP_PREFIX "%s", h->rnd);
    if (mkdir(h->dir, 0755) < 0) {
        h->dir[0] = '\0';
        return asb_err_sys(err, errno, "mkdir harness dir");
    }
    snprintf(h->tmp_canary, sizeof(h->tmp_canary), "%s/canary", h->dir);
    snprintf(h->root_canary, sizeof(h->root_canary), "/root/.%s%s", ASB_CHAOS_TMP_PREFIX, h->rnd);
    snprintf(h->marker, sizeof(h->marker), "%s/marker", h->dir);
    snprintf(h->mount_target, sizeof(h->mount_target), "%s/mnt", h->dir);
    snprintf(h->docker_path, sizeof(h->docker_path), "%s/docker.sock", h->dir);
    snprintf(h->rootfs_targets[0], sizeof(h->rootfs_targets[0]), "/%s%s", ASB_CHAOS_TMP_PREFIX,
             h->rnd);
    snprintf(h->rootfs_targets[1], sizeof(h->rootfs_targets[1]), "/etc/%s%s", ASB_CHAOS_TMP_PREFIX,
             h->rnd);
    snprintf(o->mount_target, sizeof(o->mount_target), "%s", h->mount_target);
    if (mkdir(h->mount_target, 0755) < 0)
        return asb_err_sys(err, errno, "mkdir %s", h->mount_target);

    if ((rc = asb_random_hex(o->canary_tmp, ASB_CHAOS_SECRET_LEN / 2, err)) < 0 ||
        (rc = asb_random_hex(o->canary_root, ASB_CHAOS_SECRET_LEN / 2, err)) < 0)
        return rc;
    if ((fd = write_file(h->tmp_canary, o->canary_tmp, O_CLOEXEC, err)) < 0)
        return fd;
    close(fd);
    if ((fd = write_file(h->root_canary, o->canary_root, O_CLOEXEC, err)) < 0) {
        h->root_canary[0] = '\0';
        return fd;
    }
    close(fd);
    const char *secret = getenv("ASB_CHAOS_SECRET");
    if (secret)
        snprintf(o->secret, sizeof(o->secret), "%s", secret);
    else
        snprintf(o->plant_error, sizeof(o->plant_error),
                 "ASB_CHAOS_SECRET is not in the harness's environment");

    struct utsname u;
    if (uname(&u) == 0)
        snprintf(o->kernel_release, sizeof(o->kernel_release), "%s", u.release);
    char *boot = read_text("/proc/sys/kernel/random/boot_id", 64);
    if (boot) {
        boot[strcspn(boot, "\n")] = '\0';
        if (strlen(boot) == 36)
            snprintf(o->boot_id, sizeof(o->boot_id), "%s", boot);
        free(boot);
    }
    o->shadow = read_text("/etc/shadow", 64 * 1024);
    o->kcore_hex = hex_of("/proc/kcore", 0, 1024);
    o->devmem_hex = hex_of("/dev/mem", 0, 256);
    cgroup_targets(h);

    asb_chaos_host_env(h, "CANARY_ROOT", "%s", h->root_canary);
    asb_chaos_host_env(h, "CANARY_TMP", "%s", h->tmp_canary);
    asb_chaos_host_env(h, "MARKER", "%s", h->marker);
    asb_chaos_host_env(h, "MOUNT_TARGET", "%s", h->mount_target);
    asb_chaos_host_env(h, "DOCKER_DECOY", "%s", h->docker_path);
    asb_chaos_host_env(h, "ROOTFS_TARGETS", "%s:%s", h->rootfs_targets[0], h->rootfs_targets[1]);
    char cg[ASB_CHAOS_MAX_CGROUP_TARGETS * 300 + 1] = "";
    for (int i = 0; i < h->n_cgroup_targets; i++) {
        size_t l = strlen(cg);
        snprintf(cg + l, sizeof(cg) - l, "%s%s", i ? ":" : "", h->cgroup_targets[i]);
    }
    if (strlen(cg) < sizeof(h->env_store[0]) - 32)
        asb_chaos_host_env(h, "CGROUP_TARGETS", "%s", cg);
    return plant_extras(h, o, err);
}

static bool mounted_at(const char *path)
{
    char *mi = read_text("/proc/self/mountinfo", 1 << 20);
    if (!mi)
        return false;
    bool found = false;
    char *save = NULL;
    for (char *line = strtok_r(mi, "\n", &save); line && !found;
         line = strtok_r(NULL, "\n", &save)) {
        char mp[512];
        found = sscanf(line, "%*s %*s %*s %*s %511s", mp) == 1 && strcmp(mp, path) == 0;
    }
    free(mi);
    return found;
}

void asb_chaos_host_observe(asb_chaos_host_t *h, asb_chaos_obs_t *o)
{
    struct stat st;
    for (int i = 0; i < 2; i++)
        if (lstat(h->rootfs_targets[i], &st) == 0) {
            if (!o->host_files_created++)
                snprintf(o->host_file, sizeof(o->host_file), "%s", h->rootfs_targets[i]);
        }
    o->mount_appeared = mounted_at(h->mount_target);
    if (o->cache_file[0])
        o->cache_after = cached_pages(o->cache_file, o->cache_pages, false);
    if (o->disk_stat[0])
        o->disk_read_after = disk_read_bytes(o->disk_stat);
    for (int i = 0; i < h->n_cgroup_targets; i++)
        if (lstat(h->cgroup_targets[i], &st) == 0 && !o->cgroup_dirs_created++)
            snprintf(o->cgroup_dir, sizeof(o->cgroup_dir), "%s", h->cgroup_targets[i]);
    if (h->victim > 0) {
        int status;
        /* Any signal that ended or stopped it is the attack's success (red-team finding: a
         * SIGTERM'd victim was judged "survived"). A stopped one is still ours to kill. */
        /* A SIGKILL sent just before the run returned may not have ended the victim yet on
         * a loaded host (the positive control once read "survived"): it gets 300 ms, which a
         * `sleep 30` does not end in by itself. */
        pid_t w = 0;
        for (int i = 0; i < 60 && w == 0; i++) {
            w = waitpid(h->victim, &status, WNOHANG | WUNTRACED);
            if (w == 0)
                usleep(5000);
        }
        if (w == h->victim && WIFSTOPPED(status)) {
            o->victim_stopped = true;
            o->victim_signal = WSTOPSIG(status);
        } else if (w == h->victim) {
            o->victim_killed = WIFSIGNALED(status);
            o->victim_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
            h->victim = -1; /* reaped: nothing left to kill */
        }
    }
    if (h->kmsg_fd >= 0) {
        char rec[8192];
        for (;;) {
            ssize_t n = read(h->kmsg_fd, rec, sizeof(rec) - 1);
            if (n < 0 && errno == EPIPE)
                continue; /* records overwritten while we read: keep going */
            if (n <= 0)
                break;
            rec[n] = '\0';
            if (strcasestr(rec, "sysrq"))
                o->sysrq_lines++;
        }
    }
}

long long asb_chaos_host_marker_mtime(const asb_chaos_host_t *h)
{
    struct stat st;
    if (stat(h->marker, &st) < 0)
        return 0;
    return (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
}

void asb_chaos_host_teardown(asb_chaos_host_t *h)
{
    if (h->victim > 0) {
        kill(h->victim, SIGKILL);
        while (waitpid(h->victim, NULL, 0) < 0 && errno == EINTR)
            ;
        h->victim = -1;
    }
    if (h->shm_id >= 0)
        shmctl(h->shm_id, IPC_RMID, NULL);
    if (h->key_id >= 0)
        syscall(SYS_keyctl, KEYCTL_INVALIDATE, h->key_id);
    if (h->fd_canary >= 0)
        close(h->fd_canary);
    if (h->kmsg_fd >= 0)
        close(h->kmsg_fd);
    h->shm_id = h->fd_canary = h->kmsg_fd = -1;
    h->key_id = -1;
    if (h->root_canary[0])
        unlink(h->root_canary);
    for (int i = 0; i < 2; i++)
        if (h->rootfs_targets[i][0])
            unlink(h->rootfs_targets[i]);
    for (int i = 0; i < h->n_cgroup_targets; i++)
        rmdir(h->cgroup_targets[i]);
    if (h->dir[0]) {
        /* A mount the attack made (possibly stacked), and ours, go before the tree is removed. */
        for (int i = 0; i < 8 && mounted_at(h->mount_target); i++)
            umount2(h->mount_target, MNT_DETACH);
        for (int i = 0; i < 8 && h->planted_mount[0] && mounted_at(h->planted_mount); i++)
            umount2(h->planted_mount, MNT_DETACH);
        h->planted_mount[0] = '\0';
        int parent = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        asb_error_t e;
        if (parent >= 0) {
            asb_rmtree_at(parent, h->dir + strlen("/tmp/"), &e);
            close(parent);
        }
        h->dir[0] = '\0';
    }
}

#define KEYCTL_SEARCH 10

/* Unmount everything mounted at or under dir (an attack's stacked mounts, the planted tmpfs). */
static void unmount_under(const char *dir)
{
    size_t dl = strlen(dir);
    for (int pass = 0; pass < 16; pass++) {
        char *mi = read_text("/proc/self/mountinfo", 1 << 20);
        if (!mi)
            return;
        bool any = false;
        char *save = NULL;
        for (char *line = strtok_r(mi, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char mp[512];
            if (sscanf(line, "%*s %*s %*s %*s %511s", mp) == 1 && strncmp(mp, dir, dl) == 0 &&
                (mp[dl] == '\0' || mp[dl] == '/') && umount2(mp, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
                any = true;
        }
        free(mi);
        if (!any)
            return;
    }
}

/* The SysV segment a dead harness recorded in dir/shm: removed only while the id still names
 * a segment with that key (ids are reused). */
static void reap_shm(int dirfd, pid_t owner)
{
    int fd = openat(dirfd, "shm", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
        close(fd);
        return;
    }
    if (fd < 0)
        return;
    char buf[64] = "";
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    int id;
    unsigned key;
    struct shmid_ds ds;
    /* Only a segment this harness made: our key space, created by us (uid) and by that pid. */
    if (n > 0 && sscanf(buf, "%d %u", &id, &key) == 2 && id >= 0 && (key & 0x40000000u) &&
        shmctl(id, IPC_STAT, &ds) == 0 && (unsigned)ds.shm_perm.__key == key &&
        ds.shm_perm.cuid == geteuid() && ds.shm_cpid == owner)
        shmctl(id, IPC_RMID, NULL);
}

static bool reap_one(const char *name, char **report)
{
    /* name: asb-chaos-<pid>-<start>-<hex> */
    char tagged[128];
    pid_t pid;
    uint64_t start, ns;
    const char *rnd = name + strlen(ASB_CHAOS_TMP_PREFIX);
    snprintf(tagged, sizeof(tagged), ASB_OWNER_PREFIX "-%s", rnd);
    if (!asb_owner_parse(tagged, &pid, &start, &ns) || asb_owner_alive(pid, start, ns))
        return false;
    char dir[256], path[320];
    snprintf(dir, sizeof(dir), "/tmp/%s", name);
    /* Only a directory a harness of ours made: ours (root's), a real directory, writable by no
     * one else. /tmp is sticky, so nobody else can rename it or put anything in its place, and
     * nobody else can make a file in it. Anyone may make /tmp/asb-chaos-1-0-x: without this,
     * its shm file named a stranger's segment for root to remove, and mounts under it (or a
     * symlink swapped in) chose what root unmounted (review finding). */
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (dirfd < 0)
        return false;
    if (fstat(dirfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(dirfd);
        return false;
    }
    unmount_under(dir);
    reap_shm(dirfd, pid);
    close(dirfd);
    long key = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", name, 0);
    if (key >= 0)
        syscall(SYS_keyctl, KEYCTL_INVALIDATE, key);
    snprintf(path, sizeof(path), "/root/.%s", name);
    unlink(path);
    snprintf(path, sizeof(path), "/%s", name);
    unlink(path);
    snprintf(path, sizeof(path), "/etc/%s", name);
    unlink(path);
    asb_chaos_host_t h; /* only for the list of cgroup hierarchies */
    memset(&h, 0, sizeof(h));
    snprintf(h.rnd, sizeof(h.rnd), "%s", rnd);
    cgroup_targets(&h);
    for (int i = 0; i < h.n_cgroup_targets; i++)
        rmdir(h.cgroup_targets[i]);
    int parent = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    asb_error_t e;
    bool gone = parent >= 0 && asb_rmtree_at(parent, name, &e) == 0;
    if (parent >= 0)
        close(parent);
    char line[400];
    snprintf(line, sizeof(line), "%s chaos leftovers of dead harness %d: %s",
             gone ? "removed" : "could not remove all", (int)pid, dir);
    asb_report_append(report, line);
    return gone;
}

int asb_chaos_reap_stale(char **report)
{
    DIR *d = opendir("/tmp");
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *de;
    /* Names first, then the work: removing entries while reading the directory may skip some. */
    char(*names)[256] = NULL;
    size_t n = 0;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, ASB_CHAOS_TMP_PREFIX, strlen(ASB_CHAOS_TMP_PREFIX)) != 0 ||
            de->d_type != DT_DIR || strlen(de->d_name) >= 200)
            continue;
        char(*more)[256] = realloc(names, (n + 1) * sizeof(*names));
        if (!more)
            break;
        names = more;
        snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++)
        removed += reap_one(names[i], report);
    free(names);
    return removed;
}
