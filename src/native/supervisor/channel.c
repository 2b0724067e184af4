/* channel.c - the supervisor's side of the control socket. */
#include "native/proto.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <jansson.h>
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

static int send_obj(int ctl, const char *nonce, const char *type, json_t *o, int fd)
{
    if (!o)
        o = json_object();
    if (!o)
        return -ENOMEM;
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(o, "nonce", json_string(nonce));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return -ENOMEM;
    int rc = send_packet(ctl, s, strlen(s), fd);
    free(s);
    return rc;
}

int sup_send_json(int ctl, const char *nonce, const char *type, void *json_obj)
{
    return send_obj(ctl, nonce, type, (json_t *)json_obj, -1);
}

int sup_send_fd(int ctl, const char *nonce, const char *type, int fd)
{
    return send_obj(ctl, nonce, type, NULL, fd);
}

int sup_send_error(int ctl, const char *nonce, const char *message)
{
    return send_obj(ctl, nonce, "error", json_pack("{s:s}", "message", message), -1);
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
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf) - 1};
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
    buf[n] = '\0';
    int fd = -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(c), sizeof(int));
    json_t *o = json_loads(buf, 0, NULL);
    const char *type = o ? json_string_value(json_object_get(o, "type")) : NULL;
    bool ok = type && strcmp(type, want) == 0 && fd >= 0;
    json_decref(o);
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
        ssize_t n = recv(ctl, buf, sizeof(buf) - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        buf[n] = '\0';
        json_t *o = json_loads(buf, 0, NULL);
        const char *type = o ? json_string_value(json_object_get(o, "type")) : NULL;
        int go = type && strcmp(type, want) == 0;
        json_decref(o);
        return go;
    }
}
