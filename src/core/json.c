#include "core/json.h"
#include "core/error.h"

#include <errno.h>
#include <resolv.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 if it is not one. */
static size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned int min, cp;
    if ((c & 0xe0) == 0xc0) {
        n = 2, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

bool asb_utf8_valid(const unsigned char *buf, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq_len(buf + i, len - i);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

json_t *asb_json_text(const unsigned char *buf, size_t len)
{
    if (!buf || len == 0)
        return json_string("");
    if (asb_utf8_valid(buf, len))
        return json_stringn((const char *)buf, len);
    /* Worst case every byte becomes the 3-byte U+FFFD. */
    unsigned char *out = malloc(len * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq_len(buf + i, len - i);
        if (n) {
            memcpy(out + o, buf + i, n);
            o += n;
            i += n;
        } else {
            out[o++] = 0xef, out[o++] = 0xbf, out[o++] = 0xbd;
            i++;
        }
    }
    json_t *s = json_stringn((const char *)out, o);
    free(out);
    return s;
}

json_t *asb_json_base64(const unsigned char *buf, size_t len)
{
    if (len > (size_t)INT32_MAX / 2)
        return NULL;
    size_t outlen = 4 * ((len + 2) / 3) + 1;
    char *out = malloc(outlen);
    if (!out)
        return NULL;
    /* glibc's encoder (libresolv): RFC 4648 alphabet, '=' padding, no line breaks. */
    int n = len ? b64_ntop(buf, len, out, outlen) : 0;
    if (n < 0) {
        free(out);
        return NULL;
    }
    out[n] = '\0';
    json_t *s = json_stringn(out, (size_t)n);
    free(out);
    return s;
}

json_t *asb_limits_json(const asb_limits_t *l)
{
    return json_pack("{s:f, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "timeout_s",
                     l->timeout_s, "memory_bytes", (json_int_t)l->memory_bytes, "pids",
                     (json_int_t)l->pids, "cpus", l->cpus, "output_bytes",
                     (json_int_t)l->output_bytes, "fsize_bytes", (json_int_t)l->fsize_bytes,
                     "nofile", (json_int_t)l->nofile, "file_in_bytes", (json_int_t)l->file_in_bytes,
                     "file_out_bytes", (json_int_t)l->file_out_bytes, "io_read_bps",
                     (json_int_t)l->io_read_bps, "io_read_iops", (json_int_t)l->io_read_iops);
}

/* "nosuid,nodev,noexec" (ro first when read-only): the ASB_MOUNT_* bits of an attestation. */
static const char *mount_flags(unsigned bits, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *name;
    } f[] = {{ASB_MOUNT_RDONLY, "ro"},
             {ASB_MOUNT_NOSUID, "nosuid"},
             {ASB_MOUNT_NODEV, "nodev"},
             {ASB_MOUNT_NOEXEC, "noexec"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if (bits & f[i].bit) {
            size_t u = strlen(buf);
            snprintf(buf + u, len - u, "%s%s", u ? "," : "", f[i].name);
        }
    return buf;
}

static json_t *caps_hex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v);
    return json_string(buf);
}

/* Every key of a record or none: jansson drops a key whose value could not be made (NULL, out
 * of memory), and a record missing `stdout_base64` would read as "stdout was valid UTF-8"
 * (review finding). PUT records a failed set; whole() gives the object only when none failed. */
#define PUT(obj, key, val) (ok &= json_object_set_new((obj), (key), (val)) == 0)

/* Free text of the record (errors, reasons, what the sandbox reported), valid UTF-8 whatever it
 * holds: an engine's message cut at a byte count may end inside a character, and json_string()
 * refuses that, which now fails the whole record. */
static json_t *text(const char *s)
{
    return asb_json_text((const unsigned char *)(s ? s : ""), s ? strlen(s) : 0);
}

static json_t *whole(json_t *o, bool ok)
{
    if (ok)
        return o;
    json_decref(o);
    return NULL;
}

static json_t *attestation_json(const asb_attestation_t *a)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok = true;
    PUT(o, "present", json_boolean(a->present));
    PUT(o, "valid", json_boolean(a->valid));
    if (a->mismatch)
        PUT(o, "mismatch", text(a->mismatch));
    if (!a->present)
        return whole(o, ok);
    PUT(o, "nonce", text(a->nonce));
    PUT(o, "uid", json_integer(a->uid));
    PUT(o, "gid", json_integer(a->gid));
    PUT(o, "cap_eff", caps_hex(a->cap_eff));
    PUT(o, "cap_prm", caps_hex(a->cap_prm));
    PUT(o, "cap_inh", caps_hex(a->cap_inh));
    PUT(o, "cap_bnd", caps_hex(a->cap_bnd));
    PUT(o, "cap_amb", caps_hex(a->cap_amb));
    PUT(o, "no_new_privs", json_integer(a->no_new_privs));
    PUT(o, "seccomp_mode", json_integer(a->seccomp_mode));
    PUT(o, "landlock_abi", json_integer(a->landlock_abi));
    PUT(o, "landlock_enforced", json_boolean(a->landlock_enforced));
    PUT(o, "abstract_unix_scoped", json_boolean(a->abstract_unix_scoped));
    PUT(o, "memfd_noexec", json_integer(a->memfd_noexec));
    PUT(o, "memfd_create_refused", json_boolean(a->memfd_create_refused));
    PUT(o, "net_ifaces", text(a->net_ifaces));
    PUT(o, "loopback_up", json_boolean(a->loopback_up));
    PUT(o, "root_readonly", json_boolean(a->root_readonly));
    PUT(o, "hostname", text(a->hostname));
    PUT(o, "domainname", text(a->domainname));
    PUT(o, "personality", json_integer(a->personality));
    PUT(o, "oom_score_adj", json_integer(a->oom_score_adj));
    PUT(o, "sched_policy", json_integer(a->sched_policy));
    PUT(o, "rtprio_max", json_integer(a->rtprio_max));
    PUT(o, "nice", json_integer(a->nice));
    PUT(o, "nice_max", json_integer(a->nice_max));
    PUT(o, "ioprio_class", json_integer(a->ioprio_class));
    PUT(o, "umask", json_integer(a->umask));
    PUT(o, "pid_ns", text(a->pid_ns));
    PUT(o, "rlimit_fsize", json_integer(a->rlimit_fsize));
    PUT(o, "rlimit_nofile", json_integer(a->rlimit_nofile));
    PUT(o, "rlimit_core", json_integer(a->rlimit_core));
    PUT(o, "rlimit_sigpending", json_integer(a->rlimit_sigpending));
    PUT(o, "rlimit_msgqueue", json_integer(a->rlimit_msgqueue));
    PUT(o, "groups", json_integer(a->groups));
    char ws[48], tmp[48];
    PUT(o, "workspace_mount", json_string(mount_flags(a->workspace_mount, ws, sizeof(ws))));
    PUT(o, "tmp_mount", json_string(mount_flags(a->tmp_mount, tmp, sizeof(tmp))));
    PUT(o, "session_keyring", json_integer(a->session_keyring));
    return whole(o, ok);
}

