/* docker_cgroup.c - a container's own cgroup on the host, found from its init's pid and checked
 * to be the container's (the engine's pid may name another process in another pid namespace),
 * and what the host does with it: kill every process in it when the engine's kill of PID 1 is
 * not enough (a workload that made PID 1 SCHED_IDLE starved it: a 2 s run lasted 40 s, red-team
 * finding, session 11). */
#include "core/error.h"
#include "docker/docker.h"
#include "native/cgroup.h"
#include "native/cgroup_fs.h"
#include "native/cgroup_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int asb_docker_cgroup_path_in(const char *text, const char *controller, char *path, size_t len)
{
    /* Lines "ID:CONTROLLERS:PATH"; v2's is "0::PATH". */
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line) : strlen(line);
        const char *c1 = memchr(line, ':', ll);
        const char *c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - line)) : NULL;
        bool match = false;
        if (c2 && !controller) {
            match = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;
        } else if (c2) {
            size_t cl = strlen(controller);
            for (const char *t = c1 + 1; t < c2 && !match;) {
                const char *comma = memchr(t, ',', (size_t)(c2 - t));
                const char *e = comma ? comma : c2;
                match = (size_t)(e - t) == cl && strncmp(t, controller, cl) == 0;
                t = e + 1;
            }
        }
        if (match) {
            const char *p = c2 + 1;
            size_t pl = ll - (size_t)(p - line);
            if (pl == 0 || p[0] != '/' || pl >= len)
                return -EINVAL;
            memcpy(path, p, pl);
            path[pl] = '\0';
            /* Paths above the reader's cgroup namespace root read "/../..": nothing under our
             * mount names them. */
            if (strstr(path, "/.."))
                return -EXDEV;
            return 1;
        }
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

/* The path of pid's cgroup in the hierarchy with `controller` (v1), or in the v2 hierarchy
 * (controller NULL), from /proc/PID/cgroup: 1 found, 0 not there, -EXDEV outside our cgroup
 * namespace. */
static int cgroup_of(pid_t pid, const char *controller, char *path, size_t len, asb_error_t *err)
{
    char name[64];
    snprintf(name, sizeof(name), "/proc/%d/cgroup", (int)pid);
    char text[16384];
    int rc = asb_cgroup_fs_read_at(AT_FDCWD, name, text, sizeof(text), NULL);
    if (rc == -ENOENT)
        return asb_err(err, -ESRCH,
                       "docker: the container's process %d is not visible here (is "
                       "agent-sandbox in the engine's pid namespace?)",
                       (int)pid);
    if (rc < 0)
        return asb_err_sys(err, -rc, "docker: cannot read %s", name);
    rc = asb_docker_cgroup_path_in(text, controller, path, len);
    if (rc == -EXDEV)
        return asb_err(err, rc,
                       "docker: the container's cgroup is outside this cgroup namespace (is "
                       "agent-sandbox in the engine's cgroup namespace?)");
    if (rc < 0)
        return asb_err(err, rc, "docker: odd cgroup path in %s", name);
    return rc;
}

/* Whether the cgroup directory dfd lists pid in its cgroup.procs (into *has): 0, or <0 when it
 * cannot be read. The container's cgroup holds its supervisor and few others before the
 * release, so the first 256 are enough. */
static int holds_pid(int dfd, pid_t pid, bool *has)
{
    char procs[4096];
    pid_t listed[256];
    size_t n = 0, nlisted = 0;
    *has = false;
    int rc = asb_cgroup_fs_read_at(dfd, "cgroup.procs", procs, sizeof(procs), &n);
    if (rc == 0)
        nlisted = asb_cgroup_parse_pids(procs, n, listed, sizeof(listed) / sizeof(listed[0]));
    for (size_t i = 0; i < nlisted && !*has; i++)
        *has = listed[i] == pid;
    return rc;
}

/* asb_docker_container_cgroup, and the init's pid it checked (into *init). */
static int container_cgroup(asb_docker_engine_t *eng, const asb_cgroup_host_t *host, const char *id,
                            unsigned ctrl, char *dir, size_t len, int *fd, pid_t *init,
                            asb_error_t *err)
{
    if (fd)
        *fd = -1;
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
    const char *mount = NULL, *name = NULL;
    for (size_t i = 0; i < host->n_hierarchies; i++)
        if (host->hierarchies[i].controllers & ctrl)
            mount = host->hierarchies[i].mount;
    if (host->version == ASB_CGROUP_V1)
        name = ctrl == ASB_CGROUP_CTRL_MEMORY ? "memory"
               : ctrl == ASB_CGROUP_CTRL_PIDS ? "pids"
                                              : "";
    if (!mount)
        return 0;
    char cg[ASB_CGROUP_PATH_MAX];
    /* In another cgroup namespace than the engine's the path starts "/..": refused, it names
     * nothing under our mount (on pure v2 the backstop silently did nothing, session 12). */
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
                       "docker: process %lld is not container %.12s's (its cgroup is '%s', not "
                       "named after the container): is agent-sandbox in the engine's pid "
                       "namespace, and is the engine docker with runc?",
                       (long long)pid, id, cg);
    if (snprintf(dir, len, "%s%s", mount, cg) >= (int)len)
        return asb_err(err, -ENAMETOOLONG, "docker: cgroup path of %.12s", id);
    /* And the directory must hold that process: a mount that does not show this cgroup
     * namespace's root (a bind mount of another one's) names another directory or none. */
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (dfd < 0)
        return asb_err_sys(err, errno, "docker: the cgroup of container %.12s (%s)", id, dir);
    /* Before the release the container holds its supervisor and little else. */
    bool has = false;
    rc = holds_pid(dfd, (pid_t)pid, &has);
    if (rc < 0 || !has)
        close(dfd);
    if (rc < 0)
        return asb_err_sys(err, -rc, "docker: cannot read %s/cgroup.procs", dir);
    if (!has)
        return asb_err(err, -EXDEV,
                       "docker: %s does not hold container %.12s's process %lld (is the cgroup "
                       "mount this cgroup namespace's?)",
                       dir, id, (long long)pid);
    if (fd)
        *fd = dfd;
    else
        close(dfd);
    if (init)
        *init = (pid_t)pid;
    return 1;
}

