#include "cli/cli.h"

int cli_profiles(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("profiles: not built yet");
    return CLI_EXIT_INTERNAL;
}
