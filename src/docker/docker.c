/* docker.c - the docker backend: one run's lifecycle against a real engine.
 *
 * create -> inspect and verify against the request -> (archive in: files in, into a directory the
 * container's user cannot write) -> attach -> start -> relay the supervisor's frames with caps
 * (output, files out, reports), keep a backstop deadline -> inspect (OOMKilled, exit code) ->
 * remove with force, in every path. Nothing starts unless the engine's own
 * account of the container matches what was asked; nothing counts as completed unless the
 * supervisor's nonce-tagged attestation and exit report agree with what the engine saw. */
#include "core/backend.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/owner.h"
#include "core/result.h"
#include "docker/docker.h"
#include "native/idslot.h"
#include "io/capture.h"
#include "io/file_in.h"
#include "native/native_spec.h"
#include "native/proto.h"
#include "native/verdict.h"
#include "native/wire_json.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct drun {
    const asb_plan_t *plan;
    asb_result_t *res;
    const asb_docker_hooks_t *hooks;
    asb_profile_t prof;
    asb_docker_engine_t *eng;
    asb_docker_attach_t *att;
    json_t *body;
    char id[96];
    bool created;
    /* the engine's stream multiplexing: 8-byte header (stream, 0, 0, 0, size BE32) */
    unsigned char mux_hdr[8];
    size_t mux_hdr_len, mux_left;
    int mux_stream;
    /* the supervisor's frames inside stream 1 */
    unsigned char fr_hdr[ASB_FRAME_HDR];
    size_t fr_hdr_len;
    unsigned char *fr_buf;
    size_t fr_len, fr_need;
    int fr_type;
    bool protocol_error;
    asb_capbuf_t out, err, diag;
    json_t *report;
    /* Requested files out as the supervisor sends them (ASB_FRAME_FILE), by the plan's index. */
    unsigned char **fout;
    size_t *fout_len;
    bool *fout_got, *fout_big;
    char *sup_error;
    bool attested, released, backstop_fired, eof;
    bool setup_failed; /* a step before the release failed: never released (before_release) */
    /* A stdin too large for the spec: sent after the verdict on the attach stream, as the
     * supervisor relays it to the workload's stdin pipe. */
    bool stdin_live;
    size_t stdin_off;
    asb_idslot_t ids; /* non-root profiles: the host uid range this run's container user is in */
    int cg_fd;        /* the container's own cgroup, for the backstop kill; opened before release */
    int cg_kill_fd;   /* its cgroup.kill opened for writing, or -1 */
} drun_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The supervisor is bind-mounted as PID 1 of every container: a regular file that only root (or
 * we) can change, the same rule as the native backend's. */
int asb_docker_supervisor_path(char *out, size_t len, asb_error_t *err)
{
    const char *env = getenv("ASB_SUPERVISOR");
    const char *cands[] = {env, ASB_SUPERVISOR_BUILD_PATH, ASB_SUPERVISOR_INSTALL_PATH};
    for (size_t i = 0; i < 3; i++) {
        if (!cands[i] || !*cands[i])
            continue;
        struct stat st;
        if (stat(cands[i], &st) < 0) {
            if (i == 0)
                return asb_err_sys(err, errno, "supervisor %s (from ASB_SUPERVISOR)", cands[i]);
            continue;
        }
        if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
            (st.st_mode & 022) || cands[i][0] != '/')
            return asb_err(err, -EPERM,
                           "supervisor %s is not an absolute path to a regular file owned by "
                           "root and writable only by its owner",
                           cands[i]);
        snprintf(out, len, "%s", cands[i]);
        return 0;
    }
    return asb_err(err, -ENOENT, "supervisor binary not found (looked at %s and %s)",
                   ASB_SUPERVISOR_BUILD_PATH, ASB_SUPERVISOR_INSTALL_PATH);
}

static void send_verdict(drun_t *r, bool go)
{
    if (asb_docker_attach_write(r->att, go ? "g" : "a", 1) < 0 && go)
        r->released = false;
    r->stdin_live = go && r->released && r->plan->stdin_len && !asb_docker_inline_data(r->plan);
}

/* As much of a streamed stdin as the stream takes now, never waiting: the workload may read it
 * slowly or never, and its output must go on being read meanwhile. A failed send ends it (the
 * container is gone, or the supervisor stopped relaying). */
static void pump_stdin(drun_t *r)
{
    while (r->stdin_live && r->stdin_off < r->plan->stdin_len) {
        size_t left = r->plan->stdin_len - r->stdin_off;
        long n = asb_docker_attach_send(r->att, r->plan->stdin_data + r->stdin_off,
                                        left < 65536 ? left : 65536);
        if (n == -EAGAIN)
            return;
        if (n <= 0) {
            r->stdin_live = false;
            return;
        }
        r->stdin_off += (size_t)n;
    }
    r->stdin_live = false;
}

