/* test_fdpass.c - messages with fds (src/native/fdpass.c): what arrives, and that no received fd
 * is ever left open when the message is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "native/fdpass.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static void test_roundtrip(void **state)
{
    (void)state;
    int sv[2], fds[3], got[4];
    pair(sv);
    for (int i = 0; i < 3; i++)
        fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    assert_int_equal(asb_fd_send(sv[0], "job", 3, fds, 3), 0);
    char buf[16];
    size_t n = 99;
    assert_int_equal(asb_fd_recv(sv[1], buf, sizeof(buf), 0, got, 4, &n), 3);
    assert_int_equal(n, 3);
    assert_memory_equal(buf, "job", 3);
    for (int i = 0; i < 3; i++) {
        assert_true(fcntl(got[i], F_GETFD) & FD_CLOEXEC);
        close(got[i]);
        close(fds[i]);
    }
    close(sv[0]), close(sv[1]);
}

static void test_refusals_keep_no_fd(void **state)
{
    (void)state;
    int sv[2], fds[3], got[4];
    pair(sv);
    for (int i = 0; i < 3; i++)
        fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int before = open_fds();
    char buf[16];
    size_t n = 99;
    /* More fds than wanted. */
    assert_int_equal(asb_fd_send(sv[0], "x", 1, fds, 3), 0);
    assert_int_equal(asb_fd_recv(sv[1], buf, sizeof(buf), 0, got, 2, &n), -EMSGSIZE);
    assert_int_equal(n, 0);
    /* A message longer than the buffer. */
    assert_int_equal(asb_fd_send(sv[0], "0123456789abcdef0123", 20, fds, 2), 0);
    assert_int_equal(asb_fd_recv(sv[1], buf, 8, 0, got, 4, &n), -EMSGSIZE);
    /* An empty message with fds: read as "peer gone", no fd kept. */
    assert_int_equal(asb_fd_send(sv[0], "", 0, fds, 2), 0);
    assert_int_equal(asb_fd_recv(sv[1], buf, sizeof(buf), 0, got, 4, &n), 0);
    assert_int_equal(n, 0);
    /* Nothing waiting, non-blocking. */
    assert_int_equal(asb_fd_recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT, got, 4, &n), -EAGAIN);
    assert_int_equal(open_fds(), before);
    /* Too many to send at all. */
    int many[ASB_FDPASS_MAX + 1];
    for (int i = 0; i <= ASB_FDPASS_MAX; i++)
        many[i] = fds[0];
    assert_int_equal(asb_fd_send(sv[0], "x", 1, many, ASB_FDPASS_MAX + 1), -E2BIG);
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    close(sv[0]), close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_refusals_keep_no_fd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
