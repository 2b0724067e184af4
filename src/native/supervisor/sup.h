/* sup.h - the trusted supervisor's internal interfaces. */
#ifndef ASB_SUP_H
#define ASB_SUP_H

#include "agent_sandbox.h"
#include "core/limits.h"
#include "core/profiles.h"
#include "native/wire.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Test builds only: asb-supervisor-tamper-<what> (CMakeLists.txt) are this supervisor with one
 * promise broken, so that tests/integration/test_attest_tamper.c can show the host refusing the
 * run end to end (DEADLINE: its backstop ending it). The real supervisor is built without
 * ASB_TEST_TAMPER, so every check below is a constant false there and compiles to nothing. */
#define SUP_TAMPER_SECCOMP 1  /* the workload loads no seccomp filter */
#define SUP_TAMPER_CAPS 2     /* the workload keeps its capability bounding set */
#define SUP_TAMPER_LANDLOCK 3 /* the workload skips Landlock */
#define SUP_TAMPER_NONCE 4    /* the attestation is tagged with another run's nonce */
#define SUP_TAMPER_EXIT 5     /* the exit report names another exit code than the one seen */
#define SUP_TAMPER_LIMITS 6   /* the workload keeps the caller's RLIMIT_FSIZE */
#define SUP_TAMPER_MOUNTS 7   /* the workspace is mounted without noexec */
#define SUP_TAMPER_OUTPUT 8   /* every write of output to the host fails as in a full cgroup */
#define SUP_TAMPER_DEADLINE 9 /* the run is never killed at its deadline */
#ifndef ASB_TEST_TAMPER
#define ASB_TEST_TAMPER 0
#endif
#define SUP_TAMPERED(what) (ASB_TEST_TAMPER == SUP_TAMPER_##what)

typedef struct sup_file_in {
    char *name;
    int fd;
    bool exec; /* a program: into ASB_EXEC_DIR, read-only and executable */
} sup_file_in_t;

typedef struct sup_spec {
    char nonce[40];
    asb_root_policy_t root;
    bool mask_proc, tmp_noexec, workspace_noexec, netns, landlock, landlock_scope, no_new_privs,
        memfd_noexec;
    bool memfd_refuse;  /* memfd_noexec on a kernel without it: memfd_create refused instead */
    bool usr_from_host; /* /usr arrives as a mount from the host ("usr_tree") */
    bool devpts;        /* a private devpts instance at /dev/pts */
    bool uname_hidden;  /* uname(2) answered by us (uname.c), hardened */
    bool exec_dir;      /* a tmpfs at ASB_EXEC_DIR for the job's programs (sealed at the job) */
    bool early_job;     /* a cold run: the job comes before the workload is made (main.c) */
    uint64_t workspace_bytes, tmp_bytes;
    asb_caps_policy_t caps;
    uint64_t caps_keep; /* ASB_CAPS_DOCKER_DEFAULT: the set kept */
    asb_seccomp_policy_t seccomp;
    long uid, gid;
    uint64_t fsize, nofile;
    int64_t stack_soft; /* the caller's soft RLIMIT_STACK, -1 for unlimited */
    uint32_t owner_uid; /* host uid and gid that creates (owns) the user namespace (idslot.h) */
    uint64_t timeout_ms, output_bytes;
    char **argv;
    char **env;
    sup_file_in_t *files_in;
    size_t n_files_in;
    char *bind_ro[16]; /* host paths bound read-only into the root (e.g. /etc/ssl for baseline) */
    size_t n_bind_ro;
} sup_spec_t;

int sup_spec_read(int fd, sup_spec_t *spec, asb_error_t *err);
/* Take the job's part of `job` (argv, env, files in, timeout, output cap) into `spec`, after
 * checking that everything that shaped the sandbox is the same in both; frees the rest of job. */
int sup_spec_take_job(sup_spec_t *spec, sup_spec_t *job, asb_error_t *err);

/* Control channel. */
/* body: the message's records (may be NULL); "type" and "nonce" are added; always freed. */
int sup_send_msg(int ctl, const char *nonce, const char *type, asb_wire_buf_t *body);
int sup_send_fd(int ctl, const char *nonce, const char *type, int fd);
int sup_send_error(int ctl, const char *nonce, const char *message);
/* Receive a message of type `want` carrying up to `max` fds (*n_fds of them); 0, or a negative
 * code for anything else, a hangup or the timeout (no fds are left open then). */
int sup_recv_fds(int ctl, const char *want, int timeout_ms, int *fds, size_t max, size_t *n_fds);
/* Receive a message of type `want` carrying exactly one fd; returns the fd or a negative code. */
int sup_recv_fd(int ctl, const char *want, int timeout_ms);
/* The run's cgroup: the host's "cgroup_ready", with the run's v1 `tasks` files (none on v2,
 * where we were cloned into it), each of which we join by writing "0". 0 or a negative code. */
