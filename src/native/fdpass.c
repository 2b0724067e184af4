/* fdpass.c - messages with file descriptors over unix sockets (see fdpass.h). */
#include "native/fdpass.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int asb_fd_send(int sock, const void *data, size_t len, const int *fds, size_t n_fds)
{
    if (n_fds > ASB_FDPASS_MAX)
        return -E2BIG;
    struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
    union {
        char b[CMSG_SPACE(sizeof(int) * ASB_FDPASS_MAX)];
        struct cmsghdr align;
    } cm;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (n_fds) {
        memset(&cm, 0, sizeof(cm));
        m.msg_control = cm.b;
        m.msg_controllen = (socklen_t)CMSG_SPACE(sizeof(int) * n_fds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = (socklen_t)CMSG_LEN(sizeof(int) * n_fds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
    }
    for (;;) {
        ssize_t w = sendmsg(sock, &m, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        return (size_t)w == len ? 0 : -EMSGSIZE;
    }
}

ssize_t asb_fd_recv(int sock, void *buf, size_t len, int flags, int *fds, size_t max, size_t *n_fds)
{
    *n_fds = 0;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    union {
        char b[CMSG_SPACE(sizeof(int) * ASB_FDPASS_MAX)];
        struct cmsghdr align;
    } cm;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
    ssize_t n;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | flags)) < 0 && errno == EINTR)
        ;
    if (n < 0)
        return -errno;
    size_t got = 0;
    bool lost = false;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (got < max) {
                fds[got++] = fd;
            } else {
                close(fd);
                lost = true;
            }
        }
    }
    if (lost || n == 0 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        /* More fds than wanted, or a message cut short: none kept. An empty message counts as
         * the peer gone (0), and keeps no fd either. */
        for (size_t i = 0; i < got; i++)
            close(fds[i]);
        return n == 0 && !lost ? 0 : -EMSGSIZE;
    }
    *n_fds = got;
    return n;
}
