/* runner.c - one run and the matrix. */
#include "chaos/runner.h"
#include "chaos/beacon.h"
#include "chaos/host.h"
#include "chaos/watch.h"
#include "core/error.h"
#include "core/result.h"
#include "core/limits.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ASB_CHAOS_RECORD_FILE_BYTES 4096
#define AFTER_WAIT_US 300000 /* orphan check: look twice, this far apart, after the run */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int asb_chaos_target_parse(const char *spec, asb_chaos_target_t *t, asb_error_t *err)
{
    memset(t, 0, sizeof(*t));
    if (strlen(spec) >= sizeof(t->label))
        return asb_err(err, -EINVAL, "profile '%s': name too long", spec);
    snprintf(t->label, sizeof(t->label), "%s", spec);
    if (strcmp(spec, "control") == 0) {
        t->control = true;
        return 0;
    }
    const char *profile = spec;
    snprintf(t->backend, sizeof(t->backend), "native");
    if (strncmp(spec, "docker-", 7) == 0) {
        profile = spec + 7;
        snprintf(t->backend, sizeof(t->backend), "docker");
    } else if (strncmp(spec, "pool-", 5) == 0) {
        profile = spec + 5;
        t->pooled = true;
        if (strcmp(profile, "subprocess") == 0)
            return asb_err(err, -EINVAL, "profile '%s': only sandboxed profiles are pooled", spec);
    }
    for (const char *const *p = asb_profile_names(); *p; p++)
        if (strcmp(*p, profile) == 0) {
            snprintf(t->profile, sizeof(t->profile), "%s", profile);
            return 0;
        }
    return asb_err(err, -EINVAL,
                   "unknown profile '%s' (expected subprocess, baseline, hardened, "
                   "docker-<profile>, pool-<profile> or control)",
                   spec);
}

