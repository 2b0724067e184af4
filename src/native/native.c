/* native.c - the native backend, host side.
 *
 * One run: create the cgroup, clone the trusted supervisor binary into new pid and time
 * namespaces, let it make its user namespace as the sandbox's own owner uid (and the mount, ipc,
 * uts, net ones inside it), check that owner and map its ids to the sandbox's host range, move
 * it into the cgroup, verify its attestation, release the workload, collect output with
 * caps, keep a backstop deadline, then read the verdict from the kernel's own evidence (wait
 * status, cgroup counters) and remove everything. No step falls back to something weaker. */
#include "core/backend.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/result.h"
#include "io/capture.h"
#include "io/file_in.h"
#include "io/file_out.h"
#include "io/sealed_memfd.h"
#include "native/cgroup.h"
#include "native/child.h"
#include "native/fdpass.h"
#include "native/idslot.h"
#include "native/native.h"
#include "native/native_spec.h"
#include "native/trees.h"
#include "native/verdict.h"
#include "native/proto.h"
#include "native/wire.h"
#include "native/wire_json.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

typedef asb_native_sandbox_t native_run_t;

struct native_run {
    const asb_plan_t *plan;     /* the template while preparing, &job while the job runs */
    asb_plan_t job;             /* the job's plan under this sandbox's nonce and run id */
    char nonce[33], run_id[17]; /* the sandbox's own, from the plan it was prepared for */
    asb_result_t *res;
    asb_cgroup_host_t cghost;
    asb_cgroup_t cg;
    bool cg_created;
    int sup_fd, spec_fd, stdin_fd, ctl[2], out[2], err[2];
    int *file_fds;
    size_t n_file_fds;
    uint64_t files_in_bytes; /* what the supervisor copies before the program's clock starts */
    char **file_names;
    pid_t pid;
    int pidfd;
    int mnt_ns;       /* prepared sandboxes: their mount namespace, so its teardown can wait */
    asb_idslot_t ids; /* this sandbox's own host uid/gid range */
    asb_child_args_t child_args; /* the child's snapshot: never written once it runs */
    asb_child_t child;
    int ws_fd;
    asb_capbuf_t cap_out, cap_err;
    json_t *report;
    json_t *pending_attest; /* the attestation, received while preparing; checked with the job */
    json_t *binds; /* the sandbox's read-only host directories, for its spec and its job's */
    char *sup_error;
    bool ids_granted, attested, released, backstop_fired, sup_exited, reaped;
    bool cancelled;       /* the caller cancelled the job: everything was killed */
    bool early_job;       /* a cold run: its job's fds are built while the supervisor starts and go
                           * right after the cgroup, the go after the attestation (supervisor/main.c,
                           * start_cold) */
    bool lost_before_job; /* a prepared sandbox ended before it could be handed its job */
    bool sup_status_lost; /* reaped by the caller: only the exit report tells how it ended */
    int sup_status;       /* wait status of the supervisor */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int early_end(native_run_t *r, asb_error_t *err);
static int send_job(native_run_t *r, asb_error_t *err);

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Owned by root or us, and writable by nobody else (a directory: unless sticky). */
static bool trusted_inode(const struct stat *st)
{
    return (st->st_uid == 0 || st->st_uid == geteuid()) &&
           (!(st->st_mode & 022) || (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)));
}

#define TRUST_MAX_LINKS 40

/* Open path's file after checking every directory the walk to it passes through and every
 * symlink it follows: each owned by root or us, a directory writable by nobody else unless
 * sticky. Whoever could write one of them could put any root-owned program, or an older
 * supervisor, in the supervisor's place, and it would run as host root. The path is walked as
 * given, one component at a time with O_NOFOLLOW from a checked directory: resolving it first
 * (realpath) followed a symlink planted in a directory others may write without looking at that
 * directory (review finding, twice). -1 with errno set: EPERM for a place that fails the check
 * (*bad names it: "directory X" or "symlink X"), else what the walk's calls said. */
