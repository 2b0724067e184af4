/* channel.c - the supervisor's side of the control socket. */
#include "native/fdpass.h"
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
    return asb_fd_send(ctl, buf, len, &fd, fd >= 0 ? 1 : 0);
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
    asb_wire_put_text(&b, "message", message);
    return send_obj(ctl, nonce, "error", &b, -1);
}

/* A host message is of type `want`: well-formed, with exactly that "type". */
static bool is_type(const char *buf, size_t n, const char *want)
{
    asb_wire_rec_t r;
    return asb_wire_check(buf, n) == 0 && asb_wire_find(buf, n, "type", ASB_WIRE_STR, &r) == 0 &&
           r.vlen == strlen(want) && memcmp(r.val, want, r.vlen) == 0;
}

int sup_recv_fds(int ctl, const char *want, int timeout_ms, int *fds, size_t max, size_t *n_fds)
{
    *n_fds = 0;
    struct pollfd p = {.fd = ctl, .events = POLLIN};
    int r;
    while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (r <= 0)
        return -ETIMEDOUT;
    char buf[256];
    size_t got = 0;
    ssize_t n = asb_fd_recv(ctl, buf, sizeof(buf), 0, fds, max, &got);
    if (n > 0 && is_type(buf, (size_t)n, want)) {
        *n_fds = got;
        return 0;
    }
    for (size_t i = 0; i < got; i++)
        close(fds[i]);
    return -EPROTO;
}

int sup_recv_fd(int ctl, const char *want, int timeout_ms)
{
    int fd = -1;
    size_t n = 0;
    if (sup_recv_fds(ctl, want, timeout_ms, &fd, 1, &n) < 0)
        return -EPROTO;
    if (n == 1)
        return fd;
    return -EPROTO;
}

int sup_join_cgroup(int ctl, int timeout_ms)
{
    int fds[ASB_CGROUP_MAX_HIERARCHIES];
    size_t n = 0;
    int rc = sup_recv_fds(ctl, "cgroup_ready", timeout_ms, fds, ASB_CGROUP_MAX_HIERARCHIES, &n);
    for (size_t i = 0; i < n; i++) {
        /* "0": this thread (we have no other), by the fd's opener's permission. */
        if (rc == 0 && write(fds[i], "0", 1) != 1)
            rc = -errno;
        close(fds[i]);
    }
    return rc;
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
    size_t got = 0;
    ssize_t n = asb_fd_recv(ctl, buf, sizeof(buf), 0, fds, max, &got);
    if (n > 0 && is_type(buf, (size_t)n, "job") && got >= 2) {
        *n_fds = got;
        return 0;
    }
    for (size_t i = 0; i < got; i++)
        close(fds[i]);
    return -EPROTO;
}
