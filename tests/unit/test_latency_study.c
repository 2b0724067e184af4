/* test_latency_study.c - the latency study without a sandbox: a fake asb_run records what it was
 * asked to run and fails where a test tells it to. Checks the round order (a permutation per
 * round, replayed by the seed), the failure policy (recorded, round excluded, counted; a failed
 * warm-up aborts), the statistics on synthetic timings (direction of the pairs, ablation sign),
 * the JSON record, the axis ticks, and that the SVG is well-formed XML (parsed by
 * /usr/bin/python3's xml.etree) with one dot per measured run. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "stats/latency_json.h"
#include "stats/latency_study.h"
#include "stats/latency_svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the fake runner: a test-local log of calls (one test at a time) ---- */

#define MAX_CALLS 4096

typedef struct fake {
    size_t calls;
    char profile[MAX_CALLS][32];
    uint32_t weaken[MAX_CALLS];
    size_t fail_call; /* 1-based call number that fails; 0 = none */
    asb_status_t fail_status;
    int fail_exit;
    int fail_rc;
} fake_t;

static fake_t FAKE;

static int fake_run(const asb_config_t *cfg, asb_result_t *res, asb_error_t *err)
{
    size_t i = FAKE.calls++;
    assert_true(i < MAX_CALLS);
    snprintf(FAKE.profile[i], sizeof(FAKE.profile[i]), "%s", cfg->profile);
    FAKE.weaken[i] = cfg->weaken;
    /* The program is always /usr/bin/python3 -c CODE, whatever the profile. */
    assert_non_null(cfg->argv);
    assert_string_equal(cfg->argv[0], "/usr/bin/python3");
    assert_string_equal(cfg->argv[1], "-c");
    assert_null(cfg->argv[3]);
    assert_null(cfg->code);
    memset(res, 0, sizeof(*res));
    snprintf(res->profile, sizeof(res->profile), "%s", cfg->profile);
    res->status = ASB_STATUS_COMPLETED;
    res->duration_s = 0.001 * (double)(i + 1);
    if (FAKE.fail_call == i + 1) {
        res->status = FAKE.fail_status;
        res->exit_code = FAKE.fail_exit;
        if (FAKE.fail_rc < 0) {
            res->status = ASB_STATUS_SANDBOX_ERROR;
            res->error = strdup("fake sandbox error");
            snprintf(err->message, sizeof(err->message), "fake: refused");
            err->code = FAKE.fail_rc;
            return FAKE.fail_rc;
        }
    }
    return 0;
}

static void fake_reset(void)
{
    memset(&FAKE, 0, sizeof(FAKE));
}

static void setup_study(asb_latency_study_t *s, const char *const *args, int argc)
{
    asb_latency_opts_t o;
    asb_error_t err;
    char *argv[32] = {"latency"};
    for (int i = 0; i < argc; i++)
        argv[i + 1] = (char *)args[i];
    assert_int_equal(asb_latency_parse_args(argc + 1, argv, &o, &err), 0);
    int rc = asb_latency_study_init(s, &o, o.code, &err);
    if (rc < 0)
        fail_msg("init: %s", err.message);
}

#define SETUP(s, ...)                                                                              \
    setup_study((s), (const char *const[]){__VA_ARGS__},                                           \
                (int)(sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *)))

/* ---- order ---- */

