/* runner.h - one attack run (plant, listen, watch, run, observe, judge, remove) and the matrix
 * of attacks x targets x repetitions on a pool of worker threads. */
#ifndef ASB_CHAOS_RUNNER_H
#define ASB_CHAOS_RUNNER_H

#include "agent_sandbox.h"
#include "chaos/attacks.h"
#include "chaos/judge.h"

#include <stdatomic.h>
#include <stdio.h>

/* A matrix column: a profile on a backend. "hardened" = native; "docker-hardened" = the docker
 * backend (its column shows `error` until that backend exists). "control" = each attack's own
 * positive-control configuration. */
typedef struct asb_chaos_target {
    char label[48];
    char profile[32];
    char backend[16];
    bool control;
    bool pooled; /* "pool-<profile>": each attack runs in a sandbox prepared ahead (asb_pool_run) */
} asb_chaos_target_t;

int asb_chaos_target_parse(const char *spec, asb_chaos_target_t *t, asb_error_t *err);

typedef struct asb_chaos_run {
    const asb_chaos_attack_t *attack;
    size_t target; /* index into the targets */
    int rep;
    char profile[32], backend[16];
    uint32_t weaken;
    asb_chaos_verdict_t verdict;
    char evidence[ASB_CHAOS_EVIDENCE_MAX];
    double duration_s; /* harness wall clock for the whole run, setup included */
    char nonce[33];
    char *result_json; /* the run's result record (with attestation), malloc'd */
} asb_chaos_run_t;

typedef struct asb_chaos_opts {
    const char *attacks_dir;
    int jobs;
    int repeat;
    /* Optional: once set, no further run starts and a pooled run stops waiting for its sandbox;
     * runs in progress still remove what they planted. Runs never started keep verdict
     * ASB_CHAOS_ERROR with "not run: interrupted". */
    const atomic_bool *cancel;
} asb_chaos_opts_t;

/* The attack programs: $ASB_ATTACKS_DIR, else the source tree's, else the installed ones. */
int asb_chaos_attacks_dir(char *out, size_t n, asb_error_t *err);

void asb_chaos_run_one(const asb_chaos_attack_t *a, const asb_chaos_target_t *t,
                       const char *attacks_dir, const atomic_bool *cancel, asb_chaos_run_t *out);

/* Run every attack x target x repetition. *runs (malloc'd, free with asb_chaos_runs_free) is in
 * matrix order: repetition, attack, target. */
int asb_chaos_matrix(const asb_chaos_attack_t *const *attacks, size_t n_attacks,
                     const asb_chaos_target_t *targets, size_t n_targets,
                     const asb_chaos_opts_t *opts, asb_chaos_run_t **runs, size_t *n_runs,
                     double *wall_s, asb_error_t *err);

void asb_chaos_runs_free(asb_chaos_run_t *runs, size_t n);

#endif
