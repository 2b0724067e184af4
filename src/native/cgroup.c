/* cgroup.c - a run's cgroup: create with limits, attach, stats, kill, destroy (v1 and v2).
 * Everything goes through O_PATH directory fds and openat, one small write per control file:
 * create+destroy is on the path of every sandbox run. */
#include "native/cgroup.h"

#include "core/error.h"
#include "core/owner.h"
#include "native/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static const asb_cgroup_dir_t *dir_with(const asb_cgroup_t *cg, unsigned ctrl)
{
    for (size_t i = 0; i < cg->n_dirs; i++) {
        if (cg->dirs[i].controllers & ctrl)
            return &cg->dirs[i];
    }
    return NULL;
}

/* A fresh v2 cgroup only gets memory.*, pids.* and cpu.* files when its parent's
 * cgroup.subtree_control enables them, and the parent only can when the root's does. Read first:
 * usually everything is enabled already and writing would take the cgroup lock for nothing. */
static int enable_v2_controllers(int root_fd, int parent_fd, const char *mount, const char *parent,
                                 unsigned want, asb_error_t *err)
{
    static const struct {
        unsigned bit;
        const char *cmd;
    } ctl[] = {{ASB_CGROUP_CTRL_MEMORY, "+memory"},
               {ASB_CGROUP_CTRL_PIDS, "+pids"},
               {ASB_CGROUP_CTRL_CPU, "+cpu"},
               {ASB_CGROUP_CTRL_IO, "+io"}};
    char buf[512];
    size_t len;
    int rc = asb_cgroup_fs_read_at(parent_fd, "cgroup.subtree_control", buf, sizeof(buf), &len);
    if (rc < 0)
        return asb_err_sys(err, -rc, "cgroup: read %s/%s/cgroup.subtree_control", mount, parent);
    if ((asb_cgroup_parse_controllers(buf, len) & want) == want)
        return 0;

    const int fds[2] = {root_fd, parent_fd};
    for (int level = 0; level < 2; level++) {
        rc = asb_cgroup_fs_read_at(fds[level], "cgroup.subtree_control", buf, sizeof(buf), &len);
        if (rc < 0)
            return asb_err_sys(err, -rc, "cgroup: read %s%s%s/cgroup.subtree_control", mount,
                               level ? "/" : "", level ? parent : "");
        unsigned have = asb_cgroup_parse_controllers(buf, len);
        for (size_t i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
            if (!(want & ctl[i].bit) || (have & ctl[i].bit))
                continue;
            rc = asb_cgroup_fs_write_at(fds[level], "cgroup.subtree_control", ctl[i].cmd);
            /* EBUSY: processes live in that cgroup, and cgroup v2 gives controllers to the
             * children of a cgroup only when it holds none ("no internal processes"); the host's
             * real root is exempt, a container's namespace root is not (v2 guest finding,
             * session 15). Said so, with the remedy. */
            if (rc == -EBUSY)
                return asb_err_sys(err, -rc,
                                   "cgroup: enable %s in %s%s%s/cgroup.subtree_control: processes "
                                   "live in that cgroup, and cgroup v2 enables controllers below a "
                                   "cgroup only when it holds none (move them into a child cgroup "
                                   "first, as a container's init does)",
                                   ctl[i].cmd + 1, mount, level ? "/" : "", level ? parent : "");
            if (rc < 0)
                return asb_err_sys(err, -rc, "cgroup: enable %s in %s%s%s/cgroup.subtree_control",
                                   ctl[i].cmd + 1, mount, level ? "/" : "", level ? parent : "");
        }
    }
    return 0;
}

/* Open <mount>/<host parent>, creating it on first use (another process may race us to it:
 * EEXIST is fine). */