static void handle_json(drun_t *r, const unsigned char *buf, size_t len)
{
    json_t *m = asb_wire_to_json(buf, len); /* NULL when malformed: a protocol error below */
    const char *type = json_string_value(json_object_get(m, "type"));
    const char *nonce = json_string_value(json_object_get(m, "nonce"));
    if (type && nonce && !*nonce && strcmp(type, "error") == 0 && !r->sup_error) {
        /* Before it could read the spec the supervisor knows no nonce; a failure either way. */
        const char *msg = json_string_value(json_object_get(m, "message"));
        if (asprintf(&r->sup_error, "supervisor (before reading the spec): %s",
                     msg ? msg : "failed") < 0)
            r->sup_error = NULL;
        json_decref(m);
        return;
    }
    if (!type || !nonce || strcmp(nonce, r->plan->nonce) != 0) {
        r->protocol_error = true; /* only the supervisor writes frames: this is not ours */
        json_decref(m);
        return;
    }
    if (strcmp(type, "attest") == 0 && !r->attested) {
        r->attested = true;
        asb_plan_t vplan = *r->plan; /* shallow: the verifier reads the profile only */
        vplan.profile = r->prof;
        bool ok =
            asb_native_verify_attestation(&vplan, m, -1, &r->res->attestation) && !r->setup_failed;
        /* Sockets the workload makes must count against its memory (cgroup v1): the limit is
         * set now, before the release, or the run is refused. */
        asb_error_t terr;
        if (ok && r->prof.cgroup &&
            asb_docker_limit_tcp_v1(r->eng, r->id, r->plan->limits.memory_bytes, &terr) < 0) {
            ok = false;
            if (!r->sup_error)
                r->sup_error = strdup(terr.message);
        }
        r->released = ok;
        send_verdict(r, ok);
    } else if (strcmp(type, "exit") == 0 && !r->report) {
        r->report = json_incref(m);
    } else if (strcmp(type, "error") == 0 && !r->sup_error) {
        const char *msg = json_string_value(json_object_get(m, "message"));
        r->sup_error = strdup(msg ? msg : "supervisor failed");
    }
    json_decref(m);
}

/* A piece of a requested output: its name, a NUL, its content. Only names the plan asked for;
 * more than the cap is remembered as too large, never kept. Anything else is a protocol error
 * (only the supervisor writes this stream). */
static void handle_file(drun_t *r, const unsigned char *p, size_t n)
{
    const unsigned char *nul = memchr(p, '\0', n);
    const asb_plan_t *plan = r->plan;
    size_t i = 0;
    while (nul && i < plan->n_files_out && strcmp(plan->files_out[i], (const char *)p) != 0)
        i++;
    if (!nul || i == plan->n_files_out || !r->fout) {
        r->protocol_error = true;
        return;
    }
    const unsigned char *data = nul + 1;
    size_t len = n - (size_t)(data - p);
    r->fout_got[i] = true;
    if (r->fout_big[i] || r->fout_len[i] + len > plan->limits.file_out_bytes) {
        r->fout_big[i] = true;
        return;
    }
    unsigned char *b = realloc(r->fout[i], r->fout_len[i] + len + 1);
    if (!b) {
        r->fout_big[i] = true; /* reported as refused, never as a short file */
        return;
    }
    memcpy(b + r->fout_len[i], data, len);
    r->fout[i] = b;
    r->fout_len[i] += len;
}

/* Bytes of the supervisor's stdout: frames of type, length, payload. */
static void feed_frames(drun_t *r, const unsigned char *p, size_t n)
{
    while (n && !r->protocol_error) {
        if (r->fr_hdr_len < ASB_FRAME_HDR) {
            r->fr_hdr[r->fr_hdr_len++] = *p++;
            n--;
            if (r->fr_hdr_len == ASB_FRAME_HDR) {
                r->fr_type = r->fr_hdr[0];
                r->fr_need = (size_t)r->fr_hdr[1] << 24 | (size_t)r->fr_hdr[2] << 16 |
                             (size_t)r->fr_hdr[3] << 8 | r->fr_hdr[4];
                r->fr_len = 0;
                if (r->fr_need > ASB_DOCKER_FRAME_MAX ||
                    (r->fr_type != ASB_FRAME_STDOUT && r->fr_type != ASB_FRAME_STDERR &&
                     r->fr_type != ASB_FRAME_JSON && r->fr_type != ASB_FRAME_FILE)) {
                    r->protocol_error = true;
                    return;
                }
            }
            if (r->fr_hdr_len < ASB_FRAME_HDR || r->fr_need)
                continue;
        }
        size_t take = r->fr_need - r->fr_len < n ? r->fr_need - r->fr_len : n;
        if (r->fr_type == ASB_FRAME_JSON || r->fr_type == ASB_FRAME_FILE) {
            memcpy(r->fr_buf + r->fr_len, p, take);
        } else {
            asb_capbuf_append(r->fr_type == ASB_FRAME_STDOUT ? &r->out : &r->err, p, take);
        }
        r->fr_len += take;
        p += take;
        n -= take;
        if (r->fr_len == r->fr_need) {
            if (r->fr_type == ASB_FRAME_JSON)
                handle_json(r, r->fr_buf, r->fr_len);
            else if (r->fr_type == ASB_FRAME_FILE)
                handle_file(r, r->fr_buf, r->fr_len);
            r->fr_hdr_len = 0;
        }
    }
}

