/* bench.c - lane probe, a bounded worker pool over tasks, and the artifact. */
#include "bench/bench.h"
#include "core/json.h"
#include "bench/aggregate.h"
#include "core/error.h"
#include "core/limits.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#define ARTIFACT_SCHEMA "agent-sandbox.bench/1"

bool asb_bench_valid_evidence_class(const char *ec)
{
    return ec && (strcmp(ec, "local_gate") == 0 || strcmp(ec, "live_lane") == 0 ||
                  strcmp(ec, "captured_fixture") == 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One trivial run in the lane. A lane that fails it (no engine, a control this host lacks, no
 * interpreter in the image) voids every task. */
static bool probe_lane(const asb_bench_lane_t *lane, asb_bench_phase_t *ph)
{
    const char *py = lane->python ? lane->python : ASB_DEFAULT_INTERPRETER;
    const char *argv[] = {py, "-I", "-c", "pass", NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    asb_bench_lane_config(lane, &cfg);
    cfg.argv = argv;
    cfg.limits.timeout_s = ASB_BENCH_PROBE_TIMEOUT_S;
    asb_result_t res;
    asb_error_t err;
    int rc = asb_run(&cfg, &res, &err);
    asb_bench_phase_record(ph, rc, &res, &err);
    bool up = rc == 0 && ph->status == ASB_STATUS_COMPLETED && ph->exit_code == 0;
    /* The reason a lane is void: the first line of the interpreter's that names an error ("Fatal
     * Python error: init_fs_encoding", "ModuleNotFoundError: ..."), not its last, which can be
     * "<no Python frame>" (QA finding). Our own probe, no candidate's bytes. */
    char *line = up ? NULL : asb_bench_error_line(res.err.data, res.err.len);
    if (line) {
        free(ph->stderr_tail);
        ph->stderr_tail = line;
    }
    asb_result_free(&res);
    return up;
}

typedef struct pool {
    pthread_mutex_t lock;
    size_t next;
    int rc;
    const asb_bench_suite_t *suite;
    const asb_bench_submission_t *sub;
    const asb_bench_options_t *opts;
    asb_bench_row_t *rows;
} pool_t;

static void *worker(void *arg)
{
    pool_t *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->suite->n_tasks)
            return NULL;
        if (p->opts->cancel && atomic_load(p->opts->cancel))
            continue; /* its row stays as it is: asb_bench_run reports the interruption */
        const asb_bench_files_t *cand = p->sub && i < p->sub->n_tasks ? &p->sub->per_task[i] : NULL;
        if (asb_bench_grade_task(&p->opts->lane, &p->suite->tasks[i], cand, &p->rows[i]) < 0) {
            pthread_mutex_lock(&p->lock);
            p->rc = -ENOMEM;
            pthread_mutex_unlock(&p->lock);
        }
    }
}

static int void_all(const asb_bench_suite_t *suite, const asb_bench_phase_t *probe,
                    asb_bench_row_t *rows)
{
    const char *why = probe->error                                  ? probe->error
                      : probe->stderr_tail && probe->stderr_tail[0] ? probe->stderr_tail
                                                                    : "probe did not complete";
    for (size_t i = 0; i < suite->n_tasks; i++) {
        rows[i].verdict = ASB_BENCH_VOID;
        rows[i].score = 0;
        char exit_s[32] = "no exit status";
        if (probe->exit_code >= 0)
            snprintf(exit_s, sizeof(exit_s), "exit %d", probe->exit_code);
        if (asprintf(&rows[i].reason, "lane cannot run (%s, %s): %s",
                     asb_status_name(probe->status), exit_s, why) < 0) {
            rows[i].reason = NULL;
            return -ENOMEM;
        }
    }
    return 0;
}

/* The timed-out phase of a failed row, or NULL. */
static const asb_bench_phase_t *timed_out_phase(const asb_bench_row_t *row)
{
    if (row->verdict != ASB_BENCH_FAIL)
        return NULL;
    return row->grader.timed_out ? &row->grader : row->candidate.timed_out ? &row->candidate : NULL;
}

static double cpu_share(const asb_bench_phase_t *ph)
{
    return ph->duration_s > 0 ? ph->cpu_time_s / ph->duration_s : 0;
}

static int append_reason(asb_bench_row_t *row, const char *note)
{
    char *r2 = NULL;
    if (asprintf(&r2, "%s (%s)", row->reason ? row->reason : "", note) < 0)
        return -ENOMEM;
    free(row->reason);
    row->reason = r2;
    return 0;
}

typedef struct starved {
    size_t row;
    double share;
    bool waited; /* used about what starting a program costs, and little more */
} starved_t;

static int by_share_desc(const void *a, const void *b)
{
    const starved_t *p = a, *q = b;
    if (p->share != q->share)
        return p->share < q->share ? 1 : -1;
    return p->row < q->row ? -1 : p->row > q->row; /* ties in suite order: deterministic */
}

/* Rows that timed out while others ran and got less than ASB_BENCH_STARVED_CPU_SHARE of a CPU
 * are graded again alone, those that used the most CPU first, at most ASB_BENCH_MAX_REGRADES
 * (review finding: a submission whose every candidate times out would otherwise cost one
 * timeout per task, in a row). A phase that used little more CPU than starting a program costs
 * (ASB_BENCH_IDLE_CPU_S, plus ASB_BENCH_IDLE_CPU_SHARE of its wall clock) was waiting (sleeping,
 * blocked), not starved: more CPU would not have helped, so it is not graded again.
 * Taking the rows in index order let sixteen sleepers use up the regrades before two honest,
 * CPU-heavy rows that then failed at --jobs 4 and passed at --jobs 1 (QA finding). */
static int regrade_starved(const asb_bench_options_t *opts, const asb_bench_suite_t *suite,
                           const asb_bench_submission_t *sub, asb_bench_report_t *rep,
                           unsigned jobs)
{
    if (!rep->lane_up || jobs <= 1)
        return 0;
    starved_t *cand = calloc(suite->n_tasks ? suite->n_tasks : 1, sizeof(*cand));
    if (!cand)
        return -ENOMEM;
    /* A task starved by jobs - 1 spinning neighbours still gets about CPUs / jobs of a CPU: the
     * bar for "waited" stays at a quarter of that, whatever --jobs and the timeout (a fixed
     * allowance for starting the interpreter alone would call a starved row at --jobs 18 with
     * a 1 s timeout one that waited: review finding). */
    /* The CPUs this process may run on (taskset, a cpuset), not all the host's. */
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    double starved_share = (double)(cpus > 0 ? cpus : 1) / (double)jobs;
    size_t n = 0;
    for (size_t i = 0; i < suite->n_tasks; i++) {
        const asb_bench_phase_t *ph = timed_out_phase(&rep->rows[i]);
        if (!ph || cpu_share(ph) >= ASB_BENCH_STARVED_CPU_SHARE)
            continue;
        double bar = ASB_BENCH_IDLE_CPU_S + ASB_BENCH_IDLE_CPU_SHARE * ph->duration_s;
        double quarter = 0.25 * starved_share * ph->duration_s;
        /* The subprocess backend's CPU time is what wait4 reports: a timeout's kill of the
         * process group leaves the grandchildren (the grader driver's candidate process) to
         * init, so their CPU is not in it and "little CPU" proves no waiting there (QA finding:
         * a spinning candidate read 0.08 s of 2 s). Such a row is graded again like any other. */
        bool cpu_whole = strcmp(ph->backend, "subprocess") != 0;
        cand[n++] =
            (starved_t){.row = i,
                        .share = cpu_share(ph),
                        .waited = cpu_whole && ph->cpu_time_s < (bar < quarter ? bar : quarter)};
    }
    qsort(cand, n, sizeof(*cand), by_share_desc);
    int rc = 0;
    size_t regrades = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        if (opts->cancel && atomic_load(opts->cancel))
            break;
        size_t i = cand[k].row;
        asb_bench_row_t *row = &rep->rows[i];
        const asb_bench_phase_t *ph = timed_out_phase(row);
        char note[200];
        if (cand[k].waited) {
            snprintf(note, sizeof(note),
                     "timed out waiting, with %.2f s of CPU in %.2f s: not starved, not graded "
                     "again",
                     ph->cpu_time_s, ph->duration_s);
            rc = append_reason(row, note);
            continue;
        }
        if (regrades == ASB_BENCH_MAX_REGRADES) {
            snprintf(note, sizeof(note),
                     "timed out beside other tasks with %.2f s of CPU in %.2f s; not graded again "
                     "alone: %d rows were",
                     ph->cpu_time_s, ph->duration_s, ASB_BENCH_MAX_REGRADES);
            rc = append_reason(row, note);
            continue;
        }
        regrades++;
        char *first = row->reason;
        row->reason = NULL;
        asb_bench_row_free(row);
        const asb_bench_files_t *files = sub && i < sub->n_tasks ? &sub->per_task[i] : NULL;
        if (asb_bench_grade_task(&opts->lane, &suite->tasks[i], files, row) < 0) {
            free(first);
            rc = -ENOMEM;
            break;
        }
        row->regraded_alone = true;
        row->first_reason = first;
    }
    free(cand);
    return rc;
}

