/* watch.c - the /proc watcher. The host's view of a sandboxed process is the kernel's, not the
 * program's: uids are shown as mapped into the host's user namespace, CapEff as held. */
#include "chaos/watch.h"
#include "core/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_NS 16
#define CACHE_SLOTS 8192

/* pid -> (start time, comm, carries the nonce?). Reading /proc/PID/cmdline takes the target's
 * mmap lock, which a process deep in memory reclaim (another run's memory bomb) can hold for
 * seconds; each process image is therefore read once, and recognised afterwards by its start
 * time and comm from /proc/PID/stat, which needs no such lock. comm changes at exec, so a
 * process first seen before it exec'd the attack is read again after. */
typedef struct cache_slot {
    int pid;
    unsigned long long start;
    char comm[20];
    bool match;
    unsigned gen; /* a "no" holds only while no anchor was added since */
} cache_slot_t;

static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < size - 1) {
        ssize_t n = read(fd, buf + off, size - 1 - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    buf[off] = '\0';
    return (ssize_t)off;
}

/* 1 carries the nonce, 0 does not, -1 cannot tell yet: during execve the new comm is visible
 * before the new argument area is, and cmdline then reads empty. */
static int cmdline_match(int pid, const char *nonce)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
    ssize_t n = read_small(path, buf, sizeof(buf));
    if (n <= 0)
        return -1;
    return memmem(buf, (size_t)n, nonce, strlen(nonce)) != NULL;
}

static bool cmdline_has(int pid, const char *nonce)
{
    return cmdline_match(pid, nonce) == 1;
}

static unsigned long ns_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

void asb_chaos_watch_status(asb_chaos_watch_t *w, const char *status, bool in_host_userns)
{
    const char *p;
    long r, e, s, f;
    if ((p = strstr(status, "\nUid:")) && sscanf(p + 5, "%ld %ld %ld %ld", &r, &e, &s, &f) == 4) {
        if (w->euid_seen < 0 || e == 0)
            w->euid_seen = e;
        if (e == 0 && in_host_userns)
            w->host_root = true;
        if (e != r && !w->escalated) {
            w->escalated = true;
            w->esc_ruid = r;
            w->esc_euid = e;
        }
    }
    unsigned long long cap;
    if ((p = strstr(status, "\nCapEff:")) && sscanf(p + 8, "%llx", &cap) == 1 && cap) {
        w->cap_eff |= cap;
        if (in_host_userns)
            w->cap_in_host_userns = true;
    }
    int th;
    if ((p = strstr(status, "\nThreads:")) && sscanf(p + 9, "%d", &th) == 1 && th > w->max_threads)
        w->max_threads = th;
}

/* nice and policy from /proc/<pid>/stat: fields 19 and 41, counted after the ")" of comm. */
static void read_sched(asb_chaos_watch_t *w, int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if (read_small(path, buf, sizeof(buf)) <= 0)
        return;
    char *p = strrchr(buf, ')');
    if (!p)
        return;
    int field = 2;
    long nice = 0, policy = 0;
    char *save = NULL;
    for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        field++;
        if (field == 19)
            nice = strtol(tok, NULL, 10);
        if (field == 41) {
            policy = strtol(tok, NULL, 10);
            break;
        }
    }
    if (nice < w->min_nice)
        w->min_nice = (int)nice;
    if ((policy == 1 || policy == 2) && policy > w->rt_policy)
        w->rt_policy = (int)policy;
}

unsigned asb_chaos_kernel_fd_kind(const char *link)
{
    if (strcmp(link, "anon_inode:[io_uring]") == 0)
        return ASB_CHAOS_FD_IO_URING;
    if (strncmp(link, "anon_inode:bpf-", 15) == 0)
        return ASB_CHAOS_FD_BPF;
    if (strcmp(link, "anon_inode:[perf_event]") == 0)
        return ASB_CHAOS_FD_PERF_EVENT;
    if (strcmp(link, "anon_inode:[userfaultfd]") == 0)
        return ASB_CHAOS_FD_USERFAULTFD;
    return 0;
}

