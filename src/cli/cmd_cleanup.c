/* cmd_cleanup.c - `agent-sandbox cleanup`: remove owner-tagged leftovers and say what went. */
#include "chaos/host.h"
#include "cli/cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the report has a line other than the docker note that the engine was not checked. */
static bool removed_anything(const char *report)
{
    for (const char *p = report; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && strncmp(p, "docker: skipped", 15) != 0)
            return true;
        p = nl ? nl + 1 : p + len;
    }
    return false;
}

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
    /* Without an engine the report holds the docker note alone: nothing was removed, and that
     * is said first (it was never said on a host without Docker: QA finding, session 17). */
    if (!removed_anything(report) && rc == 0) /* not after a place it could not examine */
        puts("nothing to clean up");
    if (report && *report)
        fputs(report, stdout);
    free(report);
    if (rc < 0) {
        cli_error("%s", err.message);
        return CLI_EXIT_INTERNAL;
    }
    return 0;
}
