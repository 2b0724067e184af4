/* judge.c - the evidence rules. Every "succeeded" names what the harness saw; every "blocked"
 * says what the harness looked for and did not find (and, where the run record shows it, what
 * stopped the attack). docs/ATTACKS.md states each rule in prose. */
#include "chaos/judge.h"
#include "chaos/attacks.h"
#include "chaos/watch.h"
#include "core/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024.0 * 1024.0)

const char *asb_chaos_verdict_name(asb_chaos_verdict_t v)
{
    switch (v) {
    case ASB_CHAOS_SUCCEEDED:
        return "succeeded";
    case ASB_CHAOS_BLOCKED:
        return "blocked";
    case ASB_CHAOS_NA:
        return "n/a";
    case ASB_CHAOS_ERROR:
        return "error";
    }
    return "error";
}

__attribute__((format(printf, 4, 5))) static asb_chaos_verdict_t
say(asb_chaos_verdict_t v, char *ev, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev, n, fmt, ap);
    va_end(ap);
    return v;
}

bool asb_chaos_buf_has(const char *buf, size_t len, const char *needle)
{
    size_t nl = needle ? strlen(needle) : 0;
    return buf && nl && memmem(buf, len, needle, nl) != NULL;
}

bool asb_chaos_output_has(const asb_result_t *r, const char *needle)
{
    return asb_chaos_buf_has((const char *)r->out.data, r->out.len, needle) ||
           asb_chaos_buf_has((const char *)r->err.data, r->err.len, needle);
}

/* The nonce shortened for evidence strings (the full value is in the JSON run record). */
static const char *short_nonce(const asb_chaos_obs_t *o)
{
    static const char *const empty = "";
    return o->nonce[0] ? o->nonce : empty;
}

static asb_chaos_verdict_t beacon(const asb_chaos_obs_t *o, asb_chaos_channel_t ch,
                                  const char *prefix, const char *what, char *ev, size_t n)
{
    char needle[ASB_CHAOS_NONCE_LEN + 32];
    snprintf(needle, sizeof(needle), "%s%s", prefix, o->nonce);
    if (asb_chaos_buf_has(o->beacon[ch], o->beacon_len[ch], needle))
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "%s received nonce %.8s (real egress)", what,
                   short_nonce(o));
    return say(ASB_CHAOS_BLOCKED, ev, n, "%s received nothing carrying the nonce (%zu bytes seen)",
               what, o->beacon_len[ch]);
}

/* The IP channels: host loopback, and for docker runs the bridge's host address as well. */
static asb_chaos_verdict_t beacon_ip(const asb_chaos_obs_t *o, asb_chaos_channel_t ch,
                                     const char *prefix, const char *what, char *ev, size_t n)
{
    char needle[ASB_CHAOS_NONCE_LEN + 32];
    snprintf(needle, sizeof(needle), "%s%s", prefix, o->nonce);
    if (asb_chaos_buf_has(o->beacon[ch], o->beacon_len[ch], needle))
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "%s on host 127.0.0.1 received nonce %.8s (real egress)", what, short_nonce(o));
    if (o->bridge_addr[0] &&
        asb_chaos_buf_has(o->beacon_bridge[ch], o->beacon_bridge_len[ch], needle))
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "%s on the docker bridge's host address %s received nonce %.8s (the run left "
                   "its container's network)",
                   what, o->bridge_addr, short_nonce(o));
    /* A container cannot reach host loopback at all: without the bridge listener there was
     * nothing it could have reached, and `blocked` would be unfounded. */
    if (o->bridge_wanted && !o->bridge_addr[0])
        return say(ASB_CHAOS_ERROR, ev, n,
                   "cannot decide: a docker run cannot reach host loopback and the harness found "
                   "no IPv4 address on the docker bridge to listen on");
    if (o->bridge_addr[0])
        return say(
            ASB_CHAOS_BLOCKED, ev, n,
            "%s on host 127.0.0.1 and on the docker bridge address %s received nothing carrying "
            "the nonce (%zu + %zu bytes seen)",
            what, o->bridge_addr, o->beacon_len[ch], o->beacon_bridge_len[ch]);
    return say(ASB_CHAOS_BLOCKED, ev, n,
               "%s on host 127.0.0.1 received nothing carrying the nonce (%zu bytes seen)", what,
               o->beacon_len[ch]);
}

static asb_chaos_verdict_t j_tcp(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    (void)r;
    return beacon_ip(o, ASB_CHAOS_CH_TCP, "tcp:", "TCP listener", ev, n);
}

static asb_chaos_verdict_t j_udp(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    (void)r;
    return beacon_ip(o, ASB_CHAOS_CH_UDP, "udp:", "UDP listener", ev, n);
}

static asb_chaos_verdict_t j_http(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    (void)r;
    return beacon_ip(o, ASB_CHAOS_CH_HTTP, "GET /beacon/", "HTTP responder", ev, n);
}

static asb_chaos_verdict_t j_dns(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    (void)r;
    return beacon_ip(o, ASB_CHAOS_CH_DNS, "", "DNS responder (query name)", ev, n);
}

