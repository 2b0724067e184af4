/* native_spec.h - host side helpers of the native backend. */
#ifndef ASB_NATIVE_SPEC_H
#define ASB_NATIVE_SPEC_H

#include "core/plan.h"
#include "native/seccomp_count.h"
#include <jansson.h>

/* The run spec for the supervisor, as JSON; native.c sends it as wire.h records (proto.h). */
/* usr_from_host: the host hands the supervisor the lower layer of its /usr as a mount (baseline's
 * idmapped clone); otherwise the supervisor builds /usr itself. */
/* binds: asb_native_binds of the sandbox's profile, made once per sandbox (its spec and its
 * job's must name the same); borrowed. */
/* owner_uid: the sandbox's own owner uid (idslot.h; never mapped inside any sandbox): the
 * supervisor becomes it to make the user namespace, whose per-user counts the kernel then charges
 * to that uid, not to host root. */
/* early_job: a cold run, whose job the host sends right after the cgroup and whose workload
 * attests to the host directly (supervisor/main.c, start_cold); false for a prepared sandbox. */
json_t *asb_native_spec(const asb_plan_t *plan, json_t *binds, const char *const *file_names,
                        size_t n_files, bool usr_from_host, uint32_t owner_uid, bool early_job);

/* The host directories bound read-only into a sandbox of profile p, as a JSON array of paths
 * (new reference; it looks at the host's /etc for Debian JDK configuration). */
json_t *asb_native_binds(const asb_profile_t *p);

/* Compare the supervisor's attestation with what the plan requires. Fills res->attestation;
 * returns true when valid, else res->attestation.mismatch says what differs. */
/* The profile wants no executable memfd and this kernel has no vm.memfd_noexec (before Linux
 * 6.3): the workload's filter then refuses memfd_create instead (the memfd_refuse program). */
bool asb_native_memfd_refuse(const asb_profile_t *p);

/* inherited: the seccomp filters the supervisor runs under (asb_native_seccomp_filters of its
 * pid; -1 unknown), to which each filter the workload stacks adds one. */
bool asb_native_verify_attestation(const asb_plan_t *plan, json_t *att, long long inherited,
                                   asb_attestation_t *out);

/* Read one control packet (wire.h records, returned as JSON) and an optional passed fd. Returns the
 * object or NULL on EOF/error; *fd_out is -1 when no fd came with it. */
json_t *asb_native_recv(int ctl, int *fd_out);

#endif