static int open_trusted_path(const char *path, char *bad, size_t bad_len)
{
    char todo[8192], shown[4096] = "";
    int len;
    if (path[0] == '/') {
        len = snprintf(todo, sizeof(todo), "%s", path);
    } else {
        char cwd[4096];
        if (!getcwd(cwd, sizeof(cwd)))
            return -1;
        len = snprintf(todo, sizeof(todo), "%s/%s", cwd, path);
    }
    /* Never a cut path: another file than the one named would be checked and run (review). */
    if (len < 0 || (size_t)len >= sizeof(todo)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* A trailing slash names a directory, as the kernel reads it, never the file before it. */
    if (len > 1 && todo[len - 1] == '/') {
        errno = ENOTDIR;
        return -1;
    }
    int dir = -1, fd = -1, e = 0, links = 0;
    char *rest = todo;
    bool restart = true; /* at "/" (the start, or an absolute link) */
    for (;;) {
        struct stat st;
        if (restart) {
            if (dir >= 0)
                close(dir);
            dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
            if (dir < 0 || fstat(dir, &st) < 0) {
                e = errno;
                break;
            }
            if (!trusted_inode(&st)) {
                snprintf(bad, bad_len, "directory /");
                e = EPERM;
                break;
            }
            shown[0] = '\0';
            restart = false;
        }
        while (*rest == '/')
            rest++;
        if (!*rest) {
            e = EISDIR; /* the path names a directory */
            break;
        }
        char *slash = strchr(rest, '/'), *next = slash ? slash : rest + strlen(rest);
        size_t clen = (size_t)(next - rest);
        char comp[NAME_MAX + 1];
        if (clen > NAME_MAX) {
            e = ENAMETOOLONG;
            break;
        }
        memcpy(comp, rest, clen);
        comp[clen] = '\0';
        while (*next == '/')
            next++;
        bool last = !*next;
        int cur = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (cur < 0 || fstat(cur, &st) < 0) {
            e = errno;
            if (cur >= 0)
                close(cur);
            break;
        }
        char here[4096];
        snprintf(here, sizeof(here), "%s/%s", shown, comp);
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlinkat(cur, "", target, sizeof(target) - 1);
            e = errno;
            close(cur);
            if (!(st.st_uid == 0 || st.st_uid == geteuid())) {
                snprintf(bad, bad_len, "symlink %s", here);
                e = EPERM;
                break;
            }
            if (n <= 0 || ++links > TRUST_MAX_LINKS) {
                e = n <= 0 ? e : ELOOP;
                break;
            }
            target[n] = '\0';
            char joined[sizeof(todo)];
            int w = snprintf(joined, sizeof(joined), "%s%s%s", target, *next ? "/" : "", next);
            if (w < 0 || (size_t)w >= sizeof(joined)) {
                e = ENAMETOOLONG;
                break;
            }
            memcpy(todo, joined, (size_t)w + 1);
            rest = todo;
            restart = target[0] == '/';
            continue;
        }
        if (last) {
            close(cur);
            /* Only root or we could have swapped it since (its directory passed): no link. */
            fd = openat(dir, comp, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
            e = errno;
            break;
        }
        if (!S_ISDIR(st.st_mode)) {
            close(cur);
            e = ENOTDIR;
            break;
        }
        if (!trusted_inode(&st)) {
            close(cur);
            snprintf(bad, bad_len, "directory %s", here);
            e = EPERM;
            break;
        }
        close(dir);
        dir = cur;
        snprintf(shown, sizeof(shown), "%s", here);
        rest = next;
    }
    if (dir >= 0)
        close(dir);
    errno = e;
    return fd;
}

/* The supervisor binary: ASB_SUPERVISOR, else the build tree's, else the installed one. It must be
 * a regular file that only root (or we) can change, in directories only root (or we) can
 * change: it becomes PID 1 of every sandbox. */
static int open_supervisor(asb_error_t *err)
{
    const char *env = getenv("ASB_SUPERVISOR");
    const char *cands[] = {env, ASB_SUPERVISOR_BUILD_PATH, ASB_SUPERVISOR_INSTALL_PATH};
    for (size_t i = 0; i < 3; i++) {
        if (!cands[i] || !*cands[i])
            continue;
        /* O_NONBLOCK: a FIFO planted there is refused below instead of hanging every run in
         * open (QA finding); it changes nothing for the regular file exec'd through the fd. */
        char bad_dir[4200] = "";
        int fd = open_trusted_path(cands[i], bad_dir, sizeof(bad_dir));
        if (fd < 0 && bad_dir[0] && i != 1)
            return asb_err(err, -EPERM, "supervisor %s: %s is not root's, or others may write it%s",
                           cands[i], bad_dir, i == 0 ? " (from ASB_SUPERVISOR)" : "");
        if (fd < 0) {
            /* The build tree's in a directory others can write: not ours to run; the
             * installed one may be (a build tree left in a shared place). */
            if (i == 1 && bad_dir[0])
                continue;
            if (i == 0)
                return asb_err_sys(err, errno, "supervisor %s (from ASB_SUPERVISOR)", cands[i]);
            /* Not there, or not for us (a build tree under a 0700 home): look at the next
             * place. Anything else (EMFILE, ENFILE, ENOMEM) is the real reason, not a missing
             * binary (crash-QA finding), and so is a refusal at the last place (review). */
            bool absent = errno == ENOENT || errno == ENOTDIR;
            bool elsewhere = absent || errno == EACCES || errno == ELOOP;
            if (!elsewhere || (i == 2 && !absent))
                return asb_err_sys(err, errno, "supervisor %s", cands[i]);
            continue;
        }
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
            (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
            close(fd);
            return asb_err(err, -EPERM,
                           "supervisor %s is not a regular file owned by root and "
                           "writable only by its owner",
                           cands[i]);
        }
        /* Named here, not as a later broken hand-over (QA finding: a text file said "hand
         * dev_tree to the supervisor (Broken pipe)", a 0600 copy "ended before its
         * attestation"). */
        static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
        unsigned char magic[4] = {0};
        if (!(st.st_mode & S_IXUSR) ||
            pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
            memcmp(magic, elf, sizeof(elf)) != 0) {
            close(fd);
            return asb_err(err, -ENOEXEC, "supervisor %s is not an executable ELF file%s", cands[i],
                           (st.st_mode & S_IXUSR) ? "" : " (no execute permission)");
        }
        return fd;
    }
    return asb_err(err, -ENOENT,
                   "supervisor binary not found (looked at %s and %s; set "
                   "ASB_SUPERVISOR)",
                   ASB_SUPERVISOR_BUILD_PATH, ASB_SUPERVISOR_INSTALL_PATH);
}

static int prepare_files(native_run_t *r, asb_error_t *err)
{
    const asb_plan_t *plan = r->plan;
    size_t n = plan->n_files_in + (plan->code ? 1 : 0);
    r->file_fds = calloc(n + 1, sizeof(int));
    r->file_names = calloc(n + 1, sizeof(char *));
    if (!r->file_fds || !r->file_names)
        return asb_err_sys(err, ENOMEM, "files in");
    for (size_t i = 0; i < plan->n_files_in; i++) {
        /* A copy can take seconds (64 files of 16 MiB): a cancel is seen between them. */
        if (asb_plan_cancelled(plan))
            return asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began");
        uint64_t size;
        int fd, rc = asb_file_in_snapshot(plan->files_in[i].host_path, plan->limits.file_in_bytes,
                                          &fd, &size, err);
        if (rc < 0)
            return rc;
        r->file_fds[r->n_file_fds] = fd;
        r->file_names[r->n_file_fds++] = plan->files_in[i].name;
        r->files_in_bytes += size;
    }
    if (plan->code) {
        int fd = asb_sealed_memfd("code", plan->code, plan->code_len, err);
        if (fd < 0)
            return fd;
        r->file_fds[r->n_file_fds] = fd;
        r->file_names[r->n_file_fds++] = plan->code_name;
        r->files_in_bytes += plan->code_len;
    }
    return 0;
}

static int write_id_map(pid_t pid, const char *file, uint32_t base, asb_error_t *err)
{
    char path[64], map[64];
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    int len = snprintf(map, sizeof(map), "0 %u %u\n", base, ASB_USERNS_RANGE);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return asb_err_sys(err, errno, "open %s", path);
    ssize_t w = write(fd, map, (size_t)len);
    int e = errno;
    close(fd);
    if (w != len)
        return asb_err_sys(err, w < 0 ? e : EIO, "write %s", path);
    return 0;
}

/* A message of `type` with fds (may be none); < 0 when it could not be sent (the supervisor
 * takes silence as an abort). */
static int send_packet_fds(int ctl, const char *type, const int *fds, size_t n_fds)
{
    uint8_t buf[64];
    asb_wire_buf_t b;
    asb_wire_init_fixed(&b, buf, sizeof(buf));
    asb_wire_put_str(&b, "type", type);
    if (!asb_wire_ok(&b))
        return -ENOMEM;
    return asb_fd_send(ctl, b.data, b.len, fds, n_fds);
}

static void send_packet(int ctl, const char *type)
{
    (void)send_packet_fds(ctl, type, NULL, 0);
}

static bool usr_from_host(const native_run_t *r)
{
    return r->plan->profile.root == ASB_ROOT_OVERLAY_RW;
}

/* The run's cgroup, for the supervisor: it waits for this message before anything that must
 * count against the run's limits (files in, the workload), and the host checks the membership
 * itself (/proc/PID/cgroup) before it lets the workload run.
 *  - v2: the supervisor was cloned into it (CLONE_INTO_CGROUP): nothing to send but the word.
 *  - v1: made now, while the supervisor builds its root (0.23 ms off every cold run), and sent
 *    as the run's `tasks` files, opened here: the supervisor writes "0" to each. A task moving
 *    its own single thread skips the global rwsem whose RCU grace period a move by another
 *    process waits for (4-18 ms in ~40% of runs here). The permission check is the opener's.
 *    What the supervisor allocated before it joined (its root: mounts, a few tmpfs pages) stays
 *    charged to the caller's cgroup; nothing of the run's program exists before. */
static int send_cgroup(native_run_t *r, asb_error_t *err)
{
    int fds[ASB_CGROUP_MAX_HIERARCHIES];
    int n = 0, rc;
    if (r->plan->profile.cgroup && !r->cg_created) {
        asb_cgroup_limits_t lim = {.memory_bytes = r->plan->limits.memory_bytes,
                                   .pids = r->plan->limits.pids,
                                   .cpus = r->plan->limits.cpus,
                                   .io_read_bps = r->plan->limits.io_read_bps,
                                   .io_read_iops = r->plan->limits.io_read_iops};
        if ((rc = asb_cgroup_create(&r->cg, &r->cghost, r->run_id, &lim, err)) < 0)
            return rc;
        r->cg_created = true;
        if ((n = asb_cgroup_open_self_join(&r->cg, fds, ASB_CGROUP_MAX_HIERARCHIES, err)) < 0)
            return n;
    }
    /* Not sent (the supervisor has failed and gone): its own error message, already queued, is
     * what wait_attested reports. Nothing runs on a failed send: a supervisor without the
     * message never starts its workload, and one outside the cgroup is refused (has_pid). */
    (void)send_packet_fds(r->ctl[0], "cgroup_ready", fds, (size_t)n);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    /* A cold run's job, now: the supervisor takes it (and copies the files in) before it makes
     * the workload, which runs it only on our "go" after its attestation (handle_message). Not
     * sent because the supervisor is gone: as above. Not sent for another reason (the socket's
     * buffer, the fds' count): the run is refused now, not after the setup timeout. */
    if (r->early_job && (rc = send_job(r, err)) < 0 && rc != -EPIPE && rc != -ECONNRESET)
        return rc;
    return 0;
}

static int spawn(native_run_t *r, asb_error_t *err)
{
    const asb_profile_t *p = &r->plan->profile;
    /* Only the pid and time namespaces here: the supervisor makes its user namespace itself, as
     * this sandbox's own owner uid (idslot.h), and the mount, ipc, uts and network ones inside
     * it (supervisor/userns.c). Made here by host root, a user namespace would be owned by host
     * root, and everything the kernel counts per user up the namespaces (queued signals,
     * processes, inotify instances) would add up in host root's own counts. A time namespace
     * too (clocks unchanged): otherwise /proc/self/ns/time is the host's inode in every sandbox,
     * and a flock on it is a channel between them (red-team finding). */
    uint64_t flags = CLONE_NEWPID | CLONE_NEWTIME | CLONE_PIDFD;
    /* v2: the cgroup exists already and the child starts in it. */
    int cgfd = r->cg_created ? asb_cgroup_dirfd_v2(&r->cg) : -1;
    if (cgfd >= 0)
        flags |= CLONE_INTO_CGROUP;
    asb_child_args_t *a = &r->child_args;
    /* stdin is a placeholder until the job brings the real one (proto.h). */
    a->fds[0] = r->stdin_fd, a->fds[1] = r->out[1], a->fds[2] = r->err[1], a->fds[3] = r->ctl[1];
    a->fds[4] = r->spec_fd, a->fds[5] = r->sup_fd;
    a->n_fds = 6;
    struct clone_args ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = flags;
    ca.pidfd = (uint64_t)(uintptr_t)&r->pidfd;
    /* SIGCHLD as for any child (execve resets the exit signal to SIGCHLD anyway). A caller that
     * reaps children itself or ignores SIGCHLD may take the supervisor's wait status: event_loop
     * then knows it exited from the pidfd and decides from the nonce-tagged report alone. */
    ca.exit_signal = SIGCHLD;
    ca.cgroup = cgfd >= 0 ? (uint64_t)cgfd : 0;
    /* The caller's signal handlers must not run in the child before it execs (they would run on
     * a copy of the caller's state): block everything across clone3, as posix_spawn does. The
     * supervisor resets its mask and every disposition first thing. */
    /* The raw syscall: glibc's wrappers leave its two internal signals (cancellation, setxid)
     * unblocked, and their handlers would run on the caller's thread state in the child. */
    uint64_t all = ~(uint64_t)0, old = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all));
    long pid = asb_child_spawn(&ca, &r->child_args, &r->child);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
    if (pid < 0)
        return asb_err_sys(err, (int)-pid, "clone3 into new pid and time namespaces");
    r->pid = (pid_t)pid;
    close_fd(&r->ctl[1]);
    close_fd(&r->out[1]);
    close_fd(&r->err[1]);
    /* While the supervisor starts: its device nodes. The id maps, baseline's /usr and the cgroup
     * follow its "userns" (grant_ids). */
    if (p->root != ASB_ROOT_HOST) {
        int rc = asb_native_send_dev_tree(r->ctl[0], err);
        /* It died before it could take them (a truncated binary): why it died is the error,
         * not the broken pipe (1 in 30 runs of test_cli.sh's truncated supervisor). */
        if (rc == -EPIPE || rc == -ECONNRESET)
            return early_end(r, err);
        return rc;
    }
    return 0;
}

