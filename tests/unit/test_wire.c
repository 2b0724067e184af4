/* test_wire.c - the supervisor's record format (native/wire.h): round trips, the JSON bridge the
 * host uses, and that every malformed or truncated input is refused (no privileges). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "native/wire.h"
#include "native/wire_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void build_sample(asb_wire_buf_t *b)
{
    static const char *const argv[] = {"/usr/bin/python3", "-c", "print(1)", ""};
    asb_wire_put_str(b, "nonce", "abc123");
    asb_wire_put_int(b, "neg", -5);
    asb_wire_put_int(b, "big", INT64_MAX);
    asb_wire_put_bool(b, "yes", true);
    asb_wire_put_bool(b, "no", false);
    asb_wire_put_double(b, "cpu", 0.25);
    asb_wire_put_null(b, "code");
    asb_wire_put_strv(b, "argv", argv, 4);
    asb_wire_put_strv(b, "empty", NULL, 0);
    size_t h = asb_wire_begin_obj(b, "refused");
    asb_wire_put_str(b, "out.txt", "symlink refused");
    asb_wire_end_obj(b, h);
    asb_wire_put_str(b, "s0", "");
}

static void test_round_trip(void **state)
{
    (void)state;
    asb_wire_buf_t b = {0};
    build_sample(&b);
    assert_true(asb_wire_ok(&b));
    assert_int_equal(asb_wire_check(b.data, b.len), 0);
    assert_int_equal(asb_wire_count(b.data, b.len), 11);
    char *s = NULL;
    assert_int_equal(asb_wire_get_str(b.data, b.len, "nonce", &s), 0);
    assert_string_equal(s, "abc123");
    free(s);
    assert_int_equal(asb_wire_get_str(b.data, b.len, "s0", &s), 0);
    assert_string_equal(s, "");
    free(s);
    int64_t i;
    assert_int_equal(asb_wire_get_int(b.data, b.len, "neg", &i), 0);
    assert_int_equal(i, -5);
    assert_int_equal(asb_wire_get_int(b.data, b.len, "big", &i), 0);
    assert_true(i == INT64_MAX);
    bool v = false;
    assert_int_equal(asb_wire_get_bool(b.data, b.len, "yes", &v), 0);
    assert_true(v);
    assert_int_equal(asb_wire_get_bool(b.data, b.len, "no", &v), 0);
    assert_false(v);
    double d = 0;
    assert_int_equal(asb_wire_get_double(b.data, b.len, "cpu", &d), 0);
    assert_true(d == 0.25);
    char **sv = NULL;
    size_t n = 99;
    assert_int_equal(asb_wire_get_strv(b.data, b.len, "argv", &sv, &n), 0);
    assert_int_equal(n, 4);
    assert_string_equal(sv[0], "/usr/bin/python3");
    assert_string_equal(sv[2], "print(1)");
    assert_string_equal(sv[3], "");
    assert_null(sv[4]);
    asb_wire_strv_free(sv);
    assert_int_equal(asb_wire_get_strv(b.data, b.len, "empty", &sv, &n), 0);
    assert_int_equal(n, 0);
    assert_null(sv[0]);
    asb_wire_strv_free(sv);
    /* Absent and wrong-typed keys are told apart, and neither yields a value. */
    assert_int_equal(asb_wire_get_int(b.data, b.len, "absent", &i), -ENOENT);
    assert_int_equal(asb_wire_get_int(b.data, b.len, "nonce", &i), -EINVAL);
    assert_int_equal(asb_wire_get_str(b.data, b.len, "code", &s), -EINVAL);
    asb_wire_rec_t r;
    assert_int_equal(asb_wire_find(b.data, b.len, "refused", ASB_WIRE_OBJ, &r), 0);
    assert_int_equal(asb_wire_get_str(r.val, r.vlen, "out.txt", &s), 0);
    assert_string_equal(s, "symlink refused");
    free(s);
    asb_wire_free(&b);
}

