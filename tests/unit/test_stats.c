/* test_stats.c - src/stats against scipy: every data set of tests/stats/reference.json (written by
 * tests/stats/reference.py with scipy/numpy) and the generator's known answers; then the error
 * paths and the verdict's wording, which scipy has no opinion on.
 *
 * Tolerances: estimates and interval bounds 1e-9 relative (they are order statistics of the same
 * doubles, so in practice equal; mean, sd and p90 differ from numpy in the last bits); p-values
 * 1e-6 relative (exact p-values are sums of the same dyadic numbers; normal ones go through erfc);
 * normal quantile and CDF 1e-12 relative. Counts, k and the method must be equal. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/limits.h"
#include "stats/describe.h"
#include "stats/normal.h"
#include "stats/paired.h"
#include "stats/paired_json.h"
#include "stats/rng.h"
#include "stats/signtest.h"
#include "stats/walsh.h"
#include "stats/wilcoxon.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_ESTIMATE 1e-9
#define TOL_P_VALUE 1e-6
#define TOL_NORMAL 1e-12
#define ABS_FLOOR 1e-300 /* values this small count as equal (p-values that underflow) */

/* ---- comparing with a stated tolerance, counting every mismatch before failing ---- */

typedef struct checker {
    const char *where; /* data set name */
    int failures;
    int checks;
    double worst_estimate, worst_p; /* largest relative difference seen, for the record */
} checker_t;

static bool close_rel(double got, double want, double rel)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want);
    double scale = fmax(fabs(got), fabs(want));
    return fabs(got - want) <= rel * scale || scale < ABS_FLOOR;
}

static void check_num(checker_t *c, const char *what, double got, double want, double rel)
{
    c->checks++;
    double scale = fmax(fabs(got), fabs(want));
    double diff = scale > 0.0 ? fabs(got - want) / scale : 0.0;
    double *worst = rel >= TOL_P_VALUE ? &c->worst_p : &c->worst_estimate;
    if (isfinite(diff) && scale >= ABS_FLOOR && diff > *worst)
        *worst = diff;
    if (!close_rel(got, want, rel)) {
        c->failures++;
        print_error("%s: %s = %.17g, scipy says %.17g (rel diff %.3g > %.0e)\n", c->where, what,
                    got, want, fabs(got - want) / fmax(fabs(got), fabs(want)), rel);
    }
}

static void check_int(checker_t *c, const char *what, long long got, long long want)
{
    c->checks++;
    if (got != want) {
        c->failures++;
        print_error("%s: %s = %lld, scipy says %lld\n", c->where, what, got, want);
    }
}

static void check_str(checker_t *c, const char *what, const char *got, const char *want)
{
    c->checks++;
    if (!want || strcmp(got, want) != 0) {
        c->failures++;
        print_error("%s: %s = %s, reference says %s\n", c->where, what, got,
                    want ? want : "(missing)");
    }
}

/* JSON helpers: a missing field makes the comparison fail, not crash. */
static double jnum(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long jint(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static double *jarray(json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    double *v = malloc((*n ? *n : 1) * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < *n; i++)
        v[i] = json_number_value(json_array_get(arr, i));
    return v;
}

static json_t *load_reference(void)
{
    const char *src = getenv("ASB_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/stats/reference.json", src ? src : ".");
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root)
        fail_msg("cannot read %s: %s (line %d)", path, jerr.text, jerr.line);
    return root;
}

/* ---- the data sets ---- */

static void check_describe(checker_t *c, const char *which, const double *v, size_t n, json_t *want)
{
    asb_describe_t d;
    asb_error_t err = {0};
    assert_int_equal(asb_stats_describe(v, n, &d, &err), 0);
    char what[64];
    const struct {
        const char *key;
        double got;
    } fields[] = {{"mean", d.mean}, {"median", d.median}, {"min", d.min},
                  {"max", d.max},   {"p90", d.p90},       {"sd", d.sd}};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        snprintf(what, sizeof(what), "%s.%s", which, fields[i].key);
        check_num(c, what, fields[i].got, jnum(want, fields[i].key), TOL_ESTIMATE);
    }
}

