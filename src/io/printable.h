/* printable.h - hostile names and file types put into error messages and log lines. */
#ifndef ASB_IO_PRINTABLE_H
#define ASB_IO_PRINTABLE_H

#include <stddef.h>
#include <sys/types.h>

/* Copy in to out (size out_len > 0), replacing control bytes (< 0x20, 0x7f) with '?' and ending
 * with "..." when it does not fit. A workload names its files; a newline or an escape sequence in
 * a name must not forge log lines or drive the operator's terminal. Returns out. */
const char *asb_printable(const char *in, char *out, size_t out_len);

/* "fifo", "directory", "character device", ... for an st_mode. */
const char *asb_file_type_name(mode_t mode);

#endif