/* The supervisor made its user namespace (supervisor/userns.c): check that the kernel names this
 * sandbox's own owner uid as its owner (evidence, not the supervisor's word), map the sandbox's
 * ids to this sandbox's host range, then send baseline's /usr idmapped through that namespace,
 * the word "ids" and the cgroup. Anything wrong refuses the run. */
static int grant_ids(native_run_t *r, asb_error_t *err)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)r->pid);
    int ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns < 0)
        return asb_err_sys(err, errno, "open %s", path);
    uid_t owner = 0;
    int rc = 0;
    if (ioctl(ns, NS_GET_OWNER_UID, &owner) < 0)
        rc =
            asb_err_sys(err, errno, "the owner of the sandbox's user namespace (NS_GET_OWNER_UID)");
    else if (owner != (uid_t)r->ids.owner)
        rc = asb_err(err, -EPERM,
                     "the sandbox's user namespace is owned by host uid %u, not by its own "
                     "owner uid %u",
                     (unsigned)owner, (unsigned)r->ids.owner);
    else if ((rc = write_id_map(r->pid, "uid_map", r->ids.base, err)) == 0 &&
             (rc = write_id_map(r->pid, "gid_map", r->ids.base, err)) == 0 && usr_from_host(r))
        rc = asb_native_send_usr_tree(r->ctl[0], ns, err); /* the same namespace, not reopened */
    close(ns);
    if (rc < 0)
        return rc;
    if (send_packet_fds(r->ctl[0], "ids", NULL, 0) < 0)
        return asb_err_sys(err, EPIPE, "send the supervisor its ids");
    return send_cgroup(r, err);
}