static void check_wilcoxon(checker_t *c, const double *d, size_t n, asb_zero_method_t zm,
                           json_t *want)
{
    asb_wilcoxon_t w;
    asb_error_t err = {0};
    assert_int_equal(asb_wilcoxon_test(d, n, zm, &w, &err), 0);
    char what[64];
    const char *name = asb_zero_method_name(zm);
    snprintf(what, sizeof(what), "wilcoxon[%s].method", name);
    check_str(c, what, asb_stats_method_name(w.method),
              json_string_value(json_object_get(want, "method")));
    snprintf(what, sizeof(what), "wilcoxon[%s].n_zero", name);
    check_int(c, what, (long long)w.n_zero, jint(want, "n_zero"));
    snprintf(what, sizeof(what), "wilcoxon[%s].ties", name);
    check_int(c, what, w.ties, json_is_true(json_object_get(want, "ties")));
    snprintf(what, sizeof(what), "wilcoxon[%s].w_plus", name);
    check_num(c, what, w.w_plus, jnum(want, "w_plus"), TOL_ESTIMATE);
    snprintf(what, sizeof(what), "wilcoxon[%s].statistic", name);
    check_num(c, what, w.statistic, jnum(want, "statistic"), TOL_ESTIMATE);
    snprintf(what, sizeof(what), "wilcoxon[%s].z", name);
    check_num(c, what, w.z, jnum(want, "z"), TOL_P_VALUE); /* null (exact) reads as NAN */
    snprintf(what, sizeof(what), "wilcoxon[%s].p_value", name);
    check_num(c, what, w.p_value, jnum(want, "p_value"), TOL_P_VALUE);
}

