/* cmd_bench.c - `agent-sandbox bench`: score candidate code against held-out oracles. */
#include "bench/bench.h"
#include "bench/humaneval.h"
#include "bench/submission.h"
#include "bench/suite.h"
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: agent-sandbox bench SUITE [--format suite|humaneval] [--mode artifact_in]\n"
            "                           (--reference | --submission DIR_OR_JSON)\n"
            "                           [--sandbox subprocess|native|docker] [--profile P]\n"
            "                           [--evidence-class local_gate|live_lane|captured_fixture]\n"
            "                           [--jobs N] [--image NAME] [--out artifact.json]\n"
            "\n"
            "Runs each task's candidate in the lane, kills it, then grades it in a fresh sandbox\n"
            "of the same lane with the held-out oracle (held out in the native and docker lanes\n"
            "only: the subprocess lane's candidate can read the suite). SUITE is a suite JSON\n"
            "file, or with --format humaneval a HumanEval JSONL[.gz] file. --submission takes a\n"
            "directory (DIR/<task id>/<files>), a JSON object (task id -> files) or HumanEval\n"
            "samples (.jsonl[.gz] lines of task_id + completion). A lane that cannot run makes\n"
            "every row void. Writes the artifact to --out (default: stdout).\n"
            "Exit status: 0 when the bench ran (whatever the verdicts), 2 usage, 125 failure.\n");
}

typedef struct bench_args {
    const char *suite, *format, *mode, *submission, *out;
    bool reference;
    asb_bench_options_t opts;
} bench_args_t;

static int parse(int argc, char **argv, bench_args_t *a)
{
    a->format = "suite";
    a->mode = "artifact_in";
    a->opts.lane.sandbox = "native";
    cli_seen_t seen = {0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(cli_help_done());
        }
        if (strcmp(arg, "--reference") == 0) {
            if (cli_once(&seen, arg) < 0)
                return -1;
            a->reference = true;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (a->suite) {
                cli_error("bench: unexpected argument '%s'", arg);
                return -1;
            }
            a->suite = arg;
            continue;
        }
        static const char *const value_opts[] = {
            "--format",         "--mode",  "--submission", "--sandbox", "--profile",
            "--evidence-class", "--image", "--out",        "--jobs",    NULL};
        if (!cli_value_option("bench", arg, value_opts))
            return -1;
        if (i + 1 >= argc) {
            cli_error("%s: missing value", arg);
            return -1;
        }
        const char *v = argv[++i];
        uint64_t u;
        if (cli_once(&seen, arg) < 0)
            return -1;
        if (strcmp(arg, "--format") == 0)
            a->format = v;
        else if (strcmp(arg, "--mode") == 0)
            a->mode = v;
        else if (strcmp(arg, "--submission") == 0)
            a->submission = v;
        else if (strcmp(arg, "--sandbox") == 0)
            a->opts.lane.sandbox = v;
        else if (strcmp(arg, "--profile") == 0)
            a->opts.lane.profile = v;
        else if (strcmp(arg, "--evidence-class") == 0)
            a->opts.evidence_class = v;
        else if (strcmp(arg, "--image") == 0)
            a->opts.lane.docker_image = v;
        else if (strcmp(arg, "--out") == 0)
            a->out = v;
        else if (strcmp(arg, "--jobs") == 0) {
            if (cli_parse_u64("--jobs", v, 1, ASB_BENCH_MAX_JOBS, &u) < 0)
                return -1;
            a->opts.jobs = (unsigned)u;
        } else {
            cli_error("bench: unknown option '%s' (see agent-sandbox bench --help)", arg);
            return -1;
        }
    }
    const char *sb = a->opts.lane.sandbox;
    if (!a->suite)
        cli_error("bench: missing SUITE");
    else if (strcmp(a->format, "suite") != 0 && strcmp(a->format, "humaneval") != 0)
        cli_error("--format: expected suite or humaneval, got '%s'", a->format);
    else if (strcmp(a->mode, "artifact_in") != 0)
        cli_error("--mode: only artifact_in is supported, got '%s'", a->mode);
    else if (a->reference == (a->submission != NULL))
        cli_error("bench: give exactly one of --reference and --submission");
    else if (strcmp(sb, "subprocess") != 0 && strcmp(sb, "native") != 0 &&
             strcmp(sb, "docker") != 0)
        cli_error("--sandbox: expected subprocess, native or docker, got '%s'", sb);
    else if (a->opts.evidence_class && !asb_bench_valid_evidence_class(a->opts.evidence_class))
        cli_error("--evidence-class: expected local_gate, live_lane or captured_fixture, got "
                  "'%s'",
                  a->opts.evidence_class);
    else if (strcmp(sb, "subprocess") == 0 && a->opts.lane.profile &&
             strcmp(a->opts.lane.profile, "subprocess") != 0)
        cli_error("--profile %s: the subprocess lane has only the subprocess profile",
                  a->opts.lane.profile);
    else if (strcmp(sb, "subprocess") != 0 && a->opts.lane.profile &&
             strcmp(a->opts.lane.profile, "baseline") != 0 &&
             strcmp(a->opts.lane.profile, "hardened") != 0)
        cli_error("--profile: expected baseline or hardened in the %s lane, got '%s'", sb,
                  a->opts.lane.profile);
    else if (a->opts.lane.docker_image && strcmp(sb, "docker") != 0)
        cli_error("--image applies to the docker lane only (--sandbox docker)");
    else
        return 0;
    return -1;
}

