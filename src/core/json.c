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
    return json_pack("{s:f, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I}", "timeout_s", l->timeout_s,
                     "memory_bytes", (json_int_t)l->memory_bytes, "pids", (json_int_t)l->pids,
                     "cpus", l->cpus, "output_bytes", (json_int_t)l->output_bytes, "fsize_bytes",
                     (json_int_t)l->fsize_bytes, "nofile", (json_int_t)l->nofile, "file_in_bytes",
                     (json_int_t)l->file_in_bytes, "file_out_bytes", (json_int_t)l->file_out_bytes);
}

static json_t *caps_hex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v);
    return json_string(buf);
}

static json_t *attestation_json(const asb_attestation_t *a)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "present", json_boolean(a->present));
    json_object_set_new(o, "valid", json_boolean(a->valid));
    if (a->mismatch)
        json_object_set_new(o, "mismatch", json_string(a->mismatch));
    if (!a->present)
        return o;
    json_object_set_new(o, "nonce", json_string(a->nonce));
    json_object_set_new(o, "uid", json_integer(a->uid));
    json_object_set_new(o, "gid", json_integer(a->gid));
    json_object_set_new(o, "cap_eff", caps_hex(a->cap_eff));
    json_object_set_new(o, "cap_prm", caps_hex(a->cap_prm));
    json_object_set_new(o, "cap_inh", caps_hex(a->cap_inh));
    json_object_set_new(o, "cap_bnd", caps_hex(a->cap_bnd));
    json_object_set_new(o, "cap_amb", caps_hex(a->cap_amb));
    json_object_set_new(o, "no_new_privs", json_integer(a->no_new_privs));
    json_object_set_new(o, "seccomp_mode", json_integer(a->seccomp_mode));
    json_object_set_new(o, "landlock_abi", json_integer(a->landlock_abi));
    json_object_set_new(o, "landlock_enforced", json_boolean(a->landlock_enforced));
    json_object_set_new(o, "abstract_unix_scoped", json_boolean(a->abstract_unix_scoped));
    json_object_set_new(o, "memfd_noexec", json_integer(a->memfd_noexec));
    json_object_set_new(o, "memfd_create_refused", json_boolean(a->memfd_create_refused));
    json_object_set_new(o, "net_ifaces", json_string(a->net_ifaces ? a->net_ifaces : ""));
    json_object_set_new(o, "loopback_up", json_boolean(a->loopback_up));
    json_object_set_new(o, "root_readonly", json_boolean(a->root_readonly));
    json_object_set_new(o, "hostname", json_string(a->hostname ? a->hostname : ""));
    json_object_set_new(o, "domainname", json_string(a->domainname ? a->domainname : ""));
    json_object_set_new(o, "personality", json_integer(a->personality));
    json_object_set_new(o, "oom_score_adj", json_integer(a->oom_score_adj));
    json_object_set_new(o, "sched_policy", json_integer(a->sched_policy));
    json_object_set_new(o, "rtprio_max", json_integer(a->rtprio_max));
    json_object_set_new(o, "nice", json_integer(a->nice));
    json_object_set_new(o, "nice_max", json_integer(a->nice_max));
    json_object_set_new(o, "ioprio_class", json_integer(a->ioprio_class));
    json_object_set_new(o, "umask", json_integer(a->umask));
    json_object_set_new(o, "pid_ns", json_string(a->pid_ns ? a->pid_ns : ""));
    return o;
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
    for (size_t i = 0; a && i < sizeof(names) / sizeof(names[0]); i++)
        if (w & names[i].bit)
            json_array_append_new(a, json_string(names[i].name));
    return a;
}

static void set_stream(json_t *o, const char *key, const asb_bytes_t *b)
{
    json_object_set_new(o, key, asb_json_text(b->data, b->len));
    /* Exact bytes when the text form could not carry them (invalid UTF-8). */
    if (b->len && !asb_utf8_valid(b->data, b->len)) {
        char k[32];
        snprintf(k, sizeof(k), "%s_base64", key);
        json_object_set_new(o, k, asb_json_base64(b->data, b->len));
    }
}

json_t *asb_result_json(const asb_result_t *res)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "backend", json_string(res->backend));
    json_object_set_new(o, "profile", json_string(res->profile));
    json_object_set_new(o, "status", json_string(asb_status_name(res->status)));
    json_object_set_new(o, "exit_code",
                        res->exit_code >= 0 ? json_integer(res->exit_code) : json_null());
    json_object_set_new(o, "signal", json_integer(res->signal));
    json_object_set_new(o, "duration_s", json_real(res->duration_s));
    json_object_set_new(o, "cpu_time_s", json_real(res->cpu_time_s));
    json_object_set_new(o, "max_rss_kb", json_integer(res->max_rss_kb));
    json_object_set_new(o, "memory_peak_bytes", json_integer((json_int_t)res->memory_peak_bytes));
    json_object_set_new(o, "memory_limit_reached", json_boolean(res->memory_limit_reached));
    json_object_set_new(o, "timed_out", json_boolean(res->timed_out));
    json_object_set_new(o, "out_of_memory", json_boolean(res->out_of_memory));
    json_object_set_new(
        o, "output_truncated",
        json_pack("{s:b, s:b}", "stdout", res->stdout_truncated, "stderr", res->stderr_truncated));
    json_object_set_new(o, "error", res->error ? json_string(res->error) : json_null());
    set_stream(o, "stdout", &res->out);
    set_stream(o, "stderr", &res->err);
    json_t *files = json_object();
    for (size_t i = 0; files && i < res->n_files_out; i++) {
        const asb_file_out_t *f = &res->files_out[i];
        json_t *fo = json_object();
        json_object_set_new(fo, "size", json_integer((json_int_t)f->content.len));
        json_object_set_new(fo, "text", asb_json_text(f->content.data, f->content.len));
        json_object_set_new(fo, "base64", asb_json_base64(f->content.data, f->content.len));
        json_object_set_new(files, f->name, fo);
    }
    json_object_set_new(o, "files_out", files);
    json_t *refused = json_array();
    for (size_t i = 0; refused && i < res->n_files_refused; i++)
        json_array_append_new(refused, json_pack("{s:s, s:s}", "name", res->files_refused[i].name,
                                                 "reason", res->files_refused[i].reason));
    json_object_set_new(o, "files_refused", refused);
    /* What was enforced is said only of a run whose sandbox answered for it: a sandbox_error
     * (refused before it started, or unverifiable) claims no limit (docs QA: refused runs showed
     * the profile's limits as enforced). */
    json_object_set_new(o, "limits",
                        json_pack("{s:o, s:o}", "requested",
                                  asb_limits_json(&res->limits_requested), "enforced",
                                  res->status == ASB_STATUS_SANDBOX_ERROR
                                      ? json_null()
                                      : asb_limits_json(&res->limits_enforced)));
    json_object_set_new(o, "weakened", weakened_json(res->weakened));
    json_object_set_new(o, "prepared", json_boolean(res->prepared));
    json_object_set_new(o, "attestation", attestation_json(&res->attestation));
    return o;
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