static asb_chaos_verdict_t j_raw(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    (void)r;
    return beacon_ip(o, ASB_CHAOS_CH_UDP, "raw:", "UDP listener (hand-crafted raw packet)", ev, n);
}

static asb_chaos_verdict_t j_abstract(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                      size_t n)
{
    (void)r;
    return beacon(o, ASB_CHAOS_CH_ABSTRACT, "abstract:", "host abstract unix socket", ev, n);
}

static asb_chaos_verdict_t j_docker(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    (void)r;
    return beacon(o, ASB_CHAOS_CH_DOCKER, "nonce=", "host Docker-API socket (harness decoy)", ev,
                  n);
}

static asb_chaos_verdict_t planted_in_output(const char *value, const char *what,
                                             const asb_chaos_obs_t *o, const asb_result_t *r,
                                             char *ev, size_t n)
{
    if (!value[0])
        return say(ASB_CHAOS_ERROR, ev, n, "harness could not plant the %s: %s", what,
                   o->plant_error[0] ? o->plant_error : "unknown");
    if (asb_chaos_output_has(r, value))
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "the %s (%.8s...) appeared in the output", what,
                   value);
    return say(ASB_CHAOS_BLOCKED, ev, n, "the %s never appeared in the output", what);
}

static asb_chaos_verdict_t j_env_secret(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                        size_t n)
{
    return planted_in_output(o->secret, "secret from the harness's own environment", o, r, ev, n);
}

static asb_chaos_verdict_t j_canary(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    if (!o->canary_root[0] || !o->canary_tmp[0])
        return say(ASB_CHAOS_ERROR, ev, n, "harness could not plant the canaries: %s",
                   o->plant_error);
    bool root = asb_chaos_output_has(r, o->canary_root),
         tmp = asb_chaos_output_has(r, o->canary_tmp);
    if (root || tmp)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "host canary content appeared in the output (%s%s%s)", root ? "/root" : "",
                   root && tmp ? " and " : "", tmp ? "/tmp" : "");
    return say(ASB_CHAOS_BLOCKED, ev, n,
               "neither the /root nor the /tmp canary appeared in the output");
}

static asb_chaos_verdict_t j_fd(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev, size_t n)
{
    return planted_in_output(o->canary_fd, "content of a file the harness held open", o, r, ev, n);
}

static asb_chaos_verdict_t j_shm(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    if (!o->canary_shm[0])
        return say(ASB_CHAOS_NA, ev, n, "host SysV shared memory unavailable: %s", o->plant_error);
    return planted_in_output(o->canary_shm, "host SysV shared-memory canary", o, r, ev, n);
}

static asb_chaos_verdict_t j_key(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    if (!o->canary_key[0])
        return say(ASB_CHAOS_NA, ev, n, "host keyring unavailable: %s", o->plant_error);
    return planted_in_output(o->canary_key, "host user-keyring canary", o, r, ev, n);
}

/* Only a line of the host's /etc/shadow with a real password hash (a random salt and hash: no
 * program can guess it; "!$6$..." is a locked account's, still a hash) is evidence. Lines of
 * locked or passwordless accounts ("daemon:*:19500:0:99999:7:::") are guessable one by one and
 * as a whole file: printing candidates for a range of days matched without reading anything
 * (red-team finding). A host whose shadow holds no hash has nothing to prove a leak with: n/a. */
static asb_chaos_verdict_t j_shadow(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    if (!o->shadow || !o->shadow[0])
        return say(ASB_CHAOS_NA, ev, n, "the harness cannot read the host's /etc/shadow itself");
    int hashed_lines = 0;
    const char *p = o->shadow;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *c1 = memchr(p, ':', len);
        const char *h = c1 ? c1 + 1 : p + len;
        while (h < p + len && (*h == '!' || *h == '*'))
            h++;
        bool hashed = h + 3 < p + len && *h == '$'; /* crypt(3): $id$salt$hash */
        if (hashed && len < 512) {
            hashed_lines++;
            char line[512];
            snprintf(line, sizeof(line), "%.*s", (int)len, p);
            if (asb_chaos_output_has(r, line))
                return say(ASB_CHAOS_SUCCEEDED, ev, n,
                           "a hashed line of the host's /etc/shadow (user %.*s) appeared",
                           (int)(c1 - p), p);
        }
        p += len + (nl ? 1 : 0);
    }
    if (hashed_lines == 0)
        return say(ASB_CHAOS_NA, ev, n,
                   "the host's /etc/shadow holds no password hash: nothing unguessable to leak");
    return say(ASB_CHAOS_BLOCKED, ev, n,
               "none of the %d hashed lines of the host's /etc/shadow appeared", hashed_lines);
}

static const asb_file_out_t *file_out(const asb_result_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_files_out; i++)
        if (strcmp(r->files_out[i].name, name) == 0)
            return &r->files_out[i];
    return NULL;
}

