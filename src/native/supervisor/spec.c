/* spec.c - read the run spec the host wrote into fd 4. The host is trusted, but the parse is
 * still strict: a spec we cannot fully understand aborts the run rather than running weaker. */
#include "core/error.h"
#include "native/proto.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **strv_from_json(json_t *arr)
{
    if (!json_is_array(arr))
        return NULL;
    size_t n = json_array_size(arr);
    char **v = calloc(n + 1, sizeof(char *));
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        if (!s || !(v[i] = strdup(s))) {
            for (size_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
    }
    return v;
}

static int parse_enum(const char *s, const char *const *names, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}

int sup_spec_read(int fd, sup_spec_t *spec, asb_error_t *err)
{
    memset(spec, 0, sizeof(*spec));
    if (lseek(fd, 0, SEEK_SET) < 0)
        return asb_err_sys(err, errno, "spec: seek");
    json_error_t jerr;
    json_t *o = json_loadfd(fd, JSON_REJECT_DUPLICATES, &jerr);
    if (!o)
        return asb_err(err, -EINVAL, "spec: %s", jerr.text);
    int rc = -EINVAL;
    static const char *const roots[] = {"host", "overlay_rw", "allowlist_ro"};
    static const char *const caps[] = {"unchanged", "docker_default", "none"};
    static const char *const secs[] = {"none", "docker_default", "hardened"};
    const char *nonce = NULL, *root = NULL, *cap = NULL, *sec = NULL;
    json_int_t uid = 0, gid = 0, fsize = 0, nofile = 0, timeout_ms = 0, output = 0, ws = 0, tmp = 0,
               keep = 0;
    int mask = 0, tmpnx = 0, wsnx = 0, netns = 0, ll = 0, nnp = 0, llscope = 0, mfdnx = 0;
    json_t *argv = NULL, *env = NULL, *files = NULL, *binds = NULL;
    if (json_unpack_ex(o, &jerr, JSON_STRICT,
                       "{s:s, s:s, s:b, s:b, s:b, s:I, s:I, s:s, s:I, s:s, s:b, s:b, s:b, s:I, "
                       "s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:b, s:b}",
                       "nonce", &nonce, "root", &root, "mask_proc", &mask, "tmp_noexec", &tmpnx,
                       "workspace_noexec", &wsnx, "workspace_bytes", &ws, "tmp_bytes", &tmp, "caps",
                       &cap, "caps_keep", &keep, "seccomp", &sec, "netns", &netns, "landlock", &ll,
                       "no_new_privs", &nnp, "uid", &uid, "gid", &gid, "fsize", &fsize, "nofile",
                       &nofile, "timeout_ms", &timeout_ms, "output_bytes", &output, "argv", &argv,
                       "env", &env, "files_in", &files, "bind_ro", &binds, "landlock_scope",
                       &llscope, "memfd_noexec", &mfdnx) != 0) {
        asb_err(err, -EINVAL, "spec: %s", jerr.text);
        goto out;
    }
    int r = parse_enum(root, roots, 3), c = parse_enum(cap, caps, 3), s = parse_enum(sec, secs, 3);
    if (r < 0 || c < 0 || s < 0 || strlen(nonce) >= sizeof(spec->nonce) || ws < 0 || tmp < 0 ||
        fsize < 0 || nofile < 0 || timeout_ms <= 0 || output < 0 || keep < 0) {
        asb_err(err, -EINVAL, "spec: a value is out of range");
        goto out;
    }
    strcpy(spec->nonce, nonce);
    spec->root = (asb_root_policy_t)r;
    spec->caps = (asb_caps_policy_t)c;
    spec->seccomp = (asb_seccomp_policy_t)s;
    spec->mask_proc = mask, spec->tmp_noexec = tmpnx, spec->workspace_noexec = wsnx;
    spec->netns = netns, spec->landlock = ll, spec->no_new_privs = nnp;
    spec->landlock_scope = llscope;
    spec->memfd_noexec = mfdnx;
    spec->workspace_bytes = (uint64_t)ws, spec->tmp_bytes = (uint64_t)tmp;
    spec->caps_keep = (uint64_t)keep;
    spec->uid = (long)uid, spec->gid = (long)gid;
    spec->fsize = (uint64_t)fsize, spec->nofile = (uint64_t)nofile;
    spec->timeout_ms = (uint64_t)timeout_ms, spec->output_bytes = (uint64_t)output;
    if (!(spec->argv = strv_from_json(argv)) || !spec->argv[0] ||
        !(spec->env = strv_from_json(env))) {
        asb_err(err, -EINVAL, "spec: argv/env");
        goto out;
    }
    if (!json_is_array(files) || !json_is_array(binds) ||
        json_array_size(binds) > sizeof(spec->bind_ro) / sizeof(spec->bind_ro[0])) {
        asb_err(err, -EINVAL, "spec: files_in/bind_ro");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(binds); i++) {
        const char *p = json_string_value(json_array_get(binds, i));
        if (!p || p[0] != '/' || !(spec->bind_ro[i] = strdup(p))) {
            asb_err(err, -EINVAL, "spec: bind_ro[%zu]", i);
            goto out;
        }
        spec->n_bind_ro = i + 1;
    }
    spec->files_in = calloc(json_array_size(files) + 1, sizeof(*spec->files_in));
    if (!spec->files_in) {
        asb_err_sys(err, ENOMEM, "spec");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(files); i++) {
        const char *name = json_string_value(json_array_get(files, i));
        if (!name || strchr(name, '/') || !*name || !strcmp(name, ".") || !strcmp(name, "..") ||
            !(spec->files_in[i].name = strdup(name))) {
            asb_err(err, -EINVAL, "spec: files_in[%zu]", i);
            goto out;
        }
        spec->files_in[i].fd = ASB_FD_FILES_IN + (int)i;
        spec->n_files_in = i + 1;
    }
    rc = 0;
out:
    json_decref(o);
    return rc;
}
