/* cgroup_detect.c - which cgroup version this host offers, where its hierarchies are mounted, and
 * whether swap is on and can be limited. Read-only: detection creates nothing. */
#include "native/cgroup.h"

#include "core/error.h"
#include "native/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *asb_cgroup_version_name(asb_cgroup_version_t v)
{
    switch (v) {
    case ASB_CGROUP_V1:
        return "v1";
    case ASB_CGROUP_V2:
        return "v2";
    case ASB_CGROUP_NONE:
        break;
    }
    return "none";
}

/* Stream /proc/self/mountinfo line by line through a fixed buffer: on hosts with thousands of
 * mounts (container hosts) the file is far larger than anything worth allocating for. A line
 * longer than the buffer cannot be a cgroup mount we could use (its path would not fit
 * ASB_CGROUP_PATH_MAX) and is skipped. */
static int scan_mountinfo(asb_cgroup_mounts_t *m)
{
    memset(m, 0, sizeof(*m));
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char buf[8192];
    size_t have = 0;
    bool skipping = false;
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (n == 0) {
            if (have > 0 && !skipping)
                (void)asb_cgroup_mounts_add_line(m, buf, have);
            break;
        }
        have += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < have; i++) {
            if (buf[i] != '\n')
                continue;
            if (!skipping)
                (void)asb_cgroup_mounts_add_line(m, buf + start, i - start);
            skipping = false;
            start = i + 1;
        }
        if (start == 0 && have == sizeof(buf)) {
            skipping = true; /* an over-long line: drop it up to its newline */
            have = 0;
            continue;
        }
        memmove(buf, buf + start, have - start);
        have -= start;
    }
    close(fd);
    return rc;
}

static bool swap_active(void)
{
    char buf[4096];
    size_t len;
    /* If /proc/swaps cannot be read, say "active": that only makes create insist on a swap limit.
     */
    if (asb_cgroup_fs_read_at(AT_FDCWD, "/proc/swaps", buf, sizeof(buf), &len) < 0)
        return true;
    return asb_cgroup_parse_swaps_active(buf, len);
}

/* Does /proc/self/cgroup list a v1 hierarchy with the cpuacct controller ("N:cpu,cpuacct:/")?
 * The kernel lists its hierarchies there whether or not this mount namespace mounts them. */
static bool kernel_has_v1_cpuacct(void)
{
    char self[4096];
    size_t len;
    if (asb_cgroup_fs_read_at(AT_FDCWD, "/proc/self/cgroup", self, sizeof(self), &len) < 0)
        return false;
    for (char *line = self, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c1 == line || (c1 - line == 1 && line[0] == '0'))
            continue; /* malformed, or the v2 line */
        *c2 = '\0';
        for (char *tok = c1 + 1, *comma; tok; tok = comma ? comma + 1 : NULL) {
            comma = strchr(tok, ',');
            if (comma)
                *comma = '\0';
            if (strcmp(tok, "cpuacct") == 0)
                return true;
        }
    }
    return false;
}

/* A v2 swap limit file exists only in non-root cgroups whose parent enabled memory. Look where one
 * may already be: our parent directory (a previous run made it), then the caller's own cgroup. */
static void probe_v2_swap(asb_cgroup_host_t *host)
{
    char path[ASB_CGROUP_PATH_MAX * 2];
    const char *mount = host->hierarchies[0].mount;
    char self[ASB_CGROUP_PATH_MAX];
    size_t len;
    const char *candidates[2] = {host->parent, NULL};
    if (asb_cgroup_fs_read_at(AT_FDCWD, "/proc/self/cgroup", self, sizeof(self), &len) == 0) {
        /* the v2 line is "0::/path" */
        char *line = strstr(self, "0::/");
        if (line && (line == self || line[-1] == '\n')) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            if (strcmp(line + 3, "/") != 0)
                candidates[1] = line + 4;
        }
    }
    for (size_t i = 0; i < 2; i++) {
        if (!candidates[i])
            continue;
        int n = snprintf(path, sizeof(path), "%s/%s/memory.max", mount, candidates[i]);
        if (n < 0 || (size_t)n >= sizeof(path) || access(path, F_OK) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s/memory.swap.max", mount, candidates[i]);
        host->swap_limit_known = true;
        host->can_limit_swap = access(path, F_OK) == 0;
        return;
    }
}

int asb_cgroup_host_init_v2(asb_cgroup_host_t *host, const char *mount, unsigned controllers,
                            asb_error_t *err)
{
    memset(host, 0, sizeof(*host));
    size_t n = strlen(mount);
    if (n == 0 || n >= sizeof(host->hierarchies[0].mount))
        return asb_err(err, -ENAMETOOLONG, "cgroup: cgroup2 mount point too long (%zu bytes)", n);
    host->version = ASB_CGROUP_V2;
    memcpy(host->parent, ASB_CGROUP_PARENT, sizeof(ASB_CGROUP_PARENT));
    host->n_hierarchies = 1;
    memcpy(host->hierarchies[0].mount, mount, n + 1);
    /* v2 has no cpuacct: cpu.stat's usage is always there. */
    host->hierarchies[0].controllers =
        controllers & (ASB_CGROUP_CTRL_REQUIRED | ASB_CGROUP_CTRL_IO);
    host->controllers = host->hierarchies[0].controllers;
    return 0;
}