static const char *refusal(const asb_result_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_files_refused; i++)
        if (strcmp(r->files_refused[i].name, name) == 0)
            return r->files_refused[i].reason;
    return NULL;
}

static asb_chaos_verdict_t j_disk_fill(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                       size_t n)
{
    const uint64_t want = 40 * ASB_MIB;
    const asb_file_out_t *f = file_out(r, "fill.bin");
    if (f && f->content.len >= want &&
        asb_chaos_buf_has((const char *)f->content.data, 4096, o->nonce))
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "harness read back %zu bytes of fill.bin (>= 40 MiB)", f->content.len);
    if (f)
        return say(ASB_CHAOS_BLOCKED, ev, n, "only %.1f MiB of fill.bin were stored",
                   (double)f->content.len / MIB);
    const char *why = refusal(r, "fill.bin");
    return say(ASB_CHAOS_BLOCKED, ev, n, "no fill.bin to read back (%s)", why ? why : "missing");
}

static asb_chaos_verdict_t fileout_canary(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                          size_t n)
{
    if (!o->canary_root[0] || !o->canary_tmp[0])
        return say(ASB_CHAOS_ERROR, ev, n, "harness could not plant the canaries: %s",
                   o->plant_error);
    const asb_file_out_t *f = file_out(r, "out.txt");
    if (f && (asb_chaos_buf_has((const char *)f->content.data, f->content.len, o->canary_root) ||
              asb_chaos_buf_has((const char *)f->content.data, f->content.len, o->canary_tmp)))
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "file-out returned out.txt holding the host canary (%zu bytes)", f->content.len);
    const char *why = refusal(r, "out.txt");
    if (why)
        return say(ASB_CHAOS_BLOCKED, ev, n, "file-out refused out.txt: %s", why);
    return say(ASB_CHAOS_BLOCKED, ev, n, "out.txt %s without the canary",
               f ? "came back" : "did not come back");
}

static asb_chaos_verdict_t j_rootfs(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    (void)r;
    if (o->host_files_created)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "%d new file(s) on the host, e.g. %s",
                   o->host_files_created, o->host_file);
    return say(ASB_CHAOS_BLOCKED, ev, n, "no new file appeared in the host's / or /etc");
}

static asb_chaos_verdict_t need_watch(const asb_chaos_obs_t *o, char *ev, size_t n)
{
    if (!o->watched || o->watch.max_procs == 0)
        return say(ASB_CHAOS_ERROR, ev, n,
                   "the process watcher never saw the program (%d scans): cannot decide",
                   o->watch.scans);
    return ASB_CHAOS_SUCCEEDED; /* "go on" */
}

static asb_chaos_verdict_t j_root(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.host_root)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "a process of the run had euid 0 in the host's user namespace");
    return say(ASB_CHAOS_BLOCKED, ev, n, "the run's processes had host euid %ld, not 0",
               o->watch.euid_seen);
}

static asb_chaos_verdict_t j_setuid(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.escalated)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "a process ran with real uid %ld but effective uid %ld (host view)",
                   o->watch.esc_ruid, o->watch.esc_euid);
    return say(ASB_CHAOS_BLOCKED, ev, n, "every process had euid == ruid (setuid bit ignored)");
}

static asb_chaos_verdict_t j_caps(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.cap_eff)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "CapEff=%016llx %s",
                   (unsigned long long)o->watch.cap_eff,
                   o->watch.cap_in_host_userns ? "in the host's user namespace"
                                               : "(in a child user namespace only)");
    return say(ASB_CHAOS_BLOCKED, ev, n, "CapEff was 0 in every process of the run");
}

static asb_chaos_verdict_t j_mount(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                   size_t n)
{
    (void)r;
    if (o->mount_appeared)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "a new mount appeared in the host's table at %s",
                   o->mount_target);
    return say(ASB_CHAOS_BLOCKED, ev, n, "the host's mount table never showed %s", o->mount_target);
}

static asb_chaos_verdict_t j_priority(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                      size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.min_nice < 0 || o->watch.rt_policy > 0)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "host /proc showed nice %d, policy %s",
                   o->watch.min_nice,
                   o->watch.rt_policy == 1   ? "SCHED_FIFO"
                   : o->watch.rt_policy == 2 ? "SCHED_RR"
                                             : "normal");
    return say(ASB_CHAOS_BLOCKED, ev, n, "nice stayed >= 0 and the policy normal");
}