static int open_parent(const asb_cgroup_host_t *host, const asb_cgroup_hierarchy_t *h,
                       int *parent_fd, asb_error_t *err)
{
    char path[ASB_CGROUP_PATH_MAX + ASB_CGROUP_PARENT_NAME_MAX + 1];
    snprintf(path, sizeof(path), "%s/%s", h->mount, host->parent);
    int fd = open(path, DIR_FLAGS);
    int root_fd = -1, rc = 0;
    if (fd < 0 && errno != ENOENT)
        return asb_err_sys(err, errno, "cgroup: open %s", path);
    if (fd < 0 || host->version == ASB_CGROUP_V2) {
        root_fd = open(h->mount, DIR_FLAGS);
        if (root_fd < 0) {
            rc = asb_err_sys(err, errno, "cgroup: open %s", h->mount);
            goto out;
        }
    }
    if (fd < 0) {
        if (mkdirat(root_fd, host->parent, 0755) < 0 && errno != EEXIST) {
            rc = asb_err_sys(err, errno, "cgroup: create %s", path);
            goto out;
        }
        fd = openat(root_fd, host->parent, DIR_FLAGS);
        if (fd < 0) {
            rc = asb_err_sys(err, errno, "cgroup: open %s", path);
            goto out;
        }
    }
    if (host->version == ASB_CGROUP_V2 && h->controllers) {
        rc = enable_v2_controllers(root_fd, fd, h->mount, host->parent, h->controllers, err);
        if (rc < 0)
            goto out;
    }
out:
    if (root_fd >= 0)
        close(root_fd);
    if (rc < 0 && fd >= 0)
        close(fd);
    else
        *parent_fd = fd;
    return rc;
}

static int write_limit(const asb_cgroup_dir_t *d, const char *file, const char *value,
                       asb_error_t *err)
{
    int rc = asb_cgroup_fs_write_at(d->dir_fd, file, value);
    if (rc < 0)
        return asb_err_sys(err, -rc, "cgroup: write \"%s\" to %s/%s", value, d->path, file);
    return 0;
}

/* Swap must be limited to nothing, or be impossible: a run that may swap escapes its memory limit
 * into the host's swap (and slows the whole host while doing so). The file is missing when the
 * kernel does no swap accounting; then only "no swap active right now" makes the run acceptable,
 * and that is checked now, not at detect time. */
static int limit_swap(const asb_cgroup_dir_t *d, const char *file, const char *value,
                      asb_error_t *err)
{
    int rc = asb_cgroup_fs_write_at(d->dir_fd, file, value);
    if (rc == 0)
        return 0;
    if (rc != -ENOENT)
        return asb_err_sys(err, -rc, "cgroup: write \"%s\" to %s/%s", value, d->path, file);
    char buf[4096];
    size_t len;
    rc = asb_cgroup_fs_read_at(AT_FDCWD, "/proc/swaps", buf, sizeof(buf), &len);
    if (rc < 0)
        return asb_err_sys(err, -rc, "cgroup: %s is missing and /proc/swaps cannot be read", file);
    if (asb_cgroup_parse_swaps_active(buf, len))
        return asb_err(err, -ENOTSUP,
                       "cgroup: swap is active but cannot be limited (%s/%s missing: no swap "
                       "accounting); refusing to run with swap",
                       d->path, file);
    return 0;
}

uint64_t asb_cgroup_v1_tcp_bytes(uint64_t bytes)
{
    uint64_t q = bytes / 4;
    return q < ASB_MIB ? ASB_MIB : q;
}

static int apply_memory(const asb_cgroup_t *cg, uint64_t bytes, asb_error_t *err)
{
    const asb_cgroup_dir_t *d = dir_with(cg, ASB_CGROUP_CTRL_MEMORY);
    char val[32];
    snprintf(val, sizeof(val), "%" PRIu64, bytes);
    int rc;
    if (cg->version == ASB_CGROUP_V2) {
        if ((rc = write_limit(d, "memory.max", val, err)) < 0)
            return rc;
        if ((rc = limit_swap(d, "memory.swap.max", "0", err)) < 0)
            return rc;
        /* OOM kills the whole run, not one process of it: a half-killed run (a fork server
         * without its workers) would go on using its remaining memory and report nonsense. */
        return write_limit(d, "memory.oom.group", "1", err);
    }
    /* v1: memory+swap may never be below memory alone, so set memory first, then memsw to the
     * same value: no room left for swap. */
    if ((rc = write_limit(d, "memory.limit_in_bytes", val, err)) < 0 ||
        (rc = limit_swap(d, "memory.memsw.limit_in_bytes", val, err)) < 0)
        return rc;
    /* v1 charges TCP socket buffers only to a memcg whose TCP limit was set, and then against
     * that limit, not memory.limit_in_bytes (v2 counts them in memory.max). Unset, one 128 MiB
     * run held 2.2 GB of loopback TCP buffers (red-team finding). A quarter of the memory limit
     * more for sockets, set before any process joins (sockets made later are charged). Without
     * the file the limit does not hold: refused. */
    char tcp[32];
    snprintf(tcp, sizeof(tcp), "%" PRIu64, asb_cgroup_v1_tcp_bytes(bytes));
    rc = asb_cgroup_fs_write_at(d->dir_fd, "memory.kmem.tcp.limit_in_bytes", tcp);
    if (rc < 0)
        return asb_err_sys(err, -rc,
                           "cgroup: cannot limit TCP socket memory (%s/memory.kmem.tcp."
                           "limit_in_bytes); without it a run's socket buffers escape its "
                           "memory limit on cgroup v1",
                           d->path);
    return 0;
}

