/* spec.c - read the run spec (wire.h records) the host wrote into fd 4. The host is trusted, but
 * the parse is still strict: a spec we cannot fully understand aborts the run rather than running
 * weaker. */
#include "core/error.h"
#include "native/proto.h"
#include "native/supervisor/sup.h"
#include "native/wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_enum(const char *s, const char *const *names, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}

/* The whole spec file into memory (it is a memfd the host wrote; bounded all the same). */
static int read_all(int fd, uint8_t **out, size_t *len)
{
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (n == cap) {
            uint8_t *b = cap < ASB_SPEC_MAX ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                free(buf);
                return cap < ASB_SPEC_MAX ? -ENOMEM : -EFBIG;
            }
            buf = b, cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return -e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *out = buf, *len = n;
    return 0;
}

int sup_spec_read(int fd, sup_spec_t *spec, asb_error_t *err)
{
    memset(spec, 0, sizeof(*spec));
    if (lseek(fd, 0, SEEK_SET) < 0)
        return asb_err_sys(err, errno, "spec: seek");
    uint8_t *m = NULL;
    size_t mlen = 0;
    int rc = read_all(fd, &m, &mlen);
    if (rc < 0)
        return asb_err(err, rc, "spec: read");
    static const char *const roots[] = {"host", "overlay_rw", "allowlist_ro"};
    static const char *const caps[] = {"unchanged", "docker_default", "none"};
    static const char *const secs[] = {"none", "docker_default", "hardened"};
    char *nonce = NULL, *root = NULL, *cap = NULL, *sec = NULL;
    char **files = NULL, **binds = NULL, **execs = NULL;
    size_t n_files = 0, n_binds = 0, n_execs = 0;
    int64_t uid = 0, gid = 0, fsize = 0, nofile = 0, timeout_ms = 0, output = 0, ws = 0, tmp = 0,
            keep = 0, stack_soft = 0, owner_uid = 0;
    bool mask = 0, tmpnx = 0, wsnx = 0, netns = 0, ll = 0, nnp = 0, llscope = 0, mfdnx = 0,
         mfdref = 0, usrhost = 0, devpts = 0, execdir = 0, unamehid = 0, early = 0;
    /* Strict: well-formed, exactly these 34 keys (no duplicates: asb_wire_check), right types. */
    rc = -EINVAL;
    if (asb_wire_check(m, mlen) < 0 || asb_wire_count(m, mlen) != 34 ||
        asb_wire_get_str(m, mlen, "nonce", &nonce) < 0 ||
        asb_wire_get_str(m, mlen, "root", &root) < 0 ||
        asb_wire_get_bool(m, mlen, "mask_proc", &mask) < 0 ||
        asb_wire_get_bool(m, mlen, "tmp_noexec", &tmpnx) < 0 ||
        asb_wire_get_bool(m, mlen, "workspace_noexec", &wsnx) < 0 ||
        asb_wire_get_int(m, mlen, "workspace_bytes", &ws) < 0 ||
        asb_wire_get_int(m, mlen, "tmp_bytes", &tmp) < 0 ||
        asb_wire_get_str(m, mlen, "caps", &cap) < 0 ||
        asb_wire_get_int(m, mlen, "caps_keep", &keep) < 0 ||
        asb_wire_get_str(m, mlen, "seccomp", &sec) < 0 ||
        asb_wire_get_bool(m, mlen, "netns", &netns) < 0 ||
        asb_wire_get_bool(m, mlen, "landlock", &ll) < 0 ||
        asb_wire_get_bool(m, mlen, "no_new_privs", &nnp) < 0 ||
        asb_wire_get_int(m, mlen, "uid", &uid) < 0 || asb_wire_get_int(m, mlen, "gid", &gid) < 0 ||
        asb_wire_get_int(m, mlen, "fsize", &fsize) < 0 ||
        asb_wire_get_int(m, mlen, "nofile", &nofile) < 0 ||
        asb_wire_get_int(m, mlen, "timeout_ms", &timeout_ms) < 0 ||
        asb_wire_get_int(m, mlen, "output_bytes", &output) < 0 ||
        asb_wire_get_strv(m, mlen, "argv", &spec->argv, NULL) < 0 ||
        asb_wire_get_strv(m, mlen, "env", &spec->env, NULL) < 0 ||
        asb_wire_get_strv(m, mlen, "files_in", &files, &n_files) < 0 ||
        asb_wire_get_strv(m, mlen, "bind_ro", &binds, &n_binds) < 0 ||
        asb_wire_get_bool(m, mlen, "landlock_scope", &llscope) < 0 ||
        asb_wire_get_bool(m, mlen, "memfd_noexec", &mfdnx) < 0 ||
        asb_wire_get_bool(m, mlen, "memfd_refuse", &mfdref) < 0 ||
        asb_wire_get_bool(m, mlen, "usr_from_host", &usrhost) < 0 ||
        asb_wire_get_bool(m, mlen, "devpts", &devpts) < 0 ||
        asb_wire_get_int(m, mlen, "stack_soft", &stack_soft) < 0 ||
        asb_wire_get_int(m, mlen, "owner_uid", &owner_uid) < 0 ||
        asb_wire_get_strv(m, mlen, "files_exec", &execs, &n_execs) < 0 ||
        asb_wire_get_bool(m, mlen, "exec_dir", &execdir) < 0 ||
        asb_wire_get_bool(m, mlen, "uname_hidden", &unamehid) < 0 ||
        asb_wire_get_bool(m, mlen, "early_job", &early) < 0) {
        asb_err(err, -EINVAL, "spec: malformed, or a field is missing or of the wrong type");
        goto out;
    }
    int r = parse_enum(root, roots, 3), c = parse_enum(cap, caps, 3), s = parse_enum(sec, secs, 3);
    if (r < 0 || c < 0 || s < 0 || strlen(nonce) >= sizeof(spec->nonce) || ws < 0 || tmp < 0 ||
        fsize < 0 || nofile < 0 || timeout_ms <= 0 || output < 0 || keep < 0 || stack_soft < -1 ||
        owner_uid <= 0 || owner_uid >= (int64_t)UINT32_MAX) {
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
    spec->memfd_refuse = mfdref;
    spec->usr_from_host = usrhost;
    spec->devpts = devpts;
    spec->exec_dir = execdir;
    spec->uname_hidden = unamehid;
    spec->early_job = early;
    spec->workspace_bytes = (uint64_t)ws, spec->tmp_bytes = (uint64_t)tmp;
    spec->caps_keep = (uint64_t)keep;
    spec->uid = (long)uid, spec->gid = (long)gid;
    spec->fsize = (uint64_t)fsize, spec->nofile = (uint64_t)nofile;
    spec->stack_soft = stack_soft;
    spec->owner_uid = (uint32_t)owner_uid;
    spec->timeout_ms = (uint64_t)timeout_ms, spec->output_bytes = (uint64_t)output;
    if (!spec->argv[0]) {
        asb_err(err, -EINVAL, "spec: argv/env");
        goto out;
    }
    if (n_binds > sizeof(spec->bind_ro) / sizeof(spec->bind_ro[0])) {
        asb_err(err, -EINVAL, "spec: files_in/bind_ro");
        goto out;
    }
    for (size_t i = 0; i < n_binds; i++) {
        const char *p = binds[i];
        if (!p || p[0] != '/' || !(spec->bind_ro[i] = strdup(p))) {
            asb_err(err, -EINVAL, "spec: bind_ro[%zu]", i);
            goto out;
        }
        spec->n_bind_ro = i + 1;
    }
    spec->files_in = calloc(n_files + 1, sizeof(*spec->files_in));
    if (!spec->files_in) {
        asb_err_sys(err, ENOMEM, "spec");
        goto out;
    }
    for (size_t i = 0; i < n_files; i++) {
        const char *name = files[i];
        if (!name || strchr(name, '/') || !*name || !strcmp(name, ".") || !strcmp(name, "..") ||
            !(spec->files_in[i].name = strdup(name))) {
            asb_err(err, -EINVAL, "spec: files_in[%zu]", i);
            goto out;
        }
        spec->files_in[i].fd = -1; /* the job message carries them */
        spec->n_files_in = i + 1;
    }
    /* The programs among them: each named once, each one of the files in. */
    for (size_t k = 0; k < n_execs; k++) {
        size_t i = 0;
        while (i < spec->n_files_in && strcmp(spec->files_in[i].name, execs[k]) != 0)
            i++;
        /* Only where the sandbox has the place for it (a root of its own, exec_dir). */
        if (i == spec->n_files_in || spec->files_in[i].exec || !spec->exec_dir ||
            spec->root == ASB_ROOT_HOST) {
            asb_err(err, -EINVAL, "spec: files_exec[%zu]", k);
            goto out;
        }
        spec->files_in[i].exec = true;
    }
    rc = 0;
out:
    free(m), free(nonce), free(root), free(cap), free(sec);
    asb_wire_strv_free(files);
    asb_wire_strv_free(binds);
    asb_wire_strv_free(execs);
    return rc;
}

int sup_spec_take_job(sup_spec_t *spec, sup_spec_t *job, asb_error_t *err)
{
    bool same =
        strcmp(spec->nonce, job->nonce) == 0 && spec->root == job->root &&
        spec->mask_proc == job->mask_proc && spec->tmp_noexec == job->tmp_noexec &&
        spec->workspace_noexec == job->workspace_noexec && spec->netns == job->netns &&
        spec->landlock == job->landlock && spec->landlock_scope == job->landlock_scope &&
        spec->no_new_privs == job->no_new_privs && spec->memfd_noexec == job->memfd_noexec &&
        spec->memfd_refuse == job->memfd_refuse && spec->usr_from_host == job->usr_from_host &&
        spec->devpts == job->devpts && spec->workspace_bytes == job->workspace_bytes &&
        spec->tmp_bytes == job->tmp_bytes && spec->caps == job->caps &&
        spec->caps_keep == job->caps_keep && spec->seccomp == job->seccomp &&
        spec->uid == job->uid && spec->gid == job->gid && spec->fsize == job->fsize &&
        spec->nofile == job->nofile && spec->n_bind_ro == job->n_bind_ro &&
        spec->owner_uid == job->owner_uid && spec->uname_hidden == job->uname_hidden;
    for (size_t i = 0; same && i < spec->n_bind_ro; i++)
        same = strcmp(spec->bind_ro[i], job->bind_ro[i]) == 0;
    for (size_t i = 0; i < job->n_bind_ro; i++)
        free(job->bind_ro[i]);
    /* A program needs the place made for it when the sandbox was built (the job's own exec_dir
     * says only whether the host would have asked for it). */
    bool place = spec->exec_dir && spec->root != ASB_ROOT_HOST;
    for (size_t i = 0; same && i < job->n_files_in; i++)
        same = !job->files_in[i].exec || place;
    if (!same) {
        asb_wire_strv_free(job->argv), asb_wire_strv_free(job->env);
        for (size_t i = 0; i < job->n_files_in; i++)
            free(job->files_in[i].name);
        free(job->files_in);
        return asb_err(err, -EINVAL, "job: it does not match the prepared sandbox");
    }
    asb_wire_strv_free(spec->argv), asb_wire_strv_free(spec->env);
    for (size_t i = 0; i < spec->n_files_in; i++)
        free(spec->files_in[i].name);
    free(spec->files_in);
    spec->argv = job->argv, spec->env = job->env;
    spec->files_in = job->files_in, spec->n_files_in = job->n_files_in;
    spec->timeout_ms = job->timeout_ms, spec->output_bytes = job->output_bytes;
    return 0;
}
