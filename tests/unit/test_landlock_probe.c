/* test_landlock_probe.c - the attestation's proof that Landlock is in force.
 *
 * The workload reports `landlock_enforced` from one probe: reading a world-readable file that no
 * Landlock rule lets it read must fail with EACCES. A probe that some other check also refuses
 * proves nothing (a review found the one before this, a write-open of /proc/self/comm, refused
 * by the file's owner once the workload had dropped to uid 65534, with or without Landlock). So
 * each case here runs in a forked child, and the probe must say "not enforced" whenever Landlock
 * is absent, including as a non-dumpable uid 65534 like the real workload, and "enforced" under
 * a ruleset shaped like the sandbox's: listing allowed, reading files not.
 *
 * landlock.c is included rather than linked: it lives in the static supervisor, not in the
 * library.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "native/supervisor/landlock.c"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* A directory with a probe file as the supervisor makes it (empty, mode 0444). */
typedef struct fixture {
    char dir[64];
    char file[96];
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    snprintf(f->dir, sizeof(f->dir), "/tmp/asb-llprobe-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    assert_int_equal(chmod(f->dir, 0755), 0);
    snprintf(f->file, sizeof(f->file), "%s/probe", f->dir);
    int fd = open(f->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(chmod(f->file, 0444), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    unlink(f->file);
    rmdir(f->dir);
    free(f);
    return 0;
}

enum { AS_CALLER, AS_NOBODY_NOT_DUMPABLE, UNDER_LANDLOCK };

/* The probe's answer in a child set up as `how`: 1 enforced, 0 not, >1 the child's own failure. */
static int probe_in_child(const char *file, const char *dir, int how)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (how == AS_NOBODY_NOT_DUMPABLE) {
            if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                setresuid(65534, 65534, 65534) < 0)
                _exit(10);
        } else if (how == UNDER_LANDLOCK) {
            /* As the sandbox: reading files and listing handled, only listing granted. */
            struct ll_ruleset_attr attr = {.handled_access_fs = LL_FS_READ_FILE | LL_FS_READ_DIR};
            int rs =
                (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr.handled_access_fs), 0);
            int dfd = open(dir, O_PATH | O_CLOEXEC);
            struct ll_path_beneath_attr pb = {.allowed_access = LL_FS_READ_DIR, .parent_fd = dfd};
            if (rs < 0 || dfd < 0 ||
                syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0 ||
                prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
                syscall(SYS_landlock_restrict_self, rs, 0) < 0)
                _exit(11);
        }
        _exit(sup_landlock_denies_read(file) ? 1 : 0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_no_landlock_is_not_enforced(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(probe_in_child(f->file, f->dir, AS_CALLER), 0);
}

/* The real workload's state without Landlock: dropped to 65534, not dumpable. */
static void test_no_landlock_as_the_workload_is_not_enforced(void **state)
{
    fixture_t *f = *state;
    if (geteuid() != 0) {
        print_message("  skip: needs root to become uid 65534\n");
        skip();
    }
    assert_int_equal(probe_in_child(f->file, f->dir, AS_NOBODY_NOT_DUMPABLE), 0);
}

static void test_landlock_is_enforced(void **state)
{
    fixture_t *f = *state;
    if (sup_landlock_abi() < 1) {
        print_message("  skip: this kernel has no Landlock\n");
        skip();
    }
    assert_int_equal(probe_in_child(f->file, f->dir, UNDER_LANDLOCK), 1);
}

/* A missing file is not a Landlock refusal. */
static void test_missing_file_is_not_enforced(void **state)
{
    (void)state;
    assert_false(sup_landlock_denies_read("/nonexistent/asb-landlock-probe"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_no_landlock_is_not_enforced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_landlock_as_the_workload_is_not_enforced, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_landlock_is_enforced, setup, teardown),
        cmocka_unit_test(test_missing_file_is_not_enforced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
