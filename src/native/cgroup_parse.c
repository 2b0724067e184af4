/* cgroup_parse.c - pure parsers for the cgroup module (see cgroup_parse.h). */
#include "native/cgroup_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- small tokenizer over (ptr, len) ----------------------------------------------------------
 */

typedef struct span {
    const char *p;
    size_t n;
} span_t;

static bool span_eq(span_t s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* Next token separated by any byte of seps, from *pos; false at the end. */
static bool next_token(const char *buf, size_t len, size_t *pos, const char *seps, span_t *tok)
{
    size_t i = *pos;
    while (i < len && strchr(seps, buf[i]) && buf[i] != '\0')
        i++;
    if (i >= len)
        return false;
    size_t start = i;
    while (i < len && !(strchr(seps, buf[i]) && buf[i] != '\0'))
        i++;
    tok->p = buf + start;
    tok->n = i - start;
    *pos = i;
    return true;
}

static unsigned controller_bit(span_t name)
{
    if (span_eq(name, "memory"))
        return ASB_CGROUP_CTRL_MEMORY;
    if (span_eq(name, "pids"))
        return ASB_CGROUP_CTRL_PIDS;
    if (span_eq(name, "cpu"))
        return ASB_CGROUP_CTRL_CPU;
    if (span_eq(name, "cpuacct"))
        return ASB_CGROUP_CTRL_CPUACCT;
    if (span_eq(name, "blkio") || span_eq(name, "io")) /* v1's name, v2's */
        return ASB_CGROUP_CTRL_IO;
    return 0;
}

/* ---- numbers -----------------------------------------------------------------------------------
 */

/* Decimal digits only: no sign, no spaces, no base prefixes (strtoull accepts all three). */
static int parse_digits(span_t s, uint64_t *out)
{
    if (s.n == 0)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] < '0' || s.p[i] > '9')
            return -EINVAL;
        unsigned d = (unsigned)(s.p[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int asb_cgroup_parse_u64(const char *buf, size_t len, uint64_t *out)
{
    size_t pos = 0;
    span_t tok;
    if (!next_token(buf, len, &pos, " \t\n", &tok))
        return -EINVAL;
    span_t rest;
    if (next_token(buf, len, &pos, " \t\n", &rest))
        return -EINVAL;
    if (span_eq(tok, "max")) {
        *out = UINT64_MAX;
        return 0;
    }
    return parse_digits(tok, out);
}

int asb_cgroup_parse_key_u64(const char *buf, size_t len, const char *key, uint64_t *out)
{
    size_t pos = 0;
    span_t line;
    while (next_token(buf, len, &pos, "\n", &line)) {
        size_t lp = 0;
        span_t k, v, extra;
        if (!next_token(line.p, line.n, &lp, " ", &k) || !span_eq(k, key))
            continue;
        if (!next_token(line.p, line.n, &lp, " ", &v) ||
            next_token(line.p, line.n, &lp, " ", &extra))
            return -EINVAL;
        return parse_digits(v, out);
    }
    return -ENOENT;
}

static int add_u64(uint64_t *sum, uint64_t v)
{
    if (*sum > UINT64_MAX - v)
        return -ERANGE;
    *sum += v;
    return 0;
}

int asb_cgroup_parse_io_read_bytes(const char *buf, size_t len, bool v2, uint64_t *out)
{
    uint64_t sum = 0;
    size_t pos = 0;
    span_t line;
    *out = 0;
    while (next_token(buf, len, &pos, "\n", &line)) {
        size_t lp = 0;
        span_t dev, f;
        unsigned maj, min;
        /* The last v1 line is a bare "Total N": not a device. */
        if (!next_token(line.p, line.n, &lp, " ", &dev) ||
            asb_cgroup_parse_devnum(dev.p, dev.n, &maj, &min) < 0)
            continue;
        if (!v2) {
            span_t v, extra;
            if (!next_token(line.p, line.n, &lp, " ", &f) || !span_eq(f, "Read"))
                continue;
            uint64_t n;
            if (!next_token(line.p, line.n, &lp, " ", &v) ||
                next_token(line.p, line.n, &lp, " ", &extra) || parse_digits(v, &n) < 0)
                return -EINVAL;
            if (add_u64(&sum, n) < 0)
                return -ERANGE;
            continue;
        }
        while (next_token(line.p, line.n, &lp, " ", &f)) {
            if (f.n <= 7 || memcmp(f.p, "rbytes=", 7) != 0)
                continue;
            uint64_t n;
            span_t v = {f.p + 7, f.n - 7};
            if (parse_digits(v, &n) < 0)
                return -EINVAL;
            if (add_u64(&sum, n) < 0)
                return -ERANGE;
        }
    }
    *out = sum;
    return 0;
}

static int parse_dev(span_t s, unsigned *major, unsigned *minor)
{
    const char *colon = memchr(s.p, ':', s.n);
    if (!colon)
        return -EINVAL;
    uint64_t ma, mi;
    span_t a = {s.p, (size_t)(colon - s.p)}, b = {colon + 1, s.n - (size_t)(colon - s.p) - 1};
    if (parse_digits(a, &ma) || parse_digits(b, &mi) || ma > UINT_MAX || mi > UINT_MAX)
        return -EINVAL;
    *major = (unsigned)ma;
    *minor = (unsigned)mi;
    return 0;
}

int asb_cgroup_parse_devnum(const char *buf, size_t len, unsigned *major, unsigned *minor)
{
    while (len > 0 && buf[len - 1] == '\n')
        len--;
    unsigned ma, mi;
    span_t s = {buf, len};
    /* the kernel's dev_t: 12 bits of major, 20 of minor */
    if (parse_dev(s, &ma, &mi) < 0 || ma > 0xfff || mi > 0xfffff)
        return -EINVAL;
    *major = ma;
    *minor = mi;
    return 0;
}

size_t asb_cgroup_parse_pids(const char *buf, size_t len, pid_t *pids, size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i < len && n < max; i++) {
        if (buf[i] != '\n')
            continue;
        span_t s = {buf + start, i - start};
        uint64_t v;
        if (parse_digits(s, &v) == 0 && v > 0 && v <= INT_MAX)
            pids[n++] = (pid_t)v;
        start = i + 1;
    }
    return n;
}

int asb_cgroup_parse_stat_starttime(const char *buf, size_t len, uint64_t *out)
{
    const char *close = NULL;
    for (size_t i = len; i > 0; i--) {
        if (buf[i - 1] == ')') {
            close = buf + i - 1;
            break;
        }
    }
    if (!close)
        return -EINVAL;
    size_t off = (size_t)(close + 1 - buf), pos = 0;
    span_t tok;
    /* Tokens after ')' start at field 3 (state); field 22 is the 20th. */
    for (int field = 3; field <= 22; field++) {
        if (!next_token(buf + off, len - off, &pos, " \n", &tok))
            return -EINVAL;
    }
    return parse_digits(tok, out);
}

int asb_cgroup_parse_timens_boottime(const char *buf, size_t len, int64_t *ns)
{
    size_t pos = 0;
    span_t line;
    while (next_token(buf, len, &pos, "\n", &line)) {
        size_t lp = 0;
        span_t name, secs, nsecs;
        if (!next_token(line.p, line.n, &lp, " \t", &name) || name.n != 8 ||
            memcmp(name.p, "boottime", 8) != 0)
            continue;
        if (!next_token(line.p, line.n, &lp, " \t", &secs) ||
            !next_token(line.p, line.n, &lp, " \t", &nsecs))
            return -EINVAL;
        bool neg = secs.n > 0 && secs.p[0] == '-';
        span_t digits = {secs.p + neg, secs.n - neg};
        uint64_t s, n;
        if (parse_digits(digits, &s) < 0 || parse_digits(nsecs, &n) < 0 || n >= 1000000000ull ||
            s > (uint64_t)(INT64_MAX / 1000000000ll) - 1)
            return -EINVAL;
        /* The kernel prints seconds (may be negative) and a nanosecond part that never is:
         * "-2 500000000" is -1.5 s (review finding: it was read as -2.5 s). */
        int64_t whole = neg ? -(int64_t)s : (int64_t)s;
        *ns = whole * 1000000000ll + (int64_t)n;
        return 0;
    }
    return -EINVAL;
}

int asb_cgroup_host_starttime(uint64_t raw, int64_t off_ns, int64_t tick_ns, uint64_t *out)
{
    if (tick_ns <= 0 || raw > (uint64_t)INT64_MAX)
        return -ERANGE;
    int64_t off = off_ns / tick_ns - (off_ns % tick_ns < 0 ? 1 : 0); /* rounded down */
    int64_t host = (int64_t)raw - off;
    /* The kernel adds the offset to the start in unsigned 64-bit nanoseconds: a negative offset
     * larger than the start wraps, and the reader sees 2^64 ns more (review finding). No real
     * start is anywhere near half of that. */
    int64_t wrap = (int64_t)(UINT64_MAX / (uint64_t)tick_ns);
    if (host > wrap / 2)
        host -= wrap;
    if (host <= 0)
        return -ERANGE;
    *out = (uint64_t)host;
    return 0;
}

bool asb_cgroup_parse_swaps_active(const char *buf, size_t len)
{
    size_t pos = 0;
    span_t line;
    bool header = true;
    while (next_token(buf, len, &pos, "\n", &line)) {
        if (header) {
            header = false;
            continue;
        }
        size_t lp = 0;
        span_t word;
        if (next_token(line.p, line.n, &lp, " \t", &word))
            return true;
    }
    return false;
}

/* ---- controllers --------------------------------------------------------------------------------
 */

unsigned asb_cgroup_parse_controllers(const char *buf, size_t len)
{
    unsigned mask = 0;
    size_t pos = 0;
    span_t tok;
    while (next_token(buf, len, &pos, " \t\n", &tok))
        mask |= controller_bit(tok);
    return mask;
}

void asb_cgroup_controller_names(unsigned mask, char *out, size_t size)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{ASB_CGROUP_CTRL_MEMORY, "memory"},
                 {ASB_CGROUP_CTRL_PIDS, "pids"},
                 {ASB_CGROUP_CTRL_CPU, "cpu"},
                 {ASB_CGROUP_CTRL_CPUACCT, "cpuacct"},
                 {ASB_CGROUP_CTRL_IO, "io (v1 blkio)"}};
    size_t used = 0;
    if (size == 0)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(mask & names[i].bit))
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", names[i].name);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
}

