/* latency_svg.h - a latency study as one self-contained SVG image: per-arm strip and box plot of
 * the wall times, and the paired differences against the reference with their confidence
 * intervals around a zero line. Plain text, no plotting library. */
#ifndef ASB_STATS_LATENCY_SVG_H
#define ASB_STATS_LATENCY_SVG_H

#include "stats/latency_study.h"

/* Axis ticks for [lo, hi]: "nice" values (1, 2, 5 x 10^k on a linear axis; 1-2-5 or finer
 * mantissas per decade on a log axis) inside the range. Returns the count written (<= max). */
size_t asb_svg_linear_ticks(double lo, double hi, double *ticks, size_t max);
size_t asb_svg_log_ticks(double lo, double hi, double *ticks, size_t max);

/* The image, for an analyzed study. *svg is malloc'd and NUL-terminated; *len without the NUL.
 * -EINVAL when the study has not been analyzed, -ENOMEM. */
int asb_latency_svg(const asb_latency_study_t *s, char **svg, size_t *len, asb_error_t *err);

#endif
