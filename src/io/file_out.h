/* file_out.h - reading a file the untrusted workload left in its workspace, on the host side.
 *
 * Everything in the workspace is attacker-controlled: a requested output may be a symlink to a
 * host secret, a hard link to one, a FIFO that would hang the harness, a device node, or a file
 * that keeps growing. This reads it only when it is a plain regular file within the cap. */
#ifndef ASB_IO_FILE_OUT_H
#define ASB_IO_FILE_OUT_H

#include <stddef.h>
#include <stdint.h>

/* Read the file `name` (a plain name, asb_valid_plain_name) directly inside the directory dirfd
 * (an O_PATH|O_DIRECTORY fd of the workspace).
 *
 * Returns 0 with *data (malloc'd, never NULL, free() it) and *len holding the whole file.
 * Returns 1 when the file is REFUSED; *data is NULL and why (size why_len) holds a short reason
 * for the result record: "symlink refused", "not a regular file (fifo)", "hard link refused
 * (2 links)", "larger than 1048576 bytes", "no such file", "invalid name (...)", ...
 * Returns a negative errno-style code on an internal error (why then says what failed). There is
 * no fallback when openat2(2) is unavailable: -ENOSYS. */
int asb_file_out_read(int dirfd, const char *name, uint64_t cap, unsigned char **data, size_t *len,
                      char *why, size_t why_len);

#endif
