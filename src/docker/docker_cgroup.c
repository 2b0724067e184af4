/* docker_cgroup.c - a container's own cgroup on the host, found from its init's pid and checked
 * to be the container's (the engine's pid may name another process in another pid namespace),
 * and what the host does with it: kill every process in it when the engine's kill of PID 1 is
 * not enough (a workload that made PID 1 SCHED_IDLE starved it: a 2 s run lasted 40 s, red-team
 * finding, session 11). */
#include "core/error.h"
#include "docker/docker.h"
#include "native/cgroup.h"
#include "native/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path of pid's cgroup in the hierarchy with `controller` (v1), or in the v2 hierarchy
 * (controller NULL: the "0::" line), from /proc/PID/cgroup: 1 found, 0 not there. */
static int cgroup_of(pid_t pid, const char *controller, char *path, size_t len, asb_error_t *err)
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
        bool match = false;
        if (!controller) {
            match = strcmp(line, "0") == 0 && c1[1] == '\0';
        } else {
            char *tok, *save = NULL;
            for (tok = strtok_r(c1 + 1, ",", &save); tok && !match;
                 tok = strtok_r(NULL, ",", &save))
                match = strcmp(tok, controller) == 0;
        }
        if (!match)
            continue;
        char *p = c2 + 1;
        p[strcspn(p, "\n")] = '\0';
        if (p[0] != '/' || strstr(p, "/..") || strlen(p) >= len) {
            fclose(f);
            return asb_err(err, -EINVAL, "docker: odd cgroup path in %s", name);
        }
        snprintf(path, len, "%s", p);
        found = 1;
    }
    fclose(f);
    return found;
}

int asb_docker_container_cgroup(asb_docker_engine_t *eng, const char *id, unsigned ctrl, char *dir,
                                size_t len, asb_error_t *err)
{
    char path[160];
    snprintf(path, sizeof(path), "/containers/%s/json", id);
    json_t *ins = NULL;
    int rc = asb_docker_json(eng, "GET", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, &ins, err);
    if (rc < 0)
        return rc;
    json_int_t pid = json_integer_value(json_object_get(json_object_get(ins, "State"), "Pid"));
    json_decref(ins);
    if (pid <= 0)
        return asb_err(err, -ESRCH, "docker: container %s has no process", id);
    asb_cgroup_host_t host;
    if ((rc = asb_cgroup_detect(&host, err)) < 0)
        return rc;
    const char *mount = NULL, *name = NULL;
    for (size_t i = 0; i < host.n_hierarchies; i++)
        if (host.hierarchies[i].controllers & ctrl)
            mount = host.hierarchies[i].mount;
    if (host.version == ASB_CGROUP_V1)
        name = ctrl == ASB_CGROUP_CTRL_MEMORY ? "memory"
               : ctrl == ASB_CGROUP_CTRL_PIDS ? "pids"
                                              : "";
    if (!mount)
        return 0;
    char cg[ASB_CGROUP_PATH_MAX];
    if ((rc = cgroup_of((pid_t)pid, name, cg, sizeof(cg), err)) <= 0)
        return rc;
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
                       "docker: process %lld is not container %.12s's (its cgroup is '%s'): is "
                       "agent-sandbox in the engine's pid namespace?",
                       (long long)pid, id, cg);
    if (snprintf(dir, len, "%s%s", mount, cg) >= (int)len)
        return asb_err(err, -ENAMETOOLONG, "docker: cgroup path of %.12s", id);
    return 1;
}

void asb_docker_kill_container_procs(asb_docker_engine_t *eng, const char *id)
{
    char dir[2 * ASB_CGROUP_PATH_MAX];
    asb_error_t err;
    if (asb_docker_container_cgroup(eng, id, ASB_CGROUP_CTRL_PIDS, dir, sizeof(dir), &err) <= 0)
        return;
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    size_t size = 1 << 16;
    char *procs = dfd >= 0 ? malloc(size) : NULL;
    /* Every process of it, until none is left (a fork between our read and our kill comes in the
     * next pass; the pids limit bounds how many there can be). */
    for (int pass = 0; procs && pass < 16; pass++) {
        size_t n = 0;
        if (asb_cgroup_fs_read_at(dfd, "cgroup.procs", procs, size, &n) < 0 || n == 0)
            break;
        for (char *p = procs, *end; *p; p = end) {
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (v > 0)
                kill((pid_t)v, SIGKILL);
            while (*end == '\n')
                end++;
        }
        usleep(2000);
    }
    free(procs);
    if (dfd >= 0)
        close(dfd);
}
