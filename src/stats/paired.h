/* paired.h - the paired latency comparison of one profile (x) against the reference (y), round by
 * round: d_i = x_i - y_i. Pure functions over arrays of doubles in whatever unit the caller uses
 * (the verdict prints the unit it is given). See docs/STATISTICS.md for every definition. */
#ifndef ASB_STATS_PAIRED_H
#define ASB_STATS_PAIRED_H

#include "agent_sandbox.h"
#include "stats/describe.h"
#include "stats/signtest.h"
#include "stats/walsh.h"
#include "stats/wilcoxon.h"

typedef struct asb_mde {
    double alpha, power; /* two-sided level and power, e.g. 0.05 and 0.80 */
    double sd;           /* sample sd of the differences (n - 1 denominator) */
    double paired_t;     /* (z_{1-alpha/2} + z_{power}) sd / sqrt(n) */
    double wilcoxon;     /* paired_t * sqrt(pi/3): Wilcoxon's ARE 3/pi at the normal */
} asb_mde_t;

typedef struct asb_paired_opts {
    double conf;                   /* confidence level of the interval (0.95) */
    double alpha, power;           /* for the minimum detectable effect (0.05, 0.80) */
    asb_zero_method_t zero_method; /* for the signed-rank test (ASB_ZERO_WILCOX) */
} asb_paired_opts_t;

typedef struct asb_paired {
    size_t n;
    asb_describe_t x, y, diff; /* the profile, the reference, the differences */
    asb_hl_ci_t hl;            /* Hodges-Lehmann estimate and its signed-rank interval */
    asb_wilcoxon_t wilcoxon;   /* H0: differences symmetric about 0 */
    asb_sign_test_t sign;      /* H0: P(d > 0) = P(d < 0) */
    asb_mde_t mde;
} asb_paired_t;

/* The defaults above. */
asb_paired_opts_t asb_paired_default_opts(void);

/* d[i] = x[i] - y[i] for i < n. */
void asb_paired_differences(const double *x, const double *y, size_t n, double *d);

/* Minimum detectable effect of the paired design with n pairs. -EDOM when n < 2, -EINVAL on bad
 * input or alpha/power outside (0, 1). */
int asb_paired_mde(const double *d, size_t n, double alpha, double power, asb_mde_t *out,
                   asb_error_t *err);

/* Everything above for one pair of profiles; opts may be NULL for the defaults. Needs n >= 2 and
 * at least one nonzero difference (-EDOM otherwise). */
int asb_paired_analyze(const double *x, const double *y, size_t n, const asb_paired_opts_t *opts,
                       asb_paired_t *out, asb_error_t *err);

/* One line, e.g. "hardened - subprocess: +1.8 ms (95% CI +1.2 .. +2.5), p = 3e-9": the
 * Hodges-Lehmann estimate, its interval (labelled with the achieved level when the exact
 * distribution cannot reach the requested one) and the signed-rank p-value. Decimals follow the
 * interval's width. -ENOSPC (and a truncated line) when buf is too small. */
int asb_paired_verdict(const asb_paired_t *p, const char *profile, const char *reference,
                       const char *unit, char *buf, size_t size, asb_error_t *err);

/* A p-value the way the verdict writes it: "0.42", "0.0031", "3e-9", "< 1e-300". */
void asb_format_p_value(double p, char *buf, size_t size);

#endif