int asb_chaos_attacks_dir(char *out, size_t n, asb_error_t *err)
{
    const char *env = getenv("ASB_ATTACKS_DIR");
    const char *cands[] = {env, ASB_ATTACKS_BUILD_DIR, ASB_ATTACKS_INSTALL_DIR};
    for (size_t i = 0; i < 3; i++) {
        if (!cands[i] || !*cands[i])
            continue;
        char probe[4096];
        snprintf(probe, sizeof(probe), "%s/chaoslib.py", cands[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(out, n, "%s", cands[i]);
            return 0;
        }
        if (i == 0)
            return asb_err(err, -ENOENT, "ASB_ATTACKS_DIR=%s has no chaoslib.py", env);
    }
    return asb_err(err, -ENOENT,
                   "attack programs not found (looked in %s and %s; set "
                   "ASB_ATTACKS_DIR)",
                   ASB_ATTACKS_BUILD_DIR, ASB_ATTACKS_INSTALL_DIR);
}

static void fail(asb_chaos_run_t *out, const char *what, const asb_error_t *err)
{
    out->verdict = ASB_CHAOS_ERROR;
    snprintf(out->evidence, sizeof(out->evidence), "harness %s: %s", what, err->message);
}

void asb_chaos_run_one(const asb_chaos_attack_t *a, const asb_chaos_target_t *t,
                       const char *attacks_dir, const atomic_bool *cancel, asb_chaos_run_t *out)
{
    double t0 = now_s();
    asb_chaos_obs_t o;
    asb_chaos_obs_init(&o);
    asb_chaos_host_t h;
    asb_chaos_beacon_t b;
    memset(&b, 0, sizeof(b));
    b.tcp = b.udp = b.http = b.dns = b.abstract = b.docker = b.stop_efd = -1;
    b.br_tcp = b.br_udp = b.br_http = b.br_dns = -1;
    asb_error_t err = {0};
    asb_result_t res;
    memset(&res, 0, sizeof(res));
    bool ran = false;

    out->attack = a;
    out->verdict = ASB_CHAOS_ERROR;
    snprintf(out->profile, sizeof(out->profile), "%s",
             t->control ? (a->control_profile ? a->control_profile : "subprocess") : t->profile);
    snprintf(out->backend, sizeof(out->backend), "%s",
             t->control || strcmp(out->profile, "subprocess") == 0 ? "native" : t->backend);
    out->weaken = t->control ? a->control_weaken : 0;

    if (asb_chaos_host_setup(&h, a->plant, &o, &err) < 0) {
        fail(out, "setup", &err);
        goto out;
    }
    snprintf(out->nonce, sizeof(out->nonce), "%s", o.nonce);
    /* A docker container never shares the host's network namespace: its way to the host is the
     * bridge, so the listeners must be there too or `blocked` would mean nothing. */
    o.bridge_wanted = strcmp(out->backend, "docker") == 0;
    if (asb_chaos_beacon_start(&b, h.docker_path, o.bridge_wanted, &err) < 0) {
        fail(out, "beacon", &err);
        goto out;
    }
    if (b.bridge_addr[0])
        asb_chaos_host_env(&h, "HOSTS", "127.0.0.1 %s", b.bridge_addr);
    else
        asb_chaos_host_env(&h, "HOSTS", "127.0.0.1");
    asb_chaos_host_env(&h, "TCP_PORT", "%u", b.tcp_port);
    asb_chaos_host_env(&h, "UDP_PORT", "%u", b.udp_port);
    asb_chaos_host_env(&h, "HTTP_PORT", "%u", b.http_port);
    asb_chaos_host_env(&h, "DNS_PORT", "%u", b.dns_port);
    asb_chaos_host_env(&h, "ABSTRACT", "%s", b.abstract_name);
    if (t->control && a->control_env)
        asb_chaos_host_env(&h, "CONTROL", "1");

    char script[4096], lib[4096], name[96];
    snprintf(script, sizeof(script), "%s/%s.py", attacks_dir, a->name);
    snprintf(lib, sizeof(lib), "%s/chaoslib.py", attacks_dir);
    snprintf(name, sizeof(name), "%s.py", a->name);
    const asb_file_in_t files_in[] = {{.host_path = script, .name = name},
                                      {.host_path = lib, .name = "chaoslib.py"}};
    /* The nonce rides in argv so the watcher can find every process of the run in /proc. */
    const char *argv[] = {ASB_DEFAULT_INTERPRETER, name, o.nonce, NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = out->profile;
    cfg.backend = out->backend;
    cfg.argv = argv;
    cfg.files_in = files_in;
    cfg.n_files_in = 2;
    cfg.env = h.env;
    cfg.n_env = h.n_env;
    cfg.weaken = out->weaken;
    cfg.limits.timeout_s = a->timeout_s > 0 ? a->timeout_s : ASB_CHAOS_DEFAULT_TIMEOUT_S;
    cfg.limits.file_out_bytes = a->file_out_bytes;
    if (t->control && a->control_timeout_s > 0)
        cfg.limits.timeout_s = a->control_timeout_s;
    if (t->control && a->control_output_bytes)
        cfg.limits.output_bytes = a->control_output_bytes;
    const char *files_out[] = {a->files_out};
    if (a->files_out) {
        cfg.files_out = files_out;
        cfg.n_files_out = 1;
    }
    o.timeout_s = cfg.limits.timeout_s;

    asb_chaos_watcher_t wt;
    bool watching = false;
    if (a->flags & ASB_CHAOS_WATCH) {
        if (asb_chaos_watch_start(&wt, o.nonce, a->flags & ASB_CHAOS_WATCH_FDS,
                                  a->flags & ASB_CHAOS_WATCH_MIGRATION, &err) < 0) {
            fail(out, "watcher", &err);
            goto out;
        }
        watching = true;
    }
    asb_error_t run_err = {0};
    int rc;
    if (t->pooled) {
        /* The prepared path: the sandbox is built and attested before the attack's job is
         * handed over; a pool of one, for this run only. */
        asb_config_t tmpl;
        asb_config_init(&tmpl);
        tmpl.profile = cfg.profile;
        tmpl.weaken = cfg.weaken;
        asb_pool_t *pool = NULL;
        rc = asb_pool_new(&tmpl, 1, &pool, &run_err);
        if (rc == 0) {
            double until = now_s() + 10;
            while (asb_pool_ready(pool) < 1 && now_s() < until && !(cancel && atomic_load(cancel)))
                usleep(1000);
            if (cancel && atomic_load(cancel)) { /* nothing more starts once interrupted */
                asb_result_init(&res);
                res.status = ASB_STATUS_SANDBOX_ERROR;
                rc = asb_err(&run_err, -ECANCELED, "interrupted");
                asb_result_set_error(&res, run_err.message);
            } else {
                rc = asb_pool_run(pool, &cfg, &res, &run_err);
            }
            if (rc == 0 && !res.prepared)
                rc = asb_err(&run_err, -EAGAIN, "the pooled run found no prepared sandbox");
            asb_pool_free(pool);
        } else {
            asb_result_init(&res); /* as asb_run leaves a refused run */
            res.status = ASB_STATUS_SANDBOX_ERROR;
            asb_result_set_error(&res, run_err.message);
        }
    } else {
        rc = asb_run(&cfg, &res, &run_err);
    }
    ran = true;
    if (watching) {
        asb_chaos_watch_stop(&wt, &o.watch);
        o.watched = true;
    }
    /* Processes of the run that no longer carry its nonce are found by what the watcher
     * learned (its session, the processes it saw). */
    if (watching)
        wt.anch.end_ticks = asb_chaos_now_ticks();
    const asb_chaos_anchors_t *anchors = watching ? &wt.anch : NULL;
    asb_chaos_beacon_stop(&b, &o);
    if (a->flags & ASB_CHAOS_AFTER) {
        usleep(AFTER_WAIT_US);
        long long m1 = asb_chaos_host_marker_mtime(&h);
        int alive = asb_chaos_survivors(o.nonce, anchors, false);
        usleep(AFTER_WAIT_US);
        long long m2 = asb_chaos_host_marker_mtime(&h);
        int alive2 = asb_chaos_survivors(o.nonce, anchors, false);
        o.alive_after = alive > alive2 ? alive : alive2;
        o.marker_changed_after = m2 != 0 && m2 != m1;
        o.after_checked = true;
    }
    /* Whatever the attack left running on the host dies now, found by its nonce. */
    asb_chaos_survivors(o.nonce, anchors, true);
    asb_chaos_host_observe(&h, &o);
    out->verdict = asb_chaos_judge(a->name, rc, &o, &res, out->evidence, sizeof(out->evidence));
    if (rc < 0 && !res.error)
        snprintf(out->evidence, sizeof(out->evidence), "sandbox error: %s", run_err.message);
    /* The record keeps the head of a large file-out (disk_fill's 40 MB): the judge has read it
     * all already, and 40 MB of base64 per run would dominate the JSON and its time. */
    for (size_t i = 0; i < res.n_files_out; i++)
        if (res.files_out[i].content.len > ASB_CHAOS_RECORD_FILE_BYTES)
            res.files_out[i].content.len = ASB_CHAOS_RECORD_FILE_BYTES;
    asb_error_t jerr;
    if (asb_result_to_json(&res, &out->result_json, &jerr) < 0)
        out->result_json = NULL;
out:
    asb_chaos_beacon_stop(&b, NULL); /* idempotent: closes whatever a failed start left */
    asb_chaos_host_teardown(&h);
    if (ran)
        asb_result_free(&res);
    asb_chaos_obs_free(&o);
    out->duration_s = now_s() - t0;
}

typedef struct pool {
    const asb_chaos_attack_t *const *attacks;
    const asb_chaos_target_t *targets;
    const char *dir;
    const atomic_bool *cancel;
    asb_chaos_run_t *runs;
    size_t *order; /* indexes into runs, in the order to execute */
    size_t n;
    atomic_size_t next;
} pool_t;

static void *worker(void *arg)
{
    pool_t *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        asb_chaos_run_t *r = &p->runs[p->order[i]];
        if (p->cancel && atomic_load(p->cancel)) {
            r->verdict = ASB_CHAOS_ERROR;
            snprintf(r->evidence, sizeof(r->evidence), "not run: interrupted");
            continue;
        }
        asb_chaos_run_one(r->attack, &p->targets[r->target], p->dir, p->cancel, r);
    }
}

static void run_pool(pool_t *p, int jobs)
{
    if (jobs < 1)
        jobs = 1;
    pthread_t th[64];
    int started = 0;
    for (int i = 0; i < jobs && i < 64; i++)
        if (pthread_create(&th[i], NULL, worker, p) == 0)
            started++;
    if (started == 0)
        worker(p); /* no threads to be had: still run everything, one by one */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

int asb_chaos_matrix(const asb_chaos_attack_t *const *attacks, size_t n_attacks,
                     const asb_chaos_target_t *targets, size_t n_targets,
                     const asb_chaos_opts_t *opts, asb_chaos_run_t **runs_out, size_t *n_runs,
                     double *wall_s, asb_error_t *err)
{
    int repeat = opts->repeat > 0 ? opts->repeat : 1;
    size_t n = (size_t)repeat * n_attacks * n_targets;
    asb_chaos_run_t *runs = calloc(n ? n : 1, sizeof(*runs));
    size_t *order = calloc(n ? n : 1, sizeof(size_t));
    if (!runs || !order) {
        free(runs);
        free(order);
        return asb_err_sys(err, ENOMEM, "chaos matrix");
    }
    size_t k = 0;
    for (int rep = 0; rep < repeat; rep++)
        for (size_t a = 0; a < n_attacks; a++)
            for (size_t t = 0; t < n_targets; t++, k++) {
                runs[k].attack = attacks[a];
                runs[k].target = t;
                runs[k].rep = rep;
            }
    double t0 = now_s();
    /* Shared runs first, on the pool; then the exclusive ones alone, because their evidence is
     * a host-wide measurement (CPU share, kernel log) another run would disturb. */
    pool_t p = {.attacks = attacks,
                .targets = targets,
                .dir = opts->attacks_dir,
                .cancel = opts->cancel,
                .runs = runs,
                .order = order};
    for (size_t i = 0; i < n; i++)
        if (!(runs[i].attack->flags & ASB_CHAOS_EXCLUSIVE))
            order[p.n++] = i;
    atomic_init(&p.next, 0);
    run_pool(&p, opts->jobs);
    p.n = 0;
    for (size_t i = 0; i < n; i++)
        if (runs[i].attack->flags & ASB_CHAOS_EXCLUSIVE)
            order[p.n++] = i;
    atomic_store(&p.next, 0);
    run_pool(&p, 1);
    *wall_s = now_s() - t0;
    free(order);
    *runs_out = runs;
    *n_runs = n;
    return 0;
}

void asb_chaos_runs_free(asb_chaos_run_t *runs, size_t n)
{
    for (size_t i = 0; runs && i < n; i++)
        free(runs[i].result_json);
    free(runs);
}
