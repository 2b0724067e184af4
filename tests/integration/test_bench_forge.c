/* test_bench_forge.c - candidates that try to forge a pass, read the oracle, or take the bench
 * down, graded in the native hardened lane. Every attack gets a wrong answer unless it forges;
 * an honest candidate runs beside them and must still pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/aggregate.h"
#include "bench/bench.h"
#include "bench/submission.h"
#include "bench/suite.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define ORACLE                                                                                     \
    "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n"
/* The thief's oracle holds a number that appears nowhere else the candidate can reach. */
#define THIEF_ORACLE "def check(candidate):\n    assert candidate(0, 0) == 731946282\n"

/* Looks for "== <9 digits>" everywhere a candidate could reach the oracle from inside the
 * grader: its stdin, every fd of every process it can see (the grader parent, the supervisor),
 * their memory, command lines and environments, and the files it can list. Returns the number
 * when found, else -1. */
#define THIEF_SEARCH                                                                               \
    "import os, re\n"                                                                              \
    "PAT = re.compile(rb'== (\\d{9})')\n"                                                          \
    "def _scan(data):\n"                                                                           \
    "    m = PAT.search(data or b'')\n"                                                            \
    "    return int(m.group(1)) if m else None\n"                                                  \
    "def _read(path, n=1 << 22):\n"                                                                \
    "    try:\n"                                                                                   \
    "        with open(path, 'rb') as f:\n"                                                        \
    "            return f.read(n)\n"                                                               \
    "    except Exception:\n"                                                                      \
    "        return b''\n"                                                                         \
    "def _mem(pid):\n"                                                                             \
    "    out = b''\n"                                                                              \
    "    try:\n"                                                                                   \
    "        maps = open('/proc/%s/maps' % pid).read().splitlines()\n"                             \
    "        with open('/proc/%s/mem' % pid, 'rb', 0) as m:\n"                                     \
    "            for line in maps:\n"                                                              \
    "                a, b = [int(x, 16) for x in line.split()[0].split('-')]\n"                    \
    "                if 'r' not in line.split()[1] or b - a > (64 << 20):\n"                       \
    "                    continue\n"                                                               \
    "                try:\n"                                                                       \
    "                    m.seek(a); out += m.read(b - a)\n"                                        \
    "                except Exception:\n"                                                          \
    "                    pass\n"                                                                   \
    "    except Exception:\n"                                                                      \
    "        pass\n"                                                                               \
    "    return out\n"                                                                             \
    "def find_oracle():\n"                                                                         \
    "    try:\n"                                                                                   \
    "        v = _scan(os.read(0, 1 << 20))\n"                                                     \
    "        if v: return v\n"                                                                     \
    "    except Exception:\n"                                                                      \
    "        pass\n"                                                                               \
    "    pids = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()]\n"       \
    "    for pid in pids:\n"                                                                       \
    "        for part in ('cmdline', 'environ'):\n"                                                \
    "            v = _scan(_read('/proc/%s/%s' % (pid, part)))\n"                                  \
    "            if v: return v\n"                                                                 \
    "        try:\n"                                                                               \
    "            for fd in os.listdir('/proc/%s/fd' % pid):\n"                                     \
    "                v = _scan(_read('/proc/%s/fd/%s' % (pid, fd)))\n"                             \
    "                if v: return v\n"                                                             \
    "        except Exception:\n"                                                                  \
    "            pass\n"                                                                           \
    "        v = _scan(_mem(pid))\n"                                                               \
    "        if v: return v\n"                                                                     \
    "    for top in ('/workspace', '/tmp', '/dev/shm', os.getcwd()):\n"                            \
    "        for root, dirs, files in os.walk(top):\n"                                             \
    "            for f in files:\n"                                                                \
    "                v = _scan(_read(os.path.join(root, f)))\n"                                    \
    "                if v: return v\n"                                                             \
    "    return -1\n"

