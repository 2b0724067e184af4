/* submission.c - candidate files per task, from references, a directory, JSON or JSONL. */
#include "bench/submission.h"
#include "bench/textio.h"
#include "core/error.h"
#include "io/printable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A .json or .jsonl[.gz] submission's text, and all files of a directory submission together. */
#define SUBMISSION_MAX_BYTES (128u * 1024u * 1024u)

static int sub_init(const asb_bench_suite_t *suite, asb_bench_submission_t *sub, asb_error_t *err)
{
    memset(sub, 0, sizeof(*sub));
    sub->per_task = calloc(suite->n_tasks ? suite->n_tasks : 1, sizeof(*sub->per_task));
    if (!sub->per_task)
        return asb_err_sys(err, ENOMEM, "submission");
    sub->n_tasks = suite->n_tasks;
    return 0;
}

void asb_bench_submission_free(asb_bench_submission_t *sub)
{
    for (size_t i = 0; i < sub->n_tasks; i++)
        asb_bench_files_free(&sub->per_task[i]);
    free(sub->per_task);
    memset(sub, 0, sizeof(*sub));
}

int asb_bench_submission_reference(const asb_bench_suite_t *suite, asb_bench_submission_t *sub,
                                   asb_error_t *err)
{
    int rc = sub_init(suite, sub, err);
    for (size_t i = 0; rc == 0 && i < suite->n_tasks; i++) {
        const asb_bench_files_t *ref = &suite->tasks[i].reference;
        for (size_t j = 0; rc == 0 && j < ref->n; j++)
            rc = asb_bench_files_add(&sub->per_task[i], ref->files[j].name, ref->files[j].content,
                                     ref->files[j].len, err);
        sub->n_given++;
    }
    if (rc < 0)
        asb_bench_submission_free(sub);
    return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static long task_for(const asb_bench_suite_t *suite, const asb_bench_submission_t *sub,
                     const char *id, const char *where, asb_error_t *err)
{
    long t = asb_bench_suite_find(suite, id);
    if (t < 0)
        return asb_err(err, -EINVAL, "%s: task id '%.200s' is not in the suite", where, id);
    if (sub->per_task[t].n)
        return asb_err(err, -EINVAL, "%s: task id '%.200s' given twice", where, id);
    return t;
}

static int load_samples(const asb_bench_suite_t *suite, char *text, asb_bench_submission_t *sub,
                        asb_error_t *err)
{
    /* A completion continues a HumanEval prompt (code). A suite's prompt is a task description
     * in prose: prompt + completion was never valid source, and every correct candidate failed
     * without a word (QA finding). */
    if (!suite->format || strcmp(suite->format, "humaneval") != 0)
        return asb_err(err, -EINVAL,
                       "a .jsonl samples file (task_id + completion) completes HumanEval prompts, "
                       "and this suite is not one (--format humaneval): give a .json object of "
                       "task id -> source, or a directory");
    char *cur = text, *l;
    size_t line = 0;
    while ((l = asb_bench_next_line(&cur)) != NULL) {
        line++;
        if (strspn(l, " \t") == strlen(l))
            continue;
        char where[48];
        snprintf(where, sizeof(where), "line %zu", line);
        int brc = asb_bench_json_bounded(l, strlen(l), where, err);
        if (brc < 0)
            return brc;
        json_error_t je;
        /* NUL bytes allowed: a completion that holds one is graded (and fails as the invalid
         * source it is); lengths are used throughout, never strlen. */
        json_t *o = json_loads(l, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
        json_t *id = json_object_get(o, "task_id"), *comp = json_object_get(o, "completion");
        int rc = 0;
        if (!o)
            rc = asb_err(err, -EINVAL, "%s: not valid JSON (%s)", where, je.text);
        else if (!json_is_object(o))
            rc = asb_err(err, -EINVAL, "%s: expected a JSON object", where);
        else if (!json_is_string(id))
            rc = asb_err(err, -EINVAL, "%s: task_id: expected a string", where);
        else if (strlen(json_string_value(id)) != json_string_length(id))
            rc = asb_err(err, -EINVAL, "%s: task_id: contains a NUL byte", where);
        else if (!json_is_string(comp))
            rc = asb_err(err, -EINVAL, "%s: completion: expected a string", where);
        long t = rc == 0 ? task_for(suite, sub, json_string_value(id), where, err) : -1;
        if (rc == 0 && t < 0)
            rc = (int)t;
        if (rc == 0) {
            const asb_bench_task_t *task = &suite->tasks[t];
            size_t lp = strlen(task->prompt), lc = json_string_length(comp);
            char *src = malloc(lp + lc + 1);
            if (!src) {
                rc = asb_err_sys(err, ENOMEM, "%s", where);
            } else {
                memcpy(src, task->prompt, lp);
                memcpy(src + lp, json_string_value(comp), lc);
                src[lp + lc] = '\0';
                rc = asb_bench_files_add(&sub->per_task[t], task->entry_file, src, lp + lc, err);
                free(src);
                if (rc < 0)
                    asb_err_wrap(err, "%s", where);
                else
                    sub->n_given++;
            }
        }
        json_decref(o);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int load_json(const asb_bench_suite_t *suite, const char *text, size_t len,
                     asb_bench_submission_t *sub, asb_error_t *err)
{
    int brc = asb_bench_json_bounded(text, len, "$", err);
    if (brc < 0)
        return brc;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(root)) {
        json_decref(root);
        return asb_err(err, -EINVAL, "$: expected an object of task id -> files (%s)",
                       root ? "not an object" : je.text);
    }
    const char *id;
    json_t *v;
    int rc = 0;
    json_object_foreach(root, id, v)
    {
        char where[256];
        snprintf(where, sizeof(where), "$.%.200s", id);
        long t = task_for(suite, sub, id, where, err);
        if (t < 0) {
            rc = (int)t;
            break;
        }
        if (json_is_string(v)) {
            rc = asb_bench_files_add(&sub->per_task[t], suite->tasks[t].entry_file,
                                     json_string_value(v), json_string_length(v), err);
        } else if (json_is_object(v) && json_object_size(v) > 0) {
            const char *name;
            json_t *src;
            json_object_foreach(v, name, src)
            {
                if (!json_is_string(src)) {
                    rc = asb_err(err, -EINVAL, "%s.%s: expected a string", where, name);
                    break;
                }
                rc = asb_bench_files_add(&sub->per_task[t], name, json_string_value(src),
                                         json_string_length(src), err);
                if (rc < 0)
                    break;
            }
        } else {
            rc = asb_err(err, -EINVAL,
                         "%s: expected the entry file's source or an object of file -> source",
                         where);
        }
        if (rc < 0) {
            if (!strstr(err->message, where))
                asb_err_wrap(err, "%s", where);
            break;
        }
        sub->n_given++;
    }
    json_decref(root);
    return rc;
}

/* DIR/<id>/: every regular file directly inside. A submission directory is untrusted input:
 * openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS keeps every open inside it. */
static int open_beneath(int dirfd, const char *path, int flags)
{
    struct open_how how;
    memset(&how, 0, sizeof(how));
    how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do
        fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
    while (fd < 0 && errno == EINTR);
    return (int)fd;
}

static int read_fd(int fd, char **out, size_t *len, asb_error_t *err, const char *what)
{
    size_t alloc = 4096, n = 0;
    char *buf = malloc(alloc + 1);
    if (!buf)
        return asb_err_sys(err, ENOMEM, "%s", what);
    for (;;) {
        if (n == alloc) {
            if (alloc > ASB_BENCH_MAX_SOURCE) {
                free(buf);
                return asb_err(err, -EFBIG, "%s: larger than %u bytes", what, ASB_BENCH_MAX_SOURCE);
            }
            char *nb = realloc(buf, alloc * 2 + 1);
            if (!nb) {
                free(buf);
                return asb_err_sys(err, ENOMEM, "%s", what);
            }
            buf = nb;
            alloc *= 2;
        }
        ssize_t r = read(fd, buf + n, alloc - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return asb_err_sys(err, e, "read %s", what);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Another task's directory below this one (tasks "a" and "a/b"): `id`/`name` begins some id. */
static bool holds_other_task(const asb_bench_suite_t *suite, const char *id, const char *name)
{
    size_t li = strlen(id), ln = strlen(name);
    for (size_t i = 0; i < suite->n_tasks; i++) {
        const char *t = suite->tasks[i].id;
        if (strncmp(t, id, li) == 0 && t[li] == '/' && strncmp(t + li + 1, name, ln) == 0 &&
            (t[li + 1 + ln] == '/' || t[li + 1 + ln] == '\0'))
            return true;
    }
    return false;
}

static const char *kind_of(mode_t m)
{
    return S_ISLNK(m)                 ? "a symlink"
           : S_ISFIFO(m)              ? "a FIFO"
           : S_ISSOCK(m)              ? "a socket"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device node"
                                      : "not a regular file";
}

/* The files directly in DIR/<id>/. Each entry's type is checked before it is opened (a device
 * node of an unpacked tarball is never opened: QA finding), and again on what was opened. All
 * files of the submission together are at most SUBMISSION_MAX_BYTES: one small file hard-linked
 * under every task cost 2.7 GB of memory (QA finding). */
static int load_task_dir(const asb_bench_suite_t *suite, int root, const char *id,
                         asb_bench_files_t *set, bool *found, size_t *total, asb_error_t *err)
{
    *found = false;
    int dfd = open_beneath(root, id, O_RDONLY | O_DIRECTORY);
    if (dfd < 0) {
        if (errno == ENOENT)
            return 0;
        return asb_err_sys(err, errno, "%s%s", id,
                           errno == ENOTDIR || errno == ELOOP || errno == EXDEV
                               ? " (must be a real directory: no symlink on the way)"
                               : "");
    }
    *found = true;
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return asb_err_sys(err, e, "%s", id);
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = asb_err_sys(err, errno, "%s/%s", id, de->d_name);
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            if (holds_other_task(suite, id, de->d_name))
                continue; /* nested task ids (HumanEval/0) live below */
            rc = asb_err(err, -EISDIR, "%s/%s: a directory (only the task's files belong here)", id,
                         de->d_name);
            break;
        }
        if (!S_ISREG(st.st_mode)) {
            rc = asb_err(err, -EINVAL, "%s/%s: %s", id, de->d_name, kind_of(st.st_mode));
            break;
        }
        int fd = open_beneath(dirfd(d), de->d_name, O_RDONLY | O_NONBLOCK);
        struct stat fst;
        if (fd < 0) {
            rc = asb_err_sys(err, errno, "%s/%s", id, de->d_name);
            break;
        }
        if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
            fst.st_ino != st.st_ino) {
            close(fd);
            rc = asb_err(err, -EINVAL, "%s/%s: changed while it was read", id, de->d_name);
            break;
        }
        char *content = NULL;
        size_t len = 0;
        char what[512];
        snprintf(what, sizeof(what), "%s/%s", id, de->d_name);
        rc = read_fd(fd, &content, &len, err, what);
        close(fd);
        if (rc == 0 && len > SUBMISSION_MAX_BYTES - *total)
            rc =
                asb_err(err, -EFBIG, "%s: the submission's files are larger than %u bytes together",
                        what, SUBMISSION_MAX_BYTES);
        if (rc == 0) {
            *total += len;
            rc = asb_bench_files_add(set, de->d_name, content, len, err);
            if (rc < 0)
                asb_err_wrap(err, "%s", id);
        }
        free(content);
    }
    if (rc == 0 && errno != 0 && !de)
        rc = asb_err_sys(err, errno, "readdir %s", id);
    closedir(d);
    return rc;
}

/* Is path a task id (exact), or a directory on the way to one (a strict prefix ending at '/')? */
static bool is_task_id(const asb_bench_suite_t *suite, const char *path)
{
    for (size_t i = 0; i < suite->n_tasks; i++)
        if (strcmp(suite->tasks[i].id, path) == 0)
            return true;
    return false;
}

static bool leads_to_task(const asb_bench_suite_t *suite, const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < suite->n_tasks; i++)
        if (strncmp(suite->tasks[i].id, path, n) == 0 && suite->tasks[i].id[n] == '/')
            return true;
    return false;
}

/* Everything in a directory submission outside DIR/<task id>/ is an error: a candidate under an
 * id the suite does not have (a typo such as HumanEval/01) was skipped in silence and its task
 * scored "no submission", where the .json and .jsonl forms refuse the id (QA finding). Walks only
 * the directories that lead to task ids, so its depth is that of the ids. `rel` is dfd's path. */
static int check_strays(const asb_bench_suite_t *suite, int dfd, const char *rel, asb_error_t *err)
{
    int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return asb_err_sys(err, e, "%s", *rel ? rel : ".");
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char path[PATH_MAX];
        int n = snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        if (n < 0 || (size_t)n >= sizeof(path)) {
            rc = asb_err(err, -ENAMETOOLONG, "%s/...: path too long", *rel ? rel : ".");
            break;
        }
        if (is_task_id(suite, path))
            continue; /* load_task_dir reads and checks it */
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = asb_err_sys(err, errno, "%s", path);
            break;
        }
        if (!S_ISDIR(st.st_mode) || !leads_to_task(suite, path)) {
            char shown[128];
            rc = asb_err(err, -ENOENT,
                         "%s: not a task of the suite (a directory submission holds only "
                         "DIR/<task id>/<files>)",
                         asb_printable(path, shown, sizeof(shown)));
            break;
        }
        int sub = open_beneath(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY);
        if (sub < 0) {
            rc = asb_err_sys(err, errno, "%s", path);
            break;
        }
        rc = check_strays(suite, sub, path, err);
        close(sub);
    }
    if (rc == 0 && errno != 0 && !de)
        rc = asb_err_sys(err, errno, "readdir %s", *rel ? rel : ".");
    closedir(d);
    return rc;
}

