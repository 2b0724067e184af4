/* latency_study.c - run the rounds and compute the statistics of the latency study. */
#include "stats/latency_study.h"

#include "core/error.h"
#include "stats/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int asb_latency_study_init(asb_latency_study_t *s, const asb_latency_opts_t *opts, const char *code,
                           asb_error_t *err)
{
    memset(s, 0, sizeof(*s));
    int rc = asb_latency_build_arms(opts, s->arms, &s->n_arms, &s->reference, err);
    if (rc < 0)
        return rc;
    s->ablation = opts->ablate != NULL;
    s->rounds = opts->rounds;
    s->warmup = opts->warmup;
    if (s->rounds < 2 || s->rounds > ASB_LATENCY_MAX_ROUNDS)
        return asb_err(err, -EINVAL, "latency: %zu rounds (expected 2 .. %d)", s->rounds,
                       ASB_LATENCY_MAX_ROUNDS);
    if (opts->seed_given) {
        s->seed = opts->seed;
    } else {
        if ((rc = asb_rng_seed_from_os(&s->seed, err)) < 0)
            return rc;
        s->seed &= ASB_LATENCY_MAX_SEED;
    }
    s->argv[0] = ASB_DEFAULT_INTERPRETER;
    s->argv[1] = "-c";
    s->argv[2] = code;
    s->argv[3] = NULL;
    size_t cells = s->rounds * s->n_arms;
    s->runs = calloc(cells, sizeof(*s->runs));
    s->order = calloc(cells, sizeof(*s->order));
    s->complete = calloc(s->rounds, sizeof(*s->complete));
    if (!s->runs || !s->order || !s->complete) {
        asb_latency_study_free(s);
        return asb_err_sys(err, ENOMEM, "latency: record of %zu runs", cells);
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void config_for(const asb_latency_study_t *s, size_t arm, asb_config_t *cfg)
{
    asb_config_init(cfg);
    cfg->profile = s->arms[arm].profile;
    cfg->weaken = s->arms[arm].weaken;
    cfg->argv = s->argv;
}

/* One timed run. Only asb_run is inside the clock: building the config and freeing the result
 * are the caller's cost in every arm alike, and not what a profile adds. */
static void run_once(const asb_latency_study_t *s, asb_latency_run_fn run, size_t arm,
                     asb_latency_run_t *rec)
{
    asb_config_t cfg;
    config_for(s, arm, &cfg);
    asb_result_t res;
    asb_error_t err;
    memset(&res, 0, sizeof(res));
    asb_err_clear(&err);
    asb_pool_t *pool = s->pools[arm];
    double t0 = now_ms();
    int rc = pool ? asb_pool_run(pool, &cfg, &res, &err) : run(&cfg, &res, &err);
    double t1 = now_ms();
    bool cold = pool && rc == 0 && !res.prepared;
    if (pool) {
        /* Refilled before anything else is timed: the preparation never overlaps a measured run
         * (bounded: a pool that cannot prepare shows up as failed runs, not a hang). */
        double until = now_ms() + 5000;
        while (asb_pool_ready(pool) < 1 && now_ms() < until)
            usleep(200);
    }
    rec->arm = arm;
    rec->wall_ms = t1 - t0;
    rec->duration_ms = res.duration_s * 1e3;
    rec->rc = rc;
    rec->status = res.status;
    rec->exit_code = res.exit_code;
    rec->signal = res.signal;
    rec->error = NULL;
    char why[1200];
    why[0] = '\0';
    if (cold) {
        /* Not what the arm measures: counted as a failed run, never mixed in. */
        rec->rc = -EAGAIN;
        snprintf(why, sizeof(why), "the pooled run found no prepared sandbox");
    } else if (rc < 0)
        snprintf(why, sizeof(why), "%s", err.message[0] ? err.message : "asb_run failed");
    else if (res.status != ASB_STATUS_COMPLETED)
        snprintf(why, sizeof(why), "status %s%s%s", asb_status_name(res.status),
                 res.error ? ": " : "", res.error ? res.error : "");
    else if (res.exit_code != 0)
        snprintf(why, sizeof(why), "exit code %d", res.exit_code);
    /* Without memory for the message the run still counts as failed (run_failed). */
    if (why[0])
        rec->error = strdup(why);
    asb_result_free(&res);
}

static bool run_failed(const asb_latency_run_t *r)
{
    return r->rc < 0 || r->status != ASB_STATUS_COMPLETED || r->exit_code != 0;
}

int asb_latency_study_collect(asb_latency_study_t *s, asb_latency_run_fn run,
                              asb_latency_progress_fn progress, void *ctx, asb_error_t *err)
{
    bool real = !run;
    if (!run)
        run = asb_run;
    asb_latency_host_probe(&s->host);
    /* Pooled arms: one pool of one prepared sandbox each, for the whole study (fakes in unit
     * tests stand in for asb_pool_run as for asb_run). */
    for (size_t a = 0; real && a < s->n_arms; a++) {
        if (!s->arms[a].pooled)
            continue;
        asb_config_t t;
        config_for(s, a, &t);
        if (asb_pool_new(&t, 1, &s->pools[a], err) < 0)
            return asb_err_wrap(err, "arm %s", s->arms[a].name);
        double until = now_ms() + 10000;
        while (asb_pool_ready(s->pools[a]) < 1 && now_ms() < until)
            usleep(200);
    }
    /* Warm-up: page cache, dynamic loader, cgroup hierarchy, seccomp filter pages. Not recorded;
     * a failure here means the arm cannot run at all, so stop before measuring anything. */
    for (size_t w = 0; w < s->warmup; w++) {
        for (size_t a = 0; a < s->n_arms; a++) {
            asb_latency_run_t rec;
            run_once(s, run, a, &rec);
            if (run_failed(&rec)) {
                int rc =
                    asb_err(err, rec.rc < 0 ? rec.rc : -ECANCELED, "warm-up run of %s failed: %s",
                            s->arms[a].name, rec.error ? rec.error : "no detail");
                free(rec.error);
                return rc;
            }
        }
    }
    asb_rng_t rng;
    asb_rng_seed(&rng, s->seed);
    for (size_t r = 0; r < s->rounds; r++) {
        size_t *order = &s->order[r * s->n_arms];
        for (size_t a = 0; a < s->n_arms; a++)
            order[a] = a;
        asb_rng_shuffle(&rng, order, s->n_arms);
        for (size_t pos = 0; pos < s->n_arms; pos++) {
            size_t a = order[pos];
            asb_latency_run_t *rec = &s->runs[r * s->n_arms + a];
            run_once(s, run, a, rec);
            rec->position = pos;
            if (run_failed(rec)) {
                s->runs_failed++;
                s->failed_per_arm[a]++;
            }
        }
        s->rounds_done = r + 1;
        asb_latency_host_sample(&s->host);
        if (progress)
            progress(ctx, r + 1, s->rounds, s->runs_failed);
    }
    asb_latency_host_finish(&s->host);
    return 0;
}

int asb_latency_study_analyze(asb_latency_study_t *s, asb_error_t *err)
{
    s->analyzed = false;
    s->rounds_complete = 0;
    for (size_t r = 0; r < s->rounds; r++) {
        s->complete[r] = r < s->rounds_done; /* a round never run is not evidence */
        for (size_t a = 0; a < s->n_arms; a++)
            if (run_failed(&s->runs[r * s->n_arms + a]))
                s->complete[r] = false;
        s->rounds_complete += s->complete[r];
    }
    size_t n = s->rounds_complete;
    if (n < 2)
        return asb_err(err, -EDOM,
                       "latency: only %zu of %zu rounds completed without a failed run; "
                       "no statistics",
                       n, s->rounds);
    double *wall = calloc(n * s->n_arms, sizeof(double));
    double *dur = calloc(n, sizeof(double));
    if (!wall || !dur) {
        free(wall);
        free(dur);
        return asb_err_sys(err, ENOMEM, "latency: statistics");
    }
    int rc = 0;
    for (size_t a = 0; a < s->n_arms && rc == 0; a++) {
        double *w = &wall[a * n];
        size_t k = 0;
        for (size_t r = 0; r < s->rounds; r++) {
            if (!s->complete[r])
                continue;
            w[k] = s->runs[r * s->n_arms + a].wall_ms;
            dur[k] = s->runs[r * s->n_arms + a].duration_ms;
            k++;
        }
        if ((rc = asb_stats_describe(w, n, &s->wall[a], err)) < 0 ||
            (rc = asb_stats_describe(dur, n, &s->duration[a], err)) < 0)
            asb_err_wrap(err, "latency: %s", s->arms[a].name);
    }
    for (size_t a = 0; a < s->n_arms && rc == 0; a++) {
        if (a == s->reference)
            continue;
        size_t x = a, y = s->reference;
        if (s->ablation && s->arms[a].weaken && !s->arms[y].weaken) {
            x = s->reference;
            y = a;
        }
        s->minuend[a] = x;
        s->subtrahend[a] = y;
        if ((rc = asb_paired_analyze(&wall[x * n], &wall[y * n], n, NULL, &s->pair[a], err)) < 0 ||
            (rc = asb_paired_verdict(&s->pair[a], s->arms[x].name, s->arms[y].name, "ms",
                                     s->verdict[a], sizeof(s->verdict[a]), err)) < 0)
            asb_err_wrap(err, "latency: %s - %s", s->arms[x].name, s->arms[y].name);
    }
    free(wall);
    free(dur);
    if (rc == 0)
        s->analyzed = true;
    return rc;
}

void asb_latency_study_free(asb_latency_study_t *s)
{
    for (size_t a = 0; a < ASB_LATENCY_MAX_ARMS; a++) {
        asb_pool_free(s->pools[a]);
        s->pools[a] = NULL;
    }
    if (s->runs)
        for (size_t i = 0; i < s->rounds * s->n_arms; i++)
            free(s->runs[i].error);
    free(s->runs);
    free(s->order);
    free(s->complete);
    s->runs = NULL;
    s->order = NULL;
    s->complete = NULL;
}
