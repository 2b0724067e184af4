#include "cli/cli.h"

int cli_preflight(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("preflight: not built yet");
    return CLI_EXIT_INTERNAL;
}
