/* child.h - the first process of a native run, between clone3 and the supervisor's exec.
 *
 * On x86_64 the child shares the caller's memory (CLONE_VM, its own stack), as posix_spawn's
 * child does: copying the caller's page tables and tearing the copy down again at exec cost
 * 0.3-0.7 ms per run for a caller that has libcurl's dependency tree mapped. Because the memory is
 * shared, the child only reads a snapshot (asb_child_args_t) that the host never changes while
 * the child may run, and makes raw system calls that leave the caller's errno alone. */
#ifndef ASB_NATIVE_CHILD_H
#define ASB_NATIVE_CHILD_H

#include "core/limits.h"

#include <linux/sched.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ASB_CHILD_FDS (6 + ASB_MAX_FILES_IN + 1) /* + the code file */
/* The child's exit status when it fails before the supervisor runs, with the errno added:
 * moving its fds (< 32), exec'ing the supervisor (< 64). The supervisor itself exits 125 on any
 * failure before its attestation, so the host can tell these apart and name the cause. */
#define ASB_CHILD_EXIT_FDS 160
#define ASB_CHILD_EXIT_EXEC 192

typedef struct asb_child_args {
    /* Become fds 0..n-1 of the supervisor, the last one being the supervisor binary (exec'd
     * from it with AT_EMPTY_PATH and closed by the exec). */
    int fds[ASB_CHILD_FDS];
    int n_fds;
} asb_child_args_t;

typedef struct asb_child {
    pid_t pid;
    void *stack; /* freed only once the child has exec'd or is gone */
    size_t stack_size;
} asb_child_t;

/* clone3 with `ca` (flags, pidfd, cgroup, exit_signal as the caller set them) and run the child
 * on `a`. Returns the pid or a negative errno; every signal must be blocked by the caller. */
long asb_child_spawn(struct clone_args *ca, const asb_child_args_t *a, asb_child_t *child);
/* Free the child's stack: call only after the child exec'd (its supervisor spoke) or ended. */
void asb_child_release(asb_child_t *child);

#endif
