/* test_bench_humaneval.c - the 164 HumanEval problems in the native hardened lane: every
 * reference solution passes, and every one fails when its body is replaced by `pass`. The
 * data is read from the shared location, never copied into the repository. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/bench.h"
#include "bench/humaneval.h"
#include "bench/submission.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CI_BUDGET_S 60.0 /* the 164-task native run with 2 jobs must stay well under this */

static char g_path[4096];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(const asb_bench_suite_t *suite, const asb_bench_submission_t *sub,
                const char *sandbox, asb_bench_report_t *rep)
{
    asb_bench_options_t opts = {
        .lane = {.sandbox = sandbox, .profile = "hardened"}, .jobs = 2, .source = "test"};
    asb_error_t err;
    double t0 = now_s();
    if (asb_bench_run(suite, sub, &opts, rep, &err) < 0)
        fail_msg("%s", err.message);
    printf("%s lane, %zu tasks, --jobs 2: %.2fs\n", sandbox, suite->n_tasks, now_s() - t0);
}

static size_t count(const asb_bench_report_t *rep, asb_bench_verdict_t v)
{
    size_t n = 0;
    for (size_t i = 0; i < rep->n_rows; i++)
        n += rep->rows[i].verdict == v;
    return n;
}

static void test_references_pass_and_pass_bodies_fail(void **state)
{
    (void)state;
    asb_bench_suite_t suite;
    asb_error_t err;
    if (asb_humaneval_load(g_path, &suite, &err) < 0)
        fail_msg("%s", err.message);
    assert_int_equal(suite.n_tasks, 164);

    asb_bench_submission_t ref;
    assert_int_equal(asb_bench_submission_reference(&suite, &ref, &err), 0);
    asb_bench_report_t rep;
    double t0 = now_s();
    run(&suite, &ref, "native", &rep);
    double wall = now_s() - t0;
    for (size_t i = 0; i < rep.n_rows; i++)
        if (rep.rows[i].verdict != ASB_BENCH_PASS)
            printf("reference %s: %s: %s\n", suite.tasks[i].id,
                   asb_bench_verdict_name(rep.rows[i].verdict), rep.rows[i].reason);
    assert_int_equal(count(&rep, ASB_BENCH_PASS), 164);
    assert_true(wall < CI_BUDGET_S);
    asb_bench_report_free(&rep);
    asb_bench_submission_free(&ref);

    /* The same prompts with `pass` as the body: HumanEval samples of completion "    pass". */
    asb_bench_submission_t stub;
    memset(&stub, 0, sizeof(stub));
    stub.per_task = calloc(suite.n_tasks, sizeof(*stub.per_task));
    stub.n_tasks = suite.n_tasks;
    for (size_t i = 0; i < suite.n_tasks; i++) {
        char *src = NULL;
        assert_true(asprintf(&src, "%s    pass\n", suite.tasks[i].prompt) > 0);
        assert_int_equal(
            asb_bench_files_add(&stub.per_task[i], "solution.py", src, strlen(src), &err), 0);
        free(src);
    }
    run(&suite, &stub, "native", &rep);
    for (size_t i = 0; i < rep.n_rows; i++)
        if (rep.rows[i].verdict != ASB_BENCH_FAIL)
            printf("pass-body %s: %s: %s\n", suite.tasks[i].id,
                   asb_bench_verdict_name(rep.rows[i].verdict), rep.rows[i].reason);
    assert_int_equal(count(&rep, ASB_BENCH_FAIL), 164);
    asb_bench_report_free(&rep);
    asb_bench_submission_free(&stub);
    asb_bench_suite_free(&suite);
}

/* Real completions that are right, or wrong in ways a model's are, graded in both native
 * profiles through the samples loader (QA findings):
 *  - a correct body that writes a scratch file in its working directory passes: baseline's
 *    grader drops the candidate to uid 65534, and the workspace, root's there, refused it;
 *  - a completion holding a NUL byte (valid JSON: "\\u0000") is graded as the invalid source it
 *    is, instead of stopping the whole run with "expected a JSON object";
 *  - a body that allocates 2 GiB fails with a reason that names memory. */
static void test_realistic_completions(void **state)
{
    (void)state;
    asb_bench_suite_t suite;
    asb_error_t err;
    if (asb_humaneval_load(g_path, &suite, &err) < 0)
        fail_msg("%s", err.message);
    char dir[] = "/tmp/asb-test-humaneval-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[4200];
    snprintf(path, sizeof(path), "%s/samples.jsonl", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* HumanEval/0, has_close_elements: the canonical body, after writing a scratch file. */
    fputs("{\"task_id\": \"HumanEval/0\", \"completion\": \"    open('scratch.txt', 'w')"
          ".write('x')\\n    for i, a in enumerate(numbers):\\n        for j, b in "
          "enumerate(numbers):\\n            if i != j and abs(a - b) < threshold:\\n       "
          "         return True\\n    return False\\n\"}\n",
          f);
    fputs("{\"task_id\": \"HumanEval/1\", \"completion\": \"    return []\\u0000\\n\"}\n", f);
    fputs("{\"task_id\": \"HumanEval/2\", \"completion\": \"    x = bytearray(1 << 31)\\n    "
          "return number % 1.0\\n\"}\n",
          f);
    assert_int_equal(fclose(f), 0);
    asb_bench_submission_t sub;
    if (asb_bench_submission_load(&suite, path, &sub, &err) < 0)
        fail_msg("samples: %s", err.message);
    static const char *const profiles[] = {"hardened", "baseline"};
    for (size_t p = 0; p < 2; p++) {
        asb_bench_options_t opts = {
            .lane = {.sandbox = "native", .profile = profiles[p]}, .jobs = 2, .source = "test"};
        asb_bench_report_t rep;
        if (asb_bench_run(&suite, &sub, &opts, &rep, &err) < 0)
            fail_msg("%s", err.message);
        for (size_t i = 0; i < 3; i++)
            printf("%s %s: %s: %s\n", profiles[p], suite.tasks[i].id,
                   asb_bench_verdict_name(rep.rows[i].verdict), rep.rows[i].reason);
        assert_int_equal(rep.rows[0].verdict, ASB_BENCH_PASS);
        assert_int_equal(rep.rows[1].verdict, ASB_BENCH_FAIL);
        assert_int_equal(rep.rows[2].verdict, ASB_BENCH_FAIL);
        assert_non_null(strstr(rep.rows[2].reason, "memory"));
        asb_bench_report_free(&rep);
    }
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: the native lane needs root\n");
        return 0;
    }
    const char *env = getenv("ASB_HUMANEVAL");
    const char *src = getenv("ASB_SOURCE_DIR");
    if (env && *env)
        snprintf(g_path, sizeof(g_path), "%s", env);
    else
        snprintf(g_path, sizeof(g_path), "%s/../shared/data/humaneval/HumanEval.jsonl.gz",
                 src ? src : ".");
    if (access(g_path, R_OK) != 0) {
        printf("SKIP: HumanEval data not found at %s (set ASB_HUMANEVAL)\n", g_path);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_references_pass_and_pass_bodies_fail),
        cmocka_unit_test(test_realistic_completions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
