/* docker_engine.c - the Docker Engine API over its unix socket, with libcurl.
 *
 * One curl handle per engine object, reused so a run's requests share one keep-alive connection.
 * The attach stream is a separate connection: libcurl connects it (CONNECT_ONLY) and we speak the
 * upgrade request ourselves, because the engine hijacks that connection for a raw duplex stream
 * that no HTTP client state machine models. */
#include "core/error.h"
#include "docker/docker.h"

#include "docker/docker_dl.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct asb_docker_engine {
    asb_dl_t dl;
    CURL *curl;
    char socket[108];
};

struct asb_docker_attach {
    asb_dl_t dl;
    CURL *curl;
    curl_socket_t fd;
    unsigned char *pending; /* stream bytes that arrived with the response head */
    size_t pending_len, pending_off;
};

int asb_docker_socket_path(char *out, size_t len, asb_error_t *err)
{
    const char *host = getenv("DOCKER_HOST");
    const char *path = ASB_DOCKER_DEFAULT_SOCKET;
    if (host && *host) {
        if (strncmp(host, "unix://", 7) != 0)
            return asb_err(err, -EINVAL,
                           "DOCKER_HOST=%s: only unix:// sockets are supported (a TCP engine "
                           "would carry the run spec and its files unauthenticated)",
                           host);
        path = host + 7;
    }
    if (!*path || strlen(path) >= len || strlen(path) >= 108)
        return asb_err(err, -EINVAL, "DOCKER_HOST: bad socket path '%s'", path);
    snprintf(out, len, "%s", path);
    return 0;
}

typedef struct growbuf {
    char *data;
    size_t len, cap;
    bool oom;
} growbuf_t;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
    growbuf_t *b = arg;
    size_t n = size * nmemb;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *nd = realloc(b->data, nc);
        if (!nd) {
            b->oom = true;
            return 0;
        }
        b->data = nd;
        b->cap = nc;
    }
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

static CURL *new_handle(const asb_dl_t *dl, const char *socket)
{
    CURL *c = dl->curl_easy_init();
    if (!c)
        return NULL;
    dl->curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket);
    dl->curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    dl->curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
    dl->curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    return c;
}

int asb_docker_http(asb_docker_engine_t *eng, const char *method, const char *path,
                    const char *ctype, const void *body, size_t body_len, long timeout_ms,
                    long *status, char **resp, size_t *resp_len, asb_error_t *err)
{
    const asb_dl_t *dl = &eng->dl;
    CURL *c = eng->curl;
    char url[2048];
    snprintf(url, sizeof(url), "http://docker%s%s", ASB_DOCKER_API, path);
    growbuf_t b = {0};
    struct curl_slist *hdr = NULL;
    char ct[128];
    snprintf(ct, sizeof(ct), "Content-Type: %s", ctype ? ctype : "application/json");
    hdr = dl->curl_slist_append(hdr, ct);
    hdr = dl->curl_slist_append(hdr, "Expect:"); /* no 100-continue round trip for big bodies */
    dl->curl_easy_reset(c);
    dl->curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, eng->socket);
    dl->curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    dl->curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
    dl->curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    dl->curl_easy_setopt(c, CURLOPT_URL, url);
    dl->curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    dl->curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    dl->curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    dl->curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    dl->curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    if (body || strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
        dl->curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
        dl->curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? body_len : 0));
        dl->curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    } else if (strcmp(method, "HEAD") == 0) {
        dl->curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    }
    CURLcode rc = dl->curl_easy_perform(c);
    dl->curl_slist_free_all(hdr);
    if (rc != CURLE_OK || b.oom) {
        free(b.data);
        int code = rc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : b.oom ? -ENOMEM : -ECONNREFUSED;
        return asb_err(err, code, "docker engine at %s: %s %s: %s", eng->socket, method, path,
                       b.oom ? "out of memory" : dl->curl_easy_strerror(rc));
    }
    dl->curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    if (!b.data && !(b.data = calloc(1, 1)))
        return asb_err_sys(err, ENOMEM, "docker response");
    *resp = b.data;
    if (resp_len)
        *resp_len = b.len;
    return 0;
}

