/* cmd_cleanup.c - `agent-sandbox cleanup`: remove owner-tagged leftovers and say what went. */
#include "chaos/host.h"
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_cleanup(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: agent-sandbox cleanup\n\n"
                   "Removes cgroups, temp dirs, containers and chaos canaries left by runs whose\n"
                   "owner process is gone (a crash or a kill), and prints each one removed. Runs\n"
                   "of live owners are never touched.\n");
            return 0;
        }
        cli_error("cleanup: unknown option '%s'", argv[i]);
        return CLI_EXIT_USAGE;
    }
    char *report = NULL;
    asb_error_t err;
    int rc = asb_cleanup(&report, &err);
    /* A chaos harness killed with SIGKILL left its canaries, planted files and mounts: they
     * carry its owner tag too (chaos/host.c). */
    (void)asb_chaos_reap_stale(&report);
    if (report && *report)
        fputs(report, stdout);
    else
        puts("nothing to clean up");
    free(report);
    if (rc < 0) {
        cli_error("%s", err.message);
        return CLI_EXIT_INTERNAL;
    }
    return 0;
}
