/* grade.h - one task in one lane: run the candidate, kill it, then grade it with the held-out
 * oracle in a fresh sandbox of the same lane. The verdict comes from the grader's proof that it
 * reached the end of the oracle, never from what the candidate printed or wrote. */
#ifndef ASB_BENCH_GRADE_H
#define ASB_BENCH_GRADE_H

#include "agent_sandbox.h"
#include "bench/suite.h"

typedef enum asb_bench_verdict {
    ASB_BENCH_PASS = 0,
    ASB_BENCH_FAIL,
    ASB_BENCH_VOID,  /* the lane could not run: not scored */
    ASB_BENCH_ERROR, /* the harness or sandbox failed after the lane was up: scored, not passed */
} asb_bench_verdict_t;

const char *asb_bench_verdict_name(asb_bench_verdict_t v);

/* A lane: how every sandbox of a bench run is configured. */
typedef struct asb_bench_lane {
    const char *sandbox; /* "subprocess", "native", "docker" */
    const char *profile; /* native/docker: "baseline" or "hardened"; subprocess: ignored */
    const char *docker_image;
    const char *python; /* interpreter inside the lane; NULL = /usr/bin/python3 */
} asb_bench_lane_t;

/* What one sandbox run of a phase reported (the row's copy of the result record). */
typedef struct asb_bench_phase {
    bool ran; /* asb_run was called */
    bool ok;  /* asb_run returned 0 */
    char backend[16], profile[32];
    asb_status_t status;
    int exit_code, signal;
    bool timed_out, out_of_memory, stdout_truncated;
    double duration_s, cpu_time_s;
    bool attestation_present, attestation_valid;
    /* The limits the run enforced (its record's limits.enforced); none for a sandbox_error. Two
     * artifacts of one lane may rest on different limits (a task's own, --profile's): the row
     * says which (QA observation). */
    bool limits_known;
    asb_limits_t limits;
    char *error;       /* sandbox error, when !ok */
    char *stderr_tail; /* last non-empty stderr line, printable ASCII */
} asb_bench_phase_t;

typedef struct asb_bench_row {
    asb_bench_verdict_t verdict;
    double score;
    double duration_s;
    char *reason;
    asb_bench_phase_t candidate, grader;
    /* Timed out while other tasks ran beside it (--jobs > 1), so graded again with nothing
     * else running; this row is that second grading. first_reason: the first one's reason. */
    bool regraded_alone;
    char *first_reason;
} asb_bench_row_t;

/* Configure cfg (which the caller zeroed) for the lane. */
void asb_bench_lane_config(const asb_bench_lane_t *lane, asb_config_t *cfg);

/* Grade one task. cand NULL or empty: no submission (fail, nothing runs). Always fills row;
 * returns 0, or a negative code only when row could not be allocated. */
int asb_bench_grade_task(const asb_bench_lane_t *lane, const asb_bench_task_t *task,
                         const asb_bench_files_t *cand, asb_bench_row_t *row);

void asb_bench_row_free(asb_bench_row_t *row);

/* Bytes [start, end) of data as printable ASCII (anything else, the double quote and the backslash
 * become '?'), at most the last 300 of them; malloc'd, NULL when out of memory. */
char *asb_bench_printable(const unsigned char *data, size_t start, size_t end);

/* The first line of data that names an error (holds "rror": "Fatal Python error: ...",
 * "ModuleNotFoundError: ..."), printable as above, or NULL when none does. */
char *asb_bench_error_line(const unsigned char *data, size_t len);

/* The grader's proof that check() returned: its stdout holds the line "\n"
 * ASB_BENCH_COMPLETE_MARK secret "\n" (grader_driver.h), secret being this run's 32 random hex
 * chars, which only the grader's parent process held. A mark with another secret, none, or
 * without its newlines proves nothing; nor does any mark when secret is NULL or empty. */
bool asb_bench_proved_complete(const unsigned char *data, size_t len, const char *secret);

/* Copy a result into a phase record (for the lane probe too). */
void asb_bench_phase_record(asb_bench_phase_t *ph, int rc, const asb_result_t *res,
                            const asb_error_t *err);
void asb_bench_phase_free(asb_bench_phase_t *ph);

#endif
