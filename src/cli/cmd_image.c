/* cmd_image.c - `agent-sandbox image build`: the docker backend's default image. */
#include "cli/cli.h"
#include "core/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: agent-sandbox image build [--name NAME]\n"
               "\n"
               "Assembles a minimal image from this host's /usr/bin/python3 (the interpreter, its\n"
               "standard library, the shared libraries ldd lists) and /bin/sh, and loads it into\n"
               "the Docker engine (DOCKER_HOST=unix://... or /var/run/docker.sock) with the\n"
               "engine's image import. No registry is contacted. Default name:\n"
               "agent-sandbox/python:latest, the docker backend's default image.\n");
}

int cli_image(int argc, char **argv)
{
    const char *name = NULL;
    cli_seen_t seen = {0};
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "build") != 0) {
        cli_error("image: unknown action '%s' (expected build)", argv[1]);
        return CLI_EXIT_USAGE;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            if (cli_once(&seen, argv[i]) < 0)
                return CLI_EXIT_USAGE;
            name = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            cli_error("image build: unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    const char *why = NULL;
    if (name && !asb_valid_image_name(name, &why)) {
        cli_error("image build --name '%s': %s", name, why);
        return CLI_EXIT_USAGE;
    }
    char *report = NULL;
    asb_error_t err;
    if (asb_docker_image_build(name, &report, &err) < 0) {
        cli_error("%s", err.message);
        return CLI_EXIT_INTERNAL;
    }
    printf("%s\n", report ? report : "image built");
    free(report);
    return 0;
}
