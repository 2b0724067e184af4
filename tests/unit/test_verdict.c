/* test_verdict.c - every branch of a native run's status (native/verdict.c), from evidence built
 * here: the exit reports, wait statuses and cgroup counters a misbehaving or forged run would
 * leave, which no honest sandbox produces on purpose. No privileges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "native/verdict.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* An honest, attested run whose program exited `code`: the report and the supervisor agree. */
static asb_native_evidence_t honest(json_t *report, int code)
{
    asb_native_evidence_t ev;
    memset(&ev, 0, sizeof(ev));
    ev.report = report;
    ev.released = true;
    ev.sup_exited = true;
    ev.sup_status = W_EXITCODE(code, 0);
    ev.cg_created = true;
    ev.output_counted = true; /* nothing written, nothing received: the counts agree at 0 */
    return ev;
}

static json_t *report(int code, int sig)
{
    return json_pack("{s:i, s:i, s:i, s:b, s:b, s:i, s:i}", "exit_code", code, "signal", sig,
                     "max_rss_kb", 1000, "timed_out", 0, "output_limit", 0, "stdout_bytes", 0,
                     "stderr_bytes", 0);
}

static asb_status_t decide(const asb_native_evidence_t *ev, asb_result_t *res)
{
    memset(res, 0, sizeof(*res));
    asb_native_decide(ev, res);
    return res->status;
}

static void assert_error(const asb_result_t *res, const char *needle)
{
    assert_int_equal(res->status, ASB_STATUS_SANDBOX_ERROR);
    assert_non_null(res->error);
    if (!strstr(res->error, needle))
        fail_msg("error '%s' does not name '%s'", res->error, needle);
}

static void test_completed_needs_agreement(void **state)
{
    (void)state;
    json_t *rep = report(3, 0);
    asb_native_evidence_t ev = honest(rep, 3);
    asb_result_t res;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_COMPLETED);
    assert_int_equal(res.exit_code, 3);
    assert_null(res.error);
    asb_result_free(&res);
    /* A report that says 0 where the supervisor exited 3: forged or broken, never completed. */
    json_t *liar = report(0, 0);
    ev = honest(liar, 3);
    decide(&ev, &res);
    assert_error(&res, "disagrees");
    assert_int_equal(res.exit_code, -1); /* neither the report's 0 nor anything else */
    asb_result_free(&res);
    /* The caller reaped the supervisor (status lost): the report alone, but never a negative
     * exit code. */
    ev = honest(rep, 99);
    ev.sup_status_lost = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_COMPLETED);
    assert_int_equal(res.exit_code, 3);
    asb_result_free(&res);
    json_t *neg = report(-1, 0);
    ev = honest(neg, 0);
    ev.sup_status_lost = true;
    decide(&ev, &res);
    assert_error(&res, "disagrees");
    asb_result_free(&res);
    json_decref(rep);
    json_decref(liar);
    json_decref(neg);
}

static void test_never_released(void **state)
{
    (void)state;
    json_t *rep = report(0, 0);
    asb_native_evidence_t ev = honest(rep, 0);
    ev.released = false;
    asb_result_t res;
    memset(&res, 0, sizeof(res));
    res.attestation.present = true;
    res.attestation.valid = false;
    res.attestation.mismatch = strdup("uid 0, expected 65534");
    asb_native_decide(&ev, &res);
    assert_error(&res, "attestation refused: uid 0, expected 65534");
    asb_result_free(&res);

    decide(&ev, &res); /* no attestation at all */
    assert_error(&res, "no attestation from the supervisor");
    asb_result_free(&res);
    ev.backstop_fired = true; /* and the setup never finished */
    decide(&ev, &res);
    assert_error(&res, "sandbox setup timed out");
    assert_false(res.timed_out);
    asb_result_free(&res);
    json_decref(rep);
}

