#include "cli/cli.h"

int cli_cleanup(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("cleanup: not built yet");
    return CLI_EXIT_INTERNAL;
}
