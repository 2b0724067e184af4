/* latency_svg.c - draw a latency study as SVG text. Two panels share one layout: arm labels on the
 * left, the plot in the middle, the numbers in words on the right, so a reader can look at the
 * picture and still read the values without hovering. */
#include "stats/latency_svg.h"

#include "core/error.h"
#include "stats/rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 1000.0        /* image width */
#define LABEL_X 16.0    /* arm names start here */
#define PLOT_X0 200.0   /* plot area */
#define PLOT_X1 690.0   /* ... */
#define TEXT_X 710.0    /* the numbers in words */
#define ROW_H 46.0      /* one arm in the strip plot */
#define DIFF_ROW_H 40.0 /* one pair in the difference panel */
#define MAX_TICKS 16
#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"

static const char *const PALETTE[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52",
                                      "#8172b3", "#937860", "#da8bc3", "#8c8c8c"};

static const char *color(size_t arm)
{
    return PALETTE[arm % (sizeof(PALETTE) / sizeof(PALETTE[0]))];
}

/* Text for an XML text node or attribute: markup characters escaped; control characters and bytes
 * outside ASCII (possibly invalid UTF-8 from a host name or --file) become '?', so the document is
 * always well-formed. */
static void put_text(FILE *f, const char *s, size_t max)
{
    size_t i = 0;
    for (; s && s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(c < 0x20 || c >= 0x7f ? '?' : c, f);
        }
    }
    if (s && s[i])
        fputs("...", f);
}

static double nice_step(double raw)
{
    double mag = pow(10.0, floor(log10(raw)));
    double steps[] = {1.0, 2.0, 2.5, 5.0, 10.0};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * mag >= raw)
            return steps[i] * mag;
    return 10.0 * mag;
}

size_t asb_svg_linear_ticks(double lo, double hi, double *ticks, size_t max)
{
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi) || max == 0)
        return 0;
    double step = nice_step((hi - lo) / 6.0);
    size_t n = 0;
    for (double t = ceil(lo / step) * step; t <= hi + step * 1e-9 && n < max; t += step)
        ticks[n++] = fabs(t) < step * 1e-9 ? 0.0 : t; /* no "-0" label */
    return n;
}

size_t asb_svg_log_ticks(double lo, double hi, double *ticks, size_t max)
{
    if (!(hi > lo) || !(lo > 0.0) || !isfinite(hi) || max == 0)
        return 0;
    static const double sets[][10] = {
        {1, 0},
        {1, 2, 5, 0},
        {1, 2, 3, 5, 7, 0},
        {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9},
    };
    size_t n = 0;
    for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
        n = 0;
        for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++) {
            for (size_t m = 0; m < 10 && sets[s][m] > 0; m++) {
                double t = sets[s][m] * pow(10.0, e);
                if (t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12) && n < max)
                    ticks[n++] = t;
            }
        }
        if (n >= 4)
            break;
    }
    return n;
}

typedef struct axis {
    bool log;
    double lo, hi; /* domain */
} axis_t;

static double xpos(const axis_t *a, double v)
{
    double f = a->log ? (log(fmax(v, a->lo)) - log(a->lo)) / (log(a->hi) - log(a->lo))
                      : (v - a->lo) / (a->hi - a->lo);
    return PLOT_X0 + f * (PLOT_X1 - PLOT_X0);
}

static void tick_label(double v, char *buf, size_t size)
{
    snprintf(buf, size, "%g", fabs(v) < 1e-12 ? 0.0 : v);
}

