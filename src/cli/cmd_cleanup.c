#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int cli_cleanup(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* Docker: owner-tagged containers whose owner is gone. No engine means no containers. */
    char *report = NULL;
    asb_error_t err;
    if (asb_docker_cleanup(&report, &err) < 0) {
        if (err.code == -ECONNREFUSED || err.code == -ETIMEDOUT)
            printf("docker: skipped (%s)\n", err.message);
        else {
            cli_error("%s", err.message);
            return CLI_EXIT_INTERNAL;
        }
    } else {
        printf("%s", report && *report ? report : "docker: nothing to remove\n");
    }
    free(report);
    return 0;
}
