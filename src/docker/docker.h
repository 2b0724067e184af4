/* docker.h - the docker backend's internal interfaces.
 *
 * A run is: build the create request from the plan (pure) -> create -> inspect and compare with
 * the request -> refuse on any mismatch -> copy inputs in (archive API) -> attach -> start ->
 * relay the supervisor's frames with caps -> deadline backstop -> inspect (OOMKilled, exit code)
 * -> copy outputs out -> remove with force, in every path.
 *
 * Docker-only constants live here rather than in core/limits.h: nothing outside src/docker uses
 * them, and they describe the engine's API, not a profile. */
#ifndef ASB_DOCKER_H
#define ASB_DOCKER_H

#include "core/plan.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "docker/docker_proto.h"

/* What a request is built from besides the plan. Pure data: building a request reads nothing. */
typedef struct asb_docker_req_ctx {
    const char *image;       /* NULL = ASB_DOCKER_DEFAULT_IMAGE */
    const char *supervisor;  /* host path of the supervisor binary, bind-mounted read-only */
    const char *owner_tag;   /* "asb-<pid>-<start>" */
    const char *owner_pidns; /* asb_owner_pidns, or NULL: no label */
    bool io_volume;          /* an anonymous volume at ASB_DOCKER_IO_DIR for files in/out */
    /* > 0: the run's own host uid and gid, in place of a non-root profile's (docker.c takes
     * them from an id slot, as the native backend does for its user namespaces); 0: the
     * profile's. Never applied to a root profile. */
    long uid, gid;
} asb_docker_req_ctx_t;

/* The Docker profile a plan runs as: the plan's profile with what Docker cannot do (Landlock)
 * switched off, so attestation checks only what is requested. */
void asb_docker_effective_profile(const asb_plan_t *plan, asb_profile_t *out);

/* Whether the run needs the io volume: files in, or code too big to inline. */
bool asb_docker_needs_io_volume(const asb_plan_t *plan);

/* Whether code and stdin go inline in the spec: while its encoded size stays within
 * ASB_DOCKER_SPEC_MAX. When not, the code goes through the io volume and stdin comes on the
 * attach stream. */
bool asb_docker_inline_data(const asb_plan_t *plan);
/* An upper bound of the spec's environment string, with or without code and stdin inline. */
size_t asb_docker_spec_bound(const asb_plan_t *plan, bool inline_data);

/* The container-mode run spec (JSON) for the supervisor. */
json_t *asb_docker_spec(const asb_plan_t *plan, const asb_docker_req_ctx_t *ctx);
/* The profile a run's container is made for: asb_docker_effective_profile, with ctx's own ids. */
void asb_docker_run_profile(const asb_plan_t *plan, const asb_docker_req_ctx_t *ctx,
                            asb_profile_t *out);

/* The create request body. New reference or NULL (ENOMEM). */
json_t *asb_docker_create_body(const asb_plan_t *plan, const asb_docker_req_ctx_t *ctx);

/* The equivalent `docker run` argv for a create body (NULL-terminated, malloc'd strings). */
char **asb_docker_run_argv(const json_t *body, const char *name);
void asb_docker_strv_free(char **v);

/* Each isolation flag of a create body, true/false, and whether all hardening is present. */
json_t *asb_docker_isolation_flags(const json_t *body, bool *all_present);

/* Compare an inspect document with the request that created it, plus the profile's floor
 * (e.g. hardened: CapDrop ALL, no CapAdd, no-new-privileges, NetworkMode none) independent of
 * the request. Returns true when it matches; else why holds every mismatch. */
bool asb_docker_verify(const asb_profile_t *p, uint32_t weaken, const json_t *request,
                       const json_t *inspect, char *why, size_t why_len);

/* The host path of the supervisor binary to bind-mount (ASB_SUPERVISOR, build tree, install
 * prefix), checked: absolute, regular, owned by root or us, writable only by its owner. */
int asb_docker_supervisor_path(char *out, size_t len, asb_error_t *err);

/* ---- engine client (libcurl over the unix socket) ---- */
typedef struct asb_docker_engine asb_docker_engine_t;

/* The socket: DOCKER_HOST=unix://PATH when set (other schemes are refused), else the default. */
int asb_docker_socket_path(char *out, size_t len, asb_error_t *err);

/* Connect and ping. Fails with "docker engine not reachable at <socket>: <reason>". */
int asb_docker_engine_open(asb_docker_engine_t **eng, asb_error_t *err);
void asb_docker_engine_close(asb_docker_engine_t *eng);
const char *asb_docker_engine_socket(const asb_docker_engine_t *eng);

/* One request. body may be NULL. *resp (malloc'd, NUL-terminated) and *resp_len get the body;
 * *status the HTTP status. A transport failure is an error; any HTTP status is not. */
int asb_docker_http(asb_docker_engine_t *eng, const char *method, const char *path,
                    const char *ctype, const void *body, size_t body_len, long timeout_ms,
                    long *status, char **resp, size_t *resp_len, asb_error_t *err);

/* The same, for JSON: parses the response (NULL body -> NULL *out). Non-2xx is an error that
 * quotes the engine's message. */
int asb_docker_json(asb_docker_engine_t *eng, const char *method, const char *path,
                    const json_t *body, long timeout_ms, json_t **out, asb_error_t *err);

/* cgroup v1: set the native backend's TCP socket memory limit (a quarter of memory_bytes) on the
 * running container's own memory cgroup and read it back; nothing on cgroup v2 (memory.max
 * counts sockets) or without a memory limit. Before the workload is released (docker_tcp.c). */
