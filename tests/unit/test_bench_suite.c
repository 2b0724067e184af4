/* test_bench_suite.c - suite validation (errors name the field), HumanEval import from gzip,
 * submissions from JSON, JSONL and directories, and the aggregate arithmetic. No sandboxes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/aggregate.h"
#include "bench/bench.h"
#include "bench/grade.h"
#include "bench/humaneval.h"
#include "bench/submission.h"
#include "bench/suite.h"
#include "bench/textio.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define TASK_OK                                                                                    \
    "{\"id\":\"t/one\",\"prompt\":\"p\",\"entry_file\":\"solution.py\",\"entry_point\":\"f\","     \
    "\"reference\":{\"solution.py\":\"def f():\\n    return 1\\n\"},"                              \
    "\"oracle\":{\"kind\":\"python_check\",\"test\":\"def check(c):\\n    assert c() == 1\\n\"}"
#define SUITE(tasks)                                                                               \
    "{\"format\":\"agent-sandbox.bench-suite/1\",\"name\":\"s\",\"tasks\":[" tasks "]}"

static void expect_error(const char *json, const char *needle)
{
    asb_bench_suite_t s;
    asb_error_t err;
    int rc = asb_bench_suite_parse(json, strlen(json), &s, &err);
    if (rc == 0) {
        asb_bench_suite_free(&s);
        fail_msg("accepted: %s", json);
    }
    if (!strstr(err.message, needle))
        fail_msg("error '%s' does not name '%s'", err.message, needle);
}

static void test_valid_suite_parses(void **state)
{
    (void)state;
    const char *j = SUITE(TASK_OK ",\"tags\":[\"a\",\"b\"],\"difficulty\":\"easy\","
                                  "\"limits\":{\"timeout_s\":2.5,\"memory_mb\":64}}");
    asb_bench_suite_t s;
    asb_error_t err;
    assert_int_equal(asb_bench_suite_parse(j, strlen(j), &s, &err), 0);
    assert_int_equal(s.n_tasks, 1);
    assert_string_equal(s.tasks[0].id, "t/one");
    assert_string_equal(s.tasks[0].difficulty, "easy");
    assert_int_equal(s.tasks[0].n_tags, 2);
    assert_true(s.tasks[0].timeout_s == 2.5);
    assert_int_equal(s.tasks[0].memory_bytes, 64u << 20);
    assert_string_equal(s.tasks[0].oracle_setup, "");
    asb_bench_suite_free(&s);
}

static void test_errors_name_the_field(void **state)
{
    (void)state;
    expect_error("[]", "$: expected an object");
    /* A HumanEval JSONL file given as a suite names the flag it needs (QA finding). */
    expect_error("{\"task_id\":\"HumanEval/0\",\"prompt\":\"x\"}\n"
                 "{\"task_id\":\"HumanEval/1\",\"prompt\":\"y\"}\n",
                 "use --format humaneval");
    expect_error("{\"format\":\"x\",\"name\":\"s\",\"tasks\":[]}", "$.format");
    expect_error("{\"format\":\"agent-sandbox.bench-suite/1\",\"name\":\"s\",\"tasks\":[]}",
                 "$.tasks");
    expect_error(SUITE(TASK_OK ",\"bogus\":1}"), "$.tasks[0].bogus: unknown field");
    expect_error(SUITE(TASK_OK ",\"tags\":[\"a\",\"b\",\"a\"]}"), "$.tasks[0].tags[2]: tag 'a'");
    expect_error(SUITE(TASK_OK "}," TASK_OK "}"), "$.tasks[1].id: 't/one' is also");
    expect_error(SUITE("{\"id\":\"../x\"}"), "$.tasks[0].id");
    expect_error(SUITE(TASK_OK ",\"limits\":{\"timeout_s\":-1}}"), "$.tasks[0].limits.timeout_s");
    expect_error(SUITE(TASK_OK ",\"limits\":{\"memory_mb\":1}}"), "$.tasks[0].limits.memory_mb");
    expect_error(SUITE(TASK_OK ",\"tags\":[1]}"), "$.tasks[0].tags[0]");
    expect_error(SUITE(TASK_OK ",\"language\":\"rust\"}"), "$.tasks[0].language");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"solution.py\","
                       "\"entry_point\":\"f\",\"reference\":{\"other.py\":\"\"},"
                       "\"oracle\":{\"kind\":\"python_check\",\"test\":\"x\"}}"),
                 "$.tasks[0].reference: has no file named like entry_file");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"solution.py\","
                       "\"entry_point\":\"f\",\"reference\":{\"solution.py\":\"\"},"
                       "\"oracle\":{\"kind\":\"shell\",\"test\":\"x\"}}"),
                 "$.tasks[0].oracle.kind");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"solution.py\","
                       "\"entry_point\":\"f\",\"reference\":{\"solution.py\":\"\"},"
                       "\"oracle\":{\"kind\":\"python_check\"}}"),
                 "$.tasks[0].oracle.test: missing");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"../x.py\","
                       "\"entry_point\":\"f\"}"),
                 "$.tasks[0].entry_file");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"-c.py\","
                       "\"entry_point\":\"f\"}"),
                 "$.tasks[0].entry_file: '-c.py' begins with '-'");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"s.py\","
                       "\"entry_point\":\"f()\"}"),
                 "$.tasks[0].entry_point");
    /* check is the oracle's own function, dunders are Python's, keywords no function's name
     * (red-team finding: entry_point check failed the suite's own reference) */
    const char *reserved[] = {"check", "__builtins__", "lambda"};
    for (size_t i = 0; i < 3; i++) {
        char suite[512];
        snprintf(suite, sizeof(suite),
                 SUITE("{\"id\":\"a\",\"prompt\":\"p\",\"entry_file\":\"s.py\","
                       "\"entry_point\":\"%s\"}"),
                 reserved[i]);
        expect_error(suite, "$.tasks[0].entry_point");
    }
    expect_error(SUITE(TASK_OK ",\"limits\":{\"timeout_s\":1e-300}}"),
                 "$.tasks[0].limits.timeout_s");
    expect_error(SUITE("{\"id\":\"a\",\"prompt\":\"\"}"), "$.tasks[0].prompt");
}

