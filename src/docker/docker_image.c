/* docker_image.c - the default image, assembled from the host and loaded without any registry.
 *
 * Contents: the host's /usr/bin/python3, its standard library (without the test suite and the
 * optimised byte code), every shared library that ldd lists for the interpreter, its extension
 * modules and /bin/sh, a two-line /etc/passwd and /etc/group, and the empty mount points the
 * backend uses. No package manager, no shell tools: what the workload may run is python and sh.
 * The tar is built in memory with libarchive and loaded with POST /images/create?fromSrc=-. */
#include "core/error.h"
#include "core/limits.h"
#include "docker/docker.h"

#include "docker/docker_dl.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define IMAGE_MAX_LIBS 256

typedef struct image_build {
    asb_dl_t dl;
    struct archive *a;
    struct archive_entry *e;
    asb_dl_membuf_t tar;
    char *dirs_seen[IMAGE_MAX_LIBS]; /* parent directories already in the tar */
    size_t n_dirs_seen;
    size_t n_files;
    uint64_t bytes;
    asb_error_t *err;
    int rc;
} image_build_t;

static int add_dir(image_build_t *b, const char *path, mode_t perm)
{
    const asb_dl_t *dl = &b->dl;
    dl->archive_entry_clear(b->e);
    dl->archive_entry_set_pathname(b->e, path + 1); /* relative: "usr/bin" */
    dl->archive_entry_set_filetype(b->e, AE_IFDIR);
    dl->archive_entry_set_perm(b->e, perm);
    if (dl->archive_write_header(b->a, b->e) != ARCHIVE_OK)
        return asb_err(b->err, -EIO, "image tar %s: %s", path, dl->archive_error_string(b->a));
    return 0;
}

static int add_data(image_build_t *b, const char *path, const void *data, size_t len, mode_t perm)
{
    const asb_dl_t *dl = &b->dl;
    dl->archive_entry_clear(b->e);
    dl->archive_entry_set_pathname(b->e, path + 1);
    dl->archive_entry_set_filetype(b->e, AE_IFREG);
    dl->archive_entry_set_perm(b->e, perm);
    dl->archive_entry_set_size(b->e, (la_int64_t)len);
    if (dl->archive_write_header(b->a, b->e) != ARCHIVE_OK ||
        (len && dl->archive_write_data(b->a, data, len) != (la_ssize_t)len))
        return asb_err(b->err, -EIO, "image tar %s: %s", path, dl->archive_error_string(b->a));
    b->n_files++;
    b->bytes += len;
    return 0;
}

/* The parent directories of path, each once (the tar needs them before the file). */
static int add_parents(image_build_t *b, const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        bool seen = false;
        for (size_t i = 0; i < b->n_dirs_seen; i++)
            if (strcmp(b->dirs_seen[i], buf) == 0)
                seen = true;
        if (!seen) {
            if (b->n_dirs_seen >= IMAGE_MAX_LIBS)
                return asb_err(b->err, -E2BIG, "image: too many directories");
            if (!(b->dirs_seen[b->n_dirs_seen++] = strdup(buf)))
                return asb_err_sys(b->err, ENOMEM, "image");
            int rc = add_dir(b, buf, 0755);
            if (rc < 0)
                return rc;
        }
        *p = '/';
    }
    return 0;
}

/* A host file (following symlinks) stored as a regular file at `dest`. */
static int add_host_file(image_build_t *b, const char *src, const char *dest)
{
    int fd = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return asb_err_sys(b->err, errno, "image: open %s", src);
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return asb_err(b->err, -EINVAL, "image: %s is not a regular file", src);
    }
    unsigned char *data = malloc(st.st_size ? (size_t)st.st_size : 1);
    size_t got = 0;
    while (data && got < (size_t)st.st_size) {
        ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    int rc;
    if (!data || got != (size_t)st.st_size)
        rc = asb_err(b->err, -EIO, "image: reading %s failed", src);
    else if ((rc = add_parents(b, dest)) == 0)
        rc = add_data(b, dest, data, got, st.st_mode & 0555);
    free(data);
    return rc;
}

/* ldd's "name => /path (addr)" and "/path (addr)" lines: the paths, each once. ldd gets the
 * path as an argument of its own, never through a shell (a quote in a library's name under the
 * stdlib would have been shell syntax in a command run as root: review finding, hardening). */
