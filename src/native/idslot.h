/* idslot.h - a host uid/gid range of its own for each live native sandbox.
 *
 * Every sandbox's user namespace maps inside ids 0..65535 to host ids; when all sandboxes used one
 * host range, the kernel's per-user counters (pipe buffer pages, fds in flight over unix sockets,
 * inotify instances, queued signals) were shared, and one run could starve another (red-team
 * finding). A slot is held by an flock on its lock file for as long as the sandbox lives; the
 * kernel drops the lock when the holder dies, so a crashed owner never keeps a slot. */
#ifndef ASB_NATIVE_IDSLOT_H
#define ASB_NATIVE_IDSLOT_H

#include "core/error.h"

#include <stdint.h>

typedef struct asb_idslot {
    int fd;         /* the locked lock file, -1 when none is held */
    int dir;        /* the slot directory, checked when the slot was taken */
    uint32_t slot;  /* 0..ASB_USERNS_SLOTS-1 */
    uint32_t base;  /* host id that inside id 0 maps to */
    uint32_t owner; /* host uid that creates (owns) the user namespace: never mapped inside */
} asb_idslot_t;

/* Take a free slot (a random one first, then the next free). 0, or an error naming the cause. */
int asb_idslot_take(asb_idslot_t *s, asb_error_t *err);
/* Give it back: only once no process of the sandbox is left. Idempotent. */
void asb_idslot_release(asb_idslot_t *s);
/* Remove the lock files of holders that died without releasing (nobody holds their lock): how
 * many were removed. They cost nothing (a dead holder's slot is free anyway); cleanup tidies.
 * A negative errno, with err (may be NULL) filled, when the directory cannot be read or a dead
 * holder's file cannot be removed; no directory at all is 0 (nothing to reap). */
int asb_idslot_reap(asb_error_t *err);

#endif