/* A spec for the supervisor (proto.h) as a sealed read-only memfd: the sandbox's (no files) or
 * a job's. */
static int spec_memfd(native_run_t *r, const asb_plan_t *plan, const char *const *files,
                      size_t n_files, asb_error_t *err)
{
    json_t *spec = asb_native_spec(plan, r->binds, files, n_files, usr_from_host(r), r->ids.owner,
                                   r->early_job);
    asb_wire_buf_t w = {0};
    asb_wire_from_json(&w, spec);
    json_decref(spec);
    int fd = spec && asb_wire_ok(&w) ? asb_sealed_memfd("spec", w.data, w.len, err)
                                     : asb_err_sys(err, ENOMEM, "run spec");
    asb_wire_free(&w);
    return fd;
}

/* The job's fds: its spec, stdin and files in (opened and capped now, before the sandbox is
 * asked for anything). */
static int build_job(native_run_t *r, asb_error_t *err)
{
    const asb_plan_t *plan = r->plan;
    int rc;
    if ((rc = prepare_files(r, err)) < 0)
        return rc;
    r->spec_fd = spec_memfd(r, plan, (const char *const *)r->file_names, r->n_file_fds, err);
    if (r->spec_fd < 0 ||
        (r->stdin_fd = asb_sealed_memfd("stdin", plan->stdin_data, plan->stdin_len, err)) < 0)
        return err->code;
    return 0;
}

/* Hand the job to the supervisor, as fds on one message: this is its go (a cold run's comes
 * earlier, send_cgroup, and send_release is its go). */
static int send_job(native_run_t *r, asb_error_t *err)
{
    size_t nfds = 2 + r->n_file_fds;
    int fds[2 + ASB_MAX_FILES_IN + 1];
    fds[0] = r->spec_fd, fds[1] = r->stdin_fd;
    for (size_t i = 0; i < r->n_file_fds; i++)
        fds[2 + i] = r->file_fds[i];
    uint8_t msg[64];
    asb_wire_buf_t b;
    asb_wire_init_fixed(&b, msg, sizeof(msg));
    asb_wire_put_str(&b, "type", "job");
    int rc = asb_wire_ok(&b) ? asb_fd_send(r->ctl[0], msg, b.len, fds, nfds) : -ENOMEM;
    if (rc < 0)
        return asb_err_sys(err, -rc, "hand the job to the sandbox");
    return 0;
}

/* The release of an attested sandbox: its job, or for a cold run, whose supervisor has the job
 * already, the word "go". */
static int send_release(native_run_t *r, asb_error_t *err)
{
    if (!r->early_job)
        return send_job(r, err);
    int rc = send_packet_fds(r->ctl[0], "go", NULL, 0);
    return rc < 0 ? asb_err_sys(err, -rc, "tell the sandbox to run its job") : 0;
}

static void handle_message(native_run_t *r, json_t *m, int fd)
{
    const char *type = json_string_value(json_object_get(m, "type"));
    const char *nonce = json_string_value(json_object_get(m, "nonce"));
    if (!type || !nonce || strcmp(nonce, r->nonce) != 0) {
        if (fd >= 0)
            close(fd);
        return; /* not tagged with this run's nonce: not ours, ignored */
    }
    if (strcmp(type, "workspace") == 0 && fd >= 0 && r->ws_fd < 0) {
        r->ws_fd = fd;
        return;
    }
    if (fd >= 0)
        close(fd);
    if (strcmp(type, "userns") == 0 && !r->ids_granted) {
        r->ids_granted = true;
        asb_error_t ierr;
        if (grant_ids(r, &ierr) < 0) {
            if (!r->sup_error)
                r->sup_error = strdup(ierr.message);
            send_packet(r->ctl[0], "abort");
        }
    } else if (strcmp(type, "attest") == 0 && !r->res) {
        /* Still preparing: kept, and checked against the plan of the job that takes us. */
        if (!r->pending_attest)
            r->pending_attest = json_incref(m);
    } else if (strcmp(type, "attest") == 0 && !r->attested) {
        r->attested = true;
        asb_error_t cgerr;
        if (!r->ids_granted || (r->plan->profile.cgroup && !r->cg_created)) {
            /* Our own supervisor cannot get here without them; refused all the same. */
            if (!r->sup_error)
                r->sup_error = strdup("attestation before the sandbox's ids and cgroup");
            send_packet(r->ctl[0], "abort");
        } else if (r->cg_created && asb_cgroup_has_pid(&r->cg, r->pid, &cgerr) < 0) {
            /* Limits that do not hold are refused like any failed control. */
            if (!r->sup_error)
                r->sup_error = strdup(cgerr.message);
            send_packet(r->ctl[0], "abort");
        } else if (asb_native_verify_attestation(r->plan, m, asb_native_seccomp_filters(r->pid),
                                                 &r->res->attestation)) {
            /* The job is the go: only an attested sandbox learns what to run. A cold run's
             * supervisor has it already; its workload waits for the word. */
            asb_error_t jerr;
            if (send_release(r, &jerr) == 0) {
                r->released = true;
            } else {
                /* The supervisor is gone: the job never reached it. */
                r->lost_before_job =
                    jerr.code == -EPIPE || jerr.code == -ECONNRESET || jerr.code == -ECONNREFUSED;
                if (!r->sup_error)
                    r->sup_error = strdup(jerr.message);
                send_packet(r->ctl[0], "abort");
            }
        } else {
            send_packet(r->ctl[0], "abort");
        }
    } else if (strcmp(type, "exit") == 0 && !r->report) {
        r->report = json_incref(m);
    } else if (strcmp(type, "error") == 0 && !r->sup_error) {
        const char *msg = json_string_value(json_object_get(m, "message"));
        r->sup_error = strdup(msg ? msg : "supervisor failed");
    }
}

