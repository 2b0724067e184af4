/* cmd_preflight.c - `agent-sandbox preflight`: kernel features plus one attested hardened run. */
#include "cli/cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_preflight(int argc, char **argv)
{
    bool as_json = false;
    cli_seen_t seen = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            if (cli_once(&seen, argv[i]) < 0)
                return CLI_EXIT_USAGE;
            as_json = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: agent-sandbox preflight [--json]\n\nChecks user namespaces, "
                   "seccomp, Landlock, openat2 and cgroups, then performs one attested\n"
                   "hardened run. Exit 0 when everything the hardened profile needs works.\n");
            return 0;
        } else {
            cli_error("preflight: unknown option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    char *json = NULL;
    asb_error_t err;
    int rc = asb_preflight(&json, &err);
    if (!json) {
        cli_error("%s", err.message);
        return CLI_EXIT_INTERNAL;
    }
    if (as_json) {
        puts(json);
    } else {
        json_t *o = json_loads(json, 0, NULL);
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(o, "checks"), i, c)
        {
            printf("%-4s %-16s %s\n", json_is_true(json_object_get(c, "ok")) ? "ok" : "FAIL",
                   json_string_value(json_object_get(c, "check")),
                   json_string_value(json_object_get(c, "detail")));
        }
        json_array_foreach(json_object_get(o, "warnings"), i, c)
        {
            printf("%-4s %-16s %s\n", "warn", json_string_value(json_object_get(c, "warning")),
                   json_string_value(json_object_get(c, "detail")));
        }
        json_decref(o);
    }
    free(json);
    if (rc < 0) {
        cli_error("%s", err.message);
        return CLI_EXIT_INTERNAL;
    }
    return 0;
}
