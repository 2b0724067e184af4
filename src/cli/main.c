/* main.c - dispatch to one subcommand; each lives in its own file. */
#include "cli/cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} COMMANDS[] = {
    {"run", cli_run, "run code or a command in a sandbox"},
    {"profiles", cli_profiles, "list profiles, their controls, and what this host enforces"},
    {"preflight", cli_preflight, "check kernel features and do one attested hardened run"},
    {"cleanup", cli_cleanup, "remove leftovers of crashed runs"},
    {"image", cli_image, "build the docker backend's default image from the host's python"},
    {"latency", cli_latency, "paired latency study of the profiles, with CIs and a plot"},
    {"bench", cli_bench, "score candidate code against held-out oracles in a sandbox lane"},
    {"chaos", cli_chaos, "run the attack suite under each profile and print what it stops"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: agent-sandbox <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].help);
    fprintf(f, "\n`agent-sandbox <command> --help` for the options of each.\n");
}

int main(int argc, char **argv)
{
    /* An ignored SIGCHLD survives exec: our children would be reaped by the kernel, and a
     * subprocess run could not read its program's exit status (crash-QA finding: every
     * subprocess run of such a CLI was a sandbox_error). The CLI is ours to reset. */
    signal(SIGCHLD, SIG_DFL);
    /* A reader that went away (`| head`, `| true`) is a report lost, exit 125 with a message
     * below, not a silent death by SIGPIPE (141): bench and chaos died so (docs QA). Every
     * program we start gets its signals back to their defaults first (supervisor, subprocess
     * backend). */
    signal(SIGPIPE, SIG_IGN);
    /* A write past the caller's RLIMIT_FSIZE (the record to a file, a file in) fails with EFBIG
     * and is reported, instead of killing us with the run half done (QA finding). The
     * sandboxes' processes set their signals back to their defaults before they exec, and so
     * does the image build's ldd; its one popen(python3) inherits both ignored, which costs it
     * nothing (it writes one short line to our pipe). */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return cli_help_done();
    }
    for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) {
            int rc = COMMANDS[i].fn(argc - 1, argv + 1);
            /* What a command printed must have arrived: a report lost to a closed or full
             * stdout is a failure, whichever command it was (QA finding: profiles, preflight,
             * cleanup and chaos said 0). A command that failed already said why. */
            if ((fflush(stdout) != 0 || ferror(stdout)) && rc != CLI_EXIT_INTERNAL) {
                cli_error("%s: its output could not be written to standard output", argv[1]);
                return CLI_EXIT_INTERNAL;
            }
            return rc;
        }
    cli_error("unknown command '%s' (see agent-sandbox --help)", argv[1]);
    return CLI_EXIT_USAGE;
}