/* One waiting message from the supervisor, handled; false when none could be read. */
static bool take_message(native_run_t *r)
{
    int fd;
    json_t *m = asb_native_recv(r->ctl[0], &fd);
    if (!m)
        return false;
    handle_message(r, m, fd);
    json_decref(m);
    return true;
}

/* What the pipes still hold once the supervisor has exited. Its exit came after every process
 * of its pid namespace had exited, so all that will ever arrive is there: read until the pipes
 * are empty, never wait for their end. A fork by another thread of the caller may hold copies of
 * the write ends (O_CLOEXEC never applies to a child that does not exec), and waiting for an end
 * made such runs 2 s longer (QA finding, session 17). */
static void drain_output(native_run_t *r)
{
    while (r->out[0] >= 0 || r->err[0] >= 0) {
        struct pollfd p[2] = {{.fd = r->out[0], .events = POLLIN},
                              {.fd = r->err[0], .events = POLLIN}};
        if (poll(p, 2, 0) <= 0)
            break;
        for (int i = 0; i < 2; i++) {
            int *fd = i ? &r->err[0] : &r->out[0];
            if (*fd >= 0 && p[i].revents &&
                asb_capture_drain(*fd, i ? &r->cap_err : &r->cap_out, NULL) != 0)
                close_fd(fd);
        }
    }
}

static void backstop(native_run_t *r, int sig)
{
    if (r->cg_created)
        asb_cgroup_kill(&r->cg, sig, NULL);
    syscall(SYS_pidfd_send_signal, r->pidfd, sig, NULL, 0);
}

/* Wait for the supervisor, relaying output and messages; keep our own deadline. */
static void event_loop(native_run_t *r)
{
    double setup_deadline = now_s() + ASB_SETUP_TIMEOUT_MS / 1000.0;
    double run_deadline = 0, kill_at = 0, lift_at = 0;
    while (!r->sup_exited) {
        struct pollfd p[5] = {{.fd = r->ctl[0], .events = POLLIN},
                              {.fd = r->out[0], .events = POLLIN},
                              {.fd = r->err[0], .events = POLLIN},
                              {.fd = r->pidfd, .events = POLLIN},
                              {.fd = r->cancelled ? -1 : r->plan->cancel_fd, .events = POLLIN}};
        double t = now_s();
        if (r->released && run_deadline == 0) {
            /* A cold run's files are in before its go (wait_attested allowed for the copy): its
             * program's clock starts at the go, and so does the backstop's, with no copy
             * allowance left to add. */
            run_deadline =
                t + r->plan->limits.timeout_s + ASB_BACKSTOP_SLACK_S +
                (r->early_job ? 0
                              : (double)r->files_in_bytes / ASB_BACKSTOP_COPY_FLOOR_BYTES_PER_S);
            /* The supervisor kills the program at its deadline; its disk read limit goes then,
             * or a thread waiting for a throttled read outlives the kill (asb_cgroup_lift_io). */
            lift_at = run_deadline - ASB_BACKSTOP_SLACK_S;
        }
        if (lift_at != 0 && t >= lift_at) {
            if (r->cg_created)
                asb_cgroup_lift_io(&r->cg);
            lift_at = 0;
        }
        double deadline = kill_at != 0 ? kill_at : (r->released ? run_deadline : setup_deadline);
        bool lifting = lift_at != 0 && lift_at < deadline; /* wake up for the lift first */
        if (lifting)
            deadline = lift_at;
        if (t >= deadline && !lifting) {
            if (kill_at == 0) {
                /* The supervisor should have ended the run by now: TERM the whole cgroup,
                 * KILL after the grace period. */
                r->backstop_fired = true;
                backstop(r, SIGTERM);
                kill_at = t + ASB_BACKSTOP_GRACE_S;
            } else {
                backstop(r, SIGKILL);
                kill_at = t + 3600;
            }
            continue;
        }
        int rc = poll(p, 5, (int)((deadline - t) * 1000) + 1);
        if (rc < 0 && errno != EINTR)
            break;
        if (rc <= 0)
            continue;
        if (p[4].revents) {
            /* The caller's cancellation: the whole run dies now; its exit is waited for below
             * like any other, so that everything is gone before the run returns. */
            r->cancelled = true;
            backstop(r, SIGKILL);
        }
        bool got = (p[0].revents & POLLIN) && take_message(r);
        if (!got && (p[0].revents & (POLLHUP | POLLERR)))
            close_fd(&r->ctl[0]); /* peer gone and nothing left to read: stop polling it */
        for (int i = 1; i <= 2; i++) {
            int *fd = i == 2 ? &r->err[0] : &r->out[0];
            if (*fd >= 0 && p[i].revents &&
                asb_capture_drain(*fd, i == 2 ? &r->cap_err : &r->cap_out, NULL) != 0)
                close_fd(fd);
        }
        if (p[3].revents & POLLIN) {
            siginfo_t si;
            memset(&si, 0, sizeof(si));
            int w = waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &si, WEXITED | __WALL);
            if (w == 0) {
                r->sup_exited = true;
                r->sup_status =
                    si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 : (si.si_status & 0x7f);
            } else if (errno == ECHILD) {
                /* The caller reaped it (SIGCHLD handler, or SIGCHLD ignored): the pidfd says it
                 * is gone, its status is not ours to read. */
                r->sup_exited = true;
                r->sup_status_lost = true;
            } else if (errno != EINTR) {
                r->sup_exited = true;
                r->sup_status = SIGKILL;
                if (!r->sup_error)
                    r->sup_error = strdup("the supervisor's exit status could not be read");
            }
        }
    }
    /* Late messages (the exit report) and the last output. */
    while (r->ctl[0] >= 0 && take_message(r))
        ;
    drain_output(r);
}

