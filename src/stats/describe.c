/* describe.c - median, quantiles, mean, sd of one sample. */
#include "stats/describe.h"

#include "core/error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int asb_stats_check_finite(const double *x, size_t n, const char *what, asb_error_t *err)
{
    if (!x || n == 0)
        return asb_err(err, -EINVAL, "%s: no observations", what);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return asb_err(err, -EINVAL, "%s: observation %zu is not a finite number (%g)", what, i,
                           x[i]);
    return 0;
}

static int compare_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

void asb_stats_sort(double *x, size_t n)
{
    if (n > 1)
        qsort(x, n, sizeof(*x), compare_double);
}

/* Linear interpolation between a and b at t in [0, 1], from the nearer end so that t = 1 gives b
 * exactly (numpy does the same, so the last bits agree more often). */
static double lerp(double a, double b, double t)
{
    double diff = b - a;
    return t < 0.5 ? a + diff * t : b - diff * (1.0 - t);
}

double asb_stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    double lo = floor(h);
    size_t i = (size_t)lo;
    if (i + 1 >= n)
        return sorted[n - 1];
    return lerp(sorted[i], sorted[i + 1], h - lo);
}

double asb_stats_median_sorted(const double *sorted, size_t n)
{
    if (n % 2 == 1)
        return sorted[n / 2];
    return (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

int asb_stats_quantile(const double *x, size_t n, double q, double *out, asb_error_t *err)
{
    int rc = asb_stats_check_finite(x, n, "quantile", err);
    if (rc < 0)
        return rc;
    if (!(q >= 0.0 && q <= 1.0))
        return asb_err(err, -EINVAL, "quantile: q = %g is outside [0, 1]", q);
    double *s = malloc(n * sizeof(*s));
    if (!s)
        return asb_err_sys(err, ENOMEM, "quantile: %zu values", n);
    memcpy(s, x, n * sizeof(*s));
    asb_stats_sort(s, n);
    *out = asb_stats_quantile_sorted(s, n, q);
    free(s);
    return 0;
}

int asb_stats_describe(const double *x, size_t n, asb_describe_t *out, asb_error_t *err)
{
    int rc = asb_stats_check_finite(x, n, "describe", err);
    if (rc < 0)
        return rc;
    double *s = malloc(n * sizeof(*s));
    if (!s)
        return asb_err_sys(err, ENOMEM, "describe: %zu values", n);
    memcpy(s, x, n * sizeof(*s));
    asb_stats_sort(s, n);

    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / (double)n;
    /* Two-pass variance: no cancellation when the mean is large against the spread (latencies of
     * 100 ms that vary by microseconds). */
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (s[i] - mean) * (s[i] - mean);

    *out = (asb_describe_t){
        .n = n,
        .mean = mean,
        .median = asb_stats_median_sorted(s, n),
        .min = s[0],
        .max = s[n - 1],
        .p90 = asb_stats_quantile_sorted(s, n, 0.9),
        .sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0,
    };
    free(s);
    return 0;
}
