/* workload.c - the workload process: apply every control, attest what is in force, wait for the
 * job, exec. Runs as the supervisor's child; nothing of the untrusted program runs before the exec
 * at the very end, and the exec only happens after the host has checked the attestation (the host
 * sends the job only then). In a prepared sandbox everything up to the attestation happens before
 * anyone knows what will run. In a cold run (main.c, start_cold) the job is known already, the
 * attestation goes to the host directly and the host's "go" is the release (cold_go). */
#include "core/error.h"
#include "core/limits.h"
#include "native/fdpass.h"
#include "native/supervisor/seccomp_install.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <stddef.h>
#include <unistd.h>

static int last_cap(void)
{
    int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
    int last = CAP_LAST_CAP;
    if (fd >= 0) {
        char buf[16];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n > 0) {
            buf[n] = '\0';
            last = atoi(buf);
        }
        close(fd);
    }
    return last > 0 && last < 64 ? last : CAP_LAST_CAP;
}

static int set_caps(uint64_t keep, asb_error_t *err)
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof(d));
    d[0].effective = d[0].permitted = d[0].inheritable = (uint32_t)keep;
    d[1].effective = d[1].permitted = d[1].inheritable = (uint32_t)(keep >> 32);
    if (syscall(SYS_capset, &h, d) < 0)
        return asb_err_sys(err, errno, "capset");
    return 0;
}