static void read_files_out(native_run_t *r)
{
    const asb_plan_t *plan = r->plan;
    for (size_t i = 0; i < plan->n_files_out; i++) {
        const char *name = plan->files_out[i];
        if (r->ws_fd < 0) {
            asb_result_add_refused(r->res, name, "workspace unavailable");
            continue;
        }
        /* Files are read only once every process of the run is gone (the supervisor's exit
         * tears its pid namespace down), so nothing can swap a file while we read it. */
        if (!r->sup_exited) {
            asb_result_add_refused(r->res, name, "the sandbox had not ended");
            continue;
        }
        unsigned char *data = NULL;
        size_t len = 0;
        char why[256];
        int rc = asb_file_out_read(r->ws_fd, name, plan->limits.file_out_bytes, &data, &len, why,
                                   sizeof(why));
        if (rc == 0 && asb_result_add_file(r->res, name, data, len) < 0) {
            /* Not taken: ours to free, and the name is still accounted for (review finding). */
            free(data);
            asb_result_add_refused(r->res, name, "out of memory");
        } else if (rc != 0)
            asb_result_add_refused(r->res, name, rc > 0 ? why : "internal error reading file");
    }
}

/* The verdict from what this host saw (verdict.c). */
static void decide(native_run_t *r, const asb_cgroup_stats_t *cgs)
{
    asb_native_evidence_t ev = {
        .report = r->report,
        .sup_error = r->sup_error,
        .released = r->released,
        .backstop_fired = r->backstop_fired,
        .sup_exited = r->sup_exited,
        .sup_status_lost = r->sup_status_lost,
        .sup_status = r->sup_status,
        .cg_created = r->cg_created,
        .stdout_capped = r->cap_out.truncated,
        .stderr_capped = r->cap_err.truncated,
        .output_counted = r->sup_exited, /* event_loop drained the pipes after its exit */
        .stdout_seen = r->cap_out.total_seen,
        .stderr_seen = r->cap_err.total_seen,
        .cgroup = *cgs,
    };
    asb_native_decide(&ev, r->res);
}

static void run_cleanup(native_run_t *r)
{
    if (r->pid > 0 && !r->sup_exited) {
        syscall(SYS_pidfd_send_signal, r->pidfd, SIGKILL, NULL, 0);
        siginfo_t si;
        while (waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &si, WEXITED | __WALL) < 0 &&
               errno == EINTR)
            ;
        r->sup_exited = true;
    }
    /* Every process of the sandbox is gone (the supervisor's exit took its pid namespace with
     * it), and with them what the kernel counted against their host uid: the range is free. */
    asb_idslot_release(&r->ids);
    if (r->cg_created) {
        asb_error_t e;
        asb_cgroup_destroy(&r->cg, &e);
        r->cg_created = false;
    }
    int *fds[] = {&r->sup_fd, &r->spec_fd, &r->stdin_fd, &r->ctl[0], &r->ctl[1], &r->out[0],
                  &r->out[1], &r->err[0],  &r->err[1],   &r->pidfd,  &r->ws_fd,  &r->mnt_ns};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        close_fd(fds[i]);
    for (size_t i = 0; i < r->n_file_fds; i++)
        close(r->file_fds[i]);
    asb_child_release(&r->child); /* the child is gone (waited for above) or never existed */
    free(r->file_fds);
    free(r->file_names);
    json_decref(r->report);
    json_decref(r->pending_attest);
    json_decref(r->binds);
    r->binds = NULL;
    free(r->sup_error);
    asb_capbuf_free(&r->cap_out);
    asb_capbuf_free(&r->cap_err);
}

/* Leftovers of dead owners (crashed runs) go at every start: while the supervisor builds its
 * root and the host would only wait, or, when the start failed, before giving up (leftovers may
 * be why it failed). Best effort, never fails a run; once per run. */
static void reap_stale(native_run_t *r)
{
    if (r->reaped || r->cghost.version == ASB_CGROUP_NONE)
        return;
    r->reaped = true;
    char *report = NULL;
    asb_error_t reap_err;
    asb_cgroup_reap_stale(&r->cghost, &report, &reap_err);
    free(report);
    /* A run whose caller was killed leaves its host id slot's lock file, with or without a
     * cgroup (on v1 the slot is taken before the cgroup is made: a caller killed in between
     * left slot files that no later run reaped, red-team finding). Every run takes those along,
     * so that leftovers do not wait for `agent-sandbox cleanup`: one directory scan, and an
     * open and a lock attempt per other live sandbox, while the supervisor builds its root. */
    (void)asb_idslot_reap(NULL);
}

/* Until the supervisor has built the sandbox and its workload process has attested (or it
 * failed): a prepared sandbox is complete, nothing of it is left to do when a job comes. */
/* The supervisor ended before its attestation, with nothing said: why, from its wait status
 * (left to be reaped by run_cleanup). Every such run was "the supervisor ended before its
 * attestation" whatever the cause (QA finding: a noexec mount, a truncated binary, a small
 * stack or file size limit of the caller, a full fd table). */
static int early_end(native_run_t *r, asb_error_t *err)
{
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    if (waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &si, WEXITED | WNOWAIT | __WALL) < 0)
        return asb_err(err, -EIO, "the supervisor ended before its attestation");
    int st = si.si_status;
    if (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
        struct rlimit rl;
        char hint[160] = "";
        if (st == SIGSEGV && getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(hint, sizeof(hint), " (the caller's RLIMIT_STACK soft limit is %llu KiB)",
                     (unsigned long long)rl.rlim_cur / 1024);
        const char *name = sigdescr_np(st); /* thread-safe, unlike strsignal */
        return asb_err(err, -EIO, "the supervisor died of signal %d (%s) before its attestation%s",
                       st, name ? name : "?", hint);
    }
    /* 0 in the errno's place: one too large for the exit status to carry. */
    if (si.si_code == CLD_EXITED && st >= ASB_CHILD_EXIT_EXEC)
        return asb_err(err, -EIO, "cannot execute the supervisor binary: %s%s",
                       st == ASB_CHILD_EXIT_EXEC ? "an error numbered above 63"
                                                 : strerror(st - ASB_CHILD_EXIT_EXEC),
                       st - ASB_CHILD_EXIT_EXEC == EACCES ? " (on a noexec mount?)" : "");
    if (si.si_code == CLD_EXITED && st >= ASB_CHILD_EXIT_FDS)
        return asb_err(err, -EIO, "cannot hand the supervisor its descriptors: %s",
                       st == ASB_CHILD_EXIT_FDS ? "an error numbered above 31"
                                                : strerror(st - ASB_CHILD_EXIT_FDS));
    return asb_err(err, -EIO, "the supervisor ended (status %d) before its attestation", st);
}

