/* test_runtime_files.c - files out of a real run: the guard that reads the workspace after the
 * run must return plain regular files and refuse everything the program could use to make the
 * harness read something else (a symlink to a host canary), block (a FIFO) or alias a file (a
 * hard link). Names that are not plain are refused before anything runs. Runs as root. */
#include "rt_common.h"

static const asb_file_out_t *find_out(const asb_result_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_files_out; i++)
        if (strcmp(r->files_out[i].name, name) == 0)
            return &r->files_out[i];
    return NULL;
}

static const asb_file_refused_t *find_refused(const asb_result_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_files_refused; i++)
        if (strcmp(r->files_refused[i].name, name) == 0)
            return &r->files_refused[i];
    return NULL;
}

static bool any_content_has(const asb_result_t *r, const char *needle)
{
    for (size_t i = 0; i < r->n_files_out; i++)
        if (rt_bytes_has(&r->files_out[i].content, needle))
            return true;
    return false;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: asb_run hung reading files out\n";
    ssize_t n = write(2, msg, sizeof(msg) - 1);
    (void)n;
    _exit(99);
}

static int run_files(const char *profile, const char *code, const char *const *names, size_t n,
                     asb_result_t *r)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.code = code;
    cfg.interpreter = RT_PY;
    cfg.files_out = names;
    cfg.n_files_out = n;
    asb_error_t err;
    /* A guard that blocks on a FIFO would hang the harness forever: fail instead. */
    struct sigaction sa = {.sa_handler = on_alarm}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    alarm(20);
    int rc = asb_run(&cfg, r, &err);
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    if (rc < 0)
        fprintf(stderr, "asb_run: %s\n", err.message);
    return rc;
}

static void test_file_out_guard(void **state)
{
    (void)state;
    rt_canary_t canary;
    rt_canary_plant(&canary, "/tmp");
    /* The program makes every kind of trap next to one honest file. */
    char *code = rt_fmt("import os\n"
                        "open('ok.txt', 'w').write('honest output')\n"
                        "os.symlink('%s', 'abs-link')\n"
                        "os.symlink('../../../../../../..%s', 'rel-link')\n"
                        "os.symlink('ok.txt', 'inner-link')\n"
                        "os.mkfifo('fifo')\n"
                        "open('a', 'w').write('aliased')\n"
                        "os.link('a', 'b')\n"
                        "os.mkdir('dir')\n",
                        canary.path, canary.path);
    const char *names[] = {"ok.txt", "abs-link", "rel-link", "inner-link", "fifo",
                           "a",      "b",        "dir",      "missing"};
    const size_t n = sizeof(names) / sizeof(names[0]);
    const char *profiles[] = {"hardened", "baseline", "subprocess"};
    for (size_t i = 0; i < 3; i++) {
        asb_result_t r;
        double t0 = rt_now();
        assert_int_equal(run_files(profiles[i], code, names, n, &r), 0);
        double elapsed = rt_now() - t0;
        if (r.status != ASB_STATUS_COMPLETED || r.n_files_out != 1)
            rt_dump(profiles[i], &r);
        assert_int_equal(r.status, ASB_STATUS_COMPLETED);
        assert_true(elapsed < 5.0); /* the FIFO did not block */
        /* Positive control: the honest file comes back intact. */
        const asb_file_out_t *ok = find_out(&r, "ok.txt");
        assert_non_null(ok);
        assert_true(rt_bytes_eq(&ok->content, "honest output"));
        /* Everything else is refused, with a reason, and nothing else is returned. */
        assert_int_equal(r.n_files_out, 1);
        assert_int_equal(r.n_files_refused, n - 1);
        for (size_t j = 1; j < n; j++) {
            const asb_file_refused_t *f = find_refused(&r, names[j]);
            if (!f)
                fprintf(stderr, "%s: %s not refused\n", profiles[i], names[j]);
            assert_non_null(f);
            assert_non_null(f->reason);
            assert_true(strlen(f->reason) > 0);
        }
        assert_false(any_content_has(&r, canary.content));
        assert_false(any_content_has(&r, "aliased"));
        fprintf(stderr, "  %s: abs-link: %s; fifo: %s; b: %s\n", profiles[i],
                find_refused(&r, "abs-link")->reason, find_refused(&r, "fifo")->reason,
                find_refused(&r, "b")->reason);
        asb_result_free(&r);
    }
    free(code);
    rt_canary_remove(&canary);
}

static void test_file_out_size_cap(void **state)
{
    (void)state;
    const char *names[] = {"big", "fits"};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = "hardened";
    cfg.interpreter = RT_PY;
    cfg.code = "open('big', 'wb').write(b'z' * 4097)\nopen('fits', 'wb').write(b'z' * 4096)\n";
    cfg.files_out = names;
    cfg.n_files_out = 2;
    cfg.limits.file_out_bytes = 4096;
    asb_result_t r;
    asb_error_t err;
    assert_int_equal(asb_run(&cfg, &r, &err), 0);
    assert_non_null(find_refused(&r, "big"));
    const asb_file_out_t *f = find_out(&r, "fits");
    assert_non_null(f);
    assert_int_equal(f->content.len, 4096);
    assert_null(find_out(&r, "big"));
    asb_result_free(&r);
}

static void test_file_out_bad_names_refused_before_run(void **state)
{
    (void)state;
    char marker[64];
    strcpy(marker, "/tmp/rtran-");
    rt_random_hex(marker + 11, 8);
    /* The subprocess profile can write to the host, so a marker proves whether anything ran. */
    char *code = rt_fmt("open('%s', 'w').write('ran')\n", marker);
    const char *bad[] = {"../x", "a/b", "..", ".", "", "/etc/passwd", "x\ny"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *names[] = {"ok", bad[i]};
        asb_result_t r;
        int rc = run_files("subprocess", code, names, 2, &r);
        assert_true(rc < 0);
        assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
        assert_non_null(r.error);
        assert_int_equal(asb_result_exit_status(&r), 125);
        assert_int_equal(access(marker, F_OK), -1);
        asb_result_free(&r);
        rc = run_files("hardened", code, names, 2, &r);
        assert_true(rc < 0);
        assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
        asb_result_free(&r);
    }
    /* Positive control: with good names the marker does appear. */
    const char *good[] = {"ok"};
    asb_result_t r;
    assert_int_equal(run_files("subprocess", code, good, 1, &r), 0);
    assert_int_equal(access(marker, F_OK), 0);
    unlink(marker);
    asb_result_free(&r);
    free(code);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: runtime integration tests need root (real namespaces and cgroups)\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        RT_TEST(test_file_out_guard),
        RT_TEST(test_file_out_size_cap),
        RT_TEST(test_file_out_bad_names_refused_before_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