static int apply_cpu(const asb_cgroup_t *cg, double cpus, asb_error_t *err)
{
    const asb_cgroup_dir_t *d = dir_with(cg, ASB_CGROUP_CTRL_CPU);
    double q = ceil(cpus * ASB_CGROUP_CPU_PERIOD_US);
    uint64_t quota = q < ASB_CGROUP_CPU_MIN_QUOTA_US ? ASB_CGROUP_CPU_MIN_QUOTA_US : (uint64_t)q;
    char val[64];
    int rc;
    if (cg->version == ASB_CGROUP_V2) {
        snprintf(val, sizeof(val), "%" PRIu64 " %u", quota, (unsigned)ASB_CGROUP_CPU_PERIOD_US);
        return write_limit(d, "cpu.max", val, err);
    }
    snprintf(val, sizeof(val), "%u", (unsigned)ASB_CGROUP_CPU_PERIOD_US);
    if ((rc = write_limit(d, "cpu.cfs_period_us", val, err)) < 0)
        return rc;
    snprintf(val, sizeof(val), "%" PRIu64, quota);
    return write_limit(d, "cpu.cfs_quota_us", val, err);
}

/* Disk reads, throttled on every block device with media: a run reads host files through its
 * read-only mounts, and O_DIRECT (or rereading more than its memory limit caches) takes them
 * from the disk itself, at the disk's speed, slowing every other sandbox and host process that
 * misses the cache (red-team measurement, session 19: 13 GB in 9 s, host 4 KiB reads from
 * 14,400/s to 335/s). A device that disappears between the listing and the write is skipped. */
static int apply_io(asb_cgroup_t *cg, const asb_cgroup_limits_t *lim, asb_error_t *err)
{
    const asb_cgroup_dir_t *d = dir_with(cg, ASB_CGROUP_CTRL_IO);
    if (!d)
        return asb_err(err, -ENOTSUP, "cgroup: the host has no io controller");
    unsigned(*devs)[2] = cg->io_devs;
    size_t n;
    int rc = asb_cgroup_fs_block_devices(devs, ASB_CGROUP_MAX_IO_DEVICES, &n);
    cg->n_io_devs = rc == 0 ? n : 0;
    if (rc == -E2BIG)
        return asb_err(err, rc, "cgroup: more than %d block devices to throttle disk reads on",
                       ASB_CGROUP_MAX_IO_DEVICES);
    if (rc < 0)
        return asb_err_sys(err, -rc, "cgroup: list the block devices in /sys/block");
    for (size_t i = 0; i < n; i++) {
        char val[96];
        if (cg->version == ASB_CGROUP_V2) {
            snprintf(val, sizeof(val), "%u:%u rbps=%" PRIu64 " riops=%" PRIu64, devs[i][0],
                     devs[i][1], lim->io_read_bps, lim->io_read_iops);
            rc = asb_cgroup_fs_write_at(d->dir_fd, "io.max", val);
            if (rc == -ENODEV)
                continue;
            if (rc < 0)
                return asb_err_sys(err, -rc, "cgroup: write \"%s\" to %s/io.max", val, d->path);
            continue;
        }
        static const char *const files[] = {"blkio.throttle.read_bps_device",
                                            "blkio.throttle.read_iops_device"};
        const uint64_t vals[] = {lim->io_read_bps, lim->io_read_iops};
        for (int f = 0; f < 2; f++) {
            if (!vals[f])
                continue;
            snprintf(val, sizeof(val), "%u:%u %" PRIu64, devs[i][0], devs[i][1], vals[f]);
            rc = asb_cgroup_fs_write_at(d->dir_fd, files[f], val);
            if (rc == -ENODEV)
                break;
            if (rc < 0)
                return asb_err_sys(err, -rc, "cgroup: write \"%s\" to %s/%s", val, d->path,
                                   files[f]);
        }
    }
    return 0;
}