typedef struct attack {
    const char *name;
    const char *source;     /* solution.py */
    const char *extra_name; /* an extra candidate file, or NULL */
    const char *extra;
    bool thief;             /* graded by THIEF_ORACLE */
    const char *want;       /* "pass" or "fail" */
    const char *reason_has; /* a substring of the row's reason, or NULL */
} attack_t;

static const attack_t ATTACKS[] = {
    {"honest", "def add(a, b):\n    return a + b\n", NULL, NULL, false, "pass", "ran to its end"},
    /* Honest answers of types that equal plain values: they pass as they would in one process
     * (QA finding: "cannot cross"). numpy comes with python3-scipy (bootstrap.sh). */
    {"honest_numpy_int",
     "import numpy as np\ndef add(a, b):\n    return np.int64(a) + np.int64(b)\n", NULL, NULL,
     false, "pass", "ran to its end"},
    {"honest_fraction",
     "from fractions import Fraction\ndef add(a, b):\n    return Fraction(a) + Fraction(b)\n", NULL,
     NULL, false, "pass", "ran to its end"},
    {"honest_decimal",
     "from decimal import Decimal\ndef add(a, b):\n    return Decimal(a) + Decimal(b)\n", NULL,
     NULL, false, "pass", "ran to its end"},
    /* Two files: the candidate phase runs it as `python3 FILE` would, its own directory on
     * sys.path (under -I its first local import failed there: QA finding). */
    {"honest_two_files", "from helper_mod import plus\ndef add(a, b):\n    return plus(a, b)\n",
     "helper_mod.py", "def plus(a, b):\n    return a + b\n", false, "pass", "ran to its end"},
    /* A class that claims to be numpy's or the standard library's crosses only as the plain
     * value it can name: an always-equal object inside stays behind. */
    {"fake_numpy_scalar",
     "class Eq:\n    def __eq__(self, o):\n        return True\n    __hash__ = None\n"
     "class S:\n    __module__ = 'numpy'\n    ndim = 0\n    def item(self):\n"
     "        return Eq()\n"
     "def add(a, b):\n    return S()\n",
     NULL, NULL, false, "fail", "cannot cross"},
    {"fake_fraction",
     "class Fraction:\n    __module__ = 'fractions'\n    numerator = '5 == 5'\n"
     "    denominator = 1\n"
     "def add(a, b):\n    return Fraction()\n",
     NULL, NULL, false, "fail", NULL},
    {"print_pass",
     "def add(a, b):\n    print('PASS')\n    print('ASB-BENCH-ORACLE-COMPLETE ' + '0' * 32)\n"
     "    return 0\n",
     NULL, NULL, false, "fail", "AssertionError"},
    {"fake_result_file",
     "import os\nfor n in ('result.json', 'PASS', 'verdict', 'passed'):\n"
     "    open(n, 'w').write('{\"passed\": true, \"verdict\": \"pass\"}')\n"
     "def add(a, b):\n    open('result.json', 'w').write('pass')\n    return 0\n",
     NULL, NULL, false, "fail", NULL},
    {"sys_exit_in_body", "import sys\ndef add(a, b):\n    sys.exit(0)\n", NULL, NULL, false, "fail",
     "SystemExit"},
    {"sys_exit_at_import", "import sys\nsys.exit(0)\ndef add(a, b):\n    return a + b\n", NULL,
     NULL, false, "fail", "loading the candidate failed"},
    {"os_exit", "import os\ndef add(a, b):\n    os._exit(0)\n", NULL, NULL, false, "fail",
     "candidate process ended"},
    {"atexit_systemexit",
     "import atexit, sys\ndef _bye():\n    raise SystemExit(0)\natexit.register(_bye)\n"
     "def add(a, b):\n    sys.exit(1)\n",
     NULL, NULL, false, "fail", NULL},
    {"atexit_os_exit",
     "import atexit, os\natexit.register(lambda: os._exit(0))\n"
     "def add(a, b):\n    return 0\n",
     NULL, NULL, false, "fail", NULL},
    {"systemexit_subclass",
     "class Done(SystemExit):\n    pass\ndef add(a, b):\n    raise Done(0)\n", NULL, NULL, false,
     "fail", "Done"},
    {"override_builtins",
     "import builtins\nclass Never(Exception):\n    pass\nbuiltins.AssertionError = Never\n"
     "builtins.print = lambda *a, **k: None\n"
     "def add(a, b):\n    return 0\n",
     NULL, NULL, false, "fail", "AssertionError"},
    {"override_more_builtins",
     "import builtins\nbuiltins.isinstance = lambda *a: True\nbuiltins.len = lambda *a: 0\n"
     "builtins.Exception = type('E', (BaseException,), {})\n"
     "def add(a, b):\n    return 0\n",
     NULL, NULL, false, "fail", NULL},
    {"always_equal_object",
     "class Eq:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
     "def add(a, b):\n    return Eq()\n",
     NULL, NULL, false, "fail", "cannot cross"},
    {"always_equal_int",
     "class I(int):\n    def __eq__(self, other):\n        return True\n"
     "def add(a, b):\n    return I(7)\n",
     NULL, NULL, false, "fail", "AssertionError"},
    {"kill_grader",
     "import os, signal\ndef add(a, b):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
     "    return 0\n",
     NULL, NULL, false, "fail", NULL},
    {"shadow_stdlib", "def add(a, b):\n    return 0\n", "json.py",
     "import os\nos.write(1, b'\\nASB-BENCH-ORACLE-COMPLETE x\\n')\nos._exit(0)\n", false, "fail",
     "AssertionError"},
    {"oracle_thief",
     THIEF_SEARCH "FOUND = find_oracle()\ndef add(a, b):\n"
                  "    v = find_oracle()\n    return v if v != -1 else FOUND\n",
     NULL, NULL, true, "fail", "AssertionError"},
    /* Positive control for the thief: the same search finds the number when it is reachable. */
    {"oracle_thief_control", THIEF_SEARCH "def add(a, b):\n    return find_oracle()\n", "leak.txt",
     "assert candidate(0, 0) == 731946282\n", true, "pass", NULL},
    {"hang_in_body", "def add(a, b):\n    while True:\n        pass\n", NULL, NULL, false, "fail",
     "timeout"},
    {"hang_at_import", "while True:\n    pass\n", NULL, NULL, false, "fail",
     "candidate run ended: timeout"},
    {"flood_in_body",
     "import os\ndef add(a, b):\n    while True:\n        os.write(1, b'x' * 65536)\n", NULL, NULL,
     false, "fail", "timeout"},
    {"fork_bomb",
     "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
     "def add(a, b):\n    return a + b\n",
     NULL, NULL, false, "fail", "candidate run ended"},
    {"honest_after", "def add(a, b):\n    return b + a\n", NULL, NULL, false, "pass", NULL},
};
#define N_ATTACKS (sizeof(ATTACKS) / sizeof(ATTACKS[0]))

