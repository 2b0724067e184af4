/* latency_study.h - the paired latency study behind `agent-sandbox latency`: which arms (profiles,
 * or one profile with one control switched off at a time), the interleaved shuffled rounds, the
 * record of every run, and the per-arm and per-pair statistics (src/stats/paired.h). The CLI
 * parses options, prints and writes files; everything else is here so unit tests reach it.
 *
 * Failed runs: a run fails when asb_run returns an error, the status is not completed or the exit
 * code is not 0. It is recorded (status, exit code, error) and its whole round is excluded from
 * every statistic, because a pair needs both members; the counts are in the study and the caller
 * must show them. A failed warm-up run aborts the study: the configuration does not work. */
#ifndef ASB_STATS_LATENCY_STUDY_H
#define ASB_STATS_LATENCY_STUDY_H

#include "agent_sandbox.h"
#include "core/limits.h"
#include "stats/paired.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ASB_LATENCY_ARM_NAME_MAX 48

typedef struct asb_latency_arm {
    char name[ASB_LATENCY_ARM_NAME_MAX]; /* "hardened", "hardened-no-seccomp" */
    char profile[32];
    uint32_t weaken; /* 0, or the one ASB_WEAKEN_* bit this arm switches off */
    bool pooled;     /* "pool-<profile>": asb_pool_run on a pool of one prepared sandbox */
} asb_latency_arm_t;

/* What the user asked for; strings are borrowed from argv. */
typedef struct asb_latency_opts {
    size_t rounds, warmup;
    uint64_t seed;
    bool seed_given;
    const char *profiles[ASB_LATENCY_MAX_ARMS]; /* from --profiles, split at ',' */
    size_t n_profiles;
    const char *reference; /* an arm name; NULL = first profile, or the ablated profile */
    const char *ablate;    /* a sandboxed profile, or NULL */
    const char *code;      /* --code; NULL when --file */
    const char *file;      /* --file; the caller reads it */
    const char *out, *plot;
    bool help;
    char profiles_buf[256]; /* the split copy of --profiles */
} asb_latency_opts_t;

/* Parse `latency` options (argv[0] is the subcommand name). Defaults: ASB_LATENCY_DEFAULT_ROUNDS
 * rounds, ASB_LATENCY_DEFAULT_WARMUP warm-up rounds, subprocess,baseline,hardened, code "pass",
 * out results/latency.json, no plot. -EINVAL with a message naming the option on bad input. */
int asb_latency_parse_args(int argc, char **argv, asb_latency_opts_t *opts, asb_error_t *err);

/* The name of the control a weaken bit switches off: "netns", "seccomp", "landlock", "cgroup",
 * "mounts"; NULL for anything but one known bit. */
const char *asb_latency_control_name(uint32_t weaken_bit);

/* Arms from the options: the profiles as given, or for --ablate P: P, then P-no-<control> for each
 * control P enforces (in the order netns, seccomp, landlock, cgroup, mounts). *reference is the
 * index of the reference arm. -EINVAL for an unknown or repeated profile, an unknown reference, a
 * subprocess ablation, or fewer than two arms. */
int asb_latency_build_arms(const asb_latency_opts_t *opts, asb_latency_arm_t *arms, size_t *n_arms,
                           size_t *reference, asb_error_t *err);

typedef struct asb_latency_run {
    size_t arm, position; /* which arm; its place in the round's order (0 = first) */
    double wall_ms;       /* the caller's CLOCK_MONOTONIC around asb_run */
    double duration_ms;   /* the result's own duration_s */
    int rc;               /* asb_run's return */
    asb_status_t status;
    int exit_code, signal;
    char *error; /* why it failed (malloc'd); NULL when it did not */
} asb_latency_run_t;

typedef struct asb_latency_host {
    char hostname[128], kernel[128], machine[32], cpu_model[128];
    long cpus_online;
    double load1_start, load1_end;        /* /proc/loadavg, -1 when unreadable */
    double load1_max;                     /* highest seen after any round */
    char started_at[32], finished_at[32]; /* UTC, ISO 8601 */
} asb_latency_host_t;

/* Runs one sandbox; asb_run in real use, a fake in unit tests. */
typedef int (*asb_latency_run_fn)(const asb_config_t *cfg, asb_result_t *res, asb_error_t *err);
/* Called after each measured round (1-based count). */
typedef void (*asb_latency_progress_fn)(void *ctx, size_t done, size_t rounds, size_t failed);

typedef struct asb_latency_study {
    /* set up by asb_latency_study_init */
    asb_latency_arm_t arms[ASB_LATENCY_MAX_ARMS];
    size_t n_arms, reference;
    /* --ablate: each pair is reference minus arm (full profile minus the profile without one
     * control), so a positive number is what that control costs. Otherwise arm minus reference. */
    bool ablation;
    size_t rounds, warmup;
    uint64_t seed;
    const char *argv[4]; /* interpreter, "-c", code, NULL (code borrowed) */
    asb_latency_host_t host;
    /* filled by asb_latency_study_collect */
    asb_pool_t *pools[ASB_LATENCY_MAX_ARMS]; /* pooled arms, while collecting (real runs only) */
    asb_latency_run_t *runs;                 /* rounds x n_arms: runs[r * n_arms + arm] */
    size_t *order;      /* rounds x n_arms: order[r * n_arms + position] = arm */
    size_t rounds_done; /* measured rounds finished */
    size_t runs_failed;
    size_t failed_per_arm[ASB_LATENCY_MAX_ARMS];
    /* filled by asb_latency_study_analyze */
    bool *complete; /* per round: every run succeeded */
    size_t rounds_complete;
    asb_describe_t wall[ASB_LATENCY_MAX_ARMS];     /* over complete rounds, ms */
    asb_describe_t duration[ASB_LATENCY_MAX_ARMS]; /* the result's duration, ms */
    asb_paired_t pair[ASB_LATENCY_MAX_ARMS];       /* arm vs reference; unset for the reference */
    size_t minuend[ASB_LATENCY_MAX_ARMS], subtrahend[ASB_LATENCY_MAX_ARMS]; /* pair[a]: x - y */
    char verdict[ASB_LATENCY_MAX_ARMS][256];
    bool analyzed;
} asb_latency_study_t;

/* Arms, rounds, seed (a fresh one from the OS, masked to ASB_LATENCY_MAX_SEED, unless given) and
 * program; allocates the record. code is borrowed and must outlive the study. */
int asb_latency_study_init(asb_latency_study_t *s, const asb_latency_opts_t *opts, const char *code,
                           asb_error_t *err);

/* The warm-up rounds (fixed order, not recorded), then the measured rounds, each in a fresh
 * Fisher-Yates order from the seeded generator. run may be NULL for asb_run, progress NULL. Fails
 * only when a warm-up run fails or the study cannot proceed; failed measured runs are recorded. */
int asb_latency_study_collect(asb_latency_study_t *s, asb_latency_run_fn run,
                              asb_latency_progress_fn progress, void *ctx, asb_error_t *err);

/* Statistics over the complete rounds: per-arm descriptions and every pair against the reference
 * with its verdict line. -EDOM when fewer than 2 rounds are complete. */
int asb_latency_study_analyze(asb_latency_study_t *s, asb_error_t *err);

void asb_latency_study_free(asb_latency_study_t *s);

/* Host facts for the record; never fails (unknown fields stay empty or -1). */
void asb_latency_host_probe(asb_latency_host_t *h);
void asb_latency_host_sample(asb_latency_host_t *h); /* after each round: load1_max */
void asb_latency_host_finish(asb_latency_host_t *h);

#endif