void asb_cgroup_lift_io(asb_cgroup_t *cg)
{
    const asb_cgroup_dir_t *d = dir_with(cg, ASB_CGROUP_CTRL_IO);
    if (!d || d->dir_fd < 0 || cg->io_lifted)
        return;
    cg->io_lifted = true;
    for (size_t i = 0; i < cg->n_io_devs; i++) {
        char val[64];
        if (cg->version == ASB_CGROUP_V2) {
            snprintf(val, sizeof(val), "%u:%u rbps=max riops=max", cg->io_devs[i][0],
                     cg->io_devs[i][1]);
            (void)asb_cgroup_fs_write_at(d->dir_fd, "io.max", val);
            continue;
        }
        snprintf(val, sizeof(val), "%u:%u 0", cg->io_devs[i][0], cg->io_devs[i][1]);
        (void)asb_cgroup_fs_write_at(d->dir_fd, "blkio.throttle.read_bps_device", val);
        (void)asb_cgroup_fs_write_at(d->dir_fd, "blkio.throttle.read_iops_device", val);
    }
}

static int check_request(const asb_cgroup_host_t *host, const char *run_id,
                         const asb_cgroup_limits_t *lim, asb_error_t *err)
{
    if (host->version != ASB_CGROUP_V1 && host->version != ASB_CGROUP_V2)
        return asb_err(err, -EINVAL, "cgroup: host not detected");
    if (host->n_hierarchies == 0 || host->n_hierarchies > ASB_CGROUP_MAX_HIERARCHIES)
        return asb_err(err, -EINVAL, "cgroup: host has %zu hierarchies", host->n_hierarchies);
    if (!asb_cgroup_valid_parent(host->parent))
        return asb_err(err, -EINVAL, "cgroup: invalid parent directory name");
    if (!asb_cgroup_valid_run_id(run_id))
        return asb_err(err, -EINVAL, "cgroup: invalid run id");
    /* cpus is a double from a config: reject NaN, negatives and values whose quota overflows. */
    if (!(lim->cpus >= 0.0) || lim->cpus > 1e6)
        return asb_err(err, -EINVAL, "cgroup: invalid cpu limit %g", lim->cpus);
    unsigned need = (lim->memory_bytes ? ASB_CGROUP_CTRL_MEMORY : 0) |
                    (lim->pids ? ASB_CGROUP_CTRL_PIDS : 0) |
                    (lim->cpus > 0.0 ? ASB_CGROUP_CTRL_CPU : 0) |
                    (lim->io_read_bps || lim->io_read_iops ? ASB_CGROUP_CTRL_IO : 0);
    unsigned missing = need & ~host->controllers;
    if (missing) {
        char names[64];
        asb_cgroup_controller_names(missing, names, sizeof(names));
        return asb_err(err, -ENOTSUP, "cgroup: the host has no %s controller", names);
    }
    return 0;
}

int asb_cgroup_create_for_owner(asb_cgroup_t *cg, const asb_cgroup_host_t *host, pid_t owner_pid,
                                uint64_t owner_start, const char *run_id,
                                const asb_cgroup_limits_t *lim, asb_error_t *err)
{
    memset(cg, 0, sizeof(*cg));
    int rc = check_request(host, run_id, lim, err);
    if (rc < 0)
        return rc;
    cg->version = host->version;
    /* The owner's pid is its pid in this process's pid namespace (the owner is this process or
     * one a test made): the name says which, so reapers elsewhere leave it alone. */
    uint64_t pidns = asb_owner_pidns_ino();
    if (pidns == 0)
        return asb_err_sys(err, errno ? errno : EIO, "cgroup: stat /proc/self/ns/pid");
    rc = asb_cgroup_format_name(cg->name, sizeof(cg->name), owner_pid, owner_start, pidns, run_id);
    if (rc < 0)
        return asb_err(err, rc, "cgroup: cannot name the run's cgroup");

    for (size_t i = 0; i < host->n_hierarchies; i++) {
        const asb_cgroup_hierarchy_t *h = &host->hierarchies[i];
        asb_cgroup_dir_t *d = &cg->dirs[i];
        d->controllers = h->controllers;
        d->parent_fd = -1;
        d->dir_fd = -1;
        cg->n_dirs = i + 1; /* from here on destroy knows this entry */
        int n = snprintf(d->path, sizeof(d->path), "%s/%s/%s", h->mount, host->parent, cg->name);
        if (n < 0 || (size_t)n >= sizeof(d->path)) {
            rc = asb_err(err, -ENAMETOOLONG, "cgroup: path under %s too long", h->mount);
            goto fail;
        }
        if ((rc = open_parent(host, h, &d->parent_fd, err)) < 0)
            goto fail;
        if (mkdirat(d->parent_fd, cg->name, 0755) < 0) {
            /* EEXIST is never "fine" here: the name is unique to this owner and run, so an
             * existing directory is not ours to reuse or remove. */
            rc = asb_err_sys(err, errno, "cgroup: create %s", d->path);
            goto fail;
        }
        d->created = true;
        d->dir_fd = openat(d->parent_fd, cg->name, DIR_FLAGS);
        if (d->dir_fd < 0) {
            rc = asb_err_sys(err, errno, "cgroup: open %s", d->path);
            goto fail;
        }
    }

    if (lim->memory_bytes && (rc = apply_memory(cg, lim->memory_bytes, err)) < 0)
        goto fail;
    if (lim->pids) {
        char val[32];
        snprintf(val, sizeof(val), "%" PRIu64, lim->pids);
        if ((rc = write_limit(dir_with(cg, ASB_CGROUP_CTRL_PIDS), "pids.max", val, err)) < 0)
            goto fail;
    }
    if (lim->cpus > 0.0 && (rc = apply_cpu(cg, lim->cpus, err)) < 0)
        goto fail;
    if ((lim->io_read_bps || lim->io_read_iops) && (rc = apply_io(cg, lim, err)) < 0)
        goto fail;
    return 0;

fail:;
    asb_error_t ignored;
    (void)asb_cgroup_destroy(cg, &ignored); /* the first error is the one worth reporting */
    return rc;
}