static void test_order_is_a_seeded_permutation(void **state)
{
    (void)state;
    asb_latency_study_t a, b;
    asb_error_t err;
    fake_reset();
    SETUP(&a, "--rounds", "40", "--warmup", "2", "--seed", "123");
    assert_int_equal(a.seed, 123);
    assert_int_equal(asb_latency_study_collect(&a, fake_run, NULL, NULL, &err), 0);
    assert_int_equal(FAKE.calls, (2 + 40) * 3);
    assert_int_equal(a.rounds_done, 40);
    assert_int_equal(a.runs_failed, 0);

    /* Warm-up in table order, then each round exactly as recorded in order[]. */
    for (size_t w = 0; w < 2; w++)
        for (size_t k = 0; k < 3; k++)
            assert_string_equal(FAKE.profile[w * 3 + k], a.arms[k].profile);
    size_t distinct_first[3] = {0};
    bool some_round_differs = false;
    for (size_t r = 0; r < 40; r++) {
        bool seen[3] = {false};
        for (size_t pos = 0; pos < 3; pos++) {
            size_t arm = a.order[r * 3 + pos];
            assert_true(arm < 3);
            assert_false(seen[arm]);
            seen[arm] = true;
            assert_string_equal(FAKE.profile[6 + r * 3 + pos], a.arms[arm].profile);
            assert_int_equal(a.runs[r * 3 + arm].position, pos);
            assert_int_equal(a.runs[r * 3 + arm].arm, arm);
            assert_true(a.runs[r * 3 + arm].wall_ms >= 0.0);
        }
        distinct_first[a.order[r * 3]]++;
        if (memcmp(&a.order[r * 3], &a.order[0], 3 * sizeof(size_t)) != 0)
            some_round_differs = true;
    }
    assert_true(some_round_differs);
    for (size_t k = 0; k < 3; k++) /* each arm goes first sometimes (p of failing ~ 3e-7) */
        assert_true(distinct_first[k] > 0);
    /* The result's own duration is recorded next to the caller's clock. */
    assert_true(fabs(a.runs[0 * 3 + a.order[0]].duration_ms - 7.0) < 1e-9);

    /* The same seed replays the same order; another seed does not. */
    fake_reset();
    SETUP(&b, "--rounds", "40", "--warmup", "0", "--seed", "123");
    assert_int_equal(asb_latency_study_collect(&b, fake_run, NULL, NULL, &err), 0);
    assert_memory_equal(a.order, b.order, 40 * 3 * sizeof(size_t));
    asb_latency_study_free(&b);
    fake_reset();
    SETUP(&b, "--rounds", "40", "--warmup", "0", "--seed", "124");
    assert_int_equal(asb_latency_study_collect(&b, fake_run, NULL, NULL, &err), 0);
    assert_memory_not_equal(a.order, b.order, 40 * 3 * sizeof(size_t));
    asb_latency_study_free(&b);

    /* Without --seed a fresh one is drawn, within the range JSON holds exactly. */
    fake_reset();
    SETUP(&b, "--rounds", "2");
    assert_true(b.seed <= ASB_LATENCY_MAX_SEED);
    asb_latency_study_free(&b);
    asb_latency_study_free(&a);
}

/* ---- failures ---- */

static void test_failed_run_is_recorded_and_its_round_excluded(void **state)
{
    (void)state;
    asb_latency_study_t s;
    asb_error_t err;
    fake_reset();
    FAKE.fail_call = 3 * 5 + 2; /* round 5 (0-based 4), second position; warm-up 1 round */
    FAKE.fail_status = ASB_STATUS_TIMEOUT;
    FAKE.fail_exit = -1;
    SETUP(&s, "--rounds", "10", "--warmup", "1", "--seed", "5");
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), 0);
    assert_int_equal(s.runs_failed, 1);
    size_t failed_arm = s.order[4 * 3 + 1];
    assert_int_equal(s.failed_per_arm[failed_arm], 1);
    const asb_latency_run_t *run = &s.runs[4 * 3 + failed_arm];
    assert_int_equal(run->status, ASB_STATUS_TIMEOUT);
    assert_non_null(run->error);
    assert_non_null(strstr(run->error, "timeout"));
    assert_int_equal(asb_latency_study_analyze(&s, &err), 0);
    assert_int_equal(s.rounds_complete, 9);
    assert_false(s.complete[4]);
    for (size_t a = 0; a < 3; a++)
        assert_int_equal(s.wall[a].n, 9);

    json_t *j = asb_latency_json(&s);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "runs_failed")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "rounds_excluded")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "rounds_complete")), 9);
    json_t *r4 = json_array_get(json_object_get(j, "rounds"), 4);
    assert_true(json_is_false(json_object_get(r4, "complete")));
    json_t *bad = json_array_get(json_object_get(r4, "runs"), 1);
    assert_string_equal(json_string_value(json_object_get(bad, "status")), "timeout");
    assert_non_null(json_string_value(json_object_get(bad, "error")));
    json_decref(j);
    asb_latency_study_free(&s);

    /* A nonzero exit code and an asb_run error count as failures too. */
    fake_reset();
    FAKE.fail_call = 4;
    FAKE.fail_status = ASB_STATUS_COMPLETED;
    FAKE.fail_exit = 3;
    SETUP(&s, "--rounds", "3", "--warmup", "0", "--profiles", "subprocess,hardened");
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), 0);
    assert_int_equal(s.runs_failed, 1);
    assert_int_equal(asb_latency_study_analyze(&s, &err), 0);
    assert_int_equal(s.rounds_complete, 2);
    asb_latency_study_free(&s);

    fake_reset();
    FAKE.fail_call = 1;
    FAKE.fail_rc = -EPERM;
    SETUP(&s, "--rounds", "2", "--warmup", "0", "--profiles", "subprocess,hardened");
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), 0);
    assert_int_equal(s.runs_failed, 1);
    /* Only one complete round left: no statistics, and the error says why. */
    assert_int_equal(asb_latency_study_analyze(&s, &err), -EDOM);
    assert_non_null(strstr(err.message, "1 of 2 rounds"));
    asb_latency_study_free(&s);
}