/* Bytes of the attach stream: the engine's 8-byte headers, stream 1 stdout, 2 stderr. */
static void feed_mux(drun_t *r, const unsigned char *p, size_t n)
{
    while (n) {
        if (r->mux_left == 0) {
            r->mux_hdr[r->mux_hdr_len++] = *p++;
            n--;
            if (r->mux_hdr_len == 8) {
                r->mux_stream = r->mux_hdr[0];
                r->mux_left = (size_t)r->mux_hdr[4] << 24 | (size_t)r->mux_hdr[5] << 16 |
                              (size_t)r->mux_hdr[6] << 8 | r->mux_hdr[7];
                r->mux_hdr_len = 0;
            }
            continue;
        }
        size_t take = r->mux_left < n ? r->mux_left : n;
        if (r->mux_stream == 1)
            feed_frames(r, p, take);
        else
            asb_capbuf_append(&r->diag, p, take); /* the supervisor's own stderr */
        r->mux_left -= take;
        p += take;
        n -= take;
    }
}

static void backstop_kill(drun_t *r)
{
    /* The engine's kill reaches PID 1 alone, and its namespace dies only once PID 1 runs: a
     * workload that made PID 1 SCHED_IDLE (same uid) and spun kept a 2 s run going for 40 s
     * (red-team finding), the engine's kill request waiting all the while. Every process of the
     * container's cgroup dies from here first. */
    if (r->cg_fd >= 0)
        asb_docker_kill_cgroup(r->cg_fd,
                               r->cg_kill_fd); /* before the release nothing of the workload runs */
    char path[160];
    snprintf(path, sizeof(path), "/containers/%s/kill?signal=KILL", r->id);
    asb_error_t e;
    asb_docker_json(r->eng, "POST", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, NULL, &e);
}

/* Take what the engine has for us now, without waiting: at most ASB_LATE_DRAIN_S of reading.
 * Returns false at the stream's end. */
static bool drain_now(drun_t *r, unsigned char *buf, size_t size)
{
    double until = now_s() + ASB_LATE_DRAIN_S;
    while (now_s() < until) {
        long got = asb_docker_attach_read(r->att, buf, size);
        if (got == -EAGAIN)
            return true;
        if (got <= 0) {
            r->eof = true;
            return false;
        }
        feed_mux(r, buf, (size_t)got);
    }
    return true;
}

static void event_loop(drun_t *r)
{
    double setup_deadline = now_s() + ASB_SETUP_TIMEOUT_MS / 1000.0;
    double run_deadline = 0, give_up = 0;
    bool drained_late = false;
    enum { BUF = 65536 };
    unsigned char *buf = malloc(BUF); /* not on a caller thread's stack (io/capture.c) */
    if (!buf) {
        r->protocol_error = true; /* no verdict can be reached: a sandbox_error */
        backstop_kill(r);
        return;
    }
    while (!r->eof) {
        double t = now_s();
        if (r->released && run_deadline == 0)
            run_deadline = t + r->plan->limits.timeout_s + ASB_BACKSTOP_SLACK_S;
        double deadline = give_up != 0 ? give_up : r->released ? run_deadline : setup_deadline;
        if (t >= deadline) {
            if (give_up != 0)
                break; /* killed and still no EOF: stop waiting, removal ends it */
            /* Past the deadline, read what is waiting before calling the engine: a caller that
             * was stopped (SIGSTOP, a loaded host) finds the whole run, report and all, queued in
             * the stream, and the engine answered no request for the container while its output
             * to us was backed up (a kill and an inspect each ran into the 30 s HTTP timeout:
             * the run was a sandbox_error after 68 s). */
            if (!drained_late) {
                drained_late = true;
                if (!drain_now(r, buf, BUF))
                    break;
                continue;
            }
            r->backstop_fired = true;
            backstop_kill(r);
            give_up = t + ASB_BACKSTOP_GRACE_S;
            r->stdin_live = false; /* the run is being killed: nothing more for it */
            continue;
        }
        pump_stdin(r);
        struct pollfd p = {.fd = asb_docker_attach_fd(r->att),
                           .events = POLLIN | (r->stdin_live ? POLLOUT : 0)};
        long got = asb_docker_attach_read(r->att, buf, BUF);
        if (got == -EAGAIN) {
            int pr = poll(&p, 1, (int)((deadline - t) * 1000) + 1);
            if (pr < 0 && errno != EINTR)
                break;
            continue;
        }
        if (got <= 0) {
            r->eof = true;
            break;
        }
        feed_mux(r, buf, (size_t)got);
        if (r->protocol_error && give_up == 0) {
            backstop_kill(r);
            give_up = now_s() + ASB_BACKSTOP_GRACE_S;
            r->stdin_live = false;
        }
    }
    free(buf);
}

