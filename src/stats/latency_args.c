/* latency_args.c - the options of `agent-sandbox latency` and the arms they describe. */
#include "core/error.h"
#include "core/limits.h"
#include "core/profiles.h"
#include "stats/latency_study.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PROFILES "subprocess,baseline,hardened"
#define DEFAULT_OUT "results/latency.json"

/* Whole decimal numbers only: strtoull alone accepts "-1", " 5" and "5x". */
static int parse_u64(const char *flag, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                     asb_error_t *err)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = 0;
    if (s && *s >= '0' && *s <= '9')
        v = strtoull(s, &end, 10);
    if (!s || !end || *end || errno || v < min || v > max)
        return asb_err(err, -EINVAL, "%s: expected a whole number between %llu and %llu, got '%s'",
                       flag, (unsigned long long)min, (unsigned long long)max, s ? s : "");
    *out = v;
    return 0;
}

static int split_profiles(const char *list, asb_latency_opts_t *o, asb_error_t *err)
{
    if (strlen(list) >= sizeof(o->profiles_buf))
        return asb_err(err, -EINVAL, "--profiles: list longer than %zu bytes",
                       sizeof(o->profiles_buf) - 1);
    memcpy(o->profiles_buf, list, strlen(list) + 1);
    o->n_profiles = 0;
    char *save = NULL;
    for (char *tok = strtok_r(o->profiles_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->n_profiles == ASB_LATENCY_MAX_ARMS)
            return asb_err(err, -EINVAL, "--profiles: at most %d profiles", ASB_LATENCY_MAX_ARMS);
        o->profiles[o->n_profiles++] = tok;
    }
    if (o->n_profiles == 0)
        return asb_err(err, -EINVAL, "--profiles: empty list");
    return 0;
}

int asb_latency_parse_args(int argc, char **argv, asb_latency_opts_t *o, asb_error_t *err)
{
    memset(o, 0, sizeof(*o));
    o->rounds = ASB_LATENCY_DEFAULT_ROUNDS;
    o->warmup = ASB_LATENCY_DEFAULT_WARMUP;
    o->out = DEFAULT_OUT;
    bool profiles_given = false;
    uint64_t u;
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            o->help = true;
            return 0;
        }
        if (strncmp(arg, "--", 2) != 0)
            return asb_err(err, -EINVAL, "latency: unexpected argument '%s'", arg);
        static const char *const value_opts[] = {"--rounds",    "--warmup", "--seed", "--profiles",
                                                 "--reference", "--ablate", "--code", "--file",
                                                 "--out",       "--plot",   NULL};
        bool known = false;
        for (size_t k = 0; value_opts[k] && !known; k++)
            known = strcmp(arg, value_opts[k]) == 0;
        /* Before the value is looked for: an unknown last argument is not a missing value. */
        if (!known)
            return asb_err(err, -EINVAL, "latency: unknown option '%s' (see --help)", arg);
        if (i + 1 >= argc)
            return asb_err(err, -EINVAL, "%s: missing value", arg);
        const char *v = argv[++i];
        /* Every option takes one value (flags sit at 1, 3, 5...): given twice, the later one
         * won silently. */
        for (int j = 1; j < i - 1; j += 2)
            if (strcmp(argv[j], arg) == 0)
                return asb_err(err, -EINVAL, "%s given twice (give it once)", arg);
        if (strcmp(arg, "--rounds") == 0) {
            if ((rc = parse_u64(arg, v, 2, ASB_LATENCY_MAX_ROUNDS, &u, err)) < 0)
                return rc;
            o->rounds = (size_t)u;
        } else if (strcmp(arg, "--warmup") == 0) {
            if ((rc = parse_u64(arg, v, 0, ASB_LATENCY_MAX_WARMUP, &u, err)) < 0)
                return rc;
            o->warmup = (size_t)u;
        } else if (strcmp(arg, "--seed") == 0) {
            if ((rc = parse_u64(arg, v, 0, ASB_LATENCY_MAX_SEED, &u, err)) < 0)
                return rc;
            o->seed = u;
            o->seed_given = true;
        } else if (strcmp(arg, "--profiles") == 0) {
            if ((rc = split_profiles(v, o, err)) < 0)
                return rc;
            profiles_given = true;
        } else if (strcmp(arg, "--reference") == 0) {
            o->reference = v;
        } else if (strcmp(arg, "--ablate") == 0) {
            o->ablate = v;
        } else if (strcmp(arg, "--code") == 0) {
            o->code = v;
        } else if (strcmp(arg, "--file") == 0) {
            o->file = v;
        } else if (strcmp(arg, "--out") == 0) {
            o->out = v;
        } else if (strcmp(arg, "--plot") == 0) {
            o->plot = v;
        } else {
            return asb_err(err, -EINVAL, "latency: unknown option '%s' (see --help)", arg);
        }
    }
    if (o->code && o->file)
        return asb_err(err, -EINVAL, "latency: give --code or --file, not both");
    if (!o->code && !o->file)
        o->code = ASB_LATENCY_DEFAULT_CODE;
    if (o->ablate && profiles_given)
        return asb_err(err, -EINVAL,
                       "latency: --ablate chooses the arms itself; it does not take --profiles");
    if (!profiles_given && !o->ablate && (rc = split_profiles(DEFAULT_PROFILES, o, err)) < 0)
        return rc;
    if (!*o->out)
        return asb_err(err, -EINVAL, "--out: empty path");
    if (o->plot && !*o->plot)
        return asb_err(err, -EINVAL, "--plot: empty path");
    /* One artifact would silently replace the other (QA finding). */
    if (o->plot && strcmp(o->plot, o->out) == 0)
        return asb_err(err, -EINVAL, "--out and --plot name the same file: %.200s", o->out);
    return 0;
}

