/* Unit tests of the core: plan validation, the profile table, JSON of hostile bytes, names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "agent_sandbox.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/owner.h"
#include "core/plan.h"
#include "core/profiles.h"
#include "core/result.h"

#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int build(asb_config_t *cfg, asb_plan_t *plan, asb_error_t *err)
{
    int rc = asb_plan_build(cfg, plan, err);
    return rc;
}

static void test_plan_defaults(void **state)
{
    (void)state;
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.code = "print(1)";
    asb_plan_t plan;
    asb_error_t err;
    /* Set before the plan is built, so a plan that copied the caller's environment would show
     * it (review finding: it was set after, and the check could not fail). */
    setenv("ASB_TEST_HOST_SECRET", "x", 1);
    assert_int_equal(build(&cfg, &plan, &err), 0);
    unsetenv("ASB_TEST_HOST_SECRET");
    assert_string_equal(plan.profile.name, "hardened");
    assert_string_equal(plan.backend, "native");
    assert_string_equal(plan.argv[0], ASB_DEFAULT_INTERPRETER);
    assert_string_equal(plan.argv[1], ASB_CODE_FILE);
    assert_null(plan.argv[2]);
    assert_int_equal(plan.limits.memory_bytes, ASB_HARDENED_MEMORY_BYTES);
    assert_int_equal(plan.limits.pids, ASB_HARDENED_PIDS);
    assert_int_equal(strlen(plan.nonce), 32);
    assert_int_equal(strlen(plan.run_id), 16);
    /* The environment is exactly the fixed set, by name: nothing of the caller's leaks in. */
    static const char *const fixed[] = {"HOME=",
                                        "LANG=",
                                        "PATH=",
                                        "PYTHONDONTWRITEBYTECODE=",
                                        "TMPDIR=",
                                        "PIP_NO_INDEX=",
                                        "npm_config_offline="};
    assert_int_equal(plan.n_env, 7);
    for (size_t i = 0; plan.env[i]; i++) {
        assert_null(strstr(plan.env[i], "ASB_TEST_HOST_SECRET"));
        bool known = false;
        for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
            known = known || strncmp(plan.env[i], fixed[k], strlen(fixed[k])) == 0;
        if (!known)
            fail_msg("unexpected variable in the fixed environment: %s", plan.env[i]);
    }
    asb_plan_free(&plan);
}

static void test_plan_nonces_differ(void **state)
{
    (void)state;
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.code = "";
    asb_plan_t a, b;
    asb_error_t err;
    assert_int_equal(build(&cfg, &a, &err), 0);
    assert_int_equal(build(&cfg, &b, &err), 0);
    assert_string_not_equal(a.nonce, b.nonce);
    assert_string_not_equal(a.run_id, b.run_id);
    asb_plan_free(&a);
    asb_plan_free(&b);
}

static void expect_refused(asb_config_t *cfg, const char *needle)
{
    asb_plan_t plan;
    asb_error_t err;
    int rc = build(cfg, &plan, &err);
    asb_plan_free(&plan);
    assert_true(rc < 0);
    if (!strstr(err.message, needle))
        fail_msg("error '%s' does not mention '%s'", err.message, needle);
}

