/* signtest.c - exact binomial sign test. */
#include "stats/signtest.h"

#include "core/error.h"
#include "stats/describe.h"

#include <errno.h>
#include <math.h>

double asb_binom_half_cdf(size_t k, size_t n)
{
    if (k >= n)
        return 1.0;
    /* Below the mode the terms grow with i, so sum down from the largest, C(n,k)/2^n (taken in
     * logs: 2^-n underflows past n = 1074), via C(n,i-1) = C(n,i) i / (n-i+1), and stop once
     * the terms no longer change the sum. Above the mode use the complement by symmetry. */
    if (2 * k >= n)
        return 1.0 - asb_binom_half_cdf(n - k - 1, n);
    double nn = (double)n, kk = (double)k;
    double log_top = lgamma(nn + 1.0) - lgamma(kk + 1.0) - lgamma(nn - kk + 1.0) - nn * log(2.0);
    double term = 1.0, sum = 0.0;
    for (size_t i = k + 1; i-- > 0;) {
        sum += term;
        if (term < sum * 1e-17)
            break;
        term *= (double)i / (nn - (double)i + 1.0);
    }
    return exp(log_top) * sum;
}

int asb_sign_test(const double *d, size_t n, asb_sign_test_t *out, asb_error_t *err)
{
    int rc = asb_stats_check_finite(d, n, "sign test", err);
    if (rc < 0)
        return rc;
    size_t pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) {
        pos += d[i] > 0.0;
        neg += d[i] < 0.0;
    }
    if (pos + neg == 0)
        return asb_err(err, -EDOM, "sign test: all %zu differences are zero", n);
    double p = 1.0;
    if (pos != neg)
        p = fmin(1.0, 2.0 * asb_binom_half_cdf(pos < neg ? pos : neg, pos + neg));
    *out = (asb_sign_test_t){.n_pos = pos, .n_neg = neg, .n_zero = n - pos - neg, .p_value = p};
    return 0;
}
