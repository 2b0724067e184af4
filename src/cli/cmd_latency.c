/* cmd_latency.c - `agent-sandbox latency`: the paired latency study (src/stats/latency_*.c),
 * printed as a table and one verdict per pair, written as JSON and optionally as an SVG plot. */
#include "cli/cli.h"
#include "core/limits.h"
#include "stats/latency_json.h"
#include "stats/latency_study.h"
#include "stats/latency_svg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Exit status when the study ran but some runs failed: the outputs are written, but a script must
 * not mistake the numbers for a clean measurement. */
#define CLI_EXIT_RUNS_FAILED 1

static void usage(FILE *f)
{
    fprintf(f,
            "usage: agent-sandbox latency [--rounds N] [--profiles P1,P2,...] [--reference ARM]\n"
            "                             [--code STR | --file F] [--warmup N] [--seed N]\n"
            "                             [--out FILE.json] [--plot FILE.svg] [--ablate PROFILE]\n"
            "\n"
            "Paired latency study: each round runs every arm once, in a freshly shuffled order\n"
            "(seeded; the seed is recorded), timing /usr/bin/python3 -c CODE with the monotonic\n"
            "clock around each sandbox run. Reports per arm the median, min, max and p90 of the\n"
            "wall time, and per arm against the reference the Hodges-Lehmann estimate of the\n"
            "difference, its Wilcoxon signed-rank 95%% CI, the signed-rank p-value and the\n"
            "minimum detectable effect at 80%% power (docs/STATISTICS.md, docs/LATENCY.md).\n"
            "\n"
            "  --rounds N        measured rounds (default %d, at most %d)\n"
            "  --warmup N        unrecorded rounds first (default %d)\n"
            "  --profiles LIST   arms (default subprocess,baseline,hardened); docker-<profile>\n"
            "                    runs <profile> on the docker backend, pool-<profile> in\n"
            "                    sandboxes prepared ahead (asb_pool_run; refilled untimed)\n"
            "  --reference ARM   the arm the others are compared with (default: the first)\n"
            "  --ablate P        arms: P, and P with one control off at a time\n"
            "                    (P-no-netns, -seccomp, -landlock, -cgroup, -mounts); reference P\n"
            "  --code STR        Python code (default '%s'); --file F reads it from F\n"
            "  --seed N          round order seed (default: fresh from the OS, printed)\n"
            "  --out FILE        JSON record (default results/latency.json)\n"
            "  --plot FILE       SVG plot of the distributions and the differences\n"
            "\n"
            "A run fails when the sandbox errs, the status is not completed or the exit code is\n"
            "not 0. Failed runs are recorded in the JSON and their rounds are excluded from every\n"
            "statistic; the counts are printed and the exit status is then %d.\n"
            "The subprocess arm runs the code ON THE HOST: it is the unsandboxed baseline.\n",
            ASB_LATENCY_DEFAULT_ROUNDS, ASB_LATENCY_MAX_ROUNDS, ASB_LATENCY_DEFAULT_WARMUP,
            ASB_LATENCY_DEFAULT_CODE, CLI_EXIT_RUNS_FAILED);
}

/* --file: the code goes to python3 -c as one argv string, so it must fit one and hold no NUL. */
static int read_code(const char *path, char **code)
{
    unsigned char *data = NULL;
    size_t len = 0;
    if (cli_read_file(path, ASB_LATENCY_MAX_CODE_BYTES, &data, &len) < 0)
        return -1;
    if (memchr(data, '\0', len)) {
        cli_error("--file: '%s' contains a NUL byte (the code is passed as python3 -c CODE)", path);
        free(data);
        return -1;
    }
    char *s = realloc(data, len + 1);
    if (!s) {
        free(data);
        cli_error("out of memory");
        return -1;
    }
    s[len] = '\0';
    *code = s;
    return 0;
}

static void progress(void *ctx, size_t done, size_t rounds, size_t failed)
{
    (void)ctx;
    fprintf(stderr, "\rlatency: round %zu/%zu%s", done, rounds, failed ? " (failed runs!)" : "");
    if (done == rounds)
        fputc('\n', stderr);
}

static void print_table(FILE *f, const asb_latency_study_t *s)
{
    const asb_latency_host_t *h = &s->host;
    fprintf(f, "latency: %s -c '%.40s%s', %zu rounds (%zu complete), %zu warm-up, seed %llu\n",
            s->argv[0], s->argv[2], strlen(s->argv[2]) > 40 ? "..." : "", s->rounds_done,
            s->rounds_complete, s->warmup, (unsigned long long)s->seed);
    fprintf(f, "host: %s, Linux %s, %ld CPUs, load %.2f .. %.2f (max %.2f)\n\n", h->hostname,
            h->kernel, h->cpus_online, h->load1_start, h->load1_end, h->load1_max);
    fprintf(f, "%-26s %9s %9s %9s %9s %7s\n", "wall time, ms", "median", "p90", "min", "max",
            "failed");
    for (size_t a = 0; a < s->n_arms; a++) {
        char name[ASB_LATENCY_ARM_NAME_MAX + 8];
        snprintf(name, sizeof(name), "%s%s", s->arms[a].name, a == s->reference ? " (ref)" : "");
        const asb_describe_t *d = &s->wall[a];
        fprintf(f, "%-26s %9.2f %9.2f %9.2f %9.2f %7zu\n", name, d->median, d->p90, d->min, d->max,
                s->failed_per_arm[a]);
    }
    fprintf(f, "\n");
    for (size_t a = 0; a < s->n_arms; a++)
        if (a != s->reference)
            fprintf(f, "%s  (MDE %.2g ms)\n", s->verdict[a], s->pair[a].mde.wilcoxon);
}

