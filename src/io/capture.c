#include "io/capture.h"
#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* First allocation: most outputs are small; growth doubles from here up to the limit. */
#define CAPBUF_FIRST_ALLOC 4096
#define CAPTURE_READ_CHUNK 65536

void asb_capbuf_init(asb_capbuf_t *b, uint64_t limit)
{
    memset(b, 0, sizeof(*b));
    b->limit = limit;
}

/* Room for `need` bytes in total, never beyond the limit (need <= limit by the caller). */
static int capbuf_reserve(asb_capbuf_t *b, size_t need)
{
    if (need <= b->cap_alloc)
        return 0;
    size_t max = b->limit < (uint64_t)SIZE_MAX ? (size_t)b->limit : SIZE_MAX;
    size_t next = b->cap_alloc ? b->cap_alloc : CAPBUF_FIRST_ALLOC;
    while (next < need)
        next = next > SIZE_MAX / 2 ? SIZE_MAX : next * 2;
    if (next > max)
        next = max;
    unsigned char *grown = realloc(b->data, next);
    if (!grown)
        return -ENOMEM;
    b->data = grown;
    b->cap_alloc = next;
    return 0;
}

int asb_capbuf_append(asb_capbuf_t *b, const void *buf, size_t n)
{
    if (n == 0)
        return 0;
    b->total_seen = (uint64_t)n > UINT64_MAX - b->total_seen ? UINT64_MAX : b->total_seen + n;
    if (b->total_seen > b->limit)
        b->truncated = true;
    uint64_t room = b->limit > (uint64_t)b->len ? b->limit - b->len : 0;
    size_t keep = (uint64_t)n < room ? n : (size_t)room;
    if (keep == 0)
        return 0;
    if (capbuf_reserve(b, b->len + keep) < 0) {
        /* Freeze at what is kept: a later append must not splice bytes after a gap. */
        b->limit = b->len;
        b->truncated = true;
        return -ENOMEM;
    }
    memcpy(b->data + b->len, buf, keep);
    b->len += keep;
    return 0;
}

void asb_capbuf_take(asb_capbuf_t *b, asb_bytes_t *out)
{
    if (b->len == 0) {
        free(b->data);
        out->data = NULL;
    } else {
        /* Give back the slack of the doubling; a failed shrink keeps the larger block. */
        unsigned char *fit = realloc(b->data, b->len);
        if (fit)
            b->data = fit;
        out->data = b->data;
    }
    out->len = b->len;
    b->data = NULL;
    b->len = b->cap_alloc = 0;
}

void asb_capbuf_free(asb_capbuf_t *b)
{
    free(b->data);
    asb_capbuf_init(b, b->limit);
}

int asb_capture_drain(int fd, asb_capbuf_t *b, asb_error_t *err)
{
    /* On the heap: the library runs on its caller's threads, whose stacks may be 64 KiB (QA
     * finding: a 64 KiB chunk here and in file_in.c overflowed such a thread's stack). */
    unsigned char *chunk = malloc(CAPTURE_READ_CHUNK);
    if (!chunk)
        return asb_err_sys(err, ENOMEM, "capture: buffer");
    size_t budget = ASB_CAPTURE_DRAIN_BUDGET;
    int rc = 0;
    while (budget > 0) {
        size_t want = budget < CAPTURE_READ_CHUNK ? budget : CAPTURE_READ_CHUNK;
        ssize_t n = read(fd, chunk, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                rc = asb_err_sys(err, errno, "capture: read");
            break;
        }
        if (n == 0) {
            rc = 1;
            break;
        }
        /* Past the limit the bytes are still read (the writer must not block on a full pipe
         * while the harness decides to kill it) but only counted. */
        if (asb_capbuf_append(b, chunk, (size_t)n) < 0) {
            rc = asb_err_sys(err, ENOMEM, "capture: buffer");
            break;
        }
        budget -= (size_t)n;
    }
    free(chunk);
    return rc;
}