int asb_cgroup_create(asb_cgroup_t *cg, const asb_cgroup_host_t *host, const char *run_id,
                      const asb_cgroup_limits_t *lim, asb_error_t *err)
{
    uint64_t start;
    int rc = asb_cgroup_fs_starttime(0, &start);
    if (rc < 0) {
        memset(cg, 0, sizeof(*cg));
        return asb_err_sys(err, -rc, "cgroup: read /proc/self/stat");
    }
    return asb_cgroup_create_for_owner(cg, host, getpid(), start, run_id, lim, err);
}

int asb_cgroup_attach(asb_cgroup_t *cg, pid_t pid, asb_error_t *err)
{
    if (cg->n_dirs == 0)
        return asb_err(err, -EINVAL, "cgroup: attach before create");
    char val[16];
    snprintf(val, sizeof(val), "%d", (int)pid);
    for (size_t i = 0; i < cg->n_dirs; i++) {
        const asb_cgroup_dir_t *d = &cg->dirs[i];
        if (d->dir_fd < 0)
            return asb_err(err, -EINVAL, "cgroup: attach to %s: not open", d->path);
        int rc = asb_cgroup_fs_write_at(d->dir_fd, "cgroup.procs", val);
        if (rc < 0)
            return asb_err_sys(err, -rc, "cgroup: attach pid %d to %s", (int)pid, d->path);
    }
    return 0;
}

int asb_cgroup_dirfd_v2(const asb_cgroup_t *cg)
{
    if (cg->version != ASB_CGROUP_V2 || cg->n_dirs != 1)
        return -1;
    return cg->dirs[0].dir_fd;
}

int asb_cgroup_open_self_join(const asb_cgroup_t *cg, int *fds, size_t max, asb_error_t *err)
{
    if (cg->version != ASB_CGROUP_V1)
        return asb_err(err, -EINVAL, "cgroup: joining through tasks files is for v1");
    if (cg->n_dirs > max)
        return asb_err(err, -E2BIG, "cgroup: too many hierarchies");
    for (size_t i = 0; i < cg->n_dirs; i++) {
        fds[i] = openat(cg->dirs[i].dir_fd, "tasks", O_WRONLY | O_CLOEXEC);
        if (fds[i] < 0) {
            int e = errno;
            for (size_t j = 0; j < i; j++)
                close(fds[j]);
            return asb_err_sys(err, e, "cgroup: open %s/tasks", cg->dirs[i].path);
        }
    }
    return (int)cg->n_dirs;
}

static bool has_controller(const char *list, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && list[j] != ',')
            j++;
        if (j - i == n && memcmp(list + i, name, n) == 0)
            return true;
        i = j + 1;
    }
    return false;
}

