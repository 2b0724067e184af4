/* cmd_run.c - `agent-sandbox run`. */
#include "cli/cli.h"
#include "core/limits.h"
#include "core/plan.h"
#include "io/file_in.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: agent-sandbox run [--profile P] [--backend native|docker]\n"
            "                         (--code STR | --file PATH | -- CMD ARGS...)\n"
            "                         [--code-name NAME]\n"
            "                         [--stdin-file F] [--interpreter PATH] [--timeout S]\n"
            "                         [--memory MiB] [--pids N] [--cpus X] [--output-limit BYTES]\n"
            "                         [--io-read-mbps MiB/s] [--io-read-iops N]\n"
            "                         [--file-in HOST_PATH[:NAME]]... [--file-out NAME]...\n"
            "                         [--exec-in HOST_PATH[:NAME]]...\n"
            "                         [--file-in-limit BYTES] [--file-out-limit BYTES]\n"
            "                         [--env KEY=VALUE]... [--image NAME] [--json]\n"
            "\n"
            "Runs code or a command under a hardening profile (default: hardened).\n"
            "Profiles: subprocess (UNSAFE: runs on the host), baseline, hardened (and\n"
            "docker-baseline, docker-hardened: the same with --backend docker).\n"
            "--code and --file write the program into the workspace and run INTERPRETER NAME:\n"
            "NAME is --file's own file name, or --code-name, or .asb-code.\n"
            "--exec-in brings a program (a binary built on the host or in an earlier run):\n"
            "native baseline and hardened place it read-only and executable at /exec/NAME,\n"
            "with ./NAME a link to it; hardened executes nothing written during the run.\n"
            "At most 64 --file-in and --exec-in together, 64 --file-out and 128 --env. Each\n"
            "file in is at most 16 MiB and each file out 1 MiB unless --file-in-limit /\n"
            "--file-out-limit say otherwise (at most 1 GiB and 256 MiB; the workspace's own\n"
            "size still applies).\n"
            "--io-read-mbps and --io-read-iops cap what the run reads from each host disk\n"
            "(baseline: 128 MiB/s and 2000/s, hardened: 64 MiB/s and 1000/s).\n"
            "Without --stdin-file the program's stdin is this process's stdin when it is not a\n"
            "terminal (it must end within the timeout), else empty.\n"
            "Exit status: the program's own when completed, 124 timeout, 137 killed, OOM or\n"
            "output limit, 125 when agent-sandbox itself failed or refused to run, 2 for a\n"
            "usage error.\n");
}

typedef struct run_args {
    asb_config_t cfg;
    asb_file_in_t files_in[ASB_MAX_FILES_IN];
    const char *files_out[ASB_MAX_FILES_OUT];
    const char *env[ASB_MAX_ENV];
    char *file_in_specs[ASB_MAX_FILES_IN];
    unsigned char *code, *stdin_data;
    bool json;
    bool docker; /* the backend the plan chose (--backend docker, or a docker-* profile) */
    /* validate failed for want of host resources (memory, fds, I/O), not for what was asked:
     * exit 125, not 2 (QA finding: ENOMEM while planning was called a usage error). */
    bool host_failure;
} run_args_t;