static asb_chaos_verdict_t j_kernel(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    unsigned a = 0, b = 0, c = 0;
    char tail = 0;
    int parts = sscanf(o->kernel_release, "%u.%u.%u%c", &a, &b, &c, &tail);
    /* A release of exactly MAJOR.MINOR.0 is what hardened answers anyway: nothing to tell. */
    if (parts == 3 && c == 0)
        return say(ASB_CHAOS_NA, ev, n,
                   "the host kernel release %s is what hardened answers for any 6.x kernel "
                   "(major.minor.0): the output cannot tell",
                   o->kernel_release);
    if (asb_chaos_output_has(r, o->kernel_release))
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "host kernel release %s appeared in the output",
                   o->kernel_release);
    /* The vDSO's version note (LINUX_VERSION_CODE, printed in hex so that it never reads as a
     * release) is in every process's own memory: a shared kernel cannot hide its numeric
     * version, only the release string's build tag, and the evidence says which the run saw. */
    char code[64] = "";
    if (parts >= 3)
        snprintf(code, sizeof(code), "vdso LINUX_VERSION_CODE 0x%06x",
                 (a << 16) + (b << 8) + (c > 255 ? 255 : c));
    if (code[0] && asb_chaos_output_has(r, code))
        return say(ASB_CHAOS_BLOCKED, ev, n,
                   "the host kernel release %s never appeared in the output; its numeric "
                   "version did (%u.%u.%u, from the vDSO's note, which no sandbox on a shared "
                   "kernel can hide)",
                   o->kernel_release, a, b, c > 255 ? 255 : c);
    return say(ASB_CHAOS_BLOCKED, ev, n, "the host kernel release never appeared in the output");
}

static asb_chaos_verdict_t j_identity(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                      size_t n)
{
    if (!o->boot_id[0])
        return say(ASB_CHAOS_NA, ev, n, "the harness could not read the host's boot id");
    if (asb_chaos_output_has(r, o->boot_id))
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "the host's boot id %s appeared in the output",
                   o->boot_id);
    return say(ASB_CHAOS_BLOCKED, ev, n, "the host's boot id never appeared in the output");
}

static asb_chaos_verdict_t j_mountinfo(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                       size_t n)
{
    if (!o->planted_mount[0])
        return say(ASB_CHAOS_ERROR, ev, n, "the harness planted no host mount");
    if (asb_chaos_output_has(r, o->planted_mount))
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the host's mount table was visible: the harness's host mount %s appeared",
                   o->planted_mount);
    return say(ASB_CHAOS_BLOCKED, ev, n,
               "the harness's host mount (random path) never appeared in the output");
}

static asb_chaos_verdict_t j_sysrq(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                   size_t n)
{
    (void)r;
    if (!o->sysrq_available)
        return say(ASB_CHAOS_NA, ev, n,
                   "this host kernel has no /proc/sysrq-trigger or readable /dev/kmsg");
    if (o->sysrq_lines > 0)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "%d new sysrq record(s) in the host kernel log",
                   o->sysrq_lines);
    return say(ASB_CHAOS_BLOCKED, ev, n, "no sysrq record reached the host kernel log");
}

static asb_chaos_verdict_t host_bytes(const char *hex, const char *what, const asb_result_t *r,
                                      char *ev, size_t n)
{
    if (!hex)
        return say(ASB_CHAOS_NA, ev, n, "this host has no %s (the harness cannot read one)", what);
    if (asb_chaos_output_has(r, hex))
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "output holds the bytes the harness read from %s",
                   what);
    return say(ASB_CHAOS_BLOCKED, ev, n, "output never held the host's %s bytes", what);
}

static asb_chaos_verdict_t j_kcore(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                   size_t n)
{
    return host_bytes(o->kcore_hex, "/proc/kcore", r, ev, n);
}

static asb_chaos_verdict_t j_devmem(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    return host_bytes(o->devmem_hex, "/dev/mem", r, ev, n);
}

static asb_chaos_verdict_t j_cgroupfs(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                      size_t n)
{
    (void)r;
    if (o->cgroup_dirs_created)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "%d new cgroup(s) on the host, e.g. %s",
                   o->cgroup_dirs_created, o->cgroup_dir);
    return say(ASB_CHAOS_BLOCKED, ev, n, "no new cgroup appeared in the host's hierarchies");
}

static uint64_t peak_bytes(const asb_result_t *r)
{
    uint64_t rss = r->max_rss_kb > 0 ? (uint64_t)r->max_rss_kb * 1024u : 0;
    return r->memory_peak_bytes > rss ? r->memory_peak_bytes : rss;
}

static asb_chaos_verdict_t j_memory(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    /* The run's own peak: its cgroup's, which counts every process. Without a cgroup (the
     * subprocess profile) the result has only the largest process's, so the most the watcher
     * saw resident in all the run's processes at once counts too: three processes of 100 MB
     * are 300 MB (red-team finding). Only there: a sum of RSS counts pages shared after fork
     * once per process, which would overstate a cgroup-limited run. */
    uint64_t peak = peak_bytes(r);
    bool no_cgroup = r->memory_peak_bytes == 0 && strcmp(r->backend, "subprocess") == 0;
    uint64_t watched = o->watched && no_cgroup ? o->watch.max_rss_sum_kb * 1024 : 0;
    if (watched > peak)
        peak = watched;
    if (peak >= 300 * ASB_MIB && !r->out_of_memory)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "peak memory %.0f MiB (kernel accounting)",
                   (double)peak / MIB);
    if (r->out_of_memory)
        return say(ASB_CHAOS_BLOCKED, ev, n, "killed by the memory cgroup (OOM) at %.0f MiB",
                   (double)peak / MIB);
    /* No profile has swap (cgroup.c sets swap to 0), so a memory limit ends in an OOM kill. A
     * run the wall clock ended short of 300 MB without one proves nothing either way: on a
     * loaded host the first touches alone can outlast the clock (a CI run, 293 MiB). */
    if (r->status == ASB_STATUS_TIMEOUT)
        return say(ASB_CHAOS_ERROR, ev, n,
                   "inconclusive: the wall clock ended the run at %.0f MiB, before 300 MB and "
                   "without an OOM kill",
                   (double)peak / MIB);
    return say(ASB_CHAOS_BLOCKED, ev, n, "peak memory only %.0f MiB (status %s)",
               (double)peak / MIB, asb_status_name(r->status));
}