/* After the stream ended: the container's own state (exit code, OOMKilled), once it stopped. */
static int final_state(drun_t *r, json_t **state, asb_error_t *err)
{
    char path[160];
    json_t *ins = NULL;
    for (int tries = 0; tries < 2; tries++) {
        snprintf(path, sizeof(path), "/containers/%s/json", r->id);
        int rc = asb_docker_json(r->eng, "GET", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, &ins, err);
        if (rc < 0)
            return rc;
        json_t *st = json_object_get(ins, "State");
        if (!json_is_true(json_object_get(st, "Running"))) {
            *state = json_incref(st);
            json_decref(ins);
            return 0;
        }
        json_decref(ins);
        ins = NULL;
        /* Stream closed but still running: wait a little, then kill. */
        snprintf(path, sizeof(path), "/containers/%s/wait", r->id);
        asb_error_t e;
        if (asb_docker_json(r->eng, "POST", path, NULL, 3000, NULL, &e) < 0)
            backstop_kill(r);
    }
    return asb_err(err, -EIO, "container %s did not stop", r->id);
}

static void decide(drun_t *r, const json_t *state)
{
    asb_result_t *res = r->res;
    json_t *rep = r->report;
    bool oom = json_is_true(json_object_get(state, "OOMKilled"));
    int engine_exit = (int)json_integer_value(json_object_get(state, "ExitCode"));
    res->out_of_memory = oom;
    bool rep_malformed = rep && asb_exit_report_malformed(rep);
    if (rep) {
        res->exit_code =
            rep_malformed ? -1 : (int)json_integer_value(json_object_get(rep, "exit_code"));
        res->signal = rep_malformed ? 0 : (int)json_integer_value(json_object_get(rep, "signal"));
        res->max_rss_kb = (long)json_integer_value(json_object_get(rep, "max_rss_kb"));
        res->cpu_time_s = json_number_value(json_object_get(rep, "cpu_time_s"));
    }
    res->stdout_truncated =
        r->out.truncated || (rep && json_is_true(json_object_get(rep, "stdout_truncated")));
    res->stderr_truncated =
        r->err.truncated || (rep && json_is_true(json_object_get(rep, "stderr_truncated")));
    const char *exec_error = rep ? json_string_value(json_object_get(rep, "exec_error")) : NULL;
    char msg[1400];
    res->status = ASB_STATUS_SANDBOX_ERROR;
    if (r->protocol_error) {
        asb_result_set_error(res, "the container's output broke the supervisor's framing");
    } else if (r->sup_error) {
        asb_result_set_error(res, r->sup_error);
    } else if (!r->released) {
        if (res->attestation.present && !res->attestation.valid)
            snprintf(msg, sizeof(msg), "attestation refused: %s",
                     res->attestation.mismatch ? res->attestation.mismatch : "mismatch");
        else
            snprintf(msg, sizeof(msg), "%s%s%.*s",
                     r->backstop_fired ? "container setup timed out"
                                       : "no attestation from the supervisor",
                     r->diag.len ? ": " : "", (int)(r->diag.len > 400 ? 400 : r->diag.len),
                     r->diag.data ? (const char *)r->diag.data : "");
        asb_result_set_error(res, msg);
    } else if ((rep && json_is_true(json_object_get(rep, "timed_out"))) || r->backstop_fired) {
        res->status = ASB_STATUS_TIMEOUT;
        res->timed_out = true;
    } else if ((rep && json_is_true(json_object_get(rep, "output_limit"))) ||
               res->stdout_truncated || res->stderr_truncated) {
        res->status = ASB_STATUS_OUTPUT_LIMIT;
    } else if (rep_malformed) {
        asb_result_set_error(res, "malformed exit report"); /* as verdict.c */
    } else if (oom && (!rep || res->signal == SIGKILL)) {   /* as native.c decide() */
        res->status = ASB_STATUS_OOM_KILLED;
    } else if (rep && !asb_exit_report_output_agrees(rep, r->out.total_seen, r->err.total_seen, msg,
                                                     sizeof(msg))) {
        /* the report follows the output on the one stream: all of it has been read */
        asb_result_set_error(res, msg);
        res->exit_code = -1; /* as verdict.c */
        res->signal = 0;
    } else if (rep && res->signal != 0) {
        res->status = ASB_STATUS_KILLED;
    } else if (!rep) {
        asb_result_set_error(res, "no exit report from the supervisor");
    } else if (exec_error && *exec_error) {
        asb_result_set_error(res, exec_error);
        res->exit_code = -1; /* the program never ran (as native.c decide()) */
    } else if (res->exit_code < 0 || engine_exit != res->exit_code) {
        asb_result_set_error(res, "exit report disagrees with the engine's exit code");
    } else {
        res->status = ASB_STATUS_COMPLETED;
    }
}

