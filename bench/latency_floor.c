/* latency_floor - what each profile adds to the cheapest possible programs.
 *
 * `python3 -c pass` and `/bin/true`, bare (posix_spawn + wait) and under every profile through
 * the public API, interleaved round by round in a shuffled order so drift and noise hit all arms
 * alike. Prints medians and the ratio to bare, measured in this run. Not a test: no pass/fail.
 *
 * Arm "hardened+pool": asb_pool_run on a pool of one prepared hardened sandbox. Measured is what
 * the caller waits for (the job: files, workload setup and attestation, the program, teardown);
 * the preparation runs on the pool's thread beforehand. After each pooled run the bench waits,
 * untimed, until the pool is full again, so that background work never overlaps another arm's
 * measurement; every pooled run must have found its sandbox prepared. */
#include "agent_sandbox.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

extern char **environ;

static double run_bare(char *const *argv)
{
    double t = now_s();
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        fprintf(stderr, "spawn %s failed\n", argv[0]);
        exit(1);
    }
    int st;
    waitpid(pid, &st, 0);
    posix_spawn_file_actions_destroy(&fa);
    return now_s() - t;
}

static double run_pool(asb_pool_t *pool, const char *const *argv)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = "hardened";
    cfg.argv = argv;
    asb_result_t res;
    asb_error_t err;
    double t = now_s();
    int rc = asb_pool_run(pool, &cfg, &res, &err);
    double d = now_s() - t;
    if (rc < 0 || res.status != ASB_STATUS_COMPLETED || res.exit_code != 0 || !res.prepared) {
        fprintf(stderr, "pooled run failed: %s\n",
                rc < 0         ? err.message
                : res.prepared ? res.error
                               : "sandbox was not prepared");
        exit(1);
    }
    asb_result_free(&res);
    while (asb_pool_ready(pool) < 1) /* refilled before anything else is timed */
        usleep(200);
    return d;
}

static double run_profile(const char *profile, const char *const *argv)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.argv = argv;
    asb_result_t res;
    asb_error_t err;
    double t = now_s();
    int rc = asb_run(&cfg, &res, &err);
    double d = now_s() - t;
    if (rc < 0 || res.status != ASB_STATUS_COMPLETED || res.exit_code != 0) {
        fprintf(stderr, "%s run failed: %s\n", profile, rc < 0 ? err.message : res.error);
        exit(1);
    }
    asb_result_free(&res);
    return d;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    if (rounds < 5)
        rounds = 5;
    const char *profiles[] = {"subprocess", "baseline", "hardened"};
    const char *const py[] = {"/usr/bin/python3", "-c", "pass", NULL};
    const char *const tr[] = {"/bin/true", NULL};
    const char *const *progs[] = {py, tr};
    const char *names[] = {"python3 -c pass", "/bin/true"};
    enum { ARMS = 5 };
    const char *arm_names[ARMS] = {"bare", "subprocess", "baseline", "hardened", "hardened+pool"};
    asb_config_t tmpl;
    asb_config_init(&tmpl);
    tmpl.profile = "hardened";
    asb_pool_t *pool = NULL;
    asb_error_t perr;
    if (asb_pool_new(&tmpl, 1, &pool, &perr) < 0) {
        fprintf(stderr, "pool: %s\n", perr.message);
        return 1;
    }
    double *t[2][ARMS];
    for (int p = 0; p < 2; p++)
        for (int a = 0; a < ARMS; a++)
            t[p][a] = calloc((size_t)rounds, sizeof(double));
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    /* Warm-up: page cache, dynamic loader, cgroup hierarchy. */
    for (int p = 0; p < 2; p++) {
        run_bare((char *const *)progs[p]);
        for (int a = 0; a < 3; a++)
            run_profile(profiles[a], progs[p]);
        while (asb_pool_ready(pool) < 1)
            usleep(200);
        run_pool(pool, progs[p]);
    }
    for (int r = 0; r < rounds; r++) {
        for (int p = 0; p < 2; p++) {
            int order[ARMS];
            shuffled(order, ARMS);
            for (int k = 0; k < ARMS; k++) {
                int a = order[k];
                t[p][a][r] = a == 0   ? run_bare((char *const *)progs[p])
                             : a == 4 ? run_pool(pool, progs[p])
                                      : run_profile(profiles[a - 1], progs[p]);
            }
        }
    }
    printf("latency_floor: %d rounds, interleaved, shuffled (seed %u)\n", rounds, seed);
    printf("%-16s %-14s %10s %10s %10s\n", "program", "arm", "median_ms", "delta_ms", "ratio");
    for (int p = 0; p < 2; p++) {
        double bare = median(t[p][0], rounds);
        printf("%-16s %-14s %10.2f %10s %10s\n", names[p], "bare", bare * 1e3, "-", "1.00x");
        for (int a = 1; a < ARMS; a++) {
            double m = median(t[p][a], rounds);
            printf("%-16s %-14s %10.2f %+10.2f %9.2fx\n", names[p], arm_names[a], m * 1e3,
                   (m - bare) * 1e3, m / bare);
        }
    }
    asb_pool_free(pool);
    return 0;
}