static void test_plan_rejects_bad_input(void **state)
{
    (void)state;
    asb_config_t cfg;
    const char *argv[] = {"/bin/true", NULL};
    const char *empty_argv[] = {"", NULL};

    asb_config_init(&cfg);
    expect_refused(&cfg, "exactly one");
    cfg.code = "x";
    cfg.argv = argv;
    expect_refused(&cfg, "exactly one");

    asb_config_init(&cfg);
    cfg.argv = empty_argv;
    expect_refused(&cfg, "empty program");

    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.profile = "paranoid";
    expect_refused(&cfg, "unknown profile 'paranoid'");

    cfg.profile = "hardened";
    cfg.backend = "qemu";
    expect_refused(&cfg, "unknown backend 'qemu'");

    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.timeout_s = -1;
    expect_refused(&cfg, "timeout");
    cfg.limits.timeout_s = 0;
    cfg.limits.memory_bytes = 1024;
    expect_refused(&cfg, "memory");
    /* Values the kernel would round or refuse vaguely (QA finding). */
    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.cpus = 1e-9;
    expect_refused(&cfg, "cpus must be 0");
    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.pids = UINT64_MAX;
    expect_refused(&cfg, "pids limit above");
    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.nofile = UINT64_MAX;
    expect_refused(&cfg, "nofile limit above");
    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.fsize_bytes = UINT64_MAX;
    expect_refused(&cfg, "file size limit above");
    /* Files in and out are held in the caller's memory: their caps are bounded too. */
    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.file_in_bytes = UINT64_MAX;
    expect_refused(&cfg, "file-in limit above");
    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.limits.file_out_bytes = UINT64_MAX;
    expect_refused(&cfg, "file-out limit above");

    asb_config_init(&cfg);
    cfg.argv = argv;
    const char *bad_env[] = {"1X=y"};
    cfg.env = bad_env;
    cfg.n_env = 1;
    expect_refused(&cfg, "KEY");

    /* Text that is not UTF-8 cannot cross to a supervisor or container as JSON: refused, not
     * dropped (QA finding: the arguments after it moved up). */
    asb_config_init(&cfg);
    cfg.argv = argv;
    const char *bin_env[] = {"A=a\xff"
                             "b"};
    cfg.env = bin_env;
    cfg.n_env = 1;
    expect_refused(&cfg, "VALUE is not valid UTF-8");
    asb_config_init(&cfg);
    const char *bin_argv[] = {"/bin/echo", "ok",
                              "a\xff"
                              "b",
                              NULL};
    cfg.argv = bin_argv;
    expect_refused(&cfg, "command argument 2 is not valid UTF-8");
    asb_config_init(&cfg);
    cfg.code = "pass";
    cfg.interpreter = "/usr/bin/\xc3";
    expect_refused(&cfg, "interpreter: path is not valid UTF-8");

    asb_config_init(&cfg);
    cfg.argv = argv;
    const char *outs[] = {"../x"};
    cfg.files_out = outs;
    cfg.n_files_out = 1;
    expect_refused(&cfg, "file-out '../x'");
    const char *dup_outs[] = {"a", "a"};
    cfg.files_out = dup_outs;
    cfg.n_files_out = 2;
    expect_refused(&cfg, "given twice");

    asb_config_init(&cfg);
    cfg.code = "x";
    asb_file_in_t ins[] = {{.host_path = "/etc/hostname", .name = ASB_CODE_FILE}};
    cfg.files_in = ins;
    cfg.n_files_in = 1;
    expect_refused(&cfg, "reserved");

    asb_config_init(&cfg);
    cfg.argv = argv;
    cfg.profile = "subprocess";
    cfg.weaken = ASB_WEAKEN_SECCOMP;
    expect_refused(&cfg, "no controls to weaken");
    cfg.profile = "hardened";
    cfg.weaken = 1u << 20;
    expect_refused(&cfg, "unknown weaken");

    /* Executable files in: refused where they cannot be read-only programs of the caller's. */
    asb_config_init(&cfg);
    cfg.argv = argv;
    asb_file_in_t progs[] = {{.host_path = "/bin/true", .name = "t", .executable = true}};
    cfg.files_in = progs;
    cfg.n_files_in = 1;
    cfg.backend = "docker";
    expect_refused(&cfg, "not supported by the docker backend");
    cfg.backend = NULL;
    cfg.weaken = ASB_WEAKEN_MOUNTS;
    expect_refused(&cfg, "need the sandbox's own root");
}

/* The code's file name: the interpreter's first argument, a plain name that cannot be read as an
 * option, never a file in's or stdin's, and only with code. */
