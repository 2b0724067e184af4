/* wilcoxon.h - the Wilcoxon signed-rank test of H0 "the differences are symmetric about 0",
 * two-sided, with scipy.stats.wilcoxon's conventions (correction=False, zero_method 'wilcox' or
 * 'pratt'). See docs/STATISTICS.md. */
#ifndef ASB_STATS_WILCOXON_H
#define ASB_STATS_WILCOXON_H

#include "agent_sandbox.h"

typedef enum asb_zero_method {
    ASB_ZERO_WILCOX = 0, /* drop zero differences, rank the rest (scipy's default) */
    ASB_ZERO_PRATT,      /* rank zeros with the rest, then drop their ranks (Pratt 1959) */
} asb_zero_method_t;

typedef enum asb_stats_method {
    ASB_STATS_EXACT = 1,  /* exact null distribution of W+ (dynamic programming) */
    ASB_STATS_NORMAL = 2, /* normal approximation, tie-corrected variance, no continuity corr. */
} asb_stats_method_t;

const char *asb_stats_method_name(asb_stats_method_t method); /* "exact", "normal" */
const char *asb_zero_method_name(asb_zero_method_t zm);       /* "wilcox", "pratt" */

typedef struct asb_wilcoxon {
    size_t n;        /* differences given */
    size_t n_zero;   /* of which exactly 0 */
    size_t n_ranked; /* ranked: n - n_zero for wilcox, n for pratt */
    bool ties;       /* some nonzero |d| occur more than once */
    asb_zero_method_t zero_method;
    asb_stats_method_t method; /* EXACT iff n <= ASB_STATS_EXACT_MAX_N, no zeros, no ties */
    double w_plus;             /* sum of the (mid)ranks of positive differences */
    double w_minus;            /* ... of negative differences */
    double statistic;          /* min(w_plus, w_minus): what scipy returns as the statistic */
    double z;                  /* (w_plus - E W+) / sd W+ under H0 when NORMAL; NAN when EXACT */
    double p_value;            /* two-sided */
} asb_wilcoxon_t;

/* Fails with -EINVAL on NULL / empty / non-finite input, -EDOM when every difference is 0. */
int asb_wilcoxon_test(const double *d, size_t n, asb_zero_method_t zero_method, asb_wilcoxon_t *out,
                      asb_error_t *err);

/* The exact null distribution of W+ for n untied nonzero differences: pmf[w] = P(W+ = w) for
 * w = 0 .. n(n+1)/2; pmf must hold n(n+1)/2 + 1 doubles. Exact in double arithmetic for n <= 50
 * (every probability is count / 2^n with count < 2^53). */
void asb_signrank_pmf(size_t n, double *pmf);

#endif
