/* textio.h - reading suite, sample and submission files, gzip-compressed or not. */
#ifndef ASB_BENCH_TEXTIO_H
#define ASB_BENCH_TEXTIO_H

#include "agent_sandbox.h"

#include <stddef.h>

/* Read a whole regular file into a NUL-terminated malloc'd buffer, decompressing it when it is
 * gzip (detected by zlib from the magic bytes, whatever the name). Fails with -EFBIG past cap
 * bytes of (decompressed) text. */
int asb_bench_read_text(const char *path, size_t cap, char **text, size_t *len, asb_error_t *err);

/* Iterate the lines of text in place: returns the next line (its '\n' replaced by NUL, a trailing
 * '\r' dropped) and advances *cursor, or NULL at the end. */
char *asb_bench_next_line(char **cursor);

#endif