static void test_json_bridge(void **state)
{
    (void)state;
    asb_wire_buf_t b = {0};
    build_sample(&b);
    json_t *o = asb_wire_to_json(b.data, b.len);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "nonce")), "abc123");
    assert_int_equal(json_integer_value(json_object_get(o, "neg")), -5);
    assert_true(json_is_true(json_object_get(o, "yes")));
    assert_true(json_is_false(json_object_get(o, "no")));
    assert_true(json_real_value(json_object_get(o, "cpu")) == 0.25);
    assert_true(json_is_null(json_object_get(o, "code")));
    assert_int_equal(json_array_size(json_object_get(o, "argv")), 4);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(o, "refused"), "out.txt")),
        "symlink refused");
    /* And back: the same message, compared as JSON (record order may differ). */
    asb_wire_buf_t b2 = {0};
    asb_wire_from_json(&b2, o);
    assert_true(asb_wire_ok(&b2));
    json_t *o2 = asb_wire_to_json(b2.data, b2.len);
    assert_true(json_equal(o, o2));
    json_decref(o2);
    json_decref(o);
    asb_wire_free(&b2);
    asb_wire_free(&b);

    /* What the format cannot carry fails the encoder rather than being dropped. */
    const char *bad[] = {"{\"a\": [1]}", "{\"a\": [[\"x\"]]}", "{\"a\": \"x\\u0000y\"}", "[1]"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        json_t *j = json_loads(bad[k], JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL);
        assert_non_null(j);
        asb_wire_buf_t w = {0};
        asb_wire_from_json(&w, j);
        assert_false(asb_wire_ok(&w));
        asb_wire_free(&w);
        json_decref(j);
    }
}

static void test_truncated(void **state)
{
    (void)state;
    asb_wire_buf_t b = {0};
    build_sample(&b);
    /* Every proper prefix that does not end on a record boundary is refused. */
    size_t bounds[32], nb = 0, off = 0;
    asb_wire_rec_t r;
    bounds[nb++] = 0;
    while (asb_wire_next(b.data, b.len, &off, &r) == 1)
        bounds[nb++] = off;
    for (size_t len = 0; len < b.len; len++) {
        bool boundary = false;
        for (size_t k = 0; k < nb; k++)
            boundary |= bounds[k] == len;
        uint8_t *copy = malloc(len + 1); /* exact size: ASan sees any read past the end */
        memcpy(copy, b.data, len);
        assert_int_equal(asb_wire_check(copy, len), boundary ? 0 : -EINVAL);
        json_t *o = asb_wire_to_json(copy, len);
        assert_true(boundary ? o != NULL : o == NULL);
        json_decref(o);
        free(copy);
    }
    asb_wire_free(&b);
}

/* One record by hand: tag, key, declared value length, value bytes. */
static size_t rec(uint8_t *p, int tag, const char *key, uint32_t vlen, const void *val, size_t n)
{
    size_t k = strlen(key);
    p[0] = (uint8_t)tag, p[1] = (uint8_t)k;
    memcpy(p + 2, key, k);
    p[2 + k] = (uint8_t)vlen, p[3 + k] = (uint8_t)(vlen >> 8), p[4 + k] = (uint8_t)(vlen >> 16),
          p[5 + k] = (uint8_t)(vlen >> 24);
    if (n)
        memcpy(p + 6 + k, val, n);
    return 6 + k + n;
}

