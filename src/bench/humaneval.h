/* humaneval.h - the HumanEval problem format (JSONL, optionally gzip) imported as a suite:
 * prompt + canonical_solution is the reference, `test` with check(entry_point) the oracle. */
#ifndef ASB_BENCH_HUMANEVAL_H
#define ASB_BENCH_HUMANEVAL_H

#include "bench/suite.h"

/* The candidate module every HumanEval task gets. */
#define ASB_HUMANEVAL_ENTRY_FILE "solution.py"

/* Parse problems, one JSON object per line (task_id, prompt, canonical_solution, test,
 * entry_point); blank lines are skipped. Errors name the line and field. */
int asb_humaneval_parse(char *text, asb_bench_suite_t *suite, asb_error_t *err);

int asb_humaneval_load(const char *path, asb_bench_suite_t *suite, asb_error_t *err);

#endif