int asb_bench_run(const asb_bench_suite_t *suite, const asb_bench_submission_t *sub,
                  const asb_bench_options_t *opts, asb_bench_report_t *rep, asb_error_t *err)
{
    memset(rep, 0, sizeof(*rep));
    const char *sb = opts->lane.sandbox;
    if (!sb ||
        (strcmp(sb, "subprocess") != 0 && strcmp(sb, "native") != 0 && strcmp(sb, "docker") != 0))
        return asb_err(err, -EINVAL, "sandbox: expected subprocess, native or docker");
    if (opts->evidence_class && !asb_bench_valid_evidence_class(opts->evidence_class))
        return asb_err(err, -EINVAL,
                       "evidence class: expected local_gate, live_lane or captured_fixture");
    unsigned jobs = opts->jobs ? opts->jobs : 1;
    if (jobs > ASB_BENCH_MAX_JOBS)
        return asb_err(err, -EINVAL, "jobs: at most %d", ASB_BENCH_MAX_JOBS);
    rep->jobs = jobs;
    rep->rows = calloc(suite->n_tasks ? suite->n_tasks : 1, sizeof(*rep->rows));
    if (!rep->rows)
        return asb_err_sys(err, ENOMEM, "rows");
    rep->n_rows = suite->n_tasks;
    double t0 = now_s();
    rep->lane_up = probe_lane(&opts->lane, &rep->probe);
    int rc = 0;
    if (!rep->lane_up) {
        rc = void_all(suite, &rep->probe, rep->rows);
    } else {
        pool_t p = {
            .next = 0, .rc = 0, .suite = suite, .sub = sub, .opts = opts, .rows = rep->rows};
        pthread_mutex_init(&p.lock, NULL);
        if (jobs > suite->n_tasks)
            jobs = (unsigned)(suite->n_tasks ? suite->n_tasks : 1);
        pthread_t th[ASB_BENCH_MAX_JOBS];
        unsigned started = 0;
        for (; started < jobs; started++)
            if (pthread_create(&th[started], NULL, worker, &p) != 0)
                break;
        if (started == 0)
            worker(&p); /* no thread could start: do the work here, still correct */
        for (unsigned i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        pthread_mutex_destroy(&p.lock);
        rc = p.rc;
    }
    /* A wall-clock timeout while other tasks ran beside it may be theirs, not this task's: a
     * candidate that spins on every CPU it can get starves honest neighbours past their
     * timeout (red-team finding: two honest tasks failed at --jobs 5 and passed at --jobs 1).
     * Such a row, one whose timed-out phase got less than ASB_BENCH_STARVED_CPU_SHARE of a CPU
     * per second, is graded again with nothing else running, so a verdict does not depend on
     * --jobs; a candidate that is slow on its own times out again. */
    if (rc == 0)
        rc = regrade_starved(opts, suite, sub, rep, jobs);
    rep->wall_s = now_s() - t0;
    if (rc < 0) {
        asb_bench_report_free(rep);
        return asb_err_sys(err, ENOMEM, "bench rows");
    }
    if (opts->cancel && atomic_load(opts->cancel)) {
        asb_bench_report_free(rep);
        return asb_err(err, -ECANCELED, "interrupted: no verdicts");
    }
    return 0;
}

void asb_bench_report_free(asb_bench_report_t *rep)
{
    for (size_t i = 0; i < rep->n_rows; i++)
        asb_bench_row_free(&rep->rows[i]);
    free(rep->rows);
    asb_bench_phase_free(&rep->probe);
    memset(rep, 0, sizeof(*rep));
}

json_t *asb_bench_honesty_json(const asb_bench_options_t *opts, const asb_bench_report_t *rep,
                               const char *enforced_profile)
{
    const char *given = opts->evidence_class ? opts->evidence_class : "local_gate";
    const char *enforced = given, *why = "as given";
    bool docker = strcmp(opts->lane.sandbox, "docker") == 0;
    if (!rep->lane_up) {
        enforced = NULL;
        why = "no task ran: the lane could not run, every row is void";
    } else if (strcmp(given, "captured_fixture") == 0) {
        /* Every lane here executed the rows just now (QA finding: native kept the label). */
        enforced = "live_lane";
        why = docker ? "a docker run executes live in the engine; it is never a captured fixture"
                     : "the rows were executed live in this lane; they are not a captured fixture";
    }
    const char *given_profile = strcmp(opts->lane.sandbox, "subprocess") == 0
                                    ? (opts->lane.profile ? opts->lane.profile : "subprocess")
                                    : (opts->lane.profile ? opts->lane.profile : "hardened");
    /* The subprocess lane's candidate runs on the host as the caller: it can read the suite
     * file, oracle and reference included (red-team finding), so the oracle is not held out. */
    bool unsafe = strcmp(opts->lane.sandbox, "subprocess") == 0;
    return json_pack(
        "{s:{s:s, s:s}, s:{s:s, s:s?}, s:{s:s, s:s?, s:b, s:s}, s:b, s:b, s:b, s:s}", "lane",
        "given", opts->lane.sandbox, "enforced", opts->lane.sandbox, "profile", "given",
        given_profile, "enforced", enforced_profile, "evidence_class", "given", given, "enforced",
        enforced, "changed", enforced == NULL || strcmp(enforced, given) != 0, "why", why,
        "lane_ran", rep->lane_up, "unsafe_lane", unsafe, "oracle_hidden", !unsafe, "verdict_from",
        "the grader's proof that check() returned (per-run secret), never candidate output");
}

static json_t *phase_json(const asb_bench_phase_t *ph)
{
    if (!ph->ran)
        return json_null();
    /* exit_code as in the run record: null when the program did not exit on its own; limits as
     * its limits.enforced, null for a sandbox_error. */
    return json_pack("{s:s, s:s, s:s, s:o, s:i, s:b, s:b, s:f, s:f, s:{s:b, s:b}, s:o, s:s?, s:s?}",
                     "backend", ph->backend, "profile", ph->profile, "status",
                     asb_status_name(ph->status), "exit_code",
                     ph->exit_code >= 0 ? json_integer(ph->exit_code) : json_null(), "signal",
                     ph->signal, "oom", ph->out_of_memory, "timeout", ph->timed_out, "duration_s",
                     ph->duration_s, "cpu_time_s", ph->cpu_time_s, "attestation", "present",
                     ph->attestation_present, "valid", ph->attestation_valid, "limits",
                     ph->limits_known ? asb_limits_json(&ph->limits) : json_null(), "error",
                     ph->error, "stderr_tail", ph->stderr_tail);
}

static json_t *row_json(const asb_bench_task_t *t, const asb_bench_row_t *r)
{
    json_t *tags = json_array();
    for (size_t i = 0; tags && i < t->n_tags; i++)
        json_array_append_new(tags, json_string(t->tags[i]));
    return json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:o, s:o, s:o, s:b, s:s?}", "task_id", t->id,
                     "verdict", asb_bench_verdict_name(r->verdict), "score", r->score, "duration_s",
                     r->duration_s, "reason", r->reason ? r->reason : "", "difficulty",
                     t->difficulty, "tags", tags, "candidate", phase_json(&r->candidate), "grader",
                     phase_json(&r->grader), "regraded_alone", r->regraded_alone, "first_reason",
                     r->first_reason);
}

