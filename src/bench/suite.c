/* suite.c - the suite JSON format: parse, validate (errors name the field), free. */
#include "bench/suite.h"
#include "core/error.h"
#include "bench/textio.h"
#include "core/plan.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_FORMAT "agent-sandbox.bench-suite/1"
#define SUITE_MAX_BYTES (128u * 1024u * 1024u)

bool asb_bench_valid_entry_point(const char *name, const char **why)
{
    static const char *const keywords[] = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len > 200) {
        *why = "must be 1..200 bytes";
        return false;
    }
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
              (p != name && *p >= '0' && *p <= '9'))) {
            *why = "expected a Python identifier";
            return false;
        }
    for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
        if (strcmp(name, keywords[i]) == 0) {
            *why = "is a Python keyword";
            return false;
        }
    if (len >= 4 && strncmp(name, "__", 2) == 0 && strcmp(name + len - 2, "__") == 0) {
        *why = "is a dunder name, reserved by Python";
        return false;
    }
    if (strcmp(name, "check") == 0) {
        *why = "is 'check', the oracle's own function";
        return false;
    }
    return true;
}

bool asb_bench_valid_task_id(const char *id, const char **why)
{
    size_t len = id ? strlen(id) : 0;
    if (len == 0 || len > ASB_BENCH_MAX_ID_LEN) {
        *why = "must be 1..200 bytes";
        return false;
    }
    for (const char *p = id; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-' || c == '/';
        if (!ok) {
            *why = "may hold only letters, digits, '.', '_', '-' and '/'";
            return false;
        }
    }
    /* Ids name submission directories: no absolute path, no empty, "." or ".." segment. */
    const char *seg = id;
    for (;;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) {
            *why = "has an empty, '.' or '..' path segment";
            return false;
        }
        if (!end)
            break;
        seg = end + 1;
    }
    return true;
}

int asb_bench_files_add(asb_bench_files_t *set, const char *name, const char *content, size_t len,
                        asb_error_t *err)
{
    const char *why;
    if (!asb_valid_plain_name(name, &why))
        return asb_err(err, -EINVAL, "file name '%s' %s", name, why);
    if (set->n >= ASB_BENCH_MAX_FILES)
        return asb_err(err, -E2BIG, "more than %d files", ASB_BENCH_MAX_FILES);
    if (len > ASB_BENCH_MAX_SOURCE)
        return asb_err(err, -EFBIG, "file %s is larger than %u bytes", name, ASB_BENCH_MAX_SOURCE);
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->files[i].name, name) == 0)
            return asb_err(err, -EEXIST, "file %s given twice", name);
    asb_bench_file_t *nf = realloc(set->files, (set->n + 1) * sizeof(*nf));
    if (!nf)
        return asb_err_sys(err, ENOMEM, "files");
    set->files = nf;
    asb_bench_file_t *f = &nf[set->n];
    f->name = strdup(name);
    f->content = malloc(len + 1);
    if (!f->name || !f->content) {
        free(f->name);
        free(f->content);
        return asb_err_sys(err, ENOMEM, "files");
    }
    memcpy(f->content, content, len);
    f->content[len] = '\0';
    f->len = len;
    set->n++;
    return 0;
}

void asb_bench_files_free(asb_bench_files_t *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->files[i].name);
        free(set->files[i].content);
    }
    free(set->files);
    set->files = NULL;
    set->n = 0;
}

void asb_bench_task_free(asb_bench_task_t *t)
{
    free(t->id);
    free(t->prompt);
    free(t->entry_file);
    free(t->entry_point);
    asb_bench_files_free(&t->reference);
    free(t->oracle_setup);
    free(t->oracle_test);
    free(t->difficulty);
    for (size_t i = 0; i < t->n_tags; i++)
        free(t->tags[i]);
    memset(t, 0, sizeof(*t));
}

void asb_bench_suite_free(asb_bench_suite_t *s)
{
    for (size_t i = 0; i < s->n_tasks; i++)
        asb_bench_task_free(&s->tasks[i]);
    free(s->tasks);
    free(s->by_id);
    free(s->name);
    free(s->format);
    memset(s, 0, sizeof(*s));
}

/* qsort_r's context: the tasks whose indexes are sorted. Equal ids keep their order. */
static int by_id_cmp(const void *a, const void *b, void *ctx)
{
    const asb_bench_task_t *t = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(t[i].id, t[j].id);
    return c ? c : (i > j) - (i < j);
}

