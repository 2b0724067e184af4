/* test_capture.c - the capped output buffer and draining a non-blocking fd into it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "io/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_exact_cap_is_not_truncated(void **state)
{
    (void)state;
    asb_capbuf_t b;
    asb_capbuf_init(&b, 10);
    assert_int_equal(asb_capbuf_append(&b, "0123456789", 10), 0);
    assert_int_equal(b.len, 10);
    assert_int_equal(b.total_seen, 10);
    assert_false(b.truncated);
    assert_true(b.cap_alloc <= 10);
    asb_bytes_t out;
    asb_capbuf_take(&b, &out);
    assert_int_equal(out.len, 10);
    assert_memory_equal(out.data, "0123456789", 10);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.total_seen, 10);
    free(out.data);
    asb_capbuf_free(&b);
}

static void test_cap_plus_one_is_truncated(void **state)
{
    (void)state;
    asb_capbuf_t b;
    asb_capbuf_init(&b, 10);
    assert_int_equal(asb_capbuf_append(&b, "0123456789X", 11), 0);
    assert_int_equal(b.len, 10);
    assert_int_equal(b.total_seen, 11);
    assert_true(b.truncated);
    assert_memory_equal(b.data, "0123456789", 10);
    /* Later appends are counted, never kept. */
    assert_int_equal(asb_capbuf_append(&b, "more", 4), 0);
    assert_int_equal(b.len, 10);
    assert_int_equal(b.total_seen, 15);
    assert_true(b.cap_alloc <= 10);
    asb_capbuf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.limit, 10);
    assert_int_equal(b.total_seen, 0);
}

static void test_many_small_appends(void **state)
{
    (void)state;
    const size_t limit = 4097, n = 10000;
    asb_capbuf_t b;
    asb_capbuf_init(&b, limit);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)(i * 31u);
        assert_int_equal(asb_capbuf_append(&b, &c, 1), 0);
        assert_true(b.cap_alloc <= limit);
        assert_int_equal(b.truncated, i + 1 > limit);
    }
    assert_int_equal(b.len, limit);
    assert_int_equal(b.total_seen, n);
    for (size_t i = 0; i < limit; i++)
        assert_int_equal(b.data[i], (unsigned char)(i * 31u));
    /* Append chunks that straddle the limit. */
    asb_capbuf_t c;
    asb_capbuf_init(&c, 100);
    for (int i = 0; i < 30; i++)
        assert_int_equal(asb_capbuf_append(&c, "abcdefg", 7), 0);
    assert_int_equal(c.len, 100);
    assert_int_equal(c.total_seen, 210);
    assert_memory_equal(c.data + 98, "ab", 2); /* 98 = 14 * 7 */
    asb_capbuf_free(&b);
    asb_capbuf_free(&c);
}

static void test_zero_limit(void **state)
{
    (void)state;
    asb_capbuf_t b;
    asb_capbuf_init(&b, 0);
    assert_int_equal(asb_capbuf_append(&b, "", 0), 0);
    assert_false(b.truncated);
    assert_int_equal(asb_capbuf_append(&b, "x", 1), 0);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap_alloc, 0);
    assert_int_equal(b.total_seen, 1);
    assert_true(b.truncated);
    asb_bytes_t out = {(unsigned char *)"sentinel", 99};
    asb_capbuf_take(&b, &out);
    assert_null(out.data);
    assert_int_equal(out.len, 0);
    asb_capbuf_free(&b);
}

static void test_drain_eagain_then_eof(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
    asb_capbuf_t b;
    asb_capbuf_init(&b, 8);
    asb_error_t err = {0};
    assert_int_equal(asb_capture_drain(p[0], &b, &err), 0); /* empty: EAGAIN */
    assert_int_equal(write(p[1], "hello, world", 12), 12);
    assert_int_equal(asb_capture_drain(p[0], &b, &err), 0);
    assert_int_equal(b.len, 8);
    assert_int_equal(b.total_seen, 12);
    assert_true(b.truncated);
    assert_memory_equal(b.data, "hello, w", 8);
    /* Past the limit the pipe is still emptied, so the writer never blocks on it. */
    char big[60000];
    memset(big, 'z', sizeof(big));
    assert_int_equal(write(p[1], big, sizeof(big)), (ssize_t)sizeof(big));
    close(p[1]);
    assert_int_equal(asb_capture_drain(p[0], &b, &err), 1);
    assert_int_equal(b.total_seen, 12 + sizeof(big));
    assert_int_equal(b.len, 8);
    close(p[0]);
    asb_capbuf_free(&b);

    assert_true(asb_capture_drain(-1, &b, &err) < 0);
    assert_int_equal(err.code, -EBADF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_cap_is_not_truncated),
        cmocka_unit_test(test_cap_plus_one_is_truncated),
        cmocka_unit_test(test_many_small_appends),
        cmocka_unit_test(test_zero_limit),
        cmocka_unit_test(test_drain_eagain_then_eof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
