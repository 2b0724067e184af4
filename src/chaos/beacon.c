/* beacon.c - listeners for one run, served by one thread until stopped. */
#include "chaos/beacon.h"
#include "core/error.h"
#include "core/plan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char HTTP_REPLY[] = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
                                 "Content-Length: 3\r\nConnection: close\r\n\r\nok\n";

typedef struct conn {
    int fd;
    int via; /* ASB_CHAOS_VIA_*: which address the connection arrived on */
    asb_chaos_channel_t ch;
    bool reply_http; /* answer once the request head is complete */
    size_t start;    /* where this connection's bytes start in the channel buffer */
} conn_t;

static void append(asb_chaos_beacon_t *b, int via, asb_chaos_channel_t ch, const void *p, size_t n)
{
    if (!b->buf[via][ch] && !(b->buf[via][ch] = calloc(1, ASB_CHAOS_BEACON_CAP + 1)))
        return;
    size_t room = ASB_CHAOS_BEACON_CAP - b->len[via][ch];
    if (n > room)
        n = room;
    memcpy(b->buf[via][ch] + b->len[via][ch], p, n);
    b->len[via][ch] += n;
    b->buf[via][ch][b->len[via][ch]] = '\0';
}

int asb_chaos_iface_addr(const char *ifname, char *out, size_t n)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) < 0)
        return -errno;
    int rc = -ENOENT;
    for (struct ifaddrs *i = ifs; i && rc < 0; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && strcmp(i->ifa_name, ifname) == 0 &&
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, out,
                      (socklen_t)n))
            rc = 0;
    freeifaddrs(ifs);
    return rc;
}

/* Bind addr (dotted quad) at *port, or at a port the kernel picks when *port is 0. */
static int listen_inet(int type, const char *addr, uint16_t *port, asb_error_t *err)
{
    int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return asb_err_sys(err, errno, "beacon socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(*port)};
    socklen_t al = sizeof(a);
    if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
        close(fd);
        return asb_err(err, -EINVAL, "beacon address %s", addr);
    }
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        (type == SOCK_STREAM && listen(fd, 64) < 0) ||
        getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
        int e = errno;
        close(fd);
        return asb_err_sys(err, e, "beacon bind %s:%u", addr, *port);
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* One channel's listener on loopback and, when the beacon has a bridge address, on the same port
 * there (one port per channel keeps the attacks' parameters simple). A port the kernel gave on
 * loopback may be taken on the bridge address: then try another. */
static int listen_pair(asb_chaos_beacon_t *b, int type, int *lo, int *br, uint16_t *port,
                       asb_error_t *err)
{
    for (int attempt = 0; attempt < 32; attempt++) {
        *port = 0;
        if ((*lo = listen_inet(type, "127.0.0.1", port, err)) < 0)
            return *lo;
        if (!b->bridge_addr[0])
            return 0;
        *br = listen_inet(type, b->bridge_addr, port, err);
        if (*br >= 0 || *br != -EADDRINUSE)
            return *br < 0 ? *br : 0;
        close(*lo);
        *lo = -1;
    }
    return asb_err(err, -EADDRINUSE, "beacon: no port free on both 127.0.0.1 and %s",
                   b->bridge_addr);
}

static int listen_unix(const char *name, bool abstract, asb_error_t *err)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return asb_err_sys(err, errno, "beacon unix socket");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t nl = strlen(name);
    if (nl + 2 > sizeof(a.sun_path)) {
        close(fd);
        return asb_err(err, -ENAMETOOLONG, "beacon unix name %s", name);
    }
    memcpy(a.sun_path + (abstract ? 1 : 0), name, nl);
    socklen_t al = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + nl + (abstract ? 1 : 0));
    if (bind(fd, (struct sockaddr *)&a, al) < 0 || listen(fd, 16) < 0) {
        int e = errno;
        close(fd);
        return asb_err_sys(err, e, "beacon bind unix %s", name);
    }
    return fd;
}

int asb_chaos_dns_qname(const unsigned char *msg, size_t len, char *out, size_t out_len,
                        size_t *qend)
{
    size_t p = 12, o = 0;
    if (len < 12 || out_len == 0)
        return -1;
    while (p < len) {
        size_t l = msg[p++];
        if (l == 0) {
            out[o] = '\0';
            if (qend)
                *qend = p + 4;
            return p + 4 <= len ? 0 : -1;
        }
        if (l > 63 || p + l > len || o + l + 2 > out_len)
            return -1; /* compression pointers never appear in a question we accept */
        if (o)
            out[o++] = '.';
        for (size_t i = 0; i < l; i++) {
            unsigned char c = msg[p + i];
            out[o++] = (c >= 0x21 && c < 0x7f) ? (char)c : '?';
        }
        p += l;
    }
    return -1;
}