int asb_cgroup_detect(asb_cgroup_host_t *host, asb_error_t *err)
{
    memset(host, 0, sizeof(*host));
    asb_cgroup_mounts_t m;
    int rc = scan_mountinfo(&m);
    if (rc < 0)
        return asb_err_sys(err, -rc, "cgroup: read /proc/self/mountinfo");

    char v2_why[256] = "no cgroup2 mount";
    if (m.has_v2) {
        char buf[512], path[ASB_CGROUP_PATH_MAX + 32];
        size_t len;
        snprintf(path, sizeof(path), "%s/cgroup.controllers", m.v2.mount);
        rc = asb_cgroup_fs_read_at(AT_FDCWD, path, buf, sizeof(buf), &len);
        unsigned avail = rc < 0 ? 0 : asb_cgroup_parse_controllers(buf, len);
        unsigned missing = ASB_CGROUP_CTRL_REQUIRED & ~avail;
        /* nsdelegate (systemd mounts cgroup2 with it) makes the kernel refuse, with ENOENT, to
         * start a process in a cgroup outside the caller's cgroup namespace: clone3 into the
         * run's cgroup then failed with a bare "No such file or directory" (v2 guest finding,
         * session 15). Named here instead, before anything is made. Without nsdelegate the
         * kernel allows it, and so do we. */
        if (rc == 0 && missing == 0 && m.v2.outside_ns && m.v2.nsdelegate)
            return asb_err(err, -EXDEV,
                           "cgroup: the cgroup2 mount at %s is the host's, above this process's "
                           "cgroup namespace (mountinfo root \"/..\", nsdelegate): the kernel "
                           "refuses to start runs in it from here; mount the namespace's own "
                           "cgroup2 (with this process in a child cgroup of its root), or run "
                           "outside the namespace",
                           m.v2.mount);
        if (rc == 0 && missing == 0) {
            rc = asb_cgroup_host_init_v2(host, m.v2.mount, avail, err);
            if (rc < 0)
                return rc;
            host->swap_active = swap_active();
            probe_v2_swap(host);
            return 0;
        }
        char names[64];
        asb_cgroup_controller_names(missing, names, sizeof(names));
        if (rc < 0)
            snprintf(v2_why, sizeof(v2_why), "cgroup2 at %s: cannot read cgroup.controllers (%s)",
                     m.v2.mount, strerror(-rc));
        else
            snprintf(v2_why, sizeof(v2_why), "cgroup2 at %s lacks %s", m.v2.mount, names);
    }

    unsigned v1 = 0;
    for (size_t i = 0; i < m.n_v1; i++)
        v1 |= m.v1[i].controllers;
    unsigned v1_missing = ASB_CGROUP_CTRL_REQUIRED & ~v1;
    /* cpuacct too when the kernel has a v1 hierarchy of it: a run's membership is checked in
     * every such hierarchy (cgroup.c asb_cgroup_has_pid), and one that is not mounted made every
     * run fail blaming the supervisor's membership (QA finding, session 19). */
    if (!(v1 & ASB_CGROUP_CTRL_CPUACCT) && kernel_has_v1_cpuacct())
        v1_missing |= ASB_CGROUP_CTRL_CPUACCT;
    if (v1_missing) {
        char names[64];
        asb_cgroup_controller_names(v1_missing, names, sizeof(names));
        memset(host, 0, sizeof(*host));
        return asb_err(err, -ENOTSUP,
                       "cgroup: no usable cgroup hierarchy (%s; cgroup v1 lacks %s hierarchies)",
                       v2_why, names);
    }

    for (size_t i = 0; i < m.n_v1; i++) {
        if (!(m.v1[i].controllers & ASB_CGROUP_CTRL_CPU))
            continue;
        /* The cpu controller without CFS bandwidth control (CONFIG_CFS_BANDWIDTH=n) can weigh
         * but not cap: the limit we promise would silently not exist. */
        char path[ASB_CGROUP_PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", m.v1[i].mount);
        if (access(path, F_OK) != 0) {
            memset(host, 0, sizeof(*host));
            return asb_err_sys(err, errno,
                               "cgroup: no usable cgroup hierarchy (%s; cgroup v1 cpu "
                               "has no CFS quota: %s)",
                               v2_why, path);
        }
    }

    host->version = ASB_CGROUP_V1;
    memcpy(host->parent, ASB_CGROUP_PARENT, sizeof(ASB_CGROUP_PARENT));
    for (size_t i = 0; i < m.n_v1; i++) {
        asb_cgroup_hierarchy_t *h = &host->hierarchies[host->n_hierarchies++];
        memcpy(h->mount, m.v1[i].mount, sizeof(h->mount));
        h->controllers = m.v1[i].controllers;
        host->controllers |= h->controllers;
    }
    host->swap_active = swap_active();
    for (size_t i = 0; i < host->n_hierarchies; i++) {
        if (!(host->hierarchies[i].controllers & ASB_CGROUP_CTRL_MEMORY))
            continue;
        /* v1 keeps every control file in the hierarchy root too, so this needs no cgroup of ours;
         * memsw files exist only when swap accounting is compiled in and enabled. */
        char path[ASB_CGROUP_PATH_MAX + 40];
        snprintf(path, sizeof(path), "%s/memory.memsw.limit_in_bytes", host->hierarchies[i].mount);
        host->can_limit_swap = access(path, F_OK) == 0;
        host->swap_limit_known = true;
    }
    return 0;
}