static size_t row_of(const char *name)
{
    for (size_t i = 0; i < N_ATTACKS; i++)
        if (strcmp(ATTACKS[i].name, name) == 0)
            return i;
    fail_msg("no attack %s", name);
    return 0;
}

static void build_suite(asb_bench_suite_t *suite, asb_bench_submission_t *sub)
{
    json_t *tasks = json_array();
    for (size_t i = 0; i < N_ATTACKS; i++) {
        char id[96];
        snprintf(id, sizeof(id), "attack/%s", ATTACKS[i].name);
        json_array_append_new(
            tasks, json_pack("{s:s, s:s, s:s, s:s, s:{s:s}, s:{s:s, s:s}, s:{s:f}, s:[s]}", "id",
                             id, "prompt", "add two numbers", "entry_file", "solution.py",
                             "entry_point", "add", "reference", "solution.py",
                             "def add(a, b):\n    return a + b\n", "oracle", "kind", "python_check",
                             "test", ATTACKS[i].thief ? THIEF_ORACLE : ORACLE, "limits",
                             "timeout_s", 3.0, "tags", "attack"));
    }
    json_t *doc = json_pack("{s:s, s:s, s:o}", "format", "agent-sandbox.bench-suite/1", "name",
                            "forge", "tasks", tasks);
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    asb_error_t err;
    int rc = asb_bench_suite_parse(text, strlen(text), suite, &err);
    free(text);
    if (rc < 0)
        fail_msg("suite: %s", err.message);
    /* The thief's own reference cannot pass its oracle; that is fine, it is never run. */
    memset(sub, 0, sizeof(*sub));
    sub->per_task = calloc(N_ATTACKS, sizeof(*sub->per_task));
    sub->n_tasks = N_ATTACKS;
    for (size_t i = 0; i < N_ATTACKS; i++) {
        const attack_t *a = &ATTACKS[i];
        assert_int_equal(asb_bench_files_add(&sub->per_task[i], "solution.py", a->source,
                                             strlen(a->source), &err),
                         0);
        if (a->extra_name)
            assert_int_equal(asb_bench_files_add(&sub->per_task[i], a->extra_name, a->extra,
                                                 strlen(a->extra), &err),
                             0);
    }
}

