/* test_proc_masks.c - the shared /proc mask list (core/proc_masks.h) keeps every entry it has a
 * reason for.
 *
 * Every check that covers the masks iterates the list itself (the native and docker integration
 * tests, the docker request and verifier tests), so an entry deleted from it shrinks all of them
 * and nothing goes red (mutation audit 23, gap 3: "kallsyms" dropped passed every test). The
 * names are restated here, each with the attack it stops in the header's comment; a new entry
 * needs no change here, a removed one must be removed here too, on purpose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/proc_masks.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool listed(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static void test_files_pinned(void **state)
{
    (void)state;
    static const char *const want[] = {
        "kcore",       "kallsyms",      "keys",        "key-users",     "timer_list",
        "sched_debug", "latency_stats", "timer_stats", "sysrq-trigger", "kmsg",
        "kpagecount",  "kpageflags",    "kpagecgroup", "config.gz",     "vmallocinfo",
        "slabinfo",    "pagetypeinfo",  "cgroups",     "interrupts",    "diskstats",
        "cmdline",     "partitions",    "misc",        "devices",       "consoles",
        "iomem",       "ioports",       "locks"};
    int missing = 0;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!listed(ASB_PROC_MASK_FILES, ASB_PROC_MASK_N_FILES, want[i])) {
            fprintf(stderr, "ASB_PROC_MASK_FILES lacks %s\n", want[i]);
            missing++;
        }
    assert_int_equal(missing, 0);
}

static void test_dirs_pinned(void **state)
{
    (void)state;
    static const char *const want[] = {"acpi",     "scsi", "asound", "driver", "tty/driver",
                                       "pressure", "bus",  "fs",     "irq"};
    int missing = 0;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!listed(ASB_PROC_MASK_DIRS, ASB_PROC_MASK_N_DIRS, want[i])) {
            fprintf(stderr, "ASB_PROC_MASK_DIRS lacks %s\n", want[i]);
            missing++;
        }
    assert_int_equal(missing, 0);
    assert_true(listed(ASB_PROC_READONLY, ASB_PROC_N_READONLY, "sys"));
}

/* The names are joined to "/proc/" by rootfs.c and docker_request.c: each must stay below it,
 * and appear once (a duplicate would hide a deletion from a count). */
static void test_names_well_formed(void **state)
{
    (void)state;
    size_t n = ASB_PROC_MASK_N_FILES + ASB_PROC_MASK_N_DIRS;
    for (size_t i = 0; i < n; i++) {
        const char *a = i < ASB_PROC_MASK_N_FILES ? ASB_PROC_MASK_FILES[i]
                                                  : ASB_PROC_MASK_DIRS[i - ASB_PROC_MASK_N_FILES];
        assert_true(a[0] != '\0' && a[0] != '/');
        assert_null(strstr(a, ".."));
        for (size_t j = i + 1; j < n; j++) {
            const char *b = j < ASB_PROC_MASK_N_FILES
                                ? ASB_PROC_MASK_FILES[j]
                                : ASB_PROC_MASK_DIRS[j - ASB_PROC_MASK_N_FILES];
            if (strcmp(a, b) == 0)
                fail_msg("%s listed twice", a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_pinned),
        cmocka_unit_test(test_dirs_pinned),
        cmocka_unit_test(test_names_well_formed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