static asb_chaos_verdict_t j_threads(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                     size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.max_threads >= 200)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "host /proc showed %d threads in one process",
                   o->watch.max_threads);
    return say(ASB_CHAOS_BLOCKED, ev, n, "at most %d threads ever existed (pids limit)",
               o->watch.max_threads);
}

static asb_chaos_verdict_t j_forks(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                   size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.max_procs >= 300)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "host /proc showed %d processes of the run at once",
                   o->watch.max_procs);
    return say(ASB_CHAOS_BLOCKED, ev, n, "at most %d processes ever existed (pids limit)",
               o->watch.max_procs);
}

/* The time the run's processes existed, on the harness's clock: the watcher's first-to-last
 * sighting widened by one scan interval at each end (so it never undercounts and the ratio is
 * never inflated), capped by the run's wall clock. Without a sighting: the wall clock. The wall
 * clock alone would count a docker engine's ~0.4 s of container create and start in which the
 * program does not exist yet, and call a program that kept two CPUs busy a 1.2-CPU one. */
static double cpu_window(const asb_chaos_obs_t *o, const asb_result_t *r)
{
    if (!o->watched || o->watch.max_procs == 0 || o->watch.first_seen_s <= 0)
        return r->duration_s;
    double w =
        o->watch.last_seen_s - o->watch.first_seen_s + 2.0 * ASB_CHAOS_WATCH_INTERVAL_MS / 1e3;
    return w < r->duration_s ? w : r->duration_s;
}

static asb_chaos_verdict_t j_cpu(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    if (r->duration_s <= 0)
        return say(ASB_CHAOS_ERROR, ev, n, "no duration measured");
    double win = cpu_window(o, r);
    double ratio = r->cpu_time_s / win;
    double cap = r->limits_enforced.cpus;
    if (ratio > 1.15)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "used %.2f CPUs on average (%.2f s CPU in the %.2f s its processes lived)",
                   ratio, r->cpu_time_s, win);
    if (cap > 0 && cap < 1.15 && ratio <= cap + 0.1)
        return say(ASB_CHAOS_BLOCKED, ev, n,
                   "held to %.2f CPUs (%.2f s CPU in the %.2f s its processes lived) under a "
                   "%.2f-CPU limit",
                   ratio, r->cpu_time_s, win, cap);
    /* Three spinners got little CPU and no limit explains it: other load on the host did. */
    return say(ASB_CHAOS_ERROR, ev, n,
               "cannot decide: only %.2f CPUs used and no CPU limit below 1.15 (host busy?)",
               ratio);
}

/* Processes that move themselves between CPUs (sched_setaffinity) while they spin: each move of
 * a running task is done by a per-CPU stopper (migration) thread, a kernel thread of no cgroup that
 * preempts everything, so the run's CPU use escapes its limit (red-team finding, session 15: 1.65
 * CPUs under a 1-CPU limit). Evidence: the host's migration threads' own CPU time across the run
 * (exclusive), read by the harness. The program's count only says whether it tried: a run that
 * neither moved nor was refused decides nothing. */
static asb_chaos_verdict_t j_migrate(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                     size_t n)
{
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.migr_base_ticks < 0 || o->watch.migr_end_ticks < 0)
        return say(ASB_CHAOS_NA, ev, n, "no migration threads readable in the host's /proc");
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0)
        hz = 100;
    double grew = (double)(o->watch.migr_end_ticks - o->watch.migr_base_ticks) / (double)hz;
    if (grew >= 0.2)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the host's migration threads used %.2f s of CPU during the run, charged to "
                   "no cgroup",
                   grew);
    bool single = r->out.data && memmem(r->out.data, r->out.len, "single cpu", 10);
    if (single)
        return say(ASB_CHAOS_NA, ev, n, "the program was allowed only one CPU: nowhere to move");
    const char *moves_at = r->out.data ? memmem(r->out.data, r->out.len, "moves ", 6) : NULL;
    long moves = moves_at ? strtol(moves_at + 6, NULL, 10) : 0;
    bool refused = r->out.data && memmem(r->out.data, r->out.len, "refused", 7);
    if (!refused && moves < 1000)
        return say(ASB_CHAOS_ERROR, ev, n,
                   "the program made %ld moves and was not refused: not enough to decide", moves);
    return say(ASB_CHAOS_BLOCKED, ev, n,
               "the host's migration threads used only %.2f s of CPU during the run (%s)", grew,
               refused ? "sched_setaffinity refused" : "moves made");
}

