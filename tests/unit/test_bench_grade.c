/* test_bench_grade.c - the bench's anti-forgery check (grade.c, asb_bench_proved_complete) on
 * its own. The forge tests (tests/integration/test_bench_forge.c) pass even when the check
 * ignores the per-run secret, because the grader driver already keeps the candidate's output
 * away from its stdout (mutation audit, session 23, #43): here only the exact line with this
 * run's secret counts as proof that check() returned. No sandboxes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/grade.h"
#include "bench/grader_driver.h"

#include <stdio.h>
#include <string.h>

#define SECRET "0123456789abcdef0123456789abcdef"
#define OTHER "0123456789abcdef0123456789abcdeX" /* one char off */
#define MARK ASB_BENCH_COMPLETE_MARK

static bool proves(const char *out, const char *secret)
{
    return asb_bench_proved_complete((const unsigned char *)out, strlen(out), secret);
}

static void test_mark_with_this_runs_secret_passes(void **state)
{
    (void)state;
    static const char *const good[] = {
        "\n" MARK SECRET "\n", "ok 1\nok 2\n\n" MARK SECRET "\n",
        "candidate noise without a newline\n" MARK SECRET "\ntrailing\n",
        "\n" MARK OTHER "\n\n" MARK SECRET "\n", /* a forged line first, the real one after */
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        if (!proves(good[i], SECRET))
            fail_msg("case %zu refused: '%s'", i, good[i]);
}

static void test_forged_marks_fail(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        const char *out;
    } bad[] = {
        {"wrong secret", "\n" MARK OTHER "\n"},
        {"a guessed secret", "\n" MARK "00000000000000000000000000000000\n"},
        {"no secret", "\n" MARK "\n"},
        {"no secret, no space", "\nASB-BENCH-ORACLE-COMPLETE\n"},
        {"the prefix alone", "\n" MARK},
        {"the prefix alone, no newline", MARK},
        {"the secret alone", "\n" SECRET "\n"},
        {"no leading newline (start of output)", MARK SECRET "\n"},
        {"no leading newline (mid-line)", "x" MARK SECRET "\n"},
        {"no trailing newline (end of output)", "\n" MARK SECRET},
        {"more after the secret", "\n" MARK SECRET "0\n"},
        {"secret cut short", "\n" MARK "0123456789abcdef\n"},
        {"split across lines", "\nASB-BENCH-ORACLE-\nCOMPLETE " SECRET "\n"},
        {"secret on the next line", "\n" MARK "\n" SECRET "\n"},
        {"secret split across lines", "\n" MARK "0123456789abcdef\n0123456789abcdef\n"},
        {"empty output", ""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (proves(bad[i].out, SECRET))
            fail_msg("%s: accepted as proof", bad[i].what);
}

/* Without a secret of this run nothing proves anything, the bare mark least of all. A secret
 * longer than the check's buffer is refused, never cut to a prefix a guess could match nor read
 * past the buffer's end (the sanitizer build would see that). */
static void test_no_secret_proves_nothing(void **state)
{
    (void)state;
    assert_false(proves("\n" MARK "\n", ""));
    assert_false(asb_bench_proved_complete((const unsigned char *)"\n" MARK "\n", 7, NULL));
    assert_false(asb_bench_proved_complete(NULL, 0, SECRET));
    const char *longer = SECRET SECRET; /* 64 chars: more than the mark's room */
    char out[200];
    snprintf(out, sizeof(out), "\n%s%s\n", MARK, longer);
    assert_false(proves(out, longer));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mark_with_this_runs_secret_passes),
        cmocka_unit_test(test_forged_marks_fail),
        cmocka_unit_test(test_no_secret_proves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