int asb_cgroup_has_pid(const asb_cgroup_t *cg, pid_t pid, asb_error_t *err)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return asb_err_sys(err, errno, "cgroup: open %s", path);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    /* The hierarchies the run has a directory in: a controller the host has but did not mount
     * (a v1 blkio nobody mounted) is not the run's to be in. */
    static const struct {
        unsigned bit;
        const char *name;
    } ours[] = {{ASB_CGROUP_CTRL_MEMORY, "memory"},
                {ASB_CGROUP_CTRL_PIDS, "pids"},
                {ASB_CGROUP_CTRL_CPU, "cpu"},
                {ASB_CGROUP_CTRL_CPUACCT, "cpuacct"},
                {ASB_CGROUP_CTRL_IO, "blkio"}};
    unsigned have = 0;
    for (size_t i = 0; i < cg->n_dirs; i++)
        have |= cg->dirs[i].controllers;
    size_t want = 0, found = 0, name_len = strlen(cg->name);
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        const char *ctrls = c1 + 1, *cpath = c2 + 1;
        size_t clen = (size_t)(c2 - ctrls);
        bool mine = false;
        if (cg->version == ASB_CGROUP_V2) {
            mine = clen == 0 && c1 - line == 1 && line[0] == '0';
        } else {
            for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
                mine |= (have & ours[i].bit) && has_controller(ctrls, clen, ours[i].name);
        }
        if (!mine)
            continue;
        want++;
        size_t plen = strlen(cpath);
        if (plen > name_len && cpath[plen - name_len - 1] == '/' &&
            strcmp(cpath + plen - name_len, cg->name) == 0)
            found++;
        else
            return asb_err(err, -EPERM, "cgroup: pid %d is not in the run's cgroup (%s)", (int)pid,
                           line);
    }
    if (want == 0 || want != (cg->version == ASB_CGROUP_V2 ? 1 : cg->n_dirs))
        return asb_err(err, -EPERM, "cgroup: pid %d: %zu of the run's hierarchies seen", (int)pid,
                       found);
    return 0;
}

/* Read a counter that must exist (rc 0) or may be absent on older kernels (optional: 0). */
static int stat_u64(const asb_cgroup_dir_t *d, const char *file, const char *key, bool optional,
                    uint64_t *out, asb_error_t *err)
{
    char buf[2048];
    size_t len;
    *out = 0;
    int rc = asb_cgroup_fs_read_at(d->dir_fd, file, buf, sizeof(buf), &len);
    if (rc == -ENOENT && optional)
        return 0;
    if (rc < 0)
        return asb_err_sys(err, -rc, "cgroup: read %s/%s", d->path, file);
    rc = key ? asb_cgroup_parse_key_u64(buf, len, key, out) : asb_cgroup_parse_u64(buf, len, out);
    if (rc == -ENOENT && optional)
        return 0;
    if (rc < 0)
        return asb_err(err, rc, "cgroup: cannot parse %s%s%s in %s/%s", key ? "\"" : "",
                       key ? key : "value", key ? "\"" : "", d->path, file);
    return 0;
}

