#include "native/native_spec.h"
#include "core/limits.h"
#include "core/owner.h"
#include "native/fdpass.h"
#include "native/proto.h"
#include "native/wire_json.h"

#include <errno.h>
#include <glob.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *root_name(asb_root_policy_t r)
{
    return r == ASB_ROOT_HOST ? "host" : r == ASB_ROOT_OVERLAY_RW ? "overlay_rw" : "allowlist_ro";
}

static const char *caps_name(asb_caps_policy_t c)
{
    return c == ASB_CAPS_NONE             ? "none"
           : c == ASB_CAPS_DOCKER_DEFAULT ? "docker_default"
                                          : "unchanged";
}

static const char *seccomp_name(asb_seccomp_policy_t s)
{
    return s == ASB_SECCOMP_HARDENED         ? "hardened"
           : s == ASB_SECCOMP_DOCKER_DEFAULT ? "docker_default"
                                             : "none";
}

json_t *asb_native_binds(const asb_profile_t *p)
{
    json_t *binds = json_array();
    if (p->root != ASB_ROOT_HOST) {
        /* The package manager's links that /usr points into: /usr/bin/awk, which, cc, java and
         * libblas.so.3 (numpy) lead through /etc/alternatives, and Debian's JDK keeps its
         * configuration in /etc/java-<n>-openjdk (compatibility QA: all of them failed). Public
         * links and configuration, bound read-only with inodes of the sandbox's own. */
        json_array_append_new(binds, json_string("/etc/alternatives"));
        glob_t g;
        if (glob("/etc/java-*-openjdk", GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc && i < ASB_MAX_JDK_CONF_DIRS; i++)
                json_array_append_new(binds, json_string(g.gl_pathv[i]));
            globfree(&g);
        }
        /* With the host network (baseline): TLS trust roots and OpenSSL's configuration
         * (/usr/lib/ssl links into /etc/ssl), as a container image would ship them. Not in
         * hardened, which reaches no TLS peer: each bind is two more mounts per run. */
        if (!p->ns_net) {
            json_array_append_new(binds, json_string("/etc/ssl"));
            json_array_append_new(binds, json_string("/etc/ca-certificates"));
        }
    }
    return binds;
}

bool asb_native_memfd_refuse(const asb_profile_t *p)
{
    return p->memfd_noexec && access("/proc/sys/vm/memfd_noexec", F_OK) != 0;
}

