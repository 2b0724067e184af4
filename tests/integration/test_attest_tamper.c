/* test_attest_tamper.c - the host refuses a sandbox whose supervisor breaks a promise, end to end.
 *
 * Each case runs a real sandbox whose PID 1 is the supervisor built with one promise broken
 * (asb-supervisor-tamper-<what>, src/native/supervisor/sup.h): the workload skips its seccomp
 * filter, keeps its capability bounding set or skips Landlock, the attestation is tagged with
 * another run's nonce, the exit report names another exit code than the supervisor's own
 * exit status, or output the supervisor counted never reaches the host. What the kernel then
 * reports from inside is the truth, so the attestation says so, and the host must refuse: status
 * sandbox_error, and for every broken control the program never runs (it would print a marker the
 * host captures itself). A control case with the real supervisor shows the same program does print
 * it. A supervisor that never kills at its deadline shows the host's backstop ending the run.
 * Needs root. */
#include "rt_common.h"

#include "core/limits.h"

#include <poll.h>
#include <sys/eventfd.h>

#define MARK "TAMPER-TEST-PROGRAM-RAN"

static const char *build_dir(void)
{
    const char *b = getenv("ASB_BUILD_DIR");
    return b && *b ? b : "build";
}

/* Run `sh -c script` under profile with the supervisor `variant` ("" = the real one), with a
 * timeout of timeout_s, cancellable through cancel_fd unless it is -1. */
static int run_with_limits(const char *variant, const char *profile, const char *script,
                           double timeout_s, int cancel_fd, asb_result_t *res)
{
    char *sup = *variant ? rt_fmt("%s/asb-supervisor-tamper-%s", build_dir(), variant) : NULL;
    if (sup) {
        struct stat st;
        if (stat(sup, &st) != 0)
            fail_msg("%s is missing: the build makes it with this test", sup);
        assert_int_equal(setenv("ASB_SUPERVISOR", sup, 1), 0);
    } else {
        assert_int_equal(unsetenv("ASB_SUPERVISOR"), 0);
    }
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.argv = argv;
    cfg.limits.timeout_s = timeout_s;
    cfg.cancellable = cancel_fd >= 0;
    cfg.cancel_fd = cancel_fd;
    asb_error_t err;
    memset(&err, 0, sizeof(err));
    int rc = asb_run(&cfg, res, &err);
    unsetenv("ASB_SUPERVISOR");
    free(sup);
    rt_dump(*variant ? variant : "real supervisor", res);
    return rc;
}

static int run_with(const char *variant, const char *profile, const char *script, asb_result_t *res)
{
    return run_with_limits(variant, profile, script, 20, -1, res);
}

static void test_real_supervisor_runs_the_program(void **state)
{
    (void)state;
    asb_result_t r;
    assert_int_equal(run_with("", "hardened", "echo " MARK, &r), 0);
    assert_int_equal(r.status, ASB_STATUS_COMPLETED);
    assert_true(r.attestation.present && r.attestation.valid);
    assert_true(rt_bytes_has(&r.out, MARK));
    asb_result_free(&r);
}

/* A run refused for its attestation, which names `field`: the program never ran. Frees r. */
static void check_refused(int rc, asb_result_t *r, const char *field)
{
    assert_true(rc < 0);
    assert_int_equal(r->status, ASB_STATUS_SANDBOX_ERROR);
    assert_true(r->attestation.present);
    assert_false(r->attestation.valid);
    assert_non_null(r->attestation.mismatch);
    if (!strstr(r->attestation.mismatch, field))
        fail_msg("mismatch \"%s\" does not name %s", r->attestation.mismatch, field);
    assert_non_null(r->error);
    assert_non_null(strstr(r->error, "attestation refused"));
    assert_false(rt_bytes_has(&r->out, MARK)); /* the program never ran */
    asb_result_free(r);
}

/* A control the workload skipped: the attestation arrives, says so, and the run is refused
 * before the program starts. */
static void expect_refused(const char *variant, const char *profile, const char *field)
{
    asb_result_t r;
    int rc = run_with(variant, profile, "echo " MARK, &r);
    check_refused(rc, &r, field);
}

/* A prepared sandbox (asb_pool_*) starts its workload another way than a cold run does
 * (supervisor/main.c: forked, its attestation relayed by the supervisor, released by the job,
 * where a cold run's workload attests to the host itself and waits for its go): the same
 * refusals must hold there. */
