#include "io/printable.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

const char *asb_printable(const char *in, char *out, size_t out_len)
{
    if (!out || out_len == 0)
        return "";
    if (!in)
        in = "(null)";
    size_t n = strlen(in), o = 0;
    bool cut = n >= out_len;
    size_t keep = cut ? (out_len > 4 ? out_len - 4 : 0) : n;
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)in[i];
        out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (cut)
        for (size_t i = 0; i < 3 && o + 1 < out_len; i++)
            out[o++] = '.';
    out[o] = '\0';
    return out;
}

const char *asb_file_type_name(mode_t mode)
{
    if (S_ISREG(mode))
        return "regular file";
    if (S_ISDIR(mode))
        return "directory";
    if (S_ISFIFO(mode))
        return "fifo";
    if (S_ISCHR(mode))
        return "character device";
    if (S_ISBLK(mode))
        return "block device";
    if (S_ISSOCK(mode))
        return "socket";
    if (S_ISLNK(mode))
        return "symlink";
    return "unknown type";
}