/* Bounding set to `keep`, ambient cleared, ids changed, then eff/prm/inh to `keep`. */
static int drop_privileges(const sup_spec_t *spec, asb_error_t *err)
{
    uint64_t keep = spec->caps == ASB_CAPS_DOCKER_DEFAULT ? spec->caps_keep : 0;
    int last = last_cap();
    for (int c = 0; c <= last && !SUP_TAMPERED(CAPS); c++)
        if (!(keep & (1ull << c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
            return asb_err_sys(err, errno, "drop bounding cap %d", c);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
        return asb_err_sys(err, errno, "clear ambient caps");
    if (setgroups(0, NULL) < 0)
        return asb_err_sys(err, errno, "setgroups");
    if (setresgid((gid_t)spec->gid, (gid_t)spec->gid, (gid_t)spec->gid) < 0)
        return asb_err_sys(err, errno, "setresgid %ld", spec->gid);
    if (setresuid((uid_t)spec->uid, (uid_t)spec->uid, (uid_t)spec->uid) < 0)
        return asb_err_sys(err, errno, "setresuid %ld", spec->uid);
    return set_caps(spec->uid == 0 ? keep : 0, err);
}

/* Set both limits of `res` to v. The caller's hard limit passes down to us and cannot be raised
 * without privilege on the host: say so when it is what stands in the way. */
static int set_limit(int res, const char *name, rlim_t v, asb_error_t *err)
{
    struct rlimit r = {v, v};
    if (setrlimit(res, &r) == 0)
        return 0;
    int e = errno;
    struct rlimit cur;
    if (e == EPERM && getrlimit(res, &cur) == 0 && cur.rlim_max != RLIM_INFINITY &&
        cur.rlim_max < v)
        return asb_err(err, -e,
                       "%s: the profile needs %llu, the caller's hard limit is %llu (raise it "
                       "before the run, e.g. ulimit -H)",
                       name, (unsigned long long)v, (unsigned long long)cur.rlim_max);
    return asb_err_sys(err, e, "%s", name);
}

int sup_set_shared_limits(asb_error_t *err)
{
    struct rlimit core = {0, 0};
    if (setrlimit(RLIMIT_CORE, &core) < 0)
        return asb_err_sys(err, errno, "RLIMIT_CORE");
    /* A cap, like RLIMIT_MEMLOCK below: a caller's lower hard limit is stricter and stays (QA
     * finding: `ulimit -i 0` refused every run with a bare "Operation not permitted"). */
    struct rlimit sigpending;
    if (getrlimit(RLIMIT_SIGPENDING, &sigpending) < 0)
        return asb_err_sys(err, errno, "RLIMIT_SIGPENDING");
    if (sigpending.rlim_max > ASB_SANDBOX_SIGPENDING)
        sigpending.rlim_max = ASB_SANDBOX_SIGPENDING;
    sigpending.rlim_cur = sigpending.rlim_max;
    if (setrlimit(RLIMIT_SIGPENDING, &sigpending) < 0)
        return asb_err_sys(err, errno, "RLIMIT_SIGPENDING");
    struct rlimit msgq = {0, 0}; /* POSIX message queues: host-wide memory, no workload need */
    if (setrlimit(RLIMIT_MSGQUEUE, &msgq) < 0)
        return asb_err_sys(err, errno, "RLIMIT_MSGQUEUE");
    /* A cap: a caller's lower hard limit stays (it cannot be raised here, and need not be). */
    struct rlimit memlock;
    if (getrlimit(RLIMIT_MEMLOCK, &memlock) < 0)
        return asb_err_sys(err, errno, "RLIMIT_MEMLOCK");
    if (memlock.rlim_max > ASB_SANDBOX_MEMLOCK)
        memlock.rlim_max = ASB_SANDBOX_MEMLOCK;
    memlock.rlim_cur = memlock.rlim_max;
    if (setrlimit(RLIMIT_MEMLOCK, &memlock) < 0)
        return asb_err_sys(err, errno, "RLIMIT_MEMLOCK");
    return 0;
}

static int set_rlimits(const sup_spec_t *spec, asb_error_t *err)
{
    int rc = sup_set_shared_limits(err);
    if (rc < 0)
        return rc;
    if (spec->fsize && !SUP_TAMPERED(LIMITS) &&
        (rc = set_limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", spec->fsize, err)) < 0)
        return rc;
    if (spec->nofile && (rc = set_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", spec->nofile, err)) < 0)
        return rc;
    return 0;
}

static uint64_t parse_hex(const char *s)
{
    return strtoull(s, NULL, 16);
}

/* The first line of a small file, without its newline; "" when it cannot be read. */
static const char *read_line(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return buf;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

/* What is actually in force, read back from the kernel, not from what we meant to do. */
void sup_attest(int landlock_requested, const char *landlock_probe, const char *scope_probe,
                int64_t session_keyring, asb_wire_buf_t *o)
{
    char line[512];
    FILE *f = fopen("/proc/self/status", "re");
    if (!f) {
        o->failed = true;
        return;
    }
    while (fgets(line, sizeof(line), f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        *v++ = '\0';
        while (*v == '\t' || *v == ' ')
            v++;
        if (!strcmp(line, "Uid") || !strcmp(line, "Gid")) {
            long r, e, s, fs;
            if (sscanf(v, "%ld %ld %ld %ld", &r, &e, &s, &fs) == 4) {
                /* All four must agree, else report the odd one out. */
                long id = (r == e && e == s && s == fs) ? r : -2;
                asb_wire_put_int(o, !strcmp(line, "Uid") ? "uid" : "gid", id);
            }
        } else if (!strcmp(line, "CapInh") || !strcmp(line, "CapPrm") || !strcmp(line, "CapEff") ||
                   !strcmp(line, "CapBnd") || !strcmp(line, "CapAmb")) {
            char key[16];
            snprintf(key, sizeof(key), "cap_%c%c%c", line[3] | 0x20, line[4], line[5]);
            asb_wire_put_int(o, key, (int64_t)parse_hex(v));
        } else if (!strcmp(line, "NoNewPrivs")) {
            asb_wire_put_int(o, "no_new_privs", atoi(v));
        } else if (!strcmp(line, "Seccomp")) {
            asb_wire_put_int(o, "seccomp_mode", atoi(v));
        } else if (!strcmp(line, "Seccomp_filters")) { /* Linux 5.9+ */
            asb_wire_put_int(o, "seccomp_filters", atoi(v));
        } else if (!strcmp(line, "Umask")) {
            asb_wire_put_int(o, "umask", (int64_t)strtol(v, NULL, 8));
        }
    }
    fclose(f);

    /* Interfaces in this network namespace. */
    char ifaces[512] = "";
    f = fopen("/proc/net/dev", "re");
    if (f) {
        int n = 0;
        while (fgets(line, sizeof(line), f)) {
            if (++n <= 2)
                continue; /* headers */
            char *colon = strchr(line, ':');
            if (!colon)
                continue;
            *colon = '\0';
            char *name = line;
            while (*name == ' ')
                name++;
            size_t used = strlen(ifaces);
            snprintf(ifaces + used, sizeof(ifaces) - used, "%s%s", used ? "," : "", name);
        }
        fclose(f);
    }
    asb_wire_put_str(o, "net_ifaces", ifaces);

    /* Whether lo is up (IFF_UP), as the kernel says: native hardened keeps it down. */
    bool lo_up = true; /* unknown counts as up */
    int ls = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (ls >= 0) {
        struct ifreq ifr;
        memset(&ifr, 0, sizeof(ifr));
        strcpy(ifr.ifr_name, "lo");
        if (ioctl(ls, SIOCGIFFLAGS, &ifr) == 0)
            lo_up = (ifr.ifr_flags & IFF_UP) != 0;
        close(ls);
    }
    asb_wire_put_bool(o, "loopback_up", lo_up);

    /* Root read-only: the mount flag and a real write attempt must both say so. */
    struct statvfs sv;
    bool ro = statvfs("/", &sv) == 0 && (sv.f_flag & ST_RDONLY);
    int probe = open("/.asb-write-probe", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (probe >= 0) {
        close(probe);
        unlink("/.asb-write-probe");
        ro = false;
    }
    asb_wire_put_bool(o, "root_readonly", ro);

    /* Landlock: the ABI, and a probe that only Landlock denies: a world-readable file the
     * supervisor put in "/", where no rule grants reading files (a review found that the probe
     * before this, a write-open of /proc/self/comm, was refused by the file's owner too, with
     * or without Landlock). */
    asb_wire_put_int(o, "landlock_abi", sup_landlock_abi());
    bool ll = landlock_probe && sup_landlock_denies_read(landlock_probe);
    asb_wire_put_bool(o, "landlock_enforced", landlock_requested && ll);

    /* Scoping: the supervisor (outside our Landlock domain) listens on an abstract socket in our
     * network namespace; only Landlock's scope can refuse the connect with EPERM. */
    bool scoped = false;
    int us = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (us >= 0 && scope_probe) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        size_t len = strlen(scope_probe);
        memcpy(sa.sun_path + 1, scope_probe, len);
        scoped = connect(us, (struct sockaddr *)&sa,
                         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0 &&
                 errno == EPERM;
    }
    if (us >= 0)
        close(us);
    asb_wire_put_bool(o, "abstract_unix_scoped", scoped);

    /* memfd: what the kernel will do with a new memfd in this pid namespace, and whether one
     * can be made at all (refused by the memfd_refuse filter where the kernel has no
     * vm.memfd_noexec). */
    asb_wire_put_int(o, "memfd_noexec", sup_read_int("/proc/sys/vm/memfd_noexec", -1));
    int mfd = (int)syscall(SYS_memfd_create, "asb-attest", MFD_CLOEXEC);
    asb_wire_put_bool(o, "memfd_create_refused", mfd < 0 && errno == EPERM);
    if (mfd >= 0)
        close(mfd);

    /* From the UTS namespace's /proc/sys files, not uname(2): in hardened that is a question to
     * the supervisor (uname.c), which answers only once this attestation is in. */
    char name[72];
    asb_wire_put_str(o, "hostname", read_line("/proc/sys/kernel/hostname", name, sizeof(name)));
    asb_wire_put_str(o, "domainname", read_line("/proc/sys/kernel/domainname", name, sizeof(name)));

    /* What a caller's process state could have handed down (inherited.c): the personality
     * (ADDR_NO_RANDOMIZE turns ASLR off), the OOM score adjustment, a real-time scheduling
     * class and the limit that would let the program take one. Unknown reads as a value no
     * check accepts. */
    asb_wire_put_int(o, "personality", (int64_t)(unsigned)personality(0xffffffff));
    asb_wire_put_int(o, "oom_score_adj", sup_read_int("/proc/self/oom_score_adj", INT64_MIN));
    asb_wire_put_int(o, "sched_policy", syscall(SYS_sched_getscheduler, 0)); /* musl: ENOSYS */
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    asb_wire_put_int(o, "nice", errno ? INT64_MIN : nice);
    struct rlimit nl;
    asb_wire_put_int(o, "nice_max",
                     getrlimit(RLIMIT_NICE, &nl) == 0 && nl.rlim_max != RLIM_INFINITY
                         ? (int64_t)nl.rlim_max
                         : INT64_MAX);
    long io = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0);
    asb_wire_put_int(o, "ioprio_class", io < 0 ? -1 : io >> 13);
    struct rlimit rt;
    asb_wire_put_int(o, "rtprio_max",
                     getrlimit(RLIMIT_RTPRIO, &rt) == 0 && rt.rlim_max != RLIM_INFINITY
                         ? (int64_t)rt.rlim_max
                         : INT64_MAX);
    char ns[64];
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
    ns[n > 0 ? n : 0] = '\0';
    asb_wire_put_str(o, "pid_ns", ns);

    /* The workload's own limits and mounts, read back (review finding: they were applied and
     * checked, but not attested). A limit whose soft and hard values differ reads as -2,
     * unlimited as -1; a mount that cannot be read has every flag clear, which no check takes. */
    static const struct {
        int res;
        const char *key;
    } lims[] = {{RLIMIT_FSIZE, "rlimit_fsize"},
                {RLIMIT_NOFILE, "rlimit_nofile"},
                {RLIMIT_CORE, "rlimit_core"},
                {RLIMIT_SIGPENDING, "rlimit_sigpending"},
                {RLIMIT_MSGQUEUE, "rlimit_msgqueue"}};
    for (size_t i = 0; i < sizeof(lims) / sizeof(lims[0]); i++) {
        struct rlimit rl;
        int64_t v = -2;
        if (getrlimit(lims[i].res, &rl) == 0 && rl.rlim_cur == rl.rlim_max)
            v = rl.rlim_cur == RLIM_INFINITY ? -1 : (int64_t)rl.rlim_cur;
        asb_wire_put_int(o, lims[i].key, v);
    }
    /* Supplementary groups other than the workload's own gid (Docker lists that one). */
    gid_t gl[64];
    int ng = getgroups(64, gl), others = ng < 0 ? -1 : 0;
    for (int i = 0; i < ng; i++)
        others += gl[i] != getegid();
    asb_wire_put_int(o, "groups", others);
    asb_wire_put_int(o, "session_keyring", session_keyring);
    static const struct {
        const char *path, *key;
    } mnts[] = {{".", "workspace_mount"}, {"/tmp", "tmp_mount"}};
    for (size_t i = 0; i < sizeof(mnts) / sizeof(mnts[0]); i++) {
        struct statvfs mv;
        int64_t bits = 0;
        if (statvfs(mnts[i].path, &mv) == 0)
            bits = ((mv.f_flag & ST_NOSUID) ? ASB_MOUNT_NOSUID : 0) |
                   ((mv.f_flag & ST_NODEV) ? ASB_MOUNT_NODEV : 0) |
                   ((mv.f_flag & ST_NOEXEC) ? ASB_MOUNT_NOEXEC : 0) |
                   ((mv.f_flag & ST_RDONLY) ? ASB_MOUNT_RDONLY : 0);
        asb_wire_put_int(o, mnts[i].key, bits);
    }
}

/* "g" and exactly two fds (the job's spec, its stdin), or -1. */
static int recv_job(int sock, int fds[2])
{
    char g = 0;
    size_t n = 0;
    if (asb_fd_recv(sock, &g, 1, 0, fds, 2, &n) != 1 || g != 'g' || n != 2) {
        for (size_t i = 0; i < n; i++)
            close(fds[i]);
        return -1;
    }
    return 0;
}

__attribute__((noreturn)) static void fail(int fd, const char *prefix, const char *msg, int code)
{
    char buf[1200];
    int n = snprintf(buf, sizeof(buf), "%s%s", prefix, msg);
    if (n > 0)
        sup_write_all(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
    _exit(code);
}

static const char *env_get(char **env, const char *key)
{
    size_t k = strlen(key);
    for (char **e = env; e && *e; e++)
        if (strncmp(*e, key, k) == 0 && (*e)[k] == '=')
            return *e + k + 1;
    return NULL;
}

/* A path in the places W^X keeps from exec (the workspace, relative paths included, /tmp and
 * /dev/shm), in a profile that does: a refused exec there is that rule, said so. */
static bool written_here(const sup_spec_t *spec, const char *path)
{
    if (!spec->workspace_noexec || !strchr(path, '/'))
        return false;
    return path[0] != '/' || strncmp(path, ASB_WORKSPACE "/", strlen(ASB_WORKSPACE) + 1) == 0 ||
           strncmp(path, "/tmp/", 5) == 0 || strncmp(path, "/dev/shm/", 9) == 0;
}

/* execvpe() searches the caller's PATH; the workload's PATH is the one in its own env. */
int sup_exec_in_path(char **argv, char **env)
{
    if (strchr(argv[0], '/')) {
        execve(argv[0], argv, env);
        return errno;
    }
    const char *path = env_get(env, "PATH");
    if (!path)
        path = ASB_DEFAULT_PATH;
    int saved = ENOENT;
    char buf[4096];
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, argv[0]) < (int)sizeof(buf)) {
            execve(buf, argv, env);
            if (errno != ENOENT && errno != ENOTDIR)
                saved = errno;
        }
        p += len;
        if (*p == ':')
            p++;
    }
    return saved;
}

__attribute__((noreturn)) static void cold_go(const sup_spec_t *spec, asb_wire_buf_t *o);
__attribute__((noreturn)) static void exec_job(const sup_spec_t *spec);

void sup_workload_main(const sup_spec_t *spec, const char *workspace, const sup_workload_fds_t *fds)
{
    asb_error_t err = {0};
    int att = fds->attest_w;
    /* New session: no controlling terminal, so TIOCSTI-style injection has no target. */
    if (setsid() < 0)
        fail(att, "error:", "setsid failed", 125);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (dup2(fds->out_w, 1) < 0 || dup2(fds->err_w, 2) < 0)
        fail(att, "error:", "dup2 stdout/stderr", 125);
    /* Keep only 0,1,2 and the two CLOEXEC control pipes (moved to 3 and 4); in a cold run also
     * the host's control socket and the job's stdin (5 and 6). Copied above every fd they may
     * land on first. */
    bool cold = fds->ctl >= 0;
    int a = fcntl(att, F_DUPFD_CLOEXEC, 7), g = fcntl(fds->job_r, F_DUPFD_CLOEXEC, 7);
    int c = cold ? fcntl(fds->ctl, F_DUPFD_CLOEXEC, 7) : -1;
    int i = cold ? fcntl(fds->job_stdin, F_DUPFD_CLOEXEC, 7) : -1;
    if (a < 0 || g < 0 || dup3(a, 3, O_CLOEXEC) < 0 || dup3(g, 4, O_CLOEXEC) < 0 ||
        (cold && (c < 0 || i < 0 || dup3(c, 5, O_CLOEXEC) < 0 || dup3(i, 6, O_CLOEXEC) < 0)))
        fail(att, "error:", "dup control pipes", 125);
    att = 3;
    if (syscall(SYS_close_range, cold ? 7 : 5, ~0U, 0) < 0)
        fail(att, "error:", "close_range", 125);
    if (chdir(workspace) < 0)
        fail(att, "error:", "chdir workspace", 125);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    /* A session keyring of its own. Every process inherits its parent's, so the workload held
     * the caller's, a credential of the caller's; only the seccomp filter's refusal of keyctl
     * kept the keys in it out of reach (red-team finding, session 19). Joined here, before any
     * filter goes on, and its serial is attested for the host to compare with its own. */
    long keyring = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
    /* ENOSYS: a kernel without keys. EPERM: a filter the caller runs under (and so we do)
     * refuses keyctl, the caller's keys included; nothing else refuses this call. */
    if (keyring < 0 && errno != ENOSYS && errno != EPERM)
        fail(att, "error:", "keyctl: cannot join a session keyring of its own", 125);
    if (keyring < 0) { /* EPERM or ENOSYS: a filter may say either (review finding) */
        /* The caller's keyring stays ours then, and add_key and request_key reach it without
         * keyctl: they must be refused too (or absent, as on a kernel without keys), as
         * Docker's and systemd's keyring filters do
         * (review finding: a keyctl-only filter let a weakened run find and plant keys in
         * the caller's keyring). Probed with an empty key type, which the kernel refuses
         * with EINVAL before looking at any keyring. */
        long added = syscall(SYS_add_key, "", "", NULL, 0, 0);
        int ae = errno;
        long q = syscall(SYS_request_key, "", "", NULL, 0);
        int qe = errno;
        if (!(added < 0 && (ae == EPERM || ae == ENOSYS) && q < 0 && (qe == EPERM || qe == ENOSYS)))
            fail(att, "error:",
                 "keyctl is refused to this process but add_key or request_key is not: the "
                 "caller's session keyring would stay within the workload's reach",
                 125);
    }

    bool seccomp_done = false;
    if (set_rlimits(spec, &err) < 0)
        fail(att, "error:", err.message, 125);
    /* Without no_new_privs (baseline, as Docker), the filter must go on while we still hold
     * CAP_SYS_ADMIN in our namespace; it allows the capset/setuid calls that follow. */
    /* Before seccomp and the capability drop: without no_new_privs, Landlock needs
     * CAP_SYS_ADMIN in our namespace. */
    if (!spec->landlock && spec->landlock_scope && sup_landlock_scope_only(&err) < 0)
        fail(att, "error:", err.message, 125);
    if (!spec->no_new_privs && spec->seccomp != ASB_SECCOMP_NONE && !SUP_TAMPERED(SECCOMP)) {
        if (asb_seccomp_install(spec->seccomp, &err) < 0)
            fail(att, "error:", err.message, 125);
        seccomp_done = true;
    }
    if (drop_privileges(spec, &err) < 0)
        fail(att, "error:", err.message, 125);
    /* Changing the ids set our memory's dumpable flag to fs.suid_dumpable, which a host may have
     * at 1; in a cold run that memory is the supervisor's until the exec (main.c, start_cold),
     * so it is cleared at once, not only before the exec (review 24: otherwise the supervisor
     * stayed dumpable through the attestation and the host's check). No later call here
     * changes an id. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (spec->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        fail(att, "error:", "no_new_privs", 125);
    if (spec->landlock && !SUP_TAMPERED(LANDLOCK) &&
        sup_landlock_restrict(spec, workspace, &err) < 0)
        fail(att, "error:", err.message, 125);
    /* Under the main filter, not on it: hardened's own filter refuses seccomp(2) itself. */
    if (spec->memfd_refuse && asb_seccomp_install_memfd_refuse(&err) < 0)
        fail(att, "error:", err.message, 125);
    /* Also under the main filter; its listener goes to the supervisor, which answers uname(2)
     * for every process of the sandbox from now on (uname.c), on the job socket, before the
     * attestation (the supervisor takes it right after, or in a cold run right after our exec:
     * a uname before then waits for its answer). Nothing here calls uname. */
    if (spec->uname_hidden && seccomp_done)
        fail(att, "error:", "uname: hidden only under no_new_privs", 125);
    if (spec->uname_hidden && sup_uname_listen(4, &err) < 0)
        fail(att, "error:", err.message, 125);
    if (!seccomp_done && !SUP_TAMPERED(SECCOMP) && asb_seccomp_install(spec->seccomp, &err) < 0)
        fail(att, "error:", err.message, 125);

    asb_wire_buf_t o = {0};
    sup_attest(spec->landlock, spec->root == ASB_ROOT_HOST ? "/" : ASB_LANDLOCK_PROBE,
               fds->scope_probe, keyring < 0 ? 0 : keyring, &o);
    if (cold)
        cold_go(spec, &o); /* never returns: the job execs on the host's go */
    /* Hex: the pipe carries text ending in a NUL (or an "error:" line), the records are binary. */
    char *s = asb_wire_ok(&o) ? asb_wire_hex(o.data, o.len) : NULL;
    asb_wire_free(&o);
    if (!s)
        fail(att, "error:", "attestation", 125);
    sup_write_all(att, s, strlen(s));
    free(s);
    /* The end of the attestation is a zero byte; then wait for the job: "g" with its spec and
     * its stdin (SCM_RIGHTS), sent by the supervisor once the host has checked the attestation
     * and the files are in. Anything else ends us before anything runs. */
    sup_write_all(att, "", 1);
    int jfd[2] = {-1, -1};
    if (recv_job(4, jfd) < 0)
        _exit(125);
    close(4);
    sup_spec_t job;
    if (sup_spec_read(jfd[0], &job, &err) < 0)
        fail(att, "exec-error:", err.message, 125);
    close(jfd[0]);
    if (dup2(jfd[1], 0) < 0)
        fail(att, "exec-error:", "stdin", 125);
    close(jfd[1]);
    spec = &job;
    exec_job(spec);
}

/* A cold run: the attestation (its records, o) goes to the host itself, and only the host's
 * "go" lets the job run; anything else ends this process before anything of the job runs, with
 * "refused:" on the error pipe (the host knows why). The job is the supervisor's spec already
 * (shared memory: main.c made us with vfork semantics); its stdin is fd 6. */
__attribute__((noreturn)) static void cold_go(const sup_spec_t *spec, asb_wire_buf_t *o)
{
    if (!asb_wire_ok(o))
        fail(3, "error:", "attestation", 125);
    int timeout = -1;
    char other[sizeof(spec->nonce)];
    snprintf(other, sizeof(other), "%s", spec->nonce);
    if (SUP_TAMPERED(NONCE)) {
        /* Another run's nonce: the host must not take this for our attestation. Should it send
         * the go all the same, the run goes on (and the test sees it complete); else we end. */
        other[0] = other[0] == '0' ? '1' : '0';
        timeout = 2000;
    }
    if (sup_send_msg(5, other, "attest", o) < 0)
        fail(3, "error:", "cannot send the attestation to the host", 125);
    /* The host's "go", with no fds; its "abort", anything else or a hangup is a refusal. */
    int gofd = -1;
    size_t ngo = 0;
    int go = sup_recv_fds(5, "go", timeout, &gofd, 1, &ngo);
    if (go == 0 && ngo) {
        close(gofd);
        go = -EPROTO;
    }
    if (go == -ETIMEDOUT && SUP_TAMPERED(NONCE))
        fail(3, "error:", "tampered supervisor: no go came for a mis-tagged attestation", 125);
    if (go < 0)
        fail(3, "refused:", "", 125);
    /* The supervisor cannot tell an exec from a death by the pipe's end alone: this mark says
     * the go came, so that a workload killed while it waited is never taken for the program. */
    if (sup_write_all(3, "go:", 3) < 0)
        _exit(125);
    close(5);
    if (dup2(6, 0) < 0)
        fail(3, "exec-error:", "stdin", 125);
    close(6);
    /* Our memory is the supervisor's until the exec, and so is its dumpable flag: cleared once
     * more before the exec (it was right after our ids changed). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    exec_job(spec);
}

/* The job's exec, under the caller's soft stack limit; only returns through fail(). */
__attribute__((noreturn)) static void exec_job(const sup_spec_t *spec)
{
    int att = 3;
    /* The caller's soft stack limit as it was when it asked for this job (a pool prepares the
     * sandbox earlier), set now (review findings: a program started under `ulimit -s unlimited`
     * got 8 MiB while the supervisor's exec was a privileged one; a pooled one got the limit of
     * the pool's start). */
    struct rlimit stack;
    if (getrlimit(RLIMIT_STACK, &stack) < 0)
        fail(att, "exec-error:", "cannot read RLIMIT_STACK", 125);
    stack.rlim_cur = spec->stack_soft < 0 ? RLIM_INFINITY : (rlim_t)spec->stack_soft;
    if (stack.rlim_cur > stack.rlim_max)
        stack.rlim_cur = stack.rlim_max;
    if (setrlimit(RLIMIT_STACK, &stack) < 0)
        fail(att, "exec-error:", "cannot set the caller's soft RLIMIT_STACK", 125);
    int e = sup_exec_in_path(spec->argv, spec->env);
    char msg[640];
    /* A long path is cut, not the reason (the cut may split a character: the report sends it
     * as '?', see asb_wire_put_text). */
    snprintf(msg, sizeof(msg), "exec %.400s: %s%s", spec->argv[0], strerror(e),
             e == EACCES && written_here(spec, spec->argv[0])
                 ? " (this profile executes no file written in the sandbox or brought in with "
                   "--file-in: bring a program with --exec-in)"
                 : "");
    fail(att, "exec-error:", msg, 127);
}
