/* normal.h - the standard normal distribution: CDF, survival function and quantile. */
#ifndef ASB_STATS_NORMAL_H
#define ASB_STATS_NORMAL_H

/* P(Z <= z), from erfc so the lower tail keeps full relative precision. */
double asb_norm_cdf(double z);

/* P(Z > z) = asb_norm_cdf(-z), precise in the upper tail. */
double asb_norm_sf(double z);

/* The z with P(Z <= z) = p, for 0 < p < 1 (Wichura's AS 241, about 1e-16 relative); -INFINITY at
 * p = 0, +INFINITY at p = 1, NAN outside [0, 1]. */
double asb_norm_quantile(double p);

#endif
