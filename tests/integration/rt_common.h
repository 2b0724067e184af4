/* rt_common.h - helpers shared by the runtime integration tests (test_runtime_*.c).
 *
 * Header-only on purpose: every test_*.c under tests/integration is its own executable (the CMake
 * glob), so shared code lives in static functions here rather than in a library target.
 *
 * The leak check is the heart of it: every test runs between rt_leak_setup and rt_leak_teardown,
 * which assert that no cgroup, mount, temp dir or process of this test process outlives a run.
 * Other sessions may run sandboxes on the same machine at the same time, so everything is filtered
 * by this process's owner tag "asb-<pid>-", never by the bare prefix. */
#ifndef ASB_TESTS_RT_COMMON_H
#define ASB_TESTS_RT_COMMON_H

#include "agent_sandbox.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define RT_UNUSED __attribute__((unused))
#define RT_PY "/usr/bin/python3"

RT_UNUSED static double rt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Random lowercase hex, 2*nbytes chars. */
RT_UNUSED static void rt_random_hex(char *out, size_t nbytes)
{
    unsigned char b[64];
    assert_true(nbytes <= sizeof(b));
    assert_int_equal(getrandom(b, nbytes, 0), (ssize_t)nbytes);
    for (size_t i = 0; i < nbytes; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* malloc'd printf. */
RT_UNUSED static char *rt_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *rt_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    return s;
}

/* Does the buffer contain the string? (memmem: output may hold NULs.) */
RT_UNUSED static bool rt_bytes_has(const asb_bytes_t *b, const char *needle)
{
    return b->data && memmem(b->data, b->len, needle, strlen(needle)) != NULL;
}

RT_UNUSED static bool rt_bytes_eq(const asb_bytes_t *b, const char *s)
{
    size_t n = strlen(s);
    return b->len == n && (n == 0 || memcmp(b->data, s, n) == 0);
}

/* Print what a run returned, for diagnosis when an assertion fails. */
RT_UNUSED static void rt_dump(const char *what, const asb_result_t *r)
{
    fprintf(stderr, "--- %s: status=%s exit=%d sig=%d oom=%d trunc=%d/%d dur=%.3f err=%s\n", what,
            asb_status_name(r->status), r->exit_code, r->signal, r->out_of_memory,
            r->stdout_truncated, r->stderr_truncated, r->duration_s, r->error ? r->error : "-");
    fprintf(stderr, "    stdout(%zu): %.*s\n", r->out.len,
            (int)(r->out.len > 600 ? 600 : r->out.len),
            r->out.data ? (const char *)r->out.data : "");
    fprintf(stderr, "    stderr(%zu): %.*s\n", r->err.len,
            (int)(r->err.len > 600 ? 600 : r->err.len),
            r->err.data ? (const char *)r->err.data : "");
}

/* Run Python code under a profile. Returns asb_run's rc; *res is always filled. */
RT_UNUSED static int rt_run_code(const char *profile, uint32_t weaken, const char *code,
                                 const char *const *env, size_t n_env, asb_result_t *res)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.code = code;
    cfg.interpreter = RT_PY;
    cfg.weaken = weaken;
    cfg.env = env;
    cfg.n_env = n_env;
    asb_error_t err;
    memset(&err, 0, sizeof(err));
    int rc = asb_run(&cfg, res, &err);
    if (rc < 0)
        fprintf(stderr, "asb_run(%s): %d %s\n", profile, rc, err.message);
    return rc;
}

/* ---- host evidence ------------------------------------------------------------------------- */

/* Read a whole small file; returns malloc'd NUL-terminated text (NUL bytes kept, length in *len),
 * or NULL. */
RT_UNUSED static char *rt_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Count host processes whose cmdline contains `needle` (argv is NUL-separated). */
RT_UNUSED static int rt_count_cmdline(const char *needle, pid_t *first)
{
    int count = 0;
    DIR *d = opendir("/proc");
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid())
            continue;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
        size_t len;
        char *c = rt_read_file(path, &len);
        if (c && memmem(c, len, needle, strlen(needle))) {
            if (first && count == 0)
                *first = (pid_t)pid;
            count++;
        }
        free(c);
    }
    closedir(d);
    return count;
}

/* Is pid in one of the run cgroups of this test process (v1: any hierarchy; v2: the unified
 * one)? The kernel's /proc/PID/cgroup, not anything the run says. */
RT_UNUSED static bool rt_pid_in_our_runs(long pid)
{
    char tag[48], path[64];
    snprintf(tag, sizeof(tag), "/asb-%d-", (int)getpid());
    snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
    char *cg = rt_read_file(path, NULL);
    bool ours = cg && strstr(cg, tag);
    free(cg);
    return ours;
}

/* Processes on the host that belong to a run of this test process: in one of our run cgroups
 * or direct children of ours. */
