/* test_runtime_cancel.c - a caller's cancellation (asb_config_t.cancellable, cancel_fd): the run
 * ends soon after the fd becomes readable, everything it started is gone when asb_run returns
 * (processes, cgroup, mounts, temp dirs, id slot: the leak checks of rt_common.h), a run
 * cancelled before it began runs nothing, a cancelled job in a pool leaves the pool working,
 * and where cancellation is not supported it is refused, never ignored. Runs as root. */
#include "rt_common.h"

#include <poll.h>
#include <sys/eventfd.h>

/* A program that holds on: three children that ignore TERM (the run must kill, not ask), then
 * "started" on stdout, then a long sleep. */
static const char *const HOLD = "import os, signal, sys, time\n"
                                "open('out.txt', 'w').write('partial')\n"
                                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                "for i in range(3):\n"
                                "    if os.fork() == 0:\n"
                                "        time.sleep(60)\n"
                                "        os._exit(0)\n"
                                "print('started', flush=True)\n"
                                "time.sleep(60)\n";

typedef struct cancel_later {
    int fd;
    unsigned delay_us;
    pthread_t thread;
} cancel_later_t;

static void *cancel_main(void *arg)
{
    cancel_later_t *c = arg;
    usleep(c->delay_us);
    uint64_t one = 1;
    assert_int_equal(write(c->fd, &one, sizeof(one)), (ssize_t)sizeof(one));
    return NULL;
}

static void cancel_after(cancel_later_t *c, int fd, unsigned delay_us)
{
    c->fd = fd;
    c->delay_us = delay_us;
    assert_int_equal(pthread_create(&c->thread, NULL, cancel_main, c), 0);
}

static int run_cancellable(const char *profile, const char *code, int fd, asb_result_t *r,
                           asb_error_t *err)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.code = code;
    cfg.limits.timeout_s = 30;
    cfg.cancellable = true;
    cfg.cancel_fd = fd;
    static const char *const out[] = {"out.txt"};
    cfg.files_out = out; /* never returned from a cancelled run */
    cfg.n_files_out = 1;
    memset(err, 0, sizeof(*err));
    return asb_run(&cfg, r, err);
}

static void test_cancel_ends_and_removes_the_run(void **state)
{
    (void)state;
    const char *profiles[] = {"hardened", "baseline", "subprocess"};
    for (size_t i = 0; i < 3; i++) {
        int efd = eventfd(0, EFD_CLOEXEC);
        assert_true(efd >= 0);
        cancel_later_t c;
        cancel_after(&c, efd, 1500 * 1000);
        asb_result_t r;
        asb_error_t err;
        double t0 = rt_now();
        int rc = run_cancellable(profiles[i], HOLD, efd, &r, &err);
        double took = rt_now() - t0;
        pthread_join(c.thread, NULL);
        fprintf(stderr, "  %s: rc %d after %.2f s: %s\n", profiles[i], rc, took, err.message);
        assert_int_equal(rc, -ECANCELED);
        assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
        assert_non_null(r.error);
        assert_non_null(strstr(r.error, "cancelled by the caller"));
        /* It ran (its output up to the cancel is kept) and it did not wait for its clock. */
        assert_true(rt_bytes_has(&r.out, "started"));
        assert_true(took >= 1.4 && took < 10.0);
        assert_int_equal(r.n_files_out, 0);
        asb_result_free(&r);
        /* The fd is the caller's: still open, still readable, never read. */
        struct pollfd p = {.fd = efd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 0), 1);
        assert_int_equal(p.revents, POLLIN);
        close(efd);
        /* Checked here for each profile, not only by the teardown. */
        assert_int_equal(rt_count_our_processes(true), 0);
        assert_int_equal(rt_count_our_cgroups(true), 0);
        assert_int_equal(rt_count_our_tmpdirs(true), 0);
        assert_int_equal(rt_count_idslots(), 0);
    }
}