/* Ticks, vertical grid lines from y0 to y1, and labels under y1. */
static void draw_axis(FILE *f, const axis_t *a, double y0, double y1, const char *caption)
{
    double ticks[MAX_TICKS];
    size_t n = a->log ? asb_svg_log_ticks(a->lo, a->hi, ticks, MAX_TICKS)
                      : asb_svg_linear_ticks(a->lo, a->hi, ticks, MAX_TICKS);
    fprintf(f, "<g class=\"axis\">\n");
    for (size_t i = 0; i < n; i++) {
        double x = xpos(a, ticks[i]);
        char label[32];
        tick_label(ticks[i], label, sizeof(label));
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
                "fill=\"#333\">%s</text>\n",
                x, y0, x, y1, x, y1, x, y1 + 5, x, y1 + 19, label);
    }
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" "
            "fill=\"#333\">",
            PLOT_X0, y1, PLOT_X1, y1, (PLOT_X0 + PLOT_X1) / 2, y1 + 38);
    put_text(f, caption, 200);
    fprintf(f, "</text>\n</g>\n");
}

/* The wall times of one arm over the complete rounds, sorted. */
static size_t arm_values(const asb_latency_study_t *s, size_t arm, double *v)
{
    size_t k = 0;
    for (size_t r = 0; r < s->rounds_done; r++)
        if (s->complete[r])
            v[k++] = s->runs[r * s->n_arms + arm].wall_ms;
    return k;
}

static double strip_panel(FILE *f, const asb_latency_study_t *s, double y, double *buf)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t a = 0; a < s->n_arms; a++) {
        lo = fmin(lo, s->wall[a].min);
        hi = fmax(hi, s->wall[a].max);
    }
    /* Log when the spread is wide (an outlier, or arms far apart): it keeps the bulk readable. */
    axis_t ax = {.log = lo > 0.0 && hi / lo >= 3.0};
    if (ax.log) {
        ax.lo = lo / 1.08;
        ax.hi = hi * 1.08;
    } else {
        double pad = (hi - lo) * 0.06 + 1e-3;
        ax.lo = fmax(0.0, lo - pad);
        ax.hi = hi + pad;
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\" fill=\"#222\">"
            "Wall time per run</text>\n"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#666\">one dot per run; box: "
            "quartiles; thick line: median; whiskers: 10th to 90th percentile</text>\n",
            LABEL_X, y, LABEL_X, y + 17);
    double top = y + 30;
    asb_rng_t rng;
    asb_rng_seed(&rng, 1); /* fixed jitter: the same study draws the same picture */
    for (size_t a = 0; a < s->n_arms; a++) {
        double cy = top + ROW_H * ((double)a + 0.5);
        size_t n = arm_values(s, a, buf);
        asb_stats_sort(buf, n);
        double q1 = asb_stats_quantile_sorted(buf, n, 0.25);
        double q3 = asb_stats_quantile_sorted(buf, n, 0.75);
        double p10 = asb_stats_quantile_sorted(buf, n, 0.10);
        double p90 = asb_stats_quantile_sorted(buf, n, 0.90);
        double med = asb_stats_median_sorted(buf, n);
        if (a % 2 == 0)
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"#f7f7f7\"/>\n",
                    PLOT_X0, cy - ROW_H / 2, PLOT_X1 - PLOT_X0, ROW_H);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" fill=\"#222\"%s>", LABEL_X, cy + 5,
                a == s->reference ? " font-weight=\"bold\"" : "");
        put_text(f, s->arms[a].name, 40);
        fprintf(f, "%s</text>\n", a == s->reference ? " (ref)" : "");
        /* whiskers and box */
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1.5\"/>\n"
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                "fill-opacity=\"0.18\" stroke=\"%s\" stroke-width=\"1.5\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3.5\"/>\n",
                xpos(&ax, p10), cy, xpos(&ax, p90), cy, color(a), xpos(&ax, q1), cy - 13,
                fmax(1.0, xpos(&ax, q3) - xpos(&ax, q1)), 26.0, color(a), color(a), xpos(&ax, med),
                cy - 15, xpos(&ax, med), cy + 15, color(a));
        const double ends[2] = {p10, p90};
        for (size_t i = 0; i < 2; i++)
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"1.5\"/>\n",
                    xpos(&ax, ends[i]), cy - 6, xpos(&ax, ends[i]), cy + 6, color(a));
        /* dots, in round order, jittered vertically */
        fprintf(f, "<g fill=\"%s\" fill-opacity=\"0.45\">\n", color(a));
        for (size_t r = 0; r < s->rounds_done; r++) {
            if (!s->complete[r])
                continue;
            double jitter = ((double)asb_rng_below(&rng, 1001) / 1000.0 - 0.5) * (ROW_H * 0.6);
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.3\"/>\n",
                    xpos(&ax, s->runs[r * s->n_arms + a].wall_ms), cy + jitter);
        }
        fprintf(f, "</g>\n");
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#222\">median %.1f ms, "
                "p90 %.1f</text>\n"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#666\">min %.1f, max "
                "%.1f</text>\n",
                TEXT_X, cy - 2, s->wall[a].median, s->wall[a].p90, TEXT_X, cy + 14, s->wall[a].min,
                s->wall[a].max);
    }
    double bottom = top + ROW_H * (double)s->n_arms;
    draw_axis(f, &ax, top, bottom,
              ax.log ? "wall time per run, ms (log scale)" : "wall time per run, ms");
    return bottom + 78;
}

