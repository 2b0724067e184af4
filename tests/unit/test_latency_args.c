/* test_latency_args.c - the options of `agent-sandbox latency` and the arms they make: defaults,
 * every option, the refusals (each with the option named in the message), and the ablation arms'
 * names and weaken bits. No sandbox is run. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/limits.h"
#include "stats/latency_study.h"

#include <errno.h>
#include <string.h>

#define ARGV(...) ((char *[]){"latency", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"latency", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, e, ...) asb_latency_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (e))

static void test_defaults(void **state)
{
    (void)state;
    asb_latency_opts_t o;
    asb_error_t err;
    char *argv[] = {"latency", NULL};
    assert_int_equal(asb_latency_parse_args(1, argv, &o, &err), 0);
    assert_int_equal(o.rounds, ASB_LATENCY_DEFAULT_ROUNDS);
    assert_int_equal(o.warmup, ASB_LATENCY_DEFAULT_WARMUP);
    assert_false(o.seed_given);
    assert_string_equal(o.code, "pass");
    assert_null(o.file);
    assert_string_equal(o.out, "results/latency.json");
    assert_null(o.plot);
    assert_null(o.ablate);
    assert_int_equal(o.n_profiles, 3);
    assert_string_equal(o.profiles[0], "subprocess");
    assert_string_equal(o.profiles[1], "baseline");
    assert_string_equal(o.profiles[2], "hardened");

    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n = 0, ref = 99;
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(ref, 0); /* the first profile: hardened - subprocess */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(arms[i].weaken, 0);
        assert_string_equal(arms[i].name, arms[i].profile);
    }
}

static void test_every_option(void **state)
{
    (void)state;
    asb_latency_opts_t o;
    asb_error_t err;
    assert_int_equal(PARSE(&o, &err, "--rounds", "7", "--warmup", "0", "--seed", "42", "--profiles",
                           "hardened,subprocess", "--reference", "hardened", "--code", "print(1)",
                           "--out", "x.json", "--plot", "y.svg"),
                     0);
    assert_int_equal(o.rounds, 7);
    assert_int_equal(o.warmup, 0);
    assert_true(o.seed_given);
    assert_int_equal(o.seed, 42);
    assert_string_equal(o.code, "print(1)");
    assert_string_equal(o.out, "x.json");
    assert_string_equal(o.plot, "y.svg");
    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n, ref;
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(arms[0].name, "hardened");
    assert_string_equal(arms[1].name, "subprocess");
    assert_int_equal(ref, 0);

    assert_int_equal(PARSE(&o, &err, "--file", "prog.py"), 0);
    assert_null(o.code);
    assert_string_equal(o.file, "prog.py");

    assert_int_equal(PARSE(&o, &err, "--seed", "9007199254740991"), 0); /* 2^53 - 1 */
    assert_int_equal(o.seed, ASB_LATENCY_MAX_SEED);

    assert_int_equal(PARSE(&o, &err, "--rounds", "3", "--help"), 0);
    assert_true(o.help);
}

/* Each refusal must fail with -EINVAL and name what was wrong. */
static void expect_refused(int rc, const asb_error_t *err, const char *needle)
{
    assert_int_equal(rc, -EINVAL);
    if (!strstr(err->message, needle))
        fail_msg("message '%s' does not mention '%s'", err->message, needle);
}

