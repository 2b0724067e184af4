/* plan.h - a validated, fully resolved run: the profile with its weakenings applied, the final
 * argv and environment, the enforced limits. Backends execute a plan; they never re-read config. */
#ifndef ASB_CORE_PLAN_H
#define ASB_CORE_PLAN_H

#include "agent_sandbox.h"
#include "core/profiles.h"

typedef struct asb_plan_file_in {
    char *host_path;
    char *name;
    bool executable; /* placed at ASB_EXEC_DIR/name, read-only and executable */
} asb_plan_file_in_t;

typedef struct asb_plan {
    asb_profile_t profile; /* a copy, with weakenings applied */
    char backend[16];      /* "subprocess", "native", "docker" */
    uint32_t weaken;
    char **argv; /* NULL-terminated */
    size_t argc;
    unsigned char *code; /* code mode: written to code_name in the workspace */
    char *code_name;     /* code mode: cfg->code_name or ASB_CODE_FILE */
    size_t code_len;
    const unsigned char *stdin_data; /* borrowed from the config */
    size_t stdin_len;
    char **env; /* NULL-terminated, final */
    size_t n_env;
    asb_limits_t requested, limits;
    asb_plan_file_in_t *files_in;
    size_t n_files_in;
    /* Native: the sandbox mounts ASB_EXEC_DIR (a file in is executable; a pool's template always
     * asks for it, since any job may bring one). */
    bool exec_dir;
    char **files_out;
    size_t n_files_out;
    char *docker_image;
    char run_id[17]; /* 16 hex chars, random */
    char nonce[33];  /* 32 hex chars, random, per run */
    int cancel_fd;   /* the caller's cancellation fd (readable = cancel); -1: none */
} asb_plan_t;

int asb_plan_build(const asb_config_t *cfg, asb_plan_t *plan, asb_error_t *err);
void asb_plan_free(asb_plan_t *plan);

/* Has the caller cancelled the run (its cancel fd is readable)? Never blocks. */
bool asb_plan_cancelled(const asb_plan_t *plan);

/* A plain file name: 1..255 bytes, no '/', not "." or "..", no NUL, no control characters. */
bool asb_valid_plain_name(const char *name, const char **why);
/* A docker image reference we pass on: 1..255 of [A-Za-z0-9._/:@-], not starting with '-', '/',
 * '.' or ':'. Not Docker's full grammar: a plain guard so that an empty or odd name is a usage
 * error here, not an engine error later (red-team finding: '' built an untagged image). */
bool asb_valid_image_name(const char *name, const char **why);

/* An environment addition "KEY=VALUE" with KEY matching [A-Za-z_][A-Za-z0-9_]*. */
bool asb_valid_env_entry(const char *entry, const char **why);

/* Random lowercase hex of 2*nbytes chars into out (size >= 2*nbytes+1), from getrandom(). */
int asb_random_hex(char *out, size_t nbytes, asb_error_t *err);

#endif