static double diff_panel(FILE *f, const asb_latency_study_t *s, double y)
{
    const char *ref = s->arms[s->reference].name;
    double lo = 0.0, hi = 0.0;
    for (size_t a = 0; a < s->n_arms; a++) {
        if (a == s->reference)
            continue;
        lo = fmin(lo, s->pair[a].hl.lo);
        hi = fmax(hi, s->pair[a].hl.hi);
    }
    double pad = (hi - lo) * 0.08 + 1e-3;
    axis_t ax = {.log = false, .lo = lo - pad, .hi = hi + pad};
    char title[160], note[200];
    if (s->ablation) {
        snprintf(title, sizeof(title), "Cost of each control: %s minus %s without it, same round",
                 ref, ref);
        snprintf(note, sizeof(note), "right of the zero line = the control adds time");
    } else {
        snprintf(title, sizeof(title), "Paired difference: arm minus %s, same round", ref);
        snprintf(note, sizeof(note), "right of the zero line = slower than %s", ref);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\" fill=\"#222\">",
            LABEL_X, y);
    put_text(f, title, 160);
    fprintf(f,
            "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#666\">dot: "
            "Hodges-Lehmann estimate; bar: Wilcoxon signed-rank confidence interval; ",
            LABEL_X, y + 17);
    put_text(f, note, 200);
    fputs("</text>\n", f);
    double top = y + 30;
    size_t rows = s->n_arms - 1;
    double bottom = top + DIFF_ROW_H * (double)rows;
    double x0 = xpos(&ax, 0.0);
    size_t row = 0;
    for (size_t a = 0; a < s->n_arms; a++) {
        if (a == s->reference)
            continue;
        const asb_paired_t *p = &s->pair[a];
        double cy = top + DIFF_ROW_H * ((double)row + 0.5);
        if (row % 2 == 0)
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"#f7f7f7\"/>\n",
                    PLOT_X0, cy - DIFF_ROW_H / 2, PLOT_X1 - PLOT_X0, DIFF_ROW_H);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" fill=\"#222\">", LABEL_X, cy + 5);
        if (s->ablation && s->arms[a].weaken) {
            fputs("cost of ", f);
            put_text(f, asb_latency_control_name(s->arms[a].weaken), 40);
        } else {
            put_text(f, s->arms[a].name, 40);
        }
        fprintf(f, "</text>\n");
        double xl = xpos(&ax, p->hl.lo), xh = xpos(&ax, p->hl.hi);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"4\" stroke-linecap=\"butt\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/>\n"
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"#fff\" "
                "stroke-width=\"1.5\"/>\n",
                xl, cy, xh, cy, color(a), xl, cy - 8, xl, cy + 8, color(a), xh, cy - 8, xh, cy + 8,
                color(a), xpos(&ax, p->hl.estimate), cy, color(a));
        /* The verdict after "arm - ref: ", split before the p-value onto a second line. */
        const char *v = strstr(s->verdict[a], ": ");
        v = v ? v + 2 : s->verdict[a];
        const char *pv = strstr(v, "), p ");
        size_t first = pv ? (size_t)(pv - v) + 1 : strlen(v);
        char line1[200];
        snprintf(line1, sizeof(line1), "%.*s", (int)first, v);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#222\">", TEXT_X, cy - 2);
        put_text(f, line1, 200);
        fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#666\">", TEXT_X,
                cy + 14);
        put_text(f, pv ? pv + 3 : "", 80);
        fprintf(f, ", MDE %.2g ms</text>\n", p->mde.wilcoxon);
        row++;
    }
    draw_axis(f, &ax, top, bottom, "difference, ms");
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"5,4\"/>\n",
            x0, top - 4, x0, bottom);
    return bottom + 50;
}

