#include "cli/cli.h"
#include "io/file_in.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

/* The length of the valid UTF-8 sequence at p (1..4) and its code point, or 0 when the bytes
 * there are not one (a stray continuation byte, an overlong form, a surrogate, a cut-off end). */
static size_t utf8_seq(const unsigned char *p, size_t avail, uint32_t *cp)
{
    unsigned char c = p[0];
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0 || n > avail)
        return 0;
    uint32_t v = c & (0xffu >> (n + 1));
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0; /* also stops at the terminating NUL */
        v = (v << 6) | (p[k] & 0x3fu);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

/* Characters that steer a terminal or reorder what it shows: the C1 controls (U+009B is CSI)
 * and the bidirectional marks, embeddings, overrides and isolates. */
static bool steering(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Text that may quote hostile input (submission ids, file names, program output) on a line of
 * the CLI's own: C0 control bytes, DEL and every byte that is not valid UTF-8 are written as
 * \xNN (a raw 0x9b is CSI to an 8-bit terminal), C1 controls and bidi overrides as \uNNNN, so
 * nothing in it can drive the operator's terminal, split the line or paint a fake one over it
 * (red-team and review findings). */
static void put_escaped(FILE *f, const unsigned char *p, size_t len, bool keep_lines)
{
    const unsigned char *end = p + len;
    while (p < end) {
        uint32_t cp = 0;
        size_t n = *p < 0x80 ? 1 : utf8_seq(p, (size_t)(end - p), &cp);
        if (keep_lines && (*p == '\n' || *p == '\t')) {
            fputc(*p, f);
        } else if (*p < 0x80 && (*p < 0x20 || *p == 0x7f)) {
            fprintf(f, "\\x%02x", *p);
        } else if (*p < 0x80) {
            fputc(*p, f);
        } else if (n == 0) {
            fprintf(f, "\\x%02x", *p);
            n = 1;
        } else if (steering(cp)) {
            fprintf(f, "\\u%04x", (unsigned)cp);
        } else {
            fwrite(p, 1, n, f);
        }
        p += n;
    }
}

void cli_put_text(FILE *f, const char *s)
{
    put_escaped(f, (const unsigned char *)s, strlen(s), false);
}

void cli_put_output(FILE *f, const unsigned char *data, size_t len)
{
    put_escaped(f, data, len, true);
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
    /* Plain decimal only: strtod also takes leading spaces, hex floats ("0x10" was 16 s) and
     * "inf"/"nan" words (QA finding). */
    bool plain = s && *s && strspn(s, "0123456789.eE+-") == strlen(s) && *s != '+' && *s != '-';
    double v = plain ? strtod(s, &end) : NAN;
    if (!plain || errno || !end || *end || isnan(v) || v < min || v > max) {
        cli_error("%s: expected a number between %g and %g, got '%s'", flag, min, max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_help_done(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("the help could not be written to standard output");
        return CLI_EXIT_INTERNAL;
    }
    return 0;
}

int cli_once(cli_seen_t *seen, const char *flag)
{
    for (size_t i = 0; i < seen->n; i++)
        if (strcmp(seen->flags[i], flag) == 0) {
            cli_error("%s given twice (give it once)", flag);
            return -1;
        }
    if (seen->n < CLI_MAX_FLAGS)
        seen->flags[seen->n++] = flag;
    return 0;
}

bool cli_value_option(const char *cmd, const char *arg, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(arg, names[i]) == 0)
            return true;
    const char *eq = strchr(arg, '=');
    for (size_t i = 0; eq && names[i]; i++)
        if (strlen(names[i]) == (size_t)(eq - arg) &&
            strncmp(arg, names[i], (size_t)(eq - arg)) == 0) {
            cli_error("%s: unknown option '%s' (give the value as the next argument: %s VALUE)",
                      cmd, arg, names[i]);
            return false;
        }
    cli_error("%s: unknown option '%s' (see agent-sandbox %s --help)", cmd, arg, cmd);
    return false;
}

int cli_parse_u64(const char *flag, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!s || !*s || strspn(s, "0123456789") != strlen(s)) { /* no sign, space or 0x */
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
    int fd = strcmp(path, "-") == 0 ? fcntl(0, F_DUPFD_CLOEXEC, 0)
                                    : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
    /* A kernel file (tracefs trace_pipe, /proc/kmsg) may block a read for ever (QA finding:
     * `--stdin-file trace_pipe` and `< trace_pipe` hung the CLI). It is read without blocking,
     * through a description of our own: our open is one already; stdin's description is
     * shared with whoever gave it to us, so a kernel file there is opened again. A read that
     * would wait is refused; plain files and /proc/cpuinfo never wait. */
    bool is_stdin = strcmp(path, "-") == 0, nonblock = !is_stdin;
    if (is_stdin && S_ISREG(st.st_mode) && asb_pseudo_fs_name(fd)) {
        /* Only what the caller gave us to read, from where it stands (review finding: a
         * write-only stdin was read, and from byte 0). */
        int acc = fcntl(fd, F_GETFL);
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (acc < 0 || (acc & O_ACCMODE) == O_WRONLY) {
            cli_error("cannot read stdin (it is not open for reading)");
            close(fd);
            return -1;
        }
        int again = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (again < 0 || (at > 0 && lseek(again, at, SEEK_SET) != at)) {
            cli_error("cannot read stdin (a kernel file, opened again: %s)", strerror(errno));
            if (again >= 0)
                close(again);
            close(fd);
            return -1;
        }
        close(fd);
        fd = again;
        nonblock = true;
    }
    if (!nonblock) /* stdin: read blocking, as before */
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
        if (r < 0 && errno == EAGAIN && nonblock) {
            cli_error("cannot read '%s' (its read would wait: a kernel file that makes data over "
                      "time; copy it to a regular file first)",
                      is_stdin ? "stdin" : path);
            free(buf);
            close(fd);
            return -1;
        }
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
