/* host.c - what this host can enforce: the `profiles` listing and the `preflight` check. */
#include "core/backend.h"
#include "core/error.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/profiles.h"
#include "native/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

typedef struct host_facts {
    char kernel[128];
    int landlock_abi;
    bool userns, seccomp, openat2, timens, memfd_noexec;
    bool seccomp_notify; /* a filter may hand a call to the supervisor (Linux 5.0+) */
    long yama_scope;     /* -1: no Yama */
    asb_cgroup_host_t cg;
    bool cg_ok;
    char cg_error[512];
} host_facts_t;

static long read_long(const char *path)
{
    char buf[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

static void probe(host_facts_t *h)
{
    memset(h, 0, sizeof(*h));
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
    h->landlock_abi = abi > 0 ? (int)abi : 0;
    h->userns = read_long("/proc/sys/user/max_user_namespaces") > 0 &&
                access("/proc/self/ns/user", F_OK) == 0;
    h->seccomp = access("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0;
    h->timens = access("/proc/self/ns/time", F_OK) == 0; /* every native sandbox gets one */
    h->memfd_noexec = access("/proc/sys/vm/memfd_noexec", F_OK) == 0; /* Linux 6.3+ */
    struct seccomp_notif_sizes sizes;
    h->seccomp_notify = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0;
    h->yama_scope = read_long("/proc/sys/kernel/yama/ptrace_scope");
    /* openat2 with a NULL how fails with EFAULT when it exists. */
    h->openat2 = !(syscall(SYS_openat2, AT_FDCWD, ".", NULL, 0) < 0 && errno == ENOSYS);
    asb_error_t err;
    h->cg_ok = asb_cgroup_detect(&h->cg, &err) == 0;
    if (!h->cg_ok)
        snprintf(h->cg_error, sizeof(h->cg_error), "%s", err.message);
}

static json_t *control(const char *name, json_t *wanted, bool enforceable, const char *host_note)
{
    return json_pack("{s:s, s:o, s:b, s:s}", "control", name, "wanted", wanted, "host_enforces",
                     enforceable, "host", host_note);
}

static json_t *facts_json(const host_facts_t *h)
{
    char cg[64];
    snprintf(cg, sizeof(cg), "%s", h->cg_ok ? asb_cgroup_version_name(h->cg.version) : "none");
    return json_pack("{s:s, s:i, s:b, s:b, s:b, s:s, s:s}", "kernel", h->kernel, "landlock_abi",
                     h->landlock_abi, "user_namespaces", h->userns, "seccomp", h->seccomp,
                     "openat2", h->openat2, "cgroup", cg, "cgroup_error", h->cg_error);
}

static const char *seccomp_policy_name(asb_seccomp_policy_t s)
{
    return s == ASB_SECCOMP_HARDENED         ? "hardened"
           : s == ASB_SECCOMP_DOCKER_DEFAULT ? "docker_default"
                                             : "none";
}

static json_t *profile_json(const asb_profile_t *p, const host_facts_t *h)
{
    json_t *c = json_array();
    char note[160];
    if (!p->sandboxed) {
        json_array_append_new(c, control("host_process", json_true(), true,
                                         "UNSAFE: runs on the host with the caller's privileges"));
    } else {
        const struct {
            const char *name;
            bool on;
        } ns[] = {{"user_namespace", p->ns_user},   {"pid_namespace", p->ns_pid},
                  {"mount_namespace", p->ns_mount}, {"ipc_namespace", p->ns_ipc},
                  {"uts_namespace", p->ns_uts},     {"cgroup_namespace", p->ns_cgroup},
                  {"network_namespace", p->ns_net}};
        /* The user namespace is made by the supervisor as the sandbox's own owner uid, so what
         * the kernel counts per user is charged there, not to host root (supervisor/userns.c). */
        for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
            json_array_append_new(
                c, control(ns[i].name, json_boolean(ns[i].on), h->userns,
                           ns[i].on ? (!h->userns ? "user namespaces disabled"
                                       : i == 0   ? "available; owned by a uid of the sandbox's "
                                                    "own, not host root"
                                                  : "available")
                                    : (strcmp(ns[i].name, "network_namespace") == 0
                                           ? "host network (by design)"
                                           : "not used")));
        json_array_append_new(
            c, control("time_namespace", json_true(), h->timens,
                       h->timens ? "available" : "absent (Linux 5.6+, CONFIG_TIME_NS)"));
        json_array_append_new(
            c, control("root",
                       json_string(p->root == ASB_ROOT_ALLOWLIST_RO
                                       ? "allowlisted system paths, read-only"
                                       : "tmpfs root; /usr an overlay writable inside, nothing "
                                         "reaches the host"),
                       true, "pivot_root"));
        snprintf(note, sizeof(note), "tmpfs %llu MiB%s; /tmp tmpfs %llu MiB%s",
                 (unsigned long long)(p->workspace_bytes / ASB_MIB),
                 p->workspace_noexec ? ", nothing written there runs" : "",
                 (unsigned long long)(p->tmp_bytes / ASB_MIB), p->tmp_noexec ? ", noexec" : "");
        json_array_append_new(c, control("workspace", json_string(note), true, "tmpfs"));
        json_array_append_new(c,
                              control("capabilities",
                                      json_string(p->caps == ASB_CAPS_NONE ? "none (all sets empty)"
                                                                           : "docker default set"),
                                      true, "capset + bounding set"));
        snprintf(note, sizeof(note), "%s", h->seccomp ? "seccomp-bpf" : "seccomp unavailable");
        json_array_append_new(
            c, control("seccomp", json_string(seccomp_policy_name(p->seccomp)), h->seccomp, note));
        json_array_append_new(
            c, control("no_new_privs", json_boolean(p->no_new_privs), true, "prctl"));
        /* The scope (abstract unix sockets, signals) needs ABI 6, and the runs refuse without
         * it (native_spec.c): the listing says so too. */
        int need = p->landlock_scope ? 6 : p->landlock ? 1 : 0;
        if (h->landlock_abi)
            snprintf(note, sizeof(note), "landlock: ABI %d%s", h->landlock_abi,
                     h->landlock_abi < need ? " (ABI 6 needed for the scope)" : "");
        else
            snprintf(note, sizeof(note), "landlock: not offered by this kernel");
        json_array_append_new(
            c, control("landlock",
                       json_string(p->landlock ? (p->landlock_scope ? "filesystem rules and scope"
                                                                    : "filesystem rules (scoped on "
                                                                      "ABI 6+)")
                                               : (p->landlock_scope ? "scope only" : "none")),
                       h->landlock_abi >= need, note));
        if (p->memfd_noexec)
            json_array_append_new(c, control("memfd_noexec", json_integer(2), true,
                                             h->memfd_noexec
                                                 ? "vm.memfd_noexec per pid namespace"
                                                 : "no vm.memfd_noexec (Linux 6.3+): memfd_create "
                                                   "refused by seccomp instead"));
        if (p->uname_hidden)
            json_array_append_new(
                c, control("uname", json_string("major.minor only"),
                           h->seccomp_notify && h->yama_scope < 3,
                           !h->seccomp_notify ? "no seccomp user notification (Linux 5.0+)"
                           : h->yama_scope >= 3
                               ? "Yama ptrace_scope 3: the supervisor cannot answer uname"
                               : "answered by the supervisor; /proc/version and "
                                 "/proc/sys/kernel/{osrelease,version} agree"));
        snprintf(note, sizeof(note), "cgroup: %s",
                 h->cg_ok ? asb_cgroup_version_name(h->cg.version) : h->cg_error);
        json_array_append_new(
            c, control("cgroup_limits", json_boolean(p->cgroup), !p->cgroup || h->cg_ok, note));
        if (p->cgroup) {
            bool io = h->cg_ok && (h->cg.controllers & ASB_CGROUP_CTRL_IO);
            snprintf(note, sizeof(note), "%s",
                     !h->cg_ok ? h->cg_error
                     : io      ? (h->cg.version == ASB_CGROUP_V2 ? "cgroup v2 io.max"
                                                                 : "cgroup v1 blkio throttle")
                               : "no io (v1 blkio) controller mounted");
            json_array_append_new(
                c, control("disk_read_limit", json_string("per block device"), io, note));
        }
    }
    bool all = true;
    for (size_t i = 0; i < json_array_size(c); i++)
        all &= json_is_true(json_object_get(json_array_get(c, i), "host_enforces"));
    json_t *lim = asb_limits_json(&p->defaults);
    return json_pack("{s:s, s:s, s:o, s:o, s:b}", "name", p->name, "summary", p->summary,
                     "controls", c, "default_limits", lim, "runnable_here", all);
}

int asb_profiles_json(const char *backend, char **json, asb_error_t *err)
{
    if (backend && strcmp(backend, "native") != 0)
        return strcmp(backend, "docker") == 0
                   ? asb_docker_profiles_json(json, err)
                   : asb_err(err, -EINVAL, "unknown backend '%s'", backend);
    host_facts_t h;
    probe(&h);
    size_t n;
    const asb_profile_t *t = asb_profile_table(&n);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, profile_json(&t[i], &h));
    json_t *o =
        json_pack("{s:s, s:o, s:o}", "backend", "native", "host", facts_json(&h), "profiles", arr);
    *json = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return *json ? 0 : asb_err_sys(err, ENOMEM, "profiles");
}

int asb_preflight(char **json, asb_error_t *err)
{
    host_facts_t h;
    probe(&h);
    json_t *checks = json_array();
    bool ok = true;
#define CHECK(name, cond, detail)                                                                  \
    do {                                                                                           \
        bool c_ = (cond);                                                                          \
        ok &= c_;                                                                                  \
        json_array_append_new(                                                                     \
            checks, json_pack("{s:s, s:b, s:s}", "check", name, "ok", c_, "detail", detail));      \
    } while (0)
    char d[512];
    CHECK("user_namespaces", h.userns, h.userns ? "available" : "disabled or absent");
    CHECK("seccomp", h.seccomp, h.seccomp ? "available" : "absent");
    CHECK("time_namespaces", h.timens,
          h.timens ? "available" : "absent (Linux 5.6+, CONFIG_TIME_NS): native runs are refused");
    snprintf(d, sizeof(d), "ABI %d", h.landlock_abi);
    CHECK("landlock", h.landlock_abi > 0, d);
    CHECK("openat2", h.openat2, h.openat2 ? "available" : "absent (file-out guard needs it)");
    snprintf(d, sizeof(d), "%s", h.cg_ok ? asb_cgroup_version_name(h.cg.version) : h.cg_error);
    CHECK("cgroup", h.cg_ok, d);

    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = "hardened";
    const char *argv[] = {"/bin/sh", "-c", "echo preflight-ok", NULL};
    cfg.argv = argv;
    asb_result_t res;
    asb_error_t rerr;
    int rc = asb_run(&cfg, &res, &rerr);
    bool run_ok = rc == 0 && res.status == ASB_STATUS_COMPLETED && res.attestation.valid &&
                  res.out.len == 13 && memcmp(res.out.data, "preflight-ok\n", 13) == 0;
    snprintf(d, sizeof(d), "%s",
             run_ok ? "attested hardened run completed"
                    : (rc < 0 ? rerr.message : (res.error ? res.error : "unexpected result")));
    CHECK("hardened_run", run_ok, d);
#undef CHECK
    /* What works but weakens a limit on this host: said, not refused. */
    json_t *warnings = json_array();
    char om[16] = "";
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "re");
    if (f) {
        if (!fgets(om, sizeof(om), f))
            om[0] = '\0';
        fclose(f);
    }
    if (om[0] == '2')
        json_array_append_new(
            warnings,
            json_pack("{s:s, s:s}", "warning", "strict_overcommit", "detail",
                      "vm.overcommit_memory=2: a run's memory limit bounds the pages it uses, "
                      "not the address space it reserves, and reservations count against the "
                      "host-wide CommitLimit (see docs/THREAT_MODEL.md)"));
    /* Open files: no cgroup counts them, and a mapping keeps a file open after its descriptor
     * is closed, so a run holds up to about one per 400 B of its memory limit (red-team
     * finding, session 20: ~315,000 in a default hardened run). */
    unsigned long long file_max = 0;
    f = fopen("/proc/sys/fs/file-max", "re");
    if (f) {
        if (fscanf(f, "%llu", &file_max) != 1)
            file_max = 0;
        fclose(f);
    }
    unsigned long long per_baseline = ASB_BASELINE_MEMORY_BYTES / ASB_BYTES_PER_PINNED_FILE;
    if (file_max && file_max < 4 * per_baseline) {
        char fm[400];
        snprintf(fm, sizeof(fm),
                 "fs.file-max=%llu: a run can hold about one open file per %llu B of its memory "
                 "limit (mapped files outlive their descriptors), about %llu for hardened and "
                 "%llu for baseline, so a few concurrent runs can use up the host's table; "
                 "systemd hosts set it to its maximum (see docs/THREAT_MODEL.md)",
                 file_max, (unsigned long long)ASB_BYTES_PER_PINNED_FILE,
                 (unsigned long long)(ASB_HARDENED_MEMORY_BYTES / ASB_BYTES_PER_PINNED_FILE),
                 per_baseline);
        json_array_append_new(warnings,
                              json_pack("{s:s, s:s}", "warning", "small_file_max", "detail", fm));
    }
    json_t *result = asb_result_json(&res);
    asb_result_free(&res);
    json_t *o = json_pack("{s:b, s:o, s:o, s:o, s:o}", "ok", ok, "host", facts_json(&h), "checks",
                          checks, "warnings", warnings, "run", result ? result : json_null());
    *json = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!*json)
        return asb_err_sys(err, ENOMEM, "preflight");
    return ok ? 0 : asb_err(err, -ENOTSUP, "preflight failed");
}
