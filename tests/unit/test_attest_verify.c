/* test_attest_verify.c - the host's check of a workload's attestation (native_spec.c), on
 * hand-made attestations: one that matches hardened passes, and one that matches baseline; each
 * field the verifier checks, missing or wrong, fails it and is named in the mismatch. A missing
 * integer must never read as the 0 that personality and RLIMIT_RTPRIO are expected to be (review
 * finding). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/plan.h"
#include "core/result.h"
#include "native/native_spec.h"

#include <jansson.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static asb_plan_t g_plan; /* hardened */
static asb_plan_t g_base; /* baseline: the checks only its profile asks for */

static int build(const char *profile, asb_plan_t *plan)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    static const char *const argv[] = {"/bin/true", NULL};
    cfg.argv = argv;
    asb_error_t err;
    return asb_plan_build(&cfg, plan, &err);
}

static int setup(void **state)
{
    (void)state;
    if (build("hardened", &g_plan) < 0)
        return -1;
    if (build("baseline", &g_base) < 0) {
        asb_plan_free(&g_plan);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    asb_plan_free(&g_plan);
    asb_plan_free(&g_base);
    return 0;
}

static long caller_keyring(void)
{
    return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

/* What a hardened workload reports on a host with Landlock and memfd_noexec. Its pid_ns is
 * below the kernel's first dynamic namespace inode (0xF0000000) and none of the initial
 * namespaces', so it is never this test's own, whatever the host (review finding). */
static json_t *good(void)
{
    json_t *o = json_pack(
        "{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:b, s:b, s:b, s:b,"
        " s:b, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:i, s:I, s:i, s:i}",
        "uid", 65534, "gid", 65534, "cap_eff", (json_int_t)0, "cap_prm", (json_int_t)0, "cap_inh",
        (json_int_t)0, "cap_bnd", (json_int_t)0, "cap_amb", (json_int_t)0, "no_new_privs", 1,
        "seccomp_mode", 2, "landlock_abi", 6, "memfd_noexec", 2, "landlock_enforced", 1,
        "root_readonly", 1, "abstract_unix_scoped", 1, "loopback_up", 0, "memfd_create_refused", 0,
        "net_ifaces", "lo", "hostname", "sandbox", "pid_ns", "pid:[4026531830]", "domainname",
        "(none)", "personality", 0, "oom_score_adj", 1000, "sched_policy", 0, "rtprio_max",
        (json_int_t)0, "nice", 0, "nice_max", (json_int_t)0, "ioprio_class", 0, "umask", 022);
    json_t *more =
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "rlimit_fsize", (json_int_t)16 << 20,
                  "rlimit_nofile", (json_int_t)256, "rlimit_core", (json_int_t)0,
                  "rlimit_sigpending", (json_int_t)128, "rlimit_msgqueue", (json_int_t)0, "groups",
                  (json_int_t)0, "workspace_mount", (json_int_t)7, "tmp_mount", (json_int_t)7);
    json_object_update(o, more);
    json_decref(more);
    /* A session keyring of its own: any serial but this process's (the caller's). */
    json_object_set_new(o, "session_keyring", json_integer(caller_keyring() + 1));
    /* The filters this thread has, then hardened's own, its uname filter and, on a kernel
     * without vm.memfd_noexec, the memfd one. */
    json_object_set_new(o, "seccomp_filters",
                        json_integer(asb_native_seccomp_filters(0) + 2 +
                                     (asb_native_memfd_refuse(&g_plan.profile) ? 1 : 0)));
    return o;
}

/* What a baseline workload reports: root with Docker's capabilities, no no_new_privs, no
 * Landlock but its abstract unix scope, a writable root and the host's network. */
static json_t *good_baseline(void)
{
    json_t *o = good();
    json_int_t caps = (json_int_t)asb_docker_default_caps();
    json_t *diff = json_pack(
        "{s:i, s:i, s:I, s:I, s:I, s:i, s:b, s:b, s:s, s:b, s:I, s:I, s:I, s:I}", "uid", 0, "gid",
        0, "cap_eff", caps, "cap_prm", caps, "cap_bnd", caps, "no_new_privs", 0,
        "landlock_enforced", 0, "root_readonly", 0, "net_ifaces", "lo,eth0", "loopback_up", 1,
        "rlimit_fsize", (json_int_t)-1, "rlimit_nofile", (json_int_t)g_base.limits.nofile,
        "workspace_mount", (json_int_t)(ASB_MOUNT_NOSUID | ASB_MOUNT_NODEV), "tmp_mount",
        (json_int_t)(ASB_MOUNT_NOSUID | ASB_MOUNT_NODEV));
    json_object_update(o, diff);
    json_decref(diff);
    /* Docker's filter alone: no uname filter, no memfd one. */
    json_object_set_new(o, "seccomp_filters", json_integer(asb_native_seccomp_filters(0) + 1));
    return o;
}

static bool check_plan(const asb_plan_t *plan, json_t *att, char *why, size_t len)
{
    asb_attestation_t a;
    memset(&a, 0, sizeof(a));
    bool ok = asb_native_verify_attestation(plan, att, asb_native_seccomp_filters(0), &a);
    snprintf(why, len, "%s", a.mismatch ? a.mismatch : "");
    asb_attestation_free(&a);
    return ok;
}

static bool check(json_t *att, char *why, size_t len)
{
    return check_plan(&g_plan, att, why, len);
}

/* The caller's own PID namespace, as /proc shows it ("" when it cannot be read). */
static void caller_pid_ns(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/ns/pid", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
}

/* Seccomp mode 2 says only that some filter is in force: the count says that each of ours is.
 * One fewer (the profile's own skipped, uname's alone left), one more, none, or a count the
 * workload could not read are refused. */
static void test_seccomp_filters_counted(void **state)
{
    (void)state;
    if (asb_native_seccomp_filters(0) < 0) {
        print_message("  SKIP: this kernel does not count seccomp filters (Linux 5.9+)\n");
        skip();
    }
    char why[1024];
    json_t *att = good();
    json_int_t want = json_integer_value(json_object_get(att, "seccomp_filters"));
    json_decref(att);
    assert_true(want >= 2);
    const json_int_t wrong[] = {want - 1, want + 1, 0, -1};
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        att = good();
        json_object_set_new(att, "seccomp_filters", json_integer(wrong[i]));
        assert_false(check(att, why, sizeof(why)));
        assert_non_null(strstr(why, "Seccomp filters"));
        json_decref(att);
    }
    att = good();
    json_object_del(att, "seccomp_filters");
    assert_false(check(att, why, sizeof(why)));
    json_decref(att);
}