static void expect_refused_pooled(const char *variant, const char *profile, const char *field)
{
    char *sup = rt_fmt("%s/asb-supervisor-tamper-%s", build_dir(), variant);
    struct stat st;
    if (stat(sup, &st) != 0)
        fail_msg("%s is missing: the build makes it with this test", sup);
    assert_int_equal(setenv("ASB_SUPERVISOR", sup, 1), 0);
    const char *argv[] = {"/bin/sh", "-c", "echo " MARK, NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.argv = argv;
    asb_error_t err;
    memset(&err, 0, sizeof(err));
    asb_pool_t *pool = NULL;
    if (asb_pool_new(&cfg, 1, &pool, &err) < 0)
        fail_msg("asb_pool_new: %s", err.message);
    double end = rt_now() + 20;
    while (asb_pool_ready(pool) < 1 && rt_now() < end)
        usleep(10000);
    assert_true(asb_pool_ready(pool) >= 1);
    asb_result_t r;
    int rc = asb_pool_run(pool, &cfg, &r, &err);
    asb_pool_free(pool); /* before the variable goes: its thread prepares with it */
    unsetenv("ASB_SUPERVISOR");
    free(sup);
    rt_dump(variant, &r);
    assert_true(r.prepared); /* the prepared sandbox's own workload, not a cold one */
    check_refused(rc, &r, field);
}

static void test_pooled_no_seccomp_is_refused(void **state)
{
    (void)state;
    expect_refused_pooled("seccomp", "hardened", "Seccomp");
}

static void test_pooled_bounding_set_kept_is_refused(void **state)
{
    (void)state;
    expect_refused_pooled("caps", "hardened", "CapBnd");
}

static void test_no_seccomp_is_refused(void **state)
{
    (void)state;
    expect_refused("seccomp", "hardened", "Seccomp");
}

static void test_no_seccomp_is_refused_in_baseline(void **state)
{
    (void)state;
    expect_refused("seccomp", "baseline", "Seccomp");
}

static void test_bounding_set_kept_is_refused(void **state)
{
    (void)state;
    expect_refused("caps", "hardened", "CapBnd");
}

static void test_no_landlock_is_refused(void **state)
{
    (void)state;
    expect_refused("landlock", "hardened", "Landlock enforced");
}

/* The workload's own limits and mounts, applied but not attested until session 19 (review
 * finding): a supervisor that skips one is now refused too. */
static void test_limit_skipped_is_refused(void **state)
{
    (void)state;
    expect_refused("limits", "hardened", "RLIMIT_FSIZE");
}

static void test_exec_workspace_is_refused(void **state)
{
    (void)state;
    expect_refused("mounts", "hardened", "workspace mount");
}

/* Tagged with another run's nonce, the attestation is not this run's: no job is sent (the
 * tampered supervisor waits 2 s for one, runs it if it comes, and otherwise gives up). */
static void test_attestation_of_another_run_is_ignored(void **state)
{
    (void)state;
    asb_result_t r;
    int rc = run_with("nonce", "hardened", "echo " MARK, &r);
    assert_true(rc < 0);
    assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
    assert_false(r.attestation.present);
    assert_false(rt_bytes_has(&r.out, MARK));
    asb_result_free(&r);
}

/* The program ran and exited 3; the report says 4 while the supervisor's exit status (which
 * mirrors the program's) says 3: neither is believed. */
static void test_exit_report_that_disagrees_is_refused(void **state)
{
    (void)state;
    asb_result_t r;
    int rc = run_with("exit", "hardened", "echo " MARK "; exit 3", &r);
    (void)rc;
    assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
    assert_true(r.attestation.present && r.attestation.valid);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "exit report disagrees"));
    assert_int_equal(r.exit_code, -1); /* the lie is not in the record */
    asb_result_free(&r);
}

/* Every write of output into the host's pipe fails, as in a memory cgroup too full for the
 * pipe's pages (asb-supervisor-tamper-output): the program ran and exited 0, but what the host
 * received is not what it printed, and the record must not say completed. */
static void test_lost_output_is_refused(void **state)
{
    (void)state;
    asb_result_t r;
    int rc = run_with("output", "hardened", "echo " MARK "; echo err >&2; exit 0", &r);
    (void)rc;
    assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
    assert_true(r.attestation.present && r.attestation.valid);
    assert_non_null(r.error);
    if (!strstr(r.error, "output lost between the supervisor and the host"))
        fail_msg("error '%s' does not say the output was lost", r.error);
    assert_false(rt_bytes_has(&r.out, MARK)); /* it really never arrived */
    asb_result_free(&r);
}

