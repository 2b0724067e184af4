/* verdict.c - a native run's status from the evidence the host holds: its own cgroup counters,
 * its capture, the supervisor's wait status, and the supervisor's nonce-tagged exit report
 * (which says how the program ended, and is believed only where the host's own evidence agrees).
 * Status, first match wins: timeout, output_limit, oom_killed, killed, completed; completed
 * needs a released (attested) run and an exit report that agrees with the wait status seen. */
#include "native/verdict.h"
#include "core/result.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

static int report_int(const json_t *rep, const char *key)
{
    return (int)json_integer_value(json_object_get(rep, key));
}

/* An integer in [min, max], judged as read (json_int_t), before anything narrows it: 2^32 would
 * narrow to an exit code or signal of 0 and pass as a clean exit (review finding). */
static bool report_in_range(const json_t *rep, const char *key, json_int_t min, json_int_t max)
{
    const json_t *v = json_object_get(rep, key);
    return json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max;
}

bool asb_exit_report_malformed(const json_t *rep)
{
    /* exit_code is -1 when the program did not exit (a signal, or it never ran). */
    return !report_in_range(rep, "exit_code", -1, 255) || !report_in_range(rep, "signal", 0, 127);
}

bool asb_exit_report_output_agrees(const json_t *rep, uint64_t out_seen, uint64_t err_seen,
                                   char *msg, size_t size)
{
    static const char *const keys[] = {"stdout_bytes", "stderr_bytes"};
    const uint64_t seen[] = {out_seen, err_seen};
    for (int i = 0; i < 2; i++) {
        const json_t *v = json_object_get(rep, keys[i]);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            snprintf(msg, size, "the exit report does not say how much output was forwarded");
            return false;
        }
        if ((uint64_t)json_integer_value(v) != seen[i]) {
            snprintf(msg, size,
                     "output lost between the supervisor and the host: it forwarded %" PRIu64
                     " bytes of %s, the host received %" PRIu64,
                     (uint64_t)json_integer_value(v), i ? "stderr" : "stdout", seen[i]);
            return false;
        }
    }
    return true;
}

void asb_native_decide(const asb_native_evidence_t *ev, asb_result_t *res)
{
    const json_t *rep = ev->report;
    const asb_cgroup_stats_t *cgs = &ev->cgroup;
    /* An OOM kill counts as the run's own only when its own memory limit invoked it: the
     * cgroup's oom_kill counter also counts the host's OOM killer, which takes sandboxed
     * processes first (oom_score_adj 1000), so another run's uncharged kernel memory made an
     * innocent run's record say oom_killed (red-team finding, session 20). */
    bool host_oom = cgs->oom_kills > 0 && !cgs->limit_oom;
    res->out_of_memory = cgs->oom_kills > 0 && cgs->limit_oom;
    res->memory_peak_bytes = cgs->memory_peak_bytes;
    res->io_read_bytes = cgs->io_read_bytes;
    res->memory_limit_reached = cgs->memory_limit_reached;
    res->cpu_time_s = (double)cgs->cpu_usage_ns / 1e9;
    bool rep_malformed = rep && asb_exit_report_malformed(rep);
    if (rep) {
        res->exit_code = rep_malformed ? -1 : report_int(rep, "exit_code");
        res->signal = rep_malformed ? 0 : report_int(rep, "signal");
        res->max_rss_kb = report_int(rep, "max_rss_kb");
        if (!ev->cg_created)
            res->cpu_time_s = json_number_value(json_object_get(rep, "cpu_time_s"));
    }
    bool rep_timeout = rep && json_is_true(json_object_get(rep, "timed_out"));
    bool rep_output = rep && json_is_true(json_object_get(rep, "output_limit"));
    res->stdout_truncated =
        ev->stdout_capped || (rep && json_is_true(json_object_get(rep, "stdout_truncated")));
    res->stderr_truncated =
        ev->stderr_capped || (rep && json_is_true(json_object_get(rep, "stderr_truncated")));
    const char *exec_error = rep ? json_string_value(json_object_get(rep, "exec_error")) : NULL;

    if (ev->sup_error) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, ev->sup_error);
        return;
    }
    if (!ev->released) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        if (res->attestation.present && !res->attestation.valid) {
            char msg[1200];
            snprintf(msg, sizeof(msg), "attestation refused: %s",
                     res->attestation.mismatch ? res->attestation.mismatch : "mismatch");
            asb_result_set_error(res, msg);
        } else {
            asb_result_set_error(res, ev->backstop_fired ? "sandbox setup timed out"
                                                         : "no attestation from the supervisor");
        }
        return;
    }
    if (rep_timeout || ev->backstop_fired) {
        res->status = ASB_STATUS_TIMEOUT;
        res->timed_out = true;
        return;
    }
    if (rep_output || res->stdout_truncated || res->stderr_truncated) {
        res->status = ASB_STATUS_OUTPUT_LIMIT;
        return;
    }
    bool sup_signaled = !ev->sup_status_lost && !WIFEXITED(ev->sup_status);
    /* The OOM killer kills with SIGKILL: a program that died of another signal after one of its
     * children was OOM-killed died of that signal (red-team finding). */
    if (res->out_of_memory && (!rep || res->signal == SIGKILL || sup_signaled)) {
        res->status = ASB_STATUS_OOM_KILLED;
        /* cgroup v2 kills the whole run (memory.oom.group), the supervisor with the program:
         * no report then says how the program ended, and the supervisor's own SIGKILL beside
         * the cgroup's OOM count is the kernel's evidence that every process of the run got
         * one (found on a pure v2 host: the record said signal 0 there, 9 on v1). */
        if (!rep && sup_signaled && WTERMSIG(ev->sup_status) == SIGKILL)
            res->signal = SIGKILL;
        return;
    }
    if (rep_malformed) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, "malformed exit report");
        res->exit_code = -1; /* nothing of a disbelieved report stays in the record */
        res->signal = 0;
        return;
    }
    char lost[200];
    if (rep && ev->output_counted &&
        !asb_exit_report_output_agrees(rep, ev->stdout_seen, ev->stderr_seen, lost, sizeof(lost))) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, lost);
        res->exit_code = -1; /* a sandbox_error's record carries no exit of the program */
        res->signal = 0;
        return;
    }
    static const char host_oom_note[] =
        "the host's OOM killer killed a process of the run (not the run's own memory limit)";
    if (rep && res->signal != 0) {
        res->status = ASB_STATUS_KILLED;
        if (host_oom)
            asb_result_set_error(res, host_oom_note);
        return;
    }
    if (!ev->sup_exited) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, "the supervisor's exit was not seen");
        res->exit_code = -1;
        return;
    }
    if (!rep || sup_signaled) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, host_oom && sup_signaled ? "supervisor was killed by the host's "
                                                             "OOM killer (not the run's own "
                                                             "memory limit)"
                                  : sup_signaled           ? "supervisor was killed"
                                                           : "no exit report");
        res->exit_code = -1;
        return;
    }
    if (exec_error && *exec_error) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, exec_error);
        /* The program never ran: the 127 is the failed exec's, not its (QA finding). */
        res->exit_code = -1;
        return;
    }
    int mirror = ev->sup_status_lost ? res->exit_code : WEXITSTATUS(ev->sup_status);
    if (res->exit_code < 0 || mirror != res->exit_code) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, "exit report disagrees with the supervisor's exit status");
        res->exit_code = -1; /* neither is believed: no exit code in the record */
        return;
    }
    res->status = ASB_STATUS_COMPLETED;
}
