/* docker_proto.h - the docker backend's constants, apart from docker.h so the supervisor's
 * container mode (built against musl, without jansson) can include them. */
#ifndef ASB_DOCKER_PROTO_H
#define ASB_DOCKER_PROTO_H

#define ASB_DOCKER_DEFAULT_SOCKET "/var/run/docker.sock"
#define ASB_DOCKER_API "/v1.41" /* Docker 20.10; newer engines still serve it */
#define ASB_DOCKER_DEFAULT_IMAGE "agent-sandbox/python:latest"
#define ASB_DOCKER_SUPERVISOR_PATH "/.asb/asb-supervisor" /* inside the container, read-only */
#define ASB_DOCKER_IO_DIR "/.asb-io"   /* anonymous volume: inputs in, outputs out */
#define ASB_DOCKER_SPEC_ENV "ASB_SPEC" /* container mode's run spec: hex of wire.h records */
/* The run spec travels as one environment string, which the kernel caps at 128 KiB with its
 * name (MAX_ARG_STRLEN); code and stdin go inline only while an upper bound of its size stays
 * under this (asb_docker_spec_bound), and argv and env alone must fit. */
#define ASB_DOCKER_SPEC_MAX (120 * 1024)
#define ASB_DOCKER_LABEL_OWNER "org.agent-sandbox.owner"
#define ASB_DOCKER_LABEL_RUN "org.agent-sandbox.run"
/* The owner's pid namespace (asb_owner_pidns): only a process of that namespace can tell from
 * the owner label whether the owner is alive. */
#define ASB_DOCKER_LABEL_PIDNS "org.agent-sandbox.pidns"
#define ASB_DOCKER_LABEL_PROFILE "org.agent-sandbox.profile"
#define ASB_DOCKER_STDERR_KEEP 4096      /* the supervisor's own diagnostics we keep */
#define ASB_DOCKER_HTTP_TIMEOUT_MS 30000 /* one engine request (create, inspect, remove) */
/* Removing a container seen stopped: past this, the engine finishes the removal by itself. */
#define ASB_DOCKER_REMOVE_WAIT_MS 5000
/* Past the backstop deadline, how long the host reads what the engine has queued before it calls
 * the engine to kill (a stopped caller finds the whole run waiting). */
#define ASB_LATE_DRAIN_S 2.0
#define ASB_DOCKER_FRAME_MAX 65536 /* largest supervisor frame payload */
/* Masked in every container (HostConfig.MaskedPaths): the host's boot id names the host. */
#define ASB_DOCKER_MASK_BOOT_ID "/proc/sys/kernel/random/boot_id"
#define ASB_DOCKER_MASK_PTMX "/dev/ptmx" /* hardened: no pseudo-terminals */
#define ASB_DOCKER_MASK_PTS "/dev/pts"
#define ASB_DOCKER_MASK_SYS "/sys" /* hardened: no /sys */

/* Supervisor frames on the container's stdout: 1 type byte, 4-byte big-endian length, payload.
 * Only the supervisor writes the container's stdout; the workload writes to pipes it reads. */
#define ASB_FRAME_STDOUT 'o'
#define ASB_FRAME_STDERR 'e'
/* attest, exit, error: wire.h records tagged with the run's nonce (the host reads them as JSON) */
#define ASB_FRAME_JSON 'j'
/* A requested output file: its plain name, a NUL, then a piece of its content (a file comes as
 * one or more such frames, in order, before the exit report; an empty file as one frame). Files
 * come back this way, not through the io volume, which the workload must not be able to write. */
#define ASB_FRAME_FILE 'f'
#define ASB_FRAME_HDR 5

#endif
