/* walsh.c - Walsh averages, Hodges-Lehmann estimate, signed-rank confidence interval.
 *
 * Why the interval is [A_(k), A_(M-k+1)]: for a shift mu, W+(d - mu) is the number of Walsh
 * averages above mu. The test at level 1 - conf keeps mu while c < W+ < M - c, where c is the
 * largest value with P(W+ <= c) <= (1 - conf)/2; with k = c + 1 that is A_(k) <= mu < A_(M-k+1).
 * d - mu has a zero or a new tie in |d - mu| only at the finitely many mu equal to some d_i or
 * some Walsh average, so the interval needs no zero handling; what persists for every mu are ties
 * among equal d values, and those are what the normal approximation's variance corrects for. */
#include "stats/walsh.h"

#include "core/error.h"
#include "core/limits.h"
#include "stats/describe.h"
#include "stats/normal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorted Walsh averages of d (n(n+1)/2 of them), malloc'd into *out. */
static int sorted_walsh(const double *d, size_t n, double **out, size_t *m, asb_error_t *err)
{
    int rc = asb_stats_check_finite(d, n, "walsh averages", err);
    if (rc < 0)
        return rc;
    if (n > ASB_STATS_MAX_WALSH_N)
        return asb_err(err, -E2BIG, "walsh averages: n = %zu is above the limit of %d", n,
                       ASB_STATS_MAX_WALSH_N);
    size_t count = n * (n + 1) / 2;
    double *a = malloc(count * sizeof(*a));
    if (!a)
        return asb_err_sys(err, ENOMEM, "walsh averages: %zu values", count);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            a[w++] = (d[i] + d[j]) / 2.0;
    asb_stats_sort(a, count);
    *out = a;
    *m = count;
    return 0;
}

int asb_hodges_lehmann(const double *d, size_t n, double *estimate, asb_error_t *err)
{
    double *a = NULL;
    size_t m = 0;
    int rc = sorted_walsh(d, n, &a, &m, err);
    if (rc < 0)
        return rc;
    *estimate = asb_stats_median_sorted(a, m);
    free(a);
    return 0;
}

/* Groups of equal values among the differences: sum of t^3 - t over groups. */
static int value_tie_term(const double *d, size_t n, double *term, asb_error_t *err)
{
    double *s = malloc(n * sizeof(*s));
    if (!s)
        return asb_err_sys(err, ENOMEM, "confidence interval: %zu values", n);
    memcpy(s, d, n * sizeof(*s));
    asb_stats_sort(s, n);
    double sum = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s[j] == s[i])
            j++;
        double t = (double)(j - i);
        sum += t * t * t - t;
        i = j;
    }
    free(s);
    *term = sum;
    return 0;
}

/* k from the exact distribution: one more than the largest c with P(W+ <= c) <= alpha/2. */
static int exact_k(size_t n, double alpha, size_t *k, double *achieved, asb_error_t *err)
{
    size_t m = n * (n + 1) / 2;
    double *pmf = calloc(m + 1, sizeof(*pmf));
    if (!pmf)
        return asb_err_sys(err, ENOMEM, "confidence interval: exact distribution, n = %zu", n);
    asb_signrank_pmf(n, pmf);
    double cdf = 0.0, cdf_below_k = 0.0; /* P(W+ <= k-1) */
    size_t kk = 0;
    for (size_t c = 0; c <= m; c++) {
        cdf += pmf[c];
        if (cdf > alpha / 2.0)
            break;
        kk = c + 1;
        cdf_below_k = cdf;
    }
    if (kk == 0) { /* even [min, max] misses the level: P(W+ = 0) = 2^-n > alpha/2 */
        kk = 1;
        cdf_below_k = pmf[0];
    }
    free(pmf);
    *k = kk;
    *achieved = 1.0 - 2.0 * cdf_below_k;
    return 0;
}

int asb_wilcoxon_ci(const double *d, size_t n, double conf, asb_hl_ci_t *out, asb_error_t *err)
{
    if (!(conf > 0.0 && conf < 1.0))
        return asb_err(err, -EINVAL, "confidence interval: level %g is outside (0, 1)", conf);
    double *a = NULL;
    size_t m = 0;
    int rc = sorted_walsh(d, n, &a, &m, err);
    if (rc < 0)
        return rc;
    double tie_term = 0.0;
    rc = value_tie_term(d, n, &tie_term, err);
    if (rc < 0)
        goto out;

    double alpha = 1.0 - conf;
    bool ties = tie_term > 0.0;
    size_t k = 1;
    double achieved = 0.0;
    asb_stats_method_t method;
    if (n <= ASB_STATS_EXACT_MAX_N && !ties) {
        method = ASB_STATS_EXACT;
        rc = exact_k(n, alpha, &k, &achieved, err);
        if (rc < 0)
            goto out;
    } else {
        method = ASB_STATS_NORMAL;
        double nn = (double)n;
        double mean = nn * (nn + 1.0) / 4.0;
        double sd = sqrt((nn * (nn + 1.0) * (2.0 * nn + 1.0) - 0.5 * tie_term) / 24.0);
        double c = floor(mean - asb_norm_quantile(1.0 - alpha / 2.0) * sd);
        k = c < 0.0 ? 1 : (size_t)c + 1;
        achieved = 1.0 - 2.0 * asb_norm_cdf(((double)k - 1.0 - mean) / sd);
    }
    if (k > (m + 1) / 2) /* only for conf near 0: keep lo <= hi */
        k = (m + 1) / 2;

    *out = (asb_hl_ci_t){
        .n = n,
        .n_walsh = m,
        .ties = ties,
        .estimate = asb_stats_median_sorted(a, m),
        .lo = a[k - 1],
        .hi = a[m - k],
        .k = k,
        .conf_level = conf,
        .conf_achieved = achieved,
        .method = method,
    };
out:
    free(a);
    return rc;
}
