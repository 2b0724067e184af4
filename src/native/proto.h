/* proto.h - the host <-> supervisor contract (native backend).
 *
 * The host execs the supervisor as host root, in new pid and time namespaces (the supervisor
 * makes the user namespace as the sandbox's host uid, then the others: supervisor/userns.c),
 * with these file descriptors and an empty environment:
 *   0 an empty placeholder stdin, 1 / 2 pipes to the host for the workload's stdout / stderr,
 *   3 the control socket (AF_UNIX SOCK_SEQPACKET), 4 the sandbox's spec (a memfd holding wire.h
 *   records: everything that shapes the sandbox; its argv/env/files are not used).
 * The supervisor builds the sandbox from that spec, then waits for the job (native/native.h:
 * a sandbox may be prepared long before it has one).
 * Messages on the control socket are single wire.h messages (records; the host sees them as
 * JSON objects, wire_json.c), one per packet, each with "type":
 *   supervisor -> host: "userns" (its user namespace exists: map its ids), "workspace"
 *                       (carries the workspace dir fd by SCM_RIGHTS), "attest", "exit",
 *                       "error" {message}
 *   host -> supervisor, in this order: "dev_tree" (unless the root is the host's: the device
 *                       nodes), then on "userns": "usr_tree" (baseline: carries the idmapped
 *                       /usr), "ids" (the maps are written), "cgroup_ready"; then
 *                       "job" (carries, by SCM_RIGHTS: the job's spec in the same format, which
 *                       must match the sandbox's in everything but argv, env, files_in,
 *                       timeout_ms and output_bytes; the workload's stdin; one fd per file in,
 *                       in spec order; sent only after a valid attestation: it is the go), "abort"
 * Every supervisor message carries the run's nonce; the host ignores anything without it. */
#ifndef ASB_NATIVE_PROTO_H
#define ASB_NATIVE_PROTO_H

#define ASB_FD_STDIN 0
#define ASB_FD_STDOUT 1
#define ASB_FD_STDERR 2
#define ASB_FD_CONTROL 3
#define ASB_FD_SPEC 4

#define ASB_PROTO_MAX_MSG 65536
#define ASB_SPEC_MAX (64u << 20)   /* the largest run spec the supervisor reads */
#define ASB_SETUP_TIMEOUT_MS 10000 /* from clone to attestation */

#endif
