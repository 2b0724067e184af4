/* cmd_profiles.c - `agent-sandbox profiles`: each profile, each control, what this host enforces.
 */
#include "cli/cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: agent-sandbox profiles [--backend native|docker] [--json]\n\n"
               "Lists each profile, each control, and whether this host enforces it.\n"
               "With --backend docker, prints the exact container create request and the\n"
               "equivalent `docker run` argv per profile, without contacting any daemon;\n"
               "that listing is JSON with or without --json.\n");
}

/* ", name N unit", or ", name no limit" for 0 (the profile sets none: the caller's own, or the
 * kernel's, applies). */
static void print_limit(const char *name, long long v, long long div, const char *unit)
{
    if (v > 0)
        printf(", %s %lld%s", name, v / div, unit);
    else
        printf(", %s no limit", name);
}

static void print_human(json_t *o)
{
    json_t *h = json_object_get(o, "host");
    printf("host: kernel %s, cgroup %s, landlock ABI %lld, user namespaces %s\n\n",
           json_string_value(json_object_get(h, "kernel")),
           json_string_value(json_object_get(h, "cgroup")),
           json_integer_value(json_object_get(h, "landlock_abi")),
           json_is_true(json_object_get(h, "user_namespaces")) ? "yes" : "no");
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(o, "profiles"), i, p)
    {
        printf("%s%s\n  %s\n", json_string_value(json_object_get(p, "name")),
               json_is_true(json_object_get(p, "runnable_here")) ? ""
                                                                 : "  [NOT RUNNABLE ON THIS HOST]",
               json_string_value(json_object_get(p, "summary")));
        size_t j;
        json_t *c;
        json_array_foreach(json_object_get(p, "controls"), j, c)
        {
            char *wanted = json_dumps(json_object_get(c, "wanted"), JSON_ENCODE_ANY);
            printf("  %-20s %-40s %s%s\n", json_string_value(json_object_get(c, "control")),
                   wanted ? wanted : "?", json_string_value(json_object_get(c, "host")),
                   json_is_true(json_object_get(c, "host_enforces")) ? "" : "  (MISSING)");
            free(wanted);
        }
        json_t *l = json_object_get(p, "default_limits");
        printf("  limits: timeout %gs", json_real_value(json_object_get(l, "timeout_s")));
        print_limit("memory", json_integer_value(json_object_get(l, "memory_bytes")), 1048576,
                    " MiB");
        print_limit("pids", json_integer_value(json_object_get(l, "pids")), 1, "");
        double cpus = json_real_value(json_object_get(l, "cpus"));
        if (cpus > 0)
            printf(", cpus %g", cpus);
        else
            printf(", cpus no limit");
        print_limit("file size", json_integer_value(json_object_get(l, "fsize_bytes")), 1048576,
                    " MiB");
        print_limit("open files", json_integer_value(json_object_get(l, "nofile")), 1, "");
        print_limit("disk read", json_integer_value(json_object_get(l, "io_read_bps")), 1048576,
                    " MiB/s");
        print_limit("disk read ops", json_integer_value(json_object_get(l, "io_read_iops")), 1,
                    "/s");
        printf(", output %lld B/stream\n\n",
               json_integer_value(json_object_get(l, "output_bytes")));
    }
}

int cli_profiles(int argc, char **argv)
{
    bool as_json = false;
    const char *backend = NULL;
    cli_seen_t seen = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            if (cli_once(&seen, argv[i]) < 0)
                return CLI_EXIT_USAGE;
            as_json = true;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            if (cli_once(&seen, argv[i]) < 0)
                return CLI_EXIT_USAGE;
            backend = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            cli_error("profiles: unknown or incomplete option '%s'", argv[i]);
            return CLI_EXIT_USAGE;
        }
    }
    if (backend && strcmp(backend, "native") != 0 && strcmp(backend, "docker") != 0) {
        cli_error("profiles --backend: expected native or docker, got '%s'", backend);
        return CLI_EXIT_USAGE;
    }
    char *json = NULL;
    asb_error_t err;
    if (asb_profiles_json(backend, &json, &err) < 0) {
        cli_error("%s", err.message);
        return CLI_EXIT_INTERNAL;
    }
    json_t *o = json_loads(json, 0, NULL);
    if (as_json || !o || (backend && strcmp(backend, "native") != 0))
        puts(json);
    else
        print_human(o);
    json_decref(o);
    free(json);
    return 0;
}
