/* pool.c - prepared sandboxes: a pool object keeps sandboxes of one profile built ahead.
 *
 * A background thread (one per pool; the library keeps no global state) prepares up to `size`
 * native sandboxes from the template's plan (native/native.h). A run takes one, hands it the job
 * and the sandbox is gone afterwards: nothing is reused, every run gets fresh namespaces, root,
 * cgroup, nonce and run id. When none is ready the run prepares its own, as asb_run does; the
 * controls are the same either way, only the waiting differs. The thread prepares only while no
 * run of the pool is in progress, so that it never competes with one. */
#include "agent_sandbox.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/plan.h"
#include "core/result.h"
#include "io/file_in.h"
#include "native/native.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX 16
#define POOL_RETRY_S 1 /* after a failed preparation: the host may lack something; don't spin */
/* Finished runs waiting for the thread to remove them (see asb_pool_run): few, as each may still
 * hold its run's tmpfs contents in memory. */
#define POOL_LINGER 2

struct asb_pool {
    asb_plan_t tmpl;
    unsigned size;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    asb_native_sandbox_t *ready[POOL_MAX];
    unsigned n_ready;
    asb_native_sandbox_t *linger[POOL_LINGER]; /* finished runs, for the thread to remove */
    unsigned n_linger;
    unsigned in_flight; /* runs inside asb_pool_run: the thread outlives them (see free) */
    bool preparing;     /* the thread is building one right now */
    bool stop;
    pthread_t thread;
    pid_t owner; /* a pool belongs to the process that made it (its thread does not fork) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* While it waits, the thread is SCHED_BATCH: the scheduler never lets a batch task that wakes
 * preempt a running one. A run's end wakes this thread (a sandbox to replace) just as the caller
 * is about to return, and, woken as SCHED_OTHER on the caller's CPU, it took that CPU for ~1.1 ms
 * before asb_pool_run could return (measured: half of all the pool added to /bin/true). It is
 * SCHED_OTHER again before it prepares anything, so the sandbox it makes inherits the caller's
 * policy as a cold run's does. Only for a thread that began as SCHED_OTHER (switching between
 * the two needs no privilege); any other policy the caller chose is left alone, and so is one
 * set from outside while it waited (chrt -a): then it stops switching (*batch = false). False
 * when it cannot get back to SCHED_OTHER: it must not prepare then (review finding). */
static bool wait_quietly(asb_pool_t *p, bool *batch, const struct timespec *until)
{
    struct sched_param sp = {.sched_priority = 0};
    bool switched = *batch && pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp) == 0;
    if (until)
        pthread_cond_timedwait(&p->cv, &p->mu, until);
    else
        pthread_cond_wait(&p->cv, &p->mu);
    if (!switched)
        return true;
    int policy = -1;
    struct sched_param now;
    if (pthread_getschedparam(pthread_self(), &policy, &now) != 0)
        return false;
    if (policy != SCHED_BATCH) {
        *batch = false; /* someone else's choice now */
        return true;
    }
    return pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp) == 0;
}

