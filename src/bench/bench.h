/* bench.h - run a suite's tasks in one lane with bounded parallelism and write the artifact. */
#ifndef ASB_BENCH_BENCH_H
#define ASB_BENCH_BENCH_H

#include "bench/grade.h"
#include "bench/submission.h"
#include "bench/suite.h"

#include <jansson.h>
#include <stdatomic.h>

#define ASB_BENCH_MAX_JOBS 64
/* At most this many timed-out rows are graded again alone per run (bench.c): a submission of
 * candidates that all time out cannot make --jobs cost N timeouts in a row. */
#define ASB_BENCH_MAX_REGRADES 16
/* A timed-out phase that got less CPU than this, per second of its wall clock, was starved by
 * its neighbours (or waited on nothing); one that spun at least this much timed out on its own. */
#define ASB_BENCH_STARVED_CPU_SHARE 0.8
/* A timed-out phase that used less CPU than ASB_BENCH_IDLE_CPU_S plus this share of its wall
 * clock, and less than a quarter of what a task starved by its neighbours still gets (CPUs /
 * jobs), was waiting, not starved, and is not graded again (bench.c): the seconds cover
 * starting the interpreter. */
#define ASB_BENCH_IDLE_CPU_SHARE 0.02
#define ASB_BENCH_IDLE_CPU_S 0.1
#define ASB_BENCH_PROBE_TIMEOUT_S 30.0

typedef struct asb_bench_options {
    asb_bench_lane_t lane;
    const char
        *evidence_class;     /* "local_gate", "live_lane", "captured_fixture"; NULL = local_gate */
    unsigned jobs;           /* 0 = 1 */
    const char *source;      /* "reference" or "submission" */
    const char *source_path; /* the submission given, NULL for references */
    const char *suite_path;
    /* Optional: once set, no further task is graded (the rows not graded stay void with
     * "not graded: interrupted") and asb_bench_run returns -ECANCELED after the tasks in
     * progress have removed their staged files. */
    const atomic_bool *cancel;
} asb_bench_options_t;

typedef struct asb_bench_report {
    asb_bench_row_t *rows; /* indexed like suite->tasks */
    size_t n_rows;
    asb_bench_phase_t probe; /* the lane probe: one trivial run before any task */
    bool lane_up;
    double wall_s;
    unsigned jobs;
} asb_bench_report_t;

/* True for the three evidence classes. */
bool asb_bench_valid_evidence_class(const char *ec);

/* Probe the lane, then grade every task (each row independent of the others and of jobs). When
 * the probe fails every row is void with the probe's reason and nothing else runs: a lane that
 * cannot run is never replaced by another. Returns 0, or a negative code for bad options or
 * allocation failure. */
int asb_bench_run(const asb_bench_suite_t *suite, const asb_bench_submission_t *sub,
                  const asb_bench_options_t *opts, asb_bench_report_t *rep, asb_error_t *err);

void asb_bench_report_free(asb_bench_report_t *rep);

/* The honesty block: lane, profile and evidence class as given and as enforced. */
json_t *asb_bench_honesty_json(const asb_bench_options_t *opts, const asb_bench_report_t *rep,
                               const char *enforced_profile);

/* The whole artifact as JSON text (malloc'd). */
int asb_bench_artifact_json(const asb_bench_suite_t *suite, const asb_bench_options_t *opts,
                            const asb_bench_report_t *rep, char **json, asb_error_t *err);

#endif
