/* fdpass.h - one message with file descriptors over a unix socket (SCM_RIGHTS), for the host and
 * the supervisor alike (the supervisor links this file too). */
#ifndef ASB_NATIVE_FDPASS_H
#define ASB_NATIVE_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

#define ASB_FDPASS_MAX 72 /* the most fds one message carries (a job: spec, stdin, 64+1 files) */

/* Send len bytes and n_fds fds (0..ASB_FDPASS_MAX) as one message, retrying EINTR, never raising
 * SIGPIPE. Returns 0 or -errno. */
int asb_fd_send(int sock, const void *data, size_t len, const int *fds, size_t n_fds);

/* Receive one message into buf and up to max fds (received close-on-exec). flags: MSG_DONTWAIT
 * or 0. Returns the byte count, 0 (peer gone, or an empty message: no fd kept) or -errno; a
 * message with more than max fds, or cut short (MSG_TRUNC, MSG_CTRUNC), is -EMSGSIZE with no fd
 * left open. */
ssize_t asb_fd_recv(int sock, void *buf, size_t len, int flags, int *fds, size_t max,
                    size_t *n_fds);

#endif
