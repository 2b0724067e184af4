#include "core/owner.h"
#include "core/limits.h"
#include "native/cgroup_fs.h"
#include "native/cgroup_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t asb_owner_starttime(pid_t pid)
{
    /* One reader for every owner tag (cgroups, temp dirs, containers): field 22 in the host's
     * boot clock, whatever time namespace this process is in (cgroup_fs.c). */
    uint64_t start;
    return asb_cgroup_fs_starttime(pid, &start) == 0 ? start : 0;
}

uint64_t asb_owner_pidns_ino(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

int asb_owner_tag(char *out, size_t len)
{
    pid_t pid = getpid();
    uint64_t ns = asb_owner_pidns_ino(), start = asb_owner_starttime(pid);
    if (ns == 0 || start == 0)
        return -ENOENT;
    int n = snprintf(out, len, ASB_OWNER_PREFIX "-%d-%llu-p%llu", (int)pid,
                     (unsigned long long)start, (unsigned long long)ns);
    return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

bool asb_owner_parse(const char *name, pid_t *pid, uint64_t *start, uint64_t *pidns)
{
    uint64_t vpid, vstart, vns;
    const char *rest;
    if (asb_owner_tag_fields(name, &vpid, &vstart, &vns, &rest) < 0 || vpid == 0 ||
        vpid > 4194304 /* PID_MAX_LIMIT */)
        return false;
    *pid = (pid_t)vpid;
    *start = vstart;
    *pidns = vns;
    return true;
}

int asb_owner_pidns(char *out, size_t len)
{
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) < 0)
        return -errno;
    int n = snprintf(out, len, "%llu:%llu", (unsigned long long)st.st_dev,
                     (unsigned long long)st.st_ino);
    return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

bool asb_owner_alive(pid_t pid, uint64_t start, uint64_t pidns)
{
    if (pidns != 0) {
        uint64_t own = asb_owner_pidns_ino();
        if (own == 0 || own != pidns)
            return true; /* not ours to judge */
    }
    /* Only a process that is gone is dead: any other failure to read its starttime (no fd
     * left, a /proc error) leaves the owner alive, as asb_cgroup_fs_owner_alive does (review
     * finding: those counted as dead). */
    return asb_cgroup_fs_owner_alive(pid, start);
}