/* The ASB_CHAOS_FD_* kinds in a process's fd table. */
static unsigned kernel_fds(int pid)
{
    char path[64], link[128];
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    unsigned found = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char fdp[300];
        snprintf(fdp, sizeof(fdp), "%s/%s", path, de->d_name);
        ssize_t n = readlink(fdp, link, sizeof(link) - 1);
        if (n > 0) {
            link[n] = '\0';
            found |= asb_chaos_kernel_fd_kind(link);
        }
    }
    closedir(d);
    return found;
}

/* Start time (clock ticks since boot), comm, parent and session from /proc/PID/stat; 0 when the
 * process is gone. */
static unsigned long long proc_stat(int pid, char *comm, size_t comm_len, int *ppid, int *sid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if (read_small(path, buf, sizeof(buf)) <= 0)
        return 0;
    char *p = strrchr(buf, ')'), *open_paren = strchr(buf, '(');
    if (!p || !open_paren || p < open_paren)
        return 0;
    snprintf(comm, comm_len, "%.*s", (int)(p - open_paren - 1), open_paren + 1);
    int field = 2;
    char *save = NULL;
    for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        ++field;
        if (field == 4)
            *ppid = atoi(tok);
        else if (field == 6)
            *sid = atoi(tok);
        else if (field == 22)
            return strtoull(tok, NULL, 10);
    }
    return 0;
}

static unsigned long pidns_of(int pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
    return ns_inode(path);
}

/* PID 1 of its own pid namespace (the last NSpid field): our supervisor, not the workload. */
static bool is_ns_init(int pid)
{
    char path[64], status[4096];
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    if (read_small(path, status, sizeof(status)) <= 0)
        return false;
    const char *p = strstr(status, "\nNSpid:");
    if (!p)
        return false;
    p += 7;
    const char *end = strchr(p, '\n');
    const char *last = p;
    for (const char *q = p; *q && q != end; q++)
        if (*q == '\t' || *q == ' ')
            last = q + 1;
    return atoi(last) == 1;
}

static bool has_seen(const asb_chaos_anchors_t *a, int pid, unsigned long long start)
{
    for (int i = 0; i < a->n_seen; i++)
        if (a->seen[i].pid == pid && a->seen[i].start == start)
            return true;
    return false;
}

/* 1: pid is the process with this start time; 0: gone; -1: the pid is another process now. */
static int same_process(int pid, unsigned long long start)
{
    char comm[20];
    int ppid, sid;
    unsigned long long st = proc_stat(pid, comm, sizeof(comm), &ppid, &sid);
    return st == 0 ? 0 : st == start ? 1 : -1;
}

/* A session id is handed out again only once no process uses it any more: it still names the
 * run's session while its leader is that same process, or while a process seen as the run's
 * (pid and start time) is alive in it. */
static bool session_is_runs(const asb_chaos_anchors_t *a, const asb_chaos_anchor_t *s)
{
    int alive = same_process(s->pid, s->start);
    if (alive == 1)
        return true;
    if (alive == -1)
        return false; /* the leader's pid is another process now */
    for (int i = 0; i < a->n_seen; i++) {
        char comm[20];
        int ppid, sid;
        if (proc_stat(a->seen[i].pid, comm, sizeof(comm), &ppid, &sid) == a->seen[i].start &&
            (unsigned long)sid == s->id)
            return true;
    }
    return false;
}

/* live: the run has not returned yet. Its session's leader is then alive or an unreaped zombie,
 * which keeps the session id from being handed out again, and its namespaces exist; so a
 * matching session or pid namespace is the run's. After the run, a session id may have been
 * reused once its last member died: a process in it is the run's when it started before the run
 * returned (start <= end_ticks, when the id was still held) or while a member the watcher saw
 * is alive in it (review finding: a reused id got an unrelated daemon killed); pid namespaces
 * are not used then (their inodes are reused once freed). */
