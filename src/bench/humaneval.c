/* humaneval.c - import HumanEval problems as suite tasks. */
#include "bench/humaneval.h"
#include "bench/textio.h"
#include "core/error.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define HUMANEVAL_MAX_BYTES (128u * 1024u * 1024u)

/* A string member without NUL bytes, or NULL. */
static const char *field(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
        return NULL;
    return json_string_value(v);
}

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

static int import_problem(json_t *o, size_t line, asb_bench_task_t *t, asb_error_t *err)
{
    const char *id = field(o, "task_id"), *prompt = field(o, "prompt"),
               *sol = field(o, "canonical_solution"), *test = field(o, "test"),
               *entry = field(o, "entry_point");
    const char *names[] = {"task_id", "prompt", "canonical_solution", "test", "entry_point"};
    const char *vals[] = {id, prompt, sol, test, entry};
    for (size_t i = 0; i < 5; i++)
        if (!vals[i])
            return asb_err(err, -EINVAL, "line %zu: %s: expected a string", line, names[i]);
    /* As the suite format: an empty prompt or test is a broken problem, not a task every
     * candidate fails (QA finding). */
    for (size_t i = 1; i < 4; i += 2)
        if (vals[i][strspn(vals[i], " \t\r\n")] == '\0')
            return asb_err(err, -EINVAL, "line %zu: %s: expected a non-empty string", line,
                           names[i]);
    const char *why;
    if (!asb_bench_valid_task_id(id, &why))
        return asb_err(err, -EINVAL, "line %zu: task_id '%.200s' %s", line, id, why);
    if (!asb_bench_valid_entry_point(entry, &why))
        return asb_err(err, -EINVAL, "line %zu: entry_point '%.200s' %s", line, entry, why);
    char *ref = concat(prompt, sol);
    if (!(t->id = strdup(id)) || !(t->prompt = strdup(prompt)) ||
        !(t->entry_file = strdup(ASB_HUMANEVAL_ENTRY_FILE)) || !(t->entry_point = strdup(entry)) ||
        !(t->oracle_setup = strdup(prompt)) || !(t->oracle_test = strdup(test)) ||
        !(t->difficulty = strdup("unknown")) || !(t->tags[0] = strdup("humaneval")) || !ref) {
        free(ref);
        return asb_err_sys(err, ENOMEM, "line %zu", line);
    }
    t->n_tags = 1;
    int rc = asb_bench_files_add(&t->reference, ASB_HUMANEVAL_ENTRY_FILE, ref, strlen(ref), err);
    free(ref);
    return rc < 0 ? asb_err_wrap(err, "line %zu: reference", line) : 0;
}

int asb_humaneval_parse(char *text, asb_bench_suite_t *s, asb_error_t *err)
{
    memset(s, 0, sizeof(*s));
    if (!(s->name = strdup("humaneval")) || !(s->format = strdup("humaneval")))
        goto nomem;
    char *cur = text, *l;
    size_t line = 0, alloc = 0;
    int rc = 0;
    while ((l = asb_bench_next_line(&cur)) != NULL) {
        line++;
        if (strspn(l, " \t") == strlen(l))
            continue;
        if (s->n_tasks == ASB_BENCH_MAX_TASKS) {
            rc = asb_err(err, -E2BIG, "more than %d problems", ASB_BENCH_MAX_TASKS);
            break;
        }
        char where[48];
        snprintf(where, sizeof(where), "line %zu", line);
        if ((rc = asb_bench_json_bounded(l, strlen(l), where, err)) < 0)
            break;
        json_error_t je;
        json_t *o = json_loads(l, JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(o)) {
            json_decref(o);
            rc = asb_err(err, -EINVAL, "line %zu: expected a JSON object (%s)", line,
                         o ? "not an object" : je.text);
            break;
        }
        if (s->n_tasks == alloc) {
            size_t na = alloc ? alloc * 2 : 64;
            asb_bench_task_t *nt = realloc(s->tasks, na * sizeof(*nt));
            if (!nt) {
                json_decref(o);
                goto nomem;
            }
            memset(nt + alloc, 0, (na - alloc) * sizeof(*nt));
            s->tasks = nt;
            alloc = na;
        }
        rc = import_problem(o, line, &s->tasks[s->n_tasks++], err);
        json_decref(o);
        if (rc < 0)
            break;
    }
    size_t a = 0, b = 0;
    int irc = rc == 0 ? asb_bench_suite_index(s, &a, &b) : 0;
    if (irc == -ENOMEM)
        rc = asb_err_sys(err, ENOMEM, "humaneval index");
    else if (irc < 0)
        rc = asb_err(err, -EINVAL, "task_id '%s' appears twice (problems %zu and %zu)",
                     s->tasks[b].id, a + 1, b + 1);
    if (rc == 0 && s->n_tasks == 0)
        rc = asb_err(err, -EINVAL, "no problems");
    if (rc < 0)
        asb_bench_suite_free(s);
    return rc;
nomem:
    asb_bench_suite_free(s);
    return asb_err_sys(err, ENOMEM, "humaneval");
}

int asb_humaneval_load(const char *path, asb_bench_suite_t *s, asb_error_t *err)
{
    char *text;
    size_t len;
    int rc = asb_bench_read_text(path, HUMANEVAL_MAX_BYTES, &text, &len, err);
    if (rc < 0)
        return rc;
    rc = asb_humaneval_parse(text, s, err);
    free(text);
    return rc < 0 ? asb_err_wrap(err, "humaneval %s", path) : 0;
}
