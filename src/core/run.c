#include "core/backend.h"
#include "core/error.h"
#include "core/plan.h"
#include "core/limits.h"
#include "core/result.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

void asb_run_fill_header(asb_result_t *res, const asb_plan_t *plan)
{
    snprintf(res->backend, sizeof(res->backend), "%s", plan->backend);
    snprintf(res->profile, sizeof(res->profile), "%s", plan->profile.name);
    res->limits_requested = plan->requested;
    res->limits_enforced = plan->limits;
    /* Without the cgroup (a latency ablation, a chaos control) nothing enforces these three:
     * the record must not claim them (red-team finding). 0 is "no limit". */
    if (plan->weaken & ASB_WEAKEN_CGROUP) {
        res->limits_enforced.memory_bytes = 0;
        res->limits_enforced.pids = 0;
        res->limits_enforced.cpus = 0;
    }
    res->weakened = plan->weaken;
}

int asb_check_caller_nofile(asb_error_t *err)
{
    /* A run opens a few dozen descriptors of its own (pipes, memfds, cgroup files, pidfds): a
     * caller whose soft limit leaves less got a bare "Too many open files" from whichever open
     * came first (QA finding: soft 10). Said up front instead; the limit is the caller's to
     * raise (it also passes down to the program, so it is not raised here). */
    struct rlimit nf;
    if (getrlimit(RLIMIT_NOFILE, &nf) == 0 && nf.rlim_cur < ASB_MIN_CALLER_NOFILE)
        return asb_err(err, -EMFILE,
                       "the caller's RLIMIT_NOFILE soft limit is %llu; a run needs at least %d "
                       "file descriptors (raise it before the run, e.g. ulimit -n %d)",
                       (unsigned long long)nf.rlim_cur, ASB_MIN_CALLER_NOFILE,
                       ASB_MIN_CALLER_NOFILE);
    return 0;
}

int asb_check_caller_fsize(const asb_plan_t *plan, asb_error_t *err)
{
    /* The caller's soft limit applies to every file and memfd the library writes for the run,
     * and, natively, to its supervisor's setup: a caller below it was killed by SIGXFSZ inside
     * asb_run, its run's cgroups and id slot left behind (QA finding: under `ulimit -f 0` every
     * native run killed the CLI at a 12-byte write). Said up front instead. */
    struct rlimit fs;
    if (getrlimit(RLIMIT_FSIZE, &fs) < 0 || fs.rlim_cur == RLIM_INFINITY)
        return 0;
    uint64_t need = ASB_MIN_CALLER_FSIZE;
    if (plan->stdin_len > need)
        need = plan->stdin_len;
    if (plan->code_len > need)
        need = plan->code_len;
    for (size_t i = 0; i < plan->n_files_in; i++) {
        struct stat st;
        if (stat(plan->files_in[i].host_path, &st) == 0 && S_ISREG(st.st_mode)) {
            uint64_t n = (uint64_t)st.st_size;
            if (n > plan->limits.file_in_bytes)
                n = plan->limits.file_in_bytes; /* more is refused, never written */
            if (n > need)
                need = n;
        }
    }
    if ((uint64_t)fs.rlim_cur < need)
        return asb_err(err, -EFBIG,
                       "the caller's RLIMIT_FSIZE soft limit is %llu bytes; this run writes up to "
                       "%llu bytes into files of its own (stdin, code, files in, the sandbox's "
                       "setup: raise it before the run, e.g. ulimit -f unlimited)",
                       (unsigned long long)fs.rlim_cur, (unsigned long long)need);
    return 0;
}

static int run(const asb_config_t *cfg, asb_result_t *res, asb_error_t *err)
{
    asb_error_t local;
    if (!err)
        err = &local;
    asb_err_clear(err);
    if (!res)
        return asb_err(err, -22, "no result to fill");
    asb_result_init(res);

    asb_plan_t plan;
    int rc = asb_plan_build(cfg, &plan, err);
    if (rc == 0) {
        asb_run_fill_header(res, &plan);
        rc = asb_check_caller_nofile(err);
        if (rc == 0)
            rc = asb_check_caller_fsize(&plan, err);
    }
    if (rc == 0) {
        if (strcmp(plan.backend, "subprocess") == 0)
            rc = asb_subprocess_run(&plan, res, err);
        else if (strcmp(plan.backend, "docker") == 0)
            rc = asb_docker_run(&plan, res, err);
        else
            rc = asb_native_run(&plan, res, err);
    } else if (!res->backend[0]) {
        /* A config the plan refused: the record still names the backend it asked for. */
        const char *prof = cfg && cfg->profile ? cfg->profile : "hardened";
        snprintf(res->profile, sizeof(res->profile), "%s", prof);
        snprintf(res->backend, sizeof(res->backend), "%s",
                 strcmp(prof, "subprocess") == 0 ? "subprocess"
                 : (cfg && cfg->backend && strcmp(cfg->backend, "docker") == 0) ||
                         strncmp(prof, "docker-", 7) == 0
                     ? "docker"
                     : "native");
    }
    asb_plan_free(&plan);
    if (rc < 0) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, err->message);
    }
    return rc;
}

/* A pthread_cancel of a caller's thread inside a run killed it in a blocking call with nothing
 * removed: the run's fds, its id slot and its cgroups stayed for the life of the process
 * (review finding). The cancel waits until the run has cleaned up. */
int asb_run(const asb_config_t *cfg, asb_result_t *res, asb_error_t *err)
{
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    int rc = run(cfg, res, err);
    pthread_setcancelstate(old, NULL);
    return rc;
}
