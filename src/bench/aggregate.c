/* aggregate.c - totals and rollups of bench rows. */
#include "bench/aggregate.h"

#include <stdlib.h>
#include <string.h>

void asb_bench_tally_add(asb_bench_tally_t *t, const asb_bench_row_t *row)
{
    t->count++;
    switch (row->verdict) {
    case ASB_BENCH_VOID:
        t->voided++;
        return; /* not scored: the lane, not the candidate, is what failed */
    case ASB_BENCH_PASS:
        t->passed++;
        break;
    case ASB_BENCH_FAIL:
        t->failed++;
        break;
    case ASB_BENCH_ERROR:
        t->errors++;
        break;
    }
    t->scored++;
    t->score_sum += row->score;
}

json_t *asb_bench_tally_json(const asb_bench_tally_t *t)
{
    json_t *rate = t->scored ? json_real((double)t->passed / (double)t->scored) : json_null();
    json_t *mean = t->scored ? json_real(t->score_sum / (double)t->scored) : json_null();
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}", "count", (json_int_t)t->count,
                     "scored", (json_int_t)t->scored, "void", (json_int_t)t->voided, "passed",
                     (json_int_t)t->passed, "failed", (json_int_t)t->failed, "error",
                     (json_int_t)t->errors, "pass_rate", rate, "mean_score", mean);
}

/* Add row to the tally stored under key in obj (created on first use). The tallies live in a
 * side array indexed by insertion order, found through an integer stored in obj. */
typedef struct rollup {
    json_t *index; /* key -> integer slot */
    asb_bench_tally_t *slots;
    size_t n;
} rollup_t;

static int rollup_add(rollup_t *r, const char *key, const asb_bench_row_t *row)
{
    json_t *slot = json_object_get(r->index, key);
    size_t i;
    if (slot) {
        i = (size_t)json_integer_value(slot);
    } else {
        asb_bench_tally_t *ns = realloc(r->slots, (r->n + 1) * sizeof(*ns));
        if (!ns)
            return -1;
        r->slots = ns;
        i = r->n++;
        memset(&r->slots[i], 0, sizeof(r->slots[i]));
        if (json_object_set_new(r->index, key, json_integer((json_int_t)i)) < 0)
            return -1;
    }
    asb_bench_tally_add(&r->slots[i], row);
    return 0;
}

static json_t *rollup_json(rollup_t *r)
{
    json_t *out = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(r->index, key, v)
    {
        json_t *t = asb_bench_tally_json(&r->slots[json_integer_value(v)]);
        if (!out || !t || json_object_set_new(out, key, t) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

json_t *asb_bench_aggregate_json(const asb_bench_suite_t *suite, const asb_bench_row_t *rows)
{
    asb_bench_tally_t all = {0};
    rollup_t tags = {json_object(), NULL, 0}, diff = {json_object(), NULL, 0};
    json_t *out = NULL;
    int rc = tags.index && diff.index ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < suite->n_tasks; i++) {
        const asb_bench_task_t *t = &suite->tasks[i];
        asb_bench_tally_add(&all, &rows[i]);
        rc = rollup_add(&diff, t->difficulty, &rows[i]);
        for (size_t j = 0; rc == 0 && j < t->n_tags; j++)
            rc = rollup_add(&tags, t->tags[j], &rows[i]);
    }
    if (rc == 0 && (out = asb_bench_tally_json(&all)) != NULL) {
        json_t *bt = rollup_json(&tags), *bd = rollup_json(&diff);
        if (!bt || !bd) {
            json_decref(bt);
            json_decref(bd);
            json_decref(out);
            out = NULL;
        } else if (json_object_set_new(out, "by_tag", bt) < 0 ||
                   json_object_set_new(out, "by_difficulty", bd) < 0) {
            json_decref(out);
            out = NULL;
        }
    }
    json_decref(tags.index);
    json_decref(diff.index);
    free(tags.slots);
    free(diff.slots);
    return out;
}