static json_t *weakened_json(uint32_t w)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{ASB_WEAKEN_NETNS, "netns"},
                 {ASB_WEAKEN_SECCOMP, "seccomp"},
                 {ASB_WEAKEN_LANDLOCK, "landlock"},
                 {ASB_WEAKEN_CGROUP, "cgroup"},
                 {ASB_WEAKEN_MOUNTS, "mounts"}};
    json_t *a = json_array();
    bool ok = a != NULL;
    for (size_t i = 0; a && i < sizeof(names) / sizeof(names[0]); i++)
        if (w & names[i].bit)
            ok &= json_array_append_new(a, json_string(names[i].name)) == 0;
    return whole(a, ok);
}

static bool set_stream(json_t *o, const char *key, const asb_bytes_t *b)
{
    bool ok = true;
    PUT(o, key, asb_json_text(b->data, b->len));
    /* Exact bytes when the text form could not carry them (invalid UTF-8). */
    if (b->len && !asb_utf8_valid(b->data, b->len)) {
        char k[32];
        snprintf(k, sizeof(k), "%s_base64", key);
        PUT(o, k, asb_json_base64(b->data, b->len));
    }
    return ok;
}

json_t *asb_result_json(const asb_result_t *res)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok = true;
    PUT(o, "backend", json_string(res->backend));
    PUT(o, "profile", json_string(res->profile));
    PUT(o, "status", json_string(asb_status_name(res->status)));
    PUT(o, "exit_code", res->exit_code >= 0 ? json_integer(res->exit_code) : json_null());
    PUT(o, "signal", json_integer(res->signal));
    PUT(o, "duration_s", json_real(res->duration_s));
    PUT(o, "cpu_time_s", json_real(res->cpu_time_s));
    PUT(o, "max_rss_kb", json_integer(res->max_rss_kb));
    PUT(o, "memory_peak_bytes", json_integer((json_int_t)res->memory_peak_bytes));
    PUT(o, "io_read_bytes", json_integer((json_int_t)res->io_read_bytes));
    PUT(o, "memory_limit_reached", json_boolean(res->memory_limit_reached));
    PUT(o, "timed_out", json_boolean(res->timed_out));
    PUT(o, "out_of_memory", json_boolean(res->out_of_memory));
    PUT(o, "output_truncated",
        json_pack("{s:b, s:b}", "stdout", res->stdout_truncated, "stderr", res->stderr_truncated));
    PUT(o, "error", res->error ? text(res->error) : json_null());
    ok &= set_stream(o, "stdout", &res->out);
    ok &= set_stream(o, "stderr", &res->err);
    json_t *files = json_object();
    for (size_t i = 0; files && i < res->n_files_out; i++) {
        const asb_file_out_t *f = &res->files_out[i];
        json_t *fo = json_object();
        bool fok = fo != NULL;
        fok &= json_object_set_new(fo, "size", json_integer((json_int_t)f->content.len)) == 0;
        fok &= json_object_set_new(fo, "text", asb_json_text(f->content.data, f->content.len)) == 0;
        fok &= json_object_set_new(fo, "base64",
                                   asb_json_base64(f->content.data, f->content.len)) == 0;
        ok &= json_object_set_new(files, f->name, whole(fo, fok)) == 0;
    }
    PUT(o, "files_out", files);
    json_t *refused = json_array();
    for (size_t i = 0; refused && i < res->n_files_refused; i++)
        ok &= json_array_append_new(refused, json_pack("{s:o, s:o}", "name",
                                                       text(res->files_refused[i].name), "reason",
                                                       text(res->files_refused[i].reason))) == 0;
    PUT(o, "files_refused", refused);
    /* What was enforced is said only of a run whose sandbox answered for it: a sandbox_error
     * (refused before it started, or unverifiable) claims no limit (docs QA: refused runs showed
     * the profile's limits as enforced). */
    PUT(o, "limits",
        json_pack("{s:o, s:o}", "requested", asb_limits_json(&res->limits_requested), "enforced",
                  res->status == ASB_STATUS_SANDBOX_ERROR
                      ? json_null()
                      : asb_limits_json(&res->limits_enforced)));
    PUT(o, "weakened", weakened_json(res->weakened));
    PUT(o, "prepared", json_boolean(res->prepared));
    PUT(o, "attestation", attestation_json(&res->attestation));
    return whole(o, ok);
}