int asb_bench_suite_index(asb_bench_suite_t *s, size_t *first, size_t *second)
{
    free(s->by_id);
    s->by_id = malloc((s->n_tasks ? s->n_tasks : 1) * sizeof(*s->by_id));
    if (!s->by_id)
        return -ENOMEM;
    for (size_t i = 0; i < s->n_tasks; i++)
        s->by_id[i] = i;
    qsort_r(s->by_id, s->n_tasks, sizeof(*s->by_id), by_id_cmp, s->tasks);
    int rc = 0;
    for (size_t k = 1; k < s->n_tasks; k++) {
        size_t i = s->by_id[k - 1], j = s->by_id[k];
        /* the repeat that comes first in the file, for the message */
        if (strcmp(s->tasks[i].id, s->tasks[j].id) == 0 && (rc == 0 || j < *second)) {
            *first = i, *second = j;
            rc = -EEXIST;
        }
    }
    return rc;
}

long asb_bench_suite_find(const asb_bench_suite_t *s, const char *id)
{
    if (!s->by_id) { /* not indexed (yet): the plain scan */
        for (size_t i = 0; i < s->n_tasks; i++)
            if (strcmp(s->tasks[i].id, id) == 0)
                return (long)i;
        return -1;
    }
    size_t lo = 0, hi = s->n_tasks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->tasks[s->by_id[mid]].id, id);
        if (c == 0)
            return (long)s->by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* ---- validation helpers: each names the field as a JSON path --------------------------------- */

static int only_keys(json_t *obj, const char *path, const char *const *allowed, asb_error_t *err)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            ok = ok || strcmp(key, allowed[i]) == 0;
        if (!ok)
            return asb_err(err, -EINVAL, "%s.%s: unknown field", path, key);
    }
    return 0;
}

/* A string field; required fields must be non-empty. *out is strdup'd (NULL when absent). */
static int get_string(json_t *obj, const char *path, const char *key, bool required, char **out,
                      asb_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) {
        if (required)
            return asb_err(err, -EINVAL, "%s.%s: missing (expected a non-empty string)", path, key);
        return 0;
    }
    if (!json_is_string(v) || (required && json_string_length(v) == 0))
        return asb_err(err, -EINVAL, "%s.%s: expected a%s string", path, key,
                       required ? " non-empty" : "");
    if (json_string_length(v) > ASB_BENCH_MAX_SOURCE)
        return asb_err(err, -EFBIG, "%s.%s: longer than %u bytes", path, key, ASB_BENCH_MAX_SOURCE);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return asb_err(err, -EINVAL, "%s.%s: contains a NUL byte", path, key);
    if (!(*out = strdup(json_string_value(v))))
        return asb_err_sys(err, ENOMEM, "%s.%s", path, key);
    return 0;
}

static int parse_files(json_t *obj, const char *path, asb_bench_files_t *set, asb_error_t *err)
{
    if (!json_is_object(obj) || json_object_size(obj) == 0)
        return asb_err(err, -EINVAL, "%s: expected an object of file name -> source", path);
    const char *name;
    json_t *v;
    json_object_foreach(obj, name, v)
    {
        if (!json_is_string(v))
            return asb_err(err, -EINVAL, "%s.%s: expected a string (the file's source)", path,
                           name);
        int rc = asb_bench_files_add(set, name, json_string_value(v), json_string_length(v), err);
        if (rc < 0)
            return asb_err_wrap(err, "%s", path);
    }
    return 0;
}

static int parse_limits(json_t *obj, const char *path, asb_bench_task_t *t, asb_error_t *err)
{
    static const char *const keys[] = {"timeout_s", "memory_mb", NULL};
    if (!json_is_object(obj))
        return asb_err(err, -EINVAL, "%s: expected an object", path);
    int rc = only_keys(obj, path, keys, err);
    if (rc < 0)
        return rc;
    json_t *v = json_object_get(obj, "timeout_s");
    if (v) {
        if (!json_is_number(v) || !(json_number_value(v) >= 0.1) || json_number_value(v) > 3600)
            return asb_err(err, -EINVAL, "%s.timeout_s: expected a number in [0.1, 3600]", path);
        t->timeout_s = json_number_value(v);
    }
    v = json_object_get(obj, "memory_mb");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < 16 || json_integer_value(v) > 65536)
            return asb_err(err, -EINVAL, "%s.memory_mb: expected a whole number in [16, 65536]",
                           path);
        t->memory_bytes = (uint64_t)json_integer_value(v) * 1024u * 1024u;
    }
    return 0;
}