int asb_docker_json(asb_docker_engine_t *eng, const char *method, const char *path,
                    const json_t *body, long timeout_ms, json_t **out, asb_error_t *err)
{
    char *s = body ? json_dumps(body, JSON_COMPACT) : NULL;
    if (body && !s)
        return asb_err_sys(err, ENOMEM, "docker request");
    long status = 0;
    char *resp = NULL;
    size_t len = 0;
    int rc = asb_docker_http(eng, method, path, NULL, s, s ? strlen(s) : 0, timeout_ms, &status,
                             &resp, &len, err);
    free(s);
    if (rc < 0)
        return rc;
    json_t *o = len ? json_loadb(resp, len, 0, NULL) : NULL;
    if (status < 200 || status >= 300) {
        const char *msg = json_string_value(json_object_get(o, "message"));
        rc = asb_err(err,
                     status == 404   ? -ENOENT
                     : status == 409 ? -EEXIST
                                     : -EIO,
                     "docker engine: %s %s: HTTP %ld: %s", method, path, status,
                     msg ? msg : (len ? resp : "no message"));
        json_decref(o);
        free(resp);
        return rc;
    }
    free(resp);
    if (out)
        *out = o;
    else
        json_decref(o);
    return 0;
}

int asb_docker_engine_open(asb_docker_engine_t **out, asb_error_t *err)
{
    *out = NULL;
    asb_docker_engine_t *e = calloc(1, sizeof(*e));
    if (!e)
        return asb_err_sys(err, ENOMEM, "docker engine");
    int rc = asb_docker_socket_path(e->socket, sizeof(e->socket), err);
    if (rc == 0)
        rc = asb_dl_open(&e->dl, err);
    if (rc < 0) {
        free(e);
        return rc;
    }
    if (!(e->curl = new_handle(&e->dl, e->socket))) {
        asb_dl_close(&e->dl);
        free(e);
        return asb_err(err, -ENOMEM, "curl init");
    }
    long status = 0;
    char *resp = NULL;
    asb_error_t perr = {0};
    rc = asb_docker_http(e, "GET", "/_ping", NULL, NULL, 0, 5000, &status, &resp, NULL, &perr);
    if (rc == 0 && (status != 200 || strcmp(resp, "OK") != 0)) {
        /* Reached, but not a docker engine's answer: said as such, the body quoted whole (QA
         * finding: cut at its last colon, it read as the reason it was not reachable). */
        rc = asb_err(err, -EPROTO,
                     "docker engine at %s answered its ping with HTTP %ld '%.80s', not 200 'OK'",
                     e->socket, status, resp ? resp : "");
        free(resp);
        asb_docker_engine_close(e);
        return rc;
    }
    free(resp);
    if (rc < 0) {
        /* The reason is the transport's, without our own "docker engine at" prefix. */
        const char *why = strrchr(perr.message, ':');
        why = why ? why + 2 : perr.message;
        rc = asb_err(err, rc, "docker engine not reachable at %s: %s", e->socket, why);
        asb_docker_engine_close(e);
        return rc;
    }
    *out = e;
    return 0;
}

void asb_docker_engine_close(asb_docker_engine_t *eng)
{
    if (!eng)
        return;
    if (eng->curl)
        eng->dl.curl_easy_cleanup(eng->curl);
    asb_dl_close(&eng->dl);
    free(eng);
}

const char *asb_docker_engine_socket(const asb_docker_engine_t *eng)
{
    return eng->socket;
}

/* ---- attach ---- */

static int wait_fd(curl_socket_t fd, short events, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    int r;
    do {
        r = poll(&p, 1, timeout_ms);
    } while (r < 0 && errno == EINTR);
    return r;
}

int asb_docker_attach_write(asb_docker_attach_t *att, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        size_t n = 0;
        CURLcode rc = att->dl.curl_easy_send(att->curl, p, len, &n);
        if (rc == CURLE_AGAIN) {
            if (wait_fd(att->fd, POLLOUT, 5000) <= 0)
                return -ETIMEDOUT;
            continue;
        }
        if (rc != CURLE_OK)
            return -EPIPE;
        p += n;
        len -= n;
    }
    return 0;
}

long asb_docker_attach_send(asb_docker_attach_t *att, const void *buf, size_t len)
{
    size_t n = 0;
    CURLcode rc = att->dl.curl_easy_send(att->curl, buf, len, &n);
    if (rc == CURLE_AGAIN)
        return -EAGAIN;
    return rc == CURLE_OK ? (long)n : -EPIPE;
}