/* Cancels the run through `cancel` unless `done` becomes readable within `after_s`: a run nothing
 * ends must fail the test, not hang it. */
typedef struct watchdog {
    int done, cancel;
    double after_s;
    bool fired;
} watchdog_t;

static void *watchdog_main(void *arg)
{
    watchdog_t *w = arg;
    struct pollfd p = {.fd = w->done, .events = POLLIN};
    if (poll(&p, 1, (int)(w->after_s * 1000)) == 0) {
        w->fired = true;
        uint64_t one = 1;
        assert_int_equal(write(w->cancel, &one, sizeof(one)), (ssize_t)sizeof(one));
    }
    return NULL;
}

/* A supervisor that never kills at its deadline (asb-supervisor-tamper-deadline): the host's
 * backstop (native.c event_loop: TERM to the run's cgroup and the supervisor
 * ASB_BACKSTOP_SLACK_S after the timeout, KILL ASB_BACKSTOP_GRACE_S later) must still end a
 * program that ignores SIGTERM, as a timeout, with nothing left (RT_TEST's leak checks). Nothing
 * natively exercised the backstop: with the supervisor killing at its deadline, a backstop
 * pushed out by 10^6 s passed every test (mutation audit 23, gap 6). */
static void test_backstop_ends_missed_deadline(void **state)
{
    (void)state;
    const double timeout = 1.0;
    const double bound = timeout + ASB_BACKSTOP_SLACK_S + ASB_BACKSTOP_GRACE_S + 1.0;
    char marker[16];
    uint32_t rnd;
    assert_int_equal(getrandom(&rnd, sizeof(rnd), 0), (ssize_t)sizeof(rnd));
    snprintf(marker, sizeof(marker), "%u.5", 100000 + rnd % 900000); /* a sleep of its own */
    char *script =
        rt_fmt("trap '' TERM; sleep %s & echo " MARK "; while :; do sleep 1; done", marker);
    watchdog_t w = {
        .done = eventfd(0, EFD_CLOEXEC), .cancel = eventfd(0, EFD_CLOEXEC), .after_s = bound + 1.0};
    assert_true(w.done >= 0 && w.cancel >= 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, watchdog_main, &w), 0);
    asb_result_t r;
    double t0 = rt_now();
    int rc = run_with_limits("deadline", "hardened", script, timeout, w.cancel, &r);
    double took = rt_now() - t0;
    uint64_t one = 1;
    assert_int_equal(write(w.done, &one, sizeof(one)), (ssize_t)sizeof(one));
    pthread_join(th, NULL);
    fprintf(stderr, "  returned after %.3f s (timeout %.1f s, bound %.1f s)%s\n", took, timeout,
            bound, w.fired ? ": cancelled by the test, nothing ended the run" : "");
    assert_false(w.fired);
    assert_int_equal(rc, 0);
    assert_true(rt_bytes_has(&r.out, MARK)); /* the program ran */
    assert_int_equal(r.status, ASB_STATUS_TIMEOUT);
    assert_true(r.timed_out);
    /* The supervisor really missed it: the run outlived its timeout by the backstop's slack. */
    assert_true(took >= timeout + ASB_BACKSTOP_SLACK_S);
    assert_true(took <= bound);
    assert_int_equal(rt_count_cmdline(marker, NULL), 0);
    asb_result_free(&r);
    free(script);
    close(w.done);
    close(w.cancel);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: tamper tests run real sandboxes and need root\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        RT_TEST(test_real_supervisor_runs_the_program),
        RT_TEST(test_no_seccomp_is_refused),
        RT_TEST(test_no_seccomp_is_refused_in_baseline),
        RT_TEST(test_bounding_set_kept_is_refused),
        RT_TEST(test_no_landlock_is_refused),
        RT_TEST(test_pooled_no_seccomp_is_refused),
        RT_TEST(test_pooled_bounding_set_kept_is_refused),
        RT_TEST(test_attestation_of_another_run_is_ignored),
        RT_TEST(test_exit_report_that_disagrees_is_refused),
        RT_TEST(test_limit_skipped_is_refused),
        RT_TEST(test_exec_workspace_is_refused),
        RT_TEST(test_lost_output_is_refused),
        RT_TEST(test_backstop_ends_missed_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