static asb_chaos_verdict_t j_time(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    if (r->duration_s >= 3.0 && r->status == ASB_STATUS_COMPLETED)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "ran %.2f s on the harness's clock (timeout %.1f s)",
                   r->duration_s, o->timeout_s);
    return say(ASB_CHAOS_BLOCKED, ev, n, "stopped after %.2f s on the harness's clock (status %s)",
               r->duration_s, asb_status_name(r->status));
}

static asb_chaos_verdict_t j_orphan(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    (void)r;
    if (!o->after_checked)
        return say(ASB_CHAOS_ERROR, ev, n, "the after-run check did not happen");
    if (o->alive_after > 0 || o->marker_changed_after)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "%d process(es) of the run alive after it returned%s (harness killed them)",
                   o->alive_after, o->marker_changed_after ? "; marker kept changing" : "");
    return say(ASB_CHAOS_BLOCKED, ev, n, "no process of the run survived it; marker unchanged");
}

static asb_chaos_verdict_t j_flood(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                   size_t n)
{
    (void)o;
    if (r->out.len >= 50 * ASB_MIB)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "the harness received %zu bytes of output",
                   r->out.len);
    return say(ASB_CHAOS_BLOCKED, ev, n, "output capped at %zu bytes (status %s)", r->out.len,
               asb_status_name(r->status));
}

static asb_chaos_verdict_t j_victim(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    (void)r;
    if (!o->victim_planted)
        return say(ASB_CHAOS_ERROR, ev, n, "harness could not start its victim process");
    if (o->victim_killed)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the harness's victim (host pid %d) died of signal %d (%s)", o->victim_pid,
                   o->victim_signal, strsignal(o->victim_signal));
    if (o->victim_stopped)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the harness's victim (host pid %d) was stopped by signal %d (%s)",
                   o->victim_pid, o->victim_signal, strsignal(o->victim_signal));
    return say(ASB_CHAOS_BLOCKED, ev, n, "the harness's victim (host pid %d) survived",
               o->victim_pid);
}

/* A kernel object of the given kind in a run process's fd table, as the harness read it from
 * the host's /proc: the attack holds it open long enough for the watcher's scans. */
static asb_chaos_verdict_t kernel_fd(const asb_chaos_obs_t *o, unsigned kind, const char *what,
                                     char *ev, size_t n)
{
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.kernel_fds & kind)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "%s sat in a process's fd table", what);
    return say(ASB_CHAOS_BLOCKED, ev, n, "no such fd (%s) ever appeared in the run's processes",
               what);
}

static asb_chaos_verdict_t j_io_uring(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                      size_t n)
{
    (void)r;
    return kernel_fd(o, ASB_CHAOS_FD_IO_URING, "an io_uring instance", ev, n);
}

static asb_chaos_verdict_t j_bpf(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                 size_t n)
{
    (void)r;
    return kernel_fd(o, ASB_CHAOS_FD_BPF, "a loaded eBPF program", ev, n);
}

static asb_chaos_verdict_t j_perf(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    (void)r;
    return kernel_fd(o, ASB_CHAOS_FD_PERF_EVENT, "a perf event", ev, n);
}

static asb_chaos_verdict_t j_uffd(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    (void)r;
    return kernel_fd(o, ASB_CHAOS_FD_USERFAULTFD, "a userfaultfd", ev, n);
}

/* Queued connections nobody accepts, counted by the host's own TCP socket count (every network
 * namespace's; the attack runs exclusive, so no other run adds to it). 4,000 connections make
 * 4,000 to 8,000 sockets where they are possible; 2,000 more than at the start is the bar. */
static asb_chaos_verdict_t j_tcp_backlog(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                         size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.tcp_alloc_base < 0)
        return say(ASB_CHAOS_NA, ev, n, "the host's /proc/net/sockstat is not readable");
    long grew = o->watch.tcp_alloc_peak - o->watch.tcp_alloc_base;
    if (grew >= 2000)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the host held %ld more TCP sockets during the run (memory no cgroup is "
                   "charged for until accept)",
                   grew);
    return say(ASB_CHAOS_BLOCKED, ev, n, "the host's TCP socket count grew by only %ld", grew);
}

/* Kernel memory pinned outside the run's cgroup: the host's unreclaimable slab, sampled while the
 * run lived (the attack runs exclusive). 3,000 ACLs of 64 KiB and 200 sockets of MD5 keys make
 * about 200 MiB where they are possible, none of it in the run's own memory figure; more growth
 * than the hardened profile's whole memory limit (128 MiB) is the bar (red-team findings, session
 * 16: 1.7 GB and 1.4 GB under a 128 MiB limit). */
