/* fuzz_ld_cache.c - the loader-cache filter (src/native/supervisor/ld_cache.c) reads only the
 * bytes it is given, whatever they are, and says what a plain reference reading of its rule says:
 * the format's entries all visible, and every NUL-terminated printable string that starts with
 * '/' (at offset 0 or after a NUL) and holds another '/' under a visible prefix, with no "." or
 * ".." component. */
#include "native/supervisor/ld_cache.c"

#include <stdio.h>
#include <stdlib.h>

static bool ref_prefix(const char *s, size_t n)
{
    /* No "." or ".." component anywhere: split on '/' and look at each piece. */
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && s[b] != '/')
            b++;
        size_t l = b - a;
        if ((l == 1 && s[a] == '.') || (l == 2 && s[a] == '.' && s[a + 1] == '.'))
            return false;
        a = b + 1;
    }
    static const char *const ok[] = {"/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (n >= strlen(ok[i]) && memcmp(s, ok[i], strlen(ok[i])) == 0)
            return true;
    return false;
}

static bool ref_strings(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '/' || (i > 0 && buf[i - 1] != '\0'))
            continue;
        size_t j = i + 1;
        bool nested = false;
        while (j < len && (unsigned char)buf[j] >= 0x20 && buf[j] != 0x7f)
            nested |= buf[j++] == '/';
        if (j < len && buf[j] == '\0' && nested && !ref_prefix(buf + i, j - i))
            return false;
    }
    return true;
}

static bool ref_entries(const char *buf, size_t len)
{
    if (len < 48 || memcmp(buf, "glibc-ld.so.cache1.1", 20) != 0)
        return false;
    uint32_t nlibs;
    memcpy(&nlibs, buf + 20, 4);
    if ((uint64_t)nlibs * 24 > len - 48)
        return false;
    for (uint32_t i = 0; i < nlibs; i++) {
        uint32_t v;
        memcpy(&v, buf + 48 + (size_t)i * 24 + 8, 4);
        size_t e = v;
        while (e < len && buf[e] != '\0')
            e++;
        if (v >= len || e == len || !ref_prefix(buf + v, e - v))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy: ASan sees any read past the end. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    bool got = sup_ld_cache_paths_visible(buf, size);
    bool want = ref_entries(buf, size) && ref_strings(buf, size);
    if (got != want) {
        fprintf(stderr, "fuzz_ld_cache: filter says %d, reference says %d\n", got, want);
        abort();
    }
    free(buf);
    return 0;
}
