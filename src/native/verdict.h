/* verdict.h - a native run's status from the evidence the host holds (docs/SPEC.md, status
 * precedence). A pure function of that evidence, so every branch has a unit test
 * (tests/unit/test_verdict.c) without a sandbox that misbehaves on purpose. */
#ifndef ASB_NATIVE_VERDICT_H
#define ASB_NATIVE_VERDICT_H

#include "agent_sandbox.h"
#include "native/cgroup.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct asb_native_evidence {
    const json_t *report;  /* the supervisor's nonce-tagged exit report; NULL when none came */
    const char *sup_error; /* the supervisor's own setup error; NULL when none */
    bool released;         /* the attestation was verified and the job handed over */
    bool backstop_fired;   /* the host's own deadline ended the run */
    bool sup_exited;       /* the supervisor's exit was seen */
    bool sup_status_lost;  /* reaped by the caller: only the report says how it ended */
    int sup_status;        /* the supervisor's wait status, when seen and not lost */
    bool cg_created;       /* the run had its cgroup: CPU time comes from it, not the report */
    bool stdout_capped, stderr_capped; /* the host's own capture reached the cap */
    /* The host has read all the supervisor wrote (it exited, the pipes are drained), and these
     * are the bytes it received on each stream; compared with the exit report's counts. */
    bool output_counted;
    uint64_t stdout_seen, stderr_seen;
    asb_cgroup_stats_t cgroup; /* the run's cgroup counters (zero without one) */
} asb_native_evidence_t;

/* Fill res's status, exit code, signal, counters and error from ev, first match wins: the
 * setup errors, timeout, output_limit, oom_killed, killed, then completed only with a released
 * (attested) run and an exit report that agrees with the supervisor's exit status; anything
 * unverifiable is sandbox_error. res->attestation (already filled) names a refused one. */
void asb_native_decide(const asb_native_evidence_t *ev, asb_result_t *res);

/* True when an exit report's exit_code is not an integer in [-1, 255] or its signal not one in
 * [0, 127], judged as read, before anything narrows them (2^32 would read as 0, a clean exit).
 * Such a report is not believed: both backends make the run a sandbox_error. */
bool asb_exit_report_malformed(const json_t *rep);

/* False when the exit report's stdout_bytes and stderr_bytes (what the supervisor forwarded)
 * are not exactly the bytes the host received, out_seen and err_seen: a write of the supervisor
 * into the host's side failed (such as ENOMEM in a full memory cgroup, which charges the pipe's
 * pages) and output was lost, so the record's output is not the program's. msg (size bytes)
 * then names the stream and both counts. A report without the counts does not agree. */
bool asb_exit_report_output_agrees(const json_t *rep, uint64_t out_seen, uint64_t err_seen,
                                   char *msg, size_t size);

#endif
