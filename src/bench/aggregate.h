/* aggregate.h - rollups of bench rows: totals, pass rate over scored rows only, by tag and by
 * difficulty. Pure: no I/O, so the arithmetic is unit-tested on made-up rows. */
#ifndef ASB_BENCH_AGGREGATE_H
#define ASB_BENCH_AGGREGATE_H

#include "bench/grade.h"
#include "bench/suite.h"

#include <jansson.h>

typedef struct asb_bench_tally {
    size_t count, scored, voided, passed, failed, errors;
    double score_sum;
} asb_bench_tally_t;

void asb_bench_tally_add(asb_bench_tally_t *t, const asb_bench_row_t *row);

/* {"count", "scored", "void", "passed", "failed", "error", "pass_rate", "mean_score"}; the rates
 * are over scored rows (pass + fail + error) and null when nothing was scored: a lane that could
 * not run reads as "no evidence", never as 0%. */
json_t *asb_bench_tally_json(const asb_bench_tally_t *t);

/* The tally plus "by_tag" and "by_difficulty" objects of tallies. rows[i] belongs to
 * suite->tasks[i]. NULL on allocation failure. */
json_t *asb_bench_aggregate_json(const asb_bench_suite_t *suite, const asb_bench_row_t *rows);

#endif
