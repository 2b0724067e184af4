/* ld_cache.c - may the host's dynamic loader cache be shown to the sandbox? (rootfs.c) */
#include "native/supervisor/sup.h"

#include <string.h>

/* The places the sandbox sees the host's files anyway: /usr, and the merged-/usr links (or, on
 * a host without merged /usr, the directories bound read-only from it). */
static bool visible_prefix(const char *s)
{
    static const char *const ok[] = {"/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (strncmp(s, ok[i], strlen(ok[i])) == 0)
            return true;
    return false;
}

/* Does every absolute path the loader cache names lie where the sandbox sees the host's files
 * anyway? A path here is a string after a NUL: '/', then any bytes but control characters (so
 * UTF-8 names count), another '/' among them, then a NUL; the cache's binary fields hold stray
 * '/' bytes too, and a stray one read as a path only makes us skip the cache. A cache that names
 * /opt, /home or other host places would tell the sandbox about them (red-team findings): then
 * none is copied. */
bool sup_ld_cache_paths_visible(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '/' || (i > 0 && buf[i - 1] != '\0'))
            continue;
        size_t j = i + 1;
        bool nested = false;
        while (j < len && (unsigned char)buf[j] >= 0x20 && buf[j] != 0x7f)
            nested |= buf[j++] == '/';
        if (j == len || buf[j] != '\0' || !nested)
            continue; /* not a path string */
        if (!visible_prefix(buf + i))
            return false;
    }
    return true;
}