static void test_plan_code_name(void **state)
{
    (void)state;
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.code = "print(1)";
    cfg.code_name = "Main.java";
    asb_plan_t plan;
    asb_error_t err;
    assert_int_equal(asb_plan_build(&cfg, &plan, &err), 0);
    assert_string_equal(plan.argv[1], "Main.java");
    assert_string_equal(plan.code_name, "Main.java");
    asb_plan_free(&plan);
    static const char *const bad[] = {"-c", "a/b", "..", "", "x\ny"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cfg.code_name = bad[i];
        expect_refused(&cfg, "code name");
    }
    cfg.code_name = "data.txt";
    asb_file_in_t fin[] = {{.host_path = "/etc/hostname", .name = "data.txt"}};
    cfg.files_in = fin;
    cfg.n_files_in = 1;
    expect_refused(&cfg, "reserved for the code");
    asb_config_init(&cfg);
    const char *argv[] = {"/bin/true", NULL};
    cfg.argv = argv;
    cfg.code_name = "x.py";
    expect_refused(&cfg, "without code");
}

/* An executable file in asks the native sandbox for its place (ASB_EXEC_DIR); a plain one does
 * not, and subprocess needs none. */
static void test_plan_exec_in(void **state)
{
    (void)state;
    const char *argv[] = {"./t", NULL};
    asb_file_in_t fin[] = {{.host_path = "/bin/true", .name = "t", .executable = true},
                           {.host_path = "/etc/hostname", .name = "h"}};
    static const struct {
        const char *profile;
        size_t n;
        bool exec_dir;
    } cases[] = {{"hardened", 2, true},
                 {"baseline", 2, true},
                 {"hardened", 0, false},
                 {"subprocess", 2, false}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        asb_config_t cfg;
        asb_config_init(&cfg);
        cfg.profile = cases[i].profile;
        cfg.argv = argv;
        cfg.files_in = cases[i].n ? fin : NULL;
        cfg.n_files_in = cases[i].n;
        asb_plan_t plan;
        asb_error_t err;
        assert_int_equal(asb_plan_build(&cfg, &plan, &err), 0);
        assert_int_equal(plan.exec_dir, cases[i].exec_dir);
        if (cases[i].n) {
            assert_true(plan.files_in[0].executable);
            assert_false(plan.files_in[1].executable);
        }
        asb_plan_free(&plan);
    }
}

static void test_plan_overrides_and_env(void **state)
{
    (void)state;
    asb_config_t cfg;
    asb_config_init(&cfg);
    const char *argv[] = {"python3", "-V", NULL};
    const char *env[] = {"PATH=/usr/bin", "FOO=bar"};
    cfg.argv = argv;
    cfg.env = env;
    cfg.n_env = 2;
    cfg.limits.memory_bytes = 256 * ASB_MIB;
    cfg.limits.timeout_s = 2.5;
    asb_plan_t plan;
    asb_error_t err;
    assert_int_equal(build(&cfg, &plan, &err), 0);
    assert_int_equal(plan.limits.memory_bytes, 256 * ASB_MIB);
    assert_true(plan.limits.timeout_s == 2.5);
    assert_int_equal(plan.limits.pids, ASB_HARDENED_PIDS); /* untouched default */
    int paths = 0, foo = 0;
    for (size_t i = 0; plan.env[i]; i++) {
        paths += strncmp(plan.env[i], "PATH=", 5) == 0;
        foo += strcmp(plan.env[i], "FOO=bar") == 0;
    }
    assert_int_equal(paths, 1); /* the addition replaced the fixed PATH */
    assert_int_equal(foo, 1);
    asb_plan_free(&plan);
}

/* Image references as the engine takes them: lowercase repository path components, an optional
 * registry host (capitals and a port allowed), a tag (capitals allowed), a digest (review
 * finding: a capital tag before a digest was refused). */