int asb_bench_artifact_json(const asb_bench_suite_t *suite, const asb_bench_options_t *opts,
                            const asb_bench_report_t *rep, char **out, asb_error_t *err)
{
    *out = NULL;
    json_t *rows = json_array();
    for (size_t i = 0; rows && i < rep->n_rows; i++)
        if (json_array_append_new(rows, row_json(&suite->tasks[i], &rep->rows[i])) < 0) {
            json_decref(rows);
            rows = NULL;
        }
    const char *enforced_profile = rep->probe.ran && rep->probe.profile[0] ? rep->probe.profile
                                   : strcmp(opts->lane.sandbox, "subprocess") == 0
                                       ? "subprocess"
                                       : (opts->lane.profile ? opts->lane.profile : "hardened");
    json_t *agg = asb_bench_aggregate_json(suite, rep->rows);
    json_t *hon = asb_bench_honesty_json(opts, rep, enforced_profile);
    json_t *root = json_pack(
        "{s:s, s:{s:s, s:s, s:s?, s:I}, s:s, s:{s:s, s:s?}, s:{s:s, s:s}, s:I, s:f, s:o, s:o?, "
        "s:o?, s:o?}",
        "schema", ARTIFACT_SCHEMA, "suite", "name", suite->name, "format", suite->format, "path",
        opts->suite_path, "tasks", (json_int_t)suite->n_tasks, "mode", "artifact_in", "source",
        "kind", opts->source ? opts->source : "reference", "path", opts->source_path, "lane",
        "sandbox", opts->lane.sandbox, "profile", enforced_profile, "jobs", (json_int_t)rep->jobs,
        "wall_time_s", rep->wall_s, "lane_probe", phase_json(&rep->probe), "honesty", hon,
        "aggregate", agg, "rows", rows);
    if (!root || !agg || !hon || !rows) {
        json_decref(root);
        return asb_err_sys(err, ENOMEM, "artifact");
    }
    *out = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
    json_decref(root);
    return *out ? 0 : asb_err_sys(err, ENOMEM, "artifact");
}