int sup_join_cgroup(int ctl, int timeout_ms);
/* The limits every sandboxed workload gets whatever its profile (workload.c): no core files,
 * the sandbox's share of queued signals, no POSIX message queues, locked memory capped at
 * ASB_SANDBOX_MEMLOCK (a caller's lower limit stays). Both supervisors call it. */
int sup_set_shared_limits(asb_error_t *err);
/* The job: a "job" message carrying [job spec, stdin, files in...] (SCM_RIGHTS). Waits for it
 * without a timeout (a prepared sandbox waits as long as the host holds it); -EINTR when `watch`
 * (the signalfd) became readable first, so the caller can look at it and wait again. */
#define SUP_JOB_MAX_FDS (2 + ASB_MAX_FILES_IN + 1)
int sup_recv_job(int ctl, int watch, int *fds, size_t max, size_t *n_fds);

/* Root file system: build it under a fresh tmpfs, pivot into it. Returns the workspace path. */
/* usr_tree: baseline's idmapped /usr (from the host), -1 otherwise. dev_tree: the sandbox's own
 * device nodes (a tmpfs the host made), required unless the root is the host's. */
/* proc_mnt: the pid namespace's detached procfs (userns.c), mounted at /proc. */
int sup_build_root(const sup_spec_t *spec, int usr_tree, int dev_tree, int proc_mnt,
                   const char **workspace, asb_error_t *err);

/* userns.c: as host root, set vm.memfd_noexec and make the /proc instance of our pid namespace
 * (*proc_mnt), then become spec->owner_uid and unshare the user namespace, tell the host
 * ("userns") and unshare the mount, ipc, uts and (spec->netns) network namespaces inside it.
 * Then, on the host's "ids" (the maps are written), become root of it. 0 or a negative code. */
int sup_enter_userns(const sup_spec_t *spec, int ctl, int *proc_mnt, asb_error_t *err);
int sup_take_ids(int ctl, asb_error_t *err);
int sup_copy_files_in(const sup_spec_t *spec, const char *workspace, asb_error_t *err);
/* Every path string in a loader cache (buf, len) lies under /usr/ or /lib* (ld_cache.c). */
bool sup_ld_cache_paths_visible(const char *buf, size_t len);

/* inherited.c: the caller's personality, OOM score adjustment, real-time scheduling and I/O
 * class, nice value below 0, umask and RLIMIT_RTPRIO/RLIMIT_NICE, reset for this process and
 * everything it forks. 0, or a negative code with err set. */
int sup_reset_inherited(asb_error_t *err);

/* Landlock: ABI offered by this kernel (0 = none); restrict the calling thread. */
int sup_landlock_abi(void);
/* The attestation's Landlock probe: true when reading `path` is refused with EACCES. The path is
 * one that the file modes let the workload read and no Landlock rule does: ASB_LANDLOCK_PROBE in
 * a private root, "/" itself in the host's. */
bool sup_landlock_denies_read(const char *path);
/* Scoping only (no file system rules): abstract unix sockets and signals stay inside. */
int sup_landlock_scope_only(asb_error_t *err);
int sup_landlock_restrict(const sup_spec_t *spec, const char *workspace, asb_error_t *err);

/* What is in force for the calling process, read back from the kernel, appended to *out as
 * wire.h records (asb_wire_ok() false on failure): ids, capability sets, no_new_privs, seccomp
 * mode, interfaces, root read-only, Landlock, hostname, pid namespace, limits, mounts.
 * session_keyring is the serial of the session keyring the caller read before its filter (which
 * refuses keyctl) went on, or -1 where it was not read (docker: runc gives each container one). */
void sup_attest(int landlock_requested, const char *landlock_probe, const char *scope_probe,
                int64_t session_keyring, asb_wire_buf_t *out);

/* Workload process: apply every control, attest, wait for the job, exec. Never returns. */
typedef struct sup_workload_fds {
    int out_w, err_w; /* pipes to the supervisor */
    int attest_w;     /* attestation to the supervisor (CLOEXEC); a cold run's errors only */
    int job_r; /* the job from the supervisor: "g" + [spec, stdin] (SOCK_SEQPACKET, CLOEXEC); in a
                * cold run only the uname listener goes the other way on it */
    /* A cold run (spec->early_job, main.c): the host's control socket, on which the workload
     * sends its attestation and waits for the host's "go", and the job's stdin; both -1 in a
     * prepared sandbox, where the job comes through the supervisor once the host has it. */
    int ctl, job_stdin;
    const char *scope_probe; /* abstract socket name the supervisor listens on */
} sup_workload_fds_t;
/* The end of a run: read what is left of the workload's exec-error pipe (len bytes already in
 * buf), close it and strip the "exec-error:" prefix, so buf holds why exec failed or "". */
