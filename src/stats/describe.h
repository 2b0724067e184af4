/* describe.h - summary statistics of one sample (one profile's wall times, or the differences). */
#ifndef ASB_STATS_DESCRIBE_H
#define ASB_STATS_DESCRIBE_H

#include "agent_sandbox.h"

typedef struct asb_describe {
    size_t n;
    double mean;   /* arithmetic mean */
    double median; /* middle value; mean of the two middle values when n is even */
    double min, max;
    double p90; /* asb_stats_quantile(x, n, 0.9) */
    double sd;  /* sample standard deviation (n - 1 denominator); 0 when n == 1 */
} asb_describe_t;

/* Fails with -EINVAL on NULL, n == 0 or a non-finite value (NaN, inf). */
int asb_stats_check_finite(const double *x, size_t n, const char *what, asb_error_t *err);

/* The q-quantile (0 <= q <= 1) of x, numpy's default "linear" definition (Hyndman & Fan type 7):
 * with x sorted ascending, h = (n - 1) q, result = x[floor h] + (h - floor h)(x[floor h + 1] -
 * x[floor h]). x is not modified (a sorted copy is made). */
int asb_stats_quantile(const double *x, size_t n, double q, double *out, asb_error_t *err);

/* Same on an already sorted array; no allocation, no checks. */
double asb_stats_quantile_sorted(const double *sorted, size_t n, double q);
double asb_stats_median_sorted(const double *sorted, size_t n);

/* Sort ascending in place (total order on finite doubles). */
void asb_stats_sort(double *x, size_t n);

int asb_stats_describe(const double *x, size_t n, asb_describe_t *out, asb_error_t *err);

#endif