int asb_cgroup_read_stats(const asb_cgroup_t *cg, asb_cgroup_stats_t *st, asb_error_t *err)
{
    memset(st, 0, sizeof(*st));
    if (cg->n_dirs == 0)
        return asb_err(err, -EINVAL, "cgroup: stats before create");
    const asb_cgroup_dir_t *mem = dir_with(cg, ASB_CGROUP_CTRL_MEMORY);
    const asb_cgroup_dir_t *pids = dir_with(cg, ASB_CGROUP_CTRL_PIDS);
    int rc;
    if (cg->version == ASB_CGROUP_V2) {
        const asb_cgroup_dir_t *d = &cg->dirs[0];
        if (mem) {
            /* The cgroup's own events, hierarchical over its subtree: nothing the workload prints
             * or writes can move them. oom_group_kill (6.x) counts the group kills oom.group
             * causes; the victim kill is in oom_kill too, but take the larger to be safe. */
            /* One read of memory.events for its three counters (this runs after every run). */
            char ev[2048];
            size_t len;
            uint64_t kills, group_kills = 0, hits, ooms;
            if ((rc = asb_cgroup_fs_read_at(d->dir_fd, "memory.events", ev, sizeof(ev), &len)) < 0)
                return asb_err_sys(err, -rc, "cgroup: read %s/memory.events", d->path);
            if (asb_cgroup_parse_key_u64(ev, len, "oom_kill", &kills) < 0 ||
                asb_cgroup_parse_key_u64(ev, len, "max", &hits) < 0 ||
                asb_cgroup_parse_key_u64(ev, len, "oom", &ooms) < 0)
                return asb_err(err, -EINVAL, "cgroup: cannot parse %s/memory.events", d->path);
            rc = asb_cgroup_parse_key_u64(ev, len, "oom_group_kill", &group_kills);
            if (rc < 0 && rc != -ENOENT) /* absent before 6.x */
                return asb_err(err, rc,
                               "cgroup: cannot parse \"oom_group_kill\" in %s/memory.events",
                               d->path);
            st->oom_kills = kills > group_kills ? kills : group_kills;
            st->memory_limit_reached = hits > 0;
            st->limit_oom = ooms > 0;
            if ((rc = stat_u64(d, "memory.peak", NULL, true, &st->memory_peak_bytes, err)) < 0)
                return rc;
        }
        uint64_t usec;
        if ((rc = stat_u64(d, "cpu.stat", "usage_usec", false, &usec, err)) < 0)
            return rc;
        st->cpu_usage_ns = usec * 1000;
    } else {
        const asb_cgroup_dir_t *acct = dir_with(cg, ASB_CGROUP_CTRL_CPUACCT);
        if (mem) {
            /* "oom_kill" appeared in 4.13; before that v1 gives no per-cgroup kill count. */
            uint64_t fails, limit;
            if ((rc = stat_u64(mem, "memory.oom_control", "oom_kill", false, &st->oom_kills, err)) <
                    0 ||
                (rc = stat_u64(mem, "memory.max_usage_in_bytes", NULL, false,
                               &st->memory_peak_bytes, err)) < 0 ||
                (rc = stat_u64(mem, "memory.failcnt", NULL, false, &fails, err)) < 0 ||
                (rc = stat_u64(mem, "memory.limit_in_bytes", NULL, false, &limit, err)) < 0)
                return rc;
            /* With swap accounting the memory+swap counter is charged first, and where its limit
             * refuses, its own failcnt is the one that may move (optional: no swap accounting). */
            uint64_t memsw_fails;
            if ((rc = stat_u64(mem, "memory.memsw.failcnt", NULL, true, &memsw_fails, err)) < 0)
                return rc;
            st->memory_limit_reached =
                fails > 0 || memsw_fails > 0 || st->memory_peak_bytes >= limit;
            st->limit_oom = st->memory_limit_reached;
        }
        if (acct && (rc = stat_u64(acct, "cpuacct.usage", NULL, false, &st->cpu_usage_ns, err)) < 0)
            return rc;
    }
    if (pids && (rc = stat_u64(pids, "pids.current", NULL, false, &st->pids_current, err)) < 0)
        return rc;
    const asb_cgroup_dir_t *io = dir_with(cg, ASB_CGROUP_CTRL_IO);
    if (io) {
        const char *file =
            cg->version == ASB_CGROUP_V2 ? "io.stat" : "blkio.throttle.io_service_bytes";
        /* Six lines of up to ~40 bytes per device on v1: room for every device we throttle,
         * and a file that fills it is an error, not a silent undercount (review finding). */
        size_t cap = (size_t)ASB_CGROUP_MAX_IO_DEVICES * 512 + 4096, len;
        char *buf = malloc(cap);
        if (!buf)
            return asb_err_sys(err, ENOMEM, "cgroup: read %s/%s", io->path, file);
        rc = asb_cgroup_fs_read_at(io->dir_fd, file, buf, cap, &len);
        if (rc == 0 && len + 1 >= cap)
            rc = -EFBIG;
        if (rc == 0 && asb_cgroup_parse_io_read_bytes(buf, len, cg->version == ASB_CGROUP_V2,
                                                      &st->io_read_bytes) < 0)
            rc = -EBADMSG;
        free(buf);
        if (rc == -EBADMSG)
            return asb_err(err, -EINVAL, "cgroup: cannot parse %s/%s", io->path, file);
        if (rc < 0 && rc != -ENOENT) /* no throttling compiled in: nothing counted */
            return asb_err_sys(err, -rc, "cgroup: read %s/%s", io->path, file);
    }
    return 0;
}