static bool anchored(const asb_chaos_anchors_t *a, int pid, unsigned long long start, int ppid,
                     int sid, bool live)
{
    for (int i = 0; i < a->n_sids; i++)
        if (a->sids[i].id == (unsigned long)sid &&
            (live || (a->end_ticks && start <= a->end_ticks) || session_is_runs(a, &a->sids[i])))
            return true;
    if (ppid > 1) {
        /* The parent by pid and start time: a seen pid reused by a host process is not it. */
        char comm[20];
        int pp, ps;
        unsigned long long pst = proc_stat(ppid, comm, sizeof(comm), &pp, &ps);
        if (pst && has_seen(a, ppid, pst))
            return true;
    }
    if (live && a->n_pidns > 0) {
        unsigned long ns = pidns_of(pid);
        for (int i = 0; ns && i < a->n_pidns; i++)
            if (a->pidns[i].id == ns && same_process(a->pidns[i].pid, a->pidns[i].start) == 1)
                return !is_ns_init(pid);
    }
    return false;
}

/* A process that carried the nonce: remember what ties others to it. */
static void add_anchors(asb_chaos_watcher_t *wt, int pid, unsigned long long start, int sid)
{
    asb_chaos_anchors_t *a = &wt->anch;
    unsigned long ns = pidns_of(pid);
    bool known = false;
    for (int i = 0; i < a->n_pidns; i++)
        known |= a->pidns[i].id == ns && a->pidns[i].pid == pid;
    if (ns && ns != wt->host_pidns && !known && a->n_pidns < ASB_CHAOS_MAX_ANCHORS) {
        a->pidns[a->n_pidns++] = (asb_chaos_anchor_t){.id = ns, .pid = pid, .start = start};
        wt->gen++;
    }
    known = false;
    for (int i = 0; i < a->n_sids; i++)
        known |= (int)a->sids[i].id == sid;
    char comm[20];
    int lppid, lsid;
    unsigned long long lstart = sid > 0 ? proc_stat(sid, comm, sizeof(comm), &lppid, &lsid) : 0;
    if (sid > 0 && sid != wt->own_sid && lstart && !known && a->n_sids < ASB_CHAOS_MAX_ANCHORS) {
        a->sids[a->n_sids++] =
            (asb_chaos_anchor_t){.id = (unsigned long)sid, .pid = sid, .start = lstart};
        wt->gen++;
    }
}

static bool is_run_process(asb_chaos_watcher_t *wt, cache_slot_t *cache, int pid)
{
    char comm[20];
    int ppid = 0, sid = 0;
    unsigned long long st = proc_stat(pid, comm, sizeof(comm), &ppid, &sid);
    if (!st)
        return false;
    cache_slot_t *s = &cache[(unsigned)pid % CACHE_SLOTS];
    if (s->pid == pid && s->start == st && strcmp(s->comm, comm) == 0 &&
        (s->match || s->gen == wt->gen))
        return s->match;
    int m = cmdline_match(pid, wt->nonce);
    if (m < 0) {
        s->pid = 0; /* an empty read is never cached: ask again on the next scan */
        return false;
    }
    bool match = m == 1;
    if (match)
        add_anchors(wt, pid, st, sid);
    else
        match = has_seen(&wt->anch, pid, st) || anchored(&wt->anch, pid, st, ppid, sid, true);
    if (match && !has_seen(&wt->anch, pid, st) && wt->anch.n_seen < ASB_CHAOS_MAX_SEEN) {
        wt->anch.seen[wt->anch.n_seen].pid = pid;
        wt->anch.seen[wt->anch.n_seen].start = st;
        wt->anch.n_seen++;
    }
    s->pid = pid;
    s->start = st;
    snprintf(s->comm, sizeof(s->comm), "%s", comm);
    s->match = match;
    s->gen = wt->gen;
    return match;
}