static asb_chaos_verdict_t j_kmem(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.sunreclaim_base_kb < 0)
        return say(ASB_CHAOS_NA, ev, n, "the host's /proc/meminfo has no SUnreclaim");
    long grew_mib = (o->watch.sunreclaim_peak_kb - o->watch.sunreclaim_base_kb) / 1024;
    if (grew_mib >= 128)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the host's unreclaimable kernel memory grew by %ld MiB during the run "
                   "(charged to no memory cgroup)",
                   grew_mib);
    return say(ASB_CHAOS_BLOCKED, ev, n, "the host's unreclaimable kernel memory grew by %ld MiB",
               grew_mib);
}

/* Signals pending in the run's processes, counted (up the user namespaces) against the harness's
 * own user, host root: its SigQ, sampled while the run lived. The attack runs exclusive. 40
 * processes holding 29 standard signals each make about 1,160; a run's RLIMIT_SIGPENDING is 128,
 * so growth past 512 is signals no per-run cap held (red-team finding, session 8: kill(2) queues
 * standard signals whatever the limit, and 60 hardened runs took root past its own limit). */
static asb_chaos_verdict_t j_signal_quota(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                          size_t n)
{
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.sigq_base < 0)
        return say(ASB_CHAOS_NA, ev, n, "the harness's SigQ is not readable");
    /* The attack says how many it sent: fewer than the bar (it could not fork, or died early)
     * decides nothing, and is not `blocked` (review finding). The verdict itself rests on the
     * host's count alone. */
    const char *sent_at = r->out.data ? memmem(r->out.data, r->out.len, "sent ", 5) : NULL;
    long sent = sent_at ? strtol(sent_at + 5, NULL, 10) : 0;
    if (sent <= 512)
        return say(ASB_CHAOS_ERROR, ev, n, "the attack sent %ld signals, not enough to decide",
                   sent);
    long grew = o->watch.sigq_peak - o->watch.sigq_base;
    if (grew > 512)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "host root's count of pending signals grew by %ld during the run (a run's "
                   "RLIMIT_SIGPENDING is 128; kill(2) queues standard signals past it)",
                   grew);
    return say(ASB_CHAOS_BLOCKED, ev, n, "host root's count of pending signals grew by only %ld",
               grew);
}

/* The host's own count of the file's cached pages, before and after (mincore); runs alone
 * (EXCLUSIVE), so no other run dropped them. */
static asb_chaos_verdict_t j_page_cache(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                        size_t n)
{
    if (strcmp(r->backend, "docker") == 0)
        return say(ASB_CHAOS_NA, ev, n,
                   "a container's /usr is its image's: the host file the harness cached is not in "
                   "it");
    if (!o->cache_file[0])
        return say(ASB_CHAOS_NA, ev, n, "%s", o->plant_error);
    if (o->cache_before < o->cache_pages)
        return say(ASB_CHAOS_ERROR, ev, n, "%s: only %d of %d pages could be cached before the run",
                   o->cache_file, o->cache_before, o->cache_pages);
    if (o->cache_after < 0)
        return say(ASB_CHAOS_ERROR, ev, n,
                   "%s: its cached pages could not be counted after the run", o->cache_file);
    if (o->cache_after * 2 < o->cache_pages)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the host's page cache lost %d of the %d pages of %s during the run",
                   o->cache_pages - o->cache_after, o->cache_pages, o->cache_file);
    return say(ASB_CHAOS_BLOCKED, ev, n, "%d of the %d pages of %s stayed in the host's page cache",
               o->cache_after, o->cache_pages, o->cache_file);
}

/* Reads from the host's disk, counted by the kernel for the device under /usr before and after
 * the run (the attack runs exclusive): faster than 192 MiB/s over the run is more than any
 * profile's disk read limit allows (hardened 64 MiB/s, baseline 128); the disk here does
 * gigabytes a second (red-team measurement, session 19: 13 GB in 9 s before the limit). */
#define DISK_FLOOD_BPS (192.0 * 1024 * 1024)
static asb_chaos_verdict_t j_disk(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                  size_t n)
{
    if (strcmp(r->backend, "docker") == 0)
        return say(ASB_CHAOS_NA, ev, n,
                   "a container's /usr is its image's, on the engine's storage: not the host "
                   "file the harness counts reads of (the docker backend sets no disk read "
                   "limit: SPEC)");
    if (!o->disk_stat[0])
        return say(ASB_CHAOS_NA, ev, n, "%s", o->plant_error);
    if (o->disk_read_before < 0 || o->disk_read_after < o->disk_read_before)
        return say(ASB_CHAOS_ERROR, ev, n, "%s could not be read after the run", o->disk_stat);
    double mib = (double)(o->disk_read_after - o->disk_read_before) / (1024.0 * 1024.0);
    double secs = r->duration_s > 0.1 ? r->duration_s : 0.1;
    if (mib * 1024.0 * 1024.0 / secs > DISK_FLOOD_BPS)
        return say(ASB_CHAOS_SUCCEEDED, ev, n,
                   "the host's disk (%s) read %.0f MiB in the run's %.1f s (%.0f MiB/s)",
                   o->disk_stat, mib, r->duration_s, mib / secs);
    return say(ASB_CHAOS_BLOCKED, ev, n,
               "the host's disk (%s) read %.0f MiB in the run's %.1f s (%.0f MiB/s, limit %llu)",
               o->disk_stat, mib, r->duration_s, mib / secs,
               (unsigned long long)(r->limits_enforced.io_read_bps >> 20));
}

