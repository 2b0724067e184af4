/* cgroup_reap.c - remove the cgroups of runs whose owner died (crash, SIGKILL, power loss of the
 * owner's machine session) so their processes stop using the host and their names do not pile up.
 * The owner is identified by pid AND starttime, so a recycled pid never protects a stale run and a
 * live owner's run is never touched. */
#include "native/cgroup.h"

#include "core/error.h"
#include "core/owner.h"
#include "native/cgroup_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int report_append(char **report, const char *path, asb_error_t *err)
{
    static const char what[] = "removed cgroup ";
    size_t old = *report ? strlen(*report) : 0;
    size_t add = sizeof(what) - 1 + strlen(path) + 1;
    char *r = realloc(*report, old + add + 1);
    if (!r)
        return asb_err_sys(err, ENOMEM, "cgroup: report");
    snprintf(r + old, add + 1, "%s%s\n", what, path);
    *report = r;
    return 0;
}

/* Reap under one hierarchy; go on after an error and return the first one. */
static int reap_hierarchy(const asb_cgroup_host_t *host, const asb_cgroup_hierarchy_t *h,
                          char **report, asb_error_t *err)
{
    char parent[ASB_CGROUP_PATH_MAX + ASB_CGROUP_PARENT_NAME_MAX + 1];
    snprintf(parent, sizeof(parent), "%s/%s", h->mount, host->parent);
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0; /* no run ever made a cgroup here */
        return asb_err_sys(err, errno, "cgroup: open %s", parent);
    }
    /* readdir needs its own fd position; unlinkat uses a second fd so removal never disturbs it. */
    int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dfd < 0) {
        int e = errno;
        close(fd);
        return asb_err_sys(err, e, "cgroup: dup %s", parent);
    }
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        int e = errno;
        close(dfd);
        close(fd);
        return asb_err_sys(err, e, "cgroup: read %s", parent);
    }
    int first = 0;
    uint64_t own_ns = asb_owner_pidns_ino();
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            if (errno != 0 && first == 0)
                first = asb_err_sys(err, errno, "cgroup: read %s", parent);
            break;
        }
        if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
            continue;
        pid_t pid;
        uint64_t start, ns;
        if (asb_cgroup_parse_name(de->d_name, &pid, &start, &ns) < 0)
            continue; /* not an owner-tagged run: not ours to judge */
        /* An owner of another pid namespace is not judged from here: its pid means nothing
         * here, and a run from `unshare -pf` was killed that way by a run on the host (QA
         * finding, session 14). Names from before carry no namespace and are judged as then. */
        if ((ns != 0 && ns != own_ns) || asb_cgroup_fs_owner_alive(pid, start))
            continue;
        int rc = asb_cgroup_fs_remove(fd, de->d_name, host->version == ASB_CGROUP_V2);
        char path[sizeof(parent) + ASB_CGROUP_NAME_MAX + 1];
        snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
        if (rc == 0) {
            rc = report_append(report, path, err);
            if (rc < 0 && first == 0)
                first = rc;
        } else if (rc != -ENOENT && first == 0) {
            /* -ENOENT: another reaper removed it first. A transient EBUSY (another reaper is
             * killing the same run) ends inside the drain loop; EBUSY after the whole drain
             * timeout is a process that will not die (D state) and is worth an error. */
            first = asb_err_sys(err, -rc, "cgroup: remove stale %s", path);
        }
    }
    closedir(dir);
    close(fd);
    return first;
}

int asb_cgroup_reap_stale(const asb_cgroup_host_t *host, char **report, asb_error_t *err)
{
    if (host->version != ASB_CGROUP_V1 && host->version != ASB_CGROUP_V2)
        return asb_err(err, -EINVAL, "cgroup: host not detected");
    if (!asb_cgroup_valid_parent(host->parent))
        return asb_err(err, -EINVAL, "cgroup: invalid parent directory name");
    int first = 0;
    asb_error_t e1;
    asb_err_clear(&e1);
    for (size_t i = 0; i < host->n_hierarchies && i < ASB_CGROUP_MAX_HIERARCHIES; i++) {
        /* Go on with the other hierarchies after an error: each cleans up independently. */
        int rc = reap_hierarchy(host, &host->hierarchies[i], report, first ? &e1 : err);
        if (rc < 0 && first == 0)
            first = rc;
    }
    return first;
}
