/* The library inside a real program: callers that reap children themselves or ignore SIGCHLD
 * (servers, event loops), and programs that leave a writer behind. Found by code review: each
 * made asb_run spin forever. Every case runs in a forked child with an alarm, so a hang fails
 * the test instead of hanging it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agent_sandbox.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reaper(int sig)
{
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

enum { MODE_DEFAULT, MODE_IGNORE, MODE_REAP };

/* In a child: set up the caller's SIGCHLD habit, run one sandbox, exit 0 only if it completed
 * with exit status 7 within the time limit. */
static int run_in_child(int mode, const char *profile, double timeout_s, const char *code,
                        int want_status, int want_exit)
{
    pid_t pid = fork();
    if (pid == 0) {
        alarm((unsigned)timeout_s + 10); /* a hang fails, it does not block the suite */
        if (mode == MODE_IGNORE) {
            signal(SIGCHLD, SIG_IGN);
        } else if (mode == MODE_REAP) {
            struct sigaction sa;
            memset(&sa, 0, sizeof(sa));
            sa.sa_handler = reaper;
            sa.sa_flags = SA_RESTART;
            sigaction(SIGCHLD, &sa, NULL);
        }
        asb_config_t cfg;
        asb_config_init(&cfg);
        cfg.profile = profile;
        cfg.code = code;
        cfg.interpreter = "/usr/bin/python3";
        cfg.limits.timeout_s = timeout_s;
        asb_result_t r;
        asb_error_t e;
        double t0 = now_s();
        int rc = asb_run(&cfg, &r, &e);
        double d = now_s() - t0;
        int ok = (int)r.status == want_status && r.exit_code == want_exit && d < timeout_s + 4 &&
                 (rc == 0) == (want_status != ASB_STATUS_SANDBOX_ERROR);
        if (!ok)
            fprintf(stderr, "  %s mode %d: rc %d status %s exit %d after %.2f s (%s)\n", profile,
                    mode, rc, asb_status_name(r.status), r.exit_code, d, r.error ? r.error : "");
        asb_result_free(&r);
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        fprintf(stderr, "  %s mode %d: killed by signal %d (hung)\n", profile, mode, WTERMSIG(st));
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void test_caller_ignores_or_reaps_sigchld(void **state)
{
    (void)state;
    const char *code = "import os, subprocess\n"
                       "subprocess.run(['/bin/true'])\n" /* the program's own children work */
                       "os._exit(7)\n";
    /* The sandboxes decide from the supervisor's nonce-tagged report even when the caller
     * took the supervisor's wait status. */
    const char *profiles[] = {"hardened", "baseline"};
    for (size_t i = 0; i < 2; i++) {
        assert_true(run_in_child(MODE_IGNORE, profiles[i], 5, code, ASB_STATUS_COMPLETED, 7));
        assert_true(run_in_child(MODE_REAP, profiles[i], 5, code, ASB_STATUS_COMPLETED, 7));
    }
    /* subprocess has only the wait status: when the caller takes it, a clear error at once,
     * never a guess and never a hang. */
    assert_true(run_in_child(MODE_IGNORE, "subprocess", 5, code, ASB_STATUS_SANDBOX_ERROR, -1));
    assert_true(run_in_child(MODE_DEFAULT, "subprocess", 5, code, ASB_STATUS_COMPLETED, 7));
}

/* subprocess: a descendant that left the process group and keeps writing must not keep
 * asb_run from returning (it is the documented weakness of that profile that it survives). */
static void test_subprocess_detached_writer_does_not_hang(void **state)
{
    (void)state;
    const char *code = "import os, time\n"
                       "if os.fork() == 0:\n"
                       "    os.setsid()\n"
                       "    end = time.time() + 6\n"
                       "    while time.time() < end:\n"
                       "        os.write(1, b'x'); time.sleep(0.05)\n"
                       "    os._exit(0)\n"
                       "os._exit(7)\n";
    assert_true(run_in_child(MODE_DEFAULT, "subprocess", 3, code, ASB_STATUS_COMPLETED, 7));
    sleep(7); /* let the detached writer finish before the next test */
}

/* A caller whose other thread forks (a pre-fork server, multiprocessing's fork start method):
 * each fork copies whatever pipes a run has open at that moment, and the copies never close
 * (O_CLOEXEC applies only at an exec). A subprocess run waited in a blocking read for the end
 * of its exec-error pipe, so until that unrelated child exited (for ever here), and a native run
 * waited 2 s for the end of its output pipes (QA finding, session 17). Judged from the runs'
 * own wall time in a child with an alarm: a hang kills it. */
#define FORKER_MAX 300
typedef struct forker {
    atomic_bool stop;
    pid_t pids[FORKER_MAX];
    int n;
} forker_t;

static void *forker_main(void *arg)
{
    forker_t *f = arg;
    while (!atomic_load(&f->stop) && f->n < FORKER_MAX) {
        pid_t p = fork();
        if (p == 0) {
            for (;;)
                pause();
        }
        if (p > 0)
            f->pids[f->n++] = p;
        usleep(2000);
    }
    return NULL;
}

static void test_caller_forks_during_runs(void **state)
{
    (void)state;
    pid_t pid = fork();
    if (pid == 0) {
        alarm(90);
        static forker_t f;
        pthread_t t;
        if (pthread_create(&t, NULL, forker_main, &f) != 0)
            _exit(2);
        const char *argv[] = {"/bin/true", NULL};
        const char *profiles[] = {"subprocess", "hardened"};
        int bad = 0;
        for (int round = 0; round < 8; round++) {
            for (size_t i = 0; i < 2; i++) {
                asb_config_t cfg;
                asb_config_init(&cfg);
                cfg.profile = profiles[i];
                cfg.argv = argv;
                cfg.limits.timeout_s = 2;
                asb_result_t r;
                asb_error_t e;
                double t0 = now_s();
                int rc = asb_run(&cfg, &r, &e);
                double d = now_s() - t0;
                /* Before the fix: for ever (subprocess), 2 s more (native). */
                if (rc != 0 || r.status != ASB_STATUS_COMPLETED || d >= 1.9) {
                    fprintf(stderr, "  %s: rc %d status %s after %.2f s\n", profiles[i], rc,
                            asb_status_name(r.status), d);
                    bad++;
                }
                asb_result_free(&r);
            }
        }
        atomic_store(&f.stop, true);
        pthread_join(t, NULL);
        for (int i = 0; i < f.n; i++)
            kill(f.pids[i], SIGKILL);
        for (int i = 0; i < f.n; i++)
            waitpid(f.pids[i], NULL, 0);
        fprintf(stderr, "  %d forks of the caller during 16 runs\n", f.n);
        _exit(bad == 0 && f.n > 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        fprintf(stderr, "  killed by signal %d (hung)\n", WTERMSIG(st));
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A hardened /bin/true: 0 when it completed, else asb_run's error (err says why) or -1. */
static int run_true(asb_error_t *err)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    const char *argv[] = {"/bin/true", NULL};
    cfg.argv = argv;
    asb_result_t r;
    int rc = asb_run(&cfg, &r, err);
    if (rc == 0 && r.status != ASB_STATUS_COMPLETED)
        rc = -1;
    asb_result_free(&r);
    return rc;
}

/* The run's first process shares the caller's memory until it execs: nothing it does to that
 * memory's state may stay with the caller (changing ids resets the dumpable flag, which would cost
 * the caller its core dumps and give its /proc files to root). */
static void test_caller_stays_dumpable(void **state)
{
    (void)state;
    for (int want = 1; want >= 0; want--) {
        assert_int_equal(prctl(PR_SET_DUMPABLE, want, 0, 0, 0), 0);
        asb_error_t err;
        assert_int_equal(run_true(&err), 0);
        assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), want);
    }
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

typedef struct dumpable_watch {
    atomic_bool stop;
    atomic_int seen_other; /* readings of anything but 1 while sandboxes started */
} dumpable_watch_t;

static void *watch_dumpable(void *arg)
{
    dumpable_watch_t *w = arg;
    while (!atomic_load(&w->stop))
        if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1)
            atomic_fetch_add(&w->seen_other, 1);
    return NULL;
}

static void *run_some(void *arg)
{
    int *failed = arg;
    asb_error_t err;
    for (int i = 0; i < 12; i++)
        if (run_true(&err) < 0)
            (*failed)++;
    return NULL;
}

/* Sandboxes started from several threads at once: the flag must never change, not even for a
 * moment. The child used to change its ids and then put the flag back; a thread starting
 * another sandbox in between read the changed value, and its child put that back for good
 * (review finding: 8 threads left the caller non-dumpable in 2 of 6 tries; a watcher saw the
 * flag at 0 hundreds of times). */
static void test_caller_stays_dumpable_across_threads(void **state)
{
    (void)state;
    assert_int_equal(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), 0);
    dumpable_watch_t w = {.stop = false, .seen_other = 0};
    pthread_t watcher, runners[3];
    int failed[3] = {0, 0, 0};
    assert_int_equal(pthread_create(&watcher, NULL, watch_dumpable, &w), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&runners[i], NULL, run_some, &failed[i]), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(runners[i], NULL);
    atomic_store(&w.stop, true);
    pthread_join(watcher, NULL);
    assert_int_equal(failed[0] + failed[1] + failed[2], 0);
    assert_int_equal(atomic_load(&w.seen_other), 0);
    assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
}

/* A thread whose fs ids differ from its effective ones (a file server acting for a user) runs
 * sandboxes like any other: no id of the caller's thread changes on the way to the supervisor's
 * exec (child.c), so neither its fs ids nor its dumpable flag move. Until session 10 the child
 * changed its real ids, which also moves the fs ids, and such a caller had to be refused
 * (review finding). In a forked child: setfsgid is per thread and this one is the test's main
 * thread. */
static void test_caller_with_other_fs_ids_runs_unchanged(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        setfsgid(12345);
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* setfsgid itself reset it */
        asb_error_t err;
        int rc = run_true(&err);
        int fsgid = setfsgid((gid_t)-1);
        int ok = rc == 0 && fsgid == 12345 && prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
        if (!ok)
            fprintf(stderr, "  rc %d (%s), fsgid %d, dumpable %d\n", rc, rc < 0 ? err.message : "",
                    fsgid, prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A caller with fds 0, 1 and 2 closed: the library's own fds land there. A subprocess run put
 * its temp dir's fd at 2, its dup2 of stderr closed it, fchdir failed, and the child's exit 125
 * was reported as the program's own, "completed" (QA finding, session 19). Each profile runs
 * its program, and says what it printed. */
static void test_caller_with_stdio_closed(void **state)
{
    (void)state;
    static const char *const profiles[] = {"subprocess", "hardened"};
    for (size_t i = 0; i < 2; i++) {
        int pipefd[2];
        assert_int_equal(pipe(pipefd), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(20);
            int report = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 20);
            close(pipefd[0]), close(pipefd[1]);
            close(0), close(1), close(2);
            asb_config_t cfg;
            asb_config_init(&cfg);
            cfg.profile = profiles[i];
            static const char *const argv[] = {"/bin/echo", "ran", NULL};
            cfg.argv = argv;
            asb_result_t r;
            asb_error_t err;
            int rc = asb_run(&cfg, &r, &err);
            char line[512];
            int n = snprintf(line, sizeof(line), "rc %d status %s exit %d out %.*s| %s\n", rc,
                             asb_status_name(r.status), r.exit_code, (int)r.out.len,
                             r.out.data ? (const char *)r.out.data : "", r.error ? r.error : "");
            ssize_t w = write(report, line, (size_t)n);
            (void)w;
            _exit(rc == 0 && r.status == ASB_STATUS_COMPLETED && r.exit_code == 0 &&
                          r.out.len == 4 && memcmp(r.out.data, "ran\n", 4) == 0
                      ? 0
                      : 1);
        }
        close(pipefd[1]);
        char buf[600] = "";
        ssize_t n = read(pipefd[0], buf, sizeof(buf) - 1);
        buf[n > 0 ? n : 0] = '\0';
        close(pipefd[0]);
        int st = 0;
        waitpid(pid, &st, 0);
        fprintf(stderr, "  %s: %s", profiles[i], buf);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: needs root (real sandboxes)\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caller_ignores_or_reaps_sigchld),
        cmocka_unit_test(test_subprocess_detached_writer_does_not_hang),
        cmocka_unit_test(test_caller_forks_during_runs),
        cmocka_unit_test(test_caller_stays_dumpable),
        cmocka_unit_test(test_caller_stays_dumpable_across_threads),
        cmocka_unit_test(test_caller_with_other_fs_ids_runs_unchanged),
        cmocka_unit_test(test_caller_with_stdio_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