static void test_image_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        bool ok;
    } cases[] = {
        {"python", true},
        {"agent-sandbox/python:latest", true},
        {"python:3.12-Slim", true},
        {"python:3.12-Slim@sha256:aaaa", true},
        {"registry:5000/foo:V1@sha256:aaaa", true},
        {"Registry.example:5000/foo/bar:Tag1", true},
        {"x@sha256:abc", true},
        {"localhost:5000/a/b", true},
        {"UPPER", false},
        {"foo/Bar", false},
        {"UPPER/../x", false},
        {"foo//bar", false},
        {"a/./b", false},
        {"-x", false},
        {"", false},
        {"a b", false},
        {"x@sha256:a/../b", false},
        {"a:b:c", false},
        {"a:-x", false},
        {"python@sha256:0123abcdef", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *why = NULL;
        bool ok = asb_valid_image_name(cases[i].name, &why);
        if (ok != cases[i].ok)
            fail_msg("'%s': %s (%s)", cases[i].name, ok ? "accepted" : "refused", why ? why : "");
    }
}

static void test_profile_table(void **state)
{
    (void)state;
    const asb_profile_t *h = asb_profile_find("hardened");
    assert_non_null(h);
    assert_true(h->ns_net && h->ns_user && h->ns_pid && h->ns_mount && h->landlock);
    assert_true(h->no_new_privs);
    assert_int_equal(h->caps, ASB_CAPS_NONE);
    assert_int_equal(h->seccomp, ASB_SECCOMP_HARDENED);
    assert_int_equal(h->root, ASB_ROOT_ALLOWLIST_RO);
    assert_int_equal(h->uid, 65534);
    assert_int_equal(h->defaults.memory_bytes, 128 * ASB_MIB);
    assert_int_equal(h->defaults.pids, 64);
    assert_true(h->defaults.cpus == 1.0);
    assert_int_equal(h->defaults.fsize_bytes, 16 * ASB_MIB);
    assert_int_equal(h->defaults.nofile, 256);
    assert_true(h->tmp_noexec);

    const asb_profile_t *b = asb_profile_find("baseline");
    assert_non_null(b);
    assert_false(b->ns_net);
    assert_int_equal(b->caps, ASB_CAPS_DOCKER_DEFAULT);
    assert_int_equal(b->seccomp, ASB_SECCOMP_DOCKER_DEFAULT);
    assert_int_equal(b->defaults.memory_bytes, 512 * ASB_MIB);
    assert_int_equal(b->defaults.pids, 1024);
    assert_int_equal(__builtin_popcountll(asb_docker_default_caps()), 14);

    const asb_profile_t *s = asb_profile_find("subprocess");
    assert_non_null(s);
    assert_false(s->sandboxed);
    assert_null(asb_profile_find("Hardened"));
    assert_ptr_equal(asb_profile_find(NULL), h); /* default */
    const char *const *names = asb_profile_names();
    assert_string_equal(names[0], "subprocess");
    assert_string_equal(names[2], "hardened");
    assert_null(names[3]);
}

