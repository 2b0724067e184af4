/* rmtree.h - removing a directory tree a hostile process filled, and making private temp dirs.
 *
 * The tree may hold symlinks to host files, FIFOs, 000-mode directories, names with newlines and
 * nesting deeper than any fd budget. Removal never follows a symlink, never walks "..", never
 * crosses into another mount, and holds at most ASB_RMTREE_MAX_OPEN_DIRS directory fds. */
#ifndef ASB_IO_RMTREE_H
#define ASB_IO_RMTREE_H

#include "agent_sandbox.h"

#include <stddef.h>

/* Directory fds held at once while descending. Deeper subtrees are renamed up to the top of the
 * tree and removed from there, so any depth is removed with this many fds. */
#define ASB_RMTREE_MAX_OPEN_DIRS 64

/* Remove parent_dirfd/name and everything under it. name is a plain name (no '/'). A symlink or
 * any other non-directory is unlinked itself; its target is never touched. Directories the
 * caller cannot enter are chmod'ed to 0700 first (works for their owner and for root).
 * Returns 0, or a negative code with err filled (-ENOENT when name does not exist, -EXDEV when a
 * mount point is inside the tree). */
int asb_rmtree_at(int parent_dirfd, const char *name, asb_error_t *err);

/* Create a new directory "<parent>/<prefix><16 random hex>" with mode 0700, owned by the caller.
 * prefix is a plain name fragment (no '/'). On success out_path (size out_len) holds its path
 * and, when out_dirfd is not NULL, *out_dirfd an O_RDONLY|O_DIRECTORY|O_CLOEXEC fd of it. */
int asb_mkdtemp_owned(const char *parent, const char *prefix, char *out_path, size_t out_len,
                      int *out_dirfd, asb_error_t *err);

#endif
