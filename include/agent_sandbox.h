/*
 * agent_sandbox.h - the one public API of libagentsandbox.
 *
 * Run untrusted code under a named hardening profile and get back a result record that says what
 * happened and what was enforced. Thread-safe: there is no global mutable state, so many sandboxes
 * may run at once from one process (one asb_run per thread) and from many processes. A calling
 * thread needs at least 64 KiB of stack (measured: 32 KiB overflowed in a subprocess run).
 *
 * Conventions: functions that can fail return 0 or a negative errno-style code and fill the
 * caller's asb_error_t. Strings are NUL-terminated UTF-8 unless a length is given. Every pointer a
 * result holds is owned by the result and released by asb_result_free().
 */
#ifndef AGENT_SANDBOX_H
#define AGENT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASB_API_VERSION 1

/* ---- errors ---------------------------------------------------------------------------------- */

typedef struct asb_error {
    int code;           /* negative errno-style code, 0 when no error */
    char message[1024]; /* "what (why)": e.g. "mount /proc (Operation not permitted)" */
} asb_error_t;

/* ---- configuration -----------------------------------------------------------------------------
 */

/* Limits. A zero field means "the profile's default". The result records both the requested and
 * the enforced values. */
typedef struct asb_limits {
    double timeout_s;        /* wall clock */
    uint64_t memory_bytes;   /* cgroup memory limit (no swap) */
    uint64_t pids;           /* cgroup pids limit */
    double cpus;             /* CPU bandwidth in CPUs (1.0 = one CPU) */
    uint64_t output_bytes;   /* cap per stream (stdout, stderr) */
    uint64_t fsize_bytes;    /* RLIMIT_FSIZE */
    uint64_t nofile;         /* RLIMIT_NOFILE */
    uint64_t file_in_bytes;  /* cap per file copied in */
    uint64_t file_out_bytes; /* cap per file read out */
    /* Disk reads, per block device of the host (cgroup io / v1 blkio throttling): what a run may
     * take from the disk itself when it misses the page cache (O_DIRECT, or files rereading more
     * than its memory limit keeps cached). baseline and hardened only. */
    uint64_t io_read_bps;  /* bytes per second */
    uint64_t io_read_iops; /* read operations per second */
} asb_limits_t;

typedef struct asb_file_in {
    const char *host_path; /* a regular file on the host */
    const char *name;      /* plain name inside the workspace; NULL = basename(host_path) */
    /* A program to run (a binary built on the host or in an earlier run). Native baseline and
     * hardened put it read-only and executable at ASB_EXEC_DIR/NAME (a mount of its own that
     * nothing in the sandbox can write), with NAME in the workspace a symlink to it, so that
     * `./NAME` runs: hardened executes nothing written during the run (W^X), and a plain file
     * in is never executable. subprocess writes it into its directory with mode 0755. The docker
     * backend refuses it. */
    bool executable;
} asb_file_in_t;

/* Where executable files in are placed (native baseline and hardened). */
#define ASB_EXEC_DIR "/exec"

/* Controls that can be switched off one at a time, for ablation studies and for the positive
 * controls of tests. A run with any of these set is recorded as weakened in its result; it is never
 * what a profile means. */
enum {
    ASB_WEAKEN_NETNS = 1u << 0,    /* hardened: keep the host network */
    ASB_WEAKEN_SECCOMP = 1u << 1,  /* no seccomp filter */
    ASB_WEAKEN_LANDLOCK = 1u << 2, /* no Landlock ruleset */
    ASB_WEAKEN_CGROUP = 1u << 3,   /* no cgroup limits (memory, pids, cpu) */
    ASB_WEAKEN_MOUNTS = 1u << 4,   /* no private root: the host's mount tree */
};

