/* test_ld_cache.c - the loader cache is shown to a sandbox only when every path it names is one
 * the sandbox sees anyway (src/native/supervisor/ld_cache.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "native/supervisor/ld_cache.c"

#include <stdio.h>
#include <stdlib.h>

/* A cache in glibc's format 1.1: header, one entry per path (key = value = the path's offset),
 * then the strings; a stray '/' byte in the hwcap field of each entry, as real caches have. */
static size_t build(char *buf, size_t size, const char *const *strs, size_t n)
{
    memset(buf, 0, size);
    memcpy(buf, "glibc-ld.so.cache1.1", 20);
    uint32_t nlibs = (uint32_t)n;
    memcpy(buf + 20, &nlibs, 4);
    size_t str = 48 + n * 24;
    for (size_t i = 0; i < n; i++) {
        char *e = buf + 48 + i * 24;
        uint32_t off = (uint32_t)str;
        memcpy(e + 4, &off, 4);
        memcpy(e + 8, &off, 4);
        e[16] = '/';
        size_t l = strlen(strs[i]) + 1;
        assert_true(str + l <= size);
        memcpy(buf + str, strs[i], l);
        str += l;
    }
    return str;
}

static void test_usr_and_lib_only(void **state)
{
    (void)state;
    char buf[512];
    const char *ok[] = {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                        "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13",
                        "/lib64/ld-linux-x86-64.so.2"};
    assert_true(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), ok, 4)));
}

static void test_other_places_refused(void **state)
{
    (void)state;
    char buf[512];
    const char *opt[] = {"/usr/lib/x86_64-linux-gnu/libm.so.6", "/opt/vendor/lib/libsecret.so.1"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), opt, 2)));
    const char *home[] = {"/home/alice/.local/lib/libx.so"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), home, 1)));
    /* "/usrx/..." is not under /usr/, "/libsecret-host/..." not under /lib/ */
    const char *near[] = {"/usrx/lib/liby.so"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), near, 1)));
    const char *libx[] = {"/libsecret-host/lib/libz.so"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), libx, 1)));
    /* "." and ".." components lead out of /usr (review finding); "..." and ".x" do not. */
    const char *dots[] = {"/usr/../opt/secret/libx.so"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), dots, 1)));
    const char *dot[] = {"/lib/./../home/a/liby.so"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), dot, 1)));
    const char *tail[] = {"/usr/lib/.."};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), tail, 1)));
    const char *fine[] = {"/usr/lib/.../libz.so", "/usr/lib/.hidden/libw.so"};
    assert_true(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), fine, 2)));
    /* Non-ASCII names are path bytes too (red-team bypass). */
    const char *utf8[] = {"/opt/caf\xc3\xa9/libsecret.so"};
    assert_false(sup_ld_cache_paths_visible(buf, build(buf, sizeof(buf), utf8, 1)));
}

/* Strings the entries do not point at (a format extension we do not know) are judged too: a
 * path anywhere after a NUL, also after several NULs, is refused unless visible; bytes that only
 * look like the start of a path (one '/', or control bytes) are not paths. */
static void test_strings_beyond_entries(void **state)
{
    (void)state;
    char buf[512];
    const char *ok[] = {"/usr/lib/x86_64-linux-gnu/libm.so.6"};
    size_t len = build(buf, sizeof(buf), ok, 1);
    static const char hidden[] = "\0\0\0/opt/hidden/lib/libq.so";
    memcpy(buf + len, hidden, sizeof(hidden)); /* with its NUL */
    assert_false(sup_ld_cache_paths_visible(buf, len + sizeof(hidden)));
    static const char one[] = "/opt/hidden/lib/libq.so";
    memcpy(buf + len, one, sizeof(one)); /* right after the last entry's NUL */
    assert_false(sup_ld_cache_paths_visible(buf, len + sizeof(one)));
    assert_true(sup_ld_cache_paths_visible(buf, len + sizeof(one) - 1)); /* no NUL: no string */
    static const char notpath[] = "/x\0/opt\x01/y/z\0/usr/lib/w.so";
    memcpy(buf + len, notpath, sizeof(notpath));
    assert_true(sup_ld_cache_paths_visible(buf, len + sizeof(notpath)));
}

static void test_unknown_format_refused(void **state)
{
    (void)state;
    char buf[512];
    const char *ok[] = {"/usr/lib/x86_64-linux-gnu/libm.so.6"};
    size_t len = build(buf, sizeof(buf), ok, 1);
    assert_true(sup_ld_cache_paths_visible(buf, len));
    buf[0] = 'X'; /* another magic: we do not know what it names */
    assert_false(sup_ld_cache_paths_visible(buf, len));
    buf[0] = 'g';
    uint32_t huge = 1000000;
    memcpy(buf + 20, &huge, 4); /* more entries than the file holds */
    assert_false(sup_ld_cache_paths_visible(buf, len));
    uint32_t one = 1, past = (uint32_t)len + 5;
    memcpy(buf + 20, &one, 4);
    memcpy(buf + 48 + 8, &past, 4); /* a path offset past the end */
    assert_false(sup_ld_cache_paths_visible(buf, len));
    assert_false(sup_ld_cache_paths_visible(buf, 10)); /* shorter than a header */
}

static void test_real_cache_if_present(void **state)
{
    (void)state;
    FILE *f = fopen("/etc/ld.so.cache", "rb");
    if (!f) {
        printf("SKIP: no /etc/ld.so.cache on this host\n");
        return;
    }
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    size_t len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    /* Whatever the verdict, it must not crash or read past the end (ASan run). */
    (void)sup_ld_cache_paths_visible(buf, len);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usr_and_lib_only),
        cmocka_unit_test(test_other_places_refused),
        cmocka_unit_test(test_strings_beyond_entries),
        cmocka_unit_test(test_unknown_format_refused),
        cmocka_unit_test(test_real_cache_if_present),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
