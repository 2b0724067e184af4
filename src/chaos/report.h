/* report.h - the matrix as text (cells, evidence, per-profile summary, cells that differed across
 * repetitions) and as JSON (every run with its result record, plus host facts). */
#ifndef ASB_CHAOS_REPORT_H
#define ASB_CHAOS_REPORT_H

#include "chaos/runner.h"

#include <stdio.h>

typedef struct asb_chaos_matrix_view {
    const asb_chaos_attack_t *const *attacks;
    size_t n_attacks;
    const asb_chaos_target_t *targets;
    size_t n_targets;
    const asb_chaos_run_t *runs;
    size_t n_runs;
    int repeat, jobs;
    double wall_s;
} asb_chaos_matrix_view_t;

/* A cell's verdict over its repetitions: succeeded if any run succeeded (a defence that fails
 * sometimes fails), else error if any errored, else blocked if any blocked, else n/a. */
asb_chaos_verdict_t asb_chaos_cell(const asb_chaos_matrix_view_t *m, size_t attack, size_t target,
                                   bool *differed);

void asb_chaos_print(FILE *f, const asb_chaos_matrix_view_t *m);

/* JSON text, malloc'd. */
int asb_chaos_json(const asb_chaos_matrix_view_t *m, char **out, asb_error_t *err);

/* Count of error verdicts over all runs. */
size_t asb_chaos_errors(const asb_chaos_matrix_view_t *m);

#endif
