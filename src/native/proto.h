/* proto.h - the host <-> supervisor contract (native backend).
 *
 * The host execs the supervisor with these file descriptors and an empty environment:
 *   0 stdin for the workload (a memfd), 1 / 2 pipes to the host for the workload's stdout / stderr,
 *   3 the control socket (AF_UNIX SOCK_SEQPACKET), 4 the run spec (a memfd holding wire.h
 *   records), 5.. one fd per file copied in, in spec order.
 * Messages on the control socket are single wire.h messages (records; the host sees them as
 * JSON objects, wire_json.c), one per packet, each with "type":
 *   supervisor -> host: "workspace" (carries the workspace dir fd by SCM_RIGHTS), "attest",
 *                       "exit", "error" {message}
 *   host -> supervisor: "go", "abort"
 * Every supervisor message carries the run's nonce; the host ignores anything without it. */
#ifndef ASB_NATIVE_PROTO_H
#define ASB_NATIVE_PROTO_H

#define ASB_FD_STDIN 0
#define ASB_FD_STDOUT 1
#define ASB_FD_STDERR 2
#define ASB_FD_CONTROL 3
#define ASB_FD_SPEC 4
#define ASB_FD_FILES_IN 5

#define ASB_PROTO_MAX_MSG 65536
#define ASB_SPEC_MAX (64u << 20)   /* the largest run spec the supervisor reads */
#define ASB_SETUP_TIMEOUT_MS 10000 /* from clone to attestation */

#endif