/* ---- mountinfo ----------------------------------------------------------------------------------
 */

/* Decode the \ooo escapes mountinfo uses for space, tab, newline and backslash in paths. */
static int unescape_path(span_t s, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < s.n; i++) {
        char c = s.p[i];
        if (c == '\\' && i + 3 < s.n && s.p[i + 1] >= '0' && s.p[i + 1] <= '3' &&
            s.p[i + 2] >= '0' && s.p[i + 2] <= '7' && s.p[i + 3] >= '0' && s.p[i + 3] <= '7') {
            c = (char)((s.p[i + 1] - '0') * 64 + (s.p[i + 2] - '0') * 8 + (s.p[i + 3] - '0'));
            i += 3;
        }
        if (c == '\0' || o + 1 >= size)
            return -ENAMETOOLONG;
        out[o++] = c;
    }
    out[o] = '\0';
    return 0;
}

int asb_cgroup_mounts_add_line(asb_cgroup_mounts_t *m, const char *line, size_t len)
{
    /* id parent major:minor root mountpoint options [optional...] - fstype source superoptions */
    span_t f[6], tok, fstype = {0}, source = {0}, superopts = {0};
    size_t pos = 0;
    for (int i = 0; i < 6; i++) {
        if (!next_token(line, len, &pos, " ", &f[i]))
            return -EINVAL;
    }
    do {
        if (!next_token(line, len, &pos, " ", &tok))
            return -EINVAL;
    } while (!span_eq(tok, "-"));
    if (!next_token(line, len, &pos, " ", &fstype) || !next_token(line, len, &pos, " ", &source) ||
        !next_token(line, len, &pos, " ", &superopts))
        return span_eq(fstype, "cgroup") || span_eq(fstype, "cgroup2") ? -EINVAL : 0;

    bool v2 = span_eq(fstype, "cgroup2");
    if (!v2 && !span_eq(fstype, "cgroup"))
        return 0;

    asb_cgroup_mount_t cand;
    memset(&cand, 0, sizeof(cand));
    if (parse_dev(f[2], &cand.dev_major, &cand.dev_minor) ||
        unescape_path(f[4], cand.mount, sizeof(cand.mount)))
        return -EINVAL;
    /* The kernel writes absolute mount points; a relative one would make every cgroup path
     * relative to our working directory (found by fuzz_cgroup_parse). */
    if (cand.mount[0] != '/')
        return -EINVAL;
    cand.outside_ns =
        f[3].n >= 3 && memcmp(f[3].p, "/..", 3) == 0 && (f[3].n == 3 || f[3].p[3] == '/');

    if (v2) {
        /* cgroup2 lists its controllers in cgroup.controllers, not in the mount options; the
         * caller reads that file. A mount inside our cgroup namespace beats one above it: a
         * caller that mounted its namespace's own cgroup2 still sees the host's, listed first
         * (review finding, session 15). */
        size_t op = 0;
        span_t opt;
        while (next_token(superopts.p, superopts.n, &op, ",", &opt))
            cand.nsdelegate = cand.nsdelegate || span_eq(opt, "nsdelegate");
        if (!m->has_v2 || (m->v2.outside_ns && !cand.outside_ns)) {
            m->has_v2 = true;
            m->v2 = cand;
        }
        return 0;
    }

    size_t op = 0;
    span_t opt;
    while (next_token(superopts.p, superopts.n, &op, ",", &opt))
        cand.controllers |= controller_bit(opt);
    if (cand.controllers == 0)
        return 0;
    for (size_t i = 0; i < m->n_v1; i++) {
        /* The same hierarchy mounted again (bind mount), or a controller already found: the kernel
         * binds each controller to one hierarchy, so the first mount is as good as any. */
        if ((m->v1[i].dev_major == cand.dev_major && m->v1[i].dev_minor == cand.dev_minor) ||
            (m->v1[i].controllers & cand.controllers))
            return 0;
    }
    if (m->n_v1 >= ASB_CGROUP_MAX_HIERARCHIES)
        return 0;
    m->v1[m->n_v1++] = cand;
    return 0;
}