static void report_failures(const asb_latency_study_t *s)
{
    if (s->runs_failed == 0)
        return;
    fprintf(stderr,
            "agent-sandbox: warning: %zu of %zu runs failed; %zu of %zu rounds excluded from "
            "every statistic:",
            s->runs_failed, s->rounds_done * s->n_arms, s->rounds_done - s->rounds_complete,
            s->rounds_done);
    for (size_t a = 0; a < s->n_arms; a++)
        if (s->failed_per_arm[a])
            fprintf(stderr, " %s %zu", s->arms[a].name, s->failed_per_arm[a]);
    fputc('\n', stderr);
    size_t shown = 0;
    for (size_t r = 0; r < s->rounds_done && shown < 5; r++)
        for (size_t a = 0; a < s->n_arms && shown < 5; a++) {
            const asb_latency_run_t *run = &s->runs[r * s->n_arms + a];
            if (run->error) {
                fprintf(stderr, "  round %zu, %s: %s\n", r, s->arms[a].name, run->error);
                shown++;
            }
        }
}

int cli_latency(int argc, char **argv)
{
    asb_latency_opts_t opts;
    asb_latency_study_t study;
    asb_error_t err;
    char *file_code = NULL, *json_text = NULL, *svg = NULL;
    json_t *json = NULL;
    size_t svg_len = 0;
    memset(&study, 0, sizeof(study));
    int rc = CLI_EXIT_USAGE;
    if (asb_latency_parse_args(argc, argv, &opts, &err) < 0) {
        cli_error("%s", err.message);
        goto out;
    }
    if (opts.help) {
        usage(stdout);
        rc = 0;
        goto out;
    }
    /* Before any run: a study of minutes must not end on an unusable output path. */
    if (cli_output_check("--out", opts.out) < 0 ||
        (opts.plot && cli_output_check("--plot", opts.plot) < 0))
        goto out;
    if (opts.file && read_code(opts.file, &file_code) < 0)
        goto out;
    if (asb_latency_study_init(&study, &opts, file_code ? file_code : opts.code, &err) < 0) {
        cli_error("%s", err.message);
        goto out;
    }
    for (size_t a = 0; a < study.n_arms; a++)
        if (strcmp(study.arms[a].profile, "subprocess") == 0)
            fprintf(stderr, "agent-sandbox: warning: arm subprocess runs the code ON THE HOST "
                            "(the unsandboxed baseline)\n");
    fprintf(stderr, "latency: %zu arms x %zu rounds (+%zu warm-up), seed %llu\n", study.n_arms,
            study.rounds, study.warmup, (unsigned long long)study.seed);
    rc = CLI_EXIT_INTERNAL;
    /* Interrupted: the runs in progress are killed and their temp dirs removed, and we end as
     * the signal would have (a TERM left subprocess temp dirs for `cleanup`: review note). */
    cli_sigwatch_t watch;
    cli_sigwatch_start(&watch, NULL, true); /* its arms may be docker profiles */
    int collected =
        asb_latency_study_collect(&study, NULL, isatty(2) ? progress : NULL, NULL, &err);
    cli_sigwatch_stop(&watch);
    if (collected < 0) {
        cli_error("%s", err.message);
        goto out;
    }
    /* The report for people goes where the JSON or the plot does not: with `--out -` standard
     * output is the record alone (docs QA: the table and the JSON came out together). */
    bool out_is_stdout = strcmp(opts.out, "-") == 0 || (opts.plot && strcmp(opts.plot, "-") == 0);
    FILE *report = out_is_stdout ? stderr : stdout;
    int analyzed = asb_latency_study_analyze(&study, &err);
    if (analyzed < 0)
        cli_error("%s", err.message); /* the JSON still records every run */
    else
        print_table(report, &study);
    report_failures(&study);

    if (!(json = asb_latency_json(&study)) ||
        !(json_text = json_dumps(json, JSON_INDENT(1) | JSON_PRESERVE_ORDER))) {
        cli_error("out of memory encoding the JSON record");
        goto out;
    }
    size_t jlen = strlen(json_text);
    json_text[jlen] = '\n'; /* replaces the NUL; written with its length */
    if (cli_output_write("--out", opts.out, json_text, jlen + 1) < 0)
        goto out;
    if (strcmp(opts.out, "-") != 0)
        fprintf(report, "\nwrote %s\n", opts.out);
    if (opts.plot && analyzed == 0) {
        if (asb_latency_svg(&study, &svg, &svg_len, &err) < 0) {
            cli_error("%s", err.message);
            goto out;
        }
        if (cli_output_write("--plot", opts.plot, svg, svg_len) < 0)
            goto out;
        if (strcmp(opts.plot, "-") != 0)
            fprintf(report, "wrote %s\n", opts.plot);
    }
    rc = analyzed < 0 || study.runs_failed ? CLI_EXIT_RUNS_FAILED : 0;
out:
    json_decref(json);
    free(json_text);
    free(svg);
    free(file_code);
    asb_latency_study_free(&study);
    return rc;
}