static int wait_attested(native_run_t *r, asb_error_t *err)
{
    /* A cold run's supervisor copies the files in before its workload attests (its job comes
     * right after the cgroup). Where that copy came after the release, the backstop let it take
     * the run's timeout and the copy allowance before anything was cut off: so does this
     * deadline now (review 24: a 240 MiB file in under --cpus 0.01, a 40 s copy in the run's
     * cgroup, timed the setup out). The program's own clock starts after the copy either way. */
    double copy_s = r->early_job && r->files_in_bytes
                        ? r->plan->limits.timeout_s +
                              (double)r->files_in_bytes / ASB_BACKSTOP_COPY_FLOOR_BYTES_PER_S
                        : 0;
    double deadline = now_s() + ASB_SETUP_TIMEOUT_MS / 1000.0 + copy_s;
    bool reaped = false;
    while (!r->pending_attest && !r->sup_error) {
        /* Leftovers of dead owners, reaped while the supervisor builds its root: not before its
         * ids, which it waits for (a stuck leftover can take seconds). */
        if (r->ids_granted && !reaped) {
            if (!asb_plan_cancelled(r->plan))
                reap_stale(r);
            reaped = true;
        }
        struct pollfd p[3] = {{.fd = r->ctl[0], .events = POLLIN},
                              {.fd = r->pidfd, .events = POLLIN},
                              {.fd = r->plan->cancel_fd, .events = POLLIN}};
        int left = (int)((deadline - now_s()) * 1000);
        if (left <= 0)
            return asb_err(err, -ETIMEDOUT, "sandbox setup timed out");
        int n = poll(p, 3, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return asb_err_sys(err, errno, "waiting for the sandbox");
        if (p[2].revents) /* the caller's free_run kills and removes what was built */
            return asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began");
        if ((p[0].revents & POLLIN) && take_message(r))
            continue;
        if (p[1].revents || (p[0].revents & (POLLHUP | POLLERR)))
            break; /* it ended: its error message, if any, was read above */
    }
    if (r->sup_error)
        return asb_err(err, -EIO, "%s", r->sup_error);
    if (!r->pending_attest)
        return early_end(r, err);
    return 0;
}

/* Everything of a sandbox that does not depend on what runs in it: cgroup, namespaces, the
 * supervisor with its root built and its workload process attested, waiting for its job. */
/* job_now: a cold run, whose template is its job: the job's fds are built while the supervisor
 * starts instead of after its attestation. */
static int prepare(native_run_t *r, const asb_plan_t *tmpl, bool job_now, asb_error_t *err)
{
    memset(r, 0, sizeof(*r));
    r->plan = tmpl;
    r->early_job = job_now;
    snprintf(r->nonce, sizeof(r->nonce), "%s", tmpl->nonce);
    snprintf(r->run_id, sizeof(r->run_id), "%s", tmpl->run_id);
    r->sup_fd = r->spec_fd = r->stdin_fd = r->pidfd = r->ws_fd = r->mnt_ns = -1;
    r->ids.fd = r->ids.dir = -1;
    r->ctl[0] = r->ctl[1] = r->out[0] = r->out[1] = r->err[0] = r->err[1] = -1;
    asb_capbuf_init(&r->cap_out, tmpl->limits.output_bytes);
    asb_capbuf_init(&r->cap_err, tmpl->limits.output_bytes);
    const asb_profile_t *p = &tmpl->profile;
    int rc = 0;

    if (p->landlock) {
        long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* VERSION */);
        if (abi < 1)
            return asb_err(err, -ENOSYS,
                           "landlock is required by profile %s but this kernel "
                           "offers none (%s)",
                           p->name, strerror(errno));
    }
    if (p->cgroup) {
        if ((rc = asb_cgroup_detect(&r->cghost, err)) < 0)
            return asb_err_wrap(err, "cgroup limits are required by profile %s", p->name);
        /* v2 clones into it, so it comes first; v1 makes it after the clone (send_cgroup). */
        asb_cgroup_limits_t lim = {.memory_bytes = tmpl->limits.memory_bytes,
                                   .pids = tmpl->limits.pids,
                                   .cpus = tmpl->limits.cpus,
                                   .io_read_bps = tmpl->limits.io_read_bps,
                                   .io_read_iops = tmpl->limits.io_read_iops};
        if (r->cghost.version == ASB_CGROUP_V2 &&
            (rc = asb_cgroup_create(&r->cg, &r->cghost, r->run_id, &lim, err)) < 0)
            return rc;
        r->cg_created = r->cghost.version == ASB_CGROUP_V2;
    }
    if ((rc = asb_idslot_take(&r->ids, err)) < 0)
        return rc;
    if ((r->sup_fd = open_supervisor(err)) < 0)
        return r->sup_fd;
    /* The sandbox's spec: the template's, with no files (they come with the job). */
    r->binds = asb_native_binds(&tmpl->profile);
    r->spec_fd = spec_memfd(r, tmpl, NULL, 0, err);
    if (r->spec_fd < 0 || (r->stdin_fd = asb_sealed_memfd("stdin", "", 0, err)) < 0)
        return err->code;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->ctl) < 0 ||
        pipe2(r->out, O_CLOEXEC) < 0 || pipe2(r->err, O_CLOEXEC) < 0)
        return asb_err_sys(err, errno, "channels");
    fcntl(r->out[0], F_SETFL, O_NONBLOCK);
    fcntl(r->err[0], F_SETFL, O_NONBLOCK);
    if (asb_plan_cancelled(tmpl))
        return asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began");
    if ((rc = spawn(r, err)) < 0)
        return rc;
    /* The placeholders went to the supervisor with the clone (a copy of our fd table); the job
     * brings its own spec and stdin. */
    close_fd(&r->spec_fd);
    close_fd(&r->stdin_fd);
    /* A cold run's job, built now, while the supervisor execs and builds its root (on the other
     * CPU when one is free), not on the path from its attestation to its go: ~0.15 ms off a cold
     * run. It goes to the supervisor after the cgroup (send_cgroup), and the go only once the
     * attestation is checked (handle_message). Files in too large to copy before the supervisor
     * asks for its ids only delay the sandbox by what they would have cost after it. */
    if (job_now && (rc = build_job(r, err)) < 0)
        return rc;
    if ((rc = wait_attested(r, err)) < 0)
        return rc;
    close_fd(&r->sup_fd);
    r->plan = NULL;
    return 0;
}

