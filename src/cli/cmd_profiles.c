#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_profiles(int argc, char **argv)
{
    const char *backend = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0) {
            /* the docker form is JSON only */
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: agent-sandbox profiles [--backend native|docker] [--json]\n\n"
                   "--backend docker prints, without contacting any engine, each docker "
                   "profile's exact\ncreate request, the equivalent `docker run` argv, each "
                   "isolation flag and\nall_hardening_present.\n");
            return 0;
        } else {
            cli_error("profiles: unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (backend && strcmp(backend, "docker") == 0) {
        char *json = NULL;
        asb_error_t err;
        if (asb_docker_profiles_json(&json, &err) < 0) {
            cli_error("%s", err.message);
            return CLI_EXIT_INTERNAL;
        }
        puts(json);
        free(json);
        return 0;
    }
    cli_error("profiles: not built yet");
    return CLI_EXIT_INTERNAL;
}