typedef struct asb_config {
    const char *profile; /* "subprocess", "baseline" or "hardened"; NULL = "hardened" */
    const char *backend; /* "native" or "docker"; NULL = native (subprocess profile: ignored) */

    /* What to run: either argv (NULL-terminated, argv[0] an absolute path or a name looked up in
     * the sandbox's PATH), or code for an interpreter (default /usr/bin/python3). The code is
     * written to a file in the workspace and run as `interpreter FILE`. */
    const char *const *argv;
    const char *code;
    size_t code_len; /* 0 = strlen(code) */
    const char *interpreter;
    /* The code's file name in the workspace (a plain name not beginning with '-'), for programs
     * that need their own (`java Main.java`, `__file__`, tracebacks); NULL = ".asb-code". */
    const char *code_name;

    const void *stdin_data; /* may be NULL */
    size_t stdin_len;

    asb_limits_t limits;

    const asb_file_in_t *files_in;
    size_t n_files_in;
    const char *const *files_out; /* plain names to read back from the workspace */
    size_t n_files_out;
    const char *const *env; /* "KEY=VALUE" additions to the fixed minimal environment */
    size_t n_env;

    uint32_t weaken; /* ASB_WEAKEN_* bits; 0 for every real run */

    const char *docker_image; /* docker backend: image; NULL = the project's default image */

    /* Cancellation (native and subprocess backends; docker refuses it). With `cancellable` set,
     * the run watches cancel_fd: once the caller makes it readable (an eventfd or a pipe written
     * from any thread or a signal handler, or a signalfd of signals it blocks) or it reports an
     * end or an error (a pipe whose writer closed), everything the run started is killed and
     * removed (processes, cgroup, mounts, temp directories; subprocess: its process group, not
     * a descendant that left it with setsid) and asb_run returns -ECANCELED with status
     * sandbox_error and no files out; a run cancelled before its sandbox was built runs
     * nothing. The run never reads from or closes cancel_fd; one that cannot be polled is
     * refused (-EBADF). */
    bool cancellable;
    int cancel_fd;
} asb_config_t;

/* Zero a config and set nothing else: every zero field means "default". */
void asb_config_init(asb_config_t *cfg);

/* ---- result ------------------------------------------------------------------------------------
 */

typedef enum asb_status {
    ASB_STATUS_COMPLETED = 0,
    ASB_STATUS_TIMEOUT,
    ASB_STATUS_OUTPUT_LIMIT,
    ASB_STATUS_OOM_KILLED,
    ASB_STATUS_KILLED,
    ASB_STATUS_SANDBOX_ERROR,
} asb_status_t;

typedef struct asb_bytes {
    unsigned char *data;
    size_t len;
} asb_bytes_t;

typedef struct asb_file_out {
    char *name;
    asb_bytes_t content;
} asb_file_out_t;

typedef struct asb_file_refused {
    char *name;
    char *reason;
} asb_file_refused_t;

/* What the trusted supervisor observed from inside, after every control was applied to the
 * workload process and before the workload's program started. */
typedef struct asb_attestation {
    bool present;   /* an attestation arrived, tagged with this run's nonce */
    bool valid;     /* it matched what the profile requires */
    char *mismatch; /* why not, when !valid */
    char nonce[40]; /* the per-run nonce it was tagged with */
    long uid, gid;  /* real/effective uid and gid of the workload (inside) */
    uint64_t cap_eff, cap_prm, cap_inh, cap_bnd, cap_amb;
    int no_new_privs; /* 0/1 */
    int seccomp_mode; /* 0 none, 2 filter */
    int landlock_abi; /* ABI offered by the kernel, 0 = none */
    bool landlock_enforced;
    bool abstract_unix_scoped; /* a connect to an abstract socket outside was refused */
    int memfd_noexec;          /* vm.memfd_noexec in the sandbox (2: no executable memfd) */
    bool memfd_create_refused; /* memfd_create fails (EPERM): hardened on kernels before 6.3 */
    char *net_ifaces;          /* comma-separated interface names visible to the workload */
    bool root_readonly;        /* "/" cannot be written */
    char *hostname;
    char *pid_ns;     /* e.g. "pid:[4026532345]" (differs from the host's) */
    bool loopback_up; /* lo is up (hardened keeps it down in both backends) */
    /* Process state that must not come from the caller (its personality, OOM protection,
     * real-time priority): the workload's, as the kernel reported it. */
    char *domainname;     /* NIS domain name: "(none)" */
    long personality;     /* 0 (PER_LINUX): no ADDR_NO_RANDOMIZE, no READ_IMPLIES_EXEC */
    long oom_score_adj;   /* ASB_SANDBOX_OOM_SCORE_ADJ: the host's OOM killer takes it first */
    int sched_policy;     /* SCHED_OTHER, SCHED_BATCH or SCHED_IDLE: never real-time */
    long long rtprio_max; /* hard RLIMIT_RTPRIO: 0 */
    int nice;             /* >= 0 */
    long long nice_max;   /* hard RLIMIT_NICE: 0 */
    int ioprio_class;     /* never 1 (real-time) */
    int umask;            /* 022 */
    /* The workload's own limits and mounts, as the kernel reported them. */
    long long rlimit_fsize;      /* soft = hard, in bytes; -1 unlimited, -2 soft and hard differ */
    long long rlimit_nofile;     /* the same for RLIMIT_NOFILE */
    long long rlimit_core;       /* the same for RLIMIT_CORE: 0 */
    long long rlimit_sigpending; /* RLIMIT_SIGPENDING: at most 128 */
    long long rlimit_msgqueue;   /* RLIMIT_MSGQUEUE: 0 */
    int groups;                  /* supplementary groups other than its own gid: 0 */
    unsigned workspace_mount;    /* ASB_MOUNT_* bits of the workspace's mount (its cwd) */
    unsigned tmp_mount;          /* ASB_MOUNT_* bits of /tmp's mount */
    long long session_keyring;   /* serial of its session keyring (never the caller's); 0 on a
                                    kernel without keys, -1 not read (docker) */
} asb_attestation_t;

