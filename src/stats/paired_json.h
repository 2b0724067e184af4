/* paired_json.h - a paired comparison as JSON, for the latency command's --out file. */
#ifndef ASB_STATS_PAIRED_JSON_H
#define ASB_STATS_PAIRED_JSON_H

#include "stats/paired.h"

#include <jansson.h>

/* Every field of p, named as in docs/STATISTICS.md; non-finite numbers (z of an exact test)
 * become null. New reference, NULL on allocation failure. */
json_t *asb_paired_json(const asb_paired_t *p);

json_t *asb_describe_json(const asb_describe_t *d);

#endif
