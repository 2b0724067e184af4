#include "core/owner.h"
#include "core/limits.h"
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
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n;
    do {
        n = read(fd, buf, sizeof(buf) - 1);
    } while (n < 0 && errno == EINTR);
    close(fd);
    uint64_t start = 0;
    /* One parser for field 22 (the command name may hold spaces and ')'), shared with the
     * cgroup reaper so both agree on who is alive. */
    if (n <= 0 || asb_cgroup_parse_stat_starttime(buf, (size_t)n, &start) < 0)
        return 0;
    return start;
}

int asb_owner_tag(char *out, size_t len)
{
    pid_t pid = getpid();
    int n = snprintf(out, len, ASB_OWNER_PREFIX "-%d-%llu", (int)pid,
                     (unsigned long long)asb_owner_starttime(pid));
    return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

bool asb_owner_parse(const char *name, pid_t *pid, uint64_t *start)
{
    size_t plen = strlen(ASB_OWNER_PREFIX);
    if (strncmp(name, ASB_OWNER_PREFIX "-", plen + 1) != 0)
        return false;
    const char *p = name + plen + 1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno || end == p || *end != '-' || v == 0 || v > 4194304)
        return false;
    p = end + 1;
    unsigned long long s = strtoull(p, &end, 10);
    if (errno || end == p || *end != '-')
        return false;
    *pid = (pid_t)v;
    *start = s;
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

bool asb_owner_alive(pid_t pid, uint64_t start)
{
    uint64_t now = asb_owner_starttime(pid);
    return now != 0 && now == start;
}
