/* test_cold_go.c - a cold run's workload between its attestation and the host's "go".
 *
 * A cold run (asb_run) makes its workload with vfork semantics (supervisor/main.c, start_cold):
 * until its exec it shares the supervisor's memory, sends its attestation to the host itself and
 * waits for the host's "go" (workload.c, cold_go). These tests stop the host right before it
 * sends that go (this executable's own sendmsg, which the static library's calls resolve to) and
 * look at the sandbox in that state:
 *  - the supervisor's memory must not be dumpable while the workload waits, whatever
 *    fs.suid_dumpable says (set to 1 for the check and restored at once);
 *  - a workload that dies while it waits (an OOM kill, a fault in its setup) never ran anything
 *    of the job: the run is a sandbox_error, not the program's own death.
 * Needs root. */
#include "rt_common.h"

#include <sys/syscall.h>

#define MARK "COLD-GO-TEST-PROGRAM-RAN"

enum { HOOK_NONE, HOOK_DUMPABLE, HOOK_KILL_WORKLOAD };
static int hook_mode = HOOK_NONE;
static bool hook_fired;
static pid_t hook_sup = -1, hook_wl = -1;
static uid_t sup_owner = (uid_t)-1, wl_owner = (uid_t)-1;
static char old_dumpable[16] = "";
static bool wl_dead;

static bool is_go(const struct msghdr *m)
{
    if (m->msg_iovlen != 1 || m->msg_controllen != 0 || m->msg_iov[0].iov_len < 2 ||
        m->msg_iov[0].iov_len > 24)
        return false;
    const char *b = m->msg_iov[0].iov_base;
    return memcmp(b + m->msg_iov[0].iov_len - 2, "go", 2) == 0;
}

/* The first child of pid (any of its threads), or -1. */
static pid_t first_child(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    pid_t found = -1;
    struct dirent *e;
    while (found < 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char cpath[128];
        snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, e->d_name);
        FILE *f = fopen(cpath, "re");
        if (!f)
            continue;
        int c;
        if (fscanf(f, "%d", &c) == 1)
            found = c;
        fclose(f);
    }
    closedir(d);
    return found;
}

static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return '?';
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

static uid_t proc_owner(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    struct stat st;
    return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

static void write_dumpable(const char *v)
{
    int fd = open("/proc/sys/fs/suid_dumpable", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, v, strlen(v));
        (void)w;
        close(fd);
    }
}

/* Right before the host's go: the workload has attested and waits for it. */
static void before_go(void)
{
    hook_fired = true;
    hook_sup = first_child(getpid());
    hook_wl = hook_sup > 0 ? first_child(hook_sup) : -1;
    if (hook_mode == HOOK_DUMPABLE) {
        if (hook_sup > 0)
            sup_owner = proc_owner(hook_sup);
        if (hook_wl > 0)
            wl_owner = proc_owner(hook_wl);
        write_dumpable(old_dumpable); /* restored at once */
    } else if (hook_mode == HOOK_KILL_WORKLOAD && hook_wl > 0) {
        /* The supervisor stops as soon as its vfork wait ends, so that the go still reaches an
         * open socket: the order of an OOM kill just before the host's go. */
        kill(hook_sup, SIGSTOP);
        kill(hook_wl, SIGKILL);
        double end = rt_now() + 5;
        while (proc_state(hook_wl) != 'Z' && rt_now() < end)
            usleep(1000);
        wl_dead = proc_state(hook_wl) == 'Z';
    }
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    bool go = hook_mode != HOOK_NONE && !hook_fired && is_go(m);
    if (go)
        before_go();
    ssize_t r = syscall(SYS_sendmsg, fd, m, flags);
    if (go && hook_mode == HOOK_KILL_WORKLOAD && hook_sup > 0)
        kill(hook_sup, SIGCONT);
    return r;
}

static int run_cold(const char *profile, asb_result_t *res)
{
    const char *argv[] = {"/bin/sh", "-c", "echo " MARK, NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.argv = argv;
    cfg.limits.timeout_s = 20;
    asb_error_t err;
    memset(&err, 0, sizeof(err));
    unsetenv("ASB_SUPERVISOR");
    return asb_run(&cfg, res, &err);
}

/* fs.suid_dumpable 1: the workload's change of ids sets the shared memory's dumpable flag, and
 * while it waits for its go the supervisor's memory is readable (/proc/PID/mem of the workload)
 * by any process of the workload's host uid. Not dumpable: /proc files owned by uid 0 (root of
 * the namespace the supervisor exec'd in). */
static void test_supervisor_not_dumpable_while_waiting_for_go(void **state)
{
    (void)state;
    int fd = open("/proc/sys/fs/suid_dumpable", O_RDWR | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, old_dumpable, sizeof(old_dumpable) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0) {
        printf("SKIP: fs.suid_dumpable cannot be read here\n");
        return;
    }
    old_dumpable[n] = '\0';
    write_dumpable("1");
    hook_mode = HOOK_DUMPABLE, hook_fired = false, sup_owner = wl_owner = (uid_t)-1;
    asb_result_t r;
    int rc = run_cold("hardened", &r);
    hook_mode = HOOK_NONE;
    write_dumpable(old_dumpable); /* also when the hook never ran */
    rt_dump("hardened", &r);
    assert_int_equal(rc, 0);
    assert_int_equal(r.status, ASB_STATUS_COMPLETED);
    assert_true(hook_fired);
    printf("waiting for its go: supervisor %d /proc owner %u, workload %d /proc owner %u\n",
           (int)hook_sup, (unsigned)sup_owner, (int)hook_wl, (unsigned)wl_owner);
    assert_int_equal(sup_owner, 0);
    assert_int_equal(wl_owner, 0);
    asb_result_free(&r);
}

/* The workload dies after its attestation, before the go: nothing of the job ran. */
static void test_workload_dead_before_go_is_sandbox_error(void **state)
{
    (void)state;
    hook_mode = HOOK_KILL_WORKLOAD, hook_fired = false, wl_dead = false;
    asb_result_t r;
    int rc = run_cold("hardened", &r);
    hook_mode = HOOK_NONE;
    rt_dump("hardened", &r);
    assert_true(hook_fired);
    assert_true(wl_dead);
    assert_false(rt_bytes_has(&r.out, MARK)); /* it never ran */
    /* Reported as the program's own end (status killed, signal 9) before the fix. */
    assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
    assert_true(rc < 0);
    asb_result_free(&r);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: these tests run real sandboxes and need root\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        RT_TEST(test_supervisor_not_dumpable_while_waiting_for_go),
        RT_TEST(test_workload_dead_before_go_is_sandbox_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