/* A cancel that lands anywhere in a run's life (its setup, the hand-over, the program, the
 * teardown): the run either completed first or was cancelled, and nothing of it is left either
 * way (each window has its own path in the library). */
static void test_cancel_at_any_moment(void **state)
{
    (void)state;
    static const unsigned delays_us[] = {0,     500,   1000,  2000,  3000,  4000,  6000,  8000,
                                         12000, 16000, 20000, 25000, 30000, 40000, 60000, 100000};
    const char *profiles[] = {"hardened", "subprocess"};
    const char *argv[] = {"/bin/sh", "-c", "sleep 0.02", NULL};
    unsigned cancelled = 0, completed = 0;
    for (size_t p = 0; p < 2; p++) {
        for (size_t i = 0; i < sizeof(delays_us) / sizeof(delays_us[0]); i++) {
            int efd = eventfd(0, EFD_CLOEXEC);
            asb_config_t cfg;
            asb_config_init(&cfg);
            cfg.profile = profiles[p];
            cfg.argv = argv;
            cfg.cancellable = true;
            cfg.cancel_fd = efd;
            unsigned us = delays_us[i];
            cancel_later_t c;
            cancel_after(&c, efd, us);
            asb_result_t r;
            asb_error_t err;
            memset(&err, 0, sizeof(err));
            int rc = asb_run(&cfg, &r, &err);
            pthread_join(c.thread, NULL);
            if (rc != 0 && rc != -ECANCELED)
                fprintf(stderr, "  %s, cancel at %u us: rc %d: %s\n", profiles[p], us, rc,
                        err.message);
            assert_true(rc == 0 || rc == -ECANCELED);
            if (rc == 0)
                assert_int_equal(r.status, ASB_STATUS_COMPLETED);
            cancelled += rc != 0;
            completed += rc == 0;
            asb_result_free(&r);
            close(efd);
            assert_int_equal(rt_count_our_processes(true), 0);
            assert_int_equal(rt_count_our_cgroups(true), 0);
            assert_int_equal(rt_count_our_tmpdirs(true), 0);
            assert_int_equal(rt_count_idslots(), 0);
        }
    }
    fprintf(stderr, "  %u cancelled, %u completed first\n", cancelled, completed);
    assert_true(cancelled > 0);
}

/* Cancelled before it began: nothing runs. The subprocess profile can show it from the host (its
 * program would create a file in the host's /tmp); the sandboxes return at once. */
static void test_cancel_before_start_runs_nothing(void **state)
{
    (void)state;
    char hex[17], canary[64];
    rt_random_hex(hex, 8);
    snprintf(canary, sizeof(canary), "/tmp/asb-cancel-canary-%s", hex);
    char *code = rt_fmt("open('%s', 'w').write('ran')\n", canary);
    const char *profiles[] = {"subprocess", "hardened", "baseline"};
    for (size_t i = 0; i < 3; i++) {
        int efd = eventfd(1, EFD_CLOEXEC); /* readable from the start */
        assert_true(efd >= 0);
        asb_result_t r;
        asb_error_t err;
        double t0 = rt_now();
        int rc = run_cancellable(profiles[i], code, efd, &r, &err);
        double took = rt_now() - t0;
        fprintf(stderr, "  %s: rc %d after %.3f s: %s\n", profiles[i], rc, took, err.message);
        assert_int_equal(rc, -ECANCELED);
        assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
        assert_non_null(strstr(r.error, "before it began"));
        assert_int_equal(r.out.len, 0);
        assert_true(took < 2.0);
        assert_int_equal(access(canary, F_OK), -1);
        asb_result_free(&r);
        close(efd);
    }
    /* The control: not cancelled, the same subprocess run makes the file. */
    int efd = eventfd(0, EFD_CLOEXEC);
    asb_result_t r;
    asb_error_t err;
    assert_int_equal(run_cancellable("subprocess", code, efd, &r, &err), 0);
    assert_int_equal(r.status, ASB_STATUS_COMPLETED);
    asb_result_free(&r);
    close(efd);
    assert_int_equal(access(canary, F_OK), 0);
    unlink(canary);
    free(code);
}

