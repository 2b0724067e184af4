/* ld_cache.c - may the host's dynamic loader cache be shown to the sandbox? (rootfs.c) */
#include "native/supervisor/sup.h"

#include <string.h>

/* Does every absolute path the loader cache names lie where the sandbox sees the host's files
 * anyway (/usr, and /lib* which lead there or are bound from the host)? A path here is a string
 * after a NUL: '/', printable bytes, another '/', NUL (the cache's binary fields hold stray '/'
 * bytes too). A cache that names /opt, /home or other host places would tell the sandbox about
 * them (red-team finding): then none is copied. */
bool sup_ld_cache_paths_visible(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != '/' || (i > 0 && buf[i - 1] != '\0'))
            continue;
        size_t j = i + 1;
        bool nested = false;
        while (j < len && buf[j] >= 0x20 && buf[j] < 0x7f)
            nested |= buf[j++] == '/';
        if (j == len || buf[j] != '\0' || !nested)
            continue; /* not a path string */
        const char *s = buf + i;
        if (strncmp(s, "/usr/", 5) != 0 && strncmp(s, "/lib", 4) != 0)
            return false;
    }
    return true;
}