static void check_dataset(json_t *ds, json_t *params, checker_t *total)
{
    checker_t c = {.where = json_string_value(json_object_get(ds, "name"))};
    json_t *exp = json_object_get(ds, "expected");
    size_t n, ny;
    double *x = jarray(json_object_get(ds, "x"), &n);
    double *y = jarray(json_object_get(ds, "y"), &ny);
    assert_int_equal(n, ny);
    double *d = malloc(n * sizeof(*d));
    assert_non_null(d);
    asb_paired_differences(x, y, n, d);
    asb_error_t err = {0};

    check_describe(&c, "x", x, n, json_object_get(exp, "describe_x"));
    check_describe(&c, "y", y, n, json_object_get(exp, "describe_y"));
    check_describe(&c, "d", d, n, json_object_get(exp, "describe_d"));

    json_t *ci = json_object_get(exp, "ci");
    asb_hl_ci_t hl;
    assert_int_equal(asb_wilcoxon_ci(d, n, jnum(params, "conf"), &hl, &err), 0);
    check_str(&c, "ci.method", asb_stats_method_name(hl.method),
              json_string_value(json_object_get(ci, "method")));
    check_int(&c, "ci.ties", hl.ties, json_is_true(json_object_get(ci, "ties")));
    check_int(&c, "ci.n_walsh", (long long)hl.n_walsh, jint(ci, "n_walsh"));
    check_int(&c, "ci.k", (long long)hl.k, jint(ci, "k"));
    check_num(&c, "hodges_lehmann", hl.estimate, jnum(ci, "estimate"), TOL_ESTIMATE);
    check_num(&c, "ci.lo", hl.lo, jnum(ci, "lo"), TOL_ESTIMATE);
    check_num(&c, "ci.hi", hl.hi, jnum(ci, "hi"), TOL_ESTIMATE);
    check_num(&c, "ci.conf_achieved", hl.conf_achieved, jnum(ci, "conf_achieved"), TOL_P_VALUE);
    double est;
    assert_int_equal(asb_hodges_lehmann(d, n, &est, &err), 0);
    check_num(&c, "asb_hodges_lehmann", est, jnum(ci, "estimate"), TOL_ESTIMATE);

    json_t *wil = json_object_get(exp, "wilcoxon");
    check_wilcoxon(&c, d, n, ASB_ZERO_WILCOX, json_object_get(wil, "wilcox"));
    check_wilcoxon(&c, d, n, ASB_ZERO_PRATT, json_object_get(wil, "pratt"));

    json_t *sg = json_object_get(exp, "sign");
    asb_sign_test_t s;
    assert_int_equal(asb_sign_test(d, n, &s, &err), 0);
    check_int(&c, "sign.n_pos", (long long)s.n_pos, jint(sg, "n_pos"));
    check_int(&c, "sign.n_neg", (long long)s.n_neg, jint(sg, "n_neg"));
    check_num(&c, "sign.p_value", s.p_value, jnum(sg, "p_value"), TOL_P_VALUE);

    json_t *md = json_object_get(exp, "mde");
    asb_mde_t m;
    assert_int_equal(asb_paired_mde(d, n, jnum(params, "alpha"), jnum(params, "power"), &m, &err),
                     0);
    check_num(&c, "mde.sd", m.sd, jnum(md, "sd"), TOL_ESTIMATE);
    check_num(&c, "mde.paired_t", m.paired_t, jnum(md, "paired_t"), TOL_ESTIMATE);
    check_num(&c, "mde.wilcoxon", m.wilcoxon, jnum(md, "wilcoxon"), TOL_ESTIMATE);

    /* The one-call analysis must be the sum of its parts (defaults = the reference's params). */
    asb_paired_t p;
    assert_int_equal(asb_paired_analyze(x, y, n, NULL, &p, &err), 0);
    check_num(&c, "analyze.hl", p.hl.estimate, hl.estimate, 0.0);
    check_num(&c, "analyze.lo", p.hl.lo, hl.lo, 0.0);
    check_num(&c, "analyze.hi", p.hl.hi, hl.hi, 0.0);
    check_num(&c, "analyze.wilcoxon_p", p.wilcoxon.p_value,
              jnum(json_object_get(wil, "wilcox"), "p_value"), TOL_P_VALUE);
    check_num(&c, "analyze.sign_p", p.sign.p_value, s.p_value, 0.0);
    check_num(&c, "analyze.mde", p.mde.paired_t, m.paired_t, 0.0);
    check_num(&c, "analyze.median_x", p.x.median,
              jnum(json_object_get(exp, "describe_x"), "median"), TOL_ESTIMATE);

    json_t *js = asb_paired_json(&p);
    assert_non_null(js);
    check_num(&c, "json.ci_low",
              json_number_value(json_object_get(json_object_get(js, "hodges_lehmann"), "ci_low")),
              hl.lo, 0.0);
    check_num(&c, "json.p_value",
              json_number_value(json_object_get(json_object_get(js, "wilcoxon"), "p_value")),
              p.wilcoxon.p_value, 0.0);
    check_int(&c, "json.z_null",
              json_is_null(json_object_get(json_object_get(js, "wilcoxon"), "z")),
              p.wilcoxon.method == ASB_STATS_EXACT);
    json_decref(js);

    char line[256];
    assert_int_equal(asb_paired_verdict(&p, "profile", "reference", "ms", line, sizeof(line), &err),
                     0);
    print_message("  %-22s %s\n", c.where, line);

    total->failures += c.failures;
    total->checks += c.checks;
    total->worst_estimate = fmax(total->worst_estimate, c.worst_estimate);
    total->worst_p = fmax(total->worst_p, c.worst_p);
    free(x);
    free(y);
    free(d);
}

static void test_reference_datasets(void **state)
{
    (void)state;
    json_t *root = load_reference();
    json_t *params = json_object_get(root, "params");
    assert_int_equal(jint(params, "exact_max_n"), ASB_STATS_EXACT_MAX_N);
    assert_true(jnum(params, "conf") == ASB_STATS_DEFAULT_CONF);
    assert_true(jnum(params, "alpha") == ASB_STATS_DEFAULT_ALPHA);
    assert_true(jnum(params, "power") == ASB_STATS_DEFAULT_POWER);
    json_t *sets = json_object_get(root, "datasets");
    assert_true(json_array_size(sets) >= 10);
    checker_t total = {.where = "all"};
    size_t i;
    json_t *ds;
    json_array_foreach(sets, i, ds) check_dataset(ds, params, &total);
    print_message("  %d checks on %zu data sets, %d mismatches; largest relative difference: "
                  "estimates %.2g, p-values %.2g\n",
                  total.checks, json_array_size(sets), total.failures, total.worst_estimate,
                  total.worst_p);
    json_decref(root);
    assert_int_equal(total.failures, 0);
}

