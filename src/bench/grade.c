/* grade.c - candidate phase, then grader phase, then the verdict from the grader's proof. */
#include "bench/grade.h"
#include "bench/grader_driver.h"
#include "core/error.h"
#include "core/owner.h"
#include "core/limits.h"
#include "core/plan.h"
#include "io/rmtree.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BENCH_TAIL_MAX 300

const char *asb_bench_verdict_name(asb_bench_verdict_t v)
{
    switch (v) {
    case ASB_BENCH_PASS:
        return "pass";
    case ASB_BENCH_FAIL:
        return "fail";
    case ASB_BENCH_VOID:
        return "void";
    case ASB_BENCH_ERROR:
        return "error";
    }
    return "error";
}

void asb_bench_lane_config(const asb_bench_lane_t *lane, asb_config_t *cfg)
{
    if (strcmp(lane->sandbox, "subprocess") == 0) {
        cfg->profile = "subprocess";
    } else {
        cfg->profile = lane->profile ? lane->profile : "hardened";
        cfg->backend = lane->sandbox;
        cfg->docker_image = lane->docker_image;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *asb_bench_printable(const unsigned char *data, size_t start, size_t end)
{
    if (end - start > BENCH_TAIL_MAX)
        start = end - BENCH_TAIL_MAX;
    char *s = malloc(end - start + 1);
    if (!s)
        return NULL;
    size_t n = 0;
    for (size_t i = start; i < end; i++) {
        unsigned char c = data[i];
        /* Printable ASCII only, and no '"' or '\\': the tail is quoted in reasons (a candidate
         * closing the quote could write words that read as ours; review finding). */
        s[n++] = (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? (char)c : '?';
    }
    s[n] = '\0';
    return s;
}

char *asb_bench_error_line(const unsigned char *data, size_t len)
{
    for (size_t start = 0, i = 0; data && i <= len; i++) {
        if (i < len && data[i] != '\n')
            continue;
        if (memmem(data + start, i - start, "rror", 4))
            return asb_bench_printable(data, start, i);
        start = i + 1;
    }
    return NULL;
}

/* The last non-empty line of a stream, as printable ASCII: it goes into artifacts and terminals,
 * and the candidate chose its bytes. */
static char *tail_line(const asb_bytes_t *b)
{
    size_t end = b->len;
    while (end > 0 &&
           (b->data[end - 1] == '\n' || b->data[end - 1] == '\r' || b->data[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && b->data[start - 1] != '\n')
        start--;
    return asb_bench_printable(b->data, start, end);
}

void asb_bench_phase_record(asb_bench_phase_t *ph, int rc, const asb_result_t *res,
                            const asb_error_t *err)
{
    ph->ran = true;
    ph->ok = rc == 0;
    snprintf(ph->backend, sizeof(ph->backend), "%s", res->backend);
    snprintf(ph->profile, sizeof(ph->profile), "%s", res->profile);
    ph->status = res->status;
    ph->exit_code = res->exit_code;
    ph->signal = res->signal;
    ph->timed_out = res->timed_out;
    ph->out_of_memory = res->out_of_memory;
    ph->stdout_truncated = res->stdout_truncated;
    ph->duration_s = res->duration_s;
    ph->cpu_time_s = res->cpu_time_s;
    ph->attestation_present = res->attestation.present;
    ph->attestation_valid = res->attestation.valid;
    ph->limits_known = res->status != ASB_STATUS_SANDBOX_ERROR;
    ph->limits = res->limits_enforced;
    if (rc < 0)
        ph->error = strdup(err->message[0] ? err->message : "sandbox error");
    else if (res->status == ASB_STATUS_SANDBOX_ERROR && res->error)
        ph->error = strdup(res->error);
    ph->stderr_tail = tail_line(&res->err);
}

void asb_bench_phase_free(asb_bench_phase_t *ph)
{
    free(ph->error);
    free(ph->stderr_tail);
    memset(ph, 0, sizeof(*ph));
}

void asb_bench_row_free(asb_bench_row_t *row)
{
    free(row->reason);
    free(row->first_reason);
    asb_bench_phase_free(&row->candidate);
    asb_bench_phase_free(&row->grader);
    memset(row, 0, sizeof(*row));
}

static void set_reason(asb_bench_row_t *row, asb_bench_verdict_t v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_reason(asb_bench_row_t *row, asb_bench_verdict_t v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(row->reason);
    if (vasprintf(&row->reason, fmt, ap) < 0)
        row->reason = NULL;
    va_end(ap);
    row->verdict = v;
    row->score = v == ASB_BENCH_PASS ? 1.0 : 0.0;
}

/* A private host directory holding fresh copies of the candidate's files, passed into the
 * sandbox as files-in. Each phase gets its own: nothing the candidate phase did reaches the
 * grader phase. */
#define BENCH_TMP_PARENT "/tmp"
#define BENCH_PATH_MAX 512

typedef struct phase_io {
    char dir[BENCH_PATH_MAX];
    int dirfd;
    asb_file_in_t fin[ASB_BENCH_MAX_FILES];
    char paths[ASB_BENCH_MAX_FILES][BENCH_PATH_MAX];
} phase_io_t;

static int stage_files(const asb_bench_files_t *cand, phase_io_t *io, asb_error_t *err)
{
    /* Owner-tagged like every temp dir of ours, so that cleanup removes those of a killed
     * harness (they hold candidate source; red-team finding). */
    char tag[96];
    if (asb_owner_tag(tag, sizeof(tag) - 1) < 0) {
        io->dir[0] = '\0';
        return asb_err(err, -ENAMETOOLONG, "owner tag");
    }
    strcat(tag, "-");
    int rc = asb_mkdtemp_owned(BENCH_TMP_PARENT, tag, io->dir, sizeof(io->dir), &io->dirfd, err);
    if (rc < 0) {
        io->dir[0] = '\0';
        return rc;
    }
    for (size_t i = 0; i < cand->n; i++) {
        const asb_bench_file_t *f = &cand->files[i];
        snprintf(io->paths[i], sizeof(io->paths[i]), "%s/%s", io->dir, f->name);
        int fd =
            openat(io->dirfd, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
            return asb_err_sys(err, errno, "create %s", io->paths[i]);
        size_t off = 0;
        while (off < f->len) {
            ssize_t w = write(fd, f->content + off, f->len - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                int e = errno;
                close(fd);
                return asb_err_sys(err, e, "write %s", io->paths[i]);
            }
            off += (size_t)w;
        }
        if (close(fd) < 0)
            return asb_err_sys(err, errno, "close %s", io->paths[i]);
        io->fin[i].host_path = io->paths[i];
        io->fin[i].name = f->name;
        io->fin[i].executable = false;
    }
    return 0;
}

static void unstage(phase_io_t *io)
{
    if (io->dirfd >= 0)
        close(io->dirfd);
    io->dirfd = -1;
    if (!io->dir[0])
        return;
    int parent = open(BENCH_TMP_PARENT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent >= 0) {
        asb_error_t rerr;
        asb_rmtree_at(parent, strrchr(io->dir, '/') + 1, &rerr);
        close(parent);
    }
    io->dir[0] = '\0';
}

/* Run one phase: argv over the candidate's staged files, with optional stdin. */
static int run_phase(const asb_bench_lane_t *lane, const asb_bench_task_t *task,
                     const asb_bench_files_t *cand, const char *const *argv, const char *stdin_data,
                     asb_result_t *res, asb_bench_phase_t *ph, asb_error_t *err)
{
    /* Whatever happens below, *res is something asb_result_free() may take: a staging failure
     * never reaches asb_run(), and the caller frees *res on every path (review finding,
     * session 17: it freed an uninitialised result). */
    memset(res, 0, sizeof(*res));
    phase_io_t *io = calloc(1, sizeof(*io));
    if (!io)
        return asb_err_sys(err, ENOMEM, "phase");
    io->dirfd = -1;
    int rc = stage_files(cand, io, err);
    if (rc == 0) {
        asb_config_t cfg;
        asb_config_init(&cfg);
        asb_bench_lane_config(lane, &cfg);
        cfg.argv = argv;
        cfg.files_in = io->fin;
        cfg.n_files_in = cand->n;
        cfg.limits.timeout_s = task->timeout_s;
        /* The subprocess lane enforces no memory limit, and the library refuses to be asked
         * for one it would not enforce: the task's limit applies in the sandboxed lanes. */
        if (strcmp(lane->sandbox, "subprocess") != 0)
            cfg.limits.memory_bytes = task->memory_bytes;
        if (stdin_data) {
            cfg.stdin_data = stdin_data;
            cfg.stdin_len = strlen(stdin_data);
        }
        rc = asb_run(&cfg, res, err);
        asb_bench_phase_record(ph, rc, res, err);
    }
    unstage(io);
    free(io);
    return rc;
}

/* stdout holds the completion line with this run's secret. The secret is 32 random hex chars
 * that only the grader's parent process ever held, so its presence proves check() returned. */
bool asb_bench_proved_complete(const unsigned char *data, size_t len, const char *secret)
{
    /* No secret proves nothing: "\nMARK \n" is a line anyone can print. */
    if (!data || !secret || !secret[0])
        return false;
    char mark[sizeof(ASB_BENCH_COMPLETE_MARK) + 40];
    int n = snprintf(mark, sizeof(mark), "\n" ASB_BENCH_COMPLETE_MARK "%s\n", secret);
    /* A secret too long for the buffer would be cut: a shorter mark that a guess could match. */
    if (n < 0 || (size_t)n >= sizeof(mark))
        return false;
    return memmem(data, len, mark, (size_t)n) != NULL;
}

static char *oracle_input(const asb_bench_task_t *task, const char *secret)
{
    json_t *o = json_pack("{s:s, s:s, s:s}", "secret", secret, "setup", task->oracle_setup, "test",
                          task->oracle_test);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

int asb_bench_grade_task(const asb_bench_lane_t *lane, const asb_bench_task_t *task,
                         const asb_bench_files_t *cand, asb_bench_row_t *row)
{
    memset(row, 0, sizeof(*row));
    double t0 = now_s();
    const char *py = lane->python ? lane->python : ASB_DEFAULT_INTERPRETER;
    asb_error_t err;
    asb_err_clear(&err);
    asb_result_t res;
    char *input = NULL;

    if (!cand || cand->n == 0) {
        set_reason(row, ASB_BENCH_FAIL, "no submission for this task");
        goto out;
    }
    bool has_entry = false;
    for (size_t i = 0; i < cand->n; i++)
        has_entry = has_entry || strcmp(cand->files[i].name, task->entry_file) == 0;
    if (!has_entry) {
        set_reason(row, ASB_BENCH_FAIL, "the submission has no %s", task->entry_file);
        goto out;
    }

    /* Phase 1: the candidate alone, in its own sandbox, which ends (and is destroyed) before
     * any oracle exists anywhere the lane can reach. */
    /* -E -s, not -I: the script's directory stays first on sys.path, as in `python3 FILE` and
     * in the grader, where the candidate's module is imported beside its own files; under -I a
     * candidate of several files died at its first local import here, so this phase's checks
     * (hang, flood, memory at import) never saw it run (QA finding). */
    const char *cand_argv[] = {py, "-E", "-s", task->entry_file, NULL};
    int rc = run_phase(lane, task, cand, cand_argv, NULL, &res, &row->candidate, &err);
    asb_result_free(&res);
    if (rc < 0 && !row->candidate.ran) {
        set_reason(row, ASB_BENCH_ERROR, "staging the candidate: %s", err.message);
        goto out;
    }
    if (rc < 0) {
        set_reason(row, ASB_BENCH_ERROR, "candidate run: sandbox error: %s", err.message);
        goto out;
    }
    if (row->candidate.status == ASB_STATUS_OUTPUT_LIMIT) {
        set_reason(row, ASB_BENCH_FAIL,
                   "candidate run ended: output_limit (it wrote more than the lane's %llu bytes "
                   "to %s)",
                   (unsigned long long)ASB_DEFAULT_OUTPUT_BYTES,
                   row->candidate.stdout_truncated ? "stdout" : "stderr");
        goto out;
    }
    if (row->candidate.status != ASB_STATUS_COMPLETED) {
        set_reason(row, ASB_BENCH_FAIL, "candidate run ended: %s",
                   asb_status_name(row->candidate.status));
        goto out;
    }

    /* Phase 2: a fresh sandbox with fresh copies of the candidate's files; the oracle and the
     * secret travel on stdin, which the grader consumes before any candidate code runs. */
    char secret[33];
    asb_error_t rerr;
    if (asb_random_hex(secret, 16, &rerr) < 0) {
        set_reason(row, ASB_BENCH_ERROR, "secret: %s", rerr.message);
        goto out;
    }
    input = oracle_input(task, secret);
    if (!input) {
        set_reason(row, ASB_BENCH_ERROR, "out of memory encoding the oracle");
        goto out;
    }
    const char *grade_argv[] = {
        py, "-I", "-c", ASB_BENCH_GRADER_DRIVER, task->entry_file, task->entry_point, NULL};
    rc = run_phase(lane, task, cand, grade_argv, input, &res, &row->grader, &err);
    if (rc < 0) {
        set_reason(row, ASB_BENCH_ERROR, "grader run: sandbox error: %s", err.message);
    } else if (res.status != ASB_STATUS_COMPLETED) {
        set_reason(row, ASB_BENCH_FAIL, "grader run ended: %s", asb_status_name(res.status));
    } else if (res.exit_code == 0 && asb_bench_proved_complete(res.out.data, res.out.len, secret)) {
        set_reason(row, ASB_BENCH_PASS, "the oracle ran to its end");
    } else {
        /* The tail is the candidate's to write: quoted, so it never reads as our words (a
         * last line "the oracle ran to its end" did; red-team finding). */
        if (res.out_of_memory)
            set_reason(row, ASB_BENCH_FAIL,
                       "the oracle did not reach its end (exit %d): a process of the run was "
                       "killed for memory (the cgroup's OOM counter)",
                       res.exit_code);
        else if (row->grader.stderr_tail && row->grader.stderr_tail[0])
            set_reason(row, ASB_BENCH_FAIL,
                       "the oracle did not reach its end (exit %d); last line of stderr: \"%s\"",
                       res.exit_code, row->grader.stderr_tail);
        else
            set_reason(row, ASB_BENCH_FAIL,
                       "the oracle did not reach its end (exit %d); no error output",
                       res.exit_code);
    }
    explicit_bzero(secret, sizeof(secret));
    asb_result_free(&res);
out:
    free(input);
    row->duration_s = now_s() - t0;
    if (!row->reason)
        return -ENOMEM;
    return 0;
}