static asb_chaos_verdict_t j_userns(const asb_chaos_obs_t *o, const asb_result_t *r, char *ev,
                                    size_t n)
{
    (void)r;
    if (need_watch(o, ev, n) == ASB_CHAOS_ERROR)
        return ASB_CHAOS_ERROR;
    if (o->watch.userns_count >= 2)
        return say(ASB_CHAOS_SUCCEEDED, ev, n, "the run's processes lived in %d user namespaces",
                   o->watch.userns_count);
    return say(ASB_CHAOS_BLOCKED, ev, n, "all processes stayed in one user namespace");
}

static const struct {
    const char *name;
    asb_chaos_judge_fn fn;
} JUDGES[] = {
    {"tcp_egress", j_tcp},
    {"udp_egress", j_udp},
    {"http_egress", j_http},
    {"dns_resolve", j_dns},
    {"env_secret_read", j_env_secret},
    {"host_canary_read", j_canary},
    {"etc_shadow_read", j_shadow},
    {"disk_fill", j_disk_fill},
    {"symlink_fileout", fileout_canary},
    {"hardlink_fileout", fileout_canary},
    {"rootfs_write", j_rootfs},
    {"run_as_root", j_root},
    {"setuid_escalate", j_setuid},
    {"cap_effective", j_caps},
    {"raw_socket", j_raw},
    {"mount_syscall", j_mount},
    {"raise_priority", j_priority},
    {"kernel_version_leak", j_kernel},
    {"mountinfo_leak", j_mountinfo},
    {"host_identity_leak", j_identity},
    {"sysrq_trigger", j_sysrq},
    {"kcore_read", j_kcore},
    {"dev_mem", j_devmem},
    {"docker_socket", j_docker},
    {"cgroupfs_write", j_cgroupfs},
    {"memory_bomb", j_memory},
    {"thread_bomb", j_threads},
    {"fork_bomb", j_forks},
    {"cpu_spin", j_cpu},
    {"time_bomb", j_time},
    {"orphan_survivor", j_orphan},
    {"output_flood", j_flood},
    {"kill_host_process", j_victim},
    {"abstract_unix", j_abstract},
    {"sysv_shm_read", j_shm},
    {"keyring_read", j_key},
    {"io_uring_setup", j_io_uring},
    {"bpf_prog_load", j_bpf},
    {"perf_event_open", j_perf},
    {"userfaultfd", j_uffd},
    {"tcp_backlog_hold", j_tcp_backlog},
    {"kmem_uncharged", j_kmem},
    {"signal_quota", j_signal_quota},
    {"cpu_migrate", j_migrate},
    {"page_cache_evict", j_page_cache},
    {"disk_read_flood", j_disk},
    {"userns_nested", j_userns},
    {"fd_inherit", j_fd},
};

asb_chaos_judge_fn asb_chaos_judge_for(const char *attack)
{
    for (size_t i = 0; i < sizeof(JUDGES) / sizeof(JUDGES[0]); i++)
        if (strcmp(JUDGES[i].name, attack) == 0)
            return JUDGES[i].fn;
    return NULL;
}

asb_chaos_verdict_t asb_chaos_judge(const char *attack, int rc, const asb_chaos_obs_t *o,
                                    const asb_result_t *r, char *ev, size_t n)
{
    asb_chaos_judge_fn fn = asb_chaos_judge_for(attack);
    if (!fn)
        return say(ASB_CHAOS_ERROR, ev, n, "no judge for attack '%s'", attack);
    if (r->status == ASB_STATUS_SANDBOX_ERROR || rc < 0)
        return say(ASB_CHAOS_ERROR, ev, n, "sandbox error: %s",
                   r->error ? r->error : "asb_run failed");
    asb_chaos_verdict_t v = fn(o, r, ev, n);
    /* Ended by the wall clock and nothing seen: the attack may not have got as far as trying
     * (every program here finishes well inside its timeout on an idle host). For memory_bomb
     * an OOM kill is the kernel's own evidence of the limit that stopped it; for any other
     * attack it says nothing about what the attack tried (review finding). */
    const asb_chaos_attack_t *a = asb_chaos_attack_find(attack);
    if (v == ASB_CHAOS_BLOCKED && r->status == ASB_STATUS_TIMEOUT &&
        !(a && a->timeout_is_the_block) && !(a && a->oom_is_the_block && r->out_of_memory)) {
        char was[ASB_CHAOS_EVIDENCE_MAX / 2];
        snprintf(was, sizeof(was), "%s", ev);
        return say(ASB_CHAOS_ERROR, ev, n,
                   "inconclusive: the wall clock ended the run after %.2f s, before the attack "
                   "finished (%s)",
                   r->duration_s, was);
    }
    return v;
}