static int parse_oracle(json_t *obj, const char *path, asb_bench_task_t *t, asb_error_t *err)
{
    static const char *const keys[] = {"kind", "setup", "test", NULL};
    if (!json_is_object(obj))
        return asb_err(err, -EINVAL, "%s: expected an object", path);
    int rc = only_keys(obj, path, keys, err);
    char *kind = NULL;
    if (rc == 0)
        rc = get_string(obj, path, "kind", true, &kind, err);
    if (rc == 0 && strcmp(kind, "python_check") != 0)
        rc = asb_err(err, -EINVAL, "%s.kind: unsupported '%s' (supported: python_check)", path,
                     kind);
    free(kind);
    if (rc == 0)
        rc = get_string(obj, path, "test", true, &t->oracle_test, err);
    if (rc == 0)
        rc = get_string(obj, path, "setup", false, &t->oracle_setup, err);
    if (rc == 0 && !t->oracle_setup && !(t->oracle_setup = strdup("")))
        rc = asb_err_sys(err, ENOMEM, "%s.setup", path);
    return rc;
}

static int parse_tags(json_t *arr, const char *path, asb_bench_task_t *t, asb_error_t *err)
{
    if (!json_is_array(arr))
        return asb_err(err, -EINVAL, "%s: expected an array of strings", path);
    if (json_array_size(arr) > ASB_BENCH_MAX_TAGS)
        return asb_err(err, -E2BIG, "%s: more than %d tags", path, ASB_BENCH_MAX_TAGS);
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        const char *why;
        if (!json_is_string(v) || !asb_bench_valid_task_id(json_string_value(v), &why))
            return asb_err(err, -EINVAL,
                           "%s[%zu]: expected a tag (1..200 of [A-Za-z0-9._/-], no '..')", path, i);
        /* Each tag once: a repeated one would count the task several times in its roll-up. */
        for (size_t j = 0; j < t->n_tags; j++)
            if (strcmp(t->tags[j], json_string_value(v)) == 0)
                return asb_err(err, -EINVAL, "%s[%zu]: tag '%s' is given twice", path, i,
                               t->tags[j]);
        if (!(t->tags[t->n_tags] = strdup(json_string_value(v))))
            return asb_err_sys(err, ENOMEM, "%s", path);
        t->n_tags++;
    }
    return 0;
}

static int parse_task(json_t *obj, const char *path, asb_bench_task_t *t, asb_error_t *err)
{
    static const char *const keys[] = {"id",          "prompt",    "language", "entry_file",
                                       "entry_point", "reference", "oracle",   "limits",
                                       "difficulty",  "tags",      NULL};
    if (!json_is_object(obj))
        return asb_err(err, -EINVAL, "%s: expected an object", path);
    int rc;
    char sub[128];
    const char *why;
    if ((rc = only_keys(obj, path, keys, err)) < 0 ||
        (rc = get_string(obj, path, "id", true, &t->id, err)) < 0)
        return rc;
    if (!asb_bench_valid_task_id(t->id, &why))
        return asb_err(err, -EINVAL, "%s.id: '%.200s' %s", path, t->id, why);
    char *lang = NULL;
    if ((rc = get_string(obj, path, "language", false, &lang, err)) < 0)
        return rc;
    if (lang && strcmp(lang, "python") != 0) {
        free(lang);
        return asb_err(err, -EINVAL, "%s.language: unsupported (supported: python)", path);
    }
    free(lang);
    if ((rc = get_string(obj, path, "prompt", true, &t->prompt, err)) < 0 ||
        (rc = get_string(obj, path, "entry_file", true, &t->entry_file, err)) < 0 ||
        (rc = get_string(obj, path, "entry_point", true, &t->entry_point, err)) < 0 ||
        (rc = get_string(obj, path, "difficulty", false, &t->difficulty, err)) < 0)
        return rc;
    size_t ef = strlen(t->entry_file);
    if (!asb_valid_plain_name(t->entry_file, &why) || ef < 4 ||
        strcmp(t->entry_file + ef - 3, ".py") != 0)
        return asb_err(err, -EINVAL, "%s.entry_file: expected a plain file name ending in .py",
                       path);
    /* The candidate phase runs `python3 -E -s <entry_file>`: "-c.py" would be an option, and the
     * candidate never ran there (QA finding). */
    if (t->entry_file[0] == '-')
        return asb_err(err, -EINVAL,
                       "%s.entry_file: '%.200s' begins with '-', which python would read as an "
                       "option",
                       path, t->entry_file);
    if (!asb_bench_valid_entry_point(t->entry_point, &why))
        return asb_err(err, -EINVAL, "%s.entry_point: '%.200s' %s", path, t->entry_point, why);
    if (!t->difficulty && !(t->difficulty = strdup("unknown")))
        return asb_err_sys(err, ENOMEM, "%s", path);
    snprintf(sub, sizeof(sub), "%s.reference", path);
    if ((rc = parse_files(json_object_get(obj, "reference"), sub, &t->reference, err)) < 0)
        return rc;
    bool has_entry = false;
    for (size_t i = 0; i < t->reference.n; i++)
        has_entry = has_entry || strcmp(t->reference.files[i].name, t->entry_file) == 0;
    if (!has_entry)
        return asb_err(err, -EINVAL, "%s.reference: has no file named like entry_file '%s'", path,
                       t->entry_file);
    snprintf(sub, sizeof(sub), "%s.oracle", path);
    json_t *o = json_object_get(obj, "oracle");
    if (!o)
        return asb_err(err, -EINVAL, "%s: missing", sub);
    if ((rc = parse_oracle(o, sub, t, err)) < 0)
        return rc;
    json_t *l = json_object_get(obj, "limits");
    snprintf(sub, sizeof(sub), "%s.limits", path);
    if (l && (rc = parse_limits(l, sub, t, err)) < 0)
        return rc;
    json_t *tags = json_object_get(obj, "tags");
    snprintf(sub, sizeof(sub), "%s.tags", path);
    if (tags && (rc = parse_tags(tags, sub, t, err)) < 0)
        return rc;
    return 0;
}