static void header(FILE *f, const asb_latency_study_t *s)
{
    const asb_latency_host_t *h = &s->host;
    fprintf(f,
            "<text x=\"%.1f\" y=\"30\" font-size=\"20\" font-weight=\"bold\" fill=\"#111\">"
            "agent-sandbox latency: ",
            LABEL_X);
    put_text(f, s->argv[0], 60);
    fputs(" -c '", f);
    put_text(f, s->argv[2], 40);
    fprintf(f,
            "'</text>\n<text x=\"%.1f\" y=\"52\" font-size=\"13\" fill=\"#444\">%zu rounds "
            "(%zu complete), order shuffled each round, seed %llu, %zu warm-up</text>\n",
            LABEL_X, s->rounds_done, s->rounds_complete, (unsigned long long)s->seed, s->warmup);
    fprintf(f, "<text x=\"%.1f\" y=\"70\" font-size=\"13\" fill=\"#444\">host ", LABEL_X);
    put_text(f, h->hostname, 40);
    fputs(", Linux ", f);
    put_text(f, h->kernel, 40);
    fprintf(f, ", %ld CPUs, load %.2f .. %.2f (max %.2f), ", h->cpus_online, h->load1_start,
            h->load1_end, h->load1_max);
    put_text(f, h->started_at, 32);
    fputs("</text>\n", f);
}

int asb_latency_svg(const asb_latency_study_t *s, char **svg, size_t *len, asb_error_t *err)
{
    if (!s || !svg || !len || !s->analyzed)
        return asb_err(err, -EINVAL, "latency plot: the study has not been analyzed");
    double *buf = calloc(s->rounds, sizeof(double));
    char *body = NULL;
    size_t body_len = 0;
    FILE *f = buf ? open_memstream(&body, &body_len) : NULL;
    if (!f) {
        free(buf);
        return asb_err_sys(err, ENOMEM, "latency plot");
    }
    header(f, s);
    double y = strip_panel(f, s, 104, buf);
    y = diff_panel(f, s, y);
    free(buf);
    if (fclose(f) != 0 || !body) {
        free(body);
        return asb_err_sys(err, ENOMEM, "latency plot");
    }
    /* The height is known only now; the header is written around the body. */
    char *out = NULL;
    size_t out_len = 0;
    FILE *g = open_memstream(&out, &out_len);
    if (!g) {
        free(body);
        return asb_err_sys(err, ENOMEM, "latency plot");
    }
    fprintf(g,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n"
            "<title>agent-sandbox latency study</title>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            W, y, W, y, FONT);
    fwrite(body, 1, body_len, g);
    fputs("</svg>\n", g);
    free(body);
    if (fclose(g) != 0 || !out) {
        free(out);
        return asb_err_sys(err, ENOMEM, "latency plot");
    }
    *svg = out;
    *len = out_len;
    return 0;
}
