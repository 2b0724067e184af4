/* test_rmtree.c - removing a hostile tree, and private temp directories. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define HANG_GUARD_S 20
#define CANARY "CANARY-must-survive-rmtree"
#define NOBODY 65534

typedef struct fixture {
    char base[64]; /* /tmp/asb-test-rm-XXXXXX: holds "tree" and "host" */
    int basefd;
    int tmp;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    snprintf(f->base, sizeof(f->base), "/tmp/asb-test-rm-XXXXXX");
    assert_non_null(mkdtemp(f->base));
    f->basefd = open(f->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    f->tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(f->basefd >= 0 && f->tmp >= 0);
    assert_int_equal(mkdirat(f->basefd, "tree", 0755), 0);
    assert_int_equal(mkdirat(f->basefd, "host", 0755), 0);
    int fd = openat(f->basefd, "host/canary", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, CANARY, strlen(CANARY)), (ssize_t)strlen(CANARY));
    close(fd);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    asb_error_t err = {0};
    close(f->basefd);
    assert_int_equal(asb_rmtree_at(f->tmp, f->base + 5, &err), 0);
    close(f->tmp);
    free(f);
    return 0;
}

static void canary_intact(fixture_t *f)
{
    char buf[64] = "";
    int fd = openat(f->basefd, "host/canary", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, buf, sizeof(buf) - 1), (ssize_t)strlen(CANARY));
    close(fd);
    assert_string_equal(buf, CANARY);
    struct stat st;
    assert_int_equal(fstatat(f->basefd, "host", &st, 0), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
}

static void tree_gone(fixture_t *f)
{
    struct stat st;
    assert_int_equal(fstatat(f->basefd, "tree", &st, AT_SYMLINK_NOFOLLOW), -1);
    assert_int_equal(errno, ENOENT);
}

static size_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    size_t n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void test_symlinks_to_host_are_not_followed(void **state)
{
    fixture_t *f = *state;
    char host[128], canary[128];
    snprintf(host, sizeof(host), "%s/host", f->base);
    snprintf(canary, sizeof(canary), "%s/host/canary", f->base);
    assert_int_equal(mkdirat(f->basefd, "tree/sub", 0755), 0);
    assert_int_equal(symlinkat(host, f->basefd, "tree/sub/hostdir"), 0);
    assert_int_equal(symlinkat(canary, f->basefd, "tree/canary-link"), 0);
    assert_int_equal(symlinkat("../../host", f->basefd, "tree/sub/relative"), 0);
    assert_int_equal(symlinkat("/", f->basefd, "tree/root"), 0);
    assert_int_equal(mkfifoat(f->basefd, "tree/sub/fifo", 0600), 0);

    asb_error_t err = {0};
    size_t before = open_fds();
    alarm(HANG_GUARD_S);
    assert_int_equal(asb_rmtree_at(f->basefd, "tree", &err), 0);
    alarm(0);
    assert_int_equal(open_fds(), before);
    tree_gone(f);
    canary_intact(f);
}

static void test_top_level_symlink_removes_only_the_link(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(symlinkat("host", f->basefd, "link"), 0);
    asb_error_t err = {0};
    assert_int_equal(asb_rmtree_at(f->basefd, "link", &err), 0);
    canary_intact(f);
}