static int copy_in(drun_t *r, asb_error_t *err)
{
    const asb_plan_t *plan = r->plan;
    size_t n = plan->n_files_in + 1, nf = 0;
    asb_tar_in_t *files = calloc(n, sizeof(*files));
    char **names = calloc(n, sizeof(char *));
    int rc = 0;
    unsigned char *tar = NULL;
    size_t tar_len = 0;
    char code_path[ASB_MAX_NAME_LEN + 8];
    snprintf(code_path, sizeof(code_path), "in/%s", plan->code ? plan->code_name : "");
    if (!files || !names) {
        rc = asb_err_sys(err, ENOMEM, "files in");
        goto out;
    }
    for (size_t i = 0; i < plan->n_files_in; i++) {
        uint64_t size = 0;
        int fd = -1;
        if ((rc = asb_file_in_snapshot(plan->files_in[i].host_path, plan->limits.file_in_bytes, &fd,
                                       &size, err)) < 0)
            goto out;
        if (asprintf(&names[nf], "in/%s", plan->files_in[i].name) < 0) {
            close(fd);
            rc = asb_err_sys(err, ENOMEM, "files in");
            goto out;
        }
        files[nf] = (asb_tar_in_t){.name = names[nf], .fd = fd, .len = (size_t)size};
        nf++;
    }
    if (!asb_docker_inline_data(plan) && plan->code)
        files[nf++] =
            (asb_tar_in_t){.name = code_path, .data = plan->code, .len = plan->code_len, .fd = -1};
    /* Inputs only, in a directory the container's user cannot write: outputs come back as frames
     * (an "o" directory writable by the supervisor was writable by the workload too, and let it
     * fill the host's disk; red-team finding). */
    const char *dirs[] = {"in"};
    if ((rc = asb_docker_tar_build(dirs, 1, files, nf, &tar, &tar_len, err)) < 0)
        goto out;
    char path[200];
    snprintf(path, sizeof(path), "/containers/%s/archive?path=%s", r->id, ASB_DOCKER_IO_DIR);
    long status = 0;
    char *resp = NULL;
    if ((rc = asb_docker_http(r->eng, "PUT", path, "application/x-tar", tar, tar_len,
                              ASB_DOCKER_HTTP_TIMEOUT_MS, &status, &resp, NULL, err)) < 0)
        goto out;
    if (status != 200)
        rc = asb_err(err, -EIO, "docker engine: copying files in: HTTP %ld: %.300s", status, resp);
    free(resp);
out:
    for (size_t i = 0; files && i < nf; i++)
        if (files[i].fd >= 0)
            close(files[i].fd);
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(files);
    free(tar);
    return rc;
}

/* Files out as the supervisor sent them; what it refused keeps its reason. */
static void files_out(drun_t *r)
{
    const asb_plan_t *plan = r->plan;
    json_t *refused = json_object_get(r->report, "files_refused");
    for (size_t i = 0; i < plan->n_files_out; i++) {
        const char *name = plan->files_out[i];
        const char *why = json_string_value(json_object_get(refused, name));
        /* The report comes after every file's frames: without it a file may have been cut off
         * (the backstop fired mid-way, the supervisor was killed), never pass it as whole
         * (review finding). */
        if (!r->report)
            asb_result_add_refused(r->res, name, "the supervisor ended before its report");
        else if (why)
            asb_result_add_refused(r->res, name, why);
        else if (!r->fout || !r->fout_got[i])
            asb_result_add_refused(r->res, name, "not returned by the supervisor");
        else if (r->fout_big[i])
            asb_result_add_refused(r->res, name, "larger than the file-out cap");
        else if (asb_result_add_file(r->res, name, r->fout[i], r->fout_len[i]) == 0)
            r->fout[i] = NULL; /* the result owns it */
        else
            asb_result_add_refused(r->res, name, "out of memory");
    }
}