static void test_supervisor_errors(void **state)
{
    (void)state;
    json_t *rep = report(0, 0);
    asb_native_evidence_t ev = honest(rep, 0);
    asb_result_t res;
    ev.sup_error = "landlock: ruleset refused";
    decide(&ev, &res);
    assert_error(&res, "landlock: ruleset refused");
    asb_result_free(&res);

    ev = honest(NULL, 0); /* no exit report */
    decide(&ev, &res);
    assert_error(&res, "no exit report");
    asb_result_free(&res);

    ev = honest(rep, 0);
    ev.sup_status = SIGKILL; /* killed supervisor, whatever its report said */
    decide(&ev, &res);
    assert_error(&res, "supervisor was killed");
    assert_int_equal(res.exit_code, -1); /* its report is not believed */
    asb_result_free(&res);

    ev = honest(rep, 0);
    ev.sup_exited = false;
    decide(&ev, &res);
    assert_error(&res, "exit was not seen");
    assert_int_equal(res.exit_code, -1);
    asb_result_free(&res);

    json_t *bad = json_pack("{s:s, s:i}", "exit_code", "0", "signal", 0);
    ev = honest(bad, 0);
    decide(&ev, &res);
    assert_error(&res, "malformed exit report");
    assert_int_equal(res.exit_code, -1);
    asb_result_free(&res);

    /* Out of range as read: 2^32 narrows to 0 and would pass as a clean exit (review
     * finding); a wait status cannot carry 256 or a signal of 128 either. */
    static const struct {
        json_int_t code, sig;
    } wide[] = {
        {(json_int_t)1 << 32, 0}, {0, (json_int_t)1 << 32}, {256, 0}, {0, 128}, {-2, 0}, {0, -1}};
    for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
        json_t *w = json_pack("{s:I, s:I}", "exit_code", wide[i].code, "signal", wide[i].sig);
        ev = honest(w, 0);
        decide(&ev, &res);
        if (res.status != ASB_STATUS_SANDBOX_ERROR)
            fail_msg("exit_code %lld signal %lld: %s", (long long)wide[i].code,
                     (long long)wide[i].sig, asb_status_name(res.status));
        assert_error(&res, "malformed exit report");
        assert_int_equal(res.exit_code, -1);
        assert_int_equal(res.signal, 0);
        asb_result_free(&res);
        json_decref(w);
    }

    json_t *noexec =
        json_pack("{s:i, s:i, s:s, s:i, s:i}", "exit_code", 127, "signal", 0, "exec_error",
                  "exec /nope: No such file or directory", "stdout_bytes", 0, "stderr_bytes", 0);
    ev = honest(noexec, 127);
    decide(&ev, &res);
    assert_error(&res, "/nope");
    assert_int_equal(res.exit_code, -1); /* the program never ran: not its 127 */
    asb_result_free(&res);
    json_decref(rep);
    json_decref(bad);
    json_decref(noexec);
}

static void test_precedence(void **state)
{
    (void)state;
    asb_result_t res;
    /* timeout beats output_limit beats oom_killed */
    json_t *all = json_pack("{s:i, s:i, s:b, s:b}", "exit_code", -1, "signal", SIGKILL, "timed_out",
                            1, "output_limit", 1);
    asb_native_evidence_t ev = honest(all, 0);
    ev.cgroup.oom_kills = 1;
    ev.cgroup.limit_oom = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_TIMEOUT);
    assert_true(res.timed_out);
    assert_true(res.out_of_memory);
    asb_result_free(&res);

    json_t *rep = report(0, 0);
    ev = honest(rep, 0);
    ev.backstop_fired = true; /* the host's own deadline, without any report saying so */
    assert_int_equal(decide(&ev, &res), ASB_STATUS_TIMEOUT);
    asb_result_free(&res);

    ev = honest(rep, 0);
    ev.stdout_capped = true; /* the host's own capture, without any report saying so */
    ev.cgroup.oom_kills = 1;
    ev.cgroup.limit_oom = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_OUTPUT_LIMIT);
    assert_true(res.stdout_truncated);
    asb_result_free(&res);
    /* output_limit from the supervisor's report alone, and from the host's stderr capture. */
    json_t *capped = json_pack("{s:i, s:i, s:b, s:b}", "exit_code", 0, "signal", 0, "output_limit",
                               1, "stderr_truncated", 1);
    ev = honest(capped, 0);
    assert_int_equal(decide(&ev, &res), ASB_STATUS_OUTPUT_LIMIT);
    assert_true(res.stderr_truncated);
    assert_false(res.stdout_truncated);
    asb_result_free(&res);
    ev = honest(rep, 0);
    ev.stderr_capped = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_OUTPUT_LIMIT);
    assert_true(res.stderr_truncated);
    asb_result_free(&res);
    json_decref(capped);
    json_decref(all);
    json_decref(rep);
}

