/* test_idslot.c - host id ranges per live sandbox (src/native/idslot.c): slots taken at the same
 * time differ, a held slot survives the reaper, a dead holder's file does not, nothing planted
 * in the directory hangs or fools the reaper, and a released slot leaves nothing. Root only (the
 * slot directory is root's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/limits.h"
#include "native/idslot.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(uint32_t slot)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%u", ASB_USERNS_SLOT_DIR, slot);
    return access(path, F_OK) == 0;
}

static void test_live_slots_differ_and_survive_the_reaper(void **state)
{
    (void)state;
    asb_idslot_t a, b;
    asb_error_t err;
    assert_int_equal(asb_idslot_take(&a, &err), 0);
    assert_int_equal(asb_idslot_take(&b, &err), 0);
    assert_int_not_equal(a.slot, b.slot);
    assert_true(a.slot < ASB_USERNS_SLOTS && b.slot < ASB_USERNS_SLOTS);
    assert_int_equal(a.base, ASB_USERNS_HOST_BASE + a.slot * ASB_USERNS_RANGE);
    /* The owner uid: the slot's own, and outside every range mapped into a sandbox. */
    assert_int_equal(a.owner, ASB_USERNS_OWNER_BASE + a.slot);
    assert_int_not_equal(a.owner, b.owner);
    assert_true(a.owner < ASB_USERNS_HOST_BASE &&
                ASB_USERNS_OWNER_BASE + ASB_USERNS_SLOTS <= ASB_USERNS_HOST_BASE);
    assert_true((uint64_t)a.base + ASB_USERNS_RANGE - 1 <= 0x7fffffffu);
    (void)asb_idslot_reap(NULL);
    assert_true(exists(a.slot) && exists(b.slot)); /* held: never reaped */
    asb_idslot_release(&a);
    asb_idslot_release(&a); /* idempotent */
    assert_false(exists(a.slot));
    assert_true(exists(b.slot));
    asb_idslot_release(&b);
    assert_false(exists(b.slot));
}

/* A file nobody holds (its holder died) goes; a FIFO or a directory planted there neither hangs
 * the reaper nor is taken for a slot file. */
static void test_reaper_removes_dead_holders_only(void **state)
{
    (void)state;
    asb_idslot_t a;
    asb_error_t err;
    assert_int_equal(asb_idslot_take(&a, &err), 0); /* makes the directory */
    char stale[128], fifo[128], dir[128];
    snprintf(stale, sizeof(stale), "%s/stale-test", ASB_USERNS_SLOT_DIR);
    snprintf(fifo, sizeof(fifo), "%s/fifo-test", ASB_USERNS_SLOT_DIR);
    snprintf(dir, sizeof(dir), "%s/dir-test", ASB_USERNS_SLOT_DIR);
    int fd = open(stale, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    alarm(10); /* a hang fails the test instead of stalling the suite */
    int removed = asb_idslot_reap(NULL);
    alarm(0);
    assert_true(removed >= 1);
    assert_int_not_equal(access(stale, F_OK), 0);
    assert_int_equal(access(fifo, F_OK), 0);
    assert_int_equal(access(dir, F_OK), 0);
    assert_true(exists(a.slot));
    unlink(fifo);
    rmdir(dir);
    asb_idslot_release(&a);
}

/* The directory must be root's and closed to others: a loosened one is refused, not used. */
static void test_untrusted_directory_refused(void **state)
{
    (void)state;
    asb_idslot_t a;
    asb_error_t err;
    assert_int_equal(asb_idslot_take(&a, &err), 0);
    asb_idslot_release(&a);
    assert_int_equal(chmod(ASB_USERNS_SLOT_DIR, 0777), 0);
    int rc = asb_idslot_take(&a, &err);
    assert_int_equal(chmod(ASB_USERNS_SLOT_DIR, 0700), 0);
    assert_true(rc < 0);
    assert_non_null(strstr(err.message, "writable only by root"));
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: the id slot directory is root's\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_slots_differ_and_survive_the_reaper),
        cmocka_unit_test(test_reaper_removes_dead_holders_only),
        cmocka_unit_test(test_untrusted_directory_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
