/* wilcoxon.c - signed ranks, W+, and its two-sided p-value (exact or normal approximation). */
#include "stats/wilcoxon.h"

#include "core/error.h"
#include "core/limits.h"
#include "stats/describe.h"
#include "stats/normal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

const char *asb_stats_method_name(asb_stats_method_t method)
{
    switch (method) {
    case ASB_STATS_EXACT:
        return "exact";
    case ASB_STATS_NORMAL:
        return "normal";
    }
    return "unknown";
}

const char *asb_zero_method_name(asb_zero_method_t zm)
{
    switch (zm) {
    case ASB_ZERO_WILCOX:
        return "wilcox";
    case ASB_ZERO_PRATT:
        return "pratt";
    }
    return "unknown";
}

void asb_signrank_pmf(size_t n, double *pmf)
{
    /* Adding rank k to the set of possible ranks: W+ either keeps its value (rank k negative) or
     * grows by k (rank k positive), each with probability 1/2. In place, from the top down. */
    size_t top = 0;
    pmf[0] = 1.0;
    for (size_t k = 1; k <= n; k++) {
        size_t new_top = top + k;
        for (size_t w = top + 1; w <= new_top; w++)
            pmf[w] = 0.0;
        for (size_t w = new_top; w >= k; w--)
            pmf[w] = 0.5 * pmf[w] + 0.5 * pmf[w - k];
        for (size_t w = 0; w < k && w <= new_top; w++)
            pmf[w] *= 0.5;
        top = new_top;
    }
}

typedef struct ranked {
    double abs; /* |d| */
    int sign;   /* -1, 0, +1 */
} ranked_t;

static int compare_abs(const void *pa, const void *pb)
{
    double a = ((const ranked_t *)pa)->abs, b = ((const ranked_t *)pb)->abs;
    return (a > b) - (a < b);
}

static double exact_p_value(size_t count, double w_plus, asb_error_t *err, int *rc)
{
    size_t m = count * (count + 1) / 2;
    double *pmf = calloc(m + 1, sizeof(*pmf));
    if (!pmf) {
        *rc = asb_err_sys(err, ENOMEM, "wilcoxon: exact distribution for n = %zu", count);
        return NAN;
    }
    asb_signrank_pmf(count, pmf);
    size_t r = (size_t)w_plus; /* an integer: no ties, so ranks are 1..count */
    double p_le = 0.0, p_ge = 0.0;
    for (size_t w = 0; w <= r; w++)
        p_le += pmf[w];
    for (size_t w = r; w <= m; w++)
        p_ge += pmf[w];
    free(pmf);
    double p = 2.0 * fmin(p_le, p_ge);
    *rc = 0;
    return fmin(p, 1.0);
}

int asb_wilcoxon_test(const double *d, size_t n, asb_zero_method_t zero_method, asb_wilcoxon_t *out,
                      asb_error_t *err)
{
    int rc = asb_stats_check_finite(d, n, "wilcoxon", err);
    if (rc < 0)
        return rc;
    if (zero_method != ASB_ZERO_WILCOX && zero_method != ASB_ZERO_PRATT)
        return asb_err(err, -EINVAL, "wilcoxon: unknown zero method %d", (int)zero_method);

    size_t n_zero = 0;
    for (size_t i = 0; i < n; i++)
        n_zero += d[i] == 0.0;
    if (n_zero == n)
        return asb_err(err, -EDOM, "wilcoxon: all %zu differences are zero", n);

    ranked_t *v = malloc(n * sizeof(*v));
    if (!v)
        return asb_err_sys(err, ENOMEM, "wilcoxon: %zu differences", n);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == 0.0 && zero_method == ASB_ZERO_WILCOX)
            continue;
        v[count++] = (ranked_t){fabs(d[i]), (d[i] > 0.0) - (d[i] < 0.0)};
    }
    qsort(v, count, sizeof(*v), compare_abs);

    /* Midranks over runs of equal |d|. The tie term sum(t^3 - t) counts only runs of nonzero |d|:
     * under Pratt the zeros' ranks are dropped before the correction (as scipy does). */
    double w_plus = 0.0, w_minus = 0.0, tie_term = 0.0;
    bool ties = false;
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (j < count && v[j].abs == v[i].abs)
            j++;
        double midrank = ((double)(i + 1) + (double)j) / 2.0; /* ranks i+1 .. j */
        double t = (double)(j - i);
        for (size_t k = i; k < j; k++) {
            if (v[k].sign > 0)
                w_plus += midrank;
            else if (v[k].sign < 0)
                w_minus += midrank;
        }
        if (j - i > 1 && v[i].abs != 0.0) {
            ties = true;
            tie_term += t * t * t - t;
        }
        i = j;
    }
    free(v);

    *out = (asb_wilcoxon_t){
        .n = n,
        .n_zero = n_zero,
        .n_ranked = count,
        .ties = ties,
        .zero_method = zero_method,
        .w_plus = w_plus,
        .w_minus = w_minus,
        .statistic = fmin(w_plus, w_minus),
        .z = NAN,
    };
    if (n <= ASB_STATS_EXACT_MAX_N && n_zero == 0 && !ties) {
        out->method = ASB_STATS_EXACT;
        out->p_value = exact_p_value(count, w_plus, err, &rc);
        return rc;
    }

    double c = (double)count, nz = (double)n_zero;
    double mean = c * (c + 1.0) / 4.0;
    double var24 = c * (c + 1.0) * (2.0 * c + 1.0) - 0.5 * tie_term;
    if (zero_method == ASB_ZERO_PRATT) {
        /* Cureton (1967): the zeros' ranks 1..n_zero are excluded from W+ and W-. */
        mean -= nz * (nz + 1.0) / 4.0;
        var24 -= nz * (nz + 1.0) * (2.0 * nz + 1.0);
    }
    double sd = sqrt(var24 / 24.0);
    out->method = ASB_STATS_NORMAL;
    out->z = (w_plus - mean) / sd;
    out->p_value = fmin(1.0, 2.0 * asb_norm_sf(fabs(out->z)));
    return 0;
}
