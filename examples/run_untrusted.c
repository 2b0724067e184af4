/* run_untrusted.c - the public API alone: run a snippet of untrusted Python under the hardened
 * profile, then a few more through a pool of prepared sandboxes, and print what each record says.
 *
 * Build against an installed library (make install) or the build tree:
 *     cc -std=c17 -Iinclude examples/run_untrusted.c -Lbuild -lagentsandbox \
 *        -Wl,-rpath,"$PWD/build" -o run_untrusted
 *     sudo ./run_untrusted 'print(sum(range(10)))'
 * It needs what the hardened profile needs (root, user namespaces, cgroups: see
 * `agent-sandbox preflight`). */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c17 */
#include <agent_sandbox.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static void show(const char *what, const asb_result_t *r)
{
    printf("%s: [%s/%s] %s", what, r->backend, r->profile, asb_status_name(r->status));
    if (r->status == ASB_STATUS_COMPLETED)
        printf(" exit=%d", r->exit_code);
    printf(" %.3fs%s, attested %s\n", r->duration_s, r->prepared ? " (prepared)" : "",
           r->attestation.valid ? "yes" : "no");
    if (r->out.len)
        printf("  stdout: %.*s", (int)r->out.len, (const char *)r->out.data);
    if (r->error)
        printf("  error: %s\n", r->error);
}

int main(int argc, char **argv)
{
    const char *code = argc > 1 ? argv[1] : "print('hello from the sandbox')";
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = "hardened";
    cfg.code = code;
    cfg.limits.timeout_s = 5;

    /* One cold run: everything is built for it and removed after it. */
    asb_result_t res;
    asb_error_t err;
    int rc = asb_run(&cfg, &res, &err);
    show("cold", &res);
    asb_result_free(&res);
    if (rc < 0) {
        fprintf(stderr, "run_untrusted: %s\n", err.message);
        return 1;
    }

    /* Three more through a pool: the sandboxes are built and attested before the code is known,
     * each runs one job and is removed. The template gives the profile and the limits. */
    asb_config_t tmpl;
    asb_config_init(&tmpl);
    tmpl.profile = "hardened";
    tmpl.limits.timeout_s = 5;
    asb_pool_t *pool = NULL;
    if (asb_pool_new(&tmpl, 2, &pool, &err) < 0) {
        fprintf(stderr, "run_untrusted: pool: %s\n", err.message);
        return 1;
    }
    /* The pool prepares in the background; a run that finds none ready builds its own. */
    for (int waited = 0; asb_pool_ready(pool) < 1 && waited < 500; waited++)
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    int failed = 0;
    for (int i = 0; i < 3; i++) {
        rc = asb_pool_run(pool, &cfg, &res, &err);
        char what[16];
        snprintf(what, sizeof(what), "pooled %d", i + 1);
        show(what, &res);
        failed |= rc < 0 || res.status != ASB_STATUS_COMPLETED;
        asb_result_free(&res);
    }
    asb_pool_free(pool);
    return failed ? 1 : 0;
}