static void test_good_attestation_passes(void **state)
{
    (void)state;
    json_t *att = good();
    assert_non_null(att);
    char why[1024];
    if (!check(att, why, sizeof(why)))
        fail_msg("refused: %s", why);
    json_decref(att);
}

static void test_caller_state_fields_missing_or_wrong(void **state)
{
    (void)state;
    const struct {
        const char *key;
        json_int_t bad;    /* a value that must be refused */
        const char *named; /* in the mismatch */
    } cases[] = {
        {"personality", 0x0040000, "personality"}, /* ADDR_NO_RANDOMIZE */
        {"oom_score_adj", -1000, "oom_score_adj"},
        {"sched_policy", 1, "scheduling policy"},                   /* SCHED_FIFO */
        {"sched_policy", (json_int_t)1 << 32, "scheduling policy"}, /* would wrap to 0 */
        {"rtprio_max", 99, "RLIMIT_RTPRIO"},
        {"nice", -5, "nice"},
        {"nice_max", 40, "RLIMIT_NICE"},
        {"ioprio_class", 1, "I/O class"},
        {"umask", 0, "umask"},
        {"nice", 20, "nice"},
        {"no_new_privs", ((json_int_t)1 << 32) | 1, "NoNewPrivs"}, /* would narrow to 1 */
        {"seccomp_mode", ((json_int_t)1 << 32) | 2, "Seccomp"},    /* would narrow to 2 */
        /* The workload's own limits and mounts (review finding, session 19). */
        {"rlimit_fsize", -1, "RLIMIT_FSIZE"},
        {"rlimit_fsize", -2, "RLIMIT_FSIZE"}, /* soft and hard differ */
        {"rlimit_nofile", 1024, "RLIMIT_NOFILE"},
        {"rlimit_core", -1, "RLIMIT_CORE"},
        {"rlimit_sigpending", 100000, "RLIMIT_SIGPENDING"},
        {"rlimit_msgqueue", 819200, "RLIMIT_MSGQUEUE"},
        {"groups", 1, "supplementary groups"},
        {"workspace_mount", 3, "workspace mount"},  /* exec allowed */
        {"workspace_mount", 6, "workspace mount"},  /* suid allowed */
        {"workspace_mount", 15, "workspace mount"}, /* read-only */
        {"tmp_mount", 5, "/tmp mount"},             /* devices allowed */
        {"tmp_mount", ((json_int_t)1 << 32) | 7, "/tmp mount"},
        /* 0 (no keyring) only where keyctl itself is refused to us, and so to the workload
         * (Docker's default filter, systemd's ~@keyring); anything else there (review
         * finding: this case failed under such a filter). */
        {"session_keyring", caller_keyring() > 0 ? 0 : 12345, "session keyring"},
    };
    char why[1024];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *att = good();
        json_object_set_new(att, cases[i].key, json_integer(cases[i].bad));
        if (check(att, why, sizeof(why)))
            fail_msg("%s = %lld accepted", cases[i].key, (long long)cases[i].bad);
        if (!strstr(why, cases[i].named))
            fail_msg("%s: mismatch '%s' does not name '%s'", cases[i].key, why, cases[i].named);
        json_object_del(att, cases[i].key);
        if (check(att, why, sizeof(why)))
            fail_msg("%s missing: accepted", cases[i].key);
        json_decref(att);
    }
    json_t *att = good();
    /* The caller's own session keyring (red-team finding, session 19). */
    json_object_set_new(att, "session_keyring", json_integer(caller_keyring()));
    assert_false(check(att, why, sizeof(why)));
    assert_non_null(strstr(why, "session keyring"));
    json_decref(att);
    att = good();
    json_object_set_new(att, "domainname", json_string("corp.example"));
    assert_false(check(att, why, sizeof(why)));
    assert_non_null(strstr(why, "domainname"));
    json_object_del(att, "domainname");
    assert_false(check(att, why, sizeof(why)));
    json_decref(att);
}

