/* test_chaos_reap.c - what a chaos harness killed with SIGKILL left on the host (its teardown
 * never ran) is found and removed by asb_chaos_reap_stale (`agent-sandbox cleanup`, and every
 * `chaos` start): its directory with the mounts under it, the /root canary, a write attack's
 * file at / and /etc, a cgroup an attack made, its key and its SysV segment. A live harness's
 * are never touched. Root only (it plants in /root, mounts, and makes cgroups). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "chaos/host.h"
#include "chaos/obs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING (-4)
#define KEYCTL_SEARCH 10
#define PLANTS                                                                                     \
    (ASB_CHAOS_PLANT_SHM | ASB_CHAOS_PLANT_KEY | ASB_CHAOS_PLANT_FD | ASB_CHAOS_PLANT_MOUNT)

/* What one harness planted, as the killed child reports it to the test. */
typedef struct {
    char rnd[64], dir[256], root_canary[256], rootfs[256], cgroup[300], mount_target[300];
    char planted_mount[300];
    int shm_id;
    int made_cgroup;
} planted_t;

static bool mounted(const char *path)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096], mp[1024];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        found = sscanf(line, "%*s %*s %*s %*s %1023s", mp) == 1 && strcmp(mp, path) == 0;
    if (f)
        fclose(f);
    return found;
}

static bool key_exists(const char *rnd)
{
    char desc[128];
    snprintf(desc, sizeof(desc), ASB_CHAOS_TMP_PREFIX "%s", rnd);
    return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", desc, 0) >= 0;
}

/* A child plants everything, does what attacks that succeeded would have left (a file at /, a
 * cgroup, a mount on the target), tells us, and is killed with SIGKILL. */
