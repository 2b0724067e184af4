/* docker_request.c - the create request a profile becomes, built from the plan alone.
 *
 * Pure: nothing here contacts the engine or reads a file, so `profiles --backend docker --json`
 * can print exactly what a run would send, and the verify step can compare the engine's inspect
 * document with the very object that was sent. */
#include "core/json.h"
#include "core/limits.h"
#include "core/proc_masks.h"
#include "docker/docker.h"
#include "native/wire_json.h"

#include <inttypes.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void asb_docker_effective_profile(const asb_plan_t *plan, asb_profile_t *out)
{
    *out = plan->profile;
    /* Docker offers no Landlock and the seed's Docker profiles have none, so the container-mode
     * supervisor neither applies nor attests it: asking for the scope would refuse every run.
     * Host abstract sockets stay out of reach through the container's own network namespace
     * (bridge or none; the verify step refuses NetworkMode host). */
    out->landlock = false;
    /* memfd_noexec stays what the profile asks: no executable memfd. Docker cannot set
     * vm.memfd_noexec for a container (not a sysctl it passes through), and nothing in the
     * container may, so the supervisor closes the memfd + exec path the other way the native
     * backend knows (kernels before 6.3): memfd_create is refused outright (spec key
     * memfd_refuse, attested as memfd_create_refused). */
    out->landlock_scope = false;
}

static size_t strv_bound(char *const *v, size_t n)
{
    size_t b = 0;
    for (size_t i = 0; v && (n == SIZE_MAX ? v[i] != NULL : i < n); i++)
        b += 4 + strlen(v[i]); /* wire.h: u32 length + bytes */
    return b;
}

size_t asb_docker_spec_bound(const asb_plan_t *plan, bool inline_data)
{
    /* Wire records of every fixed key (28 keys of at most 16 bytes, 6 bytes of framing, values
     * of at most 64 bytes) and the run's own strings, then hex (x2) and the name. */
    size_t w = 28 * (16 + 6 + 64) + 4 * 256;
    w += strv_bound(plan->argv, SIZE_MAX) + strv_bound(plan->env, SIZE_MAX);
    for (size_t i = 0; i < plan->n_files_in; i++)
        w += 4 + strlen(plan->files_in[i].name);
    w += strv_bound(plan->files_out, plan->n_files_out);
    if (inline_data)
        w += 4 * ((plan->code_len + 2) / 3) + 4 * ((plan->stdin_len + 2) / 3);
    return 2 * w + sizeof(ASB_DOCKER_SPEC_ENV "=");
}

bool asb_docker_inline_data(const asb_plan_t *plan)
{
    return asb_docker_spec_bound(plan, true) <= ASB_DOCKER_SPEC_MAX;
}

bool asb_docker_needs_io_volume(const asb_plan_t *plan)
{
    /* Inputs only: outputs come back as frames (docker_proto.h), never through the volume, and a
     * large stdin comes on the attach stream (docker.c pump_stdin). */
    return plan->n_files_in > 0 || (plan->code && !asb_docker_inline_data(plan));
}

static const char *seccomp_name(asb_seccomp_policy_t s)
{
    return s == ASB_SECCOMP_HARDENED         ? "hardened"
           : s == ASB_SECCOMP_DOCKER_DEFAULT ? "docker_default"
                                             : "none";
}

/* NULL unless every string arrives (json_string() is NULL for text that is not UTF-8, and
 * appending NULL appends nothing); json_pack then fails, and so does the request. */
