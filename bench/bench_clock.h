/* bench_clock.h - the monotonic clock, the median and the shuffled round order every benchmark
 * here uses. */
#ifndef ASB_BENCH_CLOCK_H
#define ASB_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v in place. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* order = 0..n-1 in a fresh random order (Fisher-Yates over rand(); the caller seeds it). */
static inline void shuffled(int *order, int n)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = rand() % (i + 1), tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
}

#endif