static void scan(asb_chaos_watcher_t *wt, cache_slot_t *cache, unsigned long *ns, int *n_ns)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    int procs = 0;
    uint64_t rss_kb = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        int pid = atoi(de->d_name);
        if (!is_run_process(wt, cache, pid))
            continue;
        procs++;
        char path[64], status[4096];
        snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
        unsigned long uns = ns_inode(path);
        bool known = false;
        for (int i = 0; i < *n_ns; i++)
            known |= ns[i] == uns;
        if (uns && !known && *n_ns < MAX_NS)
            ns[(*n_ns)++] = uns;
        snprintf(path, sizeof(path), "/proc/%d/status", pid);
        if (read_small(path, status, sizeof(status)) > 0) {
            asb_chaos_watch_status(&wt->w, status, uns && uns == wt->host_userns);
            const char *rss = strstr(status, "\nVmRSS:");
            unsigned long long kb;
            if (rss && sscanf(rss + 7, "%llu", &kb) == 1)
                rss_kb += kb;
        }
        read_sched(&wt->w, pid);
        if (wt->fds)
            wt->w.kernel_fds |= kernel_fds(pid);
    }
    closedir(d);
    if (procs > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        wt->w.last_seen_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
        if (wt->w.first_seen_s == 0)
            wt->w.first_seen_s = wt->w.last_seen_s;
    }
    if (procs > wt->w.max_procs)
        wt->w.max_procs = procs;
    if (rss_kb > wt->w.max_rss_sum_kb)
        wt->w.max_rss_sum_kb = rss_kb;
    wt->w.userns_count = *n_ns;
    wt->w.scans++;
}

/* The host's count of allocated TCP sockets (every network namespace), -1 when unreadable. */
static long tcp_alloc(void)
{
    char buf[2048];
    if (read_small("/proc/net/sockstat", buf, sizeof(buf)) <= 0)
        return -1;
    const char *p = strstr(buf, "\nTCP: ");
    const char *a = p ? strstr(p, " alloc ") : NULL;
    return a ? strtol(a + 7, NULL, 10) : -1;
}

/* The host's unreclaimable slab in KiB (SUnreclaim), -1 when unreadable. */
static long sunreclaim_kb(void)
{
    char buf[8192];
    if (read_small("/proc/meminfo", buf, sizeof(buf)) <= 0)
        return -1;
    const char *p = strstr(buf, "\nSUnreclaim:");
    return p ? strtol(p + 13, NULL, 10) : -1;
}

/* The pending signals counted against our real uid (host root), -1 when unreadable. */
static long sigq(void)
{
    char buf[4096];
    if (read_small("/proc/self/status", buf, sizeof(buf)) <= 0)
        return -1;
    const char *p = strstr(buf, "\nSigQ:");
    return p ? strtol(p + 7, NULL, 10) : -1;
}

/* CPU time (utime + stime, clock ticks) of the kernel's migration/N threads (children of
 * kthreadd), -1 when none is found. A /proc scan: only for attacks that ask for it, at the start
 * and the end of the run. */
static long migration_ticks(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long total = 0;
    int found = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        if (read_small(path, buf, sizeof(buf)) <= 0 || !strstr(buf, " (migration/"))
            continue;
        const char *p = strrchr(buf, ')');
        int ppid = 0;
        unsigned long ut = 0, st = 0;
        /* after the comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
         * utime stime */
        if (!p ||
            sscanf(p + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ppid, &ut, &st) !=
                3 ||
            ppid != 2)
            continue;
        total += (long)(ut + st);
        found++;
    }
    closedir(d);
    return found ? total : -1;
}