/* Returns true when the engine is still removing a container we saw stop: it did not answer
 * within ASB_DOCKER_REMOVE_WAIT_MS. A writable layer of many files (docker-baseline: a workload
 * made ~570,000 directories in 8 s) takes the engine minutes to delete, and it goes on after
 * the request has timed out; waiting for it stretched a run 30 s past its timeout and ended it a
 * sandbox_error (red-team finding, session 9). Otherwise owner-tagged, so the next start or
 * `cleanup` reaps what is left. */
static bool remove_container(drun_t *r, bool seen_stopped)
{
    if (!r->created)
        return false;
    char path[160];
    snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", r->id);
    asb_error_t e;
    int rc = asb_docker_json(r->eng, "DELETE", path, NULL,
                             seen_stopped ? ASB_DOCKER_REMOVE_WAIT_MS : ASB_DOCKER_HTTP_TIMEOUT_MS,
                             NULL, &e);
    if (rc == 0 || rc == -ENOENT)
        r->created = false;
    return r->created && seen_stopped && rc == -ETIMEDOUT;
}

/* What the host does after the start and before any workload exists: the backstop's cgroup
 * found and opened (in another pid or cgroup namespace than the engine's, the kill found
 * nothing and a starved PID 1 kept a 2 s run going 26-59 s on pure v2; review finding, session
 * 13), and with its own network ("none") lo taken down, then the supervisor told so: it waits
 * for that byte before it forks the workload (container.c), whose attestation then says lo is
 * down. */
static int before_release(drun_t *r, asb_error_t *err)
{
    int pidfd = -1;
    r->cg_fd = asb_docker_backstop_open(r->eng, r->id, &r->cg_kill_fd,
                                        r->prof.ns_net ? &pidfd : NULL, err);
    if (r->cg_fd < 0)
        return r->cg_fd;
    if (!r->prof.ns_net)
        return 0;
    int rc = asb_docker_loopback_down(pidfd, r->id, err);
    close(pidfd);
    if (rc < 0)
        return rc;
    if ((rc = asb_docker_attach_write(r->att, "n", 1)) < 0)
        return asb_err_sys(err, -rc, "docker: telling the container's supervisor that lo is down");
    return 0;
}

/* The container stopped, or stops within a second: the engine learns of its init's exit a
 * little after the kernel does, and a step that found the init gone may be that early. */
static bool container_stopped(drun_t *r)
{
    char path[160];
    asb_error_t e;
    snprintf(path, sizeof(path), "/containers/%s/wait", r->id);
    return asb_docker_json(r->eng, "POST", path, NULL, 1000, NULL, &e) >= 0;
}

/* Can this run's container user be a host user of its own? Not when the caller is not root
 * (the id slots live in a root-owned directory; a caller with access to the engine's socket
 * alone keeps the shared uid 65534, as before), and not when the engine maps container users
 * itself (userns-remap, rootless: only ids 0..65535 exist in its containers). Those runs keep
 * the profile's uid: THREAT_MODEL.md says what they share (review finding). An engine whose
 * /info cannot be read is taken at its word elsewhere: the run goes on with its own ids, and an
 * engine that cannot run them fails it visibly. */
static bool own_host_ids_possible(asb_docker_engine_t *eng)
{
    if (geteuid() != 0)
        return false;
    json_t *info = NULL;
    asb_error_t e;
    if (asb_docker_json(eng, "GET", "/info", NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, &info, &e) < 0)
        return true;
    bool remaps = false;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(info, "SecurityOptions"), i, v)
    {
        const char *o = json_string_value(v);
        remaps |= o && (strcmp(o, "name=userns") == 0 || strncmp(o, "name=userns,", 12) == 0 ||
                        strcmp(o, "name=rootless") == 0 || strncmp(o, "name=rootless,", 14) == 0);
    }
    json_decref(info);
    return !remaps;
}