static int load_dir(const asb_bench_suite_t *suite, int root, asb_bench_submission_t *sub,
                    asb_error_t *err)
{
    int rc = check_strays(suite, root, "", err);
    if (rc < 0)
        return rc;
    size_t total = 0;
    for (size_t i = 0; i < suite->n_tasks; i++) {
        bool found;
        rc = load_task_dir(suite, root, suite->tasks[i].id, &sub->per_task[i], &found, &total, err);
        if (rc < 0)
            return rc;
        if (found && sub->per_task[i].n)
            sub->n_given++;
    }
    return 0;
}

int asb_bench_submission_load(const asb_bench_suite_t *suite, const char *path,
                              asb_bench_submission_t *sub, asb_error_t *err)
{
    int rc = sub_init(suite, sub, err);
    if (rc < 0)
        return rc;
    struct stat st;
    if (stat(path, &st) < 0) {
        rc = asb_err_sys(err, errno, "submission %s", path);
    } else if (S_ISDIR(st.st_mode)) {
        int root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0) {
            rc = asb_err_sys(err, errno, "submission %s", path);
        } else {
            rc = load_dir(suite, root, sub, err);
            close(root);
        }
    } else if (ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz") ||
               ends_with(path, ".json")) {
        char *text;
        size_t len;
        rc = asb_bench_read_text(path, SUBMISSION_MAX_BYTES, &text, &len, err);
        if (rc == 0) {
            rc = ends_with(path, ".json") ? load_json(suite, text, len, sub, err)
                                          : load_samples(suite, text, sub, err);
            free(text);
        }
    } else {
        rc = asb_err(err, -EINVAL, "expected a directory, a .json file or a .jsonl[.gz] file");
    }
    if (rc < 0) {
        asb_bench_submission_free(sub);
        return asb_err_wrap(err, "submission %s", path);
    }
    return 0;
}
