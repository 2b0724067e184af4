/* bench_sandboxes.c - score coding_starter in the subprocess lane and audit the docker lane
 * without launching anything; writes artifacts/bench-sandboxes.json.
 *
 * usage: bench_sandboxes [SUITE] [--out PATH]
 *
 * The docker lane audit reports whether an engine answers on its socket and never creates a
 * container. The exact hardened docker request (image, argv, isolation flags) comes from the
 * docker backend's pure request builder; a field it cannot supply is written as null and listed
 * under "pending" - never guessed. */
#include "agent_sandbox.h"
#include "bench/bench.h"
#include "bench/submission.h"
#include "bench/suite.h"
#include "core/limits.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define DOCKER_SOCKET "/var/run/docker.sock"
#define DEFAULT_SUITE "examples/bench_suites/coding_starter.json"
#define DEFAULT_OUT "artifacts/bench-sandboxes.json"

/* An engine is available when something accepts a connection on its socket. Nothing is sent. */
static bool docker_socket_answers(char *why, size_t why_len)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        snprintf(why, why_len, "socket: %s", strerror(errno));
        return false;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", DOCKER_SOCKET);
    int rc;
    do
        rc = connect(s, (struct sockaddr *)&sa, sizeof(sa));
    while (rc < 0 && errno == EINTR);
    int e = errno;
    close(s);
    if (rc < 0) {
        snprintf(why, why_len, "connect %s: %s", DOCKER_SOCKET, strerror(e));
        return false;
    }
    snprintf(why, why_len, "connect %s: accepted", DOCKER_SOCKET);
    return true;
}

/* The argv flags that carry isolation, as "--flag value" strings (e.g. "--network none"). */
static json_t *isolation_argv_flags(json_t *argv)
{
    static const char *const with_value[] = {
        "--network",     "--user",       "--cap-drop", "--security-opt", "--memory",
        "--memory-swap", "--pids-limit", "--cpus",     "--tmpfs",        "--ulimit"};
    static const char *const alone[] = {"--read-only"};
    json_t *out = json_array();
    size_t n = json_array_size(argv);
    for (size_t i = 0; out && i < n; i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        if (!a)
            continue;
        for (size_t k = 0; k < sizeof(alone) / sizeof(alone[0]); k++)
            if (strcmp(a, alone[k]) == 0)
                json_array_append_new(out, json_string(a));
        for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) {
            if (strcmp(a, with_value[k]) == 0 && i + 1 < n) {
                char buf[512];
                snprintf(buf, sizeof(buf), "%s %s", a,
                         json_string_value(json_array_get(argv, i + 1)));
                json_array_append_new(out, json_string(buf));
            }
        }
    }
    return out;
}

/* The hardened docker request from the backend's pure builder: nothing is sent to any engine. */
static json_t *docker_lane(void)
{
    char why[256];
    bool up = docker_socket_answers(why, sizeof(why));
    char *text = NULL;
    asb_error_t err;
    json_t *all = NULL, *hard = NULL;
    if (asb_docker_profiles_json(&text, &err) == 0)
        all = json_loads(text, 0, NULL);
    free(text);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(all, "profiles"), i, p)
    {
        const char *name = json_string_value(json_object_get(p, "name"));
        if (name && strcmp(name, "hardened") == 0)
            hard = p;
    }
    if (!hard) {
        json_decref(all);
        return json_pack("{s:b, s:s, s:b, s:n, s:n, s:n, s:n, s:n, s:n, s:n, s:[s,s,s,s,s,s,s], "
                         "s:s}",
                         "docker_available", up, "probe", why, "launched_container", false, "image",
                         "memory", "cpus", "pids_limit", "hardened_argv", "isolation_flags",
                         "all_hardening_present", "pending", "image", "memory", "cpus",
                         "pids_limit", "hardened_argv", "isolation_flags", "all_hardening_present",
                         "pending_reason",
                         "the docker request builder failed: no hardened profile");
    }
    json_t *hc = json_object_get(json_object_get(hard, "create_request"), "HostConfig");
    json_t *argv = json_object_get(hard, "docker_run_argv");
    json_t *image = json_object_get(json_object_get(hard, "create_request"), "Image");
    double cpus = (double)json_integer_value(json_object_get(hc, "NanoCpus")) / 1e9;
    json_t *o = json_pack("{s:b, s:s, s:b, s:O, s:O, s:f, s:O, s:O, s:o, s:O, s:O, s:[], s:s}",
                          "docker_available", up, "probe", why, "launched_container", false,
                          "image", image, "memory", json_object_get(hc, "Memory"), "cpus", cpus,
                          "pids_limit", json_object_get(hc, "PidsLimit"), "hardened_argv", argv,
                          "isolation_flags", isolation_argv_flags(argv), "isolation",
                          json_object_get(hard, "isolation"), "all_hardening_present",
                          json_object_get(hard, "all_hardening_present"), "pending", "source",
                          "asb_docker_profiles_json (pure builder; no engine contacted)");
    json_decref(all);
    return o;
}

static int mkdir_parent(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "bench_sandboxes: mkdir %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *suite_path = DEFAULT_SUITE, *out = DEFAULT_OUT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-')
            suite_path = argv[i];
        else {
            fprintf(stderr, "usage: bench_sandboxes [SUITE] [--out PATH]\n");
            return 2;
        }
    }
    asb_error_t err;
    asb_bench_suite_t suite;
    if (asb_bench_suite_load(suite_path, &suite, &err) < 0) {
        fprintf(stderr, "bench_sandboxes: %s\n", err.message);
        return 2;
    }
    asb_bench_submission_t sub;
    asb_bench_options_t opts = {.lane = {.sandbox = "subprocess"},
                                .evidence_class = "local_gate",
                                .jobs = 2,
                                .source = "reference",
                                .suite_path = suite_path};
    asb_bench_report_t rep;
    char *text = NULL;
    int status = 1;
    if (asb_bench_submission_reference(&suite, &sub, &err) < 0) {
        fprintf(stderr, "bench_sandboxes: %s\n", err.message);
        asb_bench_suite_free(&suite);
        return 1;
    }
    if (asb_bench_run(&suite, &sub, &opts, &rep, &err) < 0 ||
        asb_bench_artifact_json(&suite, &opts, &rep, &text, &err) < 0) {
        fprintf(stderr, "bench_sandboxes: %s\n", err.message);
        goto out;
    }
    json_t *art = json_loads(text, 0, NULL);
    json_t *doc =
        json_pack("{s:s, s:{s:s, s:O, s:O, s:O}, s:o}", "schema", "agent-sandbox.bench-sandboxes/1",
                  "subprocess_lane", "suite", suite.name, "aggregate",
                  json_object_get(art, "aggregate"), "honesty", json_object_get(art, "honesty"),
                  "rows", json_object_get(art, "rows"), "docker_lane", docker_lane());
    json_decref(art);
    if (doc && mkdir_parent(out) == 0 && json_dump_file(doc, out, JSON_INDENT(2)) == 0) {
        printf("wrote %s\n", out);
        status = 0;
    } else {
        fprintf(stderr, "bench_sandboxes: cannot write %s\n", out);
    }
    json_decref(doc);
    asb_bench_report_free(&rep);
out:
    free(text);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
    return status;
}
