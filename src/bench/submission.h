/* submission.h - the candidate files for each task of a suite: the suite's own references, a
 * directory, a JSON object, or HumanEval samples (JSONL of task_id + completion). */
#ifndef ASB_BENCH_SUBMISSION_H
#define ASB_BENCH_SUBMISSION_H

#include "bench/suite.h"

typedef struct asb_bench_submission {
    asb_bench_files_t *per_task; /* indexed like suite->tasks; n == 0 means none given */
    size_t n_tasks;
    size_t n_given;
} asb_bench_submission_t;

/* The suite's reference solutions as the submission (--reference). */
int asb_bench_submission_reference(const asb_bench_suite_t *suite, asb_bench_submission_t *sub,
                                   asb_error_t *err);

/* Load --submission PATH:
 *  - a directory: DIR/<task id>/<files> (regular files, plain names; symlinks refused);
 *  - *.json: {"<task id>": {"<file>": "<source>", ...} | "<source of entry_file>"};
 *  - *.jsonl / *.jsonl.gz: HumanEval samples, lines {"task_id", "completion"}: the candidate's
 *    entry_file is the task's prompt + completion. One sample per task.
 * Ids the suite does not have are an error (a typo must not silently score 0). */
int asb_bench_submission_load(const asb_bench_suite_t *suite, const char *path,
                              asb_bench_submission_t *sub, asb_error_t *err);

void asb_bench_submission_free(asb_bench_submission_t *sub);

#endif