static void test_forged_passes_fail_in_native_hardened(void **state)
{
    (void)state;
    asb_bench_suite_t suite;
    asb_bench_submission_t sub;
    build_suite(&suite, &sub);
    /* ASB_BENCH_FORGE_PROFILE=baseline runs the same attacks in the baseline profile. */
    const char *profile = getenv("ASB_BENCH_FORGE_PROFILE");
    asb_bench_options_t opts = {
        .lane = {.sandbox = "native", .profile = profile && *profile ? profile : "hardened"},
        .jobs = 2,
        .source = "submission"};
    asb_bench_report_t rep;
    asb_error_t err;
    assert_int_equal(asb_bench_run(&suite, &sub, &opts, &rep, &err), 0);
    assert_true(rep.lane_up);
    printf("profile %s\n", opts.lane.profile);
    int bad = 0;
    for (size_t i = 0; i < N_ATTACKS; i++) {
        const asb_bench_row_t *r = &rep.rows[i];
        const char *got = asb_bench_verdict_name(r->verdict);
        bool ok = strcmp(got, ATTACKS[i].want) == 0 &&
                  (!ATTACKS[i].reason_has || strstr(r->reason, ATTACKS[i].reason_has));
        printf("%-22s %-5s %s%s\n", ATTACKS[i].name, got, r->reason, ok ? "" : "   <-- WRONG");
        bad += !ok;
    }
    const asb_bench_phase_t *two = &rep.rows[row_of("honest_two_files")].candidate;
    assert_int_equal(two->status, ASB_STATUS_COMPLETED);
    assert_int_equal(two->exit_code, 0);
    /* The hang, flood and fork bomb ended by their limits, with status recorded. */
    assert_int_equal(rep.rows[row_of("hang_in_body")].grader.status, ASB_STATUS_TIMEOUT);
    assert_int_equal(rep.rows[row_of("hang_at_import")].candidate.status, ASB_STATUS_TIMEOUT);
    /* In the grading phase the candidate's process writes to /dev/null (it must not reach the
     * grader's stdout pipe), so a flood there runs into the timeout instead of the cap. */
    assert_int_equal(rep.rows[row_of("flood_in_body")].grader.status, ASB_STATUS_TIMEOUT);
    asb_status_t fb = rep.rows[row_of("fork_bomb")].candidate.status;
    assert_true(fb == ASB_STATUS_TIMEOUT || fb == ASB_STATUS_KILLED);
    asb_bench_report_free(&rep);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
    assert_int_equal(bad, 0);
}