static void test_normal_against_scipy(void **state)
{
    (void)state;
    json_t *root = load_reference();
    checker_t c = {.where = "normal"};
    size_t i;
    json_t *pair;
    char what[64];
    json_array_foreach(json_object_get(root, "norm_ppf"), i, pair)
    {
        double p = json_number_value(json_array_get(pair, 0));
        snprintf(what, sizeof(what), "quantile(%.15g)", p);
        check_num(&c, what, asb_norm_quantile(p), json_number_value(json_array_get(pair, 1)),
                  TOL_NORMAL);
    }
    json_array_foreach(json_object_get(root, "norm_cdf"), i, pair)
    {
        double z = json_number_value(json_array_get(pair, 0));
        snprintf(what, sizeof(what), "cdf(%g)", z);
        check_num(&c, what, asb_norm_cdf(z), json_number_value(json_array_get(pair, 1)),
                  TOL_NORMAL);
    }
    assert_true(c.checks >= 20);
    print_message("  largest relative difference from scipy: %.2g\n", c.worst_estimate);
    json_decref(root);
    assert_int_equal(c.failures, 0);
    assert_true(isnan(asb_norm_quantile(1.5)) && isnan(asb_norm_quantile(NAN)));
    assert_true(asb_norm_quantile(0.0) == -INFINITY && asb_norm_quantile(1.0) == INFINITY);
}

static uint64_t hex64(json_t *s)
{
    return strtoull(json_string_value(s), NULL, 16);
}

static void test_rng_known_answers(void **state)
{
    (void)state;
    json_t *root = load_reference();
    size_t i, j;
    json_t *v, *e;
    json_array_foreach(json_object_get(root, "rng"), i, v)
    {
        uint64_t seed = hex64(json_object_get(v, "seed"));
        uint64_t sm = seed;
        json_array_foreach(json_object_get(v, "splitmix64"), j, e)
            assert_int_equal(asb_splitmix64(&sm), hex64(e));
        asb_rng_t rng;
        asb_rng_seed(&rng, seed);
        assert_int_equal(rng.seed, seed);
        json_array_foreach(json_object_get(v, "next"), j, e)
            assert_int_equal(asb_rng_next(&rng), hex64(e));
        size_t idx[10];
        for (j = 0; j < 10; j++)
            idx[j] = j;
        asb_rng_shuffle(&rng, idx, 10);
        json_array_foreach(json_object_get(v, "shuffle_after_next"), j, e)
            assert_int_equal(idx[j], json_integer_value(e));
    }
    json_decref(root);
}

/* All 6 orders of 3 profiles equally often: chi-square with 5 df below 20.5 (p = 0.001). The seed
 * is fixed, so this is deterministic, not flaky. */
static void test_shuffle_uniform(void **state)
{
    (void)state;
    asb_rng_t rng;
    asb_rng_seed(&rng, 20261129);
    long counts[6] = {0};
    const long rounds = 60000;
    for (long r = 0; r < rounds; r++) {
        size_t idx[3] = {0, 1, 2};
        asb_rng_shuffle(&rng, idx, 3);
        size_t code = idx[0] * 2 + (idx[1] > idx[2]); /* first element, then order of the rest */
        counts[code]++;
    }
    double chi2 = 0.0, expect = (double)rounds / 6.0;
    for (int i = 0; i < 6; i++)
        chi2 += ((double)counts[i] - expect) * ((double)counts[i] - expect) / expect;
    print_message("  shuffle chi2(5) = %.2f\n", chi2);
    assert_true(chi2 < 20.5);
    for (uint64_t b = 1; b < 50; b++)
        assert_true(asb_rng_below(&rng, b) < b);
    uint64_t seed = 0;
    asb_error_t err = {0};
    assert_int_equal(asb_rng_seed_from_os(&seed, &err), 0);
}

/* ---- what scipy cannot tell us ---- */

static void test_quantile_definition(void **state)
{
    (void)state;
    asb_error_t err = {0};
    double v[] = {4.0, 1.0, 3.0, 2.0}, q;
    assert_int_equal(asb_stats_quantile(v, 4, 0.9, &q, &err), 0);
    assert_true(fabs(q - 3.7) < 1e-12); /* h = 3 * 0.9 = 2.7 -> 3 + 0.7 (4 - 3) */
    assert_int_equal(asb_stats_quantile(v, 4, 0.0, &q, &err), 0);
    assert_true(q == 1.0);
    assert_int_equal(asb_stats_quantile(v, 4, 1.0, &q, &err), 0);
    assert_true(q == 4.0);
    assert_true(v[0] == 4.0); /* input untouched */
    assert_int_equal(asb_stats_quantile(v, 4, 1.5, &q, &err), -EINVAL);
    asb_describe_t d;
    assert_int_equal(asb_stats_describe(v, 1, &d, &err), 0);
    assert_true(d.median == 4.0 && d.p90 == 4.0 && d.sd == 0.0);
}

