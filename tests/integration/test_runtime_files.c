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

/* ---- executable files in (--exec-in) ------------------------------------------------------ */

/* A program the host brings: a shell script (the kernel's exec of it checks the file's own mount
 * and Landlock rule, as for a binary) and a copy of an ELF binary that lives in /usr. */
typedef struct exec_fixture {
    char dir[64], script[96], elf[96];
} exec_fixture_t;

static void exec_fixture_make(exec_fixture_t *f)
{
    strcpy(f->dir, "/tmp/rt-exec-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->script, sizeof(f->script), "%s/prog", f->dir);
    snprintf(f->elf, sizeof(f->elf), "%s/echo", f->dir);
    FILE *o = fopen(f->script, "w");
    assert_non_null(o);
    fputs("#!/bin/sh\necho \"exec-in-ran $*\"\nexit 7\n", o);
    assert_int_equal(fclose(o), 0);
    /* Host modes do not matter: what the sandbox sees is its own copy. */
    assert_int_equal(chmod(f->script, 0600), 0);
    char *cmd = rt_fmt("cp /bin/echo %s && chmod 0600 %s", f->elf, f->elf);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

static void exec_fixture_remove(exec_fixture_t *f)
{
    unlink(f->script);
    unlink(f->elf);
    rmdir(f->dir);
}

static int run_exec_in(const char *profile, const char *backend, uint32_t weaken,
                       const char *const *argv, const exec_fixture_t *f, asb_result_t *r,
                       asb_error_t *err)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.backend = backend;
    cfg.weaken = weaken;
    cfg.argv = argv;
    asb_file_in_t fin[] = {{.host_path = f->script, .name = "prog", .executable = true},
                           {.host_path = f->elf, .name = "echo2", .executable = true},
                           {.host_path = f->script, .name = "plain"}};
    cfg.files_in = fin;
    cfg.n_files_in = 3;
    cfg.limits.timeout_s = 20;
    memset(err, 0, sizeof(*err));
    return asb_run(&cfg, r, err);
}

/* A program brought with `executable` runs as ./NAME in every profile; in baseline and hardened
 * it is read-only (an attempt to replace it changes nothing that runs), and hardened still
 * executes nothing written during the run, nor a plain file in. */
static void test_exec_in(void **state)
{
    (void)state;
    exec_fixture_t f;
    exec_fixture_make(&f);
    static const char *const profiles[] = {"subprocess", "baseline", "hardened"};
    for (size_t i = 0; i < 3; i++) {
        const char *prof = profiles[i];
        bool sandboxed = i > 0, wx = i == 2;
        asb_result_t r;
        asb_error_t err;
        const char *const direct[] = {"./prog", "a", "b", NULL};
        assert_int_equal(run_exec_in(prof, NULL, 0, direct, &f, &r, &err), 0);
        if (r.status != ASB_STATUS_COMPLETED || r.exit_code != 7)
            rt_dump(prof, &r);
        assert_int_equal(r.status, ASB_STATUS_COMPLETED);
        assert_int_equal(r.exit_code, 7);
        assert_true(rt_bytes_eq(&r.out, "exec-in-ran a b\n"));
        asb_result_free(&r);

        /* The program tries to replace what it was given, then runs it; then runs a file of
         * its own making and the plain file in. */
        const char *const sh[] = {
            "/bin/sh", "-c",
            "printf '#!/bin/sh\\necho FORGED\\n' > /exec/prog 2>/dev/null;"
            "printf '#!/bin/sh\\necho FORGED\\n' > prog.new 2>/dev/null &&"
            " mv -f prog.new /exec/prog 2>/dev/null;"
            "touch /exec/extra 2>/dev/null && echo EXTRA;"
            "chmod 0777 /exec/prog 2>/dev/null && echo CHMOD;"
            "./echo2 elf-ran;"
            "./prog x;"
            "printf '#!/bin/sh\\necho WRITTEN-RAN\\n' > mine; chmod +x mine; ./mine 2>/dev/null;"
            "chmod +x plain 2>/dev/null; ./plain 2>/dev/null | sed s/exec-in-ran/PLAIN-RAN/;"
            "exit 0",
            NULL};
        assert_int_equal(run_exec_in(prof, NULL, 0, sh, &f, &r, &err), 0);
        assert_int_equal(r.status, ASB_STATUS_COMPLETED);
        assert_true(rt_bytes_has(&r.out, "elf-ran\n"));
        assert_true(rt_bytes_has(&r.out, "exec-in-ran x\n"));
        if (sandboxed) {
            bool forged = rt_bytes_has(&r.out, "FORGED"), extra = rt_bytes_has(&r.out, "EXTRA"),
                 chm = rt_bytes_has(&r.out, "CHMOD");
            if (forged || extra || chm)
                rt_dump(prof, &r);
            assert_false(forged);
            assert_false(extra);
            assert_false(chm);
        }
        /* W^X: hardened runs neither its own file nor a plain file in; the others do (the
         * positive control that the commands above can run them). */
        assert_int_equal(rt_bytes_has(&r.out, "WRITTEN-RAN"), !wx);
        assert_int_equal(rt_bytes_has(&r.out, "PLAIN-RAN"), !wx);
        asb_result_free(&r);
    }

    /* A refused exec of a written file says why, in the run's error. */
    asb_result_t r;
    asb_error_t err;
    const char *const plain[] = {"./plain", NULL};
    assert_true(run_exec_in("hardened", NULL, 0, plain, &f, &r, &err) < 0);
    assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
    assert_non_null(r.error);
    assert_non_null(strstr(r.error, "Permission denied"));
    assert_non_null(strstr(r.error, "--exec-in"));
    asb_result_free(&r);

    /* Where it cannot be what it says, it is refused before anything runs. */
    const char *const direct[] = {"./prog", NULL};
    assert_int_equal(run_exec_in("hardened", "docker", 0, direct, &f, &r, &err), -ENOTSUP);
    assert_non_null(strstr(err.message, "docker"));
    assert_int_equal(r.status, ASB_STATUS_SANDBOX_ERROR);
    asb_result_free(&r);
    assert_int_equal(run_exec_in("hardened", NULL, ASB_WEAKEN_MOUNTS, direct, &f, &r, &err),
                     -ENOTSUP);
    asb_result_free(&r);
    exec_fixture_remove(&f);
}

/* A prepared sandbox takes a job with a program, and one without after it. */
static void test_exec_in_pool(void **state)
{
    (void)state;
    exec_fixture_t f;
    exec_fixture_make(&f);
    asb_config_t tmpl;
    asb_config_init(&tmpl);
    tmpl.profile = "hardened";
    asb_pool_t *pool = NULL;
    asb_error_t err;
    assert_int_equal(asb_pool_new(&tmpl, 1, &pool, &err), 0);
    for (int k = 0; k < 2; k++) {
        asb_config_t cfg = tmpl;
        const char *const with[] = {"./prog", "pooled", NULL};
        const char *const without[] = {"/bin/sh", "-c", "ls /exec | wc -l", NULL};
        asb_file_in_t fin = {.host_path = f.script, .name = "prog", .executable = true};
        cfg.argv = k == 0 ? with : without;
        cfg.files_in = k == 0 ? &fin : NULL;
        cfg.n_files_in = k == 0 ? 1 : 0;
        asb_result_t r;
        int rc = asb_pool_run(pool, &cfg, &r, &err);
        if (rc < 0)
            fprintf(stderr, "asb_pool_run: %s\n", err.message);
        assert_int_equal(rc, 0);
        assert_int_equal(r.status, ASB_STATUS_COMPLETED);
        assert_true(rt_bytes_eq(&r.out, k == 0 ? "exec-in-ran pooled\n" : "0\n"));
        asb_result_free(&r);
    }
    asb_pool_free(pool);
    exec_fixture_remove(&f);
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
        RT_TEST(test_exec_in),
        RT_TEST(test_exec_in_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
