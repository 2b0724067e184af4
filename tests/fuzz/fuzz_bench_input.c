/* fuzz_bench_input - the bench harness's readers of hostile files: a suite document, a HumanEval
 * JSONL (plain or gzip, inflated member by member), and a submission (.json map or .jsonl
 * samples), which is written by whoever wrote the candidates. The first byte picks the reader,
 * the rest is the file. Nothing may read out of bounds or leak, and what is accepted keeps the
 * invariants the grader relies on: valid task ids and entry points, one submission slot per
 * task, files only for known tasks. */
#define FUZZ_TARGET "fuzz_bench_input"
#include "bench/humaneval.h"
#include "bench/submission.h"
#include "bench/suite.h"
#include "bench/textio.h"
#include "fuzz_must.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A suite of two tasks, for the submission readers. */
static const char SUITE[] =
    "{\"format\":\"agent-sandbox.bench-suite/1\",\"name\":\"fz\",\"tasks\":["
    "{\"id\":\"t/one\",\"prompt\":\"p\",\"entry_file\":\"solution.py\",\"entry_point\":\"f\","
    "\"reference\":{\"solution.py\":\"def f():\\n    return 1\\n\"},"
    "\"oracle\":{\"kind\":\"python_check\",\"test\":\"def check(c):\\n    assert c() == 1\\n\"}},"
    "{\"id\":\"t/two\",\"prompt\":\"p\",\"entry_file\":\"solution.py\",\"entry_point\":\"g\","
    "\"reference\":{\"solution.py\":\"def g():\\n    return 2\\n\"},"
    "\"oracle\":{\"kind\":\"python_check\",\"test\":\"def check(c):\\n    assert c() == 2\\n\"}}]}";

static char g_dir[64];

/* The input files live in a directory of their own on tmpfs, removed when the fuzzer exits. */
static void remove_dir(void)
{
    static const char *const names[] = {"he.jsonl.gz", "text", "sub.json", "sub.jsonl"};
    char path[128];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", g_dir, names[i]);
        unlink(path);
    }
    rmdir(g_dir);
}

static void put(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    must(fd >= 0, "open the input file");
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        must(w > 0, "write the input file");
        off += (size_t)w;
    }
    close(fd);
}

static void check_suite(const asb_bench_suite_t *s)
{
    must(s->n_tasks > 0 && s->tasks, "an accepted suite has tasks");
    for (size_t i = 0; i < s->n_tasks; i++) {
        const char *why;
        must(asb_bench_valid_task_id(s->tasks[i].id, &why), "task ids are valid");
        must(asb_bench_valid_entry_point(s->tasks[i].entry_point, &why), "entry points are valid");
        must(s->tasks[i].entry_file && s->tasks[i].entry_file[0], "an entry file is named");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof(g_dir), "/dev/shm/fuzz-bench-XXXXXX");
        must(mkdtemp(g_dir) != NULL, "mkdtemp");
        atexit(remove_dir);
    }
    if (size < 1)
        return 0;
    unsigned pick = data[0] % 5;
    data++, size--;
    asb_error_t err;
    char path[128];
    if (pick == 0) { /* a suite document */
        asb_bench_suite_t s;
        if (asb_bench_suite_parse((const char *)data, size, &s, &err) == 0) {
            check_suite(&s);
            asb_bench_suite_free(&s);
        }
        return 0;
    }
    if (pick == 1) { /* HumanEval, plain or gzip */
        snprintf(path, sizeof(path), "%s/he.jsonl.gz", g_dir);
        put(path, data, size);
        asb_bench_suite_t s;
        if (asb_humaneval_load(path, &s, &err) == 0) {
            check_suite(&s);
            asb_bench_suite_free(&s);
        }
        return 0;
    }
    if (pick == 2) { /* the text reader alone: gzip members, NULs, the cap */
        snprintf(path, sizeof(path), "%s/text", g_dir);
        put(path, data, size);
        char *text = NULL;
        size_t len = 0;
        if (asb_bench_read_text(path, 1 << 16, &text, &len, &err) == 0) {
            must(len <= (1 << 16), "never more than the cap");
            must(strlen(text) == len, "no NUL inside, one at the end");
            free(text);
        }
        return 0;
    }
    /* A submission against the fixed suite. */
    asb_bench_suite_t suite;
    must(asb_bench_suite_parse(SUITE, sizeof(SUITE) - 1, &suite, &err) == 0, "the fixed suite");
    snprintf(path, sizeof(path), "%s/sub.%s", g_dir, pick == 3 ? "json" : "jsonl");
    put(path, data, size);
    asb_bench_submission_t sub;
    if (asb_bench_submission_load(&suite, path, &sub, &err) == 0) {
        must(sub.n_tasks == suite.n_tasks, "one slot per task");
        must(sub.n_given <= sub.n_tasks, "no more given than tasks");
        for (size_t i = 0; i < sub.n_tasks; i++)
            for (size_t k = 0; k < sub.per_task[i].n; k++)
                must(sub.per_task[i].files[k].name && sub.per_task[i].files[k].name[0],
                     "every file has a name");
        asb_bench_submission_free(&sub);
    }
    asb_bench_suite_free(&suite);
    return 0;
}