void sup_collect_exec_error(int attfd, char *buf, size_t size, size_t len);
/* Wait for children until none is left (after kill(-1) from PID 1). */
void sup_reap_all(void);

/* attend.c: shared by both modes. */
struct signalfd_siginfo;
/* A SIGTERM or SIGINT the host sent (its backstop, or the engine for it): kill(2) or
 * pidfd_send_signal from outside our pid namespace, where the sender's pid reads as 0. Only
 * SI_USER counts: rt_sigqueueinfo lets a process in the namespace choose the pid it claims,
 * 0 included, and a workload that shares our uid forged a host abort that way (review
 * finding). */
bool sup_from_outside(const struct signalfd_siginfo *si);
/* The integer a small file (/proc, /proc/sys) holds, or `unknown` when it cannot be read. */
int64_t sup_read_int(const char *path, int64_t unknown);
uint64_t sup_now_ms(void); /* CLOCK_MONOTONIC */
/* Write all of buf, retrying EINTR and waiting for room on a non-blocking fd (as long as it
 * takes); -1 when the reader is gone. */
int sup_write_all(int fd, const void *buf, size_t n);
/* Hand buf[*off, *len) to a non-blocking fd: true once all of it is written, or dropped because
 * the reader is gone (*off and *len are then 0); false when the fd is full and !wait. With wait
 * it waits for room as long as it takes. The output relays' way to never block on the host. */
bool sup_flush(int fd, const unsigned char *buf, size_t *off, size_t *len, bool wait);
/* The workload's attestation up to its NUL terminator (its length), or a setup error in buf
 * (-EPROTO, or -ETIMEDOUT after timeout_ms); bytes after the NUL are a protocol error. */
int sup_read_attestation(int fd, char *buf, size_t size, int timeout_ms);
/* Reap every child that has ended (WNOHANG); the workload's wait status into *status, *done. */
void sup_reap_workload(pid_t workload, int *status, bool *done);

/* uname.c: answering the workload's uname(2) (hardened) on a seccomp notification listener. */
struct utsname;
struct seccomp_notif;
struct seccomp_notif_resp;
typedef struct sup_uname {
    int listener; /* -1: not answering */
    struct seccomp_notif *req;
    struct seccomp_notif_resp *resp;
    size_t req_size, resp_size;
    char answer[390]; /* struct utsname as the kernel writes it: six fields of 65 bytes */
} sup_uname_t;
/* What uname(2) says in the sandbox, from what the kernel says: sysname "Linux", the release
 * cut to "MAJOR.MINOR.0", version "#1 SMP"; nodename, machine and domainname as they are (the
 * UTS namespace already names the sandbox). answer: 390 bytes. */
void sup_uname_answer(const struct utsname *real, char answer[390]);
/* The workload's side, single-threaded and under no_new_privs, before the profile's own filter
 * (which refuses seccomp(2)): install the uname_notify filter and hand its listener to the
 * supervisor on sock. Nothing may call uname(2) from here until the supervisor listens. */
int sup_uname_listen(int sock, asb_error_t *err);
/* The supervisor's side, once the workload has attested (the listener was sent before): take
 * the listener from sock and check that the host lets us write the workload's memory at all
 * (Yama; ptrace_cap: we hold CAP_SYS_PTRACE over it, natively): the run is refused otherwise.
 * *u is something sup_uname_free may take on every path. */
int sup_uname_take(sup_uname_t *u, int sock, bool ptrace_cap, asb_error_t *err);
/* sup_uname_take in two steps, for a cold run whose workload is started before the listener
 * can be taken (main.c): everything but the listener (the checks that may refuse the run), then
 * the listener. *u is something sup_uname_free may take on every path of either. */
int sup_uname_prepare(sup_uname_t *u, bool ptrace_cap, asb_error_t *err);
int sup_uname_attach(sup_uname_t *u, int sock, asb_error_t *err);
/* Answer one pending notification (poll said the listener is readable). */
void sup_uname_serve(sup_uname_t *u);
void sup_uname_free(sup_uname_t *u);

/* execve argv[0], searched in the PATH of env (not ours) when it has no '/'; returns errno. */
int sup_exec_in_path(char **argv, char **env);

__attribute__((noreturn)) void sup_workload_main(const sup_spec_t *spec, const char *workspace,
                                                 const sup_workload_fds_t *fds);

/* Container mode (docker backend), container.c: PID 1 of a container Docker isolated. */
int sup_container_main(void);

#endif
