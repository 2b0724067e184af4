#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

/* Text that may quote hostile input (submission ids, file names, program output) on a line of
 * the CLI's own: C0 control bytes and DEL are written as \xNN, and C1 controls in their UTF-8
 * form (U+0080..U+009F: CSI is U+009B) as \uNNNN, so nothing in it can drive the operator's
 * terminal, split the line or paint a fake one over it (red-team finding: C1 went through). */
void cli_put_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
            fprintf(f, "\\u%04x", *++p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

void cli_error(const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fputs("agent-sandbox: error: ", stderr);
    cli_put_text(stderr, msg);
    fputc('\n', stderr);
}

int cli_parse_double(const char *flag, const char *s, double min, double max, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || !*s || errno || !end || *end || isnan(v) || v < min || v > max) {
        cli_error("%s: expected a number between %g and %g, got '%s'", flag, min, max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_u64(const char *flag, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+') {
        cli_error("%s: expected a whole number between %llu and %llu, got '%s'", flag,
                  (unsigned long long)min, (unsigned long long)max, s ? s : "");
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end || v < min || v > max) {
        cli_error("%s: expected a whole number between %llu and %llu, got '%s'", flag,
                  (unsigned long long)min, (unsigned long long)max, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_read_stdin(size_t cap, double timeout_s, unsigned char **data, size_t *len)
{
    struct stat st;
    if (fstat(0, &st) < 0) {
        *data = NULL, *len = 0; /* no stdin at all: the program gets an empty one */
        return 0;
    }
    if (S_ISREG(st.st_mode))
        return cli_read_file("-", cap, data, len);
    size_t n = 0, alloc = 65536;
    unsigned char *buf = malloc(alloc);
    if (!buf) {
        cli_error("out of memory reading stdin");
        return -1;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double left =
            timeout_s - ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9);
        struct pollfd p = {.fd = 0, .events = POLLIN};
        int r = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            free(buf);
            cli_error("stdin did not end within %g s: close it, or use --stdin-file F or "
                      "</dev/null",
                      timeout_s);
            return -1;
        }
        if (n == alloc) {
            if (alloc > cap) {
                free(buf);
                cli_error("stdin is larger than %zu bytes", cap);
                return -1;
            }
            unsigned char *nb = realloc(buf, alloc * 2);
            if (!nb) {
                free(buf);
                cli_error("out of memory reading stdin");
                return -1;
            }
            buf = nb;
            alloc *= 2;
        }
        ssize_t got = read(0, buf + n, alloc - n);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0) {
            free(buf);
            cli_error("cannot read stdin (%s)", strerror(errno));
            return -1;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (n > cap) {
        free(buf);
        cli_error("stdin is larger than %zu bytes", cap);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

int cli_read_file(const char *path, size_t cap, unsigned char **data, size_t *len)
{
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        cli_error("cannot open '%s' (%s)", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
        cli_error("cannot read '%s' (%s)", path,
                  S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
        close(fd);
        return -1;
    }
    if (strcmp(path, "-") != 0 && !S_ISREG(st.st_mode)) {
        cli_error("cannot read '%s' (not a regular file)", path);
        close(fd);
        return -1;
    }
    /* Back to blocking for a regular file or stdin. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    size_t cap_alloc = 65536, n = 0;
    unsigned char *buf = malloc(cap_alloc);
    if (!buf) {
        close(fd);
        cli_error("out of memory reading '%s'", path);
        return -1;
    }
    for (;;) {
        if (n == cap_alloc) {
            if (cap_alloc > cap) {
                free(buf);
                close(fd);
                cli_error("'%s' is larger than %zu bytes", path, cap);
                return -1;
            }
            unsigned char *nb = realloc(buf, cap_alloc * 2);
            if (!nb) {
                free(buf);
                close(fd);
                cli_error("out of memory reading '%s'", path);
                return -1;
            }
            buf = nb;
            cap_alloc *= 2;
        }
        ssize_t r = read(fd, buf + n, cap_alloc - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_error("cannot read '%s' (%s)", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > cap) {
        free(buf);
        cli_error("'%s' is larger than %zu bytes", path, cap);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}
