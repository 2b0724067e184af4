/* test_cgroup.c - the cgroup module on the real host (root). Evidence comes from the kernel: the
 * limit files, /proc/<pid>/cgroup, wait statuses, fork's errno, the cgroup's own counters, and the
 * directories' existence. On a v1 host the v2 code path is also run on the cgroup2 hierarchy that
 * hybrid hosts mount without controllers (create, clone3 CLONE_INTO_CGROUP, cgroup.kill, destroy,
 * reap); the v2 limit files themselves can only be checked on a v2 host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/limits.h"
#include "native/cgroup.h"
#include "native/cgroup_parse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ull * 1024ull)

static asb_cgroup_host_t g_host;
/* g_host with its own parent directory for the reaper tests: other agent-sandbox processes on this
 * host reap dead owners' runs under ASB_CGROUP_PARENT and would race the test for its fake stale
 * runs. Under this parent only the test's reapers look, so their reports can be checked exactly. */
static asb_cgroup_host_t g_reap_host;
#define TEST_PARENT ASB_CGROUP_PARENT "-test"

/* Every child this test makes, so that a failed assertion (cmocka longjmps out of the test) does
 * not leave sleepers behind holding ctest's output pipe. */
static pid_t g_children[256];
static size_t g_n_children;

static void track(pid_t pid)
{
    if (pid > 0 && g_n_children < sizeof(g_children) / sizeof(g_children[0]))
        g_children[g_n_children++] = pid;
}

/* ---- helpers ------------------------------------------------------------------------------------
 */

static size_t slurp(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail_msg("open %s: %s", path, strerror(errno));
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        fail_msg("read %s: %s", path, strerror(errno));
    buf[n] = '\0';
    return (size_t)n;
}