static void test_refusals(void **state)
{
    (void)state;
    asb_latency_opts_t o;
    asb_error_t err;
    expect_refused(PARSE(&o, &err, "--rounds", "1"), &err, "--rounds");
    expect_refused(PARSE(&o, &err, "--rounds", "-5"), &err, "--rounds");
    expect_refused(PARSE(&o, &err, "--rounds", "10x"), &err, "--rounds");
    expect_refused(PARSE(&o, &err, "--rounds", " 10"), &err, "--rounds");
    expect_refused(PARSE(&o, &err, "--rounds", ""), &err, "--rounds");
    expect_refused(PARSE(&o, &err, "--rounds", "2001"), &err, "--rounds");
    expect_refused(PARSE(&o, &err, "--warmup", "1001"), &err, "--warmup");
    expect_refused(PARSE(&o, &err, "--seed", "9007199254740992"), &err, "--seed");
    expect_refused(PARSE(&o, &err, "--seed", "18446744073709551616"), &err, "--seed");
    expect_refused(PARSE(&o, &err, "--rounds"), &err, "missing value");
    expect_refused(PARSE(&o, &err, "--bogus", "1"), &err, "--bogus");
    expect_refused(PARSE(&o, &err, "stray"), &err, "stray");
    expect_refused(PARSE(&o, &err, "--code", "pass", "--file", "f.py"), &err, "--file");
    expect_refused(PARSE(&o, &err, "--ablate", "hardened", "--profiles", "hardened,baseline"), &err,
                   "--profiles");
    expect_refused(PARSE(&o, &err, "--profiles", ",,,"), &err, "--profiles");
    expect_refused(PARSE(&o, &err, "--profiles", "a,b,c,d,e,f,g,h,i"), &err, "--profiles");
    expect_refused(PARSE(&o, &err, "--out", ""), &err, "--out");
    expect_refused(PARSE(&o, &err, "--plot", ""), &err, "--plot");

    /* Parsed, but the arms cannot be built. */
    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n, ref;
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened,nonsense"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "nonsense");
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened,hardened"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "twice");
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "two arms");
    assert_int_equal(PARSE(&o, &err, "--reference", "docker"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "--reference");
    assert_int_equal(PARSE(&o, &err, "--ablate", "subprocess"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "no controls");
    assert_int_equal(PARSE(&o, &err, "--ablate", "nonsense"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "nonsense");
    /* The docker backend has the sandboxed profiles only, and no per-control weakening. */
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened,docker-subprocess"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "docker-subprocess");
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened,docker-nonsense"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "docker-nonsense");
    assert_int_equal(PARSE(&o, &err, "--profiles", "docker-hardened,docker-hardened"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "twice");
    assert_int_equal(PARSE(&o, &err, "--ablate", "docker-hardened"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "docker");
}

static void test_docker_arms(void **state)
{
    (void)state;
    asb_latency_opts_t o;
    asb_error_t err;
    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n = 0, ref = 99;
    assert_int_equal(PARSE(&o, &err, "--profiles", "subprocess,hardened,docker-hardened",
                           "--reference", "docker-hardened"),
                     0);
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(ref, 2);
    /* hardened and docker-hardened are two arms, and the docker one keeps its prefix: that name
     * is what selects the docker backend in asb_run. */
    assert_string_equal(arms[1].name, "hardened");
    assert_string_equal(arms[2].name, "docker-hardened");
    assert_string_equal(arms[2].profile, "docker-hardened");
    assert_int_equal(arms[2].weaken, 0);
    assert_false(arms[2].pooled);
}

static void test_pool_arms(void **state)
{
    (void)state;
    asb_latency_opts_t o;
    asb_error_t err;
    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n = 0, ref = 99;
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened,pool-hardened"), 0);
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    assert_int_equal(n, 2);
    /* The pooled arm keeps its prefix in its name, runs the plain profile, in a pool. */
    assert_false(arms[0].pooled);
    assert_string_equal(arms[1].name, "pool-hardened");
    assert_string_equal(arms[1].profile, "hardened");
    assert_true(arms[1].pooled);
    /* Only sandboxed profiles are prepared ahead. */
    assert_int_equal(PARSE(&o, &err, "--profiles", "hardened,pool-subprocess"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "pool-subprocess");
    assert_int_equal(PARSE(&o, &err, "--profiles", "pool-hardened,pool-hardened"), 0);
    expect_refused(asb_latency_build_arms(&o, arms, &n, &ref, &err), &err, "twice");
}

static void test_ablation_arms(void **state)
{
    (void)state;
    asb_latency_opts_t o;
    asb_error_t err;
    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n, ref;
    assert_int_equal(PARSE(&o, &err, "--ablate", "hardened"), 0);
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    static const struct {
        const char *name;
        uint32_t weaken;
    } want[] = {
        {"hardened", 0},
        {"hardened-no-netns", ASB_WEAKEN_NETNS},
        {"hardened-no-seccomp", ASB_WEAKEN_SECCOMP},
        {"hardened-no-landlock", ASB_WEAKEN_LANDLOCK},
        {"hardened-no-cgroup", ASB_WEAKEN_CGROUP},
        {"hardened-no-mounts", ASB_WEAKEN_MOUNTS},
    };
    assert_int_equal(n, sizeof(want) / sizeof(want[0]));
    assert_int_equal(ref, 0);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(arms[i].name, want[i].name);
        assert_string_equal(arms[i].profile, "hardened");
        assert_int_equal(arms[i].weaken, want[i].weaken);
    }
    /* A weakened arm may be the reference when asked for by name. */
    assert_int_equal(PARSE(&o, &err, "--ablate", "hardened", "--reference", "hardened-no-cgroup"),
                     0);
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    assert_string_equal(arms[ref].name, "hardened-no-cgroup");

    /* baseline has no Landlock: no arm pretends to switch it off. */
    assert_int_equal(PARSE(&o, &err, "--ablate", "baseline"), 0);
    assert_int_equal(asb_latency_build_arms(&o, arms, &n, &ref, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_null(strstr(arms[i].name, "landlock"));
    for (size_t i = 0; i < n; i++)
        assert_null(strstr(arms[i].name, "netns"));
    assert_string_equal(arms[0].name, "baseline");
    assert_true(n >= 2);

    assert_string_equal(asb_latency_control_name(ASB_WEAKEN_SECCOMP), "seccomp");
    assert_null(asb_latency_control_name(ASB_WEAKEN_SECCOMP | ASB_WEAKEN_NETNS));
    assert_null(asb_latency_control_name(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),    cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_refusals),    cmocka_unit_test(test_ablation_arms),
        cmocka_unit_test(test_docker_arms), cmocka_unit_test(test_pool_arms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