/* Mount flags in asb_attestation_t. */
#define ASB_MOUNT_NOSUID 0x1u
#define ASB_MOUNT_NODEV 0x2u
#define ASB_MOUNT_NOEXEC 0x4u
#define ASB_MOUNT_RDONLY 0x8u

typedef struct asb_result {
    char backend[16]; /* "native", "docker", "subprocess" */
    char profile[32];
    asb_status_t status;
    int exit_code; /* the program's exit status, -1 when it did not exit normally */
    int signal;    /* the signal that ended it, 0 if none */
    double duration_s;
    double cpu_time_s;
    long max_rss_kb;
    uint64_t memory_peak_bytes; /* from the cgroup, 0 when not measured */
    uint64_t io_read_bytes; /* read from the host's disks, from the cgroup; 0 when not measured */
    /* The run's memory reached its limit at least once (the cgroup's own counters; false when
     * not measured): the kernel reclaimed then, and killed only if that failed. A timeout with
     * it may be a program that spent its time at the limit (page cache dropped and read
     * again) rather than computing. */
    bool memory_limit_reached;
    bool timed_out;
    bool out_of_memory; /* from the cgroup's own OOM-kill counter, never from output */
    bool stdout_truncated, stderr_truncated;
    char *error; /* set when status is SANDBOX_ERROR (and for non-fatal notes) */
    asb_bytes_t out, err;
    asb_file_out_t *files_out;
    size_t n_files_out;
    asb_file_refused_t *files_refused;
    size_t n_files_refused;
    asb_limits_t limits_requested, limits_enforced;
    uint32_t weakened; /* ASB_WEAKEN_* bits that were in effect */
    bool prepared;     /* the sandbox was built before the run began (asb_pool_run) */
    asb_attestation_t attestation;
} asb_result_t;

/* Run one sandbox. Returns 0 when the run happened and *res describes it (whatever the program
 * did). Returns a negative code when the run was refused or the sandbox failed; then err says why
 * and *res is still filled with status ASB_STATUS_SANDBOX_ERROR and res->error. Nothing runs in the
 * sandbox when a control of the profile cannot be applied: there is never a fallback. Always call
 * asb_result_free(res) afterwards. Neither this nor any asb_pool_* call is a pthread
 * cancellation point: a pthread_cancel of the calling thread takes effect after it returns,
 * with nothing of the run left behind; stop a run early with `cancellable`. */
int asb_run(const asb_config_t *cfg, asb_result_t *res, asb_error_t *err);

void asb_result_free(asb_result_t *res);

/* ---- prepared sandboxes -------------------------------------------------------------------------
 * A pool keeps up to `size` native sandboxes of one profile and one set of limits built ahead by a
 * background thread of its own: namespaces, cgroup, supervisor, root, network. A run then pays
 * only for its job (files in, workload setup and attestation, the program, teardown). Each
 * sandbox runs exactly one job and is removed afterwards: nothing carries over between runs, and
 * each run has its own nonce, run id and attestation. A pool holds cgroups and processes while it
 * lives; asb_pool_free removes them. */
