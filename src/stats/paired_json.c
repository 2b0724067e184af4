/* paired_json.c - JSON encoding of asb_paired_t. */
#include "stats/paired_json.h"

#include <math.h>

/* JSON has no NaN or infinity. */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *count(size_t v)
{
    return json_integer((json_int_t)v);
}

json_t *asb_describe_json(const asb_describe_t *d)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", count(d->n), "mean", num(d->mean),
                     "median", num(d->median), "min", num(d->min), "max", num(d->max), "p90",
                     num(d->p90), "sd", num(d->sd));
}

json_t *asb_paired_json(const asb_paired_t *p)
{
    const asb_hl_ci_t *h = &p->hl;
    const asb_wilcoxon_t *w = &p->wilcoxon;
    const asb_sign_test_t *s = &p->sign;
    const asb_mde_t *m = &p->mde;
    return json_pack("{s:o, s:o, s:o, s:o,"
                     " s:{s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o},"
                     " s:{s:s, s:s, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o},"
                     " s:{s:o, s:o, s:o, s:o},"
                     " s:{s:o, s:o, s:o, s:o, s:o}}",
                     "n", count(p->n), "profile", asb_describe_json(&p->x), "reference",
                     asb_describe_json(&p->y), "difference", asb_describe_json(&p->diff),
                     /* hodges_lehmann */
                     "hodges_lehmann", "estimate", num(h->estimate), "ci_low", num(h->lo),
                     "ci_high", num(h->hi), "conf_level", num(h->conf_level), "conf_achieved",
                     num(h->conf_achieved), "k", count(h->k), "method",
                     asb_stats_method_name(h->method), "n_walsh", count(h->n_walsh),
                     /* wilcoxon */
                     "wilcoxon", "method", asb_stats_method_name(w->method), "zero_method",
                     asb_zero_method_name(w->zero_method), "n_zero", count(w->n_zero), "n_ranked",
                     count(w->n_ranked), "w_plus", num(w->w_plus), "ties", w->ties, "w_minus",
                     num(w->w_minus), "statistic", num(w->statistic), "z", num(w->z), "p_value",
                     num(w->p_value), "n", count(w->n),
                     /* sign_test */
                     "sign_test", "n_pos", count(s->n_pos), "n_neg", count(s->n_neg), "n_zero",
                     count(s->n_zero), "p_value", num(s->p_value),
                     /* mde */
                     "mde", "alpha", num(m->alpha), "power", num(m->power), "sd", num(m->sd),
                     "paired_t", num(m->paired_t), "wilcoxon", num(m->wilcoxon));
}