static json_t *strv_json(char *const *v)
{
    json_t *a = json_array();
    for (size_t i = 0; a && v && v[i]; i++)
        if (json_array_append_new(a, json_string(v[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

void asb_docker_run_profile(const asb_plan_t *plan, const asb_docker_req_ctx_t *ctx,
                            asb_profile_t *out)
{
    asb_docker_effective_profile(plan, out);
    if (ctx && ctx->uid > 0 && ctx->gid > 0 && out->uid > 0) {
        out->uid = ctx->uid;
        out->gid = ctx->gid;
    }
}

json_t *asb_docker_spec(const asb_plan_t *plan, const asb_docker_req_ctx_t *ctx)
{
    asb_profile_t p;
    asb_docker_run_profile(plan, ctx, &p);
    bool io_volume = ctx->io_volume;
    bool inline_data = asb_docker_inline_data(plan);
    json_t *files_in = json_array(), *files_out = json_array();
    for (size_t i = 0; i < plan->n_files_in; i++)
        json_array_append_new(files_in, json_string(plan->files_in[i].name));
    for (size_t i = 0; i < plan->n_files_out; i++)
        json_array_append_new(files_out, json_string(plan->files_out[i]));
    json_t *code = json_null(), *in = json_null();
    if (inline_data && plan->code)
        code = asb_json_base64(plan->code, plan->code_len);
    if (inline_data && plan->stdin_len)
        in = asb_json_base64(plan->stdin_data, plan->stdin_len);
    uint64_t timeout_ms = (uint64_t)(plan->limits.timeout_s * 1000.0);
    return json_pack(
        "{s:s, s:I, s:I, s:s, s:I, s:b, s:s, s:b, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o, "
        "s:s, s:s, s:o, s:o, s:o, s:b, s:o, s:I, s:s?, s:b, s:b}",
        "nonce", plan->nonce, "uid", (json_int_t)p.uid, "gid", (json_int_t)p.gid, "caps",
        p.caps == ASB_CAPS_NONE ? "none" : "docker_default", "caps_keep",
        (json_int_t)asb_docker_default_caps(), "no_new_privs", p.no_new_privs, "seccomp",
        seccomp_name(p.seccomp), "netns", p.ns_net, "root_ro", p.root == ASB_ROOT_ALLOWLIST_RO,
        "hostname", ASB_SANDBOX_HOSTNAME, "fsize", (json_int_t)plan->limits.fsize_bytes, "nofile",
        (json_int_t)plan->limits.nofile, "timeout_ms", (json_int_t)(timeout_ms ? timeout_ms : 1),
        "output_bytes", (json_int_t)plan->limits.output_bytes, "file_out_bytes",
        (json_int_t)plan->limits.file_out_bytes, "argv", strv_json(plan->argv), "env",
        strv_json(plan->env), "workspace", ASB_WORKSPACE, "io_dir",
        io_volume ? ASB_DOCKER_IO_DIR : "", "files_in", files_in, "files_out", files_out, "code",
        code, "code_file", plan->code && !inline_data, "stdin", in, "stdin_stream",
        (json_int_t)(inline_data ? 0 : plan->stdin_len), "code_name", plan->code_name,
        "memfd_refuse", p.memfd_noexec, "uname_hidden", p.uname_hidden);
}

static json_t *tmpfs_opts(const asb_profile_t *p, bool noexec, uint64_t bytes, const char *mode)
{
    char buf[160];
    snprintf(buf, sizeof(buf), "rw,nosuid,nodev,%s,size=%" PRIu64 ",mode=%s",
             noexec ? "noexec" : "exec", bytes, mode);
    (void)p;
    return json_string(buf);
}

static json_t *ulimit2(const char *name, uint64_t soft, uint64_t hard)
{
    return json_pack("{s:s, s:I, s:I}", "Name", name, "Soft", (json_int_t)soft, "Hard",
                     (json_int_t)hard);
}

static json_t *ulimit(const char *name, uint64_t v)
{
    return ulimit2(name, v, v);
}

/* The file size limit's hard value: room for the supervisor to stage what it must write before
 * the workload exists (files in and code into the workspace), each of which may be larger than
 * the workload's limit (a file in over hardened's 16 MiB failed with EFBIG). The supervisor
 * raises its soft limit for that and sets both to the workload's value right after; the
 * workload's own limit is the attested one. */
static uint64_t fsize_hard(const asb_plan_t *plan)
{
    uint64_t h = plan->limits.fsize_bytes;
    h = h > ASB_MAX_CODE_BYTES ? h : ASB_MAX_CODE_BYTES;
    return h > plan->limits.file_in_bytes ? h : plan->limits.file_in_bytes;
}

/* Docker's defaults also mask each possible CPU's thermal_throttle directory (GHSA-6fw5-f8r9-
 * fgfm); a MaskedPaths list replaces the defaults, so they are listed here too (review finding).
 * The engine is local (a unix socket), so its CPUs are ours: /sys/devices/system/cpu/possible,
 * "0-3,5" style. Paths that do not exist are skipped by the runtime. */
static void add_thermal_throttle(json_t *masked)
{
    char buf[256] = "";
    int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    int added = 0;
    for (char *p = buf; *p && added < 4096;) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            break;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a)
                break;
        }
        for (long c = a; c <= b && added < 4096; c++, added++) {
            char path[96];
            snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/thermal_throttle", c);
            json_array_append_new(masked, json_string(path));
        }
        p = *end == ',' ? end + 1 : end;
        if (*p == '\n')
            break;
    }
}

json_t *asb_docker_create_body(const asb_plan_t *plan, const asb_docker_req_ctx_t *ctx)
{
    asb_profile_t p;
    asb_docker_run_profile(plan, ctx, &p);
    json_t *spec = asb_docker_spec(plan, ctx);
    /* The supervisor reads no JSON (it is built against musl): records, hex for the env. */
    asb_wire_buf_t w = {0};
    asb_wire_from_json(&w, spec);
    json_decref(spec);
    char *spec_s = spec && asb_wire_ok(&w) ? asb_wire_hex(w.data, w.len) : NULL;
    asb_wire_free(&w);
    if (!spec_s)
        return NULL;
    size_t envlen = strlen(ASB_DOCKER_SPEC_ENV) + 1 + strlen(spec_s) + 1;
    char *env = malloc(envlen);
    if (!env) {
        free(spec_s);
        return NULL;
    }
    snprintf(env, envlen, "%s=%s", ASB_DOCKER_SPEC_ENV, spec_s);
    free(spec_s);

    char user[48];
    snprintf(user, sizeof(user), "%ld:%ld", p.uid, p.gid);
    bool cg = p.cgroup;
    json_int_t mem = cg ? (json_int_t)plan->limits.memory_bytes : 0;
    json_int_t pids = cg ? (json_int_t)plan->limits.pids : 0;
    json_int_t nano = cg ? (json_int_t)(plan->limits.cpus * 1e9) : 0;

    json_t *secopt = json_array();
    if (p.no_new_privs)
        json_array_append_new(secopt, json_string("no-new-privileges"));
    if (p.seccomp == ASB_SECCOMP_NONE)
        json_array_append_new(secopt, json_string("seccomp=unconfined"));
    json_t *capdrop = json_array();
    if (p.caps == ASB_CAPS_NONE)
        json_array_append_new(capdrop, json_string("ALL"));
    json_t *tmpfs = json_object();
    json_object_set_new(tmpfs, ASB_WORKSPACE,
                        tmpfs_opts(&p, p.workspace_noexec, p.workspace_bytes, "1777"));
    json_object_set_new(tmpfs, "/tmp", tmpfs_opts(&p, p.tmp_noexec, p.tmp_bytes, "1777"));
    json_t *mounts = json_array();
    json_array_append_new(mounts, json_pack("{s:s, s:s, s:s, s:b}", "Type", "bind", "Source",
                                            ctx->supervisor, "Target", ASB_DOCKER_SUPERVISOR_PATH,
                                            "ReadOnly", 1));
    if (ctx->io_volume)
        json_array_append_new(mounts, json_pack("{s:s, s:s, s:b}", "Type", "volume", "Target",
                                                ASB_DOCKER_IO_DIR, "ReadOnly", 0));
    /* Docker's default masks (a MaskedPaths list replaces them, so they are all here: its /proc
     * ones are in our list too) and the native backend's /proc list (core/proc_masks.h), so
     * that both backends hide the same; the boot id is replaced natively and masked here. A
     * path the kernel lacks is skipped by the runtime. */
    static const char *const docker_sys_masks[] = {"/sys/firmware",
                                                   "/sys/devices/virtual/powercap"};
    json_t *masked = json_array();
    for (size_t i = 0; i < ASB_PROC_MASK_N_FILES; i++)
        json_array_append_new(masked, json_sprintf("/proc/%s", ASB_PROC_MASK_FILES[i]));
    for (size_t i = 0; i < ASB_PROC_MASK_N_DIRS; i++)
        json_array_append_new(masked, json_sprintf("/proc/%s", ASB_PROC_MASK_DIRS[i]));
    for (size_t i = 0; i < sizeof(docker_sys_masks) / sizeof(docker_sys_masks[0]); i++)
        json_array_append_new(masked, json_string(docker_sys_masks[i]));
    json_array_append_new(masked, json_string(ASB_DOCKER_MASK_BOOT_ID));
    add_thermal_throttle(masked);
    /* What native hardened does not have at all: pseudo-terminals (Docker's devpts has no
     * limit: one docker-hardened run took all 3,071 of the host's ptys) and /sys (the host's
     * disks, their I/O counters, modules: red-team findings, session 7). */
    if (!p.devpts) {
        json_array_append_new(masked, json_string(ASB_DOCKER_MASK_PTMX));
        json_array_append_new(masked, json_string(ASB_DOCKER_MASK_PTS));
    }
    if (p.root == ASB_ROOT_ALLOWLIST_RO)
        json_array_append_new(masked, json_string(ASB_DOCKER_MASK_SYS));
    /* What names the kernel's release where the supervisor answers uname (container.c): empty
     * here, where the container cannot bind agreeing copies as the native root does. */
    if (p.uname_hidden) {
        json_array_append_new(masked, json_string("/proc/version"));
        json_array_append_new(masked, json_string("/proc/sys/kernel/osrelease"));
        json_array_append_new(masked, json_string("/proc/sys/kernel/version"));
    }
    json_t *ulimits = json_array();
    json_array_append_new(ulimits, ulimit("core", 0));
    if (plan->limits.nofile)
        json_array_append_new(ulimits, ulimit("nofile", plan->limits.nofile));
    if (plan->limits.fsize_bytes)
        json_array_append_new(ulimits,
                              ulimit2("fsize", plan->limits.fsize_bytes, fsize_hard(plan)));

    json_t *host = json_pack(
        "{s:s, s:b, s:o, s:o, s:o, s:b, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:{s:s}, s:b, s:s, "
        "s:o}",
        "NetworkMode", p.ns_net ? "none" : "bridge", "ReadonlyRootfs",
        p.root == ASB_ROOT_ALLOWLIST_RO, "CapDrop", capdrop, "CapAdd", json_array(), "SecurityOpt",
        secopt, "Privileged", 0, "Memory", mem, "MemorySwap", mem, "PidsLimit", pids, "NanoCpus",
        nano, "Tmpfs", tmpfs, "Mounts", mounts, "Ulimits", ulimits, "LogConfig", "Type", "none",
        "AutoRemove", 0, "IpcMode", "private", "MaskedPaths", masked);
    /* The host's OOM killer takes sandboxed code first, as in the native backend (the runtime
     * writes it as root, so the container cannot lower it again). */
    json_object_set_new(host, "OomScoreAdj", json_integer(ASB_SANDBOX_OOM_SCORE_ADJ));
    json_t *body = json_pack(
        "{s:s, s:[s,s], s:[], s:[s], s:s, s:s, s:s, s:b, s:b, s:b, s:b, s:b, s:b, s:b, "
        "s:{s:s, s:s, s:s}, s:o}",
        "Image", ctx->image ? ctx->image : ASB_DOCKER_DEFAULT_IMAGE, "Entrypoint",
        ASB_DOCKER_SUPERVISOR_PATH, "--container", "Cmd", "Env", env, "User", user, "Hostname",
        ASB_SANDBOX_HOSTNAME, "WorkingDir", ASB_WORKSPACE, "AttachStdin", 1, "AttachStdout", 1,
        "AttachStderr", 1, "OpenStdin", 1, "StdinOnce", 1, "Tty", 0, "NetworkDisabled", p.ns_net,
        "Labels", ASB_DOCKER_LABEL_OWNER, ctx->owner_tag, ASB_DOCKER_LABEL_RUN, plan->run_id,
        ASB_DOCKER_LABEL_PROFILE, p.name, "HostConfig", host);
    /* Otherwise the container's UTS namespace keeps the daemon's NIS domain name. */
    json_object_set_new(body, "Domainname", json_string(ASB_SANDBOX_DOMAINNAME));
    if (ctx->owner_pidns)
        json_object_set_new(json_object_get(body, "Labels"), ASB_DOCKER_LABEL_PIDNS,
                            json_string(ctx->owner_pidns));
    free(env);
    return body;
}

/* ---- the equivalent `docker run` argv ---- */

typedef struct strv {
    char **v;
    size_t n, cap;
    bool oom;
} strv_t;

static void push(strv_t *s, const char *str)
{
    if (s->oom)
        return;
    if (s->n + 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        char **nv = realloc(s->v, nc * sizeof(char *));
        if (!nv) {
            s->oom = true;
            return;
        }
        s->v = nv;
        s->cap = nc;
    }
    if (!(s->v[s->n] = strdup(str))) {
        s->oom = true;
        return;
    }
    s->v[++s->n] = NULL;
}

static void pushf(strv_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pushf(strv_t *s, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    push(s, buf);
}

void asb_docker_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static json_int_t iget(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *sget(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

char **asb_docker_run_argv(const json_t *body, const char *name)
{
    strv_t s = {0};
    const json_t *h = json_object_get(body, "HostConfig");
    push(&s, "docker");
    push(&s, "run");
    push(&s, "--rm");
    push(&s, "--interactive");
    if (name) {
        push(&s, "--name");
        push(&s, name);
    }
    push(&s, "--network");
    push(&s, sget(h, "NetworkMode"));
    if (json_is_true(json_object_get(h, "ReadonlyRootfs")))
        push(&s, "--read-only");
    push(&s, "--user");
    push(&s, sget(body, "User"));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(h, "CapDrop"), i, v)
    {
        push(&s, "--cap-drop");
        push(&s, json_string_value(v));
    }
    json_array_foreach(json_object_get(h, "CapAdd"), i, v)
    {
        push(&s, "--cap-add");
        push(&s, json_string_value(v));
    }
    json_array_foreach(json_object_get(h, "SecurityOpt"), i, v)
    {
        push(&s, "--security-opt");
        push(&s, json_string_value(v));
    }
    if (iget(h, "Memory")) {
        pushf(&s, "--memory=%lld", (long long)iget(h, "Memory"));
        pushf(&s, "--memory-swap=%lld", (long long)iget(h, "MemorySwap"));
    }
    if (iget(h, "PidsLimit"))
        pushf(&s, "--pids-limit=%lld", (long long)iget(h, "PidsLimit"));
    if (iget(h, "NanoCpus"))
        pushf(&s, "--cpus=%.9g", (double)iget(h, "NanoCpus") / 1e9);
    const char *k;
    json_object_foreach((json_t *)json_object_get(h, "Tmpfs"), k, v)
    {
        push(&s, "--tmpfs");
        pushf(&s, "%s:%s", k, json_string_value(v));
    }
    json_array_foreach(json_object_get(h, "Mounts"), i, v)
    {
        push(&s, "--mount");
        const char *src = json_string_value(json_object_get(v, "Source"));
        pushf(&s, "type=%s%s%s,target=%s%s", sget(v, "Type"), src ? ",source=" : "", src ? src : "",
              sget(v, "Target"), json_is_true(json_object_get(v, "ReadOnly")) ? ",readonly" : "");
    }
    json_array_foreach(json_object_get(h, "Ulimits"), i, v)
    {
        push(&s, "--ulimit");
        pushf(&s, "%s=%lld:%lld", sget(v, "Name"), (long long)iget(v, "Soft"),
              (long long)iget(v, "Hard"));
    }
    pushf(&s, "--ipc=%s", sget(h, "IpcMode"));
    pushf(&s, "--log-driver=%s", sget(json_object_get(h, "LogConfig"), "Type"));
    pushf(&s, "--hostname=%s", sget(body, "Hostname"));
    pushf(&s, "--domainname=%s", sget(body, "Domainname"));
    pushf(&s, "--oom-score-adj=%lld", (long long)iget(h, "OomScoreAdj"));
    pushf(&s, "--workdir=%s", sget(body, "WorkingDir"));
    json_object_foreach((json_t *)json_object_get(body, "Labels"), k, v)
    {
        push(&s, "--label");
        pushf(&s, "%s=%s", k, json_string_value(v));
    }
    json_array_foreach(json_object_get(body, "Env"), i, v)
    {
        push(&s, "--env");
        push(&s, json_string_value(v));
    }
    const json_t *ep = json_object_get(body, "Entrypoint");
    pushf(&s, "--entrypoint=%s", json_string_value(json_array_get(ep, 0)));
    push(&s, sget(body, "Image"));
    for (i = 1; i < json_array_size(ep); i++)
        push(&s, json_string_value(json_array_get(ep, i)));
    json_array_foreach(json_object_get(body, "Cmd"), i, v) push(&s, json_string_value(v));
    if (s.oom) {
        asb_docker_strv_free(s.v);
        return NULL;
    }
    return s.v;
}

/* ---- isolation flags ---- */

static bool tmpfs_all_have(const json_t *h, const char *opt)
{
    const char *k;
    json_t *v;
    const json_t *t = json_object_get(h, "Tmpfs");
    if (!json_object_size(t))
        return false;
    json_object_foreach((json_t *)t, k, v)
    {
        const char *s = json_string_value(v);
        size_t n = strlen(opt);
        bool found = false;
        for (const char *q = s; q && *q;) {
            const char *e = strchr(q, ',');
            size_t len = e ? (size_t)(e - q) : strlen(q);
            if (len == n && strncmp(q, opt, n) == 0)
                found = true;
            q += len + (e ? 1 : 0);
        }
        if (!found)
            return false;
    }
    return true;
}

static bool array_has(const json_t *a, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (json_string_value(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

json_t *asb_docker_isolation_flags(const json_t *body, bool *all_present)
{
    const json_t *h = json_object_get(body, "HostConfig");
    const char *user = sget(body, "User");
    struct {
        const char *name;
        bool on;
    } f[] = {
        {"network_none", strcmp(sget(h, "NetworkMode"), "none") == 0},
        {"read_only_root", json_is_true(json_object_get(h, "ReadonlyRootfs"))},
        {"non_root_user", *user && strncmp(user, "0:", 2) != 0 && strcmp(user, "0") != 0 &&
                              strncmp(user, "root", 4) != 0},
        {"cap_drop_all", array_has(json_object_get(h, "CapDrop"), "ALL") &&
                             json_array_size(json_object_get(h, "CapAdd")) == 0},
        {"no_new_privileges", array_has(json_object_get(h, "SecurityOpt"), "no-new-privileges")},
        {"seccomp", !array_has(json_object_get(h, "SecurityOpt"), "seccomp=unconfined")},
        {"not_privileged", !json_is_true(json_object_get(h, "Privileged"))},
        {"memory_limit", iget(h, "Memory") > 0},
        {"no_swap", iget(h, "Memory") > 0 && iget(h, "MemorySwap") == iget(h, "Memory")},
        {"pids_limit", iget(h, "PidsLimit") > 0},
        {"cpu_limit", iget(h, "NanoCpus") > 0},
        {"tmpfs_noexec", tmpfs_all_have(h, "noexec")},
        {"tmpfs_nosuid_nodev", tmpfs_all_have(h, "nosuid") && tmpfs_all_have(h, "nodev")},
    };
    json_t *o = json_object();
    bool all = true;
    for (size_t i = 0; o && i < sizeof(f) / sizeof(f[0]); i++) {
        json_object_set_new(o, f[i].name, json_boolean(f[i].on));
        all = all && f[i].on;
    }
    *all_present = all;
    return o;
}