typedef struct asb_pool asb_pool_t;

/* tmpl gives the profile, backend (native only), limits and weaken bits; its argv, code, stdin,
 * files, env and cancellation are not used (a run's own cfg may be cancellable). size: 1..16
 * sandboxes kept ready. Each holds up to 18 file descriptors in the caller's table: a size
 * that would take more than half of the caller's soft RLIMIT_NOFILE is refused (-EMFILE). */
int asb_pool_new(const asb_config_t *tmpl, unsigned size, asb_pool_t **pool, asb_error_t *err);

/* As asb_run, in a prepared sandbox, or in one prepared now when none is ready (same controls;
 * res->prepared says which). cfg must ask for the template's profile, weaken bits and sandbox
 * limits (memory, pids, cpus, fsize, nofile); timeout, output and file caps are the run's own.
 * Anything else is refused, never adapted. res->duration_s is all the caller waited for.
 * Thread-safe. */
int asb_pool_run(asb_pool_t *pool, const asb_config_t *cfg, asb_result_t *res, asb_error_t *err);

/* How many sandboxes are prepared and waiting right now. */
unsigned asb_pool_ready(asb_pool_t *pool);

/* Waits for runs in progress, then removes every prepared sandbox and stops the pool's thread. */
void asb_pool_free(asb_pool_t *pool);

const char *asb_status_name(asb_status_t status); /* "completed", "timeout", ... */

/* The exit status the CLI uses for a result: the program's own when completed, 124 timeout,
 * 137 killed / OOM / output limit, 125 sandbox error. */
int asb_result_exit_status(const asb_result_t *res);

/* The result record as JSON (UTF-8, valid for any bytes the program wrote). *json is malloc'd. */
int asb_result_to_json(const asb_result_t *res, char **json, asb_error_t *err);

/* The same record written to out as it is encoded, with a final newline, never held whole in
 * memory (a record of escaped output can be several times the output caps). Fails if any write
 * fails; out may then hold part of a record. */
int asb_result_write_json(const asb_result_t *res, FILE *out, asb_error_t *err);

/* ---- profiles, host facts, maintenance --------------------------------------------------------
 */

/* Names of the profiles, NULL-terminated, in table order. */
const char *const *asb_profile_names(void);

/* Each profile, each control, and whether this host enforces it, as JSON. backend NULL = native. */
int asb_profiles_json(const char *backend, char **json, asb_error_t *err);

/* Kernel features and one attested hardened run, as JSON; returns 0 when all required pass. */
int asb_preflight(char **json, asb_error_t *err);

/* Remove owner-tagged leftovers of runs whose owner is gone (cgroups, temp dirs, containers).
 * *report (malloc'd, may be NULL) lists what was removed, one item per line. */
int asb_cleanup(char **report, asb_error_t *err);

/* ---- docker backend ---------------------------------------------------------------------------
 */

/* The exact container-create request body (JSON, malloc'd) a docker run of `profile` ("baseline",
 * "hardened", or "docker-baseline" / "docker-hardened") sends for `python3 -c pass`, with the
 * given limits (NULL = the profile's) and image (NULL = the default image). Pure: contacts no
 * engine and changes nothing; only the per-run nonce and run id are zeroed. */
int asb_docker_request_json(const char *profile, const asb_limits_t *limits, const char *image,
                            char **json, asb_error_t *err);

/* Every docker profile: create request, equivalent `docker run` argv, each isolation flag and
 * all_hardening_present, as JSON (malloc'd). Contacts no engine. */
int asb_docker_profiles_json(char **json, asb_error_t *err);

/* Assemble the default image from the host's python (interpreter, stdlib, the libraries ldd
 * lists, /bin/sh) and load it with the engine's image import. image NULL = the default name.
 * *report (malloc'd) says what was built. */
int asb_docker_image_build(const char *image, char **report, asb_error_t *err);

/* Remove owner-tagged docker containers whose owner is gone. */
int asb_docker_cleanup(char **report, asb_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* AGENT_SANDBOX_H */
