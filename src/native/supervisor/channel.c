/* channel.c - the supervisor's side of the control socket. */
#include "native/proto.h"
#include "native/supervisor/sup.h"
#include "native/wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_packet(int ctl, const char *buf, size_t len, int fd)
{
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&cm, 0, sizeof(cm));
        msg.msg_control = cm.buf;
        msg.msg_controllen = sizeof(cm.buf);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    for (;;) {
        ssize_t w = sendmsg(ctl, &msg, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        return w < 0 ? -errno : 0;
    }
}

/* body (may be NULL) gets "type" and "nonce" added, is sent, and is freed. */
static int send_obj(int ctl, const char *nonce, const char *type, asb_wire_buf_t *body, int fd)
{
    asb_wire_buf_t local = {0};
    asb_wire_buf_t *b = body ? body : &local;
    asb_wire_put_str(b, "type", type);
    asb_wire_put_str(b, "nonce", nonce);
    int rc = asb_wire_ok(b) ? send_packet(ctl, (const char *)b->data, b->len, fd) : -ENOMEM;
    asb_wire_free(b);
    return rc;
}

int sup_send_msg(int ctl, const char *nonce, const char *type, asb_wire_buf_t *body)
{
    return send_obj(ctl, nonce, type, body, -1);
}

int sup_send_fd(int ctl, const char *nonce, const char *type, int fd)
{
    return send_obj(ctl, nonce, type, NULL, fd);
}

int sup_send_error(int ctl, const char *nonce, const char *message)
{
    asb_wire_buf_t b = {0};
    asb_wire_put_str(&b, "message", message);
    return send_obj(ctl, nonce, "error", &b, -1);
}

/* A host message is of type `want`: well-formed, with exactly that "type". */
static bool is_type(const char *buf, size_t n, const char *want)
{
    asb_wire_rec_t r;
    return asb_wire_check(buf, n) == 0 && asb_wire_find(buf, n, "type", ASB_WIRE_STR, &r) == 0 &&
           r.vlen == strlen(want) && memcmp(r.val, want, r.vlen) == 0;
}

int sup_recv_fd(int ctl, const char *want, int timeout_ms)
{
    struct pollfd p = {.fd = ctl, .events = POLLIN};
    int r;
    while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (r <= 0)
        return -ETIMEDOUT;
    char buf[256];
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
    ssize_t n;
    while ((n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (n <= 0)
        return -EPROTO;
    int fd = -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(c), sizeof(int));
    bool ok = !(msg.msg_flags & MSG_TRUNC) && is_type(buf, (size_t)n, want) && fd >= 0;
    if (!ok) {
        if (fd >= 0)
            close(fd);
        return -EPROTO;
    }
    return fd;
}

int sup_wait_for(int ctl, const char *want, int timeout_ms)
{
    struct pollfd p = {.fd = ctl, .events = POLLIN};
    for (;;) {
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return 0; /* no answer in time: treated as abort */
        char buf[256];
        ssize_t n = recv(ctl, buf, sizeof(buf), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        return is_type(buf, (size_t)n, want) ? 1 : 0;
    }
}

int sup_recv_job(int ctl, int watch, int *fds, size_t max, size_t *n_fds)
{
    *n_fds = 0;
    struct pollfd p[2] = {{.fd = ctl, .events = POLLIN}, {.fd = watch, .events = POLLIN}};
    int r;
    /* No timeout: a prepared sandbox waits for its job as long as the host holds it; the host
     * going away hangs the socket up. */
    while ((r = poll(p, 2, -1)) < 0 && errno == EINTR)
        ;
    if (r <= 0)
        return -EPROTO;
    if (!(p[0].revents & POLLIN) && (p[1].revents & POLLIN))
        return -EINTR; /* something to look at on `watch` first */
    char buf[256];
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
    union {
        char b[CMSG_SPACE(sizeof(int) * SUP_JOB_MAX_FDS)];
        struct cmsghdr align;
    } cm;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
    ssize_t n;
    while ((n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (n <= 0)
        return -EPROTO;
    size_t got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (got < max)
                fds[got++] = fd;
            else
                close(fd);
        }
    }
    bool ok = !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && is_type(buf, (size_t)n, "job") &&
              got >= 2 && got <= max;
    if (!ok) {
        for (size_t i = 0; i < got; i++)
            close(fds[i]);
        return -EPROTO;
    }
    *n_fds = got;
    return 0;
}
