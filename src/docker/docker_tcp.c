/* docker_tcp.c - the TCP socket memory limit of a container on cgroup v1.
 *
 * cgroup v1 charges TCP socket buffers to a memory cgroup only once that cgroup has a TCP limit
 * (memory.kmem.tcp.limit_in_bytes), and the engine sets none (HostConfig.KernelMemoryTCP is
 * accepted and ignored by this engine's runtime). A docker-hardened run held 2.4 GB of loopback
 * buffers, past the host-wide tcp_mem hard limit, while its cgroup read 42 MB (red-team finding,
 * session 7). The host sets the native backend's limit on the container's own memory cgroup after
 * the start and before the workload is released: every socket the workload makes is charged.
 * On cgroup v2 memory.max counts socket memory already: nothing to do. */
#include "core/error.h"
#include "docker/docker.h"
#include "native/cgroup.h"
#include "native/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The container's memory cgroup path (relative to the v1 memory hierarchy's root) from
 * /proc/PID/cgroup: 1 found, 0 when the process is in no v1 memory hierarchy (cgroup v2). */
static int memory_cgroup_of(pid_t pid, char *path, size_t len, asb_error_t *err)
{
    char name[64];
    snprintf(name, sizeof(name), "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(name, "re");
    if (!f && errno == ENOENT)
        return asb_err(err, -ESRCH,
                       "docker: the container's process %d is not visible here (is "
                       "agent-sandbox in the engine's pid namespace?)",
                       (int)pid);
    if (!f)
        return asb_err_sys(err, errno, "docker: cannot read %s", name);
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        line[strcspn(line, "\n")] = '\0';
        char *tok, *save = NULL;
        for (tok = strtok_r(c1 + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
            if (strcmp(tok, "memory") == 0)
                break;
        if (!tok)
            continue;
        char *p = c2 + 1;
        p[strcspn(p, "\n")] = '\0';
        if (p[0] != '/' || strstr(p, "/..") || strlen(p) >= len) {
            fclose(f);
            return asb_err(err, -EINVAL, "docker: odd memory cgroup path in %s", name);
        }
        snprintf(path, len, "%s", p);
        found = 1;
    }
    fclose(f);
    return found;
}

int asb_docker_limit_tcp_v1(asb_docker_engine_t *eng, const char *id, uint64_t memory_bytes,
                            asb_error_t *err)
{
    if (memory_bytes == 0)
        return 0; /* no memory limit to add sockets to */
    char path[160];
    snprintf(path, sizeof(path), "/containers/%s/json", id);
    json_t *ins = NULL;
    int rc = asb_docker_json(eng, "GET", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, &ins, err);
    if (rc < 0)
        return rc;
    json_int_t pid = json_integer_value(json_object_get(json_object_get(ins, "State"), "Pid"));
    json_decref(ins);
    if (pid <= 0)
        return asb_err(err, -ESRCH, "docker: container %s has no process to limit", id);
    char cg[ASB_CGROUP_PATH_MAX];
    if ((rc = memory_cgroup_of((pid_t)pid, cg, sizeof(cg), err)) <= 0)
        return rc; /* 0: no v1 memory hierarchy (cgroup v2): socket memory is in memory.max */
    /* The pid is the engine's: in another pid namespace (a caller in a container, a pid reused)
     * it names some other process, whose cgroup must not be taken for the container's (review
     * finding: the limit went onto an unrelated cgroup and the run was released). The cgroup's
     * last component must name the container: "<id>" (cgroupfs driver) or "docker-<id>.scope"
     * (systemd driver). */
    const char *last = strrchr(cg, '/');
    char scope[160];
    snprintf(scope, sizeof(scope), "docker-%s.scope", id);
    if (!last || (strcmp(last + 1, id) != 0 && strcmp(last + 1, scope) != 0))
        return asb_err(err, -ESRCH,
                       "docker: process %lld is not container %.12s's (its memory cgroup is "
                       "'%s'): is agent-sandbox in the engine's pid namespace?",
                       (long long)pid, id, cg);
    asb_cgroup_host_t host;
    if ((rc = asb_cgroup_detect(&host, err)) < 0)
        return rc;
    const char *mount = NULL;
    for (size_t i = 0; i < host.n_hierarchies; i++)
        if (host.hierarchies[i].controllers & ASB_CGROUP_CTRL_MEMORY)
            mount = host.hierarchies[i].mount;
    if (host.version != ASB_CGROUP_V1 || !mount)
        return asb_err(err, -ENOENT,
                       "docker: the container is in a v1 memory cgroup, this host's memory "
                       "hierarchy was not found");
    char dir[2 * ASB_CGROUP_PATH_MAX];
    snprintf(dir, sizeof(dir), "%s%s", mount, cg);
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (dfd < 0)
        return asb_err_sys(err, errno, "docker: the container's memory cgroup %s", dir);
    char want[32], got[64];
    snprintf(want, sizeof(want), "%" PRIu64, asb_cgroup_v1_tcp_bytes(memory_bytes));
    size_t n = 0;
    rc = asb_cgroup_fs_write_at(dfd, "memory.kmem.tcp.limit_in_bytes", want);
    if (rc == 0)
        rc = asb_cgroup_fs_read_at(dfd, "memory.kmem.tcp.limit_in_bytes", got, sizeof(got), &n);
    close(dfd);
    if (rc < 0)
        return asb_err_sys(err, -rc,
                           "docker: cannot limit TCP socket memory (%s/memory.kmem.tcp."
                           "limit_in_bytes; on cgroup v1 the docker backend needs a root "
                           "caller to set it); without it a container's socket buffers escape "
                           "its memory limit",
                           dir);
    /* Read back: the kernel rounds to pages; the limit must not be above what was asked. */
    uint64_t v = strtoull(got, NULL, 10);
    if (v == 0 || v > asb_cgroup_v1_tcp_bytes(memory_bytes))
        return asb_err(err, -EIO, "docker: the TCP memory limit of %s reads %" PRIu64, dir, v);
    return 0;
}
