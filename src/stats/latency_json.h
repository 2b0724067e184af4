/* latency_json.h - the whole latency study as JSON, for the --out file. */
#ifndef ASB_STATS_LATENCY_JSON_H
#define ASB_STATS_LATENCY_JSON_H

#include "stats/latency_study.h"

#include <jansson.h>

#define ASB_LATENCY_JSON_SCHEMA "agent-sandbox/latency/1"

/* Options, host, every round with every run (timings in ms, status, exit code, error), and, when
 * the study was analyzed, per-arm and per-pair statistics. New reference; NULL when out of
 * memory. */
json_t *asb_latency_json(const asb_latency_study_t *s);

#endif