static void test_malformed(void **state)
{
    (void)state;
    uint8_t m[256];
    size_t n;
    static const uint8_t two[] = {2}, eight[8] = {0}, nul_str[] = {'a', 0, 'b'};
    /* bool other than 0/1 */
    n = rec(m, 'b', "x", 1, two, 1);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* int of the wrong width */
    n = rec(m, 'i', "x", 4, eight, 4);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* null with a value */
    n = rec(m, 'n', "x", 1, two, 1);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* a NaN double (JSON has none) */
    static const uint8_t nan_bits[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
    n = rec(m, 'd', "x", 8, nan_bits, 8);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* unknown tag */
    n = rec(m, 'z', "x", 0, NULL, 0);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* NUL inside a string */
    n = rec(m, 's', "x", 3, nul_str, 3);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* text that is not UTF-8 (jansson on the host takes nothing else): in a value, a key, an
     * array element; overlong and surrogate forms too. Valid multi-byte text passes. */
    static const uint8_t bad_utf8[][3] = {{0xf6, 'a', 'a'}, {0xc0, 0x80, 'a'}, {0xed, 0xa0, 0x80}};
    for (size_t k = 0; k < 3; k++) {
        n = rec(m, 's', "x", 3, bad_utf8[k], 3);
        assert_int_equal(asb_wire_check(m, n), -EINVAL);
    }
    n = rec(m, 's', "\xf6", 0, NULL, 0);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    static const uint8_t arr_bad[] = {1, 0, 0, 0, 0xff};
    n = rec(m, 'a', "v", sizeof(arr_bad), arr_bad, sizeof(arr_bad));
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    n = rec(m, 's', "x", 6, "\xc3\xa9\xe2\x82\xac", 5);
    assert_int_equal(asb_wire_check(m, n), -EINVAL); /* declared 6, 5 present */
    n = rec(m, 's', "x", 5, "\xc3\xa9\xe2\x82\xac", 5);
    assert_int_equal(asb_wire_check(m, n), 0);
    /* declared length beyond the end (and near UINT32_MAX) */
    n = rec(m, 's', "x", 4, "abc", 3);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    n = rec(m, 's', "x", UINT32_MAX, "abc", 3);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* empty key */
    m[0] = 's', m[1] = 0, m[2] = m[3] = m[4] = m[5] = 0, m[6] = 0;
    assert_int_equal(asb_wire_check(m, 7), -EINVAL);
    /* duplicate key: the second one must not silently win or lose */
    n = rec(m, 'i', "uid", 8, eight, 8);
    n += rec(m + n, 'i', "uid", 8, eight, 8);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* string array: an element longer than the value, an element with a NUL */
    static const uint8_t arr_long[] = {5, 0, 0, 0, 'a', 'b'};
    n = rec(m, 'a', "v", sizeof(arr_long), arr_long, sizeof(arr_long));
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    static const uint8_t arr_nul[] = {2, 0, 0, 0, 'a', 0};
    n = rec(m, 'a', "v", sizeof(arr_nul), arr_nul, sizeof(arr_nul));
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    static const uint8_t arr_short[] = {1, 0, 0};
    n = rec(m, 'a', "v", sizeof(arr_short), arr_short, sizeof(arr_short));
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* a malformed nested object is malformed */
    uint8_t inner[32];
    size_t ni = rec(inner, 'b', "x", 1, two, 1);
    n = rec(m, 'o', "o", (uint32_t)ni, inner, ni);
    assert_int_equal(asb_wire_check(m, n), -EINVAL);
    /* nesting deeper than ASB_WIRE_MAX_DEPTH */
    asb_wire_buf_t b = {0};
    size_t h[ASB_WIRE_MAX_DEPTH + 1];
    for (int k = 0; k <= ASB_WIRE_MAX_DEPTH; k++)
        h[k] = asb_wire_begin_obj(&b, "o");
    for (int k = ASB_WIRE_MAX_DEPTH; k >= 0; k--)
        asb_wire_end_obj(&b, h[k]);
    assert_true(asb_wire_ok(&b));
    assert_int_equal(asb_wire_check(b.data, b.len), -EINVAL);
    asb_wire_free(&b);
    /* the empty message is well-formed, has nothing in it, and encodes (found by fuzz_wire) */
    assert_int_equal(asb_wire_check(NULL, 0), 0);
    assert_int_equal(asb_wire_count(NULL, 0), 0);
    json_t *empty = asb_wire_to_json(NULL, 0);
    assert_non_null(empty);
    assert_int_equal(json_object_size(empty), 0);
    asb_wire_buf_t e = {0};
    asb_wire_from_json(&e, empty);
    assert_true(asb_wire_ok(&e));
    assert_int_equal(e.len, 0);
    json_decref(empty);
}

static void test_encoder_limits(void **state)
{
    (void)state;
    /* A fixed buffer too small fails instead of writing past it. */
    uint8_t small[16];
    asb_wire_buf_t b;
    asb_wire_init_fixed(&b, small, sizeof(small));
    asb_wire_put_str(&b, "type", "abc");
    assert_true(asb_wire_ok(&b));
    asb_wire_put_str(&b, "nonce", "0123456789");
    assert_false(asb_wire_ok(&b));
    /* keys: empty and over 255 bytes are refused */
    asb_wire_buf_t g = {0};
    asb_wire_put_int(&g, "", 1);
    assert_false(asb_wire_ok(&g));
    asb_wire_free(&g);
    char key[300];
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    asb_wire_put_int(&g, key, 1);
    assert_false(asb_wire_ok(&g));
    asb_wire_free(&g);
    /* a NULL among the n strings asked for */
    const char *v[] = {"a", NULL, "c"};
    asb_wire_put_strv(&g, "v", v, 3);
    assert_false(asb_wire_ok(&g));
    asb_wire_free(&g);
    /* put_raw refuses what does not check */
    static const uint8_t junk[] = {'s', 1, 'x', 9, 0, 0, 0};
    asb_wire_put_raw(&g, junk, sizeof(junk));
    assert_false(asb_wire_ok(&g));
    asb_wire_free(&g);
}

static void test_hex(void **state)
{
    (void)state;
    static const uint8_t data[] = {0, 1, 0xab, 0xff, 's'};
    char *h = asb_wire_hex(data, sizeof(data));
    assert_string_equal(h, "0001abff73");
    uint8_t *back = NULL;
    size_t n = 0;
    assert_int_equal(asb_wire_unhex(h, &back, &n), 0);
    assert_int_equal(n, sizeof(data));
    assert_memory_equal(back, data, n);
    free(back);
    free(h);
    assert_int_equal(asb_wire_unhex("ABcd", &back, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(back[0], 0xab);
    free(back);
    assert_int_equal(asb_wire_unhex("abc", &back, &n), -EINVAL);
    assert_int_equal(asb_wire_unhex("zz", &back, &n), -EINVAL);
    assert_int_equal(asb_wire_unhex("{\"a\":1}", &back, &n), -EINVAL);
    assert_int_equal(asb_wire_unhex(NULL, &back, &n), -EINVAL);
    assert_int_equal(asb_wire_unhex("", &back, &n), 0);
    assert_int_equal(n, 0);
    free(back);
}

/* Text for people goes through whatever was cut to fit a buffer: put_str refuses the whole
 * message for a string that ends inside a character, put_text sends '?' for each stray byte and
 * the rest unchanged. */
static void test_text_cut_inside_a_character(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"exec /\xc3\xa9\xc3", "exec /\xc3\xa9?"},      /* cut after the lead byte */
        {"a\xe2\x82", "a??"},                           /* cut 3-byte character */
        {"\xf0\x9f\x98\x80 ok", "\xf0\x9f\x98\x80 ok"}, /* a whole 4-byte one stays */
        {"\x80x\xff\xc0\xaf", "?x???"},                 /* stray, invalid, overlong */
        {"\xed\xa0\x80", "???"},                        /* a surrogate */
        {"plain", "plain"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        asb_wire_buf_t b = {0};
        asb_wire_put_text(&b, "message", cases[i].in);
        assert_true(asb_wire_ok(&b));
        assert_int_equal(asb_wire_check(b.data, b.len), 0);
        char *s = NULL;
        assert_int_equal(asb_wire_get_str(b.data, b.len, "message", &s), 0);
        assert_string_equal(s, cases[i].want);
        free(s);
        asb_wire_free(&b);
    }
    asb_wire_buf_t b = {0};
    asb_wire_put_str(&b, "message", "exec /\xc3\xa9\xc3");
    assert_int_not_equal(asb_wire_check(b.data, b.len), 0);
    asb_wire_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_json_bridge),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_encoder_limits),
        cmocka_unit_test(test_hex),
        cmocka_unit_test(test_text_cut_inside_a_character),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
