#include "core/plan.h"
#include "core/error.h"
#include "core/json.h"
#include "core/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

bool asb_valid_image_name(const char *name, const char **why)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 255) {
        *why = "an image name is 1 to 255 characters";
        return false;
    }
    if (strchr("-/.:", name[0])) {
        *why = "an image name does not start with '-', '/', '.' or ':'";
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("._/:@-", c))) {
            *why = "an image name holds only letters, digits and . _ / : @ -";
            return false;
        }
    }
    /* The repository part (before a tag or digest) is lowercase path components, as the
     * engine requires (QA finding: `image build --name 'UPPER/../x'` got past this check and
     * failed only after the build, as a run failure). */
    /* name = repo[:tag][@digest]; a ':' before the last '/' is a registry's port. */
    const char *at = strchr(name, '@');
    size_t ref_len = at ? (size_t)(at - name) : n, last_comp = 0;
    for (size_t i = 0; i < ref_len; i++)
        if (name[i] == '/')
            last_comp = i + 1;
    const char *colon = memchr(name + last_comp, ':', ref_len - last_comp);
    size_t repo_len = colon ? (size_t)(colon - name) : ref_len;
    /* tag: [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}; digest: algorithm ':' hex (review finding: both
     * were taken as they came and the engine refused them after the build). */
    if (colon) {
        size_t tag_len = ref_len - (size_t)(colon + 1 - name);
        bool ok = tag_len >= 1 && tag_len <= 128 && colon[1] != '.' && colon[1] != '-';
        for (size_t i = 0; ok && i < tag_len; i++) {
            char c = colon[1 + i];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 strchr("_.-", c);
        }
        if (!ok) {
            *why = "an image tag is 1 to 128 of [A-Za-z0-9_.-], not starting with '.' or '-'";
            return false;
        }
    }
    if (at) {
        const char *alg_end = strchr(at + 1, ':');
        bool ok = alg_end && alg_end > at + 1 && alg_end[1];
        for (const char *q = at + 1; ok && q < alg_end; q++)
            ok = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || strchr("+._-", *q);
        for (const char *q = ok ? alg_end + 1 : ""; ok && *q; q++)
            ok = (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f');
        if (!ok) {
            *why = "an image digest is algorithm:hex (e.g. sha256:...)";
            return false;
        }
    }
    size_t comp = 0;
    for (size_t i = 0; i <= repo_len; i++) {
        char c = i < repo_len ? name[i] : '/';
        if (c >= 'A' && c <= 'Z' && !memchr(name, '/', i) && memchr(name, '/', repo_len)) {
            /* a registry host ("Registry.example:5000/x") may have capitals */
        } else if (c >= 'A' && c <= 'Z') {
            *why = "an image's repository name is lowercase (capitals only in its tag)";
            return false;
        }
        if (c == '/') {
            size_t len = i - comp;
            if (len == 0 || (len == 1 && name[comp] == '.') ||
                (len == 2 && name[comp] == '.' && name[comp + 1] == '.')) {
                *why = "an image's repository path has an empty, '.' or '..' component";
                return false;
            }
            comp = i + 1;
        }
    }
    return true;
}

bool asb_valid_plain_name(const char *name, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!name || !*name) {
        *why = "empty name";
        return false;
    }
    size_t n = strlen(name);
    if (n > ASB_MAX_NAME_LEN) {
        *why = "name longer than 255 bytes";
        return false;
    }
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        *why = "name is . or ..";
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '/') {
            *why = "name contains '/' (plain names only)";
            return false;
        }
        if (c < 0x20 || c == 0x7f) {
            *why = "name contains a control character";
            return false;
        }
    }
    /* Names travel as JSON keys in the result: one that is not UTF-8 vanished from it, the
     * file neither out nor refused (QA finding). */
    if (!asb_utf8_valid((const unsigned char *)name, n)) {
        *why = "name is not valid UTF-8";
        return false;
    }
    /* C1 controls (U+0080..U+009F, UTF-8 C2 80..C2 9F) are control characters too: U+009B is a
     * terminal's CSI (QA finding: accepted before). */
    for (size_t i = 0; i + 1 < n; i++)
        if ((unsigned char)name[i] == 0xc2 && (unsigned char)name[i + 1] >= 0x80 &&
            (unsigned char)name[i + 1] <= 0x9f) {
            *why = "name contains a control character";
            return false;
        }
    return true;
}