int asb_docker_container_cgroup(asb_docker_engine_t *eng, const asb_cgroup_host_t *host,
                                const char *id, unsigned ctrl, char *dir, size_t len, int *fd,
                                asb_error_t *err)
{
    return container_cgroup(eng, host, id, ctrl, dir, len, fd, NULL, err);
}

/* A pidfd for pid, checked in the cgroup directory dfd: the number was checked before the
 * pidfd held it, so it is the container's only if it is still in that cgroup once held, and the
 * held process is still alive then. */
static int held_pidfd(int dfd, pid_t pid, const char *id, asb_error_t *err)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd < 0)
        return asb_err_sys(err, errno, "docker: pidfd_open of container %.12s's process %d", id,
                           (int)pid);
    bool has = false;
    int rc = holds_pid(dfd, pid, &has);
    if (rc < 0) {
        close(pfd);
        return asb_err_sys(err, -rc, "docker: cannot read container %.12s's cgroup.procs", id);
    }
    if (!has || (syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0) < 0 && errno == ESRCH)) {
        close(pfd);
        return asb_err(err, -ESRCH, "docker: container %.12s's process %d is gone", id, (int)pid);
    }
    return pfd;
}

int asb_docker_backstop_open(asb_docker_engine_t *eng, const char *id, int *kill_fd,
                             int *init_pidfd, asb_error_t *err)
{
    asb_cgroup_host_t host;
    char dir[2 * ASB_CGROUP_PATH_MAX];
    int rc, dfd = -1;
    pid_t pid = 0;
    *kill_fd = -1;
    if (init_pidfd)
        *init_pidfd = -1;
    if ((rc = asb_cgroup_detect(&host, err)) < 0)
        return rc;
    rc = container_cgroup(eng, &host, id, ASB_CGROUP_CTRL_PIDS, dir, sizeof(dir), &dfd, &pid, err);
    if (rc == 0)
        return asb_err(err, -ENOENT,
                       "docker: container %.12s is in no cgroup this host's %s hierarchy holds", id,
                       host.version == ASB_CGROUP_V1 ? "pids" : "cgroup2");
    if (rc < 0)
        return rc;
    if (init_pidfd && (*init_pidfd = held_pidfd(dfd, pid, id, err)) < 0) {
        rc = *init_pidfd;
        *init_pidfd = -1;
        close(dfd);
        return rc;
    }
    /* Found is not enough: the kill must be ours to make (review findings). cgroup.kill (v2,
     * 5.14+) opened for writing now (the open is the permission check, LSMs included; it has
     * no effect until written), or else a signal 0 to every process of the cgroup, which the
     * kernel checks as it would the kill, in the right user namespace: a non-root caller of a
     * root engine, or one that is root only in a user namespace of its own, can read the
     * container's cgroup and kill nothing in it. */
    *kill_fd = openat(dfd, "cgroup.kill", O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (*kill_fd >= 0)
        return dfd;
    int probe = asb_cgroup_fs_signal_procs(dfd, 0);
    if (probe > 0)
        return dfd;
    close(dfd);
    if (init_pidfd && *init_pidfd >= 0) {
        close(*init_pidfd);
        *init_pidfd = -1;
    }
    return asb_err(err, probe < 0 ? probe : -ESRCH,
                   "docker: this caller cannot kill container %.12s's processes (%s: no "
                   "writable cgroup.kill, and %s): without that, a workload that starves the "
                   "container's PID 1 outlives its deadline",
                   id, dir, probe < 0 ? strerror(-probe) : "no process of it could be signalled");
}

void asb_docker_kill_cgroup(int dfd, int kill_fd)
{
    /* v2 (5.14+): the kernel kills the whole cgroup, forks racing it included, and nothing is
     * signalled by number. */
    if (kill_fd >= 0 && write(kill_fd, "1", 1) == 1)
        return;
    /* Each process through a pidfd checked to still be in the cgroup (a number read from
     * cgroup.procs may be a host process's by then), until none is left; the pids limit bounds
     * how many there can be. */
    for (int pass = 0; pass < 16 && asb_cgroup_fs_signal_procs(dfd, SIGKILL) > 0; pass++)
        usleep(2000);
}