static int collect_libs(image_build_t *b, const char *elf, char **found, size_t *n_found)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return asb_err_sys(b->err, errno, "image: ldd %s", elf);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *const argv[] = {"ldd", "--", (char *)elf, NULL};
    char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
    /* SIGPIPE and SIGXFSZ back to their defaults: the CLI ignores both (main.c). */
    posix_spawnattr_t sa;
    posix_spawnattr_init(&sa);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGXFSZ);
    posix_spawnattr_setsigdefault(&sa, &def);
    posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int src = posix_spawn(&pid, "/usr/bin/ldd", &fa, &sa, argv, envp);
    posix_spawnattr_destroy(&sa);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (src != 0) {
        close(p[0]);
        return asb_err_sys(b->err, src, "image: ldd %s", elf);
    }
    FILE *f = fdopen(p[0], "r");
    if (!f) {
        int e = errno;
        close(p[0]);
        waitpid(pid, NULL, 0);
        return asb_err_sys(b->err, e, "image: ldd %s", elf);
    }
    int rc = 0;
    char line[4096];
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        char *q = strstr(line, "=> ");
        q = q ? q + 3 : line;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != '/')
            continue;
        char *end = strpbrk(q, " \t\n");
        if (end)
            *end = '\0';
        bool seen = false;
        for (size_t i = 0; i < *n_found; i++)
            if (strcmp(found[i], q) == 0)
                seen = true;
        if (seen || *n_found >= IMAGE_MAX_LIBS)
            continue;
        if (!(found[(*n_found)++] = strdup(q)))
            rc = asb_err_sys(b->err, ENOMEM, "image");
    }
    fclose(f);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return rc;
}

typedef struct walk_ctx {
    image_build_t *b;
    char **elfs;
    size_t *n_elfs;
} walk_ctx_t;

static bool skip_stdlib_path(const char *path, const char *base)
{
    /* The test suite and GUI/packaging tools: large and never needed to run code. Third-party
     * packages are not the stdlib: Debian's python3-numpy puts one extension module under
     * /usr/lib/python3.11/dist-packages, and the image had a numpy that imported and then
     * failed (QA finding). */
    static const char *const skip[] = {
        "/test/",    "/tests/",      "/idlelib/", "/tkinter/",       "/ensurepip/",
        "/lib2to3/", "/turtledemo/", "/config-",  "/dist-packages/", "/site-packages/"};
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (strstr(path, skip[i]))
            return true;
    /* Byte code only at the default optimisation level, which the interpreter loads. */
    return strstr(base, ".opt-1.pyc") || strstr(base, ".opt-2.pyc");
}

static int walk_stdlib(const char *stdlib, image_build_t *b, char **elfs, size_t *n_elfs)
{
    /* Iterative walk with opendir, depth-first, no symlinks followed. */
    char *stack[4096];
    size_t top = 0;
    if (!(stack[top++] = strdup(stdlib)))
        return asb_err_sys(b->err, ENOMEM, "image");
    int rc = 0;
    while (top && rc == 0) {
        char *dir = stack[--top];
        char probe[4200];
        snprintf(probe, sizeof(probe), "%s/", dir);
        if (skip_stdlib_path(probe, "")) {
            free(dir);
            continue;
        }
        DIR *d = opendir(dir);
        if (!d) {
            rc = asb_err_sys(b->err, errno, "image: %s", dir);
            free(dir);
            break;
        }
        if ((rc = add_parents(b, probe)) < 0) {
            closedir(d);
            free(dir);
            break;
        }
        struct dirent *de;
        while ((de = readdir(d)) && rc == 0) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char path[4200];
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            struct stat st;
            if (lstat(path, &st) < 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                if (top < sizeof(stack) / sizeof(stack[0]) && (stack[top] = strdup(path)))
                    top++;
                continue;
            }
            if (!S_ISREG(st.st_mode) || skip_stdlib_path(path, de->d_name))
                continue;
            rc = add_host_file(b, path, path);
            size_t l = strlen(de->d_name);
            if (rc == 0 && l > 3 && strcmp(de->d_name + l - 3, ".so") == 0 &&
                *n_elfs < IMAGE_MAX_LIBS && !(elfs[(*n_elfs)++] = strdup(path)))
                rc = asb_err_sys(b->err, ENOMEM, "image");
        }
        closedir(d);
        free(dir);
    }
    while (top)
        free(stack[--top]);
    return rc;
}