int asb_bench_suite_parse(const char *text, size_t len, asb_bench_suite_t *s, asb_error_t *err)
{
    static const char *const keys[] = {"format", "name", "description", "tasks", NULL};
    memset(s, 0, sizeof(*s));
    int brc = asb_bench_json_bounded(text, len, "$", err);
    if (brc < 0)
        return brc;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        /* One object a line, the first of them a HumanEval problem: the wrong --format. */
        bool jsonl = je.line > 1 && memmem(text, len, "\"task_id\"", 9) &&
                     memmem(text, len, "\"prompt\"", 8);
        return asb_err(
            err, -EINVAL, "not valid JSON at line %d column %d: %s%s", je.line, je.column, je.text,
            jsonl ? " (one JSON object a line: a HumanEval file? use --format humaneval)" : "");
    }
    int rc = 0;
    char *format = NULL;
    if (!json_is_object(root)) {
        rc = asb_err(err, -EINVAL, "$: expected an object");
        goto out;
    }
    if ((rc = only_keys(root, "$", keys, err)) < 0 ||
        (rc = get_string(root, "$", "format", true, &format, err)) < 0)
        goto out;
    if (strcmp(format, SUITE_FORMAT) != 0) {
        rc = asb_err(err, -EINVAL, "$.format: expected \"" SUITE_FORMAT "\"");
        goto out;
    }
    if ((rc = get_string(root, "$", "name", true, &s->name, err)) < 0)
        goto out;
    json_t *tasks = json_object_get(root, "tasks");
    if (!json_is_array(tasks) || json_array_size(tasks) == 0 ||
        json_array_size(tasks) > ASB_BENCH_MAX_TASKS) {
        rc =
            asb_err(err, -EINVAL, "$.tasks: expected an array of 1..%d tasks", ASB_BENCH_MAX_TASKS);
        goto out;
    }
    if (!(s->format = strdup("suite")) ||
        !(s->tasks = calloc(json_array_size(tasks), sizeof(*s->tasks)))) {
        rc = asb_err_sys(err, ENOMEM, "suite");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        char path[48];
        snprintf(path, sizeof(path), "$.tasks[%zu]", i);
        s->n_tasks = i + 1;
        if ((rc = parse_task(json_array_get(tasks, i), path, &s->tasks[i], err)) < 0)
            goto out;
    }
    size_t a = 0, b = 0;
    int irc = asb_bench_suite_index(s, &a, &b);
    if (irc == -ENOMEM)
        rc = asb_err_sys(err, ENOMEM, "suite index");
    else if (irc < 0)
        rc = asb_err(err, -EINVAL, "$.tasks[%zu].id: '%s' is also the id of $.tasks[%zu]", b,
                     s->tasks[b].id, a);
out:
    free(format);
    json_decref(root);
    if (rc < 0)
        asb_bench_suite_free(s);
    return rc;
}

int asb_bench_suite_load(const char *path, asb_bench_suite_t *s, asb_error_t *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = asb_bench_read_text(path, SUITE_MAX_BYTES, &text, &len, err);
    if (rc < 0)
        return rc;
    rc = asb_bench_suite_parse(text, len, s, err);
    free(text);
    if (rc < 0)
        return asb_err_wrap(err, "suite %s", path);
    return 0;
}