static void test_plain_names(void **state)
{
    (void)state;
    /* U+00A0 (C2 A0) is printable; U+0080 and U+009B (CSI) are C1 controls. */
    const char *ok[] = {"a", "out.txt", ".hidden", "x..y", "ünï", "a b", "a\302\240b"};
    const char *bad[] = {"",     ".",     "..",        "../x",     "a/b",  "/abs",
                         "a\nb", "a\x7f", "a\xc2\x9b", "\xc2\x80", "a\xc2"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_true(asb_valid_plain_name(ok[i], NULL));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(asb_valid_plain_name(bad[i], NULL));
    char longname[300];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_false(asb_valid_plain_name(longname, NULL));
    assert_false(asb_valid_plain_name(NULL, NULL));
}

/* Any bytes the program writes must become valid JSON, and the exact bytes must survive. */
static void test_json_odd_bytes(void **state)
{
    (void)state;
    asb_result_t r;
    asb_result_init(&r);
    static const unsigned char out[] = {'o', 'k', 0, 0xff, 0xc3, 0x28, '\n', 0xe2, 0x82};
    static const unsigned char err[] = "plain \"quoted\" \\ text\t\n";
    r.out.data = malloc(sizeof(out));
    memcpy(r.out.data, out, sizeof(out));
    r.out.len = sizeof(out);
    r.err.data = malloc(sizeof(err) - 1);
    memcpy(r.err.data, err, sizeof(err) - 1);
    r.err.len = sizeof(err) - 1;
    r.status = ASB_STATUS_COMPLETED;
    r.exit_code = 0;
    char *s = NULL;
    asb_error_t e;
    assert_int_equal(asb_result_to_json(&r, &s, &e), 0);
    for (const char *p = s; *p; p++)
        assert_true((unsigned char)*p < 0x80); /* pure ASCII */
    json_error_t je;
    json_t *o = json_loads(s, JSON_ALLOW_NUL, &je);
    assert_non_null(o);
    /* Text: NUL kept, invalid sequences replaced by U+FFFD. */
    json_t *so = json_object_get(o, "stdout");
    /* "ok" NUL, U+FFFD for 0xff, U+FFFD for 0xc3, "(", "\n", U+FFFD for each of 0xe2 0x82 */
    assert_int_equal(json_string_length(so), 2 + 1 + 3 + 3 + 1 + 1 + 3 + 3);
    assert_int_equal(json_string_value(so)[2], '\0');
    /* Exact bytes via base64. */
    const char *b64 = json_string_value(json_object_get(o, "stdout_base64"));
    assert_non_null(b64);
    assert_string_equal(b64, "b2sA/8MoCuKC");
    assert_null(json_object_get(o, "stderr_base64")); /* valid UTF-8: text only */
    assert_string_equal(json_string_value(json_object_get(o, "stderr")), (const char *)err);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "completed");
    json_decref(o);
    /* The streamed record is the same record, with a final newline; a write that fails is an
     * error, not a silent short record. */
    char *streamed = NULL;
    size_t slen = 0;
    FILE *mf = open_memstream(&streamed, &slen);
    assert_non_null(mf);
    assert_int_equal(asb_result_write_json(&r, mf, &e), 0);
    assert_int_equal(fclose(mf), 0);
    assert_int_equal(slen, strlen(s) + 1);
    assert_memory_equal(streamed, s, strlen(s));
    assert_int_equal(streamed[slen - 1], '\n');
    free(streamed);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        assert_int_equal(asb_result_write_json(&r, full, &e), -ENOSPC);
        fclose(full);
    }
    free(s);
    asb_result_free(&r);
}

/* Free text that is not valid UTF-8 (an engine's message cut inside a character) still gives a
 * record with every key: json_string() refused it and the key was silently dropped (review
 * finding), and a record missing a key must never be written. Refused files are listed. */
static void test_json_free_text_keeps_every_key(void **state)
{
    (void)state;
    asb_result_t r;
    asb_result_init(&r);
    r.status = ASB_STATUS_SANDBOX_ERROR;
    r.exit_code = -1;
    assert_int_equal(asb_result_set_error(&r, "docker engine: HTTP 500: caf\xc3"), 0);
    assert_int_equal(asb_result_add_refused(&r, "out.txt", "why: \xe2\x82"), 0);
    assert_int_equal(asb_result_add_refused(&r, "b", "larger than the file-out cap"), 0);
    char *s = NULL;
    asb_error_t e;
    assert_int_equal(asb_result_to_json(&r, &s, &e), 0);
    json_error_t je;
    json_t *o = json_loads(s, 0, &je);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "error")),
                        "docker engine: HTTP 500: caf\xef\xbf\xbd");
    json_t *refused = json_object_get(o, "files_refused");
    assert_int_equal(json_array_size(refused), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(refused, 0), "reason")),
                        "why: \xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(json_string_value(json_object_get(json_array_get(refused, 1), "name")),
                        "b");
    for (const char *k = "status\0exit_code\0stdout\0stderr\0files_out\0limits\0weakened\0"
                         "prepared\0attestation\0";
         *k; k += strlen(k) + 1)
        assert_non_null(json_object_get(o, k));
    json_decref(o);
    free(s);
    asb_result_free(&r);
}

