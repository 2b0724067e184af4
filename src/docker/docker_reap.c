/* docker_reap.c - remove containers left by runs whose owner process is gone.
 *
 * Every container we create carries the owner label "asb-<pid>-<starttime>"; a run whose host
 * process crashed leaves one behind (its removal never ran). The owner is gone when that pid no
 * longer exists with that start time; then the container (and its anonymous volume) goes. */
#include "core/error.h"
#include "core/owner.h"
#include "docker/docker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int append(char **report, size_t *len, const char *line)
{
    size_t l = strlen(line);
    char *n = realloc(*report, *len + l + 2);
    if (!n)
        return -ENOMEM;
    memcpy(n + *len, line, l);
    n[*len + l] = '\n';
    n[*len + l + 1] = '\0';
    *report = n;
    *len += l + 1;
    return 0;
}

int asb_docker_reap(asb_docker_engine_t *eng, bool own_too, char **report, asb_error_t *err)
{
    *report = NULL;
    size_t rlen = 0;
    json_t *list = NULL;
    /* filters={"label":["org.agent-sandbox.owner"]}, URL-encoded */
    int rc = asb_docker_json(eng, "GET",
                             "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22"
                             "org.agent-sandbox.owner%22%5D%7D",
                             NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, &list, err);
    if (rc < 0)
        return rc;
    /* A container whose owner is in another pid namespace (agent-sandbox in a container on the
     * host's engine, or the host's beside one) is not ours to judge: its owner's pid names
     * nobody here, and every such live run was removed (review finding). Containers made
     * before this label existed are judged as before. */
    char pidns[64];
    if ((rc = asb_owner_pidns(pidns, sizeof(pidns))) < 0) {
        json_decref(list);
        return asb_err_sys(err, -rc, "docker: cannot read /proc/self/ns/pid");
    }
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
    {
        const char *id = json_string_value(json_object_get(c, "Id"));
        const char *owner = json_string_value(
            json_object_get(json_object_get(c, "Labels"), ASB_DOCKER_LABEL_OWNER));
        if (!id || !owner || strspn(id, "0123456789abcdef") != strlen(id) || strlen(id) > 80)
            continue;
        const char *ns = json_string_value(
            json_object_get(json_object_get(c, "Labels"), ASB_DOCKER_LABEL_PIDNS));
        if (ns && strcmp(ns, pidns) != 0) {
            char line[200];
            snprintf(line, sizeof(line),
                     "docker container %.12s (owner %s in another pid namespace): not judged "
                     "from here",
                     id, owner);
            if (append(report, &rlen, line) < 0) {
                json_decref(list);
                return asb_err_sys(err, ENOMEM, "cleanup report");
            }
            continue;
        }
        char tagged[96];
        snprintf(tagged, sizeof(tagged), "%s-x", owner);
        pid_t pid;
        uint64_t start, tag_ns;
        if (!asb_owner_parse(tagged, &pid, &start, &tag_ns) ||
            (asb_owner_alive(pid, start, tag_ns) && !(own_too && pid == getpid())))
            continue;
        /* The engine's forced removal kills PID 1 alone: a workload that starved PID 1 kept a
         * dead owner's container running for minutes, and the removal failed ("did not receive
         * an exit event") at every cleanup (red-team finding, session 14). Its cgroup's
         * processes die from here first, as at a run's deadline; a container that is not
         * running, or whose cgroup cannot be checked and killed, is left to the engine. */
        int kill_fd = -1;
        asb_error_t ke;
        int cg = asb_docker_backstop_open(eng, id, &kill_fd, NULL, &ke);
        if (cg >= 0) {
            asb_docker_kill_cgroup(cg, kill_fd);
            close(cg);
            if (kill_fd >= 0)
                close(kill_fd);
        }
        char path[160], line[200];
        snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", id);
        asb_error_t e;
        if (asb_docker_json(eng, "DELETE", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, NULL, &e) < 0)
            snprintf(line, sizeof(line), "docker container %.12s (owner %s): not removed: %.80s",
                     id, owner, e.message);
        else
            snprintf(line, sizeof(line), "docker container %.12s (owner %s gone): removed", id,
                     owner);
        if (append(report, &rlen, line) < 0) {
            json_decref(list);
            return asb_err_sys(err, ENOMEM, "cleanup report");
        }
    }
    json_decref(list);
    return 0;
}