static void test_failed_warmup_aborts(void **state)
{
    (void)state;
    asb_latency_study_t s;
    asb_error_t err;
    fake_reset();
    FAKE.fail_call = 2;
    FAKE.fail_rc = -EPERM;
    SETUP(&s, "--rounds", "5", "--warmup", "1", "--profiles", "subprocess,hardened");
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), -EPERM);
    assert_non_null(strstr(err.message, "warm-up run of hardened failed"));
    assert_int_equal(FAKE.calls, 2); /* nothing measured after it */
    assert_int_equal(s.rounds_done, 0);
    asb_latency_study_free(&s);
}

/* ---- statistics on synthetic timings ---- */

/* Arm a takes 20 + 5a ms plus round noise shared by all arms plus a little own noise. */
static void synthesize(asb_latency_study_t *s)
{
    for (size_t r = 0; r < s->rounds_done; r++) {
        double drift = 3.0 * sin((double)r);
        for (size_t a = 0; a < s->n_arms; a++)
            s->runs[r * s->n_arms + a].wall_ms =
                20.0 + 5.0 * (double)a + drift + 0.1 * cos((double)(r * 7 + a));
    }
}

static void test_pairs_and_json(void **state)
{
    (void)state;
    asb_latency_study_t s;
    asb_error_t err;
    fake_reset();
    SETUP(&s, "--rounds", "30", "--warmup", "0", "--seed", "77");
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), 0);
    synthesize(&s);
    assert_int_equal(asb_latency_study_analyze(&s, &err), 0);
    assert_int_equal(s.reference, 0);
    for (size_t a = 0; a < 3; a++) {
        assert_true(s.wall[a].min <= s.wall[a].median && s.wall[a].median <= s.wall[a].max);
        assert_true(s.wall[a].median <= s.wall[a].p90 && s.wall[a].p90 <= s.wall[a].max);
    }
    /* baseline - subprocess ~ +5, hardened - subprocess ~ +10, the drift cancels in the pairs. */
    assert_true(fabs(s.pair[1].hl.estimate - 5.0) < 0.2);
    assert_true(fabs(s.pair[2].hl.estimate - 10.0) < 0.2);
    assert_true(s.pair[2].hl.lo <= s.pair[2].hl.estimate &&
                s.pair[2].hl.estimate <= s.pair[2].hl.hi);
    assert_true(s.pair[2].hl.hi - s.pair[2].hl.lo < 0.5);
    assert_true(s.pair[2].wilcoxon.p_value < 1e-6);
    const char *prefix = "hardened - subprocess: +";
    assert_int_equal(strncmp(s.verdict[2], prefix, strlen(prefix)), 0);
    assert_true(fabs(strtod(s.verdict[2] + strlen(prefix), NULL) - 10.0) < 0.2);

    json_t *j = asb_latency_json(&s);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), ASB_LATENCY_JSON_SCHEMA);
    assert_int_equal(json_integer_value(json_object_get(j, "seed")), 77);
    assert_string_equal(json_string_value(json_object_get(j, "reference")), "subprocess");
    assert_int_equal(json_array_size(json_object_get(j, "rounds")), 30);
    assert_int_equal(json_array_size(json_object_get(j, "arms")), 3);
    json_t *pairs = json_object_get(j, "pairs");
    assert_int_equal(json_array_size(pairs), 2);
    json_t *p = json_array_get(pairs, 1);
    assert_string_equal(json_string_value(json_object_get(p, "arm")), "hardened");
    assert_string_equal(json_string_value(json_object_get(p, "minuend")), "hardened");
    assert_string_equal(json_string_value(json_object_get(p, "subtrahend")), "subprocess");
    assert_string_equal(json_string_value(json_object_get(p, "verdict")), s.verdict[2]);
    assert_true(json_is_number(json_object_get(json_object_get(p, "sign_test"), "p_value")));
    assert_true(json_is_number(json_object_get(json_object_get(p, "mde"), "wilcoxon")));
    json_t *argv = json_object_get(j, "argv");
    assert_string_equal(json_string_value(json_array_get(argv, 0)), "/usr/bin/python3");
    assert_string_equal(json_string_value(json_array_get(argv, 2)), "pass");
    /* The JSON round-trips through text. */
    char *text = json_dumps(j, 0);
    assert_non_null(text);
    json_error_t jerr;
    json_t *back = json_loads(text, 0, &jerr);
    assert_non_null(back);
    json_decref(back);
    free(text);
    json_decref(j);
    asb_latency_study_free(&s);
}

