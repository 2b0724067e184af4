/* docker_overhead.c - our docker backend vs a plain `docker run --rm` with the same isolation
 * flags, interleaved, on `python3 -c 'print(2+2)'`.
 *
 * The plain run gets the same flags as our create request (network, read-only root, user,
 * capabilities, no-new-privileges, memory/swap, pids, cpus, tmpfs, ulimits, log driver), but runs
 * the interpreter directly: it measures what the engine costs, and the ratio is what we add on top
 * (inspect + verify, the supervisor, attestation, the final inspect, the removal). Target: <= 1.1.
 * Usage: docker_overhead [ROUNDS] (default 20). Needs a reachable engine and the default image. */
#include "agent_sandbox.h"
#include "core/owner.h"
#include "core/plan.h"
#include "docker/docker.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

/* The plain `docker run` argv: our request's flags, the interpreter as entrypoint. */
static char **plain_argv(void)
{
    static const char *const argv[] = {"/usr/bin/python3", "-c", "print(2+2)", NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = "hardened";
    cfg.backend = "docker";
    cfg.argv = argv;
    asb_plan_t plan;
    asb_error_t err;
    char sup[4096], owner[64];
    if (asb_plan_build(&cfg, &plan, &err) < 0 ||
        asb_docker_supervisor_path(sup, sizeof(sup), &err) < 0 ||
        asb_owner_tag(owner, sizeof(owner)) < 0) {
        fprintf(stderr, "docker_overhead: %s\n", err.message);
        exit(1);
    }
    asb_docker_req_ctx_t ctx = {.supervisor = sup, .owner_tag = owner};
    json_t *body = asb_docker_create_body(&plan, &ctx);
    char **full = asb_docker_run_argv(body, NULL);
    json_decref(body);
    asb_plan_free(&plan);
    size_t n = 0;
    while (full[n])
        n++;
    char **out = calloc(n + 4, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(full[i], "--env") || !strcmp(full[i], "--label")) {
            i++; /* our spec and owner label are ours, not the engine's cost */
            continue;
        }
        if (!strncmp(full[i], "--entrypoint=", 13)) {
            out[k++] = strdup("--entrypoint=/usr/bin/python3");
            continue;
        }
        if (!strcmp(full[i], "--container"))
            continue;
        out[k++] = strdup(full[i]);
    }
    out[k++] = strdup("-c");
    out[k++] = strdup("print(2+2)");
    asb_docker_strv_free(full);
    return out;
}

static double run_plain(char **argv)
{
    double t0 = now_s();
    pid_t p = fork();
    if (p == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 1);
        execvp("docker", argv);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "docker_overhead: plain docker run failed (status %d)\n", st);
        exit(1);
    }
    return now_s() - t0;
}

static double run_ours(void)
{
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = "hardened";
    cfg.backend = "docker";
    cfg.code = "print(2+2)";
    asb_result_t r;
    asb_error_t err;
    double t0 = now_s();
    int rc = asb_run(&cfg, &r, &err);
    double t = now_s() - t0;
    if (rc < 0 || r.status != ASB_STATUS_COMPLETED || r.out.len != 2) {
        fprintf(stderr, "docker_overhead: our run failed: %s\n", rc < 0 ? err.message : "status");
        exit(1);
    }
    asb_result_free(&r);
    return t;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (rounds < 3 || rounds > 1000) {
        fprintf(stderr, "usage: docker_overhead [ROUNDS 3..1000]\n");
        return 2;
    }
    char **plain = plain_argv();
    double *a = calloc((size_t)rounds, sizeof(double)), *b = calloc((size_t)rounds, sizeof(double));
    run_plain(plain); /* warm the page cache and the engine once for each */
    run_ours();
    for (int i = 0; i < rounds; i++) {
        /* Interleaved, alternating which goes first, so drift hits both alike. */
        if (i % 2) {
            a[i] = run_plain(plain);
            b[i] = run_ours();
        } else {
            b[i] = run_ours();
            a[i] = run_plain(plain);
        }
    }
    double ma = median(a, rounds), mb = median(b, rounds);
    printf("docker_overhead: %d interleaved rounds, python3 -c 'print(2+2)', hardened flags\n",
           rounds);
    printf("  plain docker run --rm   median %.3f s\n", ma);
    printf("  agent-sandbox docker    median %.3f s\n", mb);
    printf("  ratio %.2fx (target <= 1.10x): %s\n", mb / ma, mb / ma <= 1.10 ? "PASS" : "MISS");
    for (size_t i = 0; plain[i]; i++)
        free(plain[i]);
    free(plain);
    free(a);
    free(b);
    return 0;
}
