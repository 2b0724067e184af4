/* docker_public.c - the docker backend's public entry points that need no run: the pure request
 * builder, the profiles document, cleanup. */
#include "core/error.h"
#include "core/owner.h"
#include "core/plan.h"
#include "docker/docker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const DOCKER_PROFILES[] = {"baseline", "hardened"};

/* A plan for a representative run: `python3 -c pass`, with the nonce and run id zeroed so the
 * document is the same on every call. */
static int sample_plan(const char *profile, const asb_limits_t *limits, const char *image,
                       asb_plan_t *plan, asb_error_t *err)
{
    static const char *const argv[] = {"/usr/bin/python3", "-c", "pass", NULL};
    asb_config_t cfg;
    asb_config_init(&cfg);
    cfg.profile = profile;
    cfg.backend = "docker";
    cfg.argv = argv;
    cfg.docker_image = image;
    if (limits)
        cfg.limits = *limits;
    int rc = asb_plan_build(&cfg, plan, err);
    if (rc < 0)
        return rc;
    if (strcmp(plan->backend, "docker") != 0)
        return asb_err(err, -EINVAL, "profile %s has no docker form", plan->profile.name);
    memset(plan->nonce, '0', sizeof(plan->nonce) - 1);
    memset(plan->run_id, '0', sizeof(plan->run_id) - 1);
    return 0;
}

static json_t *request_for(const asb_plan_t *plan, asb_error_t *err)
{
    char sup[4096], owner[64], pidns[64];
    asb_error_t ignored;
    /* Pure: where the run would take the supervisor from, without requiring it to exist. */
    if (asb_docker_supervisor_path(sup, sizeof(sup), &ignored) < 0)
        snprintf(sup, sizeof(sup), "%s", ASB_SUPERVISOR_INSTALL_PATH);
    if (asb_owner_tag(owner, sizeof(owner)) < 0)
        snprintf(owner, sizeof(owner), "asb-0-0");
    if (asb_owner_pidns(pidns, sizeof(pidns)) < 0)
        snprintf(pidns, sizeof(pidns), "0:0");
    asb_docker_req_ctx_t ctx = {.image = plan->docker_image,
                                .supervisor = sup,
                                .owner_tag = owner,
                                .owner_pidns = pidns,
                                .io_volume = asb_docker_needs_io_volume(plan)};
    json_t *body = asb_docker_create_body(plan, &ctx);
    if (!body)
        asb_err_sys(err, ENOMEM, "create request");
    return body;
}

int asb_docker_request_json(const char *profile, const asb_limits_t *limits, const char *image,
                            char **json, asb_error_t *err)
{
    *json = NULL;
    asb_plan_t plan;
    int rc = sample_plan(profile, limits, image, &plan, err);
    json_t *body = rc == 0 ? request_for(&plan, err) : NULL;
    asb_plan_free(&plan);
    if (rc < 0)
        return rc;
    if (!body)
        return err->code;
    *json = json_dumps(body, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(body);
    return *json ? 0 : asb_err_sys(err, ENOMEM, "json");
}

int asb_docker_profiles_json(char **json, asb_error_t *err)
{
    *json = NULL;
    json_t *arr = json_array();
    int rc = 0;
    for (size_t i = 0; arr && i < sizeof(DOCKER_PROFILES) / sizeof(DOCKER_PROFILES[0]); i++) {
        asb_plan_t plan;
        if ((rc = sample_plan(DOCKER_PROFILES[i], NULL, NULL, &plan, err)) < 0) {
            asb_plan_free(&plan);
            break;
        }
        json_t *body = request_for(&plan, err);
        char name[64];
        snprintf(name, sizeof(name), "%s-%s", plan.profile.name, plan.run_id);
        char **argv = body ? asb_docker_run_argv(body, NULL) : NULL;
        asb_plan_free(&plan);
        if (!body || !argv) {
            json_decref(body);
            rc = asb_err_sys(err, ENOMEM, "profiles");
            break;
        }
        json_t *jargv = json_array();
        for (size_t k = 0; argv[k]; k++)
            json_array_append_new(jargv, json_string(argv[k]));
        asb_docker_strv_free(argv);
        bool all = false;
        json_t *flags = asb_docker_isolation_flags(body, &all);
        char alias[64];
        snprintf(alias, sizeof(alias), "docker-%s", DOCKER_PROFILES[i]);
        json_array_append_new(arr, json_pack("{s:s, s:[s], s:s, s:o, s:o, s:o, s:b}", "name",
                                             DOCKER_PROFILES[i], "aliases", alias, "create_path",
                                             "POST " ASB_DOCKER_API
                                             "/containers/create?name=<owner>-<run id>",
                                             "create_request", body, "docker_run_argv", jargv,
                                             "isolation", flags, "all_hardening_present", all));
    }
    if (rc < 0 || !arr) {
        json_decref(arr);
        return rc < 0 ? rc : asb_err_sys(err, ENOMEM, "profiles");
    }
    char sock[108];
    asb_error_t serr;
    if (asb_docker_socket_path(sock, sizeof(sock), &serr) < 0)
        snprintf(sock, sizeof(sock), "(invalid DOCKER_HOST)");
    json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:s, s:o}", "backend", "docker", "socket", sock,
                          "engine_contacted", 0, "default_image", ASB_DOCKER_DEFAULT_IMAGE,
                          "sample_command", "/usr/bin/python3 -c pass", "profiles", arr);
    *json = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
    json_decref(o);
    return *json ? 0 : asb_err_sys(err, ENOMEM, "profiles");
}

int asb_docker_cleanup(char **report, asb_error_t *err)
{
    *report = NULL;
    asb_docker_engine_t *eng = NULL;
    int rc = asb_docker_engine_open(&eng, err);
    if (rc < 0)
        return rc;
    rc = asb_docker_reap(eng, false, report, err);
    asb_docker_engine_close(eng);
    return rc;
}

int asb_docker_remove_own(asb_error_t *err)
{
    asb_docker_engine_t *eng = NULL;
    int rc = asb_docker_engine_open(&eng, err);
    if (rc < 0)
        return rc;
    char *report = NULL;
    rc = asb_docker_reap(eng, true, &report, err);
    free(report);
    asb_docker_engine_close(eng);
    return rc;
}