static void *preparer(void *arg)
{
    asb_pool_t *p = arg;
    int policy = -1;
    struct sched_param sp;
    bool batch = pthread_getschedparam(pthread_self(), &policy, &sp) == 0 && policy == SCHED_OTHER;
    bool stuck = false; /* left SCHED_BATCH: prepares nothing more (runs prepare their own) */
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        /* Prepare only while no run of this pool is in progress: preparation is kernel work
         * (namespaces, mounts, cgroups, RCU grace periods) that would otherwise slow the very
         * runs it is meant to speed up. Runs that find the pool empty prepare their own. */
        if (p->in_flight == 0 && p->n_linger > 0) {
            /* Finished runs first: their memory goes back before a new sandbox takes more. */
            asb_native_sandbox_t *done[POOL_LINGER];
            unsigned n = p->n_linger;
            memcpy(done, p->linger, n * sizeof(done[0]));
            p->n_linger = 0;
            pthread_mutex_unlock(&p->mu);
            for (unsigned i = 0; i < n; i++)
                asb_native_discard(done[i]);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        if (p->n_ready >= p->size || p->in_flight > 0 || stuck) {
            stuck |= !wait_quietly(p, &batch, NULL);
            continue;
        }
        p->preparing = true;
        pthread_mutex_unlock(&p->mu);
        /* Each sandbox its own nonce and run id (cgroup name, owner tags). */
        asb_plan_t t = p->tmpl;
        asb_error_t err;
        asb_native_sandbox_t *sb = NULL;
        int rc = asb_random_hex(t.run_id, 8, &err);
        if (rc == 0)
            rc = asb_random_hex(t.nonce, 16, &err);
        if (rc == 0)
            rc = asb_native_prepare(&t, &sb, &err);
        pthread_mutex_lock(&p->mu);
        p->preparing = false;
        pthread_cond_broadcast(&p->cv); /* a run may be waiting for this one */
        if (rc == 0 && !p->stop) {
            p->ready[p->n_ready++] = sb;
        } else if (rc == 0) {
            pthread_mutex_unlock(&p->mu);
            asb_native_discard(sb);
            pthread_mutex_lock(&p->mu);
        } else if (!p->stop) {
            /* A run without a prepared sandbox prepares its own and reports the same error
             * itself; here only wait before trying again. */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += POOL_RETRY_S;
            stuck |= !wait_quietly(p, &batch, &until);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int pool_new(const asb_config_t *tmpl, unsigned size, asb_pool_t **out, asb_error_t *err)
{
    asb_error_t local;
    if (!err)
        err = &local;
    asb_err_clear(err);
    if (!out)
        return asb_err(err, -EINVAL, "pool: nowhere to put it");
    *out = NULL;
    if (!tmpl)
        return asb_err(err, -EINVAL, "pool: no template config");
    if (size < 1 || size > POOL_MAX)
        return asb_err(err, -EINVAL, "pool: size %u is out of range (1..%d)", size, POOL_MAX);
    /* Each prepared sandbox holds its descriptors (pidfd, sockets, pipes, namespace and
     * cgroup fds) in the caller's table: a pool of 16 under a soft limit of 256 left the
     * caller's own open() failing and pooled runs with files in failing at random (QA
     * finding). At most half of the caller's soft limit goes to the pool. */
    struct rlimit nf;
    if (getrlimit(RLIMIT_NOFILE, &nf) == 0 && nf.rlim_cur != RLIM_INFINITY &&
        (uint64_t)size * ASB_POOL_FDS_PER_SANDBOX > nf.rlim_cur / 2)
        return asb_err(
            err, -EMFILE,
            "pool: %u prepared sandboxes hold about %u file descriptors, more than "
            "half of the caller's RLIMIT_NOFILE soft limit (%llu): ask for at most %llu, "
            "or raise the limit",
            size, size * ASB_POOL_FDS_PER_SANDBOX, (unsigned long long)nf.rlim_cur,
            (unsigned long long)(nf.rlim_cur / 2 / ASB_POOL_FDS_PER_SANDBOX));
    /* Only what shapes the sandbox counts; what to run is the job's. */
    asb_config_t c = *tmpl;
    static const char *const placeholder[] = {"true", NULL};
    c.argv = placeholder;
    c.code = NULL, c.code_len = 0, c.interpreter = NULL, c.code_name = NULL;
    c.stdin_data = NULL, c.stdin_len = 0;
    c.files_in = NULL, c.n_files_in = 0, c.files_out = NULL, c.n_files_out = 0;
    c.env = NULL, c.n_env = 0;
    c.cancellable = false; /* a run's own, never the pool's */
    asb_pool_t *p = calloc(1, sizeof(*p));
    if (!p)
        return asb_err_sys(err, ENOMEM, "pool");
    int rc = asb_plan_build(&c, &p->tmpl, err);
    if (rc < 0) {
        asb_plan_free(&p->tmpl);
        free(p);
        return asb_err_wrap(err, "pool template");
    }
    /* Its thread writes each sandbox's spec in the caller's name at once: a soft RLIMIT_FSIZE
     * too low for that is refused now, not a SIGXFSZ later (review finding). */
    if ((rc = asb_check_caller_fsize(&p->tmpl, err)) < 0) {
        asb_plan_free(&p->tmpl);
        free(p);
        return rc;
    }
    if (strcmp(p->tmpl.backend, "native") != 0) {
        rc = asb_err(err, -ENOTSUP,
                     "pool: prepared sandboxes are for the native backend (the template asks "
                     "for %s/%s)",
                     p->tmpl.backend, p->tmpl.profile.name);
        asb_plan_free(&p->tmpl);
        free(p);
        return rc;
    }
    /* Any job may bring a program (an executable file in): every prepared sandbox has the
     * place for it. */
    p->tmpl.exec_dir = true;
    p->size = size;
    p->owner = getpid();
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    /* The thread takes no signals: they stay with the caller's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->thread, NULL, preparer, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        asb_plan_free(&p->tmpl);
        free(p);
        return asb_err_sys(err, rc, "pool: start its thread");
    }
    *out = p;
    return 0;
}

/* The job must fit the sandbox: same profile, weakenings and sandbox-shaping limits. */
static const char *mismatch(const asb_plan_t *t, const asb_plan_t *j)
{
    if (strcmp(t->backend, j->backend) != 0)
        return "backend";
    if (strcmp(t->profile.name, j->profile.name) != 0)
        return "profile";
    if (t->weaken != j->weaken)
        return "weakened controls";
    if (t->limits.memory_bytes != j->limits.memory_bytes)
        return "memory limit";
    if (t->limits.pids != j->limits.pids)
        return "pids limit";
    if (t->limits.cpus != j->limits.cpus)
        return "cpu limit";
    if (t->limits.fsize_bytes != j->limits.fsize_bytes)
        return "file size limit";
    if (t->limits.nofile != j->limits.nofile)
        return "open files limit";
    if (t->limits.io_read_bps != j->limits.io_read_bps ||
        t->limits.io_read_iops != j->limits.io_read_iops)
        return "disk read limit";
    return NULL;
}

static int pool_run(asb_pool_t *pool, const asb_config_t *cfg, asb_result_t *res, asb_error_t *err)
{
    double t0 = now_s();
    asb_error_t local;
    if (!err)
        err = &local;
    asb_err_clear(err);
    if (!res)
        return asb_err(err, -EINVAL, "no result to fill");
    asb_result_init(res);
    if (!pool || pool->owner != getpid()) {
        asb_err(err, -EINVAL,
                pool ? "pool: made by process %d, used in process %d (a forked child has no "
                       "preparing thread; make a pool in the process that uses it)"
                     : "no pool",
                pool ? (int)pool->owner : 0, (int)getpid());
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, err->message);
        return err->code;
    }
    asb_plan_t plan;
    int rc = asb_plan_build(cfg, &plan, err);
    if (rc == 0)
        rc = asb_check_caller_nofile(err);
    if (rc == 0)
        rc = asb_check_caller_fsize(&plan, err);
    if (rc == 0) {
        asb_run_fill_header(res, &plan);
        const char *what = mismatch(&pool->tmpl, &plan);
        if (what)
            rc = asb_err(err, -EINVAL,
                         "pool: the run's %s differs from the pool's template (a prepared "
                         "sandbox runs only what it was prepared for)",
                         what);
    } else {
        snprintf(res->profile, sizeof(res->profile), "%s",
                 cfg && cfg->profile ? cfg->profile : "hardened");
    }
    /* The files in are checked before a sandbox is taken: a missing one must not use up a
     * prepared sandbox (they are opened again, and checked again, when the job is built). */
    for (size_t i = 0; rc == 0 && i < plan.n_files_in; i++) {
        int fd;
        uint64_t size;
        rc = asb_file_in_open(plan.files_in[i].host_path, plan.limits.file_in_bytes, &fd, &size,
                              err);
        if (rc == 0)
            close(fd);
    }
    /* Cancelled already: no prepared sandbox is used up for it (review finding). */
    if (rc == 0 && asb_plan_cancelled(&plan))
        rc = asb_err(err, -ECANCELED, "the run was cancelled by the caller before it began");
    asb_native_sandbox_t *sb = NULL;
    if (rc == 0) {
        pthread_mutex_lock(&pool->mu);
        if (pool->stop) { /* asb_pool_free has begun: a caller bug, refused, not a crash */
            pthread_mutex_unlock(&pool->mu);
            rc = asb_err(err, -ESHUTDOWN, "pool: being freed");
            goto done;
        }
        pool->in_flight++;
        /* One half built already is closer than a new one: wait for it. */
        while (pool->n_ready == 0 && pool->preparing)
            pthread_cond_wait(&pool->cv, &pool->mu);
        /* A prepared sandbox that died while it waited (killed, OOM) never gets a job. */
        while (!sb && pool->n_ready > 0) {
            sb = pool->ready[--pool->n_ready];
            if (!asb_native_alive(sb)) {
                pthread_mutex_unlock(&pool->mu);
                asb_native_discard(sb);
                sb = NULL;
                pthread_mutex_lock(&pool->mu);
            }
        }
        pthread_cond_broadcast(&pool->cv); /* one to replace */
        pthread_mutex_unlock(&pool->mu);
        res->prepared = sb != NULL;
        if (!sb)
            rc = asb_native_prepare(&plan, &sb, err);
        /* What is left of a finished run (an empty cgroup, a mount namespace without processes)
         * is removed by the thread after the run has returned: unmounting waits for an RCU
         * grace period (~0.4 ms of every pooled run when the supervisor's exit did it), and the
         * cgroup's removal is ~0.1 ms. The verdict waits for neither: every process of the run
         * is gone and the supervisor's exit status and the cgroup's counters are read first. */
        asb_native_sandbox_t *remains = NULL;
        if (rc == 0)
            rc = asb_native_run_prepared(sb, &plan, res, err, &remains);
        if (rc == -ESTALE && res->prepared) {
            /* The prepared sandbox ended (killed, its workload gone) after it was taken and
             * before the job reached it: nothing of the job ran, so it runs in a sandbox of its
             * own, as when none is ready. Only then: a job that was handed over is never run
             * twice. */
            asb_result_free(res);
            asb_result_init(res);
            asb_run_fill_header(res, &plan);
            asb_err_clear(err);
            sb = NULL;
            rc = asb_native_prepare(&plan, &sb, err);
            if (rc == 0)
                rc = asb_native_run_prepared(sb, &plan, res, err, &remains);
        }
        pthread_mutex_lock(&pool->mu);
        pool->in_flight--;
        if (remains && pool->n_linger < POOL_LINGER) {
            pool->linger[pool->n_linger++] = remains;
            remains = NULL;
        }
        pthread_cond_broadcast(&pool->cv);
        pthread_mutex_unlock(&pool->mu);
        asb_native_discard(remains); /* the thread is behind (runs back to back): this run pays */
    }
done:
    asb_plan_free(&plan);
    if (rc < 0) {
        res->status = ASB_STATUS_SANDBOX_ERROR;
        asb_result_set_error(res, err->message);
    }
    res->duration_s = now_s() - t0; /* all the caller waited for */
    return rc;
}

unsigned asb_pool_ready(asb_pool_t *pool)
{
    if (!pool || pool->owner != getpid())
        return 0; /* a forked copy: its mutex may be held by a thread that is not here */
    pthread_mutex_lock(&pool->mu);
    unsigned n = pool->n_ready;
    pthread_mutex_unlock(&pool->mu);
    return n;
}

static void pool_free(asb_pool_t *pool)
{
    if (!pool)
        return;
    if (pool->owner != getpid())
        return; /* a forked copy: the thread and the sandboxes are the parent's, not ours */
    pthread_mutex_lock(&pool->mu);
    /* A sandbox dies with the thread that made it (PDEATHSIG): wait for runs still in progress
     * before the thread may end. */
    while (pool->in_flight > 0)
        pthread_cond_wait(&pool->cv, &pool->mu);
    pool->stop = true;
    pthread_cond_broadcast(&pool->cv);
    pthread_mutex_unlock(&pool->mu);
    pthread_join(pool->thread, NULL);
    pthread_mutex_lock(&pool->mu);
    unsigned n = pool->n_ready;
    pool->n_ready = 0;
    pthread_mutex_unlock(&pool->mu);
    for (unsigned i = 0; i < n; i++)
        asb_native_discard(pool->ready[i]);
    for (unsigned i = 0; i < pool->n_linger; i++)
        asb_native_discard(pool->linger[i]);
    pthread_cond_destroy(&pool->cv);
    pthread_mutex_destroy(&pool->mu);
    asb_plan_free(&pool->tmpl);
    free(pool);
}

/* Not cancellation points (agent_sandbox.h): a pthread_cancel waits until the call has cleaned
 * up (as asb_run, run.c). */
int asb_pool_new(const asb_config_t *tmpl, unsigned size, asb_pool_t **out, asb_error_t *err)
{
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    int rc = pool_new(tmpl, size, out, err);
    pthread_setcancelstate(old, NULL);
    return rc;
}

int asb_pool_run(asb_pool_t *pool, const asb_config_t *cfg, asb_result_t *res, asb_error_t *err)
{
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    int rc = pool_run(pool, cfg, res, err);
    pthread_setcancelstate(old, NULL);
    return rc;
}

void asb_pool_free(asb_pool_t *pool)
{
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    pool_free(pool);
    pthread_setcancelstate(old, NULL);
}
