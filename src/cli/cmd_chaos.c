/* cmd_chaos.c - `agent-sandbox chaos`: run the attack suite and print the matrix. */
#include "chaos/attacks.h"
#include "chaos/report.h"
#include "chaos/runner.h"
#include "chaos/host.h"
#include "cli/cli.h"
#include "core/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TARGETS 8
#define SECRET_ENV "ASB_CHAOS_SECRET"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: agent-sandbox chaos [--profiles subprocess,baseline,hardened] [--attacks a,b]\n"
            "                           [--repeat N] [--jobs N] [--out FILE] [--json]\n"
            "                           [--controls] [--list]\n"
            "\n"
            "Runs every attack under every profile and judges each run only from evidence the\n"
            "harness sees itself (its loopback listeners, planted canaries, host files and\n"
            "processes, cgroup counters, its own clock). Verdicts: succeeded, blocked, n/a,\n"
            "error. The subprocess profile runs the attacks ON THIS HOST (bounded).\n"
            "  --profiles   columns; docker-<profile> selects the docker backend, pool-<profile>\n"
            "               runs each attack in a sandbox prepared ahead (asb_pool_run)\n"
            "  --controls   run each attack's positive control instead (proves each judge can\n"
            "               say `succeeded`)\n"
            "  --json       print the JSON record instead of the matrix\n"
            "Exit status: 0, or 1 when any run's verdict is `error`.\n");
}

/* The secret must be in this process's initial environment (/proc/PID/environ), where a
 * process on the host could really find it, so it is set once and the command re-executed. */
static int ensure_secret(int argc, char **argv)
{
    if (getenv(SECRET_ENV))
        return 0;
    char secret[49];
    asb_error_t err;
    if (asb_random_hex(secret, 24, &err) < 0 || setenv(SECRET_ENV, secret, 1) < 0) {
        cli_error("chaos: cannot make the environment secret");
        return -1;
    }
    char **nargv = calloc((size_t)argc + 2, sizeof(char *));
    if (!nargv)
        return -1;
    nargv[0] = "agent-sandbox";
    for (int i = 0; i < argc; i++)
        nargv[i + 1] = argv[i];
    execv("/proc/self/exe", nargv);
    cli_error("chaos: re-exec with the secret failed: %s", strerror(errno));
    free(nargv);
    return -1;
}

/* "a,b,c" into names (in place in one copy, v[0] owns it). An empty name (",a", "a,,b", "a,")
 * or one given twice is refused, as latency and bench refuse them: a matrix that silently ran
 * an attack twice, or accepted a stray comma, was not what was asked (QA finding). */
static int split(const char *flag, const char *list, char ***out, size_t *n)
{
    char *copy = strdup(list);
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    char **v = calloc(cap, sizeof(char *));
    if (!copy || !v) {
        free(copy);
        free(v);
        cli_error("%s: out of memory", flag);
        return -1;
    }
    *n = 0;
    for (char *tok = copy;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        if (*tok == '\0' && (comma || *n > 0)) {
            cli_error("%s: an empty name in '%s'", flag, list);
            goto bad;
        }
        for (size_t k = 0; k < *n; k++)
            if (strcmp(v[k], tok) == 0) {
                cli_error("%s: '%s' given twice", flag, tok);
                goto bad;
            }
        if (*tok)
            v[(*n)++] = tok;
        if (!comma)
            break;
        tok = comma + 1;
    }
    if (*n == 0)
        free(copy); /* v[0] holds it otherwise, and the caller frees v[0] */
    *out = v;
    return 0;
bad:
    free(copy);
    free(v);
    *n = 0;
    *out = NULL;
    return -1;
}