void asb_cgroup_mounts_scan(asb_cgroup_mounts_t *m, const char *text, size_t len)
{
    memset(m, 0, sizeof(*m));
    size_t pos = 0;
    span_t line;
    while (next_token(text, len, &pos, "\n", &line))
        (void)asb_cgroup_mounts_add_line(m, line.p, line.n);
}

/* ---- owner-tagged names -------------------------------------------------------------------------
 */

bool asb_cgroup_valid_run_id(const char *run_id)
{
    if (!run_id)
        return false;
    size_t n = strnlen(run_id, ASB_CGROUP_RUN_ID_MAX + 1);
    if (n == 0 || n > ASB_CGROUP_RUN_ID_MAX || run_id[0] == '.' || run_id[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = run_id[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

bool asb_cgroup_valid_parent(const char *name)
{
    size_t n = strnlen(name, ASB_CGROUP_PARENT_NAME_MAX);
    if (n == 0 || n >= ASB_CGROUP_PARENT_NAME_MAX || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

int asb_cgroup_format_name(char *out, size_t size, pid_t pid, uint64_t start, uint64_t pidns,
                           const char *run_id)
{
    if (pid <= 0 || pidns == 0 || !asb_cgroup_valid_run_id(run_id))
        return -EINVAL;
    int n = snprintf(out, size, "%s-%d-%llu-p%llu-%s", ASB_OWNER_PREFIX, (int)pid,
                     (unsigned long long)start, (unsigned long long)pidns, run_id);
    if (n < 0 || (size_t)n >= size)
        return -ENAMETOOLONG;
    return 0;
}

int asb_owner_tag_fields(const char *name, uint64_t *pid, uint64_t *start, uint64_t *pidns,
                         const char **rest)
{
    size_t plen = strlen(ASB_OWNER_PREFIX);
    if (strncmp(name, ASB_OWNER_PREFIX, plen) != 0 || name[plen] != '-')
        return -EINVAL;
    const char *p = name + plen + 1;
    const char *d1 = strchr(p, '-');
    if (!d1)
        return -EINVAL;
    const char *d2 = strchr(d1 + 1, '-');
    if (!d2)
        return -EINVAL;
    span_t spid = {p, (size_t)(d1 - p)}, sstart = {d1 + 1, (size_t)(d2 - d1 - 1)};
    if (parse_digits(spid, pid) || parse_digits(sstart, start))
        return -EINVAL;
    const char *r = d2 + 1;
    *pidns = 0;
    /* "p<digits>-": the owner's pid namespace, as asb_cgroup_format_name and asb_owner_tag write
     * it (a run id or random suffix never starts with 'p' and a digit). */
    if (r[0] == 'p' && r[1] >= '0' && r[1] <= '9') {
        const char *d3 = strchr(r, '-');
        span_t sns = {r + 1, d3 ? (size_t)(d3 - r - 1) : 0};
        if (!d3 || parse_digits(sns, pidns) || *pidns == 0)
            return -EINVAL;
        r = d3 + 1;
    }
    *rest = r;
    return 0;
}

int asb_cgroup_parse_name(const char *name, pid_t *pid, uint64_t *start, uint64_t *pidns)
{
    uint64_t vpid, vstart, vns;
    const char *rest;
    if (asb_owner_tag_fields(name, &vpid, &vstart, &vns, &rest) < 0 || vpid == 0 ||
        vpid > INT_MAX || !asb_cgroup_valid_run_id(rest))
        return -EINVAL;
    *pidns = vns;
    *pid = (pid_t)vpid;
    *start = vstart;
    return 0;
}
