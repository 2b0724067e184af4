/* paired.c - paired differences, minimum detectable effect, the full comparison and its verdict. */
#include "stats/paired.h"

#include "core/error.h"
#include "core/limits.h"
#include "stats/normal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pi/3: the inverse of Wilcoxon's asymptotic relative efficiency against t at the normal. */
#define PI_OVER_3 1.04719755119659774615

asb_paired_opts_t asb_paired_default_opts(void)
{
    return (asb_paired_opts_t){
        .conf = ASB_STATS_DEFAULT_CONF,
        .alpha = ASB_STATS_DEFAULT_ALPHA,
        .power = ASB_STATS_DEFAULT_POWER,
        .zero_method = ASB_ZERO_WILCOX,
    };
}

void asb_paired_differences(const double *x, const double *y, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = x[i] - y[i];
}

int asb_paired_mde(const double *d, size_t n, double alpha, double power, asb_mde_t *out,
                   asb_error_t *err)
{
    if (!(alpha > 0.0 && alpha < 1.0) || !(power > 0.0 && power < 1.0))
        return asb_err(err, -EINVAL,
                       "minimum detectable effect: alpha %g or power %g outside (0, 1)", alpha,
                       power);
    if (n < 2)
        return asb_err(err, -EDOM, "minimum detectable effect: needs 2 pairs, got %zu", n);
    asb_describe_t desc;
    int rc = asb_stats_describe(d, n, &desc, err);
    if (rc < 0)
        return asb_err_wrap(err, "minimum detectable effect");
    double z = asb_norm_quantile(1.0 - alpha / 2.0) + asb_norm_quantile(power);
    double t = z * desc.sd / sqrt((double)n);
    *out = (asb_mde_t){
        .alpha = alpha,
        .power = power,
        .sd = desc.sd,
        .paired_t = t,
        .wilcoxon = t * sqrt(PI_OVER_3),
    };
    return 0;
}

int asb_paired_analyze(const double *x, const double *y, size_t n, const asb_paired_opts_t *opts,
                       asb_paired_t *out, asb_error_t *err)
{
    asb_paired_opts_t o = opts ? *opts : asb_paired_default_opts();
    if (n < 2)
        return asb_err(err, -EDOM, "paired comparison: needs 2 pairs, got %zu", n);
    int rc = asb_stats_describe(x, n, &out->x, err);
    if (rc < 0)
        return asb_err_wrap(err, "paired comparison: profile");
    rc = asb_stats_describe(y, n, &out->y, err);
    if (rc < 0)
        return asb_err_wrap(err, "paired comparison: reference");
    double *d = malloc(n * sizeof(*d));
    if (!d)
        return asb_err_sys(err, ENOMEM, "paired comparison: %zu differences", n);
    asb_paired_differences(x, y, n, d);
    out->n = n;
    if ((rc = asb_stats_describe(d, n, &out->diff, err)) < 0 ||
        (rc = asb_wilcoxon_ci(d, n, o.conf, &out->hl, err)) < 0 ||
        (rc = asb_wilcoxon_test(d, n, o.zero_method, &out->wilcoxon, err)) < 0 ||
        (rc = asb_sign_test(d, n, &out->sign, err)) < 0 ||
        (rc = asb_paired_mde(d, n, o.alpha, o.power, &out->mde, err)) < 0)
        asb_err_wrap(err, "paired comparison");
    free(d);
    return rc;
}

void asb_format_p_value(double p, char *buf, size_t size)
{
    if (p < 1e-300) {
        snprintf(buf, size, "< 1e-300");
    } else if (p >= 0.001) {
        snprintf(buf, size, "%.2g", p);
    } else {
        /* "3e-09" -> "3e-9": one significant digit, no padded exponent. */
        int exp10 = (int)floor(log10(p));
        double mant = p / pow(10.0, exp10);
        long digit = lround(mant);
        if (digit >= 10) {
            digit = 1;
            exp10++;
        }
        snprintf(buf, size, "%lde%d", digit, exp10);
    }
}

int asb_paired_verdict(const asb_paired_t *p, const char *profile, const char *reference,
                       const char *unit, char *buf, size_t size, asb_error_t *err)
{
    if (!p || !profile || !reference || !unit || !buf || size == 0)
        return asb_err(err, -EINVAL, "verdict: missing argument");
    /* Two significant digits of the interval's width: +1.8 (+1.2 .. +2.5), +0.031 (...). */
    double width = p->hl.hi - p->hl.lo;
    int decimals = 1;
    if (width > 0.0 && isfinite(width))
        decimals = 1 - (int)floor(log10(width));
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;

    char level[32];
    if (p->hl.conf_achieved < p->hl.conf_level - 1e-9)
        snprintf(level, sizeof(level), "%.1f%%", 100.0 * p->hl.conf_achieved);
    else
        snprintf(level, sizeof(level), "%g%%", 100.0 * p->hl.conf_level);
    char pv[32];
    asb_format_p_value(p->wilcoxon.p_value, pv, sizeof(pv));
    const char *eq = pv[0] == '<' ? "" : "= ";

    int len = snprintf(buf, size, "%s - %s: %+.*f %s (%s CI %+.*f .. %+.*f), p %s%s", profile,
                       reference, decimals, p->hl.estimate, unit, level, decimals, p->hl.lo,
                       decimals, p->hl.hi, eq, pv);
    if (len < 0 || (size_t)len >= size)
        return asb_err(err, -ENOSPC, "verdict: %d bytes do not fit in %zu", len, size);
    return 0;
}
