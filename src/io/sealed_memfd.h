/* sealed_memfd.h - bytes handed to a sandboxed process as a sealed, read-only, non-executable
 * memfd (its stdin, the code and the spec). Used by the host library and by the container-mode
 * supervisor, so it depends on nothing but libc and core/error. */
#ifndef ASB_IO_SEALED_MEMFD_H
#define ASB_IO_SEALED_MEMFD_H

#include "agent_sandbox.h"

#include <stddef.h>

/* A memfd holding len bytes of data, sealed and handed out read-only. A writable, executable
 * memfd at a workload's fd 0 would let it write an ELF there and exec /proc/self/fd/0
 * (red-team finding). So: not executable (MFD_NOEXEC_SEAL, and mode 0444 for kernels before
 * 6.3: the memfd belongs to whoever made it, a user the workload is not, so it cannot chmod it
 * back), no more writes, growing or shrinking (F_SEAL_*), and the fd returned is a fresh
 * read-only, close-on-exec open of it at offset 0. name is the memfd's name (/proc/PID/fd shows
 * it). Returns the fd, or a negative errno and fills err naming the step that failed. */
int asb_sealed_memfd(const char *name, const void *data, size_t len, asb_error_t *err);

#endif