int cli_chaos(int argc, char **argv)
{
    const char *profiles = "subprocess,baseline,hardened", *attack_list = NULL, *out = NULL;
    bool json = false, list = false;
    uint64_t repeat = 1, jobs = 4;
    cli_seen_t seen = {0};
    static const char *const value_opts[] = {"--profiles", "--attacks", "--out",
                                             "--repeat",   "--jobs",    NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            if (cli_once(&seen, a) < 0)
                return CLI_EXIT_USAGE;
            json = true;
        } else if (!strcmp(a, "--list")) {
            if (cli_once(&seen, a) < 0)
                return CLI_EXIT_USAGE;
            list = true;
        } else if (!strcmp(a, "--controls")) {
            /* the same choice as --profiles control: one or the other, once, in either order
             * (QA finding: --controls then --profiles said --profiles was given twice) */
            for (size_t k = 0; k < seen.n; k++)
                if (strcmp(seen.flags[k], "--profiles") == 0) {
                    cli_error("--controls and --profiles choose the same thing: give one, once");
                    return CLI_EXIT_USAGE;
                }
            if (cli_once(&seen, a) < 0)
                return CLI_EXIT_USAGE;
            profiles = "control";
        } else if (strncmp(a, "--", 2) != 0) {
            cli_error("chaos: unexpected argument '%s' (see agent-sandbox chaos --help)", a);
            return CLI_EXIT_USAGE;
        } else if (!cli_value_option("chaos", a, value_opts)) {
            return CLI_EXIT_USAGE;
        } else if (!v) {
            cli_error("%s: missing value (see agent-sandbox chaos --help)", a);
            return CLI_EXIT_USAGE;
        } else if (cli_once(&seen, a) < 0) {
            return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--profiles")) {
            for (size_t k = 0; k < seen.n; k++)
                if (strcmp(seen.flags[k], "--controls") == 0) {
                    cli_error("--controls and --profiles choose the same thing: give one, once");
                    return CLI_EXIT_USAGE;
                }
            profiles = argv[++i];
        } else if (!strcmp(a, "--attacks")) {
            attack_list = argv[++i];
        } else if (!strcmp(a, "--out")) {
            out = argv[++i];
        } else if (!strcmp(a, "--repeat")) {
            if (cli_parse_u64(a, argv[++i], 1, 100, &repeat) < 0)
                return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--jobs")) {
            if (cli_parse_u64(a, argv[++i], 1, 64, &jobs) < 0)
                return CLI_EXIT_USAGE;
        } else {
            cli_error("unknown option '%s' (see agent-sandbox chaos --help)", a);
            return CLI_EXIT_USAGE;
        }
    }
    size_t n_all;
    const asb_chaos_attack_t *all = asb_chaos_attacks(&n_all);
    if (list && seen.n > 1) {
        /* --list runs nothing: an option beside it was silently ignored (QA finding) */
        cli_error("chaos --list takes no other option");
        return CLI_EXIT_USAGE;
    }
    if (list) {
        for (size_t i = 0; i < n_all; i++)
            printf("%-20s %s\n", all[i].name, all[i].what);
        return 0;
    }
    if (out && cli_output_check("--out", out) < 0)
        return CLI_EXIT_USAGE;
    if (ensure_secret(argc, argv) < 0)
        return CLI_EXIT_INTERNAL;
    /* What harnesses killed with SIGKILL left on the host (canaries, planted files, mounts) goes
     * first, as a native run takes dead callers' cgroups along. */
    char *stale = NULL;
    (void)asb_chaos_reap_stale(&stale);
    for (char *line = stale, *nl; line && *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break;
        fprintf(stderr, "agent-sandbox: note: %.*s\n", (int)(nl - line), line);
    }
    free(stale);

    int rc = CLI_EXIT_USAGE;
    char **names = NULL, **pnames = NULL;
    size_t n_names = 0, n_p = 0, n_attacks = 0;
    const asb_chaos_attack_t **attacks = calloc(n_all, sizeof(*attacks));
    asb_chaos_target_t targets[MAX_TARGETS];
    asb_chaos_run_t *runs = NULL;
    size_t n_runs = 0;
    char *text = NULL;
    asb_error_t err = {0};
    if (!attacks)
        goto out;
    if (attack_list) {
        if (split("--attacks", attack_list, &names, &n_names) < 0)
            goto out;
        if (n_names == 0) {
            /* An empty matrix would print "0/0 succeeded", which reads like a clean result. */
            cli_error("--attacks: give at least one attack name (see agent-sandbox chaos --list)");
            goto out;
        }
        for (size_t i = 0; i < n_names; i++) {
            const asb_chaos_attack_t *a = asb_chaos_attack_find(names[i]);
            if (!a) {
                cli_error("unknown attack '%s' (see agent-sandbox chaos --list)", names[i]);
                goto out;
            }
            attacks[n_attacks++] = a;
        }
    } else {
        for (size_t i = 0; i < n_all; i++)
            attacks[n_attacks++] = &all[i];
    }
    if (split("--profiles", profiles, &pnames, &n_p) < 0)
        goto out;
    if (n_p == 0 || n_p > MAX_TARGETS) {
        cli_error("--profiles: give 1 to %d names", MAX_TARGETS);
        goto out;
    }
    for (size_t i = 0; i < n_p; i++)
        if (asb_chaos_target_parse(pnames[i], &targets[i], &err) < 0) {
            cli_error("--profiles: %s", err.message);
            goto out;
        }
    char dir[4096];
    if (asb_chaos_attacks_dir(dir, sizeof(dir), &err) < 0) {
        cli_error("%s", err.message);
        rc = CLI_EXIT_INTERNAL;
        goto out;
    }
    atomic_bool cancel;
    atomic_init(&cancel, false);
    asb_chaos_opts_t opts = {
        .attacks_dir = dir, .jobs = (int)jobs, .repeat = (int)repeat, .cancel = &cancel};
    double wall = 0;
    rc = CLI_EXIT_INTERNAL;
    /* Interrupted (^C, timeout(1), TERM): the runs in progress are killed and remove what they
     * planted on the host; no report of a partial matrix. */
    cli_sigwatch_t watch;
    cli_sigwatch_start(&watch, &cancel, strstr(profiles, "docker") != NULL);
    int mrc =
        asb_chaos_matrix(attacks, n_attacks, targets, n_p, &opts, &runs, &n_runs, &wall, &err);
    int sig = cli_sigwatch_stop(&watch);
    if (sig > 0) {
        cli_error("chaos: interrupted by signal %d; what the runs planted on the host is removed",
                  sig);
        rc = 128 + sig;
        goto out;
    }
    if (mrc < 0) {
        cli_error("chaos: %s", err.message);
        goto out;
    }
    asb_chaos_matrix_view_t m = {.attacks = attacks,
                                 .n_attacks = n_attacks,
                                 .targets = targets,
                                 .n_targets = n_p,
                                 .runs = runs,
                                 .n_runs = n_runs,
                                 .repeat = (int)repeat,
                                 .jobs = (int)jobs,
                                 .wall_s = wall};
    if ((json || out) && asb_chaos_json(&m, &text, &err) < 0) {
        cli_error("chaos: %s", err.message);
        goto out;
    }
    /* `--out -` is the JSON on standard output, once; the matrix for people then goes to
     * standard error (docs QA: with --json the record came out twice, without it after the
     * matrix). */
    bool out_is_stdout = out && strcmp(out, "-") == 0;
    if (json || out_is_stdout)
        printf("%s\n", text);
    if (!json)
        asb_chaos_print(out_is_stdout ? stderr : stdout, &m);
    if (out && !out_is_stdout && cli_output_write_line("--out", out, text) < 0)
        goto out;
    rc = asb_chaos_errors(&m) ? 1 : 0;
out:
    free(text);
    asb_chaos_runs_free(runs, n_runs);
    if (names)
        free(names[0]);
    free(names);
    if (pnames)
        free(pnames[0]);
    free(pnames);
    free(attacks);
    return rc;
}