static void test_ablation_sign(void **state)
{
    (void)state;
    asb_latency_study_t s;
    asb_error_t err;
    fake_reset();
    SETUP(&s, "--ablate", "hardened", "--rounds", "20", "--warmup", "0", "--seed", "3");
    assert_true(s.ablation);
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), 0);
    /* Every weakened arm ran with exactly its one bit. */
    for (size_t i = 0; i < FAKE.calls; i++)
        assert_true(FAKE.weaken[i] == 0 || (FAKE.weaken[i] & (FAKE.weaken[i] - 1)) == 0);
    /* Full hardened 30 ms, each weakened arm 30 - 2k ms: control k costs 2k ms. */
    for (size_t r = 0; r < s.rounds_done; r++)
        for (size_t a = 0; a < s.n_arms; a++)
            s.runs[r * s.n_arms + a].wall_ms =
                30.0 - 2.0 * (double)a + 0.01 * sin((double)(r * 13 + a));
    assert_int_equal(asb_latency_study_analyze(&s, &err), 0);
    for (size_t a = 1; a < s.n_arms; a++) {
        assert_int_equal(s.minuend[a], 0);
        assert_int_equal(s.subtrahend[a], a);
        assert_true(fabs(s.pair[a].hl.estimate - 2.0 * (double)a) < 0.05);
        char want[96];
        snprintf(want, sizeof(want), "hardened - %s: +", s.arms[a].name);
        assert_int_equal(strncmp(s.verdict[a], want, strlen(want)), 0);
    }
    json_t *j = asb_latency_json(&s);
    assert_true(json_is_true(json_object_get(j, "ablation")));
    json_t *p = json_array_get(json_object_get(j, "pairs"), 1);
    assert_string_equal(json_string_value(json_object_get(p, "control")), "seccomp");
    json_decref(j);
    asb_latency_study_free(&s);
}

/* ---- the plot ---- */