static void answer_dns(asb_chaos_beacon_t *b, int fd, int via)
{
    unsigned char q[512], a[600];
    struct sockaddr_storage from;
    socklen_t fl = sizeof(from);
    ssize_t n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from, &fl);
    if (n <= 0)
        return;
    char name[300];
    size_t qend;
    if (asb_chaos_dns_qname(q, (size_t)n, name, sizeof(name), &qend) < 0) {
        append(b, via, ASB_CHAOS_CH_DNS, "(malformed)\n", 12);
        return;
    }
    append(b, via, ASB_CHAOS_CH_DNS, name, strlen(name));
    append(b, via, ASB_CHAOS_CH_DNS, "\n", 1);
    /* Answer A 127.0.0.1 so a resolver library is satisfied and does not retry. */
    memcpy(a, q, qend);
    a[2] = 0x81, a[3] = 0x80; /* response, recursion available, no error */
    a[6] = 0, a[7] = 1, a[8] = a[9] = a[10] = a[11] = 0; /* one answer */
    static const unsigned char rr[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 127, 0, 0, 1};
    memcpy(a + qend, rr, sizeof(rr));
    sendto(fd, a, qend + sizeof(rr), MSG_DONTWAIT, (struct sockaddr *)&from, fl);
}

static void recv_udp(asb_chaos_beacon_t *b, int fd, int via)
{
    char buf[2048];
    ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
        append(b, via, ASB_CHAOS_CH_UDP, buf, (size_t)n);
        append(b, via, ASB_CHAOS_CH_UDP, "\n", 1);
    }
}

static void accept_conn(asb_chaos_beacon_t *b, int lfd, int via, asb_chaos_channel_t ch,
                        conn_t *conns)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0)
        return;
    for (int i = 0; i < ASB_CHAOS_BEACON_CONNS; i++)
        if (conns[i].fd < 0) {
            conns[i] = (conn_t){.fd = fd,
                                .via = via,
                                .ch = ch,
                                .reply_http = ch == ASB_CHAOS_CH_HTTP || ch == ASB_CHAOS_CH_DOCKER,
                                .start = b->len[via][ch]};
            return;
        }
    close(fd); /* full: a real attacker gets refused too */
}

/* Returns false when the connection is finished. */
static bool read_conn(asb_chaos_beacon_t *b, conn_t *c)
{
    char buf[4096];
    ssize_t n = read(c->fd, buf, sizeof(buf));
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    if (n <= 0)
        return false;
    append(b, c->via, c->ch, buf, (size_t)n);
    const char *got = b->buf[c->via][c->ch];
    if (c->reply_http && got && strstr(got + c->start, "\r\n\r\n")) {
        ssize_t w = write(c->fd, HTTP_REPLY, sizeof(HTTP_REPLY) - 1);
        (void)w;
        return false;
    }
    return true;
}

static void *beacon_main(void *arg)
{
    asb_chaos_beacon_t *b = arg;
    conn_t conns[ASB_CHAOS_BEACON_CONNS];
    for (int i = 0; i < ASB_CHAOS_BEACON_CONNS; i++)
        conns[i].fd = -1;
    /* Stream listeners, then datagram sockets; a bridge fd of -1 is ignored by poll. */
    enum { NL = 6, ND = 4, NFIX = NL + ND + 1 };
    const int lfds[NL] = {b->tcp, b->http, b->abstract, b->docker, b->br_tcp, b->br_http};
    const int lvia[NL] = {ASB_CHAOS_VIA_LOOPBACK, ASB_CHAOS_VIA_LOOPBACK, ASB_CHAOS_VIA_LOOPBACK,
                          ASB_CHAOS_VIA_LOOPBACK, ASB_CHAOS_VIA_BRIDGE,   ASB_CHAOS_VIA_BRIDGE};
    const asb_chaos_channel_t lch[NL] = {ASB_CHAOS_CH_TCP,      ASB_CHAOS_CH_HTTP,
                                         ASB_CHAOS_CH_ABSTRACT, ASB_CHAOS_CH_DOCKER,
                                         ASB_CHAOS_CH_TCP,      ASB_CHAOS_CH_HTTP};
    const int dfds[ND] = {b->udp, b->dns, b->br_udp, b->br_dns};
    const int dvia[ND] = {ASB_CHAOS_VIA_LOOPBACK, ASB_CHAOS_VIA_LOOPBACK, ASB_CHAOS_VIA_BRIDGE,
                          ASB_CHAOS_VIA_BRIDGE};
    const bool dns[ND] = {false, true, false, true};
    bool stopping = false;
    for (;;) {
        struct pollfd p[NFIX + ASB_CHAOS_BEACON_CONNS];
        int np = 0;
        for (int i = 0; i < NL; i++)
            p[np++] = (struct pollfd){.fd = lfds[i], .events = POLLIN};
        for (int i = 0; i < ND; i++)
            p[np++] = (struct pollfd){.fd = dfds[i], .events = POLLIN};
        p[np++] = (struct pollfd){.fd = b->stop_efd, .events = POLLIN};
        for (int i = 0; i < ASB_CHAOS_BEACON_CONNS; i++)
            p[np++] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
        int r = poll(p, (nfds_t)np, stopping ? 0 : 1000);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0 && stopping)
            break; /* the last drain found nothing more */
        for (int i = 0; i < NL; i++)
            if (p[i].revents & POLLIN)
                accept_conn(b, lfds[i], lvia[i], lch[i], conns);
        for (int i = 0; i < ND; i++)
            if (p[NL + i].revents & POLLIN) {
                if (dns[i])
                    answer_dns(b, dfds[i], dvia[i]);
                else
                    recv_udp(b, dfds[i], dvia[i]);
            }
        if (p[NL + ND].revents & POLLIN) {
            uint64_t v;
            ssize_t rd = read(b->stop_efd, &v, sizeof(v)); /* else it stays readable forever */
            (void)rd;
            stopping = true;
        }
        for (int i = 0; i < ASB_CHAOS_BEACON_CONNS; i++)
            if (conns[i].fd >= 0 && p[NFIX + i].revents && !read_conn(b, &conns[i])) {
                close(conns[i].fd);
                conns[i].fd = -1;
            }
    }
    for (int i = 0; i < ASB_CHAOS_BEACON_CONNS; i++)
        if (conns[i].fd >= 0)
            close(conns[i].fd);
    return NULL;
}