#define RESULT_JSON_FLAGS (JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER)

/* jansson hands its encoder's output over in pieces of a few bytes (an escaped character is
 * one piece); gathering them here before each fwrite halves the time of a record of escaped
 * output against json_dumpf. */
typedef struct {
    FILE *out;
    size_t used;
    bool failed;
    char buf[64 * 1024];
} dump_sink_t;

static bool sink_flush(dump_sink_t *k)
{
    if (k->used && !k->failed && fwrite(k->buf, 1, k->used, k->out) != k->used)
        k->failed = true;
    k->used = 0;
    return !k->failed;
}

static int sink_put(const char *piece, size_t size, void *data)
{
    dump_sink_t *k = data;
    while (size > 0) {
        if (k->used == sizeof(k->buf) && !sink_flush(k))
            return -1;
        size_t n = sizeof(k->buf) - k->used;
        if (n > size)
            n = size;
        memcpy(k->buf + k->used, piece, n);
        k->used += n, piece += n, size -= n;
    }
    return 0;
}

int asb_result_write_json(const asb_result_t *res, FILE *out, asb_error_t *err)
{
    json_t *o = asb_result_json(res);
    if (!o)
        return asb_err_sys(err, ENOMEM, "encode result");
    /* Streamed: json_dumps of a record of 2 x 64 MiB of invalid UTF-8 grew one buffer to 1 GB
     * (each byte an escaped U+FFFD), 2.6 GB of the CLI's memory at its peak (red-team finding). */
    dump_sink_t *k = malloc(sizeof(*k));
    if (!k) {
        json_decref(o);
        return asb_err_sys(err, ENOMEM, "encode result");
    }
    k->out = out, k->used = 0, k->failed = false;
    errno = 0;
    int rc = json_dump_callback(o, sink_put, k, RESULT_JSON_FLAGS);
    json_decref(o);
    if (rc == 0)
        rc = sink_put("\n", 1, k);
    bool ok = rc == 0 && sink_flush(k);
    free(k);
    if (!ok)
        return asb_err_sys(err, errno ? errno : EIO, "write the result record");
    return 0;
}

int asb_result_to_json(const asb_result_t *res, char **json, asb_error_t *err)
{
    json_t *o = asb_result_json(res);
    if (!o)
        return asb_err_sys(err, ENOMEM, "encode result");
    *json = json_dumps(o, RESULT_JSON_FLAGS);
    json_decref(o);
    if (!*json)
        return asb_err_sys(err, ENOMEM, "encode result");
    return 0;
}