/* RFC 4648's test vectors: padding and alphabet as every decoder expects. */
static void test_base64_vectors(void **state)
{
    (void)state;
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe"};
    static const char *const out[] = {"",         "Zg==",     "Zm8=",     "Zm9v",
                                      "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy", "//4="};
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        json_t *s = asb_json_base64((const unsigned char *)in[i], strlen(in[i]));
        assert_non_null(s);
        assert_string_equal(json_string_value(s), out[i]);
        json_decref(s);
    }
}

static void test_utf8_validator(void **state)
{
    (void)state;
    assert_true(asb_utf8_valid((const unsigned char *)"h\xc3\xa9llo \xf0\x9f\x98\x80", 11));
    assert_false(asb_utf8_valid((const unsigned char *)"\xc0\xaf", 2));         /* overlong */
    assert_false(asb_utf8_valid((const unsigned char *)"\xed\xa0\x80", 3));     /* surrogate */
    assert_false(asb_utf8_valid((const unsigned char *)"\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    assert_false(asb_utf8_valid((const unsigned char *)"\xe2\x82", 2));         /* truncated */
}

static void test_exit_status_mapping(void **state)
{
    (void)state;
    asb_result_t r;
    asb_result_init(&r);
    r.status = ASB_STATUS_COMPLETED;
    r.exit_code = 3;
    assert_int_equal(asb_result_exit_status(&r), 3);
    r.status = ASB_STATUS_TIMEOUT;
    assert_int_equal(asb_result_exit_status(&r), 124);
    r.status = ASB_STATUS_OOM_KILLED;
    assert_int_equal(asb_result_exit_status(&r), 137);
    r.status = ASB_STATUS_OUTPUT_LIMIT;
    assert_int_equal(asb_result_exit_status(&r), 137);
    r.status = ASB_STATUS_KILLED;
    assert_int_equal(asb_result_exit_status(&r), 137);
    r.status = ASB_STATUS_SANDBOX_ERROR;
    assert_int_equal(asb_result_exit_status(&r), 125);
    assert_string_equal(asb_status_name(ASB_STATUS_OOM_KILLED), "oom_killed");
}

/* The owner tag must stay the same for a live process whatever it does (regression: it once read
 * the vsize field, which changes as the process allocates, so live owners looked dead and their
 * temp dirs were reaped mid-run). */
static void test_owner_tag_stable(void **state)
{
    (void)state;
    char a[96], b[96];
    assert_int_equal(asb_owner_tag(a, sizeof(a)), 0);
    void *big[64];
    for (int i = 0; i < 64; i++) {
        big[i] = malloc(1 << 20); /* grow the address space */
        memset(big[i], 1, 4096);
    }
    assert_int_equal(asb_owner_tag(b, sizeof(b)), 0);
    for (int i = 0; i < 64; i++)
        free(big[i]);
    assert_string_equal(a, b);
    pid_t pid;
    uint64_t start, ns;
    char name[128];
    snprintf(name, sizeof(name), "%s-0123abcd", a);
    assert_true(asb_owner_parse(name, &pid, &start, &ns));
    assert_int_equal(pid, getpid());
    const uint64_t my_start = start;
    assert_true(ns != 0 && ns == asb_owner_pidns_ino());
    assert_true(asb_owner_alive(pid, start, ns));
    /* One clock tick either way is the same process (rounding of a time namespace's offset);
     * two are another. */
    assert_true(asb_owner_alive(pid, start + 1, ns));
    assert_false(asb_owner_alive(pid, start + 2, ns));
    assert_false(asb_owner_alive(pid, start + 2, 0)); /* a tag from before session 14 */
    /* A tag of another pid namespace is not judged from here: "alive" even for a pid that does
     * not exist here (QA finding: a host run killed a live run of `unshare -pf`). */
    assert_true(asb_owner_alive(4194303, 1, ns + 1));
    assert_false(asb_owner_alive(4194303, 1, ns));
    snprintf(name, sizeof(name), "asb-%d-%llu-0123abcd", (int)pid, (unsigned long long)start);
    assert_true(asb_owner_parse(name, &pid, &start, &ns));
    assert_int_equal(ns, 0);
    assert_false(asb_owner_parse("asb-1-2-p-x", &pid, &start, &ns) && ns != 0);
    assert_false(asb_owner_parse("asb-1-2-p0-x", &pid, &start, &ns));
    assert_false(asb_owner_parse("asb-1-2-p12", &pid, &start, &ns));
    /* Field 22 from /proc/self/stat read independently. */
    FILE *f = fopen("/proc/self/stat", "r");
    char line[1024];
    assert_non_null(fgets(line, sizeof(line), f));
    fclose(f);
    char *p = strrchr(line, ')') + 2; /* field 3 */
    for (int field = 3; field < 22; field++)
        p = strchr(p, ' ') + 1;
    assert_int_equal(my_start, strtoull(p, NULL, 10));
    assert_false(asb_owner_parse("asb-x-1-2", &pid, &start, &ns));
    assert_false(asb_owner_parse("other-1-2-3", &pid, &start, &ns));
}

/* Cancellation is checked when the plan is made: refused for docker and for a descriptor that is
 * not open, off unless asked for, and "cancelled" exactly when the fd is readable. */
static void test_plan_cancel(void **state)
{
    (void)state;
    asb_config_t cfg;
    asb_plan_t plan;
    asb_error_t err;
    asb_config_init(&cfg);
    cfg.code = "pass";
    assert_int_equal(build(&cfg, &plan, &err), 0);
    assert_int_equal(plan.cancel_fd, -1); /* cancel_fd 0 (stdin) is not taken for a request */
    assert_false(asb_plan_cancelled(&plan));
    asb_plan_free(&plan);

    int efd = eventfd(0, EFD_CLOEXEC);
    assert_true(efd >= 0);
    cfg.cancellable = true;
    cfg.cancel_fd = efd;
    assert_int_equal(build(&cfg, &plan, &err), 0);
    assert_int_equal(plan.cancel_fd, efd);
    assert_false(asb_plan_cancelled(&plan));
    uint64_t one = 1;
    assert_int_equal(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
    assert_true(asb_plan_cancelled(&plan));
    assert_true(asb_plan_cancelled(&plan)); /* never read: still readable */
    asb_plan_free(&plan);

    cfg.profile = "subprocess";
    assert_int_equal(build(&cfg, &plan, &err), 0);
    asb_plan_free(&plan);
    cfg.profile = "docker-hardened";
    assert_int_equal(build(&cfg, &plan, &err), -ENOTSUP);
    assert_non_null(strstr(err.message, "docker"));
    asb_plan_free(&plan);
    cfg.profile = "hardened";
    cfg.backend = "docker";
    assert_int_equal(build(&cfg, &plan, &err), -ENOTSUP);
    asb_plan_free(&plan);
    cfg.backend = NULL;
    close(efd);
    assert_int_equal(build(&cfg, &plan, &err), -EBADF);
    assert_non_null(strstr(err.message, "cancel_fd"));
    asb_plan_free(&plan);
    cfg.cancel_fd = -1;
    assert_int_equal(build(&cfg, &plan, &err), -EBADF);
    asb_plan_free(&plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_defaults),
        cmocka_unit_test(test_plan_nonces_differ),
        cmocka_unit_test(test_plan_rejects_bad_input),
        cmocka_unit_test(test_plan_exec_in),
        cmocka_unit_test(test_plan_code_name),
        cmocka_unit_test(test_plan_overrides_and_env),
        cmocka_unit_test(test_image_names),
        cmocka_unit_test(test_profile_table),
        cmocka_unit_test(test_plain_names),
        cmocka_unit_test(test_json_odd_bytes),
        cmocka_unit_test(test_json_free_text_keeps_every_key),
        cmocka_unit_test(test_base64_vectors),
        cmocka_unit_test(test_utf8_validator),
        cmocka_unit_test(test_exit_status_mapping),
        cmocka_unit_test(test_owner_tag_stable),
        cmocka_unit_test(test_plan_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
