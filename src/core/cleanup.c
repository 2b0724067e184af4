/* cleanup.c - remove owner-tagged leftovers of runs whose owner died (a crash, a SIGKILL). A live
 * owner's objects are never touched, so cleanup is safe while other sandboxes run. */
#include "core/error.h"
#include "core/limits.h"
#include "core/owner.h"
#include "io/rmtree.h"
#include "native/cgroup.h"
#include "native/idslot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

void asb_report_append(char **report, const char *line)
{
    size_t old = *report ? strlen(*report) : 0, add = strlen(line);
    char *n = realloc(*report, old + add + 2);
    if (!n)
        return;
    memcpy(n + old, line, add);
    n[old + add] = '\n';
    n[old + add + 1] = '\0';
    *report = n;
}

/* Does process `pid` (its /proc entry open at procfd) belong to the subprocess run of `dir`:
 * with the HOME the run gave its program (every process of the program has it unless it changed
 * its environment), wherever it works now (a process that left the directory, `cd /tmp && ...`,
 * was missed: QA finding, session 17), and not in our own session (an operator's shell in the
 * directory, and whoever runs cleanup from there, are left alone: review finding). */
static bool run_process(int procfd, const char *dir, pid_t our_sid)
{
    int fd = openat(procfd, "stat", O_RDONLY | O_CLOEXEC);
    char st[1024];
    ssize_t m = fd >= 0 ? read(fd, st, sizeof(st) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (m <= 0)
        return false;
    st[m] = '\0';
    const char *rp = strrchr(st, ')');
    int ppid = 0, pgrp = 0, sid = 0;
    char state = 0;
    if (!rp || sscanf(rp + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4 || sid == our_sid)
        return false;
    char want[4200];
    int wl = snprintf(want, sizeof(want), "HOME=%s", dir);
    fd = openat(procfd, "environ", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    static const size_t cap = 65536;
    char *env = malloc(cap);
    ssize_t got = 0, r;
    while (env && (size_t)got < cap - 1 && (r = read(fd, env + got, cap - 1 - (size_t)got)) > 0)
        got += r;
    close(fd);
    bool home = false;
    for (ssize_t k = 0; env && k < got; k += (ssize_t)strnlen(env + k, (size_t)(got - k)) + 1)
        if ((size_t)(got - k) >= (size_t)wl && strncmp(env + k, want, (size_t)wl) == 0 &&
            (k + wl == got || env[k + wl] == '\0'))
            home = true;
    free(env);
    return home;
}

/* SIGKILL what a subprocess run's program started and left running when its caller was killed
 * (the program itself dies with the caller, its children do not: crash-QA finding): each
 * process that run_process says is the run's, through a pidfd taken before the checks, so a
 * pid reused meanwhile is never signalled. A few passes, for what forked during one. Returns
 * how many were killed. */
static int kill_processes_in(const char *dir)
{
    pid_t done[1024]; /* killed already: a dying process still shows its directory for a while */
    int killed = 0;
    pid_t self = getpid(), our_sid = getsid(0);
    for (int pass = 0; pass < 5; pass++) {
        DIR *proc = opendir("/proc");
        if (!proc)
            return killed;
        int found = 0;
        struct dirent *e;
        while ((e = readdir(proc))) {
            char *end = NULL;
            long pid = strtol(e->d_name, &end, 10);
            if (!end || *end || pid <= 1 || pid == self)
                continue;
            bool seen = false;
            for (int i = 0; i < killed && !seen; i++)
                seen = done[i] == (pid_t)pid;
            if (seen)
                continue;
            int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
            if (pidfd < 0)
                continue;
            int procfd = openat(dirfd(proc), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            /* Checked after the pidfd: if the pid was reused before it, these are the new
             * process's files and it is judged on its own; after it, the pidfd is dead. */
            if (procfd >= 0 && run_process(procfd, dir, our_sid) &&
                syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 &&
                killed < (int)(sizeof(done) / sizeof(done[0]))) {
                done[killed++] = (pid_t)pid;
                found++;
            }
            if (procfd >= 0)
                close(procfd);
            close(pidfd);
        }
        closedir(proc);
        if (!found)
            break;
    }
    return killed;
}

/* Subprocess temp dirs: ASB_SUBPROCESS_TMP_PARENT/asb-<pid>-<start>-<random>, those of dead
 * owners, or with own those of this process (a CLI ending on a signal). */
static int reap_temp_dirs(bool own, char **report, asb_error_t *err)
{
    int parent = open(ASB_SUBPROCESS_TMP_PARENT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0)
        return asb_err_sys(err, errno, "open %s", ASB_SUBPROCESS_TMP_PARENT);
    int dfd = fcntl(parent, F_DUPFD_CLOEXEC, 0);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        close(parent);
        return asb_err_sys(err, errno, "list %s", ASB_SUBPROCESS_TMP_PARENT);
    }
    pid_t self = getpid();
    uint64_t self_start = own ? asb_owner_starttime(self) : 0;
    uint64_t self_ns = own ? asb_owner_pidns_ino() : 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid;
        uint64_t start, ns;
        struct stat st;
        if (!asb_owner_parse(e->d_name, &pid, &start, &ns) ||
            (own ? pid != self || start != self_start || (ns && ns != self_ns)
                 : asb_owner_alive(pid, start, ns)))
            continue;
        /* Only directories we could have made: owned by us, not a symlink. Or handed by us to
         * uid 65534: the bench's grader gives a subprocess-lane candidate its working directory
         * before it drops to that uid, and a killed bench left such directories that cleanup
         * never removed (found in session 8). The removal follows no symlink and crosses no
         * mount either way. */
        if (fstatat(parent, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            (st.st_uid != geteuid() && st.st_uid != ASB_HARDENED_UID))
            continue;
        asb_error_t e2;
        char line[600];
        snprintf(line, sizeof(line), "%s/%s", ASB_SUBPROCESS_TMP_PARENT, e->d_name);
        int killed = kill_processes_in(line);
        if (killed > 0) {
            char kline[700];
            snprintf(kline, sizeof(kline), "killed %d process(es) left running in %s", killed,
                     line);
            asb_report_append(report, kline);
        }
        if (asb_rmtree_at(parent, e->d_name, &e2) == 0) {
            snprintf(line, sizeof(line), "removed temp dir %s/%s", ASB_SUBPROCESS_TMP_PARENT,
                     e->d_name);
            asb_report_append(report, line);
        } else if (e2.code != -ENOENT) {
            rc = asb_err(err, e2.code, "remove %s/%s: %s", ASB_SUBPROCESS_TMP_PARENT, e->d_name,
                         e2.message);
        }
    }
    closedir(d);
    close(parent);
    return rc;
}

int asb_cleanup(char **report, asb_error_t *err)
{
    *report = NULL;
    int rc = 0;
    asb_cgroup_host_t host;
    asb_error_t e;
    /* Every place is examined, or the command fails saying which it could not look at: "nothing
     * to clean up" after a look that never happened hid leftovers (QA finding: cgroups hidden,
     * /run read-only). */
    if (asb_cgroup_detect(&host, &e) < 0) {
        rc = asb_err(err, e.code, "cgroups: could not examine them: %s", e.message);
    } else {
        char *cg = NULL;
        if (asb_cgroup_reap_stale(&host, &cg, &e) < 0)
            rc = asb_err(err, e.code, "cgroups: %s", e.message);
        if (cg) {
            size_t len = strlen(cg);
            while (len && cg[len - 1] == '\n')
                cg[--len] = '\0';
            if (len)
                asb_report_append(report, cg);
            free(cg);
        }
    }
    int r2 = reap_temp_dirs(false, report, rc < 0 ? &e : err);
    asb_error_t se;
    int slots = asb_idslot_reap(&se);
    /* Not root: native sandboxes need root, so none of ours holds a slot, and root's are not
     * ours to judge. Said, not failed (review finding: every cleanup of a docker-only user
     * exited 125). */
    if (slots < 0 && geteuid() != 0 && (se.code == -EACCES || se.code == -EPERM)) {
        asb_report_append(report, "id slots: not examined (they are root's: native sandboxes "
                                  "need root)");
        slots = 0;
    }
    if (slots < 0 && rc == 0 && r2 == 0)
        rc = asb_err(err, se.code, "%s", se.message);
    else if (slots < 0) /* an earlier error is the one returned: this one goes in the report */
        asb_report_append(report, se.message);
    if (slots > 0) {
        char line[160];
        snprintf(line, sizeof(line), "removed %d host id slot lock(s) of dead owners in %s", slots,
                 ASB_USERNS_SLOT_DIR);
        asb_report_append(report, line);
    }
    /* Containers of dead owners. No engine means no containers to reap: say so, not an error. */
    char *dk = NULL;
    asb_error_t de;
    if (asb_docker_cleanup(&dk, &de) < 0) {
        char line[1200];
        snprintf(line, sizeof(line), "docker: skipped (%s)", de.message);
        asb_report_append(report, line);
    } else if (dk && *dk) {
        size_t len = strlen(dk);
        while (len && dk[len - 1] == '\n')
            dk[--len] = '\0';
        asb_report_append(report, dk);
    }
    free(dk);
    return rc < 0 ? rc : r2;
}

void asb_cleanup_dead_temp_dirs(void)
{
    char *report = NULL;
    asb_error_t err;
    (void)reap_temp_dirs(false, &report, &err);
    free(report);
}

void asb_cleanup_own_temp_dirs(void)
{
    char *report = NULL;
    asb_error_t err;
    reap_temp_dirs(true, &report, &err);
    free(report);
}