int asb_docker_run_hooked(const asb_plan_t *plan, asb_result_t *res, const asb_docker_hooks_t *h,
                          asb_error_t *err)
{
    double t0 = now_s();
    drun_t r;
    memset(&r, 0, sizeof(r));
    r.plan = plan;
    r.res = res;
    r.hooks = h;
    r.ids.fd = r.ids.dir = -1;
    r.cg_fd = r.cg_kill_fd = -1;
    asb_docker_effective_profile(plan, &r.prof);
    asb_capbuf_init(&r.out, plan->limits.output_bytes);
    asb_capbuf_init(&r.err, plan->limits.output_bytes);
    asb_capbuf_init(&r.diag, ASB_DOCKER_STDERR_KEEP);
    json_t *sent = NULL, *ins = NULL, *state = NULL, *created = NULL;
    char sup[4096], owner[64], pidns[64], path[512], why[2048];
    int rc;

    /* The spec is one environment string of the container's PID 1: argv and env that cannot
     * fit in it would fail the container's start with E2BIG (review finding, session 18: a
     * 10 KB -c program with 42,000 bytes of stdin did, inline). Code and stdin move out of it
     * when they do not fit (asb_docker_inline_data); argv and env cannot. */
    size_t bound = asb_docker_spec_bound(plan, false);
    if (bound > ASB_DOCKER_SPEC_MAX) {
        rc = asb_err(err, -E2BIG,
                     "docker: argv, env and file names take up to %zu bytes of the container's "
                     "run spec, over its %d; pass a large program as code (--code, --file) or "
                     "as a file in",
                     bound, ASB_DOCKER_SPEC_MAX);
        goto out;
    }
    size_t nfo = plan->n_files_out ? plan->n_files_out : 1;
    r.fout = calloc(nfo, sizeof(*r.fout));
    r.fout_len = calloc(nfo, sizeof(*r.fout_len));
    r.fout_got = calloc(nfo, sizeof(*r.fout_got));
    r.fout_big = calloc(nfo, sizeof(*r.fout_big));
    if (!r.fout || !r.fout_len || !r.fout_got || !r.fout_big ||
        !(r.fr_buf = malloc(ASB_DOCKER_FRAME_MAX + 1))) {
        rc = asb_err_sys(err, ENOMEM, "frames");
        goto out;
    }
    if ((rc = asb_docker_engine_open(&r.eng, err)) < 0)
        goto out;
    char *report = NULL;
    asb_error_t reap_err;
    asb_docker_reap(r.eng, false, &report, &reap_err); /* best effort: never blocks a run */
    free(report);
    /* Dead callers' id slot files, as every native run takes them along (a signalled docker
     * run's stayed until a native run or `cleanup`). */
    (void)asb_idslot_reap(NULL);
    if ((rc = asb_docker_supervisor_path(sup, sizeof(sup), err)) < 0 ||
        (rc = asb_owner_tag(owner, sizeof(owner))) < 0 ||
        (rc = asb_owner_pidns(pidns, sizeof(pidns))) < 0) {
        if (rc != err->code)
            asb_err(err, rc, "owner tag");
        goto out;
    }
    asb_docker_req_ctx_t ctx = {.image = plan->docker_image,
                                .supervisor = sup,
                                .owner_tag = owner,
                                .owner_pidns = pidns,
                                .io_volume = asb_docker_needs_io_volume(plan)};
    /* A host uid of its own for a non-root container, from the native backend's id slots: the
     * kernel counts pipe pages, fds in flight, queued signals and message queues per host uid,
     * and with every docker-hardened container as uid 65534 one run used up the others' (and
     * the host's nobody's) share (red-team finding). Inside it is the same unprivileged user,
     * with another number. */
    if (r.prof.uid > 0 && own_host_ids_possible(r.eng)) {
        if ((rc = asb_idslot_take(&r.ids, err)) < 0)
            goto out;
        ctx.uid = (long)r.ids.base + r.prof.uid;
        ctx.gid = (long)r.ids.base + r.prof.gid;
        asb_docker_run_profile(plan, &ctx, &r.prof);
    }
    if (!(r.body = asb_docker_create_body(plan, &ctx)) || !(sent = json_deep_copy(r.body))) {
        rc = asb_err_sys(err, ENOMEM, "create request");
        goto out;
    }
    if (h && h->mutate_create)
        h->mutate_create(sent, h->arg);
    snprintf(path, sizeof(path), "/containers/create?name=%s-%s", owner, plan->run_id);
    if ((rc = asb_docker_json(r.eng, "POST", path, sent, ASB_DOCKER_HTTP_TIMEOUT_MS, &created,
                              err)) < 0)
        goto out;
    const char *id = json_string_value(json_object_get(created, "Id"));
    if (!id || strlen(id) >= sizeof(r.id) || strspn(id, "0123456789abcdef") != strlen(id)) {
        rc = asb_err(err, -EPROTO, "docker engine: create returned no container id");
        goto out;
    }
    snprintf(r.id, sizeof(r.id), "%s", id);
    r.created = true;
    if (h && h->after_create)
        h->after_create(r.id, h->arg);

    snprintf(path, sizeof(path), "/containers/%s/json", r.id);
    if ((rc = asb_docker_json(r.eng, "GET", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, &ins, err)) < 0)
        goto out;
    /* Against what the plan means (r.body), never against what was sent. */
    if (!asb_docker_verify(&r.prof, plan->weaken, r.body, ins, why, sizeof(why))) {
        rc = asb_err(err, -EPERM,
                     "docker engine created a container that differs from the "
                     "request; refused before start: %s",
                     why);
        goto out;
    }
    if (ctx.io_volume && (rc = copy_in(&r, err)) < 0)
        goto out;
    if ((rc = asb_docker_attach_open(r.eng, r.id, &r.att, err)) < 0)
        goto out;
    if (h && h->before_start)
        h->before_start(r.id, h->arg);
    snprintf(path, sizeof(path), "/containers/%s/start", r.id);
    if ((rc = asb_docker_json(r.eng, "POST", path, NULL, ASB_DOCKER_HTTP_TIMEOUT_MS, NULL, err)) <
        0)
        goto out;
    asb_error_t serr = {0};
    if ((rc = before_release(&r, &serr)) < 0) {
        /* A supervisor that ended by itself at once is why the step found nothing: its own
         * report says what went wrong (read below), or else the step's error does. While the
         * container runs, the step's failure refuses the run. */
        if (!container_stopped(&r)) {
            *err = serr;
            goto out;
        }
        r.setup_failed = true;
    }
    event_loop(&r);
    if (r.setup_failed && !r.sup_error &&
        asprintf(&r.sup_error,
                 "the container's supervisor stopped before the release, without a report%s%.*s",
                 r.diag.len ? ": " : "", (int)(r.diag.len > 400 ? 400 : r.diag.len),
                 r.diag.data ? (const char *)r.diag.data : "") < 0)
        r.sup_error = NULL;
    if (!r.eof) {
        /* Given up on the stream: let go of it before asking the engine anything, or an engine
         * still writing to us would not answer. */
        asb_docker_attach_close(r.att);
        r.att = NULL;
    }
    if ((rc = final_state(&r, &state, err)) < 0)
        goto out;
    asb_capbuf_take(&r.out, &res->out);
    asb_capbuf_take(&r.err, &res->err);
    decide(&r, state);
    if (res->status == ASB_STATUS_SANDBOX_ERROR) {
        rc = asb_err(err, -EIO, "%s", res->error ? res->error : "sandbox error");
        goto out;
    }
    if (plan->n_files_out)
        files_out(&r);
    rc = 0;
out:
    /* A run that ends in an error after the release (the engine went away mid-run, say) may
     * leave its workload running: the engine's shim keeps the container alive, and a run
     * returned at once while 64 processes spun on for 40 s (red-team finding, session 14).
     * The backstop's cgroup is checked and open: every process in it dies before we return. */
    if (rc < 0 && r.released && r.cg_fd >= 0)
        asb_docker_kill_cgroup(r.cg_fd, r.cg_kill_fd);
    asb_docker_attach_close(r.att);
    /* rc == 0: final_state saw the container stopped, and the verdict is made. */
    bool removing = r.eng && remove_container(&r, rc == 0);
    if (removing) {
        /* Stopped, and the engine deletes it by itself: the run's verdict stands, with a note.
         * Its ids stay taken (below) until this process ends. */
        char *note = NULL;
        if (asprintf(&note,
                     "%s%scontainer %s stopped; the engine was still removing it after %d s (a "
                     "large writable layer); `agent-sandbox cleanup` reaps it if it remains",
                     res->error ? res->error : "", res->error ? "; " : "", r.id,
                     ASB_DOCKER_REMOVE_WAIT_MS / 1000) >= 0) {
            free(res->error);
            res->error = note;
        }
    } else if (r.created && rc == 0) {
        rc = asb_err(err, -EIO, "container %s could not be removed", r.id);
        res->status = ASB_STATUS_SANDBOX_ERROR;
    }
    /* The ids go back only with the container: one that could not be removed keeps them (and
     * the slot's two fds) until this process ends and its lock with it; a run that takes the
     * range after that may share a host uid with that container until the docker reaper
     * removes it (every docker run reaps first; native runs do not). */
    if (!r.created)
        asb_idslot_release(&r.ids);
    if (r.cg_fd >= 0)
        close(r.cg_fd);
    if (r.cg_kill_fd >= 0)
        close(r.cg_kill_fd);
    asb_docker_engine_close(r.eng);
    json_decref(r.body);
    json_decref(sent);
    json_decref(ins);
    json_decref(state);
    json_decref(created);
    json_decref(r.report);
    free(r.sup_error);
    free(r.fr_buf);
    for (size_t i = 0; r.fout && i < plan->n_files_out; i++)
        free(r.fout[i]);
    free(r.fout);
    free(r.fout_len);
    free(r.fout_got);
    free(r.fout_big);
    asb_capbuf_free(&r.out);
    asb_capbuf_free(&r.err);
    asb_capbuf_free(&r.diag);
    res->duration_s = now_s() - t0;
    return rc;
}

int asb_docker_run(const asb_plan_t *plan, asb_result_t *res, asb_error_t *err)
{
    return asb_docker_run_hooked(plan, res, NULL, err);
}