static void test_ticks(void **state)
{
    (void)state;
    double t[16];
    size_t n = asb_svg_linear_ticks(0.3, 9.7, t, 16);
    assert_true(n >= 4);
    for (size_t i = 0; i < n; i++) {
        assert_true(t[i] >= 0.3 && t[i] <= 9.7);
        if (i > 0)
            assert_true(fabs((t[i] - t[i - 1]) - (t[1] - t[0])) < 1e-9);
    }
    n = asb_svg_linear_ticks(-12.0, 25.0, t, 16);
    bool zero = false;
    for (size_t i = 0; i < n; i++)
        zero |= t[i] == 0.0 && !signbit(t[i]);
    assert_true(zero);
    n = asb_svg_log_ticks(1.0, 1000.0, t, 16);
    assert_int_equal(n, 4);
    assert_true(t[0] == 1.0 && t[3] == 1000.0);
    n = asb_svg_log_ticks(29.0, 233.0, t, 16);
    assert_true(n >= 4);
    for (size_t i = 0; i < n; i++)
        assert_true(t[i] >= 29.0 && t[i] <= 233.0);
    assert_int_equal(asb_svg_linear_ticks(5.0, 5.0, t, 16), 0);
    assert_int_equal(asb_svg_log_ticks(0.0, 5.0, t, 16), 0);
}

/* Parse with xml.etree and print "<root tag> <circles> <texts>". */
static const char PARSE_SVG[] =
    "import sys, xml.etree.ElementTree as E\n"
    "r = E.parse(sys.argv[1]).getroot()\n"
    "ns = '{http://www.w3.org/2000/svg}'\n"
    "t = ' '.join(''.join(x.itertext()) for x in r.iter(ns + 'text'))\n"
    "assert 'a<b&c' in t, t\n"
    "print(r.tag, len(list(r.iter(ns + 'circle'))), len(list(r.iter(ns + 'text'))))\n";

static void test_svg_is_well_formed(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0) {
        printf("SKIP: /usr/bin/python3 is missing, cannot parse the SVG with xml.etree\n");
        skip();
    }
    asb_latency_study_t s;
    asb_error_t err;
    fake_reset();
    SETUP(&s, "--rounds", "12", "--warmup", "0", "--seed", "9", "--code", "print('<&>')");
    assert_int_equal(asb_latency_study_collect(&s, fake_run, NULL, NULL, &err), 0);
    synthesize(&s);
    /* Markup and bytes that are not XML in the host name must not break the document. */
    snprintf(s.host.hostname, sizeof(s.host.hostname), "a<b&c\x01\xff\"'");
    char *svg = NULL;
    size_t len = 0;
    assert_int_equal(asb_latency_svg(&s, &svg, &len, &err), -EINVAL); /* not analyzed yet */
    assert_int_equal(asb_latency_study_analyze(&s, &err), 0);
    assert_int_equal(asb_latency_svg(&s, &svg, &len, &err), 0);
    assert_int_equal(strlen(svg), len);

    char path[] = "/tmp/test_latency_svg_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, svg, len), (ssize_t)len);
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c \"$(cat <<'EOF'\n%sEOF\n)\" %s 2>&1", PARSE_SVG,
             path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[512] = {0};
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    unlink(path);
    if (status != 0)
        fail_msg("xml.etree rejected the SVG: %s", out);
    char tag[128];
    unsigned circles = 0, texts = 0;
    assert_int_equal(sscanf(out, "%127s %u %u", tag, &circles, &texts), 3);
    assert_string_equal(tag, "{http://www.w3.org/2000/svg}svg");
    /* One dot per run of the strip plot, one per pair estimate. */
    assert_int_equal(circles, 12 * 3 + 2);
    assert_true(texts > 10);
    free(svg);
    asb_latency_study_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_is_a_seeded_permutation),
        cmocka_unit_test(test_failed_run_is_recorded_and_its_round_excluded),
        cmocka_unit_test(test_failed_warmup_aborts),
        cmocka_unit_test(test_pairs_and_json),
        cmocka_unit_test(test_ablation_sign),
        cmocka_unit_test(test_ticks),
        cmocka_unit_test(test_svg_is_well_formed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