static void test_errors(void **state)
{
    (void)state;
    asb_error_t err = {0};
    double nan_in[] = {1.0, NAN, 2.0};
    asb_describe_t desc;
    assert_int_equal(asb_stats_describe(nan_in, 3, &desc, &err), -EINVAL);
    assert_non_null(strstr(err.message, "observation 1"));
    assert_int_equal(err.code, -EINVAL);
    double inf_in[] = {1.0, INFINITY};
    asb_wilcoxon_t w;
    assert_int_equal(asb_wilcoxon_test(inf_in, 2, ASB_ZERO_WILCOX, &w, &err), -EINVAL);
    assert_int_equal(asb_stats_describe(NULL, 0, &desc, &err), -EINVAL);

    double zeros[] = {0.0, 0.0, 0.0};
    assert_int_equal(asb_wilcoxon_test(zeros, 3, ASB_ZERO_WILCOX, &w, &err), -EDOM);
    assert_non_null(strstr(err.message, "all 3 differences are zero"));
    asb_sign_test_t s;
    assert_int_equal(asb_sign_test(zeros, 3, &s, &err), -EDOM);
    assert_int_equal(asb_wilcoxon_test(zeros + 1, 2, (asb_zero_method_t)7, &w, &err), -EINVAL);

    asb_hl_ci_t hl;
    double d3[] = {1.0, 2.0, 3.0};
    assert_int_equal(asb_wilcoxon_ci(d3, 3, 1.0, &hl, &err), -EINVAL);
    assert_int_equal(asb_wilcoxon_ci(d3, 3, 0.0, &hl, &err), -EINVAL);
    size_t big = ASB_STATS_MAX_WALSH_N + 1;
    double *many = calloc(big, sizeof(*many));
    assert_non_null(many);
    double est;
    assert_int_equal(asb_hodges_lehmann(many, big, &est, &err), -E2BIG);
    free(many);

    asb_mde_t m;
    assert_int_equal(asb_paired_mde(d3, 1, 0.05, 0.8, &m, &err), -EDOM);
    assert_int_equal(asb_paired_mde(d3, 3, 0.0, 0.8, &m, &err), -EINVAL);
    asb_paired_t p;
    assert_int_equal(asb_paired_analyze(d3, d3, 3, NULL, &p, &err), -EDOM); /* all zero */
    assert_non_null(strstr(err.message, "paired comparison: "));
    double xnan[] = {1.0, 2.0, NAN};
    assert_int_equal(asb_paired_analyze(xnan, d3, 3, NULL, &p, &err), -EINVAL);
    assert_non_null(strstr(err.message, "profile"));
}

/* n = 1 and n = 2: the smallest inputs give defined answers, not garbage. */
static void test_tiny_samples(void **state)
{
    (void)state;
    asb_error_t err = {0};
    asb_hl_ci_t hl;
    double one[] = {2.5};
    assert_int_equal(asb_wilcoxon_ci(one, 1, 0.95, &hl, &err), 0);
    assert_true(hl.estimate == 2.5 && hl.lo == 2.5 && hl.hi == 2.5 && hl.k == 1);
    assert_true(fabs(hl.conf_achieved - 0.0) < 1e-15); /* 1 - 2 P(W+ = 0) = 1 - 2/2 */
    asb_wilcoxon_t w;
    assert_int_equal(asb_wilcoxon_test(one, 1, ASB_ZERO_WILCOX, &w, &err), 0);
    assert_true(w.method == ASB_STATS_EXACT && w.p_value == 1.0);
    double two[] = {-1.0, 3.0};
    assert_int_equal(asb_wilcoxon_ci(two, 2, 0.95, &hl, &err), 0);
    assert_true(hl.lo == -1.0 && hl.hi == 3.0 && hl.estimate == 1.0);
    assert_true(fabs(hl.conf_achieved - 0.5) < 1e-15);
}