static void make_locked_tree(int basefd)
{
    assert_int_equal(mkdirat(basefd, "tree/locked", 0755), 0);
    assert_int_equal(mkdirat(basefd, "tree/locked/inner", 0755), 0);
    int fd = openat(basefd, "tree/locked/inner/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0000);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mkdirat(basefd, "tree/readonly", 0755), 0);
    fd = openat(basefd, "tree/readonly/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fchmodat(basefd, "tree/readonly", 0500, 0), 0);
    assert_int_equal(fchmodat(basefd, "tree/locked/inner", 0000, 0), 0);
    assert_int_equal(fchmodat(basefd, "tree/locked", 0000, 0), 0);
}

/* As root, permissions do not stop us; the unprivileged owner is what the chmod path is for, so
 * root hands the tree to nobody and removes it as nobody in a child. */
static void test_zero_permission_dirs_are_removed(void **state)
{
    fixture_t *f = *state;
    make_locked_tree(f->basefd);
    asb_error_t err = {0};
    if (geteuid() != 0) {
        assert_int_equal(asb_rmtree_at(f->basefd, "tree", &err), 0);
        tree_gone(f);
        return;
    }
    const char *own[] = {
        "tree",          "tree/locked",       "tree/locked/inner", "tree/locked/inner/file",
        "tree/readonly", "tree/readonly/file"};
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        assert_int_equal(fchownat(f->basefd, own[i], NOBODY, NOBODY, AT_SYMLINK_NOFOLLOW), 0);
    /* nobody needs write permission on the parent to remove "tree". */
    assert_int_equal(fchown(f->basefd, NOBODY, NOBODY), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
            setresuid(NOBODY, NOBODY, NOBODY) < 0)
            _exit(3);
        int rc = asb_rmtree_at(f->basefd, "tree", &err);
        if (rc != 0)
            fprintf(stderr, "rmtree as nobody: %s\n", err.message);
        _exit(rc == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(fchown(f->basefd, 0, 0), 0);
    tree_gone(f);
}

static void make_chain(int basefd, const char *top, unsigned depth)
{
    int fd = openat(basefd, top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(fd >= 0);
    for (unsigned i = 0; i < depth; i++) {
        assert_int_equal(mkdirat(fd, "d", 0755), 0);
        if (i % 7 == 0) {
            int file = openat(fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
            assert_true(file >= 0);
            close(file);
        }
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(next >= 0);
        close(fd);
        fd = next;
    }
    close(fd);
}

static void test_deep_nesting_is_removed(void **state)
{
    fixture_t *f = *state;
    asb_error_t err = {0};
    unsigned depths[] = {200, 5000};
    for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        make_chain(f->basefd, "tree", depths[i]);
        size_t before = open_fds();
        int rc = asb_rmtree_at(f->basefd, "tree", &err);
        if (rc != 0)
            fail_msg("depth %u: %s", depths[i], err.message);
        assert_int_equal(open_fds(), before);
        tree_gone(f);
        assert_int_equal(mkdirat(f->basefd, "tree", 0755), 0);
    }
}

static void test_names_with_newlines_and_escapes(void **state)
{
    fixture_t *f = *state;
    int tree = openat(f->basefd, "tree", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(tree >= 0);
    assert_int_equal(mkdirat(tree, "\n", 0755), 0);
    assert_int_equal(mkdirat(tree, "dir\nwith\nnewlines", 0755), 0);
    const char *files[] = {"a\nb", "\n/x\ny", "dir\nwith\nnewlines/\x1b[31mred", " ", "-rf"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        int fd = openat(tree, files[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);
    }
    /* A socket, too. */
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/tree/sock\n", f->base);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
    close(s);
    close(tree);
    asb_error_t err = {0};
    assert_int_equal(asb_rmtree_at(f->basefd, "tree", &err), 0);
    tree_gone(f);
}

static void test_rmtree_errors(void **state)
{
    fixture_t *f = *state;
    asb_error_t err = {0};
    assert_int_equal(asb_rmtree_at(f->basefd, "missing", &err), -ENOENT);
    assert_int_equal(asb_rmtree_at(f->basefd, "tree/..", &err), -EINVAL);
    assert_int_equal(asb_rmtree_at(f->basefd, "..", &err), -EINVAL);
    assert_int_equal(asb_rmtree_at(f->basefd, "", &err), -EINVAL);
    canary_intact(f);
}

static void test_mkdtemp_owned(void **state)
{
    fixture_t *f = *state;
    char path[256];
    int dirfd = -1;
    asb_error_t err = {0};
    mode_t old = umask(0);
    int rc = asb_mkdtemp_owned(f->base, "asb-x-", path, sizeof(path), &dirfd, &err);
    umask(old);
    assert_int_equal(rc, 0);
    assert_true(dirfd >= 0);
    char want[128];
    snprintf(want, sizeof(want), "%s/asb-x-", f->base);
    assert_memory_equal(path, want, strlen(want));
    assert_int_equal(strlen(path), strlen(want) + 16);
    struct stat st, by_path;
    assert_int_equal(fstat(dirfd, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(lstat(path, &by_path), 0);
    assert_int_equal(by_path.st_ino, st.st_ino);
    assert_true(fcntl(dirfd, F_GETFD) & FD_CLOEXEC);
    close(dirfd);

    /* Two calls, two directories. */
    char path2[256];
    assert_int_equal(asb_mkdtemp_owned(f->base, "asb-x-", path2, sizeof(path2), NULL, &err), 0);
    assert_string_not_equal(path, path2);

    /* Refusals create nothing. */
    char tiny[8];
    assert_int_equal(asb_mkdtemp_owned(f->base, "p", tiny, sizeof(tiny), &dirfd, &err),
                     -ENAMETOOLONG);
    assert_int_equal(dirfd, -1);
    assert_int_equal(asb_mkdtemp_owned(f->base, "a/b", path, sizeof(path), NULL, &err), -EINVAL);
    DIR *d = opendir(f->base);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 4); /* tree, host, and the two made above */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_symlinks_to_host_are_not_followed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_top_level_symlink_removes_only_the_link, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_zero_permission_dirs_are_removed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deep_nesting_is_removed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_with_newlines_and_escapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rmtree_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mkdtemp_owned, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
