/* trees.h - the mount trees the host makes for a sandbox (trees.c). */
#ifndef ASB_NATIVE_TREES_H
#define ASB_NATIVE_TREES_H

#include "agent_sandbox.h"

#include <sys/types.h>

/* baseline: a read-only clone of the host's /usr idmapped through the user namespace `userns`
 * (an fd of it; borrowed), sent on ctl as "usr_tree". */
int asb_native_send_usr_tree(int ctl, int userns, asb_error_t *err);
/* Every sandboxed run: a tmpfs of the sandbox's own device nodes, sent as "dev_tree". */
int asb_native_send_dev_tree(int ctl, asb_error_t *err);

#endif