static void test_task_ids(void **state)
{
    (void)state;
    const char *why;
    assert_true(asb_bench_valid_task_id("HumanEval/0", &why));
    assert_false(asb_bench_valid_task_id("/abs", &why));
    assert_false(asb_bench_valid_task_id("a/../b", &why));
    assert_false(asb_bench_valid_task_id("a//b", &why));
    assert_false(asb_bench_valid_task_id("a b", &why));
    assert_false(asb_bench_valid_task_id("", &why));
}

/* Repeated ids are found by sorting, lookups by binary search (the pairwise check took 36 s for
 * 50,000 ids with long shared prefixes: red-team finding). */
static void test_duplicate_ids_and_lookup(void **state)
{
    (void)state;
#define TASK_ID(id)                                                                                \
    "{\"id\":\"" id "\",\"prompt\":\"p\",\"entry_file\":\"solution.py\",\"entry_point\":\"f\","    \
    "\"reference\":{\"solution.py\":\"def f():\\n    return 1\\n\"},"                              \
    "\"oracle\":{\"kind\":\"python_check\",\"test\":\"def check(c):\\n    assert c() == 1\\n\"}}"
    expect_error(SUITE(TASK_ID("b") "," TASK_ID("a") "," TASK_ID("c") "," TASK_ID("a")),
                 "$.tasks[3].id: 'a' is also the id of $.tasks[1]");
    const char *j = SUITE(TASK_ID("b") "," TASK_ID("a") "," TASK_ID("c/d"));
    asb_bench_suite_t s;
    asb_error_t err;
    assert_int_equal(asb_bench_suite_parse(j, strlen(j), &s, &err), 0);
    assert_int_equal(asb_bench_suite_find(&s, "b"), 0);
    assert_int_equal(asb_bench_suite_find(&s, "a"), 1);
    assert_int_equal(asb_bench_suite_find(&s, "c/d"), 2);
    assert_int_equal(asb_bench_suite_find(&s, "c"), -1);
    assert_int_equal(asb_bench_suite_find(&s, "zz"), -1);
    asb_bench_suite_free(&s);
#undef TASK_ID
}