static void test_good_baseline_attestation_passes(void **state)
{
    (void)state;
    json_t *att = good_baseline();
    char why[1024];
    if (!check_plan(&g_base, att, why, sizeof(why)))
        fail_msg("refused: %s", why);
    json_decref(att);
}

/* One field wrong in an otherwise valid attestation: refused, and the mismatch names it. */
static void expect_refused(const char *profile, json_t *att, const char *key, const char *bad,
                           const char *named)
{
    char why[1024];
    const asb_plan_t *plan = strcmp(profile, "baseline") == 0 ? &g_base : &g_plan;
    if (check_plan(plan, att, why, sizeof(why)))
        fail_msg("%s: %s = %s accepted", profile, key, bad);
    if (!strstr(why, named))
        fail_msg("%s: %s = %s: mismatch '%s' does not name '%s'", profile, key, bad, why, named);
}

/* Identity, capabilities, no_new_privs and the seccomp mode (mutation audit, session 23: a
 * verifier without its CapAmb check passed every unit test, and CapBnd was caught only by an
 * integration test). */
static void test_identity_fields_wrong(void **state)
{
    (void)state;
    const json_int_t docker = (json_int_t)asb_docker_default_caps();
    const json_int_t sys_admin = (json_int_t)1 << 21;
    const struct {
        const char *profile;
        const char *key;
        json_int_t bad;
        const char *named;
    } cases[] = {
        {"hardened", "uid", 0, "uid"}, /* root in its user namespace */
        {"hardened", "uid", 1000, "uid"},
        {"hardened", "uid", ((json_int_t)1 << 32) | 65534, "uid"},
        {"hardened", "gid", 0, "gid"},
        {"hardened", "cap_eff", sys_admin, "CapEff"},
        {"hardened", "cap_prm", 1, "CapPrm"},
        {"hardened", "cap_inh", 1, "CapInh"},
        {"hardened", "cap_bnd", 0x1ffffffffff, "CapBnd"}, /* the bounding set kept */
        {"hardened", "cap_amb", 1, "CapAmb"},
        {"hardened", "no_new_privs", 0, "NoNewPrivs"},
        {"hardened", "seccomp_mode", 0, "Seccomp"},
        {"hardened", "seccomp_mode", 1, "Seccomp"}, /* strict mode is not our filter */
        {"baseline", "uid", 65534, "uid"},
        {"baseline", "gid", 65534, "gid"},
        {"baseline", "cap_eff", docker | sys_admin, "CapEff"},
        {"baseline", "cap_prm", docker | sys_admin, "CapPrm"},
        {"baseline", "cap_bnd", 0x1ffffffffff, "CapBnd"},
        {"baseline", "cap_amb", docker, "CapAmb"}, /* kept across an exec as non-root */
        {"baseline", "seccomp_mode", 0, "Seccomp"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool base = strcmp(cases[i].profile, "baseline") == 0;
        json_t *att = base ? good_baseline() : good();
        json_object_set_new(att, cases[i].key, json_integer(cases[i].bad));
        char bad[32];
        snprintf(bad, sizeof(bad), "%#llx", (long long)cases[i].bad);
        expect_refused(cases[i].profile, att, cases[i].key, bad, cases[i].named);
        json_decref(att);
    }
}

/* The boolean and string fields, wrong in value or in type (mutation audit, session 23: the
 * verifier's root read-only, network interfaces and abstract unix scoping checks could each be
 * deleted with every unit test passing). */
static void test_flag_and_name_fields_wrong(void **state)
{
    (void)state;
    const struct {
        const char *profile;
        const char *key;
        const char *bad; /* JSON text */
        const char *named;
    } cases[] = {
        {"hardened", "landlock_enforced", "false", "Landlock enforced"},
        {"hardened", "root_readonly", "false", "root read-only"},
        {"hardened", "root_readonly", "1", "root_readonly missing"}, /* a boolean, not 1 */
        {"hardened", "net_ifaces", "\"lo,eth0\"", "network interfaces"},
        {"hardened", "net_ifaces", "\"eth0\"", "network interfaces"},
        {"hardened", "net_ifaces", "\"\"", "network interfaces"},
        {"hardened", "net_ifaces", "null", "net_ifaces missing"},
        {"hardened", "loopback_up", "true", "lo down"},
        {"hardened", "hostname", "\"host\"", "hostname"},
        {"hardened", "hostname", "\"\"", "hostname"},
        {"hardened", "pid_ns", "\"\"", "pid namespace"},
        {"hardened", "pid_ns", "\"net:[4026531840]\"", "pid namespace"},
        {"hardened", "domainname", "\"corp.example\"", "domainname"},
        /* baseline: its own scope stands in for the network namespace it does not have */
        {"baseline", "abstract_unix_scoped", "false", "abstract unix socket scoping"},
        {"baseline", "abstract_unix_scoped", "0", "abstract_unix_scoped missing"},
        {"baseline", "hostname", "\"host\"", "hostname"},
        {"baseline", "pid_ns", "\"\"", "pid namespace"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool base = strcmp(cases[i].profile, "baseline") == 0;
        json_t *att = base ? good_baseline() : good();
        json_t *v = json_loads(cases[i].bad, JSON_DECODE_ANY, NULL);
        assert_non_null(v);
        json_object_set_new(att, cases[i].key, v);
        expect_refused(cases[i].profile, att, cases[i].key, cases[i].bad, cases[i].named);
        json_decref(att);
    }
    /* The caller's own PID namespace: the workload among the caller's processes. */
    char mine[64];
    caller_pid_ns(mine, sizeof(mine));
    if (!mine[0]) {
        print_message("  SKIP: /proc/self/ns/pid unreadable here\n");
        return;
    }
    for (int base = 0; base < 2; base++) {
        json_t *att = base ? good_baseline() : good();
        json_object_set_new(att, "pid_ns", json_string(mine));
        expect_refused(base ? "baseline" : "hardened", att, "pid_ns", mine, "pid namespace");
        json_decref(att);
    }
}

/* Every field the workload reports, left out: refused, and named where the verifier names it.
 * A missing integer would otherwise read as the 0 hardened wants of its capability sets, a
 * missing boolean as false and a missing string as "". */
static void test_every_field_missing(void **state)
{
    (void)state;
    for (int base = 0; base < 2; base++) {
        const asb_plan_t *plan = base ? &g_base : &g_plan;
        json_t *proto = base ? good_baseline() : good();
        assert_true(json_object_size(proto) >= 38); /* 28 integers, 5 booleans, 4 strings, count */
        const char *key;
        json_t *value;
        json_object_foreach(proto, key, value)
        {
            (void)value;
            json_t *att = json_deep_copy(proto);
            json_object_del(att, key);
            char why[1024], named[64];
            if (strcmp(key, "seccomp_filters") == 0)
                snprintf(named, sizeof(named), "Seccomp filters");
            else
                snprintf(named, sizeof(named), "%s missing", key);
            bool ok = check_plan(plan, att, why, sizeof(why));
            bool counted = asb_native_seccomp_filters(0) >= 0;
            if (strcmp(key, "seccomp_filters") == 0 && base && !counted) {
                /* baseline stacks one filter: without a count from this kernel, mode 2 is all */
                json_decref(att);
                continue;
            }
            if (ok)
                fail_msg("%s: %s missing: accepted", plan->profile.name, key);
            if (!strstr(why, named))
                fail_msg("%s: %s missing: mismatch '%s' does not name '%s'", plan->profile.name,
                         key, why, named);
            json_decref(att);
        }
        json_decref(proto);
    }
}

/* No executable memfd: vm.memfd_noexec 2, or, only where this kernel has no such sysctl, a
 * memfd_create the workload saw refused. A workload's claim of refusal does not stand in for the
 * sysctl where the kernel has it, nor does anything else. */
static void test_memfd_noexec_or_refused(void **state)
{
    (void)state;
    bool old_kernel = asb_native_memfd_refuse(&g_plan.profile);
    char why[1024];
    struct {
        json_int_t noexec;
        bool refused;
        bool ok;
    } cases[] = {
        {2, false, true},       {2, true, true},
        {0, false, false},      {1, false, false},
        {0, true, false},       {-1, false, false},
        {-1, true, old_kernel}, {(json_int_t)1 << 32 | 2, false, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *att = good();
        json_object_set_new(att, "memfd_noexec", json_integer(cases[i].noexec));
        json_object_set_new(att, "memfd_create_refused", json_boolean(cases[i].refused));
        bool ok = check(att, why, sizeof(why));
        if (ok != cases[i].ok)
            fail_msg("memfd_noexec %lld, refused %d: %s (%s)", (long long)cases[i].noexec,
                     cases[i].refused, ok ? "accepted" : "refused", why);
        if (!ok && !strstr(why, "vm.memfd_noexec"))
            fail_msg("mismatch '%s' does not name vm.memfd_noexec", why);
        json_decref(att);
    }
    json_t *att = good();
    json_object_del(att, "memfd_create_refused");
    assert_false(check(att, why, sizeof(why)));
    json_decref(att);
    print_message("  this kernel %s vm.memfd_noexec\n", old_kernel ? "lacks" : "has");
}

/* In a docker container the sysctl is the host's and cannot be set, so the only way to no
 * executable memfd is the refusal: it is required there whatever the sysctl reads, and accepted
 * with any value. */
static void test_docker_needs_memfd_refused(void **state)
{
    (void)state;
    asb_plan_t dplan = g_plan; /* shallow: the verifier reads the backend and the profile */
    snprintf(dplan.backend, sizeof(dplan.backend), "docker");
    struct {
        json_int_t noexec;
        bool refused;
        bool ok;
    } cases[] = {{0, true, true},   {1, true, true},   {-1, true, true},  {2, false, true},
                 {0, false, false}, {1, false, false}, {-1, false, false}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *att = good();
        json_object_set_new(att, "memfd_noexec", json_integer(cases[i].noexec));
        json_object_set_new(att, "memfd_create_refused", json_boolean(cases[i].refused));
        asb_attestation_t a;
        memset(&a, 0, sizeof(a));
        bool ok = asb_native_verify_attestation(&dplan, att, -1, &a);
        if (ok != cases[i].ok)
            fail_msg("docker: memfd_noexec %lld, refused %d: %s (%s)", (long long)cases[i].noexec,
                     cases[i].refused, ok ? "accepted" : "refused", a.mismatch ? a.mismatch : "");
        asb_attestation_free(&a);
        json_decref(att);
    }
}

/* hardened's lo is down in both backends (docker: the host takes it down, docker_netns.c): an
 * attestation that says it is up, or does not say, is refused in either. */
static void test_loopback_down_both_backends(void **state)
{
    (void)state;
    const char *backends[] = {"native", "docker"};
    for (size_t i = 0; i < 2; i++) {
        asb_plan_t plan = g_plan; /* shallow: the verifier reads the backend and the profile */
        snprintf(plan.backend, sizeof(plan.backend), "%s", backends[i]);
        for (int variant = 0; variant < 3; variant++) {
            json_t *att = good();
            json_object_set_new(att, "memfd_create_refused", json_true()); /* docker's way */
            if (variant == 1)
                json_object_set_new(att, "loopback_up", json_true());
            else if (variant == 2)
                json_object_del(att, "loopback_up");
            asb_attestation_t a;
            memset(&a, 0, sizeof(a));
            bool ok = asb_native_verify_attestation(
                &plan, att, i == 0 ? asb_native_seccomp_filters(0) : -1, &a);
            bool named = a.mismatch && strstr(a.mismatch, "lo down");
            if (ok != (variant == 0) || (variant == 1 && !named))
                fail_msg("%s, variant %d: %s (%s)", backends[i], variant,
                         ok ? "accepted" : "refused", a.mismatch ? a.mismatch : "");
            asb_attestation_free(&a);
            json_decref(att);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_attestation_passes),
        cmocka_unit_test(test_caller_state_fields_missing_or_wrong),
        cmocka_unit_test(test_memfd_noexec_or_refused),
        cmocka_unit_test(test_seccomp_filters_counted),
        cmocka_unit_test(test_docker_needs_memfd_refused),
        cmocka_unit_test(test_loopback_down_both_backends),
        cmocka_unit_test(test_good_baseline_attestation_passes),
        cmocka_unit_test(test_identity_fields_wrong),
        cmocka_unit_test(test_flag_and_name_fields_wrong),
        cmocka_unit_test(test_every_field_missing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
