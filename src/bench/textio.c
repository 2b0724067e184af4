/* textio.c - whole-file reads of text, gzip-compressed (by its magic bytes, through zlib's
 * inflate) or plain. */
#include "bench/textio.h"
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* A full buffer of *alloc bytes (plus `extra` allocated past them) made larger: doubled, never
 * beyond cap + 1, so that one byte more than the cap still shows the input is too large. */
static int grow_buffer(void **buf, size_t *alloc, size_t extra, size_t cap, const char *path,
                       const char *what, asb_error_t *err)
{
    if (*alloc > cap)
        return asb_err(err, -EFBIG, "%s: larger than %zu bytes%s", path, cap, what);
    size_t grow = *alloc * 2 < cap + 1 ? *alloc * 2 : cap + 1;
    void *nb = realloc(*buf, grow + extra);
    if (!nb)
        return asb_err_sys(err, ENOMEM, "read %s", path);
    *buf = nb;
    *alloc = grow;
    return 0;
}

/* The whole regular file, at most cap bytes (O_NONBLOCK: opening a FIFO must not wait for a
 * writer before the type check refuses it; red-team finding: it hung the harness). */
static int read_raw(const char *path, size_t cap, unsigned char **data, size_t *len,
                    asb_error_t *err)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return asb_err_sys(err, errno, "open %s", path);
    struct stat st = {0};
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        close(fd);
        return S_ISREG(st.st_mode) ? asb_err_sys(err, e, "stat %s", path)
                                   : asb_err(err, -EINVAL, "%s: not a regular file", path);
    }
    size_t alloc = 65536, n = 0;
    unsigned char *buf = malloc(alloc);
    int rc = buf ? 0 : asb_err_sys(err, ENOMEM, "read %s", path);
    while (rc == 0) {
        if (n == alloc && (rc = grow_buffer((void **)&buf, &alloc, 0, cap, path, "", err)) < 0)
            break;
        ssize_t got = read(fd, buf + n, alloc - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = asb_err_sys(err, errno, "read %s", path);
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (rc == 0 && n > cap)
        rc = asb_err(err, -EFBIG, "%s: larger than %zu bytes", path, cap);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *len = n;
    return 0;
}

/* Every gzip member of raw[0..len), one after another, into *out (at most cap bytes). Anything
 * after the last member that is not another member is an error: zlib's gzread drops it
 * silently, so 10 tasks compressed with 10 more appended in plain text read as 10 (red-team
 * finding). A member cut short (no CRC and size trailer) is an error too. */
static int gunzip(const char *path, const unsigned char *raw, size_t len, size_t cap, char **out,
                  size_t *out_len, asb_error_t *err)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 16) != Z_OK) /* gzip wrapper only */
        return asb_err(err, -ENOMEM, "%s: zlib init failed", path);
    size_t alloc = 65536, n = 0;
    char *buf = malloc(alloc + 1);
    int rc = buf ? 0 : asb_err_sys(err, ENOMEM, "read %s", path);
    size_t pos = 0;
    while (rc == 0) {
        if (n == alloc &&
            (rc = grow_buffer((void **)&buf, &alloc, 1, cap, path, " uncompressed", err)) < 0)
            break;
        size_t in_chunk = len - pos > (1u << 30) ? 1u << 30 : len - pos;
        size_t out_chunk = alloc - n > (1u << 30) ? 1u << 30 : alloc - n;
        z.next_in = (unsigned char *)raw + pos;
        z.avail_in = (uInt)in_chunk;
        z.next_out = (unsigned char *)buf + n;
        z.avail_out = (uInt)out_chunk;
        int zr = inflate(&z, Z_NO_FLUSH);
        pos += in_chunk - z.avail_in;
        n += out_chunk - z.avail_out;
        if (zr == Z_STREAM_END) {
            if (pos == len)
                break;
            if (len - pos >= 2 && raw[pos] == 0x1f && raw[pos + 1] == 0x8b) {
                inflateReset(&z); /* the next member */
                continue;
            }
            rc = asb_err(err, -EINVAL, "%s: %zu bytes after the end of the gzip data", path,
                         len - pos);
        } else if (zr == Z_BUF_ERROR && pos == len && z.avail_out > 0) {
            rc = asb_err(err, -EIO, "read %s: the gzip data is cut short", path);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            rc = asb_err(err, -EIO, "read %s: %s", path, z.msg ? z.msg : "corrupt gzip data");
        }
    }
    inflateEnd(&z);
    if (rc == 0 && n > cap)
        rc = asb_err(err, -EFBIG, "%s: larger than %zu bytes uncompressed", path, cap);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = n;
    return 0;
}

int asb_bench_read_text(const char *path, size_t cap, char **text, size_t *len, asb_error_t *err)
{
    *text = NULL;
    *len = 0;
    unsigned char *raw;
    size_t raw_len;
    int rc = read_raw(path, cap, &raw, &raw_len, err);
    if (rc < 0)
        return rc;
    char *buf = NULL;
    size_t n = 0;
    if (raw_len >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
        rc = gunzip(path, raw, raw_len, cap, &buf, &n, err);
        free(raw);
        if (rc < 0)
            return rc;
    } else {
        buf = (char *)raw; /* plain text: room for the NUL below */
        n = raw_len;
        char *nb = realloc(buf, n + 1);
        if (!nb) {
            free(buf);
            return asb_err_sys(err, ENOMEM, "read %s", path);
        }
        buf = nb;
    }
    /* Text: a NUL would end every line-based reader early and silently drop the rest (a suite
     * of 164 tasks read as 2, a 100% pass rate; red-team finding). */
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        rc = asb_err(err, -EINVAL, "%s: a NUL byte at offset %zu (not a text file)", path,
                     (size_t)(nul - buf));
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

char *asb_bench_next_line(char **cursor)
{
    char *p = *cursor;
    if (!p || !*p)
        return NULL;
    char *nl = strchr(p, '\n');
    if (nl) {
        *nl = '\0';
        *cursor = nl + 1;
    } else {
        *cursor = p + strlen(p);
    }
    size_t l = strlen(p);
    if (l && p[l - 1] == '\r')
        p[l - 1] = '\0';
    return p;
}

int asb_bench_json_bounded(const char *text, size_t len, const char *where, asb_error_t *err)
{
    size_t values = 1, string_at = 0, token_len = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++; /* the escaped character, whatever it is */
            else if (c == '"')
                in_string = false;
            if (in_string && i - string_at > ASB_BENCH_MAX_JSON_STRING)
                return asb_err(err, -E2BIG, "%s: a string longer than %u bytes", where,
                               ASB_BENCH_MAX_JSON_STRING);
            continue;
        }
        if (c == '"') {
            in_string = true;
            string_at = i;
            token_len = 0;
        } else if (c == ',' || c == ':' || c == '[' || c == '{' || c == ']' || c == '}' ||
                   c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            token_len = 0;
            if ((c == ',' || c == ':' || c == '[' || c == '{') &&
                ++values > ASB_BENCH_MAX_JSON_VALUES)
                return asb_err(err, -E2BIG, "%s: more than %u JSON values", where,
                               ASB_BENCH_MAX_JSON_VALUES);
        } else if (++token_len > ASB_BENCH_MAX_JSON_STRING) {
            /* A number or a bare word: jansson copies those into a growing buffer too (review
             * finding: a 120 MiB number took 256 MB). */
            return asb_err(err, -E2BIG, "%s: a number or word longer than %u bytes", where,
                           ASB_BENCH_MAX_JSON_STRING);
        }
    }
    return 0;
}