RT_UNUSED static int rt_count_our_processes(bool verbose)
{
    int count = 0;
    DIR *d = opendir("/proc");
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid())
            continue;
        bool ours = rt_pid_in_our_runs(pid);
        char path[64];
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        char *st = rt_read_file(path, NULL);
        char *rp = st ? strrchr(st, ')') : NULL;
        long ppid = 0;
        char state = 0;
        if (rp && sscanf(rp + 1, " %c %ld", &state, &ppid) == 2 && ppid == getpid())
            ours = true;
        free(st);
        if (ours) {
            if (verbose)
                fprintf(stderr, "leftover process %ld (state %c)\n", pid, state);
            count++;
        }
    }
    closedir(d);
    return count;
}

/* Our run cgroups still present under any controller (v1) or the unified root (v2). */
RT_UNUSED static size_t rt_count_our_cgroups(bool verbose)
{
    char pat[2][128];
    snprintf(pat[0], sizeof(pat[0]), "/sys/fs/cgroup/*/agent-sandbox/asb-%d-*", (int)getpid());
    snprintf(pat[1], sizeof(pat[1]), "/sys/fs/cgroup/agent-sandbox/asb-%d-*", (int)getpid());
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
        glob_t g;
        if (glob(pat[i], GLOB_ONLYDIR, NULL, &g) == 0) {
            for (size_t j = 0; verbose && j < g.gl_pathc; j++)
                fprintf(stderr, "leftover cgroup %s\n", g.gl_pathv[j]);
            n += g.gl_pathc;
        }
        globfree(&g);
    }
    return n;
}

RT_UNUSED static size_t rt_count_our_tmpdirs(bool verbose)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "/tmp/asb-%d-*", (int)getpid());
    glob_t g;
    size_t n = 0;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t j = 0; verbose && j < g.gl_pathc; j++)
            fprintf(stderr, "leftover temp dir %s\n", g.gl_pathv[j]);
        n = g.gl_pathc;
    }
    globfree(&g);
    return n;
}

/* Mounts in our namespace that a sandbox could have leaked: the sandboxes build their trees under
 * /tmp (the staging point) and bind /usr, /dev nodes, /proc and /etc paths. Counting only those
 * keeps unrelated mounts made by other software on a shared host (a container engine starting)
 * from failing the check, while a propagation leak still shows. */
RT_UNUSED static size_t rt_count_mounts(void)
{
    size_t len, n = 0;
    char *m = rt_read_file("/proc/self/mountinfo", &len);
    assert_non_null(m);
    for (char *line = m; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        /* Field 5 is the mount point. */
        char *p = line;
        for (int f = 1; f < 5 && p; f++) {
            p = strchr(p, ' ');
            if (p)
                p++;
        }
        if (p && (strncmp(p, "/tmp", 4) == 0 || strncmp(p, "/usr ", 5) == 0 ||
                  strncmp(p, "/usr/", 5) == 0 || strncmp(p, "/proc/", 6) == 0 ||
                  strncmp(p, "/dev/null ", 10) == 0 || strncmp(p, "/etc", 4) == 0 ||
                  strncmp(p, "/workspace", 10) == 0))
            n++;
        line = nl ? nl + 1 : NULL;
    }
    free(m);
    return n;
}

/* Mount namespaces this process holds open (a pool keeps finished runs' for its thread to tear
 * down): readlinks of /proc/self/fd that read "mnt:[...]". */
RT_UNUSED static int rt_count_mnt_ns_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[300], link[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
        ssize_t l = readlink(path, link, sizeof(link) - 1);
        if (l > 0) {
            link[l] = '\0';
            n += strncmp(link, "mnt:[", 5) == 0;
        }
    }
    closedir(d);
    return n;
}

/* Host id slots (src/native/idslot.c) this process still holds: each live sandbox keeps one lock
 * file, which names its holder's pid. */
/* The calling process's open descriptors (with the one the count itself holds). */
RT_UNUSED static int rt_count_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

RT_UNUSED static int rt_count_idslots(void)
{
    DIR *d = opendir("/run/agent-sandbox/idslots");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/run/agent-sandbox/idslots/%s", de->d_name);
        char *t = rt_read_file(path, NULL);
        n += t && atol(t) == (long)getpid();
        free(t);
    }
    closedir(d);
    return n;
}

typedef struct rt_snapshot {
    size_t mounts;
} rt_snapshot_t;

/* cmocka setup: nothing of ours may exist before the test either (a leftover from an earlier test
 * would otherwise be blamed on the next one). */
RT_UNUSED static int rt_leak_setup(void **state)
{
    rt_snapshot_t *s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    s->mounts = rt_count_mounts();
    *state = s;
    if (rt_count_our_cgroups(true) || rt_count_our_tmpdirs(true) || rt_count_our_processes(true))
        return -1;
    return 0;
}