int asb_chaos_beacon_start(asb_chaos_beacon_t *b, const char *docker_path, bool bridge,
                           asb_error_t *err)
{
    memset(b, 0, sizeof(*b));
    b->tcp = b->udp = b->http = b->dns = b->abstract = b->docker = b->stop_efd = -1;
    b->br_tcp = b->br_udp = b->br_http = b->br_dns = -1;
    if (bridge &&
        asb_chaos_iface_addr(ASB_CHAOS_BRIDGE_IF, b->bridge_addr, sizeof(b->bridge_addr)) < 0)
        b->bridge_addr[0] = '\0';
    char rnd[17];
    int rc;
    if ((rc = asb_random_hex(rnd, 8, err)) < 0)
        return rc;
    snprintf(b->abstract_name, sizeof(b->abstract_name), "asb-chaos-%s", rnd);
    snprintf(b->docker_path, sizeof(b->docker_path), "%s", docker_path);
    if ((rc = listen_pair(b, SOCK_STREAM, &b->tcp, &b->br_tcp, &b->tcp_port, err)) < 0 ||
        (rc = listen_pair(b, SOCK_STREAM, &b->http, &b->br_http, &b->http_port, err)) < 0 ||
        (rc = listen_pair(b, SOCK_DGRAM, &b->udp, &b->br_udp, &b->udp_port, err)) < 0 ||
        (rc = listen_pair(b, SOCK_DGRAM, &b->dns, &b->br_dns, &b->dns_port, err)) < 0 ||
        (b->abstract = listen_unix(b->abstract_name, true, err)) < 0 ||
        (b->docker = listen_unix(docker_path, false, err)) < 0)
        return err->code;
    if ((b->stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        return asb_err_sys(err, errno, "beacon eventfd");
    if ((rc = pthread_create(&b->thread, NULL, beacon_main, b)) != 0)
        return asb_err_sys(err, rc, "beacon thread");
    b->running = true;
    return 0;
}

void asb_chaos_beacon_stop(asb_chaos_beacon_t *b, asb_chaos_obs_t *o)
{
    if (b->running) {
        uint64_t one = 1;
        ssize_t w = write(b->stop_efd, &one, sizeof(one));
        (void)w;
        pthread_join(b->thread, NULL);
        b->running = false;
    }
    int *fds[] = {&b->tcp,    &b->udp,    &b->http,    &b->dns,    &b->abstract, &b->docker,
                  &b->br_tcp, &b->br_udp, &b->br_http, &b->br_dns, &b->stop_efd};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    if (o && !o->bridge_addr[0])
        snprintf(o->bridge_addr, sizeof(o->bridge_addr), "%s", b->bridge_addr);
    for (int via = 0; via < ASB_CHAOS_VIA_COUNT; via++)
        for (int ch = 0; ch < ASB_CHAOS_CH_COUNT; ch++) {
            char **dst =
                o ? (via == ASB_CHAOS_VIA_BRIDGE ? &o->beacon_bridge[ch] : &o->beacon[ch]) : NULL;
            if (dst && !*dst) {
                *dst = b->buf[via][ch];
                (via == ASB_CHAOS_VIA_BRIDGE ? o->beacon_bridge_len : o->beacon_len)[ch] =
                    b->len[via][ch];
            } else {
                free(b->buf[via][ch]);
            }
            b->buf[via][ch] = NULL;
            b->len[via][ch] = 0;
        }
}
