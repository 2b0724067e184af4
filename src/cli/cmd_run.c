#include "cli/cli.h"

int cli_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("run: not built yet");
    return CLI_EXIT_INTERNAL;
}