/* A pooled job cancelled mid-run ends like a cold one, and the pool goes on working. */
static void test_cancel_in_a_pool(void **state)
{
    (void)state;
    asb_config_t t;
    asb_config_init(&t);
    t.profile = "hardened";
    t.cancellable = true; /* a template's is not used: not an error either */
    t.cancel_fd = -1;
    asb_pool_t *pool = NULL;
    asb_error_t err;
    memset(&err, 0, sizeof(err));
    assert_int_equal(asb_pool_new(&t, 1, &pool, &err), 0);
    double end = rt_now() + 20.0;
    while (asb_pool_ready(pool) < 1 && rt_now() < end)
        usleep(5000);
    assert_true(asb_pool_ready(pool) >= 1);

    /* Cancelled before it began: no prepared sandbox is used up for it. */
    int efd = eventfd(1, EFD_CLOEXEC);
    asb_config_t c;
    asb_config_init(&c);
    c.profile = "hardened";
    c.code = HOLD;
    c.cancellable = true;
    c.cancel_fd = efd;
    asb_result_t r;
    assert_int_equal(asb_pool_run(pool, &c, &r, &err), -ECANCELED);
    asb_result_free(&r);
    assert_int_equal(asb_pool_ready(pool), 1);
    close(efd);

    efd = eventfd(0, EFD_CLOEXEC);
    asb_config_init(&c);
    c.profile = "hardened";
    c.code = HOLD;
    c.limits.timeout_s = 30;
    c.cancellable = true;
    c.cancel_fd = efd;
    cancel_later_t k;
    cancel_after(&k, efd, 1500 * 1000);
    double t0 = rt_now();
    int rc = asb_pool_run(pool, &c, &r, &err);
    double took = rt_now() - t0;
    pthread_join(k.thread, NULL);
    fprintf(stderr, "  pool: rc %d after %.2f s (prepared: %d): %s\n", rc, took, r.prepared,
            err.message);
    assert_int_equal(rc, -ECANCELED);
    assert_true(rt_bytes_has(&r.out, "started"));
    assert_true(took < 10.0);
    asb_result_free(&r);
    close(efd);

    asb_config_init(&c);
    c.profile = "hardened";
    c.code = "print(6 * 7)";
    assert_int_equal(asb_pool_run(pool, &c, &r, &err), 0);
    assert_int_equal(r.status, ASB_STATUS_COMPLETED);
    assert_true(rt_bytes_eq(&r.out, "42\n"));
    asb_result_free(&r);
    asb_pool_free(pool);
}

/* Where it cannot be honoured it is refused with a reason, before anything starts: the docker
 * backend (its container is the engine's), and a descriptor that is not open (poll would only
 * ever say POLLNVAL: a run that could never be cancelled). Needs no engine. */
static void test_cancel_refused_where_it_cannot_hold(void **state)
{
    (void)state;
    int efd = eventfd(0, EFD_CLOEXEC);
    asb_result_t r;
    asb_error_t err;
    assert_int_equal(run_cancellable("docker-hardened", "pass", efd, &r, &err), -ENOTSUP);
    assert_non_null(strstr(err.message, "docker"));
    asb_result_free(&r);
    close(efd);
    assert_int_equal(run_cancellable("hardened", "pass", efd, &r, &err), -EBADF);
    assert_non_null(strstr(err.message, "cancel_fd"));
    asb_result_free(&r);
    assert_int_equal(run_cancellable("subprocess", "pass", -1, &r, &err), -EBADF);
    asb_result_free(&r);
    /* Open but not pollable (O_PATH): it would say POLLNVAL, a cancel at once, every time. */
    int opath = open("/", O_PATH | O_CLOEXEC);
    assert_true(opath >= 0);
    assert_int_equal(run_cancellable("hardened", "pass", opath, &r, &err), -EBADF);
    assert_non_null(strstr(err.message, "cannot be polled"));
    asb_result_free(&r);
    close(opath);
}

