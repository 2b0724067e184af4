/* capture.h - a capped output buffer: the first `limit` bytes of a stream, and a count of the rest.
 * A workload can write without end; the harness's memory must not grow with it. */
#ifndef ASB_IO_CAPTURE_H
#define ASB_IO_CAPTURE_H

#include "agent_sandbox.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes asb_capture_drain reads per call at most, so a workload writing faster than the harness
 * reads cannot keep the caller's event loop (and its deadline checks) from running. */
#define ASB_CAPTURE_DRAIN_BUDGET ((size_t)1024 * 1024)

typedef struct asb_capbuf {
    unsigned char *data; /* the first min(total_seen, limit) bytes */
    size_t len, cap_alloc;
    uint64_t limit;
    uint64_t total_seen; /* every byte appended, kept or not (saturates at UINT64_MAX) */
    bool truncated;      /* total_seen > limit */
} asb_capbuf_t;

/* An empty buffer keeping at most limit bytes. Allocates nothing. */
void asb_capbuf_init(asb_capbuf_t *b, uint64_t limit);

/* Account n bytes; keep those that still fit under the limit. Returns 0 or -ENOMEM; then the
 * buffer is frozen (limit lowered to len, truncated set) so the kept bytes stay an exact prefix,
 * and the bytes are still counted in total_seen. */
int asb_capbuf_append(asb_capbuf_t *b, const void *buf, size_t n);

/* Move the kept bytes to *out (out->data malloc'd, NULL when len is 0). The buffer is left
 * empty; total_seen and truncated still describe the stream. */
void asb_capbuf_take(asb_capbuf_t *b, asb_bytes_t *out);

/* Release the kept bytes and reset everything but the limit. */
void asb_capbuf_free(asb_capbuf_t *b);

/* Read the non-blocking fd into b until EAGAIN, EOF, or ASB_CAPTURE_DRAIN_BUDGET bytes. Returns
 * 1 at EOF, 0 when the fd may be read again later (use level-triggered poll: a budget stop leaves
 * data pending), or a negative code with err filled. */
int asb_capture_drain(int fd, asb_capbuf_t *b, asb_error_t *err);

#endif