/* cmocka teardown: after the test, no cgroup, mount, temp dir or process of ours is left. A run's
 * processes may take a moment to be reaped by the kernel after asb_run returned only if the
 * runtime is wrong, so there is no grace period here on purpose. */
RT_UNUSED static int rt_leak_teardown(void **state)
{
    rt_snapshot_t *s = *state;
    int bad = 0;
    size_t mounts = rt_count_mounts();
    if (mounts != s->mounts) {
        fprintf(stderr, "LEAK: mountinfo had %zu lines before, %zu after\n", s->mounts, mounts);
        bad = 1;
    }
    if (rt_count_our_cgroups(true)) {
        fprintf(stderr, "LEAK: run cgroups left behind\n");
        bad = 1;
    }
    if (rt_count_our_tmpdirs(true)) {
        fprintf(stderr, "LEAK: temp dirs left behind\n");
        bad = 1;
    }
    if (rt_count_our_processes(true)) {
        fprintf(stderr, "LEAK: processes left behind\n");
        bad = 1;
    }
    if (rt_count_idslots() != 0) {
        fprintf(stderr, "LEAK: a host id slot is still held\n");
        bad = 1;
    }
    if (rt_count_mnt_ns_fds() != 0) {
        fprintf(stderr, "LEAK: a run's mount namespace is still held open\n");
        bad = 1;
    }
    free(s);
    return bad ? -1 : 0;
}

#define RT_TEST(f) cmocka_unit_test_setup_teardown(f, rt_leak_setup, rt_leak_teardown)

/* ---- a loopback listener for network evidence ------------------------------------------------ */

/* A non-blocking TCP listener on 127.0.0.1, ephemeral port. */
RT_UNUSED static int rt_listen_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 16), 0);
    socklen_t l = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* Connections that reached the listener (accepted and closed). */
RT_UNUSED static int rt_accept_count(int lfd)
{
    int n = 0;
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            break;
        close(c);
        n++;
    }
    return n;
}

/* ---- canaries ------------------------------------------------------------------------------ */

typedef struct rt_canary {
    char path[128];
    char content[65];
} rt_canary_t;

/* Plant a world-readable file with random content in dir, so that only the sandbox (not the file
 * mode) can keep a reader out. */
RT_UNUSED static void rt_canary_plant(rt_canary_t *c, const char *dir)
{
    char id[17];
    rt_random_hex(id, 8);
    rt_random_hex(c->content, 32);
    snprintf(c->path, sizeof(c->path), "%s/rtcanary-%s", dir, id);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, c->content, strlen(c->content)), (ssize_t)strlen(c->content));
    close(fd);
}

RT_UNUSED static void rt_canary_remove(rt_canary_t *c)
{
    unlink(c->path);
}

/* One number from the host's /proc/net/sockstat "TCP:" line ("alloc": sockets of every network
 * namespace; "mem": pages of TCP buffers), -1 when unreadable. The host's own evidence. */
RT_UNUSED static long rt_sockstat_tcp(const char *field)
{
    size_t len;
    char *t = rt_read_file("/proc/net/sockstat", &len);
    char key[32];
    snprintf(key, sizeof(key), " %s ", field);
    const char *p = t ? strstr(t, "\nTCP: ") : NULL;
    const char *f = p ? strstr(p, key) : NULL;
    long n = f ? strtol(f + strlen(key), NULL, 10) : -1;
    free(t);
    return n;
}

/* The peak of rt_sockstat_tcp(field) while a run lives, sampled every 20 ms on a thread. */
typedef struct rt_tcp_watch {
    const char *field;
    volatile bool stop;
    long base, peak;
    pthread_t thread;
} rt_tcp_watch_t;

RT_UNUSED static void *rt_tcp_watch_main(void *arg)
{
    rt_tcp_watch_t *w = arg;
    while (!w->stop) {
        long n = rt_sockstat_tcp(w->field);
        if (n > w->peak)
            w->peak = n;
        usleep(20000);
    }
    return NULL;
}

RT_UNUSED static void rt_tcp_watch_start(rt_tcp_watch_t *w, const char *field)
{
    w->field = field;
    w->stop = false;
    w->base = w->peak = rt_sockstat_tcp(field);
    if (w->base < 0 || pthread_create(&w->thread, NULL, rt_tcp_watch_main, w) != 0) {
        fprintf(stderr, "cannot watch /proc/net/sockstat\n");
        abort();
    }
}

/* How much the field grew at its peak. */
RT_UNUSED static long rt_tcp_watch_stop(rt_tcp_watch_t *w)
{
    w->stop = true;
    pthread_join(w->thread, NULL);
    return w->peak - w->base;
}

#endif