static int python_stdlib(char *out, size_t len, asb_error_t *err)
{
    FILE *f = popen("/usr/bin/python3 -I -S -c 'import sysconfig; "
                    "print(sysconfig.get_paths()[\"stdlib\"])' 2>/dev/null",
                    "re");
    if (!f)
        return asb_err_sys(err, errno, "image: running /usr/bin/python3");
    char *got = fgets(out, (int)len, f);
    int st = pclose(f);
    if (!got || st != 0 || out[0] != '/')
        return asb_err(err, -ENOENT, "image: /usr/bin/python3 did not report its stdlib");
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

static int import_image(const char *image, const asb_dl_membuf_t *tar, asb_error_t *err)
{
    char repo[256], tag[128] = "latest";
    snprintf(repo, sizeof(repo), "%s", image);
    char *colon = strrchr(repo, ':');
    if (colon && !strchr(colon, '/')) {
        *colon = '\0';
        snprintf(tag, sizeof(tag), "%s", colon + 1);
    }
    for (const char *p = repo; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789._-/", *p))
            return asb_err(err, -EINVAL, "image name '%s': only [a-z0-9._-/] before the tag",
                           image);
    for (const char *p = tag; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
            return asb_err(err, -EINVAL, "image tag '%s': only [A-Za-z0-9._-]", tag);
    asb_docker_engine_t *eng = NULL;
    int rc = asb_docker_engine_open(&eng, err);
    if (rc < 0)
        return rc;
    char path[512];
    snprintf(path, sizeof(path), "/images/create?fromSrc=-&repo=%s&tag=%s", repo, tag);
    long status = 0;
    char *resp = NULL;
    rc = asb_docker_http(eng, "POST", path, "application/x-tar", tar->data, tar->len, 300000,
                         &status, &resp, NULL, err);
    asb_docker_engine_close(eng);
    if (rc < 0)
        return rc;
    /* A progress stream of JSON objects; a failure is an object with "error". */
    if (status != 200 || strstr(resp, "\"error\""))
        rc = asb_err(err, -EIO, "docker engine: image import: HTTP %ld: %.300s", status, resp);
    free(resp);
    return rc;
}

int asb_docker_image_build(const char *image, char **report, asb_error_t *err)
{
    *report = NULL;
    if (!image)
        image = ASB_DOCKER_DEFAULT_IMAGE;
    image_build_t b;
    memset(&b, 0, sizeof(b));
    b.err = err;
    char *elfs[IMAGE_MAX_LIBS], *libs[IMAGE_MAX_LIBS];
    size_t n_elfs = 0, n_libs = 0;
    char stdlib[1024];
    int rc;
    const asb_dl_t *dl = &b.dl;
    if ((rc = python_stdlib(stdlib, sizeof(stdlib), err)) < 0 || (rc = asb_dl_open(&b.dl, err)) < 0)
        goto out;
    b.a = dl->archive_write_new();
    b.e = dl->archive_entry_new();
    if (!b.a || !b.e) {
        rc = asb_err_sys(err, ENOMEM, "image");
        goto out;
    }
    dl->archive_write_set_format_pax_restricted(b.a);
    if (dl->archive_write_open(b.a, &b.tar, NULL, asb_dl_membuf_write, NULL) != ARCHIVE_OK) {
        rc = asb_err(err, -EIO, "image tar: %s", dl->archive_error_string(b.a));
        goto out;
    }
    static const struct {
        const char *path;
        mode_t mode;
    } dirs[] = {{"/tmp", 01777}, {ASB_WORKSPACE, 01777}, {"/.asb", 0755}, {ASB_DOCKER_IO_DIR, 0755},
                {"/proc", 0555}, {"/dev", 0755},         {"/sys", 0555},  {"/etc", 0755}};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && rc == 0; i++)
        rc = add_dir(&b, dirs[i].path, dirs[i].mode);
    static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n"
                                 "nobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n";
    static const char group[] = "root:x:0:\nnogroup:x:65534:\n";
    if (rc == 0)
        rc = add_data(&b, "/etc/passwd", passwd, sizeof(passwd) - 1, 0444);
    if (rc == 0)
        rc = add_data(&b, "/etc/group", group, sizeof(group) - 1, 0444);
    if (rc == 0)
        rc = add_host_file(&b, "/usr/bin/python3", "/usr/bin/python3");
    if (rc == 0)
        rc = add_host_file(&b, "/bin/sh", "/bin/sh");
    elfs[n_elfs++] = strdup("/usr/bin/python3");
    elfs[n_elfs++] = strdup("/bin/sh");
    if (rc == 0)
        rc = walk_stdlib(stdlib, &b, elfs, &n_elfs);
    for (size_t i = 0; i < n_elfs && rc == 0; i++)
        if (elfs[i])
            rc = collect_libs(&b, elfs[i], libs, &n_libs);
    for (size_t i = 0; i < n_libs && rc == 0; i++)
        rc = add_host_file(&b, libs[i], libs[i]);
    if (rc == 0 && dl->archive_write_close(b.a) != ARCHIVE_OK)
        rc = asb_err(err, -EIO, "image tar: %s", dl->archive_error_string(b.a));
    if (rc == 0)
        rc = import_image(image, &b.tar, err);
    if (rc == 0 &&
        asprintf(report, "image %s: %zu files, %zu shared libraries, %.1f MB (python stdlib %s)",
                 image, b.n_files, n_libs, (double)b.bytes / 1e6, stdlib) < 0)
        *report = NULL;
out:
    if (b.e)
        dl->archive_entry_free(b.e);
    if (b.a)
        dl->archive_write_free(b.a);
    free(b.tar.data);
    for (size_t i = 0; i < b.n_dirs_seen; i++)
        free(b.dirs_seen[i]);
    for (size_t i = 0; i < n_elfs; i++)
        free(elfs[i]);
    for (size_t i = 0; i < n_libs; i++)
        free(libs[i]);
    asb_dl_close(&b.dl);
    return rc;
}