static void free_run(native_run_t *r)
{
    run_cleanup(r);
    free(r);
}

/* The job in a prepared sandbox; consumes it. t0: when the caller's run began. */
static int run_job(native_run_t *r, const asb_plan_t *plan, asb_result_t *res, asb_error_t *err,
                   double t0, native_run_t **remains)
{
    /* The job runs under the sandbox's nonce and run id; everything else is the job's (a
     * shallow copy: the caller's plan outlives the sandbox, which this call frees). */
    r->job = *plan;
    memcpy(r->job.nonce, r->nonce, sizeof(r->job.nonce));
    memcpy(r->job.run_id, r->run_id, sizeof(r->job.run_id));
    r->plan = &r->job;
    r->res = res;
    asb_capbuf_free(&r->cap_out);
    asb_capbuf_free(&r->cap_err);
    asb_capbuf_init(&r->cap_out, r->job.limits.output_bytes);
    asb_capbuf_init(&r->cap_err, r->job.limits.output_bytes);
    int rc = asb_plan_cancelled(plan)
                 ? asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began")
             : r->early_job ? 0 /* built in prepare */
                            : build_job(r, err);
    /* Once more after the copies, before the job is handed over (review finding: a cancel
     * during the copy of the files in still let the job start). */
    if (rc == 0 && asb_plan_cancelled(plan))
        rc = asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began");
    if (rc < 0)
        goto out; /* the sandbox is removed unused */
    /* A prepared sandbox that ended since the pool looked at it (killed, its workload gone)
     * never gets the job: what ran nowhere may run in a fresh sandbox (asb_pool_run). */
    if (remains && !asb_native_alive(r))
        r->lost_before_job = true;
    if (r->lost_before_job) {
        rc = asb_err(err, -ESTALE, "the prepared sandbox ended before its job was handed over");
        goto out;
    }
    json_t *att = r->pending_attest;
    r->pending_attest = NULL;
    handle_message(r, att, -1); /* checks it; only a valid one sends the job */
    json_decref(att);
    event_loop(r);
    if (remains && r->lost_before_job && !r->released) {
        rc = asb_err(err, -ESTALE, "the prepared sandbox ended before its job was handed over%s%s",
                     r->sup_error ? ": " : "", r->sup_error ? r->sup_error : "");
        goto out;
    }
    if (r->cancelled) {
        asb_capbuf_take(&r->cap_out, &res->out);
        asb_capbuf_take(&r->cap_err, &res->err);
        rc = asb_err(err, -ECANCELED, "the run was cancelled by the caller");
        goto out;
    }

    asb_cgroup_stats_t cgs;
    memset(&cgs, 0, sizeof(cgs));
    if (r->cg_created && asb_cgroup_read_stats(&r->cg, &cgs, err) < 0) {
        rc = asb_err_wrap(err, "reading the run's cgroup");
        goto out;
    }
    asb_capbuf_take(&r->cap_out, &res->out);
    asb_capbuf_take(&r->cap_err, &res->err);
    decide(r, &cgs);
    if (res->status == ASB_STATUS_SANDBOX_ERROR && res->error)
        rc = asb_err(err, -EIO, "%s", res->error);
    else
        read_files_out(r);
out:
    if (remains && r->sup_exited && rc == 0) {
        /* Nothing of the run is left to end, only to remove; the caller's plan and result are
         * no longer ours to point at. */
        r->plan = NULL;
        r->res = NULL;
        memset(&r->job, 0, sizeof(r->job));
        *remains = r;
    } else
        free_run(r);
    res->duration_s = now_s() - t0;
    return rc;
}

int asb_native_prepare(const asb_plan_t *tmpl, native_run_t **out, asb_error_t *err)
{
    *out = NULL;
    native_run_t *r = malloc(sizeof(*r));
    if (!r)
        return asb_err_sys(err, ENOMEM, "sandbox");
    int rc = prepare(r, tmpl, false, err);
    if (rc < 0) {
        if (rc != -ECANCELED) /* a cancelled run ends now, not after others' leftovers */
            reap_stale(r);
        free_run(r);
        return rc;
    }
    /* Held so that the supervisor's exit does not tear the mounts down on the run's path
     * (asb_native_run_prepared). By pid: if the supervisor is still alive after the open (its
     * pidfd says so), the pid named it, not a reused one (a caller that reaps children itself
     * could have taken it; review finding). Not having it costs only time. */
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)r->pid);
    r->mnt_ns = open(path, O_RDONLY | O_CLOEXEC);
    if (r->mnt_ns >= 0 && syscall(SYS_pidfd_send_signal, r->pidfd, 0, NULL, 0) < 0)
        close_fd(&r->mnt_ns);
    *out = r;
    return 0;
}

int asb_native_run_prepared(native_run_t *sb, const asb_plan_t *plan, asb_result_t *res,
                            asb_error_t *err, native_run_t **remains)
{
    if (remains)
        *remains = NULL;
    return run_job(sb, plan, res, err, now_s(), remains);
}

bool asb_native_alive(const native_run_t *sb)
{
    struct pollfd p[2] = {{.fd = sb->pidfd, .events = POLLIN}, {.fd = sb->ctl[0], .events = 0}};
    int n = poll(p, 2, 0);
    /* pidfd readable: it exited. The control socket readable early or hung up: it failed. */
    return n == 0 || (n > 0 && !p[0].revents && !(p[1].revents & (POLLHUP | POLLERR)));
}

void asb_native_discard(native_run_t *sb)
{
    if (sb)
        free_run(sb); /* kills the supervisor and waits for it (if it still runs), removes the
                       * cgroup, closes the mount namespace */
}

int asb_native_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err)
{
    double t0 = now_s();
    native_run_t *r = malloc(sizeof(*r));
    if (!r) {
        res->duration_s = now_s() - t0;
        return asb_err_sys(err, ENOMEM, "sandbox");
    }
    int rc = prepare(r, plan, true, err);
    if (rc < 0) {
        if (rc != -ECANCELED)
            reap_stale(r);
        free_run(r);
        res->duration_s = now_s() - t0;
        return rc;
    }
    return run_job(r, plan, res, err, t0, NULL);
}