json_t *asb_native_spec(const asb_plan_t *plan, json_t *binds, const char *const *file_names,
                        size_t n_files, bool usr_from_host, uint32_t owner_uid, bool early_job)
{
    const asb_profile_t *p = &plan->profile;
    json_t *argv = json_array(), *env = json_array(), *files = json_array(),
           *files_exec = json_array();
    /* json_string() is NULL for text that is not UTF-8, and appending NULL silently appends
     * nothing: every string must arrive, or there is no spec (plan.c refuses such text first). */
    bool ok = argv && env && files && files_exec;
    for (size_t i = 0; ok && plan->argv[i]; i++)
        ok = json_array_append_new(argv, json_string(plan->argv[i])) == 0;
    for (size_t i = 0; ok && plan->env[i]; i++)
        ok = json_array_append_new(env, json_string(plan->env[i])) == 0;
    for (size_t i = 0; ok && i < n_files; i++)
        ok = json_array_append_new(files, json_string(file_names[i])) == 0;
    /* Which of the job's files in are programs (a sandbox's own spec has no files). */
    for (size_t i = 0; ok && n_files && i < plan->n_files_in; i++)
        if (plan->files_in[i].executable)
            ok = json_array_append_new(files_exec, json_string(plan->files_in[i].name)) == 0;
    if (!ok) {
        json_decref(argv);
        json_decref(env);
        json_decref(files);
        json_decref(files_exec);
        return NULL;
    }
    uint64_t timeout_ms = (uint64_t)(plan->limits.timeout_s * 1000.0);
    /* The caller's soft stack limit, which the supervisor's exec caps (supervisor/main.c). */
    struct rlimit stack;
    json_int_t stack_soft = -1;
    if (getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY &&
        stack.rlim_cur <= (rlim_t)INT64_MAX) /* above it: as good as unlimited (review) */
        stack_soft = (json_int_t)stack.rlim_cur;
    return json_pack(
        "{s:s, s:s, s:b, s:b, s:b, s:I, s:I, s:s, s:I, s:s, s:b, s:b, s:b, s:I, s:I, "
        "s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:O, s:b, s:b, s:b, s:b, s:b, s:I, s:I, s:o, s:b, s:b, "
        "s:b}",
        "nonce", plan->nonce, "root", root_name(p->root), "mask_proc", p->mask_proc, "tmp_noexec",
        p->tmp_noexec, "workspace_noexec", p->workspace_noexec, "workspace_bytes",
        (json_int_t)p->workspace_bytes, "tmp_bytes", (json_int_t)p->tmp_bytes, "caps",
        caps_name(p->caps), "caps_keep", (json_int_t)asb_docker_default_caps(), "seccomp",
        seccomp_name(p->seccomp), "netns", p->ns_net, "landlock", p->landlock, "no_new_privs",
        p->no_new_privs, "uid", (json_int_t)p->uid, "gid", (json_int_t)p->gid, "fsize",
        (json_int_t)plan->limits.fsize_bytes, "nofile", (json_int_t)plan->limits.nofile,
        "timeout_ms", (json_int_t)(timeout_ms ? timeout_ms : 1), "output_bytes",
        (json_int_t)plan->limits.output_bytes, "argv", argv, "env", env, "files_in", files,
        "bind_ro", binds, "landlock_scope", p->landlock_scope, "memfd_noexec", p->memfd_noexec,
        "memfd_refuse", asb_native_memfd_refuse(p), "usr_from_host", usr_from_host, "devpts",
        p->devpts, "stack_soft", stack_soft, "owner_uid", (json_int_t)owner_uid, "files_exec",
        files_exec, "exec_dir", plan->exec_dir, "uname_hidden", p->uname_hidden, "early_job",
        early_job);
}

static void append(char *buf, size_t size, const char *fmt, const char *what, long long want,
                   long long got)
{
    size_t len = strlen(buf);
    if (len >= size - 1)
        return;
    snprintf(buf + len, size - len, fmt, len ? "; " : "", what, want, got);
}