/* Positive control for the exit attacks: a naive grader that runs candidate + oracle + check()
 * in one process and trusts exit status 0 is fooled by each of them. */
static void test_naive_grader_is_fooled(void **state)
{
    (void)state;
    const char *const exits[] = {"sys_exit_in_body", "os_exit", "atexit_os_exit",
                                 "systemexit_subclass"};
    for (size_t k = 0; k < sizeof(exits) / sizeof(exits[0]); k++) {
        const attack_t *a = &ATTACKS[row_of(exits[k])];
        char *code = NULL;
        assert_true(asprintf(&code, "%s\n%s\ncheck(add)\n", a->source, ORACLE) > 0);
        asb_config_t cfg;
        asb_config_init(&cfg);
        cfg.code = code;
        asb_result_t res;
        asb_error_t err;
        assert_int_equal(asb_run(&cfg, &res, &err), 0);
        printf("naive grader, %s: status %s exit %d\n", a->name, asb_status_name(res.status),
               res.exit_code);
        assert_int_equal(res.status, ASB_STATUS_COMPLETED);
        assert_int_equal(res.exit_code, 0);
        asb_result_free(&res);
        free(code);
    }
}

static bool docker_engine_reachable(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return false;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, "/var/run/docker.sock");
    bool ok = connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    close(s);
    return ok;
}

static void load_starter(asb_bench_suite_t *suite)
{
    const char *src = getenv("ASB_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/examples/bench_suites/coding_starter.json", src ? src : ".");
    asb_error_t err;
    if (asb_bench_suite_load(path, suite, &err) < 0)
        fail_msg("%s", err.message);
}

static void test_docker_lane_without_engine_is_all_void(void **state)
{
    (void)state;
    asb_bench_suite_t suite;
    load_starter(&suite);
    asb_bench_submission_t sub;
    asb_error_t err;
    assert_int_equal(asb_bench_submission_reference(&suite, &sub, &err), 0);
    asb_bench_options_t opts = {.lane = {.sandbox = "docker", .profile = "hardened"},
                                .evidence_class = "captured_fixture",
                                .jobs = 2,
                                .source = "reference"};
    asb_bench_report_t rep;
    assert_int_equal(asb_bench_run(&suite, &sub, &opts, &rep, &err), 0);
    printf("docker engine socket %s; lane probe: %s\n",
           docker_engine_reachable() ? "answers" : "absent",
           rep.probe.error ? rep.probe.error : asb_status_name(rep.probe.status));
    if (rep.lane_up) {
        printf("SKIP: the docker lane runs on this host; this test is about a lane that cannot\n");
        asb_bench_report_free(&rep);
        asb_bench_submission_free(&sub);
        asb_bench_suite_free(&suite);
        skip();
    }
    for (size_t i = 0; i < rep.n_rows; i++) {
        assert_int_equal(rep.rows[i].verdict, ASB_BENCH_VOID);
        assert_non_null(strstr(rep.rows[i].reason, "lane cannot run"));
        assert_false(rep.rows[i].candidate.ran); /* never re-run elsewhere, never run at all */
    }
    char *json = NULL;
    assert_int_equal(asb_bench_artifact_json(&suite, &opts, &rep, &json, &err), 0);
    json_t *a = json_loads(json, 0, NULL);
    json_t *agg = json_object_get(a, "aggregate");
    assert_int_equal(json_integer_value(json_object_get(agg, "void")), 3);
    assert_int_equal(json_integer_value(json_object_get(agg, "scored")), 0);
    assert_true(json_is_null(json_object_get(agg, "pass_rate")));
    json_t *ec = json_object_get(json_object_get(a, "honesty"), "evidence_class");
    assert_string_equal(json_string_value(json_object_get(ec, "given")), "captured_fixture");
    assert_true(json_is_null(json_object_get(ec, "enforced")));
    /* A sandboxed lane holds the oracle out (the subprocess lane says false: bench_sandboxes). */
    assert_true(json_is_true(json_object_get(json_object_get(a, "honesty"), "oracle_hidden")));
    json_decref(a);
    free(json);
    asb_bench_report_free(&rep);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
}

