/* suite.h - a bench suite: tasks with a prompt, the candidate's files and entry point, a reference
 * solution, a held-out oracle, limits and tags. Loaded from the suite JSON format (docs/BENCH.md)
 * or imported from HumanEval (humaneval.h); validated so every error names the bad field. */
#ifndef ASB_BENCH_SUITE_H
#define ASB_BENCH_SUITE_H

#include "agent_sandbox.h"

#include <stddef.h>

#define ASB_BENCH_MAX_TASKS 50000
#define ASB_BENCH_MAX_FILES 16 /* candidate files per task */
#define ASB_BENCH_MAX_TAGS 16
#define ASB_BENCH_MAX_ID_LEN 200
#define ASB_BENCH_MAX_SOURCE (1u << 20) /* bytes per candidate file, setup or test */

/* One named file of a candidate (or of the reference). */
typedef struct asb_bench_file {
    char *name; /* a plain file name */
    char *content;
    size_t len;
} asb_bench_file_t;

typedef struct asb_bench_files {
    asb_bench_file_t *files;
    size_t n;
} asb_bench_files_t;

typedef struct asb_bench_task {
    char *id;
    char *prompt;
    char *entry_file;  /* the module the oracle imports, e.g. "solution.py" */
    char *entry_point; /* the function the oracle calls */
    asb_bench_files_t reference;
    /* Oracle, kind "python_check": `setup` (trusted code, e.g. HumanEval's prompt with its helper
     * functions) and `test` defining check(candidate). Never shown to the candidate. */
    char *oracle_setup;
    char *oracle_test;
    double timeout_s;      /* per phase; 0 = the profile's default */
    uint64_t memory_bytes; /* 0 = the profile's default */
    char *difficulty;      /* "unknown" when not given */
    char *tags[ASB_BENCH_MAX_TAGS];
    size_t n_tags;
} asb_bench_task_t;

typedef struct asb_bench_suite {
    char *name;
    char *format; /* "suite" or "humaneval" */
    asb_bench_task_t *tasks;
    size_t n_tasks;
    size_t *by_id; /* task indexes sorted by id (asb_bench_suite_index), NULL before */
} asb_bench_suite_t;

/* Sort the ids for lookups and find a repeated one: 0, or -EEXIST with *first < *second the
 * indexes of two tasks with the same id, or -ENOMEM. O(n log n): comparing each id with every
 * earlier one took 36 s for 50,000 tasks with long shared prefixes (red-team finding). */
int asb_bench_suite_index(asb_bench_suite_t *s, size_t *first, size_t *second);

/* Parse and validate a suite document. On error err says which field is bad, as a JSON path:
 * "tasks[2].oracle.test: expected a non-empty string". */
int asb_bench_suite_parse(const char *json, size_t len, asb_bench_suite_t *suite, asb_error_t *err);

/* Read a suite file (format "suite") from disk. */
int asb_bench_suite_load(const char *path, asb_bench_suite_t *suite, asb_error_t *err);

void asb_bench_suite_free(asb_bench_suite_t *suite);

/* Index of the task with this id, or -1. */
long asb_bench_suite_find(const asb_bench_suite_t *suite, const char *id);

/* Helpers shared by the importers. */
int asb_bench_files_add(asb_bench_files_t *set, const char *name, const char *content, size_t len,
                        asb_error_t *err);
void asb_bench_files_free(asb_bench_files_t *set);
void asb_bench_task_free(asb_bench_task_t *task);

/* A task id: 1..ASB_BENCH_MAX_ID_LEN bytes of [A-Za-z0-9._/-], no empty, "." or ".." segment
 * (ids become directory paths of submissions). */
bool asb_bench_valid_task_id(const char *id, const char **why);

/* An entry point: an ASCII Python identifier of at most 200 bytes that is not a keyword, not a
 * dunder name (__builtins__ would replace the oracle's builtins) and not "check", the oracle's
 * own function, which the grader calls and would otherwise overwrite with the candidate
 * (red-team finding: such a suite failed its own reference). */
bool asb_bench_valid_entry_point(const char *name, const char **why);

#endif
