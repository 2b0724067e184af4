/* ld_cache.c - may the host's dynamic loader cache be shown to the sandbox? (rootfs.c) */
#include "native/supervisor/sup.h"

#include <stdint.h>
#include <string.h>

/* A "." or ".." component: "/usr/../opt/x" is not under /usr (ldconfig writes configured
 * directories as given; review finding). */
static bool dot_component(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '/' || i + 1 >= n || s[i + 1] != '.')
            continue;
        size_t j = i + 2;
        if (j < n && s[j] == '.')
            j++;
        if (j == n || s[j] == '/')
            return true;
    }
    return false;
}

/* The places the sandbox sees the host's files anyway: /usr, and the merged-/usr links (or, on
 * a host without merged /usr, the directories bound read-only from it). s: a path of n bytes
 * (its NUL not counted). */
static bool visible_path(const char *s, size_t n)
{
    static const struct {
        const char *p;
        size_t len;
    } ok[] = {{"/usr/", 5}, {"/lib/", 5}, {"/lib32/", 7}, {"/lib64/", 7}, {"/libx32/", 8}};
    if (dot_component(s, n))
        return false;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (n >= ok[i].len && memcmp(s, ok[i].p, ok[i].len) == 0)
            return true;
    return false;
}

/* Does every absolute path the loader cache names lie where the sandbox sees the host's files
 * anyway? A path here is a string after a NUL: '/', then any bytes but control characters (so
 * UTF-8 names count), another '/' among them, then a NUL; the cache's binary fields hold stray
 * '/' bytes too, and a stray one read as a path only makes us skip the cache. A cache that names
 * /opt, /home or other host places would tell the sandbox about them (red-team findings): then
 * none is copied. */
/* The cache's own entries (glibc's "glibc-ld.so.cache" format 1.1: a 48-byte header with the
 * entry count at offset 20, then 24-byte entries whose value, at offset 8, is the offset of the
 * library's path from the start of the file): every path must be a NUL-terminated string in the
 * file and lie where the sandbox sees it. Any other layout: not shown (false). */
static bool entries_visible(const char *buf, size_t len)
{
    static const char magic[] = "glibc-ld.so.cache1.1";
    if (len < 48 || memcmp(buf, magic, sizeof(magic) - 1) != 0)
        return false;
    uint32_t nlibs;
    memcpy(&nlibs, buf + 20, sizeof(nlibs));
    if (nlibs > (len - 48) / 24)
        return false;
    for (uint32_t i = 0; i < nlibs; i++) {
        uint32_t value;
        memcpy(&value, buf + 48 + (size_t)i * 24 + 8, sizeof(value));
        const char *nul = value < len ? memchr(buf + value, '\0', len - value) : NULL;
        if (!nul || !visible_path(buf + value, (size_t)(nul - (buf + value))))
            return false;
    }
    return true;
}

bool sup_ld_cache_paths_visible(const char *buf, size_t len)
{
    /* Both: the entries as the format defines them, and, in case the format holds more than we
     * know of, every other string in it that looks like a path. */
    if (!entries_visible(buf, len))
        return false;
    /* One pass, no calls (a loop over memchr took 0.12 ms of every run with musl): a
     * candidate starts with '/' at offset 0 or right after a NUL; it is a path when only
     * printable bytes and at least one more '/' follow up to its NUL. */
    size_t start = 0; /* where the current string began */
    bool cand = false, nested = false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\0') {
            if (cand && nested && !visible_path(buf + start, i - start))
                return false; /* a path the sandbox would not otherwise see */
            cand = false;
            start = i + 1;
        } else if (i == start) {
            cand = c == '/';
            nested = false;
        } else if (cand) {
            if (c < 0x20 || c == 0x7f)
                cand = false;
            else
                nested |= c == '/';
        }
    }
    return true;
}
