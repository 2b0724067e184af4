/* walsh.h - the Hodges-Lehmann estimate of the pseudo-median of the differences and the Wilcoxon
 * signed-rank confidence interval for it, both from the sorted Walsh averages (d_i + d_j) / 2,
 * i <= j. Sorting n(n+1)/2 values costs O(n^2 log n) time and n(n+1)/2 doubles of memory, so n is
 * capped at ASB_STATS_MAX_WALSH_N (2000: 16 MB); a latency study has about 100. */
#ifndef ASB_STATS_WALSH_H
#define ASB_STATS_WALSH_H

#include "agent_sandbox.h"
#include "stats/wilcoxon.h"

typedef struct asb_hl_ci {
    size_t n;                  /* differences, zeros included */
    size_t n_walsh;            /* M = n(n+1)/2 */
    bool ties;                 /* some difference value occurs more than once */
    double estimate;           /* Hodges-Lehmann: median of the M Walsh averages */
    double lo, hi;             /* A_(k) and A_(M-k+1), A sorted ascending, 1-based */
    size_t k;                  /* the order statistic used; 1 means [min d, max d] */
    double conf_level;         /* requested, e.g. 0.95 */
    double conf_achieved;      /* 1 - 2 P(W+ <= k-1): exact, or its normal approximation */
    asb_stats_method_t method; /* EXACT iff n <= ASB_STATS_EXACT_MAX_N and no ties */
} asb_hl_ci_t;

/* Median of the Walsh averages. -EINVAL on bad input, -E2BIG for n > ASB_STATS_MAX_WALSH_N. */
int asb_hodges_lehmann(const double *d, size_t n, double *estimate, asb_error_t *err);

/* Estimate and two-sided confidence interval at level conf (0 < conf < 1). When the exact
 * distribution cannot reach conf (n <= 5 at 95%), k = 1 and conf_achieved < conf_level: the
 * caller must show the achieved level. */
int asb_wilcoxon_ci(const double *d, size_t n, double conf, asb_hl_ci_t *out, asb_error_t *err);

#endif