static void test_oom_only_from_the_cgroup(void **state)
{
    (void)state;
    asb_result_t res;
    json_t *k9 = report(-1, SIGKILL);
    asb_native_evidence_t ev = honest(k9, 0);
    /* SIGKILL without the cgroup's OOM count: killed, whatever printed "Killed". */
    assert_int_equal(decide(&ev, &res), ASB_STATUS_KILLED);
    assert_false(res.out_of_memory);
    asb_result_free(&res);
    ev.cgroup.oom_kills = 1;
    ev.cgroup.limit_oom = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_OOM_KILLED);
    assert_int_equal(res.signal, SIGKILL);
    asb_result_free(&res);

    /* A child was OOM-killed, the program died of SIGTERM: killed, with the OOM noted. */
    json_t *k15 = report(-1, SIGTERM);
    ev = honest(k15, 0);
    ev.cgroup.oom_kills = 1;
    ev.cgroup.limit_oom = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_KILLED);
    assert_int_equal(res.signal, SIGTERM);
    assert_true(res.out_of_memory);
    asb_result_free(&res);

    /* The host's OOM killer (the count moved, the run never reached its limit): not the run's
     * OOM, said so (red-team finding, session 20: an innocent run's record said oom_killed). */
    ev = honest(k9, 0);
    ev.cgroup.oom_kills = 1;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_KILLED);
    assert_false(res.out_of_memory);
    assert_non_null(res.error);
    assert_non_null(strstr(res.error, "host's OOM killer"));
    asb_result_free(&res);
    ev = honest(NULL, 0);
    ev.sup_status = SIGKILL;
    ev.cgroup.oom_kills = 1;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_SANDBOX_ERROR);
    assert_false(res.out_of_memory);
    assert_non_null(strstr(res.error, "host's OOM killer"));
    asb_result_free(&res);

    /* cgroup v2's group OOM kill: no report, the supervisor SIGKILLed beside the count. */
    ev = honest(NULL, 0);
    ev.sup_status = SIGKILL;
    ev.cgroup.oom_kills = 1;
    ev.cgroup.limit_oom = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_OOM_KILLED);
    assert_int_equal(res.signal, SIGKILL);
    asb_result_free(&res);

    /* The counters come from the cgroup, not the report, when the run had one. */
    json_t *cpu = json_pack("{s:i, s:i, s:f, s:i, s:i}", "exit_code", 0, "signal", 0, "cpu_time_s",
                            99.0, "stdout_bytes", 0, "stderr_bytes", 0);
    ev = honest(cpu, 0);
    ev.cgroup.cpu_usage_ns = 250000000;
    ev.cgroup.memory_peak_bytes = 4096;
    ev.cgroup.memory_limit_reached = true;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_COMPLETED);
    assert_true(res.cpu_time_s > 0.24 && res.cpu_time_s < 0.26);
    assert_int_equal(res.memory_peak_bytes, 4096);
    assert_true(res.memory_limit_reached);
    asb_result_free(&res);
    /* Without a cgroup (a weakened run) the CPU time is the report's; max RSS always is. */
    ev.cg_created = false;
    ev.cgroup.cpu_usage_ns = 0;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_COMPLETED);
    assert_true(res.cpu_time_s > 98.9 && res.cpu_time_s < 99.1);
    asb_result_free(&res);
    json_t *rss = report(0, 0); /* max_rss_kb 1000 */
    ev = honest(rss, 0);
    decide(&ev, &res);
    assert_int_equal(res.max_rss_kb, 1000);
    asb_result_free(&res);
    json_decref(rss);
    json_decref(k9);
    json_decref(k15);
    json_decref(cpu);
}

/* Output the supervisor counted as forwarded but the host never received (a write into the
 * host's pipe failed): the record's output is not the program's, so the run is not completed,
 * whatever its exit. The counts must be there, and exact, on both streams. */
static void test_lost_output_is_refused(void **state)
{
    (void)state;
    asb_result_t res;
    json_t *rep = json_pack("{s:i, s:i, s:i, s:i}", "exit_code", 0, "signal", 0, "stdout_bytes",
                            4096, "stderr_bytes", 7);
    asb_native_evidence_t ev = honest(rep, 0);
    ev.stdout_seen = 4096;
    ev.stderr_seen = 7;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_COMPLETED);
    asb_result_free(&res);

    ev.stdout_seen = 1024; /* 3072 bytes of stdout lost */
    decide(&ev, &res);
    assert_error(&res, "output lost between the supervisor and the host");
    assert_error(&res, "4096 bytes of stdout, the host received 1024");
    assert_int_equal(res.exit_code, -1); /* no exit of the program in a sandbox_error */
    asb_result_free(&res);

    ev.stdout_seen = 4096;
    ev.stderr_seen = 8; /* more than was forwarded is not agreement either */
    decide(&ev, &res);
    assert_error(&res, "7 bytes of stderr, the host received 8");
    asb_result_free(&res);

    /* a killed program's record is refused too: its output would be short without a word */
    json_t *k = json_pack("{s:i, s:i, s:i, s:i}", "exit_code", -1, "signal", SIGTERM,
                          "stdout_bytes", 10, "stderr_bytes", 0);
    ev = honest(k, 0);
    ev.sup_status = W_EXITCODE(128 + SIGTERM, 0);
    decide(&ev, &res);
    assert_error(&res, "output lost");
    asb_result_free(&res);

    /* without the counts the report cannot be checked: not believed */
    json_t *bare = json_pack("{s:i, s:i}", "exit_code", 0, "signal", 0);
    ev = honest(bare, 0);
    decide(&ev, &res);
    assert_error(&res, "does not say how much output was forwarded");
    asb_result_free(&res);

    /* the host never read to the end (no exit seen): nothing to compare, decided elsewhere */
    ev = honest(rep, 0);
    ev.stdout_seen = 1;
    ev.output_counted = false;
    assert_int_equal(decide(&ev, &res), ASB_STATUS_COMPLETED);
    asb_result_free(&res);
    json_decref(rep);
    json_decref(k);
    json_decref(bare);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_completed_needs_agreement),
        cmocka_unit_test(test_never_released),
        cmocka_unit_test(test_supervisor_errors),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_oom_only_from_the_cgroup),
        cmocka_unit_test(test_lost_output_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