static void assert_file_eq(const char *dir, const char *file, const char *want)
{
    char path[1024], buf[256];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    slurp(path, buf, sizeof(buf));
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    if (strcmp(buf, want) != 0)
        fail_msg("%s is \"%s\", want \"%s\"", path, buf, want);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static const asb_cgroup_dir_t *dir_of(const asb_cgroup_t *cg, unsigned ctrl)
{
    for (size_t i = 0; i < cg->n_dirs; i++) {
        if (cg->dirs[i].controllers & ctrl)
            return &cg->dirs[i];
    }
    fail_msg("no hierarchy with controller bit %u", ctrl);
    return NULL;
}

/* A child that waits for one byte on a pipe before doing what fn says: it must be attached to the
 * cgroup before it starts using memory or forking. */
typedef void (*child_fn)(int report_fd);

static pid_t spawn(child_fn fn, int *go_fd, int *report_fd)
{
    int go[2], rep[2];
    assert_int_equal(pipe2(go, O_CLOEXEC), 0);
    assert_int_equal(pipe2(rep, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char c;
        close(go[1]);
        close(rep[0]);
        if (read(go[0], &c, 1) != 1)
            _exit(100);
        if (fn)
            fn(rep[1]);
        _exit(0);
    }
    track(pid);
    close(go[0]);
    close(rep[1]);
    *go_fd = go[1];
    *report_fd = rep[0];
    return pid;
}

static void release(int go_fd)
{
    assert_int_equal(write(go_fd, "x", 1), 1);
    close(go_fd);
}

static void child_sleep(int report_fd)
{
    (void)report_fd;
    for (;;)
        pause();
}

static void child_oom(int report_fd)
{
    (void)report_fd;
    size_t n = 200 * MIB;
    volatile char *p = malloc(n);
    if (!p)
        _exit(101);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    _exit(0); /* survived: the memory limit did not hold */
}

struct fork_report {
    int forked;
    int err;
};

static void child_fork_loop(int report_fd)
{
    struct fork_report r = {0, 0};
    for (int i = 0; i < 1000; i++) {
        pid_t p = fork();
        if (p == 0) {
            for (;;)
                pause();
        }
        if (p < 0) {
            r.err = errno;
            break;
        }
        r.forked++;
    }
    if (write(report_fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
        _exit(102);
    for (;;)
        pause();
}

static void child_spin(int report_fd)
{
    (void)report_fd;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 600000000L);
}

static int wait_status(pid_t pid)
{
    int status;
    pid_t r;
    do {
        r = waitpid(pid, &status, 0);
    } while (r < 0 && errno == EINTR);
    assert_int_equal(r, pid);
    return status;
}

static void assert_killed(pid_t pid)
{
    int status = wait_status(pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
        fail_msg("pid %d: status 0x%x, want killed by SIGKILL", (int)pid, status);
}

/* Every hierarchy's line of /proc/<pid>/cgroup names our run's directory. This host's cgroup mounts
 * have root "/", so the paths in /proc/<pid>/cgroup are relative to the mount points. */
static void assert_in_cgroup(pid_t pid, const asb_cgroup_t *cg)
{
    char path[64], buf[4096], want[512];
    snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
    slurp(path, buf, sizeof(buf));
    static const char *v1_names[] = {"memory", "pids", "cpu", "cpuacct", "blkio"};
    for (size_t i = 0; i < cg->n_dirs; i++) {
        /* "<mount>/<parent>/<name>" appears as "/<parent>/<name>" */
        const char *p = cg->dirs[i].path + strlen(cg->dirs[i].path);
        int slashes = 0;
        while (p > cg->dirs[i].path && (slashes += (p[-1] == '/')) < 2)
            p--;
        snprintf(want, sizeof(want), "%s", p - 1);
        bool found = false;
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2)
                continue;
            *c2 = '\0';
            const char *ctrls = c1 + 1, *where = c2 + 1;
            bool match = false;
            if (cg->version == ASB_CGROUP_V2) {
                match = ctrls[0] == '\0' && c1 == line + 1 && line[0] == '0';
            } else {
                char list[128];
                snprintf(list, sizeof(list), ",%s,", ctrls);
                for (unsigned b = 0; b < sizeof(v1_names) / sizeof(v1_names[0]); b++) {
                    char tok[32];
                    snprintf(tok, sizeof(tok), ",%s,", v1_names[b]);
                    if ((cg->dirs[i].controllers & (1u << b)) && strstr(list, tok))
                        match = true;
                }
            }
            *c2 = ':';
            if (!match)
                continue;
            found = true;
            if (strcmp(where, want) != 0)
                fail_msg("pid %d hierarchy %zu is in %s, want %s", (int)pid, i, where, want);
        }
        if (!found)
            fail_msg("pid %d: no line for hierarchy %zu in /proc/%d/cgroup", (int)pid, i, (int)pid);
        slurp(path, buf, sizeof(buf)); /* strtok consumed it */
    }
}

static void assert_gone(const asb_cgroup_t *saved)
{
    for (size_t i = 0; i < saved->n_dirs; i++) {
        if (exists(saved->dirs[i].path))
            fail_msg("%s still exists", saved->dirs[i].path);
    }
}

static uint64_t starttime_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    size_t n = slurp(path, buf, sizeof(buf));
    uint64_t start;
    assert_int_equal(asb_cgroup_parse_stat_starttime(buf, n, &start), 0);
    return start;
}

/* A fake owner: a live child whose (pid, starttime) names the runs. It is ended only right before
 * our reaper runs, because other agent-sandbox processes on a shared host reap dead owners' runs
 * too and would otherwise race the test for them. */
typedef struct owner {
    pid_t pid;
    uint64_t start;
    int go;
} owner_t;

static owner_t fake_owner(void)
{
    owner_t o;
    int rep;
    o.pid = spawn(NULL, &o.go, &rep);
    close(rep);
    o.start = starttime_of(o.pid);
    return o;
}

static void end_owner(owner_t *o)
{
    release(o->go);
    assert_true(WIFEXITED(wait_status(o->pid)));
}

/* ---- tests
 * --------------------------------------------------------------------------------------- */

static void test_detect_v1(void **state)
{
    (void)state;
    if (g_host.version != ASB_CGROUP_V1)
        skip(); /* this test describes the development host: hybrid v1 */
    assert_string_equal(asb_cgroup_version_name(g_host.version), "v1");
    unsigned want = ASB_CGROUP_CTRL_MEMORY | ASB_CGROUP_CTRL_PIDS | ASB_CGROUP_CTRL_CPU;
    assert_int_equal(g_host.controllers & want, want);
    for (size_t i = 0; i < g_host.n_hierarchies; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/cgroup.procs", g_host.hierarchies[i].mount);
        if (!exists(path))
            fail_msg("%s: not a cgroup hierarchy", g_host.hierarchies[i].mount);
        if (g_host.hierarchies[i].controllers & ASB_CGROUP_CTRL_MEMORY) {
            snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", g_host.hierarchies[i].mount);
            assert_true(exists(path));
        }
    }
    char buf[4096];
    size_t n = slurp("/proc/swaps", buf, sizeof(buf));
    assert_int_equal(g_host.swap_active, asb_cgroup_parse_swaps_active(buf, n));
    assert_true(g_host.swap_limit_known);
}

static void test_create_limits_attach_kill_destroy(void **state)
{
    (void)state;
    asb_cgroup_t cg, saved;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    if (asb_cgroup_create(&cg, &g_host, "limits", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    saved = cg;
    for (size_t i = 0; i < cg.n_dirs; i++)
        assert_true(exists(cg.dirs[i].path));

    const char *mem = dir_of(&cg, ASB_CGROUP_CTRL_MEMORY)->path;
    const char *pids = dir_of(&cg, ASB_CGROUP_CTRL_PIDS)->path;
    const char *cpu = dir_of(&cg, ASB_CGROUP_CTRL_CPU)->path;
    assert_file_eq(pids, "pids.max", "16");
    if (cg.version == ASB_CGROUP_V1) {
        assert_file_eq(mem, "memory.limit_in_bytes", "67108864");
        if (g_host.can_limit_swap)
            assert_file_eq(mem, "memory.memsw.limit_in_bytes", "67108864");
        assert_file_eq(cpu, "cpu.cfs_period_us", "100000");
        assert_file_eq(cpu, "cpu.cfs_quota_us", "50000");
        assert_int_equal(asb_cgroup_dirfd_v2(&cg), -1);
    } else {
        assert_file_eq(mem, "memory.max", "67108864");
        assert_file_eq(mem, "memory.swap.max", "0");
        assert_file_eq(mem, "memory.oom.group", "1");
        assert_file_eq(cpu, "cpu.max", "50000 100000");
        assert_true(asb_cgroup_dirfd_v2(&cg) >= 0);
    }

    int go, rep;
    pid_t child = spawn(child_sleep, &go, &rep);
    /* The host's membership check: a process outside the run's cgroup is refused. */
    assert_int_equal(asb_cgroup_has_pid(&cg, child, &err), -EPERM);
    if (asb_cgroup_attach(&cg, child, &err) != 0)
        fail_msg("attach: %s", err.message);
    assert_in_cgroup(child, &cg);
    if (asb_cgroup_has_pid(&cg, child, &err) != 0)
        fail_msg("has_pid after attach: %s", err.message);
    assert_int_equal(asb_cgroup_has_pid(&cg, getpid(), &err), -EPERM);
    asb_cgroup_stats_t st;
    if (asb_cgroup_read_stats(&cg, &st, &err) != 0)
        fail_msg("stats: %s", err.message);
    assert_int_equal(st.pids_current, 1);
    assert_int_equal(st.oom_kills, 0);
    release(go);
    close(rep);

    if (asb_cgroup_kill(&cg, SIGKILL, &err) != 0)
        fail_msg("kill: %s", err.message);
    assert_killed(child);

    if (asb_cgroup_destroy(&cg, &err) != 0)
        fail_msg("destroy: %s", err.message);
    assert_gone(&saved);
    assert_int_equal(cg.n_dirs, 0);
    assert_int_equal(asb_cgroup_destroy(&cg, &err), 0); /* idempotent */
}

/* v1: a child joins by writing "0" to tasks files its parent opened (how the native backend
 * joins without the global rwsem); the membership check then accepts it. */
static void test_self_join_v1(void **state)
{
    (void)state;
    if (g_host.version != ASB_CGROUP_V1) {
        print_message("SKIP: self-join through tasks files is for cgroup v1 hosts\n");
        skip();
    }
    asb_cgroup_t cg;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16};
    if (asb_cgroup_create(&cg, &g_host, "selfjoin", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    int fds[ASB_CGROUP_MAX_HIERARCHIES];
    int n = asb_cgroup_open_self_join(&cg, fds, ASB_CGROUP_MAX_HIERARCHIES, &err);
    assert_true(n > 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(p[1]);
        for (int i = 0; i < n; i++)
            if (write(fds[i], "0", 1) != 1)
                _exit(1);
        char b;
        while (read(p[0], &b, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    /* Wait until the child has joined (bounded), then check from outside. */
    int ok = -1;
    for (int i = 0; i < 200 && ok != 0; i++) {
        ok = asb_cgroup_has_pid(&cg, child, &err);
        if (ok != 0)
            usleep(5000);
    }
    if (ok != 0)
        fail_msg("self-join: %s", err.message);
    assert_in_cgroup(child, &cg);
    close(p[1]);
    int st;
    waitpid(child, &st, 0);
    close(p[0]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (asb_cgroup_destroy(&cg, &err) != 0)
        fail_msg("destroy: %s", err.message);
}

static void test_oom_kill_counted(void **state)
{
    (void)state;
    asb_cgroup_t cg;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    if (asb_cgroup_create(&cg, &g_host, "oom", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    int go, rep;
    pid_t child = spawn(child_oom, &go, &rep);
    if (asb_cgroup_attach(&cg, child, &err) != 0)
        fail_msg("attach: %s", err.message);
    asb_cgroup_stats_t st;
    assert_int_equal(asb_cgroup_read_stats(&cg, &st, &err), 0);
    assert_int_equal(st.oom_kills, 0);
    release(go);
    close(rep);
    assert_killed(child); /* exit 0 would mean it got its 200 MB */

    if (asb_cgroup_read_stats(&cg, &st, &err) != 0)
        fail_msg("stats: %s", err.message);
    print_message("oom run: oom_kills=%llu peak=%llu bytes\n", (unsigned long long)st.oom_kills,
                  (unsigned long long)st.memory_peak_bytes);
    assert_true(st.oom_kills >= 1);
    assert_true(st.memory_peak_bytes > 32 * MIB);
    assert_true(st.memory_peak_bytes <= 64 * MIB);
    assert_int_equal(asb_cgroup_destroy(&cg, &err), 0);
}

static void test_pids_limit_holds_and_destroy_kills_all(void **state)
{
    (void)state;
    asb_cgroup_t cg, saved;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    if (asb_cgroup_create(&cg, &g_host, "pids", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    saved = cg;
    /* Grandchildren are reparented to us, so every process killed can be counted. */
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
    int go, rep;
    pid_t child = spawn(child_fork_loop, &go, &rep);
    if (asb_cgroup_attach(&cg, child, &err) != 0)
        fail_msg("attach: %s", err.message);
    release(go);
    struct fork_report r;
    assert_int_equal(read(rep, &r, sizeof(r)), (ssize_t)sizeof(r));
    close(rep);
    print_message("fork loop: %d forks, then %s\n", r.forked, strerror(r.err));
    assert_int_equal(r.err, EAGAIN);
    assert_int_equal(r.forked, 15); /* 16 with the loop itself */
    asb_cgroup_stats_t st;
    assert_int_equal(asb_cgroup_read_stats(&cg, &st, &err), 0);
    assert_int_equal(st.pids_current, 16);

    /* destroy with 16 live processes: it must kill them all and still remove every directory */
    if (asb_cgroup_destroy(&cg, &err) != 0)
        fail_msg("destroy: %s", err.message);
    assert_gone(&saved);
    int killed = 0, status;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0 || (p < 0 && errno == EINTR)) {
        if (p > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            killed++;
    }
    assert_int_equal(killed, 16);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
}

static void test_cpu_quota_throttles(void **state)
{
    (void)state;
    asb_cgroup_t cg;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    if (asb_cgroup_create(&cg, &g_host, "cpu", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    int go, rep;
    pid_t child = spawn(child_spin, &go, &rep);
    assert_int_equal(asb_cgroup_attach(&cg, child, &err), 0);
    release(go);
    close(rep);
    assert_true(WIFEXITED(wait_status(child)));
    asb_cgroup_stats_t st;
    assert_int_equal(asb_cgroup_read_stats(&cg, &st, &err), 0);
    print_message("600 ms of spinning at cpus=0.5: %.0f ms of CPU\n",
                  (double)st.cpu_usage_ns / 1e6);
    /* Unthrottled it would be ~600 ms; 0.5 CPU allows ~300 ms plus at most one period's quota. */
    assert_true(st.cpu_usage_ns > 100 * 1000000ull);
    assert_true(st.cpu_usage_ns < 420 * 1000000ull);
    assert_int_equal(asb_cgroup_destroy(&cg, &err), 0);
}

static void test_failed_create_removes_only_its_own(void **state)
{
    (void)state;
    asb_cgroup_t cg, first;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    /* A foreign directory with our would-be name in the last hierarchy only: create gets half-way,
     * fails there, removes what it made, and leaves the foreign one alone. */
    if (asb_cgroup_create(&first, &g_host, "clash", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    asb_cgroup_t probe = first;
    assert_int_equal(asb_cgroup_destroy(&first, &err), 0);
    const char *last = probe.dirs[probe.n_dirs - 1].path;
    assert_int_equal(mkdir(last, 0755), 0);

    int rc = asb_cgroup_create(&cg, &g_host, "clash", &lim, &err);
    assert_int_equal(rc, -EEXIST);
    print_message("expected failure: %s\n", err.message);
    assert_non_null(strstr(err.message, "cgroup: create "));
    assert_non_null(strstr(err.message, "(File exists)"));
    assert_true(exists(last));
    for (size_t i = 0; i + 1 < probe.n_dirs; i++) {
        if (exists(probe.dirs[i].path))
            fail_msg("failed create left %s behind", probe.dirs[i].path);
    }
    assert_int_equal(asb_cgroup_destroy(&cg, &err), 0);
    assert_true(exists(last));
    assert_int_equal(rmdir(last), 0);
}

static bool report_has(const char *report, const char *path)
{
    char line[1024];
    snprintf(line, sizeof(line), "removed cgroup %s\n", path);
    return report && strstr(report, line);
}

static int reported_count(const char *report, const char *path)
{
    char line[1024];
    int n = 0;
    snprintf(line, sizeof(line), "removed cgroup %s\n", path);
    for (const char *p = report; p && (p = strstr(p, line)); p += strlen(line))
        n++;
    return n;
}

static void test_reap_stale(void **state)
{
    (void)state;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    owner_t o = fake_owner();
    asb_cgroup_t dead, reused, live;
    if (asb_cgroup_create_for_owner(&dead, &g_reap_host, o.pid, o.start, "stale", &lim, &err) != 0)
        fail_msg("create: %s", err.message);
    assert_int_equal(asb_cgroup_create(&live, &g_reap_host, "live", &lim, &err), 0);

    int go, rep;
    pid_t orphan = spawn(child_sleep, &go, &rep);
    assert_int_equal(asb_cgroup_attach(&dead, orphan, &err), 0);
    release(go);
    close(rep);
    pid_t kept = spawn(child_sleep, &go, &rep);
    assert_int_equal(asb_cgroup_attach(&live, kept, &err), 0);
    release(go);
    close(rep);
    /* our own pid with another starttime: a recycled pid, so that owner is gone too (two ticks
     * off: one either way is the same process, cgroup_fs.c asb_cgroup_fs_start_matches) */
    uint64_t mystart = starttime_of(getpid());
    assert_int_equal(asb_cgroup_create_for_owner(&reused, &g_reap_host, getpid(), mystart + 2,
                                                 "reused", &lim, &err),
                     0);
    end_owner(&o);

    char *report = NULL;
    if (asb_cgroup_reap_stale(&g_reap_host, &report, &err) != 0)
        fail_msg("reap: %s", err.message);
    print_message("%s", report ? report : "(no report)\n");
    for (size_t i = 0; i < dead.n_dirs; i++) {
        assert_int_equal(reported_count(report, dead.dirs[i].path), 1);
        assert_int_equal(reported_count(report, reused.dirs[i].path), 1);
        assert_false(report_has(report, live.dirs[i].path));
        assert_false(exists(dead.dirs[i].path));
        assert_false(exists(reused.dirs[i].path));
        assert_true(exists(live.dirs[i].path));
    }
    free(report);
    assert_killed(orphan);
    assert_in_cgroup(kept, &live); /* the live owner's process is untouched */

    /* the structs of reaped runs destroy cleanly: nothing left to remove is not an error */
    assert_int_equal(asb_cgroup_destroy(&dead, &err), 0);
    assert_int_equal(asb_cgroup_destroy(&reused, &err), 0);
    assert_int_equal(asb_cgroup_destroy(&live, &err), 0);
    assert_killed(kept);
}

#define N_STALE 6
#define N_REAPERS 4

struct reaper {
    pthread_t thread;
    int rc;
    char *report;
    asb_error_t err;
};

static void *reaper_main(void *arg)
{
    struct reaper *r = arg;
    r->rc = asb_cgroup_reap_stale(&g_reap_host, &r->report, &r->err);
    return NULL;
}

static void test_concurrent_reapers(void **state)
{
    (void)state;
    asb_error_t err;
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    asb_cgroup_t stale[N_STALE];
    pid_t procs[N_STALE];
    owner_t o = fake_owner();
    for (int i = 0; i < N_STALE; i++) {
        char id[16];
        snprintf(id, sizeof(id), "race%d", i);
        if (asb_cgroup_create_for_owner(&stale[i], &g_reap_host, o.pid, o.start, id, &lim, &err) !=
            0)
            fail_msg("create: %s", err.message);
        int go, rep;
        procs[i] = spawn(child_sleep, &go, &rep);
        assert_int_equal(asb_cgroup_attach(&stale[i], procs[i], &err), 0);
        release(go);
        close(rep);
    }
    struct reaper r[N_REAPERS];
    memset(r, 0, sizeof(r));
    end_owner(&o);
    for (int i = 0; i < N_REAPERS; i++)
        assert_int_equal(pthread_create(&r[i].thread, NULL, reaper_main, &r[i]), 0);
    for (int i = 0; i < N_REAPERS; i++)
        assert_int_equal(pthread_join(r[i].thread, NULL), 0);
    for (int i = 0; i < N_REAPERS; i++) {
        if (r[i].rc != 0)
            fail_msg("reaper %d: %s", i, r[i].err.message);
    }
    int total = 0, reported = 0;
    for (int i = 0; i < N_STALE; i++) {
        for (size_t d = 0; d < stale[i].n_dirs; d++) {
            int times = 0;
            for (int k = 0; k < N_REAPERS; k++)
                times += reported_count(r[k].report, stale[i].dirs[d].path);
            if (times != 1)
                fail_msg("%s reported %d times", stale[i].dirs[d].path, times);
            assert_false(exists(stale[i].dirs[d].path));
            total++;
            reported += times;
        }
        assert_killed(procs[i]);
        assert_int_equal(asb_cgroup_destroy(&stale[i], &err), 0);
    }
    assert_int_equal(reported, total);
    for (int i = 0; i < N_REAPERS; i++)
        free(r[i].report);
}

static void test_create_destroy_time(void **state)
{
    (void)state;
    enum { N = 200 };
    asb_cgroup_limits_t lim = {.memory_bytes = 64 * MIB, .pids = 16, .cpus = 0.5};
    asb_error_t err;
    struct timespec a, b, c;
    double create_ns = 0, destroy_ns = 0;
    for (int i = 0; i < N; i++) {
        asb_cgroup_t cg;
        char id[16];
        snprintf(id, sizeof(id), "t%d", i);
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (asb_cgroup_create(&cg, &g_host, id, &lim, &err) != 0)
            fail_msg("create: %s", err.message);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (asb_cgroup_destroy(&cg, &err) != 0)
            fail_msg("destroy: %s", err.message);
        clock_gettime(CLOCK_MONOTONIC, &c);
        create_ns += (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        destroy_ns += (double)(c.tv_sec - b.tv_sec) * 1e9 + (double)(c.tv_nsec - b.tv_nsec);
    }
    double per_run_us = (create_ns + destroy_ns) / N / 1000.0;
    print_message("%s, %zu hierarchies: create %.1f us + destroy %.1f us = %.1f us per run "
                  "(mean of %d)\n",
                  asb_cgroup_version_name(g_host.version), g_host.n_hierarchies,
                  create_ns / N / 1000.0, destroy_ns / N / 1000.0, per_run_us, N);
    assert_true(per_run_us < 5000.0); /* a loose bound: a regression to fork/exec would break it */
}

/* ---- the v2 code path on a controller-less cgroup2 (hybrid hosts) ------------------------------
 */

static pid_t clone_into(int cgroup_fd)
{
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)cgroup_fd;
    long pid = syscall(SYS_clone3, &args, sizeof(args));
    if (pid == 0) {
        for (;;)
            pause();
    }
    track((pid_t)pid);
    return (pid_t)pid;
}

static void test_v2_path_on_unified(void **state)
{
    (void)state;
    asb_cgroup_host_t host;
    asb_error_t err;
    if (g_host.version == ASB_CGROUP_V2) {
        host = g_host; /* a real v2 host: the other tests already covered the limits */
    } else {
        char buf[65536];
        size_t n = slurp("/proc/self/mountinfo", buf, sizeof(buf));
        asb_cgroup_mounts_t m;
        asb_cgroup_mounts_scan(&m, buf, n);
        if (!m.has_v2)
            skip();
        assert_int_equal(asb_cgroup_host_init_v2(&host, m.v2.mount, 0, &err), 0);
    }
    asb_cgroup_limits_t none = {0};
    asb_cgroup_t cg, saved;
    if (asb_cgroup_create(&cg, &host, "v2", &none, &err) != 0)
        fail_msg("create on %s: %s", host.hierarchies[0].mount, err.message);
    saved = cg;
    int fd = asb_cgroup_dirfd_v2(&cg);
    assert_true(fd >= 0);
    pid_t a = clone_into(fd);
    if (a < 0)
        fail_msg("clone3(CLONE_INTO_CGROUP): %s", strerror(errno));
    assert_in_cgroup(a, &cg);
    int go, rep;
    pid_t b = spawn(child_sleep, &go, &rep);
    assert_int_equal(asb_cgroup_attach(&cg, b, &err), 0);
    assert_in_cgroup(b, &cg);
    release(go);
    close(rep);
    asb_cgroup_stats_t st;
    if (asb_cgroup_read_stats(&cg, &st, &err) != 0)
        fail_msg("stats: %s", err.message);
    char kill_file[1024];
    snprintf(kill_file, sizeof(kill_file), "%s/cgroup.kill", cg.dirs[0].path);
    assert_true(exists(kill_file)); /* so the kill below goes through cgroup.kill */
    assert_int_equal(asb_cgroup_kill(&cg, SIGKILL, &err), 0);
    assert_killed(a);
    assert_killed(b);
    assert_int_equal(asb_cgroup_destroy(&cg, &err), 0);
    assert_gone(&saved);

    /* reaping on v2: a dead owner's run with a live process inside */
    memcpy(host.parent, TEST_PARENT, sizeof(TEST_PARENT));
    owner_t o = fake_owner();
    asb_cgroup_t stale;
    assert_int_equal(
        asb_cgroup_create_for_owner(&stale, &host, o.pid, o.start, "v2stale", &none, &err), 0);
    pid_t c = clone_into(asb_cgroup_dirfd_v2(&stale));
    assert_true(c > 0);
    end_owner(&o);
    char *report = NULL;
    if (asb_cgroup_reap_stale(&host, &report, &err) != 0)
        fail_msg("reap: %s", err.message);
    assert_int_equal(reported_count(report, stale.dirs[0].path), 1);
    free(report);
    assert_killed(c);
    assert_false(exists(stale.dirs[0].path));
    assert_int_equal(asb_cgroup_destroy(&stale, &err), 0);
}

/* Every cgroup root this test may have used: the detected hierarchies, and on a hybrid host the
 * controller-less cgroup2 the v2 test runs on. */
static size_t test_roots(const char **roots, asb_cgroup_mounts_t *m)
{
    size_t n = 0;
    for (size_t i = 0; i < g_host.n_hierarchies; i++)
        roots[n++] = g_host.hierarchies[i].mount;
    char buf[65536];
    size_t len = slurp("/proc/self/mountinfo", buf, sizeof(buf));
    asb_cgroup_mounts_scan(m, buf, len);
    if (m->has_v2 && g_host.version != ASB_CGROUP_V2)
        roots[n++] = m->v2.mount;
    return n;
}

/* Last: nothing of this process's runs is left in any hierarchy (ASB_CGROUP_PARENT itself stays;
 * the test's own parent is removed, which only succeeds when it is empty). */
static void test_nothing_left(void **state)
{
    (void)state;
    const char *roots[ASB_CGROUP_MAX_HIERARCHIES + 1];
    asb_cgroup_mounts_t m;
    size_t n = test_roots(roots, &m);
    for (size_t i = 0; i < n; i++) {
        char parent[1024];
        snprintf(parent, sizeof(parent), "%s/%s", roots[i], ASB_CGROUP_PARENT);
        DIR *d = opendir(parent);
        if (d) {
            struct dirent *de;
            while ((de = readdir(d))) {
                pid_t pid;
                uint64_t start, ns;
                if (asb_cgroup_parse_name(de->d_name, &pid, &start, &ns) == 0 && pid == getpid())
                    fail_msg("left behind: %s/%s", parent, de->d_name);
            }
            closedir(d);
        }
        snprintf(parent, sizeof(parent), "%s/%s", roots[i], TEST_PARENT);
        if (rmdir(parent) != 0 && errno != ENOENT)
            fail_msg("%s not empty: %s", parent, strerror(errno));
    }
}

static int setup(void **state)
{
    (void)state;
    /* a child killed early (e.g. by another process's reaper) must fail an assertion, not kill
     * the test with SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    if (geteuid() != 0) {
        fprintf(stderr, "test_cgroup needs root\n");
        return -1;
    }
    asb_error_t err;
    if (asb_cgroup_detect(&g_host, &err) != 0) {
        fprintf(stderr, "detect: %s\n", err.message);
        return -1;
    }
    fprintf(stderr, "cgroup %s, %zu hierarchies, swap %s, swap limit %s\n",
            asb_cgroup_version_name(g_host.version), g_host.n_hierarchies,
            g_host.swap_active ? "active" : "off",
            !g_host.swap_limit_known ? "unknown"
            : g_host.can_limit_swap  ? "available"
                                     : "unavailable");
    for (size_t i = 0; i < g_host.n_hierarchies; i++) {
        char names[64];
        asb_cgroup_controller_names(g_host.hierarchies[i].controllers, names, sizeof(names));
        fprintf(stderr, "  %s: %s\n", g_host.hierarchies[i].mount, names);
    }
    g_reap_host = g_host;
    memcpy(g_reap_host.parent, TEST_PARENT, sizeof(TEST_PARENT));
    return 0;
}

/* After a failure: kill what is left of our children and remove this process's run cgroups (the
 * kernel-side leftovers of a failed test must not outlive it). */
static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < g_n_children; i++) {
        if (kill(g_children[i], SIGKILL) == 0)
            (void)waitpid(g_children[i], NULL, 0);
    }
    asb_error_t err;
    char *report = NULL;
    (void)asb_cgroup_reap_stale(&g_reap_host, &report, &err); /* fake owners of ours are dead */
    free(report);
    /* our own runs (live owner: the reaper rightly leaves them); their processes are dead now */
    const char *roots[ASB_CGROUP_MAX_HIERARCHIES + 1];
    asb_cgroup_mounts_t m;
    size_t n = test_roots(roots, &m);
    for (size_t i = 0; i < 2 * n; i++) {
        const char *root = roots[i / 2];
        char parent[1024], path[2048];
        snprintf(parent, sizeof(parent), "%s/%s", root, i % 2 ? TEST_PARENT : ASB_CGROUP_PARENT);
        DIR *d = opendir(parent);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d))) {
            pid_t pid;
            uint64_t start, ns;
            if (asb_cgroup_parse_name(de->d_name, &pid, &start, &ns) != 0 ||
                (pid != getpid() && i % 2 == 0))
                continue;
            snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
            for (int tries = 0; tries < 200 && rmdir(path) != 0 && errno == EBUSY; tries++) {
                char procs[2100], list[16384];
                snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
                slurp(procs, list, sizeof(list));
                for (char *t = strtok(list, "\n"); t; t = strtok(NULL, "\n"))
                    kill(atoi(t), SIGKILL);
                usleep(10000);
            }
            if (exists(path))
                fprintf(stderr, "teardown: cannot remove %s\n", path);
        }
        closedir(d);
        if (i % 2)
            (void)rmdir(parent);
    }
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_v1),
        cmocka_unit_test(test_create_limits_attach_kill_destroy),
        cmocka_unit_test(test_self_join_v1),
        cmocka_unit_test(test_oom_kill_counted),
        cmocka_unit_test(test_pids_limit_holds_and_destroy_kills_all),
        cmocka_unit_test(test_cpu_quota_throttles),
        cmocka_unit_test(test_failed_create_removes_only_its_own),
        cmocka_unit_test(test_reap_stale),
        cmocka_unit_test(test_concurrent_reapers),
        cmocka_unit_test(test_create_destroy_time),
        cmocka_unit_test(test_v2_path_on_unified),
        cmocka_unit_test(test_nothing_left),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
