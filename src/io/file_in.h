/* file_in.h - copying a caller-given host file into a sandbox without letting the path hang the
 * harness (a FIFO, a device) or exceed the cap. */
#ifndef ASB_IO_FILE_IN_H
#define ASB_IO_FILE_IN_H

#include "agent_sandbox.h"

#include <stdint.h>

/* The name of the kernel pseudo-filesystem fd is on (procfs, sysfs, tracefs, debugfs, ...), or
 * NULL for any other: their files cannot be copied by size and some block a read for ever. */
const char *asb_pseudo_fs_name(int fd);

/* Open host_path for reading. Only a regular file of at most cap bytes is accepted; a FIFO or a
 * device fails at once with "file-in '<path>': not a regular file (fifo)" instead of blocking.
 * On success *fd is a blocking O_RDONLY|O_CLOEXEC fd and *size the file's size. */
int asb_file_in_open(const char *host_path, uint64_t cap, int *fd, uint64_t *size,
                     asb_error_t *err);

/* asb_file_in_open, then its content read into a sealed memfd: what the sandbox gets is what was
 * read now, at most cap bytes whatever the file does afterwards (grows, changes), and files whose
 * size says nothing (cgroupfs reports 0) arrive whole; a read that would wait is refused. *fd is
 * the memfd at offset 0 (read-only, sealed), *size its exact length. */
int asb_file_in_snapshot(const char *host_path, uint64_t cap, int *fd, uint64_t *size,
                         asb_error_t *err);

/* Copy from in (at its offset) to out until EOF, at most max bytes. More than max bytes in `in`
 * is an error (-EFBIG) after max bytes were written; the copy is never silently short. Both fds
 * must be blocking. Uses copy_file_range, then sendfile, then read/write. */
int asb_copy_fd(int in, int out, uint64_t max, asb_error_t *err);

#endif