static void *watch_main(void *arg)
{
    asb_chaos_watcher_t *wt = arg;
    unsigned long ns[MAX_NS];
    int n_ns = 0;
    cache_slot_t *cache = calloc(CACHE_SLOTS, sizeof(*cache));
    if (!cache)
        return NULL; /* no scans: the judges say `error`, never a guess */
    for (;;) {
        scan(wt, cache, ns, &n_ns);
        long t = tcp_alloc();
        if (t > wt->w.tcp_alloc_peak)
            wt->w.tcp_alloc_peak = t;
        long q = sigq();
        if (q > wt->w.sigq_peak)
            wt->w.sigq_peak = q;
        long su = sunreclaim_kb();
        if (su > wt->w.sunreclaim_peak_kb)
            wt->w.sunreclaim_peak_kb = su;
        struct pollfd p = {.fd = wt->stop_efd, .events = POLLIN};
        if (poll(&p, 1, ASB_CHAOS_WATCH_INTERVAL_MS) > 0)
            break;
    }
    free(cache);
    return NULL;
}

int asb_chaos_watch_start(asb_chaos_watcher_t *wt, const char *nonce, bool fds, bool migration,
                          asb_error_t *err)
{
    memset(wt, 0, sizeof(*wt));
    snprintf(wt->nonce, sizeof(wt->nonce), "%s", nonce);
    wt->fds = fds;
    wt->w.euid_seen = -1;
    wt->host_userns = ns_inode("/proc/self/ns/user");
    wt->w.tcp_alloc_base = wt->w.tcp_alloc_peak = tcp_alloc();
    wt->w.sigq_base = wt->w.sigq_peak = sigq();
    wt->w.sunreclaim_base_kb = wt->w.sunreclaim_peak_kb = sunreclaim_kb();
    wt->w.migr_base_ticks = migration ? migration_ticks() : -1;
    wt->w.migr_end_ticks = -1;
    wt->host_pidns = ns_inode("/proc/self/ns/pid");
    wt->own_sid = (int)getsid(0);
    if ((wt->stop_efd = eventfd(0, EFD_CLOEXEC)) < 0)
        return asb_err_sys(err, errno, "watcher eventfd");
    int rc = pthread_create(&wt->thread, NULL, watch_main, wt);
    if (rc != 0) {
        close(wt->stop_efd);
        wt->stop_efd = -1;
        return asb_err_sys(err, rc, "watcher thread");
    }
    wt->running = true;
    return 0;
}

unsigned long long asb_chaos_now_ticks(void)
{
    struct timespec ts;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
        return 0;
    return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
           (unsigned long long)ts.tv_nsec / (1000000000ull / (unsigned long long)hz) + 1;
}

void asb_chaos_watch_stop(asb_chaos_watcher_t *wt, asb_chaos_watch_t *out)
{
    if (wt->running) {
        uint64_t one = 1;
        ssize_t w = write(wt->stop_efd, &one, sizeof(one));
        (void)w;
        pthread_join(wt->thread, NULL);
        wt->running = false;
    }
    if (wt->stop_efd >= 0)
        close(wt->stop_efd);
    wt->stop_efd = -1;
    if (wt->w.migr_base_ticks >= 0 && wt->w.migr_end_ticks < 0)
        wt->w.migr_end_ticks = migration_ticks();
    if (out)
        *out = wt->w;
}

int asb_chaos_survivors(const char *nonce, const asb_chaos_anchors_t *anchors, bool kill_them)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int found = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        int pid = atoi(de->d_name);
        if (pid == getpid())
            continue;
        int pidfd = kill_them ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
        /* Match after opening the pidfd: if the pid was recycled in between, the new process
         * is not the run's (no nonce, a start time never seen, another session and pid
         * namespace) and is left alone. */
        bool ours = cmdline_has(pid, nonce);
        if (!ours && anchors) {
            char comm[20];
            int ppid = 0, sid = 0;
            unsigned long long st = proc_stat(pid, comm, sizeof(comm), &ppid, &sid);
            ours = st && (has_seen(anchors, pid, st) || anchored(anchors, pid, st, 0, sid, false));
        }
        if (!ours) {
            if (pidfd >= 0)
                close(pidfd);
            continue;
        }
        found++;
        if (pidfd >= 0) {
            syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
            close(pidfd);
        }
    }
    closedir(d);
    return found;
}
