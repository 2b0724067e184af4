/* test_chaos_parse.c - the harness's own parsers: DNS query names, /proc status lines, profile
 * column names. */
#include "chaos/beacon.h"
#include "chaos/runner.h"
#include "chaos/watch.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static void test_dns_qname(void **state)
{
    (void)state;
    unsigned char q[64] = {0x42, 0x42, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    size_t p = 12;
    const char *labels[] = {"abc123", "chaos", "invalid"};
    for (int i = 0; i < 3; i++) {
        q[p++] = (unsigned char)strlen(labels[i]);
        memcpy(q + p, labels[i], strlen(labels[i]));
        p += strlen(labels[i]);
    }
    q[p++] = 0;
    q[p++] = 0, q[p++] = 1, q[p++] = 0, q[p++] = 1;
    char name[128];
    size_t end;
    assert_int_equal(asb_chaos_dns_qname(q, p, name, sizeof(name), &end), 0);
    assert_string_equal(name, "abc123.chaos.invalid");
    assert_int_equal(end, p);
    /* Truncated, oversized label, too small a buffer: all refused. */
    assert_int_equal(asb_chaos_dns_qname(q, p - 3, name, sizeof(name), &end), -1);
    assert_int_equal(asb_chaos_dns_qname(q, 11, name, sizeof(name), &end), -1);
    assert_int_equal(asb_chaos_dns_qname(q, p, name, 8, &end), -1);
    q[12] = 0xc0; /* a compression pointer in a question */
    assert_int_equal(asb_chaos_dns_qname(q, p, name, sizeof(name), &end), -1);
}

static void test_watch_status(void **state)
{
    (void)state;
    asb_chaos_watch_t w;
    memset(&w, 0, sizeof(w));
    w.euid_seen = -1;
    asb_chaos_watch_status(&w,
                           "Name:\tpython3\nUid:\t1500000000\t1500000000\t1500000000\t1500000000\n"
                           "Threads:\t3\nCapEff:\t00000000a80425fb\n",
                           false);
    assert_false(w.host_root);
    assert_false(w.escalated);
    assert_int_equal(w.euid_seen, 1500000000L);
    assert_int_equal(w.cap_eff, 0xa80425fbull);
    assert_false(w.cap_in_host_userns);
    assert_int_equal(w.max_threads, 3);
    asb_chaos_watch_status(&w, "Name:\tsuidpy\nUid:\t65534\t0\t0\t0\nThreads:\t1\nCapEff:\t0\n",
                           true);
    assert_true(w.host_root);
    assert_true(w.escalated);
    assert_int_equal(w.esc_ruid, 65534);
    assert_int_equal(w.esc_euid, 0);
    /* euid 0 in a child user namespace is not host root. */
    asb_chaos_watch_t w2;
    memset(&w2, 0, sizeof(w2));
    asb_chaos_watch_status(&w2, "Name:\tx\nUid:\t0\t0\t0\t0\n", false);
    assert_false(w2.host_root);
}

/* Only the kernel's names for its objects count. The attack's own script is
 * io_uring_setup.py: while python reads it, /proc/PID/fd shows "/workspace/io_uring_setup.py",
 * and a substring match once called hardened's io_uring_setup `succeeded` (the program's own
 * output said io_uring_setup -> EPERM). A file's link is an absolute path, so no file name can
 * pass for an anon inode. */
static void test_kernel_fd_links(void **state)
{
    (void)state;
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:[io_uring]"), ASB_CHAOS_FD_IO_URING);
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:bpf-prog"), ASB_CHAOS_FD_BPF);
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:bpf-map"), ASB_CHAOS_FD_BPF);
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:[perf_event]"), ASB_CHAOS_FD_PERF_EVENT);
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:[userfaultfd]"),
                     ASB_CHAOS_FD_USERFAULTFD);
    assert_int_equal(asb_chaos_kernel_fd_kind("/workspace/io_uring_setup.py"), 0);
    assert_int_equal(asb_chaos_kernel_fd_kind("/work/attacks/io_uring_setup.py"), 0);
    assert_int_equal(asb_chaos_kernel_fd_kind("/workspace/anon_inode:bpf-prog"), 0);
    assert_int_equal(asb_chaos_kernel_fd_kind("/memfd:anon_inode:[perf_event] (deleted)"), 0);
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:[eventfd]"), 0);
    assert_int_equal(asb_chaos_kernel_fd_kind("anon_inode:[io_uring]x"), 0);
    assert_int_equal(asb_chaos_kernel_fd_kind(""), 0);
}

static void test_targets(void **state)
{
    (void)state;
    asb_chaos_target_t t;
    asb_error_t err;
    assert_int_equal(asb_chaos_target_parse("hardened", &t, &err), 0);
    assert_string_equal(t.backend, "native");
    assert_string_equal(t.profile, "hardened");
    assert_int_equal(asb_chaos_target_parse("docker-hardened", &t, &err), 0);
    assert_string_equal(t.backend, "docker");
    assert_string_equal(t.profile, "hardened");
    assert_string_equal(t.label, "docker-hardened");
    assert_int_equal(asb_chaos_target_parse("control", &t, &err), 0);
    assert_true(t.control);
    assert_true(asb_chaos_target_parse("docker-nope", &t, &err) < 0);
    assert_true(asb_chaos_target_parse("hardend", &t, &err) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns_qname),
        cmocka_unit_test(test_kernel_fd_links),
        cmocka_unit_test(test_watch_status),
        cmocka_unit_test(test_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