static const char *need(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        cli_error("%s: missing value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* Bad values the library refuses (unknown profile, bad env entry, file name, limits) are usage
 * errors (exit 2), found before anything runs; 125 is for failures of the run itself (red-team
 * finding). So are files in that cannot be read as regular files (missing, a FIFO, a directory,
 * a /proc pseudo-file, too large); the run opens them again itself. */
static int validate(const asb_config_t *c, bool *docker, bool *host_failure)
{
    asb_plan_t check;
    asb_error_t verr;
    int rc = asb_plan_build(c, &check, &verr);
    *docker = rc == 0 && strcmp(check.backend, "docker") == 0;
    for (size_t i = 0; rc == 0 && i < check.n_files_in; i++) {
        int fd;
        rc = asb_file_in_open(check.files_in[i].host_path, check.limits.file_in_bytes, &fd, NULL,
                              &verr);
        if (rc == 0)
            close(fd);
    }
    asb_plan_free(&check);
    if (rc < 0) {
        *host_failure = rc == -ENOMEM || rc == -EMFILE || rc == -ENFILE || rc == -EIO;
        cli_error("%s", verr.message);
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, run_args_t *a)
{
    asb_config_t *c = &a->cfg;
    const char *stdin_file = NULL, *file = NULL;
    cli_seen_t seen = {0};
    uint64_t u;
    double d;
    int i;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(cli_help_done());
        }
        if (strcmp(arg, "--json") == 0) {
            if (cli_once(&seen, arg) < 0)
                return -1;
            a->json = true;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0) {
            cli_error("run: unexpected argument '%s' (put the command after --)", arg);
            return -1;
        }
        static const char *const value_opts[] = {"--profile",
                                                 "--backend",
                                                 "--code",
                                                 "--file",
                                                 "--stdin-file",
                                                 "--timeout",
                                                 "--memory",
                                                 "--pids",
                                                 "--cpus",
                                                 "--output-limit",
                                                 "--file-in",
                                                 "--file-out",
                                                 "--env",
                                                 "--interpreter",
                                                 "--image",
                                                 "--file-in-limit",
                                                 "--file-out-limit",
                                                 "--exec-in",
                                                 "--code-name",
                                                 "--io-read-mbps",
                                                 "--io-read-iops",
                                                 NULL};
        if (!cli_value_option("run", arg, value_opts))
            return -1;
        if (!(v = need(argc, argv, &i)))
            return -1;
        bool repeatable = strcmp(arg, "--file-in") == 0 || strcmp(arg, "--file-out") == 0 ||
                          strcmp(arg, "--env") == 0 || strcmp(arg, "--exec-in") == 0;
        if (!repeatable && cli_once(&seen, arg) < 0)
            return -1;
        if (strcmp(arg, "--profile") == 0) {
            c->profile = v;
        } else if (strcmp(arg, "--backend") == 0) {
            c->backend = v;
        } else if (strcmp(arg, "--code") == 0) {
            c->code = v;
        } else if (strcmp(arg, "--code-name") == 0) {
            c->code_name = v;
        } else if (strcmp(arg, "--file") == 0) {
            file = v;
        } else if (strcmp(arg, "--stdin-file") == 0) {
            stdin_file = v;
        } else if (strcmp(arg, "--interpreter") == 0) {
            c->interpreter = v;
        } else if (strcmp(arg, "--image") == 0) {
            c->docker_image = v;
        } else if (strcmp(arg, "--timeout") == 0) {
            if (cli_parse_double(arg, v, 0.001, ASB_MAX_TIMEOUT_S, &d) < 0)
                return -1;
            c->limits.timeout_s = d;
        } else if (strcmp(arg, "--memory") == 0) {
            if (cli_parse_u64(arg, v, 4, 1024 * 1024, &u) < 0)
                return -1;
            c->limits.memory_bytes = u * ASB_MIB;
        } else if (strcmp(arg, "--pids") == 0) {
            /* 2: the limit counts the sandbox's supervisor too (plan.c says so of 1) */
            if (cli_parse_u64(arg, v, 2, 1u << 22, &u) < 0)
                return -1;
            c->limits.pids = u;
        } else if (strcmp(arg, "--cpus") == 0) {
            if (cli_parse_double(arg, v, 0.01, 1024, &d) < 0)
                return -1;
            c->limits.cpus = d;
        } else if (strcmp(arg, "--io-read-mbps") == 0) {
            if (cli_parse_u64(arg, v, ASB_MIN_IO_READ_BPS / ASB_MIB, ASB_MAX_IO_READ_BPS / ASB_MIB,
                              &u) < 0)
                return -1;
            c->limits.io_read_bps = u * ASB_MIB;
        } else if (strcmp(arg, "--io-read-iops") == 0) {
            if (cli_parse_u64(arg, v, ASB_MIN_IO_READ_IOPS, ASB_MAX_IO_READ_IOPS, &u) < 0)
                return -1;
            c->limits.io_read_iops = u;
        } else if (strcmp(arg, "--output-limit") == 0) {
            if (cli_parse_u64(arg, v, 1, ASB_MAX_OUTPUT_BYTES, &u) < 0)
                return -1;
            c->limits.output_bytes = u;
        } else if (strcmp(arg, "--file-in-limit") == 0) {
            if (cli_parse_u64(arg, v, 1, ASB_MAX_FILE_IN_BYTES, &u) < 0)
                return -1;
            c->limits.file_in_bytes = u;
        } else if (strcmp(arg, "--file-out-limit") == 0) {
            if (cli_parse_u64(arg, v, 1, ASB_MAX_FILE_OUT_BYTES, &u) < 0)
                return -1;
            c->limits.file_out_bytes = u;
        } else if (strcmp(arg, "--file-in") == 0 || strcmp(arg, "--exec-in") == 0) {
            if (c->n_files_in >= ASB_MAX_FILES_IN) {
                cli_error("%s: at most %d files in (--file-in and --exec-in together)", arg,
                          ASB_MAX_FILES_IN);
                return -1;
            }
            char *spec = strdup(v);
            if (!spec)
                return -1;
            a->file_in_specs[c->n_files_in] = spec;
            /* HOST_PATH[:NAME]: the last ':' separates a name that has no '/'. */
            char *colon = strrchr(spec, ':');
            asb_file_in_t *f = &a->files_in[c->n_files_in++];
            f->host_path = spec;
            f->name = NULL;
            f->executable = strcmp(arg, "--exec-in") == 0;
            if (colon && !strchr(colon + 1, '/')) {
                *colon = '\0';
                f->name = colon + 1;
            } else if (colon && access(spec, F_OK) < 0) {
                /* Not a path with a ':' in it, and a NAME with a '/': say which part is wrong
                 * (QA finding: "No such file or directory" for the whole string). */
                cli_error("%s %s: NAME '%s' must be a plain name (no '/'; the workspace "
                          "is flat: bring a directory as a tar file and unpack it inside)",
                          arg, v, colon + 1);
                return -1;
            }
        } else if (strcmp(arg, "--file-out") == 0) {
            if (c->n_files_out >= ASB_MAX_FILES_OUT) {
                cli_error("--file-out: at most %d files", ASB_MAX_FILES_OUT);
                return -1;
            }
            a->files_out[c->n_files_out++] = v;
        } else if (strcmp(arg, "--env") == 0) {
            if (c->n_env >= ASB_MAX_ENV) {
                cli_error("--env: at most %d entries", ASB_MAX_ENV);
                return -1;
            }
            a->env[c->n_env++] = v;
        } else {
            cli_error("run: unknown option '%s' (see agent-sandbox run --help)", arg);
            return -1;
        }
    }
    if (i < argc)
        c->argv = (const char *const *)&argv[i];
    int modes = (c->code != NULL) + (file != NULL) + (c->argv != NULL);
    if (modes != 1) {
        cli_error("run: give exactly one of --code, --file or -- CMD ARGS...");
        return -1;
    }
    /* An option that does not apply is an error, not ignored (QA finding). */
    if (c->interpreter && c->argv) {
        cli_error("--interpreter applies to --code and --file, not to a command after --");
        return -1;
    }
    if (c->code_name && c->argv) {
        cli_error("--code-name applies to --code and --file, not to a command after --");
        return -1;
    }
    /* --file keeps its file's name (tracebacks, __file__, `java Main.java`), unless
     * --code-name gives another. */
    if (file && !c->code_name) {
        const char *slash = strrchr(file, '/');
        c->code_name = slash ? slash + 1 : file;
        const char *why = NULL;
        if (!asb_valid_plain_name(c->code_name, &why) && !why)
            why = "not a plain name";
        if (why || c->code_name[0] == '-') {
            cli_error("--file %s: its name cannot be the program's file name in the sandbox "
                      "(%s): give one with --code-name NAME",
                      file, why ? why : "it begins with '-'");
            return -1;
        }
    }
    if (file) {
        size_t len;
        if (cli_read_file(file, ASB_MAX_CODE_BYTES, &a->code, &len) < 0)
            return -1;
        c->code = (const char *)a->code;
        c->code_len = len;
        if (len == 0)
            c->code = "";
    }
    c->files_in = a->files_in;
    c->files_out = a->files_out;
    c->env = a->env;
    /* Before stdin is read (it may wait for a writer until the timeout). */
    if (validate(c, &a->docker, &a->host_failure) < 0)
        return -1;
    if (c->docker_image && !a->docker) {
        cli_error("--image applies to the docker backend only (add --backend docker)");
        return -1;
    }
    size_t slen = 0;
    if (stdin_file) {
        if (cli_read_file(stdin_file, ASB_MAX_STDIN_BYTES, &a->stdin_data, &slen) < 0)
            return -1;
    } else if (!isatty(0)) {
        double wait = c->limits.timeout_s > 0 ? c->limits.timeout_s : ASB_DEFAULT_TIMEOUT_S;
        if (cli_read_stdin(ASB_MAX_STDIN_BYTES, wait, &a->stdin_data, &slen) < 0)
            return -1;
    }
    c->stdin_data = a->stdin_data;
    c->stdin_len = slen;
    return 0;
}

/* The program's bytes, as they are for a pipe or file; for a terminal with control characters
 * shown as \xNN: escape sequences from untrusted output could otherwise conceal or fake the
 * status line that follows, retitle the window or write the clipboard. */
static void write_output(FILE *f, const asb_bytes_t *b)
{
    if (!b->data || !b->len)
        return;
    if (!isatty(fileno(f))) {
        fwrite(b->data, 1, b->len, f);
        return;
    }
    /* C0 (but newline and tab), DEL, bytes that are not UTF-8 (a raw 0x9b is CSI to an 8-bit
     * terminal), C1 and bidi controls: escaped as on the CLI's own lines (QA finding: a raw
     * 0x9b and U+202E went through). */
    cli_put_output(f, b->data, b->len);
}

/* NULL, or the name of the program's stream that could not be written where ours goes (its
 * errno in *lost_errno). */
static const char *print_human(const asb_result_t *r, int *lost_errno)
{
    const char *lost = NULL;
    write_output(stdout, &r->out);
    if (r->out.len && (fflush(stdout) != 0 || ferror(stdout))) {
        lost = "stdout";
        *lost_errno = errno;
    }
    write_output(stderr, &r->err);
    /* The program's stderr is its output too (QA finding: lost to a closed stderr, exit 0). */
    if (!lost && r->err.len && (fflush(stderr) != 0 || ferror(stderr))) {
        lost = "stderr";
        *lost_errno = errno;
    }
    if (r->stdout_truncated)
        fprintf(stderr, "\n[agent-sandbox: stdout truncated at the %llu-byte cap]\n",
                (unsigned long long)r->limits_enforced.output_bytes);
    if (r->stderr_truncated)
        fprintf(stderr, "\n[agent-sandbox: stderr truncated at the %llu-byte cap]\n",
                (unsigned long long)r->limits_enforced.output_bytes);
    for (size_t i = 0; i < r->n_files_refused; i++) {
        fputs("agent-sandbox: file-out ", stderr);
        cli_put_text(stderr, r->files_refused[i].name);
        fputs(" refused: ", stderr);
        cli_put_text(stderr, r->files_refused[i].reason);
        fputc('\n', stderr);
    }
    /* The status line starts a line of its own, whatever the program's stderr ended with. */
    if (r->err.len && r->err.data[r->err.len - 1] != '\n')
        fputc('\n', stderr);
    char status[32];
    snprintf(status, sizeof(status), "%s", asb_status_name(r->status));
    for (char *p = status; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 32);
    /* What the status alone hides (QA findings): a program that completed although one of its
     * processes was OOM-killed (g++ reporting "Killed signal terminated program cc1plus"), and
     * a timeout spent at the memory limit rather than computing. */
    char note[96] = "";
    if (r->status == ASB_STATUS_COMPLETED && r->out_of_memory)
        snprintf(note, sizeof(note), " (a process of the run was OOM-killed)");
    else if (r->status == ASB_STATUS_TIMEOUT && r->memory_limit_reached)
        snprintf(note, sizeof(note), " (its memory reached the limit)");
    if (r->exit_code >= 0)
        fprintf(stderr, "[%s/%s] exit=%d %.3fs %s%s\n", r->backend, r->profile, r->exit_code,
                r->duration_s, status, note);
    else if (r->signal > 0)
        fprintf(stderr, "[%s/%s] signal=%d %.3fs %s%s\n", r->backend, r->profile, r->signal,
                r->duration_s, status, note);
    else /* the program never ran (or its end is unknown): no exit, no signal to show */
        fprintf(stderr, "[%s/%s] %.3fs %s%s\n", r->backend, r->profile, r->duration_s, status,
                note);
    return lost;
}

int cli_run(int argc, char **argv)
{
    run_args_t a;
    memset(&a, 0, sizeof(a));
    asb_config_init(&a.cfg);
    int rc = parse(argc, argv, &a);
    if (rc < 0) {
        rc = a.host_failure ? CLI_EXIT_INTERNAL : CLI_EXIT_USAGE;
        goto out;
    }
    if (a.cfg.profile && strcmp(a.cfg.profile, "subprocess") == 0)
        fprintf(stderr, "agent-sandbox: warning: profile subprocess runs the code ON THE HOST "
                        "with your privileges; it is not a sandbox\n");
    asb_result_t res;
    asb_error_t err;
    /* A signal that ends us ends the run first (sigwatch.c). A docker run's container needs a
     * thread of ours (libcurl); a native or subprocess run is cancelled by the library itself,
     * which removes all of it before we end: no thread (about 1 ms of every run on a 2-vCPU
     * VM), no handler. */
    cli_sigwatch_t watch;
    if (a.docker)
        cli_sigwatch_start(&watch, NULL, true);
    else
        cli_sigwatch_start_cancel(&watch, &a.cfg);
    int r = asb_run(&a.cfg, &res, &err);
    cli_sigwatch_stop(&watch);
    /* A reader that went away (`| head`) is lost output, reported as such (exit 125): SIGPIPE
     * is ignored from main on (review finding). */
    bool lost = false;
    const char *lost_what = "standard output: the result record";
    int lost_errno = 0;
    if (a.json) {
        /* A grader that reads the record must not see success without one (QA finding: exit 0
         * with stdout on a full disk or closed); nor when it could not be encoded. */
        asb_error_t jerr;
        int w = asb_result_write_json(&res, stdout, &jerr);
        if (w == 0 && fflush(stdout) != 0)
            w = errno > 0 ? -errno : -EIO;
        if (w == 0 && ferror(stdout))
            w = -EIO;
        lost = w != 0;
        lost_errno = lost ? -w : 0;
    } else {
        /* The program's output lost on the way out (stdout closed or full) is an error of
         * ours, not its success (crash-QA finding: exit 0 with the output gone). */
        const char *stream = r == 0 || res.backend[0] ? print_human(&res, &lost_errno) : NULL;
        if (stream) {
            lost = true;
            lost_what = !strcmp(stream, "stdout") ? "the program's stdout" : "the program's stderr";
        }
        /* Escaped like the refusals' names: a name may carry bidi or other controls that would
         * steer the terminal (QA finding: this one line printed them raw). */
        for (size_t i = 0; i < res.n_files_out; i++) {
            fputs("agent-sandbox: note: file-out ", stderr);
            cli_put_text(stderr, res.files_out[i].name);
            fprintf(stderr, ": %zu bytes, returned only in the --json record\n",
                    res.files_out[i].content.len);
        }
    }
    if (lost) {
        cli_error("%s could not be written (%s)", lost_what, strerror(lost_errno));
        asb_result_free(&res);
        rc = CLI_EXIT_INTERNAL;
        goto out;
    }
    if (r < 0)
        cli_error("%s", err.message);
    rc = asb_result_exit_status(&res);
    asb_result_free(&res);
out:
    for (size_t i = 0; i < ASB_MAX_FILES_IN; i++)
        free(a.file_in_specs[i]);
    free(a.code);
    free(a.stdin_data);
    return rc;
}