static void test_binomial_tail(void **state)
{
    (void)state;
    assert_true(asb_binom_half_cdf(0, 1) == 0.5);
    assert_true(asb_binom_half_cdf(5, 5) == 1.0);
    assert_true(fabs(asb_binom_half_cdf(1, 3) - 0.5) < 1e-15);
    assert_true(fabs(asb_binom_half_cdf(2, 3) - 0.875) < 1e-15);
    /* n = 2000, k = 0: 2^-2000 underflows, the log form gives 0 rather than garbage. */
    assert_true(asb_binom_half_cdf(0, 2000) == 0.0);
    double c = asb_binom_half_cdf(900, 2000); /* about 4.4e-6: must not underflow */
    assert_true(c > 1e-7 && c < 1e-4);
}

static asb_paired_t fake_pair(double est, double lo, double hi, double p, double achieved)
{
    asb_paired_t pr;
    memset(&pr, 0, sizeof(pr));
    pr.hl.estimate = est;
    pr.hl.lo = lo;
    pr.hl.hi = hi;
    pr.hl.conf_level = 0.95;
    pr.hl.conf_achieved = achieved;
    pr.wilcoxon.p_value = p;
    return pr;
}

static void test_verdict_wording(void **state)
{
    (void)state;
    asb_error_t err = {0};
    char line[256];
    asb_paired_t p = fake_pair(1.8, 1.2, 2.5, 3e-9, 0.951);
    assert_int_equal(
        asb_paired_verdict(&p, "hardened", "subprocess", "ms", line, sizeof(line), &err), 0);
    assert_string_equal(line, "hardened - subprocess: +1.8 ms (95% CI +1.2 .. +2.5), p = 3e-9");

    p = fake_pair(-0.0312, -0.0451, -0.0170, 0.0123, 0.9375);
    assert_int_equal(asb_paired_verdict(&p, "a", "b", "s", line, sizeof(line), &err), 0);
    assert_string_equal(line, "a - b: -0.031 s (93.8% CI -0.045 .. -0.017), p = 0.012");

    p = fake_pair(250.0, 120.0, 380.0, 0.0, 0.96);
    assert_int_equal(asb_paired_verdict(&p, "a", "b", "us", line, sizeof(line), &err), 0);
    assert_string_equal(line, "a - b: +250 us (95% CI +120 .. +380), p < 1e-300");

    assert_int_equal(asb_paired_verdict(&p, "a", "b", "us", line, 10, &err), -ENOSPC);
    assert_int_equal(asb_paired_verdict(NULL, "a", "b", "us", line, 10, &err), -EINVAL);

    char pv[32];
    asb_format_p_value(0.42, pv, sizeof(pv));
    assert_string_equal(pv, "0.42");
    asb_format_p_value(1.0, pv, sizeof(pv));
    assert_string_equal(pv, "1");
    asb_format_p_value(0.00031, pv, sizeof(pv));
    assert_string_equal(pv, "3e-4");
    asb_format_p_value(9.7e-10, pv, sizeof(pv));
    assert_string_equal(pv, "1e-9");
    asb_format_p_value(1.9073486328125e-06, pv, sizeof(pv));
    assert_string_equal(pv, "2e-6");
}

/* The comparison itself must be able to fail: a value off by more than the tolerance is caught. */
static void test_tolerance_catches_perturbation(void **state)
{
    (void)state;
    assert_true(close_rel(1.8, 1.8 * (1.0 + 1e-10), TOL_ESTIMATE));
    assert_false(close_rel(1.8, 1.8 * (1.0 + 1e-8), TOL_ESTIMATE));
    assert_false(close_rel(3e-9, 3.00001e-9, TOL_P_VALUE));
    assert_false(close_rel(3e-9, 0.0, TOL_P_VALUE));
    assert_false(close_rel(NAN, 1.0, TOL_P_VALUE));
    assert_true(close_rel(NAN, NAN, TOL_P_VALUE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_datasets),
        cmocka_unit_test(test_normal_against_scipy),
        cmocka_unit_test(test_rng_known_answers),
        cmocka_unit_test(test_shuffle_uniform),
        cmocka_unit_test(test_quantile_definition),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_tiny_samples),
        cmocka_unit_test(test_binomial_tail),
        cmocka_unit_test(test_verdict_wording),
        cmocka_unit_test(test_tolerance_catches_perturbation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