int asb_docker_attach_open(asb_docker_engine_t *eng, const char *id, asb_docker_attach_t **out,
                           asb_error_t *err)
{
    *out = NULL;
    asb_docker_attach_t *a = calloc(1, sizeof(*a));
    if (!a)
        return asb_err_sys(err, ENOMEM, "attach");
    a->fd = CURL_SOCKET_BAD;
    int orc = asb_dl_open(&a->dl, err);
    if (orc < 0) {
        free(a);
        return orc;
    }
    const asb_dl_t *dl = &a->dl;
    if (!(a->curl = new_handle(dl, eng->socket))) {
        asb_dl_close(&a->dl);
        free(a);
        return asb_err(err, -ENOMEM, "curl init");
    }
    dl->curl_easy_setopt(a->curl, CURLOPT_URL, "http://docker/");
    dl->curl_easy_setopt(a->curl, CURLOPT_CONNECT_ONLY, 1L);
    CURLcode rc = dl->curl_easy_perform(a->curl);
    if (rc != CURLE_OK ||
        dl->curl_easy_getinfo(a->curl, CURLINFO_ACTIVESOCKET, &a->fd) != CURLE_OK ||
        a->fd == CURL_SOCKET_BAD) {
        /* The message first: closing frees `a`, and with it the table `dl` points into. */
        int erc = asb_err(err, -ECONNREFUSED, "docker attach: connect %s: %s", eng->socket,
                          dl->curl_easy_strerror(rc));
        asb_docker_attach_close(a);
        return erc;
    }
    char req[512];
    int n = snprintf(req, sizeof(req),
                     "POST %s/containers/%s/attach?stream=1&stdin=1&stdout=1&stderr=1 HTTP/1.1\r\n"
                     "Host: docker\r\nContent-Type: text/plain\r\nConnection: Upgrade\r\n"
                     "Upgrade: tcp\r\nContent-Length: 0\r\n\r\n",
                     ASB_DOCKER_API, id);
    if (n <= 0 || (size_t)n >= sizeof(req) || asb_docker_attach_write(a, req, (size_t)n) < 0) {
        asb_docker_attach_close(a);
        return asb_err(err, -EIO, "docker attach: sending the request failed");
    }
    /* The response head, up to the blank line; anything after it is stream data. */
    unsigned char head[4096];
    size_t len = 0;
    char *end = NULL;
    while (!end) {
        if (len == sizeof(head) - 1) {
            asb_docker_attach_close(a);
            return asb_err(err, -EPROTO, "docker attach: response head too long");
        }
        size_t got = 0;
        rc = dl->curl_easy_recv(a->curl, head + len, sizeof(head) - 1 - len, &got);
        if (rc == CURLE_AGAIN) {
            if (wait_fd(a->fd, POLLIN, ASB_DOCKER_HTTP_TIMEOUT_MS) <= 0) {
                asb_docker_attach_close(a);
                return asb_err(err, -ETIMEDOUT, "docker attach: no response");
            }
            continue;
        }
        if (rc != CURLE_OK || got == 0) {
            asb_docker_attach_close(a);
            return asb_err(err, -EPROTO, "docker attach: connection closed before the response");
        }
        len += got;
        head[len] = '\0';
        end = strstr((char *)head, "\r\n\r\n");
    }
    if (strncmp((char *)head, "HTTP/1.1 101", 12) != 0 &&
        strncmp((char *)head, "HTTP/1.1 200", 12) != 0) {
        char *eol = strstr((char *)head, "\r\n");
        if (eol)
            *eol = '\0';
        asb_docker_attach_close(a);
        return asb_err(err, -EPROTO, "docker attach: %s", (char *)head);
    }
    size_t hlen = (size_t)(end + 4 - (char *)head);
    if (len > hlen) {
        if (!(a->pending = malloc(len - hlen))) {
            asb_docker_attach_close(a);
            return asb_err_sys(err, ENOMEM, "attach");
        }
        memcpy(a->pending, head + hlen, len - hlen);
        a->pending_len = len - hlen;
    }
    *out = a;
    return 0;
}

int asb_docker_attach_fd(const asb_docker_attach_t *att)
{
    return (int)att->fd;
}

long asb_docker_attach_read(asb_docker_attach_t *att, void *buf, size_t len)
{
    if (att->pending_off < att->pending_len) {
        size_t n = att->pending_len - att->pending_off;
        if (n > len)
            n = len;
        memcpy(buf, att->pending + att->pending_off, n);
        att->pending_off += n;
        return (long)n;
    }
    size_t got = 0;
    CURLcode rc = att->dl.curl_easy_recv(att->curl, buf, len, &got);
    if (rc == CURLE_AGAIN)
        return -EAGAIN;
    if (rc != CURLE_OK)
        return -EIO;
    return (long)got;
}

void asb_docker_attach_close(asb_docker_attach_t *att)
{
    if (!att)
        return;
    if (att->curl)
        att->dl.curl_easy_cleanup(att->curl);
    asb_dl_close(&att->dl);
    free(att->pending);
    free(att);
}
