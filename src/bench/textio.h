/* textio.h - reading suite, sample and submission files, gzip-compressed or not. */
#ifndef ASB_BENCH_TEXTIO_H
#define ASB_BENCH_TEXTIO_H

#include "agent_sandbox.h"

#include <stddef.h>

/* About 200 MB of jansson values at most: a HumanEval problem is 6, a suite task up to about 40,
 * so ASB_BENCH_MAX_TASKS tasks fit (review finding: 2^20 refused a 40,000-task suite). */
#define ASB_BENCH_MAX_JSON_VALUES (1u << 21)
/* Raw bytes of one JSON string: no field may exceed ASB_BENCH_MAX_SOURCE once decoded, and an
 * escape takes at most 6 bytes per byte it stands for. jansson holds a long string about three
 * times while it reads it (review finding: one 250 MiB completion peaked at 770 MB). */
#define ASB_BENCH_MAX_JSON_STRING (6u * (1u << 20) + 64u)

/* Read a whole regular file into a NUL-terminated malloc'd buffer, decompressing it when it is
 * gzip (detected by zlib from the magic bytes, whatever the name). Fails with -EFBIG past cap
 * bytes of (decompressed) text. */
int asb_bench_read_text(const char *path, size_t cap, char **text, size_t *len, asb_error_t *err);

/* Iterate the lines of text in place: returns the next line (its '\n' replaced by NUL, a trailing
 * '\r' dropped) and advances *cursor, or NULL at the end. */
char *asb_bench_next_line(char **cursor);

/* At most ASB_BENCH_MAX_JSON_VALUES values in text[0..len), counted without parsing (a value can
 * begin only at the start and after '[', '{', ',' or ':' outside strings), and no string longer
 * than ASB_BENCH_MAX_JSON_STRING raw bytes, so that a document is refused before jansson builds it:
 * jansson spends 50-100 bytes on each 2-byte element
 * ("0,"), and a 255 MiB suite of zeros took 5.5 GB of memory and 42 s (QA finding). `where`
 * names the input in the error. */
int asb_bench_json_bounded(const char *text, size_t len, const char *where, asb_error_t *err);

#endif