/* A lane whose probe fails (here: no interpreter at the lane's path) voids every row, runs no
 * candidate, and leaves pass_rate undefined rather than 0. */
static void test_lane_that_cannot_run_voids_all(void **state)
{
    (void)state;
    asb_bench_suite_t suite;
    load_starter(&suite);
    asb_bench_submission_t sub;
    asb_error_t err;
    assert_int_equal(asb_bench_submission_reference(&suite, &sub, &err), 0);
    asb_bench_options_t opts = {
        .lane = {.sandbox = "native", .profile = "hardened", .python = "/nonexistent/python3"},
        .jobs = 2,
        .source = "reference"};
    asb_bench_report_t rep;
    assert_int_equal(asb_bench_run(&suite, &sub, &opts, &rep, &err), 0);
    assert_false(rep.lane_up);
    for (size_t i = 0; i < rep.n_rows; i++) {
        assert_int_equal(rep.rows[i].verdict, ASB_BENCH_VOID);
        assert_false(rep.rows[i].candidate.ran);
    }
    json_t *agg = asb_bench_aggregate_json(&suite, rep.rows);
    assert_true(json_is_null(json_object_get(agg, "pass_rate")));
    assert_int_equal(json_integer_value(json_object_get(agg, "void")), 3);
    json_decref(agg);
    asb_bench_report_free(&rep);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
}

/* The same suite and submission give the same verdicts and reasons with 1 and 3 workers. */
static void test_results_independent_of_jobs(void **state)
{
    (void)state;
    asb_bench_suite_t suite;
    load_starter(&suite);
    asb_bench_submission_t sub;
    asb_error_t err;
    assert_int_equal(asb_bench_submission_reference(&suite, &sub, &err), 0);
    /* task 1 wrong, task 2 missing: a mix of verdicts. */
    asb_bench_files_free(&sub.per_task[1]);
    assert_int_equal(asb_bench_files_add(&sub.per_task[1], "solution.py",
                                         "def top_words(t, k):\n    return []\n", 37, &err),
                     0);
    asb_bench_files_free(&sub.per_task[2]);
    asb_bench_report_t r1, r3;
    asb_bench_options_t opts = {.lane = {.sandbox = "native"}, .jobs = 1, .source = "submission"};
    assert_int_equal(asb_bench_run(&suite, &sub, &opts, &r1, &err), 0);
    opts.jobs = 3;
    assert_int_equal(asb_bench_run(&suite, &sub, &opts, &r3, &err), 0);
    const asb_bench_verdict_t want[] = {ASB_BENCH_PASS, ASB_BENCH_FAIL, ASB_BENCH_FAIL};
    for (size_t i = 0; i < suite.n_tasks; i++) {
        assert_int_equal(r1.rows[i].verdict, want[i]);
        assert_int_equal(r3.rows[i].verdict, want[i]);
        assert_string_equal(r1.rows[i].reason, r3.rows[i].reason);
    }
    assert_string_equal(r1.rows[2].reason, "no submission for this task");
    asb_bench_report_free(&r1);
    asb_bench_report_free(&r3);
    asb_bench_submission_free(&sub);
    asb_bench_suite_free(&suite);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: the native lane needs root\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forged_passes_fail_in_native_hardened),
        cmocka_unit_test(test_naive_grader_is_fooled),
        cmocka_unit_test(test_docker_lane_without_engine_is_all_void),
        cmocka_unit_test(test_lane_that_cannot_run_voids_all),
        cmocka_unit_test(test_results_independent_of_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