struct asb_cgroup_host; /* native/cgroup.h */
/* The container's own cgroup directory on the host (described by host, asb_cgroup_detect), in
 * the hierarchy with the ASB_CGROUP_CTRL_* bit ctrl (v2: the one hierarchy), checked to be the
 * container's (its cgroup names the container and holds its init): 1 found (into dir; with fd,
 * the checked directory opened O_PATH there), 0 when this host has no such hierarchy or the
 * container's init is in none, <0 error: -ESRCH another pid namespace than the engine's (or a
 * cgroup not named after the container), -EXDEV another cgroup namespace or a cgroup mount
 * that is not this namespace's (docker_cgroup.c). */
int asb_docker_container_cgroup(asb_docker_engine_t *eng, const struct asb_cgroup_host *host,
                                const char *id, unsigned ctrl, char *dir, size_t len, int *fd,
                                asb_error_t *err);

/* docker-hardened: take the running container's lo down from the host (init_pidfd: its init,
 * from asb_docker_backstop_open), as native hardened keeps
 * it (Docker's "none" network brings it up; loopback connections nobody accepts pin kernel
 * memory no cgroup is charged for), and read it back. Refused (<0 with err) when the container's
 * network namespace cannot be entered, is this process's own, or holds another interface
 * (docker_netns.c). */
int asb_docker_loopback_down(int init_pidfd, const char *id, asb_error_t *err);

/* The cgroup path of the hierarchy with `controller` (v1 name, e.g. "memory"; NULL: the v2
 * "0::" line) in the text of a /proc/PID/cgroup: 1 found (into path), 0 none, -EINVAL odd. */
int asb_docker_cgroup_path_in(const char *text, const char *controller, char *path, size_t len);

/* The running container's own cgroup directory (v1: in the pids hierarchy; v2: the one
 * hierarchy), found and checked as asb_docker_container_cgroup does, opened O_PATH for the
 * host's backstop kill, and checked to be killable by this caller: its cgroup.kill opened for
 * writing (into *kill_fd), or else a signal 0 allowed to every process in it (*kill_fd -1).
 * Returns the directory's fd, or <0 with err when it cannot be found (another pid or cgroup
 * namespace than the engine's: -ESRCH, -EXDEV) or is not ours to kill (-EPERM). Opened before
 * the workload is released: a run whose backstop cannot kill is refused (docker_cgroup.c).
 * With init_pidfd, also a pidfd of the container's init (the process whose cgroup was checked),
 * confirmed to be in that cgroup while the pidfd held it (a pid number alone may be reused). */
int asb_docker_backstop_open(asb_docker_engine_t *eng, const char *id, int *kill_fd,
                             int *init_pidfd, asb_error_t *err);

/* SIGKILL every process in the cgroup (from asb_docker_backstop_open), from the host: through
 * cgroup.kill when kill_fd is open; else each process in cgroup.procs, through a pidfd checked
 * to still be in the cgroup, until none is left. */
void asb_docker_kill_cgroup(int dfd, int kill_fd);

int asb_docker_limit_tcp_v1(asb_docker_engine_t *eng, const char *id, uint64_t memory_bytes,
                            asb_error_t *err);

/* A hijacked attach connection (stdin, stdout, stderr) to a created container. */
typedef struct asb_docker_attach asb_docker_attach_t;
int asb_docker_attach_open(asb_docker_engine_t *eng, const char *id, asb_docker_attach_t **att,
                           asb_error_t *err);
int asb_docker_attach_fd(const asb_docker_attach_t *att);
/* Read what is there: >0 bytes, 0 at EOF, -EAGAIN when nothing now, other negative on error. */
long asb_docker_attach_read(asb_docker_attach_t *att, void *buf, size_t len);
int asb_docker_attach_write(asb_docker_attach_t *att, const void *buf, size_t len);
/* One non-blocking send: bytes taken (possibly fewer than len), -EAGAIN, or -EPIPE. */
long asb_docker_attach_send(asb_docker_attach_t *att, const void *buf, size_t len);
void asb_docker_attach_close(asb_docker_attach_t *att);

/* ---- archive (tar via libarchive) ---- */
typedef struct asb_tar_in {
    const char *name; /* path inside the tar */
    const unsigned char *data;
    size_t len;
    int fd; /* >= 0: read the content from this fd instead (regular file, len bytes) */
} asb_tar_in_t;

/* A tar with directories `dirs` (mode 0755, or 01777 when name ends in "!") and the given files
 * (mode 0444). *tar malloc'd. */
int asb_docker_tar_build(const char *const *dirs, size_t n_dirs, const asb_tar_in_t *files,
                         size_t n_files, unsigned char **tar, size_t *tar_len, asb_error_t *err);

/* ---- maintenance ---- */
/* Remove containers labelled with an owner tag whose owner process is gone. */
/* own_too: also this process's own containers (it is about to die: a CLI that got SIGTERM). */
int asb_docker_reap(asb_docker_engine_t *eng, bool own_too, char **report, asb_error_t *err);
/* Remove every container this process made (a signal ends it mid-run); best effort. */
int asb_docker_remove_own(asb_error_t *err);

/* Test seam: called with the create body right before it is sent, and before start. Used by the
 * tests to tamper with a request and to observe that start never happened. NULL in real runs. */
typedef struct asb_docker_hooks {
    void (*mutate_create)(json_t *body, void *arg);
    void (*before_start)(const char *container_id, void *arg);
    void (*after_create)(const char *container_id, void *arg);
    void *arg;
} asb_docker_hooks_t;

int asb_docker_run_hooked(const asb_plan_t *plan, asb_result_t *res, const asb_docker_hooks_t *h,
                          asb_error_t *err);

#endif