static void plant_and_die(planted_t *p)
{
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        asb_chaos_host_t h;
        asb_chaos_obs_t o;
        asb_chaos_obs_init(&o);
        asb_error_t err;
        planted_t c;
        memset(&c, 0, sizeof(c));
        if (asb_chaos_host_setup(&h, PLANTS, &o, &err) < 0) {
            fprintf(stderr, "setup: %s\n", err.message);
            _exit(1);
        }
        snprintf(c.rnd, sizeof(c.rnd), "%s", h.rnd);
        snprintf(c.dir, sizeof(c.dir), "%s", h.dir);
        snprintf(c.root_canary, sizeof(c.root_canary), "%s", h.root_canary);
        snprintf(c.rootfs, sizeof(c.rootfs), "%s", h.rootfs_targets[0]);
        snprintf(c.mount_target, sizeof(c.mount_target), "%s", h.mount_target);
        snprintf(c.planted_mount, sizeof(c.planted_mount), "%s", h.planted_mount);
        c.shm_id = h.shm_id;
        FILE *f = fopen(c.rootfs, "wx");
        if (f)
            fclose(f);
        if (h.n_cgroup_targets > 0 && mkdir(h.cgroup_targets[0], 0755) == 0) {
            snprintf(c.cgroup, sizeof(c.cgroup), "%s", h.cgroup_targets[0]);
            c.made_cgroup = 1;
        }
        if (mount("asb-chaos-test", c.mount_target, "tmpfs", 0, "size=16k") < 0)
            _exit(2);
        if (write(pfd[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
            _exit(3);
        pause();
        _exit(0);
    }
    close(pfd[1]);
    ssize_t n = read(pfd[0], p, sizeof(*p));
    close(pfd[0]);
    assert_int_equal(n, (ssize_t)sizeof(*p));
    kill(pid, SIGKILL);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_killed_harness_leftovers_are_reaped(void **state)
{
    (void)state;
    planted_t p;
    plant_and_die(&p);
    /* All of it is there after the kill: nothing else would remove it. */
    struct stat st;
    assert_int_equal(stat(p.dir, &st), 0);
    assert_int_equal(access(p.root_canary, F_OK), 0);
    assert_int_equal(access(p.rootfs, F_OK), 0);
    assert_true(mounted(p.mount_target));
    assert_true(p.planted_mount[0] && mounted(p.planted_mount));
    assert_true(key_exists(p.rnd));
    struct shmid_ds ds;
    assert_true(p.shm_id >= 0);
    assert_int_equal(shmctl(p.shm_id, IPC_STAT, &ds), 0);

    /* A live harness beside it: ours. */
    asb_chaos_host_t live;
    asb_chaos_obs_t lo;
    asb_chaos_obs_init(&lo);
    asb_error_t err;
    assert_int_equal(asb_chaos_host_setup(&live, ASB_CHAOS_PLANT_KEY, &lo, &err), 0);

    char *report = NULL;
    int removed = asb_chaos_reap_stale(&report);
    assert_true(removed >= 1);
    assert_non_null(report);
    assert_non_null(strstr(report, p.dir));
    free(report);

    assert_int_not_equal(stat(p.dir, &st), 0);
    assert_int_not_equal(access(p.root_canary, F_OK), 0);
    assert_int_not_equal(access(p.rootfs, F_OK), 0);
    assert_false(mounted(p.mount_target));
    assert_false(mounted(p.planted_mount));
    assert_false(key_exists(p.rnd));
    assert_int_not_equal(shmctl(p.shm_id, IPC_STAT, &ds), 0);
    if (p.made_cgroup)
        assert_int_not_equal(access(p.cgroup, F_OK), 0);

    /* The live one is untouched, then removed by its own teardown. */
    assert_int_equal(stat(live.dir, &st), 0);
    assert_int_equal(access(live.root_canary, F_OK), 0);
    assert_true(key_exists(live.rnd));
    asb_chaos_host_teardown(&live);
    asb_chaos_obs_free(&lo);
    assert_int_not_equal(stat(live.dir, &st), 0);
    assert_false(key_exists(live.rnd));
}

/* Anyone can make /tmp/asb-chaos-<dead pid>-<start>-x: such a directory is not ours and is left
 * alone, with the segment its shm file names (review finding: root removed a stranger's
 * segment on its say-so). Ours but naming a segment another process made: left alone too. */
static void test_strangers_directories_are_left_alone(void **state)
{
    (void)state;
    int seg = shmget((key_t)0x40c4a05e, 4096, IPC_CREAT | IPC_EXCL | 0600);
    assert_true(seg >= 0);
    char dir[128], file[160], line[64];
    snprintf(dir, sizeof(dir), "/tmp/" ASB_CHAOS_TMP_PREFIX "4194303-1-%d", (int)getpid());
    snprintf(file, sizeof(file), "%s/shm", dir);
    snprintf(line, sizeof(line), "%d %u\n", seg, 0x40c4a05eu);
    assert_int_equal(mkdir(dir, 0755), 0);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(line, f);
    fclose(f);
    /* Ours, but the segment was not made by that (dead) pid: kept, though the dir goes. */
    char *report = NULL;
    (void)asb_chaos_reap_stale(&report);
    free(report);
    struct shmid_ds ds;
    assert_int_equal(shmctl(seg, IPC_STAT, &ds), 0);
    assert_int_not_equal(access(dir, F_OK), 0);
    /* A stranger's: neither the directory nor anything it names is touched. */
    assert_int_equal(mkdir(dir, 0755), 0);
    f = fopen(file, "w");
    assert_non_null(f);
    fputs(line, f);
    fclose(f);
    assert_int_equal(chown(file, 65534, 65534), 0);
    assert_int_equal(chown(dir, 65534, 65534), 0);
    report = NULL;
    (void)asb_chaos_reap_stale(&report);
    assert_true(report == NULL || strstr(report, dir) == NULL);
    free(report);
    assert_int_equal(access(file, F_OK), 0);
    assert_int_equal(shmctl(seg, IPC_STAT, &ds), 0);
    unlink(file);
    rmdir(dir);
    shmctl(seg, IPC_RMID, NULL);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: a chaos harness plants in /root and mounts: root only\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_killed_harness_leftovers_are_reaped),
        cmocka_unit_test(test_strangers_directories_are_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