int cli_bench(int argc, char **argv)
{
    bench_args_t a;
    memset(&a, 0, sizeof(a));
    if (parse(argc, argv, &a) < 0 || cli_output_check("--out", a.out) < 0)
        return CLI_EXIT_USAGE;
    asb_error_t err;
    asb_bench_suite_t suite;
    int rc = strcmp(a.format, "humaneval") == 0 ? asb_humaneval_load(a.suite, &suite, &err)
                                                : asb_bench_suite_load(a.suite, &suite, &err);
    if (rc < 0) {
        cli_error("%s", err.message);
        return CLI_EXIT_USAGE;
    }
    asb_bench_submission_t sub;
    rc = a.reference ? asb_bench_submission_reference(&suite, &sub, &err)
                     : asb_bench_submission_load(&suite, a.submission, &sub, &err);
    if (rc < 0) {
        cli_error("%s", err.message);
        asb_bench_suite_free(&suite);
        return CLI_EXIT_USAGE;
    }
    /* Scored as asked (every task fails), but most likely the wrong file or the wrong suite:
     * said before the run, not only in a 0 % score (QA observation). */
    if (!a.reference && sub.n_given == 0)
        fprintf(stderr,
                "agent-sandbox: warning: submission %s has a candidate for none of the suite's "
                "%zu tasks: every task scores fail\n",
                a.submission, suite.n_tasks);
    a.opts.source = a.reference ? "reference" : "submission";
    a.opts.source_path = a.submission;
    a.opts.suite_path = a.suite;
    asb_bench_report_t rep;
    int status = CLI_EXIT_INTERNAL;
    char *json = NULL;
    /* Interrupted (^C, timeout(1)): no further task starts, the sandboxes and candidates in
     * progress are killed, their tasks remove the staged candidate files, and we end as the
     * signal would have, without an artifact; a killed bench used to leave those for
     * `cleanup`. */
    atomic_bool cancel;
    atomic_init(&cancel, false);
    a.opts.cancel = &cancel;
    /* As `run --profile subprocess` says it (QA finding: the bench lane said nothing). */
    if (strcmp(a.opts.lane.sandbox, "subprocess") == 0)
        fprintf(stderr, "agent-sandbox: warning: the subprocess lane runs every candidate ON THE "
                        "HOST with your privileges; it is not a sandbox\n");
    cli_sigwatch_t watch;
    cli_sigwatch_start(&watch, &cancel, strcmp(a.opts.lane.sandbox, "docker") == 0);
    int brc = asb_bench_run(&suite, &sub, &a.opts, &rep, &err);
    int sig = cli_sigwatch_stop(&watch);
    if (sig > 0) {
        if (brc == 0) /* it ended just as the signal came: still no artifact, as announced */
            asb_bench_report_free(&rep);
        cli_error("bench: interrupted by signal %d; no artifact, staged files removed", sig);
        status = 128 + sig;
    } else if (brc < 0) {
        cli_error("%s", err.message);
    } else {
        if (asb_bench_artifact_json(&suite, &a.opts, &rep, &json, &err) < 0)
            cli_error("%s", err.message);
        else if (cli_output_write_line("--out", a.out ? a.out : "-", json) == 0)
            status = 0;
        size_t passed = 0, voided = 0, scored = 0;
        for (size_t i = 0; i < rep.n_rows; i++) {
            passed += rep.rows[i].verdict == ASB_BENCH_PASS;
            voided += rep.rows[i].verdict == ASB_BENCH_VOID;
        }
        scored = rep.n_rows - voided;
        fprintf(stderr, "bench: %zu tasks, %zu scored, %zu passed, %zu void, %.2fs (%s lane)\n",
                rep.n_rows, scored, passed, voided, rep.wall_s, a.opts.lane.sandbox);
        asb_bench_report_free(&rep);
    }
    free(json);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
    return status;
}