bool asb_valid_env_entry(const char *entry, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!entry) {
        *why = "missing entry";
        return false;
    }
    const char *eq = strchr(entry, '=');
    if (!eq || eq == entry) {
        *why = "expected KEY=VALUE";
        return false;
    }
    for (const char *p = entry; p < eq; p++) {
        char c = *p;
        bool ok = c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                  (p > entry && c >= '0' && c <= '9');
        if (!ok) {
            *why = "KEY must match [A-Za-z_][A-Za-z0-9_]*";
            return false;
        }
    }
    if (!asb_utf8_valid((const unsigned char *)eq + 1, strlen(eq + 1))) {
        *why = "VALUE is not valid UTF-8";
        return false;
    }
    return true;
}

int asb_random_hex(char *out, size_t nbytes, asb_error_t *err)
{
    unsigned char buf[64];
    if (nbytes > sizeof(buf))
        return asb_err(err, -EINVAL, "random: too many bytes requested");
    size_t got = 0;
    while (got < nbytes) {
        ssize_t r = getrandom(buf + got, nbytes - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return asb_err_sys(err, errno, "getrandom");
        }
        got += (size_t)r;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < nbytes; i++) {
        out[2 * i] = hex[buf[i] >> 4];
        out[2 * i + 1] = hex[buf[i] & 15];
    }
    out[2 * nbytes] = '\0';
    return 0;
}

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void free_strv(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

void asb_plan_free(asb_plan_t *plan)
{
    if (!plan)
        return;
    free_strv(plan->argv);
    free_strv(plan->env);
    free(plan->code);
    free(plan->code_name);
    for (size_t i = 0; i < plan->n_files_in; i++) {
        free(plan->files_in[i].host_path);
        free(plan->files_in[i].name);
    }
    free(plan->files_in);
    for (size_t i = 0; i < plan->n_files_out; i++)
        free(plan->files_out[i]);
    free(plan->files_out);
    free(plan->docker_image);
    memset(plan, 0, sizeof(*plan));
}

/* Merge requested limits over the profile's defaults; reject nonsense values. */
static int resolve_limits(const asb_limits_t *req, const asb_limits_t *def, asb_limits_t *out,
                          asb_error_t *err)
{
    if (!(req->timeout_s >= 0) || req->timeout_s > ASB_MAX_TIMEOUT_S || isnan(req->timeout_s))
        return asb_err(err, -EINVAL, "timeout must be between 0 and %.0f seconds",
                       ASB_MAX_TIMEOUT_S);
    /* Bounds a kernel would otherwise enforce with a vaguer error, or round silently (QA
     * finding: cpus 1e-9 ran at the 1 ms minimum quota and the record said 1e-9). */
    double min_cpus = (double)ASB_CGROUP_CPU_MIN_QUOTA_US / ASB_CGROUP_CPU_PERIOD_US;
    if (!(req->cpus >= 0) || req->cpus > 1024 || isnan(req->cpus) ||
        (req->cpus > 0 && req->cpus < min_cpus))
        return asb_err(err, -EINVAL, "cpus must be 0 (the profile's) or between %g and 1024",
                       min_cpus);
    if (req->pids > ASB_MAX_PIDS)
        return asb_err(err, -EINVAL, "pids limit above %llu (the kernel's most)",
                       (unsigned long long)ASB_MAX_PIDS);
    if (req->nofile > ASB_MAX_NOFILE)
        return asb_err(err, -EINVAL, "nofile limit above %llu (the kernel's default nr_open)",
                       (unsigned long long)ASB_MAX_NOFILE);
    if (req->fsize_bytes > ASB_MAX_FSIZE_BYTES)
        return asb_err(err, -EINVAL, "file size limit above %llu bytes",
                       (unsigned long long)ASB_MAX_FSIZE_BYTES);
    if (req->io_read_bps &&
        (req->io_read_bps < ASB_MIN_IO_READ_BPS || req->io_read_bps > ASB_MAX_IO_READ_BPS))
        return asb_err(err, -EINVAL,
                       "disk read limit must be 0 (the profile's) or between %llu and %llu bytes "
                       "per second",
                       (unsigned long long)ASB_MIN_IO_READ_BPS,
                       (unsigned long long)ASB_MAX_IO_READ_BPS);
    if (req->io_read_iops &&
        (req->io_read_iops < ASB_MIN_IO_READ_IOPS || req->io_read_iops > ASB_MAX_IO_READ_IOPS))
        return asb_err(err, -EINVAL,
                       "disk read operations limit must be 0 (the profile's) or between %llu and "
                       "%llu per second",
                       (unsigned long long)ASB_MIN_IO_READ_IOPS,
                       (unsigned long long)ASB_MAX_IO_READ_IOPS);
    if (req->pids == 1)
        return asb_err(err, -EINVAL,
                       "pids limit 1 leaves no room for the program: the limit "
                       "counts the sandbox's supervisor too (minimum 2)");
    if (req->memory_bytes && req->memory_bytes < 4 * ASB_MIB)
        return asb_err(err, -EINVAL, "memory limit below 4 MiB cannot start a process");
    if (req->output_bytes > ASB_MAX_OUTPUT_BYTES)
        return asb_err(err, -EINVAL,
                       "output limit above %llu bytes per stream (the output is kept in the "
                       "caller's memory)",
                       (unsigned long long)ASB_MAX_OUTPUT_BYTES);
    if (req->file_in_bytes > ASB_MAX_FILE_IN_BYTES)
        return asb_err(err, -EINVAL,
                       "file-in limit above %llu bytes (each file is held in the caller's memory "
                       "while it is copied in)",
                       (unsigned long long)ASB_MAX_FILE_IN_BYTES);
    if (req->file_out_bytes > ASB_MAX_FILE_OUT_BYTES)
        return asb_err(err, -EINVAL,
                       "file-out limit above %llu bytes (each file is read into the caller's "
                       "memory)",
                       (unsigned long long)ASB_MAX_FILE_OUT_BYTES);
    *out = *def;
#define TAKE(f)                                                                                    \
    if (req->f != 0)                                                                               \
        out->f = req->f;
    TAKE(timeout_s)
    TAKE(memory_bytes)
    TAKE(pids)
    TAKE(cpus)
    TAKE(output_bytes)
    TAKE(fsize_bytes)
    TAKE(nofile)
    TAKE(file_in_bytes)
    TAKE(file_out_bytes)
    TAKE(io_read_bps)
    TAKE(io_read_iops)
#undef TAKE
    return 0;
}

static int build_env(const asb_config_t *cfg, const asb_profile_t *prof, asb_plan_t *plan,
                     asb_error_t *err)
{
    /* The fixed minimal set: nothing from the caller's environment ever reaches the sandbox. */
    /* Without a network, pip and npm say so at once instead of retrying until the run's
     * timeout (npm hung there silently, pip ended in a misleading TLS traceback: QA finding). */
    const char *fixed[] = {"PATH=" ASB_DEFAULT_PATH,
                           prof->sandboxed ? "HOME=" ASB_WORKSPACE : NULL /* set by backend */,
                           "LANG=C.UTF-8",
                           "TMPDIR=/tmp",
                           "PYTHONDONTWRITEBYTECODE=1",
                           prof->ns_net ? "PIP_NO_INDEX=1" : NULL,
                           prof->ns_net ? "npm_config_offline=true" : NULL};
    size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
    if (cfg->n_env > ASB_MAX_ENV)
        return asb_err(err, -E2BIG, "too many environment additions (max %d)", ASB_MAX_ENV);
    if (cfg->n_env && !cfg->env)
        return asb_err(err, -EINVAL, "env: n_env set but env is NULL");
    plan->env = calloc(nfixed + cfg->n_env + 2, sizeof(char *));
    if (!plan->env)
        return asb_err_sys(err, ENOMEM, "env");
    size_t n = 0;
    for (size_t i = 0; i < nfixed; i++) {
        if (!fixed[i])
            continue;
        /* An addition with the same key replaces the fixed entry. */
        size_t klen = (size_t)(strchr(fixed[i], '=') - fixed[i]) + 1;
        bool overridden = false;
        for (size_t j = 0; j < cfg->n_env; j++)
            if (cfg->env[j] && strncmp(cfg->env[j], fixed[i], klen) == 0)
                overridden = true;
        if (overridden)
            continue;
        if (!(plan->env[n++] = strdup(fixed[i])))
            return asb_err_sys(err, ENOMEM, "env");
    }
    for (size_t j = 0; j < cfg->n_env; j++) {
        const char *why;
        if (!asb_valid_env_entry(cfg->env[j], &why))
            return asb_err(err, -EINVAL, "environment addition %zu of %zu ('%.60s'): %s", j + 1,
                           cfg->n_env, cfg->env[j] ? cfg->env[j] : "(null)", why);
        /* The same name twice: which one a program sees depends on the program (QA finding). */
        size_t klen = (size_t)(strchr(cfg->env[j], '=') - cfg->env[j]) + 1;
        for (size_t k = 0; k < j; k++)
            if (strncmp(cfg->env[k], cfg->env[j], klen) == 0)
                return asb_err(err, -EINVAL, "env: %.*s given twice", (int)klen - 1, cfg->env[j]);
        if (!(plan->env[n++] = strdup(cfg->env[j])))
            return asb_err_sys(err, ENOMEM, "env");
    }
    plan->n_env = n;
    return 0;
}

static int build_argv(const asb_config_t *cfg, asb_plan_t *plan, asb_error_t *err)
{
    bool have_argv = cfg->argv && cfg->argv[0];
    bool have_code = cfg->code != NULL;
    if (have_argv == have_code)
        return asb_err(err, -EINVAL, "give exactly one of a command (argv) or code");
    if (have_argv && cfg->code_name)
        return asb_err(err, -EINVAL, "code name '%s' given without code", cfg->code_name);
    if (have_argv) {
        size_t n = 0;
        while (cfg->argv[n]) {
            if (++n > ASB_MAX_ARGV)
                return asb_err(err, -E2BIG, "command has more than %d arguments", ASB_MAX_ARGV);
        }
        if (!*cfg->argv[0])
            return asb_err(err, -EINVAL, "command: empty program name");
        /* The command travels to the supervisor and the container as JSON text: an argument
         * that is not UTF-8 was dropped there, and the others moved up (QA finding: the
         * program ran as /bin/echo instead). Refused for every backend, so one command means
         * the same in every lane. */
        for (size_t i = 0; i < n; i++)
            if (!asb_utf8_valid((const unsigned char *)cfg->argv[i], strlen(cfg->argv[i])))
                return asb_err(err, -EINVAL, "command argument %zu is not valid UTF-8", i);
        plan->argv = calloc(n + 1, sizeof(char *));
        if (!plan->argv)
            return asb_err_sys(err, ENOMEM, "argv");
        for (size_t i = 0; i < n; i++)
            if (!(plan->argv[i] = strdup(cfg->argv[i])))
                return asb_err_sys(err, ENOMEM, "argv");
        plan->argc = n;
        return 0;
    }
    size_t len = cfg->code_len ? cfg->code_len : strlen(cfg->code);
    if (len > ASB_MAX_CODE_BYTES)
        return asb_err(err, -E2BIG, "code is larger than %llu bytes", ASB_MAX_CODE_BYTES);
    plan->code = malloc(len ? len : 1);
    if (!plan->code)
        return asb_err_sys(err, ENOMEM, "code");
    memcpy(plan->code, cfg->code, len);
    plan->code_len = len;
    const char *interp = cfg->interpreter ? cfg->interpreter : ASB_DEFAULT_INTERPRETER;
    if (!*interp)
        return asb_err(err, -EINVAL, "interpreter: empty path");
    if (!asb_utf8_valid((const unsigned char *)interp, strlen(interp)))
        return asb_err(err, -EINVAL, "interpreter: path is not valid UTF-8");
    const char *name = cfg->code_name ? cfg->code_name : ASB_CODE_FILE, *why;
    if (!asb_valid_plain_name(name, &why))
        return asb_err(err, -EINVAL, "code name '%s': %s", name, why);
    /* It is the interpreter's first argument: "-c" would be read as an option. */
    if (name[0] == '-')
        return asb_err(err, -EINVAL, "code name '%s': begins with '-'", name);
    plan->argv = calloc(3, sizeof(char *));
    if (!plan->argv || !(plan->argv[0] = strdup(interp)) || !(plan->argv[1] = strdup(name)) ||
        !(plan->code_name = strdup(name)))
        return asb_err_sys(err, ENOMEM, "argv");
    plan->argc = 2;
    return 0;
}

static int build_files(const asb_config_t *cfg, asb_plan_t *plan, asb_error_t *err)
{
    if (cfg->n_files_in > ASB_MAX_FILES_IN)
        return asb_err(err, -E2BIG, "too many files in (max %d)", ASB_MAX_FILES_IN);
    if (cfg->n_files_out > ASB_MAX_FILES_OUT)
        return asb_err(err, -E2BIG, "too many files out (max %d)", ASB_MAX_FILES_OUT);
    if ((cfg->n_files_in && !cfg->files_in) || (cfg->n_files_out && !cfg->files_out))
        return asb_err(err, -EINVAL, "files: count set but array is NULL");
    if (cfg->n_files_in) {
        plan->files_in = calloc(cfg->n_files_in, sizeof(*plan->files_in));
        if (!plan->files_in)
            return asb_err_sys(err, ENOMEM, "files in");
    }
    for (size_t i = 0; i < cfg->n_files_in; i++) {
        const asb_file_in_t *f = &cfg->files_in[i];
        if (!f->host_path || !*f->host_path)
            return asb_err(err, -EINVAL, "file-in %zu: empty host path", i);
        const char *name = f->name;
        if (!name) {
            const char *slash = strrchr(f->host_path, '/');
            name = slash ? slash + 1 : f->host_path;
        }
        const char *why;
        if (!asb_valid_plain_name(name, &why))
            return asb_err(err, -EINVAL, "file-in '%s': %s", name, why);
        if (plan->code && strcmp(name, plan->code_name) == 0)
            return asb_err(err, -EINVAL, "file-in '%s': name is reserved for the code", name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(plan->files_in[j].name, name) == 0)
                return asb_err(err, -EINVAL, "file-in '%s': given twice", name);
        if (f->executable) {
            /* Refused where it cannot be what it says: a read-only program of the caller's,
             * in a place the run cannot write. */
            if (strcmp(plan->backend, "docker") == 0)
                return asb_err(err, -ENOTSUP,
                               "file-in '%s': executable files in are not supported by the "
                               "docker backend",
                               name);
            if (plan->profile.root == ASB_ROOT_HOST && plan->profile.sandboxed)
                return asb_err(err, -ENOTSUP,
                               "file-in '%s': executable files in need the sandbox's own root "
                               "(the mounts are weakened)",
                               name);
            plan->exec_dir = plan->profile.sandboxed;
        }
        plan->files_in[i].executable = f->executable;
        plan->files_in[i].host_path = strdup(f->host_path);
        plan->files_in[i].name = strdup(name);
        plan->n_files_in = i + 1;
        if (!plan->files_in[i].host_path || !plan->files_in[i].name)
            return asb_err_sys(err, ENOMEM, "files in");
    }
    if (cfg->n_files_out) {
        plan->files_out = calloc(cfg->n_files_out, sizeof(char *));
        if (!plan->files_out)
            return asb_err_sys(err, ENOMEM, "files out");
    }
    for (size_t i = 0; i < cfg->n_files_out; i++) {
        const char *why;
        if (!asb_valid_plain_name(cfg->files_out[i], &why))
            return asb_err(err, -EINVAL, "file-out '%s': %s",
                           cfg->files_out[i] ? cfg->files_out[i] : "(null)", why);
        for (size_t j = 0; j < i; j++)
            if (strcmp(plan->files_out[j], cfg->files_out[i]) == 0)
                return asb_err(err, -EINVAL, "file-out '%s': given twice", cfg->files_out[i]);
        if (!(plan->files_out[i] = strdup(cfg->files_out[i])))
            return asb_err_sys(err, ENOMEM, "files out");
        plan->n_files_out = i + 1;
    }
    return 0;
}

static void apply_weakenings(asb_profile_t *p, uint32_t weaken)
{
    if (weaken & ASB_WEAKEN_NETNS)
        p->ns_net = false;
    if (weaken & ASB_WEAKEN_SECCOMP)
        p->seccomp = ASB_SECCOMP_NONE;
    if (weaken & ASB_WEAKEN_LANDLOCK)
        p->landlock = p->landlock_scope = false;
    if (weaken & ASB_WEAKEN_CGROUP)
        p->cgroup = false;
    if (weaken & ASB_WEAKEN_MOUNTS)
        p->root = ASB_ROOT_HOST;
}

bool asb_plan_cancelled(const asb_plan_t *plan)
{
    if (plan->cancel_fd < 0)
        return false;
    struct pollfd p = {.fd = plan->cancel_fd, .events = POLLIN};
    int n;
    while ((n = poll(&p, 1, 0)) < 0 && errno == EINTR)
        ;
    return n > 0 && p.revents != 0;
}

/* The caller's cancellation fd: checked open now, so that a closed one is a clear error, not a
 * run that can never be cancelled (poll would only ever say POLLNVAL). */
static int build_cancel(const asb_config_t *cfg, asb_plan_t *plan, asb_error_t *err)
{
    if (!cfg->cancellable)
        return 0;
    if (strcmp(plan->backend, "docker") == 0)
        return asb_err(err, -ENOTSUP,
                       "cancellation (cancellable) is not supported by the docker backend");
    if (cfg->cancel_fd < 0 || fcntl(cfg->cancel_fd, F_GETFD) < 0)
        return asb_err(err, -EBADF, "cancel_fd %d is not an open file descriptor", cfg->cancel_fd);
    /* An O_PATH descriptor is open but cannot be polled (POLLNVAL): every run would be
     * "cancelled" at once (review finding). */
    struct pollfd p = {.fd = cfg->cancel_fd, .events = POLLIN};
    if (poll(&p, 1, 0) < 0 || (p.revents & POLLNVAL))
        return asb_err(err, -EBADF, "cancel_fd %d cannot be polled", cfg->cancel_fd);
    plan->cancel_fd = cfg->cancel_fd;
    return 0;
}

int asb_plan_build(const asb_config_t *cfg, asb_plan_t *plan, asb_error_t *err)
{
    memset(plan, 0, sizeof(*plan));
    plan->cancel_fd = -1;
    int rc;
    if (!cfg)
        return asb_err(err, -EINVAL, "no config");
    /* The seed's names for the docker profiles: docker-baseline, docker-hardened. */
    const char *pname = cfg->profile, *cfg_backend = cfg->backend;
    if (pname && strncmp(pname, "docker-", 7) == 0 &&
        (strcmp(pname + 7, "baseline") == 0 || strcmp(pname + 7, "hardened") == 0)) {
        if (cfg_backend && strcmp(cfg_backend, "docker") != 0)
            return asb_err(err, -EINVAL, "profile %s needs backend docker, not '%s'", pname,
                           cfg_backend);
        pname += 7;
        cfg_backend = "docker";
    }
    const asb_profile_t *prof = asb_profile_find(pname);
    if (!prof)
        return asb_err(err, -EINVAL,
                       "unknown profile '%s' (expected subprocess, baseline or "
                       "hardened)",
                       cfg->profile);
    plan->profile = *prof;
    const uint32_t all_weaken = ASB_WEAKEN_NETNS | ASB_WEAKEN_SECCOMP | ASB_WEAKEN_LANDLOCK |
                                ASB_WEAKEN_CGROUP | ASB_WEAKEN_MOUNTS;
    if (cfg->weaken & ~all_weaken)
        return asb_err(err, -EINVAL, "unknown weaken bits 0x%x", cfg->weaken & ~all_weaken);
    if (cfg->weaken && !prof->sandboxed)
        return asb_err(err, -EINVAL, "the subprocess profile has no controls to weaken");
    plan->weaken = cfg->weaken;
    apply_weakenings(&plan->profile, cfg->weaken);

    const char *backend = cfg_backend ? cfg_backend : "native";
    if (!prof->sandboxed) {
        if (cfg_backend && strcmp(cfg_backend, "native") != 0 &&
            strcmp(cfg_backend, "subprocess") != 0)
            return asb_err(err, -EINVAL,
                           "profile subprocess runs on the host; backend '%s' "
                           "does not apply",
                           cfg_backend);
        backend = "subprocess";
    } else if (strcmp(backend, "native") != 0 && strcmp(backend, "docker") != 0) {
        return asb_err(err, -EINVAL, "unknown backend '%s' (expected native or docker)", backend);
    }
    snprintf(plan->backend, sizeof(plan->backend), "%s", backend);

    if (cfg->stdin_len && !cfg->stdin_data)
        return asb_err(err, -EINVAL, "stdin: length set but data is NULL");
    if (cfg->stdin_len > ASB_MAX_STDIN_BYTES)
        return asb_err(err, -E2BIG, "stdin is larger than %llu bytes", ASB_MAX_STDIN_BYTES);
    plan->stdin_data = cfg->stdin_data;
    plan->stdin_len = cfg->stdin_len;

    /* subprocess enforces the wall clock, the output caps and the file sizes in and out, nothing
     * else: a limit it was asked for would be recorded as enforced and not hold (QA finding: a
     * 200 MB allocation "completed" under --memory 64). Refused, never claimed. */
    if (!prof->sandboxed) {
        const asb_limits_t *q = &cfg->limits;
        const char *which = q->memory_bytes                     ? "memory"
                            : q->pids                           ? "pids"
                            : q->cpus > 0                       ? "cpus"
                            : q->fsize_bytes                    ? "file size (RLIMIT_FSIZE)"
                            : q->nofile                         ? "open files (RLIMIT_NOFILE)"
                            : q->io_read_bps || q->io_read_iops ? "disk read"
                                                                : NULL;
        if (which)
            return asb_err(err, -EINVAL,
                           "profile subprocess enforces no %s limit (it runs on the host, it is "
                           "not a sandbox): use baseline or hardened for one",
                           which);
    }
    plan->requested = cfg->limits;
    if ((rc = resolve_limits(&cfg->limits, &prof->defaults, &plan->limits, err)) < 0)
        return rc;
    /* The docker backend sets no disk read limit (the engine wants device paths of its own
     * host): not claimed in the record, and refused when asked for. */
    if (strcmp(plan->backend, "docker") == 0) {
        if (cfg->limits.io_read_bps || cfg->limits.io_read_iops)
            return asb_err(err, -EINVAL,
                           "the docker backend enforces no disk read limit: use the native "
                           "backend for one");
        plan->limits.io_read_bps = 0;
        plan->limits.io_read_iops = 0;
    }
    if ((rc = build_argv(cfg, plan, err)) < 0 || (rc = build_env(cfg, prof, plan, err)) < 0 ||
        (rc = build_files(cfg, plan, err)) < 0 || (rc = build_cancel(cfg, plan, err)) < 0)
        return rc;
    const char *img_why = NULL;
    if (cfg->docker_image && !asb_valid_image_name(cfg->docker_image, &img_why))
        return asb_err(err, -EINVAL, "image '%s': %s", cfg->docker_image, img_why);
    if (cfg->docker_image && !(plan->docker_image = xstrdup(cfg->docker_image)))
        return asb_err_sys(err, ENOMEM, "image");
    if ((rc = asb_random_hex(plan->run_id, 8, err)) < 0 ||
        (rc = asb_random_hex(plan->nonce, 16, err)) < 0)
        return rc;
    return 0;
}