bool asb_native_verify_attestation(const asb_plan_t *plan, json_t *att, long long inherited,
                                   asb_attestation_t *a)
{
    const asb_profile_t *p = &plan->profile;
    char why[1024] = "";
    a->present = true;
    snprintf(a->nonce, sizeof(a->nonce), "%s", plan->nonce);
    a->uid = (long)json_integer_value(json_object_get(att, "uid"));
    a->gid = (long)json_integer_value(json_object_get(att, "gid"));
    a->cap_eff = (uint64_t)json_integer_value(json_object_get(att, "cap_eff"));
    a->cap_prm = (uint64_t)json_integer_value(json_object_get(att, "cap_prm"));
    a->cap_inh = (uint64_t)json_integer_value(json_object_get(att, "cap_inh"));
    a->cap_bnd = (uint64_t)json_integer_value(json_object_get(att, "cap_bnd"));
    a->cap_amb = (uint64_t)json_integer_value(json_object_get(att, "cap_amb"));
    a->no_new_privs = (int)json_integer_value(json_object_get(att, "no_new_privs"));
    a->seccomp_mode = (int)json_integer_value(json_object_get(att, "seccomp_mode"));
    a->landlock_abi = (int)json_integer_value(json_object_get(att, "landlock_abi"));
    a->landlock_enforced = json_is_true(json_object_get(att, "landlock_enforced"));
    a->root_readonly = json_is_true(json_object_get(att, "root_readonly"));
    a->abstract_unix_scoped = json_is_true(json_object_get(att, "abstract_unix_scoped"));
    a->loopback_up = json_is_true(json_object_get(att, "loopback_up"));
    a->memfd_noexec = (int)json_integer_value(json_object_get(att, "memfd_noexec"));
    a->memfd_create_refused = json_is_true(json_object_get(att, "memfd_create_refused"));
    const char *ifs = json_string_value(json_object_get(att, "net_ifaces"));
    const char *host = json_string_value(json_object_get(att, "hostname"));
    const char *pidns = json_string_value(json_object_get(att, "pid_ns"));
    a->net_ifaces = strdup(ifs ? ifs : "");
    a->hostname = strdup(host ? host : "");
    a->pid_ns = strdup(pidns ? pidns : "");
    const char *dom = json_string_value(json_object_get(att, "domainname"));
    a->domainname = strdup(dom ? dom : "");
    /* Compared as read (json_int_t), before any narrowing: a value outside int must not wrap
     * into one that passes (review finding). */
    json_int_t pers = json_integer_value(json_object_get(att, "personality"));
    json_int_t adj = json_integer_value(json_object_get(att, "oom_score_adj"));
    json_int_t pol = json_integer_value(json_object_get(att, "sched_policy"));
    json_int_t rtmax = json_integer_value(json_object_get(att, "rtprio_max"));
    json_int_t nice = json_integer_value(json_object_get(att, "nice"));
    json_int_t nmax = json_integer_value(json_object_get(att, "nice_max"));
    json_int_t ioc = json_integer_value(json_object_get(att, "ioprio_class"));
    json_int_t um = json_integer_value(json_object_get(att, "umask"));
    a->personality = (long)pers;
    a->oom_score_adj = (long)adj;
    a->sched_policy = (int)pol;
    a->rtprio_max = (long long)rtmax;
    a->nice = (int)nice;
    a->nice_max = (long long)nmax;
    a->ioprio_class = (int)ioc;
    a->umask = (int)um;
    json_int_t fsz = json_integer_value(json_object_get(att, "rlimit_fsize"));
    json_int_t nof = json_integer_value(json_object_get(att, "rlimit_nofile"));
    json_int_t core = json_integer_value(json_object_get(att, "rlimit_core"));
    json_int_t sigp = json_integer_value(json_object_get(att, "rlimit_sigpending"));
    json_int_t mq = json_integer_value(json_object_get(att, "rlimit_msgqueue"));
    json_int_t grp = json_integer_value(json_object_get(att, "groups"));
    json_int_t wsm = json_integer_value(json_object_get(att, "workspace_mount"));
    json_int_t tmm = json_integer_value(json_object_get(att, "tmp_mount"));
    a->rlimit_fsize = (long long)fsz;
    a->rlimit_nofile = (long long)nof;
    a->rlimit_core = (long long)core;
    a->rlimit_sigpending = (long long)sigp;
    a->rlimit_msgqueue = (long long)mq;
    a->groups = (int)grp;
    json_int_t kr = json_integer_value(json_object_get(att, "session_keyring"));
    a->session_keyring = (long long)kr;
    a->workspace_mount = (unsigned)wsm;
    a->tmp_mount = (unsigned)tmm;
    /* Every field must be there with its type: a missing integer would read as 0, which is
     * exactly what hardened expects of the capability sets. */
    static const char *const ints[] = {"uid",
                                       "gid",
                                       "cap_eff",
                                       "cap_prm",
                                       "cap_inh",
                                       "cap_bnd",
                                       "cap_amb",
                                       "no_new_privs",
                                       "seccomp_mode",
                                       "landlock_abi",
                                       "memfd_noexec",
                                       "personality",
                                       "oom_score_adj",
                                       "sched_policy",
                                       "rtprio_max",
                                       "nice",
                                       "nice_max",
                                       "ioprio_class",
                                       "umask",
                                       "rlimit_fsize",
                                       "rlimit_nofile",
                                       "rlimit_core",
                                       "rlimit_sigpending",
                                       "rlimit_msgqueue",
                                       "groups",
                                       "workspace_mount",
                                       "tmp_mount",
                                       "session_keyring"};
    static const char *const bools[] = {"landlock_enforced", "root_readonly",
                                        "abstract_unix_scoped", "loopback_up",
                                        "memfd_create_refused"};
    static const char *const strs[] = {"net_ifaces", "hostname", "pid_ns", "domainname"};
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        if (!json_is_integer(json_object_get(att, ints[i])))
            append(why, sizeof(why), "%s%s missing (%lld/%lld)", ints[i], 0, 0);
    for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
        if (!json_is_boolean(json_object_get(att, bools[i])))
            append(why, sizeof(why), "%s%s missing (%lld/%lld)", bools[i], 0, 0);
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        if (!json_is_string(json_object_get(att, strs[i])))
            append(why, sizeof(why), "%s%s missing (%lld/%lld)", strs[i], 0, 0);

    if (a->uid != p->uid)
        append(why, sizeof(why), "%s%s want %lld got %lld", "uid", p->uid, a->uid);
    if (a->gid != p->gid)
        append(why, sizeof(why), "%s%s want %lld got %lld", "gid", p->gid, a->gid);
    uint64_t caps = p->caps == ASB_CAPS_NONE ? 0 : asb_docker_default_caps();
    if (a->cap_eff != caps)
        append(why, sizeof(why), "%s%s want %llx got %llx", "CapEff", (long long)caps,
               (long long)a->cap_eff);
    if (a->cap_prm != caps)
        append(why, sizeof(why), "%s%s want %llx got %llx", "CapPrm", (long long)caps,
               (long long)a->cap_prm);
    if (a->cap_bnd != caps)
        append(why, sizeof(why), "%s%s want %llx got %llx", "CapBnd", (long long)caps,
               (long long)a->cap_bnd);
    if (a->cap_amb != 0)
        append(why, sizeof(why), "%s%s want %llx got %llx", "CapAmb", 0, (long long)a->cap_amb);
    if (p->caps == ASB_CAPS_NONE && a->cap_inh != 0)
        append(why, sizeof(why), "%s%s want %llx got %llx", "CapInh", 0, (long long)a->cap_inh);
    if (p->no_new_privs && json_integer_value(json_object_get(att, "no_new_privs")) != 1)
        append(why, sizeof(why), "%s%s want %lld got %lld", "NoNewPrivs", 1, a->no_new_privs);
    if (p->seccomp != ASB_SECCOMP_NONE &&
        json_integer_value(json_object_get(att, "seccomp_mode")) != 2)
        append(why, sizeof(why), "%s%s want %lld got %lld", "Seccomp", 2, a->seccomp_mode);
    /* Natively, every filter we stack is counted: mode 2 alone says that some filter is in
     * force, and the uname or memfd filter would say it without the profile's own (a tampered
     * supervisor that skipped it: test_attest_tamper). `inherited`: the filters the supervisor
     * runs under (it adds none), read by the caller from its /proc status, whichever thread
     * made it (a pool's). A kernel that does not count them (before 5.9) leaves mode 2 as the
     * only check: enough only where we stack one filter (baseline). Where the kernel counts
     * them (inherited >= 0), the workload on it can too: a count left out is refused, or a
     * baseline supervisor under the caller's own filter could skip Docker's and omit the count
     * (mutation audit, session 23). */
    long long stacked = 1 + (asb_native_memfd_refuse(p) ? 1 : 0) + (p->uname_hidden ? 1 : 0);
    json_t *nf = json_object_get(att, "seccomp_filters");
    if (strcmp(plan->backend, "native") == 0 && p->seccomp != ASB_SECCOMP_NONE &&
        (stacked > 1 || inherited >= 0)) {
        long long want = inherited + stacked;
        if (!json_is_integer(nf) || inherited < 0)
            append(why, sizeof(why),
                   "%s%s want %lld got %lld (no Seccomp_filters from the supervisor or the "
                   "workload: the kernel counts them from Linux 5.9)",
                   "Seccomp filters", want, -1);
        else if (json_integer_value(nf) != want)
            append(why, sizeof(why), "%s%s want %lld got %lld", "Seccomp filters", want,
                   (long long)json_integer_value(nf));
    }
    if (p->landlock && !a->landlock_enforced)
        append(why, sizeof(why), "%s%s want %lld got %lld", "Landlock enforced", 1, 0);
    /* No executable memfd: the kernel makes every memfd non-executable (vm.memfd_noexec = 2),
     * or none can be made at all: natively only on a kernel without that sysctl (before 6.3),
     * always in a docker container, where the sysctl is the host's and cannot be set. */
    json_int_t mfdnx = json_integer_value(json_object_get(att, "memfd_noexec"));
    bool refuse_expected =
        strcmp(plan->backend, "docker") == 0 ? true : mfdnx == -1 && asb_native_memfd_refuse(p);
    if (p->memfd_noexec && mfdnx != 2 && !(a->memfd_create_refused && refuse_expected))
        append(why, sizeof(why), "%s%s want %lld got %lld, and memfd_create was not refused",
               "vm.memfd_noexec", 2, (long long)mfdnx);
    if (p->landlock_scope && !a->abstract_unix_scoped)
        append(why, sizeof(why), "%s%s want %lld got %lld", "abstract unix socket scoping", 1, 0);
    if (p->ns_net && strcmp(a->net_ifaces, "lo") != 0)
        append(why, sizeof(why), "%s%s: want only lo (%lld/%lld)", "network interfaces", 1, 0);
    /* lo stays down (unaccepted loopback connections are memory no cgroup is charged for):
     * natively it is never brought up; Docker's "none" network brings it up, and the host takes
     * it down before the workload exists (docker/docker_netns.c). */
    if (p->ns_net && a->loopback_up)
        append(why, sizeof(why), "%s%s want %lld got %lld", "lo down", 1, 0);
    if (p->root == ASB_ROOT_ALLOWLIST_RO && !a->root_readonly)
        append(why, sizeof(why), "%s%s want %lld got %lld", "root read-only", 1, 0);
    /* A PID namespace of its own: a supervisor that skipped CLONE_NEWPID leaves the workload
     * among the caller's processes, to see and signal them. The workload's pid_ns was read but
     * never compared (mutation audit, session 23). */
    if (p->ns_pid) {
        char mine[64];
        snprintf(mine, sizeof(mine), "pid:[%llu]", (unsigned long long)asb_owner_pidns_ino());
        if (strncmp(a->pid_ns, "pid:[", 5) != 0 || strcmp(a->pid_ns, mine) == 0)
            append(why, sizeof(why), "%s%s want one of its own, not the caller's (%lld/%lld)",
                   "pid namespace", 0, 0);
    }
    if (p->ns_uts && strcmp(a->hostname, ASB_SANDBOX_HOSTNAME) != 0)
        append(why, sizeof(why), "%s%s want sandbox (%lld/%lld)", "hostname", 0, 0);
    if (p->ns_uts && strcmp(a->domainname, ASB_SANDBOX_DOMAINNAME) != 0)
        append(why, sizeof(why), "%s%s want " ASB_SANDBOX_DOMAINNAME " (%lld/%lld)", "domainname",
               0, 0);
    /* Nothing of the caller's process state (inherited.c; red-team finding). */
    if (pers != PER_LINUX)
        append(why, sizeof(why), "%s%s want %llx got %llx", "personality", PER_LINUX,
               (long long)pers);
    if (adj != ASB_SANDBOX_OOM_SCORE_ADJ)
        append(why, sizeof(why), "%s%s want %lld got %lld", "oom_score_adj",
               ASB_SANDBOX_OOM_SCORE_ADJ, (long long)adj);
    if (pol != SCHED_OTHER && pol != SCHED_BATCH && pol != SCHED_IDLE)
        append(why, sizeof(why), "%s%s want other, batch or idle, got %lld%.0lld",
               "scheduling policy", (long long)pol, 0);
    if (rtmax != 0)
        append(why, sizeof(why), "%s%s want %lld got %lld", "RLIMIT_RTPRIO", 0, (long long)rtmax);
    if (nice < 0 || nice > 19)
        append(why, sizeof(why), "%s%s want 0..19 got %lld%.0lld", "nice", (long long)nice, 0);
    if (nmax != 0)
        append(why, sizeof(why), "%s%s want %lld got %lld", "RLIMIT_NICE", 0, (long long)nmax);
    if (ioc == 1 || ioc < 0)
        append(why, sizeof(why), "%s%s want not real-time (1), got %lld%.0lld", "I/O class",
               (long long)ioc, 0);
    if (um != ASB_SANDBOX_UMASK)
        append(why, sizeof(why), "%s%s want %llo got %llo", "umask", ASB_SANDBOX_UMASK,
               (long long)um);
    /* The workload's own limits and mounts (review finding: applied, and not attested). */
    const asb_limits_t *lim = &plan->limits;
    if (core != 0)
        append(why, sizeof(why), "%s%s want %lld got %lld", "RLIMIT_CORE", 0, (long long)core);
    if (sigp < 0 || sigp > ASB_SANDBOX_SIGPENDING) /* a cap: a caller's lower limit stays */
        append(why, sizeof(why), "%s%s want at most %lld got %lld", "RLIMIT_SIGPENDING",
               ASB_SANDBOX_SIGPENDING, (long long)sigp);
    if (mq != 0)
        append(why, sizeof(why), "%s%s want %lld got %lld", "RLIMIT_MSGQUEUE", 0, (long long)mq);
    if (lim->fsize_bytes && fsz != (json_int_t)lim->fsize_bytes)
        append(why, sizeof(why), "%s%s want %lld got %lld", "RLIMIT_FSIZE",
               (long long)lim->fsize_bytes, (long long)fsz);
    if (lim->nofile && nof != (json_int_t)lim->nofile)
        append(why, sizeof(why), "%s%s want %lld got %lld", "RLIMIT_NOFILE", (long long)lim->nofile,
               (long long)nof);
    if (grp != 0)
        append(why, sizeof(why), "%s%s want %lld got %lld", "supplementary groups", 0,
               (long long)grp);
    /* Natively a session keyring of its own, never the caller's (red-team finding). Docker's
     * runtime gives each container one; its supervisor cannot read it under the engine's
     * filter, and says -1. */
    if (strcmp(plan->backend, "native") == 0) {
        long mine = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
        /* No keys here (ENOSYS), or a filter over the caller, and so over the workload, refuses
         * keyctl (EPERM): no keyring reaches it, and it says 0. */
        bool no_keys = mine < 0 && (errno == ENOSYS || errno == EPERM);
        if (no_keys ? kr != 0 : (kr <= 0 || kr == mine))
            append(why, sizeof(why), "%s%s want one of its own, not %lld, got %lld",
                   "session keyring", (long long)mine, (long long)kr);
    }
    if (p->root != ASB_ROOT_HOST) { /* a weakened root keeps the host's tree (ablations) */
        json_int_t base = ASB_MOUNT_NOSUID | ASB_MOUNT_NODEV;
        json_int_t ws_need = base | (p->workspace_noexec ? ASB_MOUNT_NOEXEC : 0);
        json_int_t tmp_need = base | (p->tmp_noexec ? ASB_MOUNT_NOEXEC : 0);
        if (wsm < 0 || wsm > 15 || (wsm & ws_need) != ws_need || (wsm & ASB_MOUNT_RDONLY))
            append(why, sizeof(why), "%s%s want flags %llx got %llx", "workspace mount",
                   (long long)ws_need, (long long)wsm);
        if (tmm < 0 || tmm > 15 || (tmm & tmp_need) != tmp_need || (tmm & ASB_MOUNT_RDONLY))
            append(why, sizeof(why), "%s%s want flags %llx got %llx", "/tmp mount",
                   (long long)tmp_need, (long long)tmm);
    }
    a->valid = why[0] == '\0';
    if (!a->valid)
        a->mismatch = strdup(why);
    return a->valid;
}

json_t *asb_native_recv(int ctl, int *fd_out)
{
    *fd_out = -1;
    char *buf = malloc(ASB_PROTO_MAX_MSG + 1);
    if (!buf)
        return NULL;
    int fds[4];
    size_t n_fds = 0;
    ssize_t n = asb_fd_recv(ctl, buf, ASB_PROTO_MAX_MSG, MSG_DONTWAIT, fds, 4, &n_fds);
    json_t *o = n > 0 ? asb_wire_to_json(buf, (size_t)n) : NULL;
    free(buf);
    /* One fd per message at most is ours to keep (the workspace); a refused message keeps none. */
    for (size_t i = 0; i < n_fds; i++) {
        if (o && *fd_out < 0)
            *fd_out = fds[i];
        else
            close(fds[i]);
    }
    return o;
}