static char g_dir[64];

static void write_file(const char *path, const char *text, bool gz)
{
    if (gz) {
        gzFile f = gzopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
        gzclose(f);
    } else {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
    }
}

#define HE_LINE(id, entry)                                                                         \
    "{\"task_id\":\"" id "\",\"prompt\":\"def " entry                                              \
    "(x):\\n    \\\"\\\"\\\"doc\\\"\\\"\\\"\\n\","                                                 \
    "\"canonical_solution\":\"    return x\\n\",\"test\":\"def check(c):\\n    assert c(1) == "    \
    "1\\n\","                                                                                      \
    "\"entry_point\":\"" entry "\"}\n"

static void test_humaneval_gzip_import(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/he.jsonl.gz", g_dir);
    write_file(path, HE_LINE("HumanEval/0", "ident") "\n" HE_LINE("HumanEval/1", "same"), true);
    asb_bench_suite_t s;
    asb_error_t err;
    assert_int_equal(asb_humaneval_load(path, &s, &err), 0);
    assert_int_equal(s.n_tasks, 2);
    assert_string_equal(s.format, "humaneval");
    assert_string_equal(s.tasks[1].entry_point, "same");
    assert_string_equal(s.tasks[0].reference.files[0].name, "solution.py");
    assert_non_null(strstr(s.tasks[0].reference.files[0].content, "\"\"\"doc\"\"\"\n    return x"));
    assert_string_equal(s.tasks[0].oracle_setup, s.tasks[0].prompt);

    /* Samples: prompt + completion; unknown and duplicate ids are errors naming the line. */
    snprintf(path, sizeof(path), "%s/samples.jsonl", g_dir);
    write_file(path, "{\"task_id\":\"HumanEval/1\",\"completion\":\"    return 2\\n\"}\n", false);
    asb_bench_submission_t sub;
    assert_int_equal(asb_bench_submission_load(&s, path, &sub, &err), 0);
    assert_int_equal(sub.n_given, 1);
    assert_int_equal(sub.per_task[0].n, 0);
    assert_non_null(strstr(sub.per_task[1].files[0].content, "doc\"\"\"\n    return 2"));
    asb_bench_submission_free(&sub);
    write_file(path,
               "{\"task_id\":\"HumanEval/1\",\"completion\":\"\"}\n"
               "{\"task_id\":\"HumanEval/1\",\"completion\":\"\"}\n",
               false);
    assert_true(asb_bench_submission_load(&s, path, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "line 2"));
    write_file(path, "{\"task_id\":\"HumanEval/9\",\"completion\":\"\"}\n", false);
    assert_true(asb_bench_submission_load(&s, path, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "not in the suite"));
    /* A completion with an escaped NUL is graded (it fails as invalid source), whole; a task id
     * with one is refused (it would read as the id before the NUL); a line that is not JSON
     * says why (QA findings). */
    write_file(path, "{\"task_id\":\"HumanEval/1\",\"completion\":\"    x\\u0000y\\n\"}\n", false);
    assert_int_equal(asb_bench_submission_load(&s, path, &sub, &err), 0);
    const asb_bench_file_t *nul = &sub.per_task[1].files[0];
    assert_non_null(memchr(nul->content, '\0', nul->len));
    assert_int_equal(nul->content[nul->len - 2], 'y');
    asb_bench_submission_free(&sub);
    write_file(path, "{\"task_id\":\"HumanEval/1\\u0000x\",\"completion\":\"\"}\n", false);
    assert_true(asb_bench_submission_load(&s, path, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "task_id: contains a NUL byte"));
    write_file(path, "{\"task_id\": oops}\n", false);
    assert_true(asb_bench_submission_load(&s, path, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "line 1: not valid JSON ("));
    asb_bench_suite_free(&s);

    /* A gzip file cut short (its trailer gone) is an error, not the tasks that survived. */
    snprintf(path, sizeof(path), "%s/he.jsonl.gz", g_dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size - 8), 0);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "cut short"));

    /* Plain text after the gzip data is refused, not dropped (red-team finding: 10 compressed
     * tasks with 10 appended in plain text read as 10); a second gzip member is read. */
    snprintf(path, sizeof(path), "%s/two.jsonl.gz", g_dir);
    write_file(path, HE_LINE("HumanEval/0", "a"), true);
    FILE *app = fopen(path, "ae");
    assert_non_null(app);
    fputs(HE_LINE("HumanEval/1", "b"), app);
    fclose(app);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "after the end of the gzip data"));
    char second[128];
    snprintf(second, sizeof(second), "%s/second.gz", g_dir);
    write_file(second, HE_LINE("HumanEval/1", "b"), true);
    write_file(path, HE_LINE("HumanEval/0", "a"), true);
    char *text = NULL;
    size_t tlen = 0;
    assert_int_equal(asb_bench_read_text(second, 1 << 20, &text, &tlen, &err), 0);
    free(text);
    FILE *a2 = fopen(path, "ae"), *b2 = fopen(second, "re");
    assert_non_null(a2);
    assert_non_null(b2);
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof(chunk), b2)) > 0)
        assert_int_equal(fwrite(chunk, 1, got, a2), got);
    fclose(a2);
    fclose(b2);
    assert_int_equal(asb_humaneval_load(path, &s, &err), 0);
    assert_int_equal(s.n_tasks, 2);
    asb_bench_suite_free(&s);

    snprintf(path, sizeof(path), "%s/bad.jsonl", g_dir);
    write_file(path, HE_LINE("HumanEval/0", "not an identifier!"), false);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "entry_point"));
    write_file(path, HE_LINE("HumanEval/0", "a") "{\"task_id\":\"x\"}\n", false);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "line 2: prompt"));
    /* An empty prompt or test is refused, as in the suite format (QA finding). */
    write_file(path,
               "{\"task_id\":\"HumanEval/0\",\"prompt\":\"def a(x):\\n\",\"canonical_solution\":"
               "\"    return x\\n\",\"test\":\" \\n\",\"entry_point\":\"a\"}\n",
               false);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "line 1: test: expected a non-empty string"));
    write_file(path,
               "{\"task_id\":\"HumanEval/0\",\"prompt\":\"\",\"canonical_solution\":"
               "\"def a(x):\\n    return x\\n\",\"test\":\"def check(c):\\n    pass\\n\","
               "\"entry_point\":\"a\"}\n",
               false);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "line 1: prompt: expected a non-empty string"));
    /* The same task_id twice is found (by sorting) and named with both problems. */
    snprintf(path, sizeof(path), "%s/dup.jsonl", g_dir);
    write_file(path,
               HE_LINE("HumanEval/0", "ident") HE_LINE("HumanEval/1", "same")
                   HE_LINE("HumanEval/0", "again"),
               false);
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    assert_non_null(strstr(err.message, "task_id 'HumanEval/0' appears twice (problems 1 and 3)"));
}