static const uint32_t CONTROLS[] = {ASB_WEAKEN_NETNS, ASB_WEAKEN_SECCOMP, ASB_WEAKEN_LANDLOCK,
                                    ASB_WEAKEN_CGROUP, ASB_WEAKEN_MOUNTS};

const char *asb_latency_control_name(uint32_t bit)
{
    switch (bit) {
    case ASB_WEAKEN_NETNS:
        return "netns";
    case ASB_WEAKEN_SECCOMP:
        return "seccomp";
    case ASB_WEAKEN_LANDLOCK:
        return "landlock";
    case ASB_WEAKEN_CGROUP:
        return "cgroup";
    case ASB_WEAKEN_MOUNTS:
        return "mounts";
    default:
        return NULL;
    }
}

/* Only controls the profile enforces: switching off one it lacks would measure nothing and
 * present noise as a cost. */
static bool profile_has(const asb_profile_t *p, uint32_t bit)
{
    switch (bit) {
    case ASB_WEAKEN_NETNS:
        return p->ns_net;
    case ASB_WEAKEN_SECCOMP:
        return p->seccomp != ASB_SECCOMP_NONE;
    case ASB_WEAKEN_LANDLOCK:
        return p->landlock;
    case ASB_WEAKEN_CGROUP:
        return p->cgroup;
    case ASB_WEAKEN_MOUNTS:
        return p->root != ASB_ROOT_HOST;
    default:
        return false;
    }
}

static void set_arm(asb_latency_arm_t *a, const char *profile, uint32_t weaken)
{
    memset(a, 0, sizeof(*a));
    snprintf(a->profile, sizeof(a->profile), "%s", profile);
    a->weaken = weaken;
    if (weaken)
        snprintf(a->name, sizeof(a->name), "%s-no-%s", profile, asb_latency_control_name(weaken));
    else
        snprintf(a->name, sizeof(a->name), "%s", profile);
}

/* "docker-<profile>" is the profile on the docker backend (asb_run takes that name as it is);
 * "pool-<profile>" runs it in sandboxes prepared ahead (asb_pool_run, native only). Only the
 * sandboxed profiles exist there. The arm keeps the prefix in its name. */
static const asb_profile_t *arm_profile(const char *name, char *arm, size_t arm_len, bool *pooled)
{
    bool docker = strncmp(name, "docker-", 7) == 0;
    *pooled = strncmp(name, "pool-", 5) == 0;
    const asb_profile_t *p = asb_profile_find(docker ? name + 7 : *pooled ? name + 5 : name);
    if (!p || ((docker || *pooled) && !p->sandboxed))
        return NULL;
    snprintf(arm, arm_len, "%s%s", docker ? "docker-" : *pooled ? "pool-" : "", p->name);
    return p;
}

int asb_latency_build_arms(const asb_latency_opts_t *o, asb_latency_arm_t *arms, size_t *n_arms,
                           size_t *reference, asb_error_t *err)
{
    size_t n = 0;
    if (o->ablate && strncmp(o->ablate, "docker-", 7) == 0)
        return asb_err(err, -EINVAL,
                       "--ablate: '%s': the docker backend cannot switch single controls off",
                       o->ablate);
    if (o->ablate) {
        const asb_profile_t *p = asb_profile_find(o->ablate);
        if (!p)
            return asb_err(err, -EINVAL, "--ablate: unknown profile '%s'", o->ablate);
        if (!p->sandboxed)
            return asb_err(err, -EINVAL, "--ablate: profile '%s' has no controls to switch off",
                           o->ablate);
        set_arm(&arms[n++], p->name, 0);
        for (size_t i = 0; i < sizeof(CONTROLS) / sizeof(CONTROLS[0]); i++)
            if (profile_has(p, CONTROLS[i]) && n < ASB_LATENCY_MAX_ARMS)
                set_arm(&arms[n++], p->name, CONTROLS[i]);
    } else {
        for (size_t i = 0; i < o->n_profiles; i++) {
            char name[32];
            bool pooled = false;
            const asb_profile_t *p = arm_profile(o->profiles[i], name, sizeof(name), &pooled);
            if (!p)
                return asb_err(err, -EINVAL, "--profiles: unknown profile '%s'", o->profiles[i]);
            for (size_t j = 0; j < n; j++)
                if (strcmp(arms[j].name, name) == 0)
                    return asb_err(err, -EINVAL, "--profiles: '%s' given twice", name);
            set_arm(&arms[n], pooled ? p->name : name, 0);
            snprintf(arms[n].name, sizeof(arms[n].name), "%s", name);
            arms[n++].pooled = pooled;
        }
    }
    if (n < 2)
        return asb_err(err, -EINVAL, "latency: needs at least two arms to compare, got %zu", n);
    size_t ref = 0;
    if (o->reference) {
        for (ref = 0; ref < n; ref++)
            if (strcmp(arms[ref].name, o->reference) == 0)
                break;
        if (ref == n)
            return asb_err(err, -EINVAL, "--reference: '%s' is not one of the arms", o->reference);
    }
    *n_arms = n;
    *reference = ref;
    return 0;
}