typedef struct caller {
    asb_pool_t *pool; /* NULL: asb_run */
    const char *profile;
    asb_result_t res;
    asb_config_t cfg; /* here, not on the thread's stack: see caller_main */
    asb_error_t err;
} caller_t;

/* No locals of its own: the cancel unwinds this frame, and ASan's thread teardown trips over
 * the redzones of locals an unwinder leaves poisoned (a false report under make test-asan). */
static void *caller_main(void *arg)
{
    caller_t *c = arg;
    asb_config_init(&c->cfg);
    c->cfg.profile = c->profile;
    c->cfg.code = "import time\nprint('started', flush=True)\ntime.sleep(1.5)\n";
    if (c->pool)
        asb_pool_run(c->pool, &c->cfg, &c->res, &c->err);
    else
        asb_run(&c->cfg, &c->res, &c->err);
    /* The cancel is acted on at the first cancellation point after the run returned: here. */
    pthread_testcancel();
    return NULL;
}

/* pthread_cancel of a thread inside asb_run or asb_pool_run: before, the thread died in a
 * blocking call and the run's fds, id slot and cgroups stayed for the life of the process
 * (review finding). Now the cancel takes effect once the run has returned and removed it all. */
static void test_pthread_cancel_of_the_caller(void **state)
{
    (void)state;
    asb_pool_t *pool = NULL;
    asb_config_t tmpl;
    asb_config_init(&tmpl);
    tmpl.profile = "hardened";
    asb_error_t err;
    assert_int_equal(asb_pool_new(&tmpl, 1, &pool, &err), 0);
    static const char *const profiles[] = {"hardened", "subprocess", "hardened"};
    for (size_t i = 0; i < 3; i++) {
        bool pooled = i == 2;
        /* The pool's prepared sandbox holds fds of its own: count with it in place. */
        while (asb_pool_ready(pool) < 1)
            usleep(10000);
        int fds_before = rt_count_open_fds();
        /* Not COMPLETED (0) until a run says so (review finding: a zeroed result passed). */
        caller_t c = {.pool = pooled ? pool : NULL,
                      .profile = profiles[i],
                      .res = {.status = ASB_STATUS_SANDBOX_ERROR, .exit_code = -1}};
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, caller_main, &c), 0);
        usleep(300 * 1000);
        assert_int_equal(pthread_cancel(t), 0);
        void *ret = NULL;
        assert_int_equal(pthread_join(t, &ret), 0);
        fprintf(stderr, "  %s%s: %s, status %s\n", profiles[i], pooled ? " (pool)" : "",
                ret == PTHREAD_CANCELED ? "cancelled after the run" : "not cancelled",
                asb_status_name(c.res.status));
        assert_true(ret == PTHREAD_CANCELED);
        assert_int_equal(c.res.status, ASB_STATUS_COMPLETED);
        assert_int_equal(c.res.exit_code, 0);
        assert_true(rt_bytes_has(&c.res.out, "started"));
        asb_result_free(&c.res);
        if (pooled) /* the pool's thread removes a finished run's sandbox: let it */
            while (asb_pool_ready(pool) < 1)
                usleep(10000);
        assert_int_equal(rt_count_open_fds(), fds_before);
    }
    asb_pool_free(pool);
    assert_int_equal(rt_count_our_processes(true), 0);
    assert_int_equal(rt_count_our_cgroups(true), 0);
    assert_int_equal(rt_count_idslots(), 0);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: needs root (real sandboxes)\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        RT_TEST(test_cancel_ends_and_removes_the_run),
        RT_TEST(test_cancel_at_any_moment),
        RT_TEST(test_cancel_before_start_runs_nothing),
        RT_TEST(test_cancel_in_a_pool),
        RT_TEST(test_cancel_refused_where_it_cannot_hold),
        RT_TEST(test_pthread_cancel_of_the_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
