/* signtest.h - the exact two-sided sign test of H0 "positive and negative differences are equally
 * likely", zeros dropped; equals scipy.stats.binomtest(n_pos, n_pos + n_neg, 0.5).pvalue. */
#ifndef ASB_STATS_SIGNTEST_H
#define ASB_STATS_SIGNTEST_H

#include "agent_sandbox.h"

typedef struct asb_sign_test {
    size_t n_pos, n_neg, n_zero;
    double p_value; /* min(1, 2 P(X <= min(n_pos, n_neg))), X ~ Binomial(n_pos + n_neg, 1/2) */
} asb_sign_test_t;

/* -EINVAL on bad input, -EDOM when every difference is 0. */
int asb_sign_test(const double *d, size_t n, asb_sign_test_t *out, asb_error_t *err);

/* P(X <= k) for X ~ Binomial(n, 1/2); relative error about 1e-13 for n up to 1e5. */
double asb_binom_half_cdf(size_t k, size_t n);

#endif