int asb_cgroup_kill(asb_cgroup_t *cg, int sig, asb_error_t *err)
{
    asb_cgroup_lift_io(cg); /* a throttled read would hold the killed past their kill */
    for (size_t i = 0; i < cg->n_dirs; i++) {
        const asb_cgroup_dir_t *d = &cg->dirs[i];
        if (d->dir_fd < 0)
            continue;
        if (cg->version == ASB_CGROUP_V2 && sig == SIGKILL) {
            int rc = asb_cgroup_fs_write_at(d->dir_fd, "cgroup.kill", "1");
            if (rc == 0)
                return 0;
            if (rc != -ENOENT)
                return asb_err_sys(err, -rc, "cgroup: write %s/cgroup.kill", d->path);
        }
        /* v1: a process is in every hierarchy once attached, but walk them all so that one
         * attached to only some (attach failed half-way) is still reached. */
        int rc = asb_cgroup_fs_signal_procs(d->dir_fd, sig);
        if (rc < 0 && rc != -ENOENT)
            return asb_err_sys(err, -rc, "cgroup: signal the processes of %s", d->path);
    }
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Kernel memory a finished run left charged to its cgroup goes before the cgroup does. A
 * lookup of a name that does not exist leaves a negative dentry in the dentry cache of the file
 * system it looked in, the host's own (the /usr overlay's lower layer, /proc): charged to the
 * run while it lasts, then, once the cgroup is removed, to its parent, which has no limit. Run
 * after run the host kept them (red-team finding: 35 MB and 86,000 dentries a run, until an
 * inotify watch on /usr/lib took 70 ms to add). Reclaiming the emptied cgroup frees them; it
 * also drops the page cache the run brought in, so it happens only above
 * ASB_CGROUP_RECLAIM_KMEM_BYTES. Best effort: a failure leaves the memory charged as before. */
static void reclaim_kernel_memory(const asb_cgroup_t *cg)
{
    const asb_cgroup_dir_t *d = dir_with(cg, ASB_CGROUP_CTRL_MEMORY);
    if (!d || !d->created || d->dir_fd < 0)
        return;
    uint64_t kmem = 0;
    asb_error_t ignored;
    if (cg->version == ASB_CGROUP_V2) {
        if (stat_u64(d, "memory.stat", "slab_reclaimable", false, &kmem, &ignored) < 0)
            return;
    } else if (asb_cgroup_fs_read_u64_at(d->dir_fd, "memory.kmem.usage_in_bytes", &kmem) < 0) {
        return;
    }
    if (kmem <= ASB_CGROUP_RECLAIM_KMEM_BYTES)
        return;
    if (cg->version == ASB_CGROUP_V1) {
        (void)asb_cgroup_fs_write_at(d->dir_fd, "memory.force_empty", "0");
        return;
    }
    uint64_t current = 0;
    char val[32];
    if (asb_cgroup_fs_read_u64_at(d->dir_fd, "memory.current", &current) == 0 && current > 0) {
        snprintf(val, sizeof(val), "%" PRIu64, current);
        (void)asb_cgroup_fs_write_at(d->dir_fd, "memory.reclaim", val);
    }
}

int asb_cgroup_destroy(asb_cgroup_t *cg, asb_error_t *err)
{
    asb_cgroup_lift_io(cg);
    reclaim_kernel_memory(cg);
    int first = 0;
    bool left = false;
    for (size_t i = 0; i < cg->n_dirs; i++) {
        asb_cgroup_dir_t *d = &cg->dirs[i];
        close_fd(&d->dir_fd);
        if (d->created) {
            int parent_fd = d->parent_fd, rc = 0;
            if (parent_fd < 0) {
                char parent[ASB_CGROUP_PATH_MAX];
                /* a retry after a failed destroy: fds were closed, the path remains */
                memcpy(parent, d->path, sizeof(parent));
                char *slash = strrchr(parent, '/');
                if (slash)
                    *slash = '\0';
                parent_fd = open(parent, DIR_FLAGS);
                if (parent_fd < 0)
                    rc = -errno; /* -ENOENT: the parent, so our directory, is gone */
            }
            if (parent_fd >= 0)
                rc = asb_cgroup_fs_remove(parent_fd, cg->name, cg->version == ASB_CGROUP_V2);
            if (parent_fd != d->parent_fd && parent_fd >= 0)
                close(parent_fd);
            if (rc == 0 || rc == -ENOENT) {
                d->created = false;
            } else {
                left = true;
                if (first == 0)
                    first = asb_err_sys(err, -rc, "cgroup: remove %s", d->path);
            }
        }
        close_fd(&d->parent_fd);
    }
    if (!left)
        cg->n_dirs = 0;
    return first;
}