/* Text inputs: a NUL byte is refused (line readers stopped there and dropped the rest: a suite of
 * many tasks read as two), and a FIFO is refused at once instead of waiting for a writer. */
/* A void lane's reason: the interpreter's first error line, not its last line (QA finding: the
 * reason read "<no Python frame>"). */
static void test_probe_error_line(void **state)
{
    (void)state;
    static const char err[] = "Python path configuration:\n  isolated = 1\n"
                              "Fatal Python error: init_fs_encoding: failed\n"
                              "ModuleNotFoundError: No module named 'encodings'\n"
                              "\n  <no Python frame>\n";
    char *line = asb_bench_error_line((const unsigned char *)err, sizeof(err) - 1);
    assert_non_null(line);
    assert_string_equal(line, "Fatal Python error: init_fs_encoding: failed");
    free(line);
    static const char quiet[] = "nothing here\n";
    assert_null(asb_bench_error_line((const unsigned char *)quiet, sizeof(quiet) - 1));
    assert_null(asb_bench_error_line(NULL, 0));
}

static void test_text_inputs_nul_and_fifo(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/nul.jsonl", g_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    static const char body[] = "{\"a\":1}\n\0{\"b\":2}\n";
    assert_int_equal(write(fd, body, sizeof(body) - 1), (ssize_t)sizeof(body) - 1);
    close(fd);
    char *text = NULL;
    size_t len = 0;
    asb_error_t err;
    assert_true(asb_bench_read_text(path, 1 << 20, &text, &len, &err) < 0);
    assert_non_null(strstr(err.message, "NUL byte at offset 8"));
    asb_bench_suite_t s;
    assert_true(asb_humaneval_load(path, &s, &err) < 0);
    snprintf(path, sizeof(path), "%s/fifo", g_dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10); /* a hang fails the test instead of the whole run */
    assert_true(asb_bench_read_text(path, 1 << 20, &text, &len, &err) < 0);
    alarm(0);
    assert_non_null(strstr(err.message, "not a regular file"));
    unlink(path);
}

static void test_submission_json_and_dir(void **state)
{
    (void)state;
    const char *j = SUITE(TASK_OK "}");
    asb_bench_suite_t s;
    asb_error_t err;
    assert_int_equal(asb_bench_suite_parse(j, strlen(j), &s, &err), 0);
    char path[160];
    snprintf(path, sizeof(path), "%s/sub.json", g_dir);
    write_file(path, "{\"t/one\":{\"solution.py\":\"A\",\"util.py\":\"B\"}}", false);
    asb_bench_submission_t sub;
    assert_int_equal(asb_bench_submission_load(&s, path, &sub, &err), 0);
    assert_int_equal(sub.per_task[0].n, 2);
    asb_bench_submission_free(&sub);
    write_file(path, "{\"t/one\":\"SRC\"}", false);
    assert_int_equal(asb_bench_submission_load(&s, path, &sub, &err), 0);
    assert_string_equal(sub.per_task[0].files[0].name, "solution.py");
    assert_string_equal(sub.per_task[0].files[0].content, "SRC");
    asb_bench_submission_free(&sub);
    /* A samples file completes HumanEval prompts; against a suite (prose prompts) it is refused
     * instead of every candidate failing as prose + code (QA finding). */
    char samples[160];
    snprintf(samples, sizeof(samples), "%s/sub.jsonl", g_dir);
    write_file(samples, "{\"task_id\":\"t/one\",\"completion\":\"SRC\"}\n", false);
    assert_true(asb_bench_submission_load(&s, samples, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "completes HumanEval prompts"));
    write_file(path, "{\"t/one\":{\"../x\":\"A\"}}", false);
    assert_true(asb_bench_submission_load(&s, path, &sub, &err) < 0);

    /* Directory: DIR/t/one/solution.py; a symlink inside is refused, never followed. */
    char d[160];
    snprintf(d, sizeof(d), "%s/subdir", g_dir);
    mkdir(d, 0700);
    snprintf(path, sizeof(path), "%s/t", d);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/t/one", d);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/t/one/solution.py", d);
    write_file(path, "def f():\n    return 1\n", false);
    assert_int_equal(asb_bench_submission_load(&s, d, &sub, &err), 0);
    assert_int_equal(sub.n_given, 1);
    assert_string_equal(sub.per_task[0].files[0].content, "def f():\n    return 1\n");
    asb_bench_submission_free(&sub);
    snprintf(path, sizeof(path), "%s/t/one/leak.py", d);
    assert_int_equal(symlink("/etc/hostname", path), 0);
    assert_true(asb_bench_submission_load(&s, d, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "a symlink"));
    unlink(path);
    /* A FIFO is named for what it is, at once (its type is read before anything is opened). */
    snprintf(path, sizeof(path), "%s/t/one/pipe", d);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    assert_true(asb_bench_submission_load(&s, d, &sub, &err) < 0);
    alarm(0);
    assert_non_null(strstr(err.message, "t/one/pipe: a FIFO"));
    unlink(path);
    /* A directory where a file belongs is an error, not a silent "no submission" (QA finding);
     * one that holds another task's files would be skipped (nested ids). */
    snprintf(path, sizeof(path), "%s/t/one/helper.py", d);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_true(asb_bench_submission_load(&s, d, &sub, &err) < 0);
    assert_non_null(strstr(err.message, "t/one/helper.py: a directory"));
    rmdir(path);
    assert_int_equal(asb_bench_submission_load(&s, d, &sub, &err), 0);
    asb_bench_submission_free(&sub);
    /* An id the suite does not have is an error, as in the .json and .jsonl forms: t/01 (a typo)
     * was skipped in silence and t/one scored "no submission" (QA finding). So is a file beside
     * the task directories, and one on the way to them. */
    const char *strays[] = {"t/01", "t/one2", "u", "t/one/../notes.txt", "README"};
    for (size_t i = 0; i < sizeof(strays) / sizeof(strays[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", d, strays[i]);
        bool dir = i < 3;
        if (dir)
            assert_int_equal(mkdir(path, 0700), 0);
        else
            write_file(path, "x", false);
        assert_true(asb_bench_submission_load(&s, d, &sub, &err) < 0);
        char want[64];
        snprintf(want, sizeof(want), "%s: not a task of the suite",
                 i == 3 ? "t/notes.txt" : strays[i]);
        assert_non_null(strstr(err.message, want));
        assert_int_equal(dir ? rmdir(path) : unlink(path), 0);
    }
    assert_int_equal(asb_bench_submission_load(&s, d, &sub, &err), 0);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&s);
}

/* Documents whose values would cost jansson far more than their text are refused before parsing
 * (QA finding: "0," takes 2 bytes of text and 50-100 of memory); strings do not count. */
static void test_json_value_budget(void **state)
{
    (void)state;
    size_t n = ASB_BENCH_MAX_JSON_VALUES + 8;
    char *big = malloc(2 * n + 16);
    assert_non_null(big);
    size_t k = (size_t)sprintf(big, "{\"x\":[");
    for (size_t i = 0; i < n; i++) {
        big[k++] = '0';
        big[k++] = ',';
    }
    big[k - 1] = ']';
    big[k++] = '}';
    big[k] = '\0';
    asb_error_t err;
    assert_true(asb_bench_json_bounded(big, k, "$", &err) < 0);
    assert_non_null(strstr(err.message, "$: more than"));
    asb_bench_suite_t s;
    assert_true(asb_bench_suite_parse(big, k, &s, &err) < 0);
    assert_non_null(strstr(err.message, "JSON values"));
    /* The same characters inside a string (with escaped quotes) are text, not values. */
    k = (size_t)sprintf(big, "{\"x\":\"\\\"");
    for (size_t i = 0; i < n; i++) {
        big[k++] = ',';
        big[k++] = '[';
    }
    k += (size_t)sprintf(big + k, "\"}");
    assert_int_equal(asb_bench_json_bounded(big, k, "$", &err), 0);
    free(big);
    /* One string longer than any field may be (jansson holds it three times while reading). */
    size_t sl = ASB_BENCH_MAX_JSON_STRING + 16;
    char *ls = malloc(sl + 16);
    assert_non_null(ls);
    k = (size_t)sprintf(ls, "{\"x\":\"");
    memset(ls + k, 'a', sl);
    k += sl;
    k += (size_t)sprintf(ls + k, "\"}");
    assert_true(asb_bench_json_bounded(ls, k, "line 1", &err) < 0);
    assert_non_null(strstr(err.message, "line 1: a string longer than"));
    ls[ASB_BENCH_MAX_JSON_STRING - 16] = '"'; /* the same text, its string ends in time */
    ls[ASB_BENCH_MAX_JSON_STRING - 15] = '}';
    assert_int_equal(asb_bench_json_bounded(ls, ASB_BENCH_MAX_JSON_STRING - 14, "$", &err), 0);
    /* The same length as a number: bounded too. */
    memset(ls, '1', ASB_BENCH_MAX_JSON_STRING + 8);
    ls[0] = '[';
    assert_true(asb_bench_json_bounded(ls, ASB_BENCH_MAX_JSON_STRING + 8, "$", &err) < 0);
    assert_non_null(strstr(err.message, "a number or word longer than"));
    free(ls);
    const char *ok = "{\"a\":[1,2,{\"b\":\"c,d\"}]}";
    assert_int_equal(asb_bench_json_bounded(ok, strlen(ok), "$", &err), 0);
}

static void test_aggregate_counts_scored_only(void **state)
{
    (void)state;
    const char *j =
        SUITE(TASK_OK ",\"tags\":[\"x\"],\"difficulty\":\"easy\"},"
                      "{\"id\":\"t/two\",\"prompt\":\"p\",\"entry_file\":\"solution.py\","
                      "\"entry_point\":\"f\",\"reference\":{\"solution.py\":\"\"},"
                      "\"oracle\":{\"kind\":\"python_check\",\"test\":\"x\"},"
                      "\"tags\":[\"x\",\"y\"]},"
                      "{\"id\":\"t/three\",\"prompt\":\"p\",\"entry_file\":\"solution.py\","
                      "\"entry_point\":\"f\",\"reference\":{\"solution.py\":\"\"},"
                      "\"oracle\":{\"kind\":\"python_check\",\"test\":\"x\"}}");
    asb_bench_suite_t s;
    asb_error_t err;
    assert_int_equal(asb_bench_suite_parse(j, strlen(j), &s, &err), 0);
    asb_bench_row_t rows[3];
    memset(rows, 0, sizeof(rows));
    rows[0].verdict = ASB_BENCH_PASS;
    rows[0].score = 1;
    rows[1].verdict = ASB_BENCH_FAIL;
    rows[2].verdict = ASB_BENCH_VOID;
    json_t *a = asb_bench_aggregate_json(&s, rows);
    assert_int_equal(json_integer_value(json_object_get(a, "count")), 3);
    assert_int_equal(json_integer_value(json_object_get(a, "scored")), 2);
    assert_int_equal(json_integer_value(json_object_get(a, "void")), 1);
    assert_true(json_real_value(json_object_get(a, "pass_rate")) == 0.5);
    assert_true(json_real_value(json_object_get(a, "mean_score")) == 0.5);
    json_t *x = json_object_get(json_object_get(a, "by_tag"), "x");
    assert_int_equal(json_integer_value(json_object_get(x, "count")), 2);
    json_t *y = json_object_get(json_object_get(a, "by_tag"), "y");
    assert_true(json_real_value(json_object_get(y, "pass_rate")) == 0.0);
    json_t *unk = json_object_get(json_object_get(a, "by_difficulty"), "unknown");
    assert_int_equal(json_integer_value(json_object_get(unk, "void")), 1);
    assert_true(
        json_is_null(json_object_get(json_object_get(json_object_get(a, "by_difficulty"), "easy"),
                                     "mean_score")) == false);
    json_decref(a);
    /* All void: no evidence, not 0%. */
    rows[0].verdict = rows[1].verdict = ASB_BENCH_VOID;
    a = asb_bench_aggregate_json(&s, rows);
    assert_true(json_is_null(json_object_get(a, "pass_rate")));
    json_decref(a);
    asb_bench_suite_free(&s);
}

static void test_honesty_rules(void **state)
{
    (void)state;
    asb_bench_options_t o = {.lane = {.sandbox = "docker"}, .evidence_class = "captured_fixture"};
    asb_bench_report_t rep;
    memset(&rep, 0, sizeof(rep));
    rep.lane_up = true;
    json_t *h = asb_bench_honesty_json(&o, &rep, "hardened");
    json_t *ec = json_object_get(h, "evidence_class");
    assert_string_equal(json_string_value(json_object_get(ec, "enforced")), "live_lane");
    assert_true(json_is_true(json_object_get(ec, "changed")));
    json_decref(h);
    o.lane.sandbox = "native";
    h = asb_bench_honesty_json(&o, &rep, "hardened");
    ec = json_object_get(h, "evidence_class");
    assert_string_equal(json_string_value(json_object_get(ec, "enforced")), "live_lane");
    assert_true(json_is_true(json_object_get(ec, "changed")));
    json_decref(h);
    rep.lane_up = false;
    o.evidence_class = "live_lane";
    h = asb_bench_honesty_json(&o, &rep, "hardened");
    assert_true(json_is_null(json_object_get(json_object_get(h, "evidence_class"), "enforced")));
    json_decref(h);
    assert_false(asb_bench_valid_evidence_class("gold"));
}

/* A candidate whose files cannot be staged (two of one name: the second create fails) is an
 * error row, and nothing of it runs. The phase's result is freed on that path too: it was
 * freed uninitialised (review finding, session 17), which ASan reports in this build. */
static void test_staging_failure_is_an_error_row(void **state)
{
    (void)state;
    char n1[] = "solution.py", n2[] = "solution.py", c[] = "x = 1\n";
    asb_bench_file_t files[2] = {{n1, c, strlen(c)}, {n2, c, strlen(c)}};
    asb_bench_files_t cand = {files, 2};
    char id[] = "t/one", entry[] = "solution.py", point[] = "f", setup[] = "", test[] = "";
    asb_bench_task_t task;
    memset(&task, 0, sizeof(task));
    task.id = id;
    task.entry_file = entry;
    task.entry_point = point;
    task.oracle_setup = setup;
    task.oracle_test = test;
    /* The subprocess lane would run on the host: it never gets that far here. */
    asb_bench_lane_t lane = {.sandbox = "subprocess", .profile = "subprocess"};
    asb_bench_row_t row;
    assert_int_equal(asb_bench_grade_task(&lane, &task, &cand, &row), 0);
    assert_int_equal(row.verdict, ASB_BENCH_ERROR);
    assert_non_null(row.reason);
    assert_non_null(strstr(row.reason, "staging the candidate"));
    assert_false(row.candidate.ran);
    assert_false(row.grader.ran);
    asb_bench_row_free(&row);
}

static int setup(void **state)
{
    (void)state;
    strcpy(g_dir, "/tmp/asb-test-bench-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_suite_parses),
        cmocka_unit_test(test_errors_name_the_field),
        cmocka_unit_test(test_task_ids),
        cmocka_unit_test(test_humaneval_gzip_import),
        cmocka_unit_test(test_probe_error_line),
        cmocka_unit_test(test_text_inputs_nul_and_fifo),
        cmocka_unit_test(test_submission_json_and_dir),
        cmocka_unit_test(test_json_value_budget),
        cmocka_unit_test(test_duplicate_ids_and_lookup),
        cmocka_unit_test(test_aggregate_counts_scored_only),
        cmocka_unit_test(test_honesty_rules),
        cmocka_unit_test(test_staging_failure_is_an_error_row),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
