/* test_cgroup_parse.c - the cgroup module's pure parsers, from sample strings (no privileges).
 * The samples are the real formats of kernel 6.x files, including the v2 ones this project's
 * development host (hybrid v1) cannot produce. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "native/cgroup.h"
#include "native/cgroup_parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

/* ---- mountinfo ---------------------------------------------------------------------------------
 */

static const char hybrid[] =
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void test_mountinfo_hybrid_separate_cpu_cpuacct(void **state)
{
    (void)state;
    asb_cgroup_mounts_t m;
    asb_cgroup_mounts_scan(&m, S(hybrid));
    assert_true(m.has_v2);
    assert_string_equal(m.v2.mount, "/sys/fs/cgroup/unified");
    assert_int_equal(m.n_v1, 4); /* cpu, cpuacct, memory, pids: not cpuset, not name=systemd */
    assert_string_equal(m.v1[0].mount, "/sys/fs/cgroup/cpu");
    assert_int_equal(m.v1[0].controllers, ASB_CGROUP_CTRL_CPU);
    assert_string_equal(m.v1[1].mount, "/sys/fs/cgroup/cpuacct");
    assert_int_equal(m.v1[1].controllers, ASB_CGROUP_CTRL_CPUACCT);
    assert_string_equal(m.v1[2].mount, "/sys/fs/cgroup/memory");
    assert_int_equal(m.v1[2].controllers, ASB_CGROUP_CTRL_MEMORY);
    assert_int_equal(m.v1[2].dev_major, 0);
    assert_int_equal(m.v1[2].dev_minor, 32);
    assert_string_equal(m.v1[3].mount, "/sys/fs/cgroup/pids");
    assert_int_equal(m.v1[3].controllers, ASB_CGROUP_CTRL_PIDS);
}

static void test_mountinfo_comounted_and_bind_and_escapes(void **state)
{
    (void)state;
    static const char text[] =
        "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:10 - cgroup cgroup "
        "rw,cpu,cpuacct\n"
        "31 25 0:27 / /sys/fs/cgroup/mem\\040ory rw shared:11 master:3 - cgroup cgroup "
        "rw,memory\n"
        /* the same memory hierarchy bind-mounted again: ignored */
        "90 25 0:27 / /mnt/memory-again rw - cgroup cgroup rw,memory\n"
        "32 25 0:28 /docker/abc /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
        "33 25 0:29 / /sys/fs/cgroup/net_cls,net_prio rw - cgroup cgroup rw,net_cls,net_prio\n";
    asb_cgroup_mounts_t m;
    asb_cgroup_mounts_scan(&m, S(text));
    assert_false(m.has_v2);
    assert_int_equal(m.n_v1, 3);
    assert_string_equal(m.v1[0].mount, "/sys/fs/cgroup/cpu,cpuacct");
    assert_int_equal(m.v1[0].controllers, ASB_CGROUP_CTRL_CPU | ASB_CGROUP_CTRL_CPUACCT);
    assert_string_equal(m.v1[1].mount, "/sys/fs/cgroup/mem ory");
    assert_string_equal(m.v1[2].mount, "/sys/fs/cgroup/pids");
}

static void test_mountinfo_pure_v2(void **state)
{
    (void)state;
    static const char text[] =
        "24 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
        "26 24 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
        "rw,nsdelegate,memory_recursiveprot\n"
        "99 26 0:23 / /other/cgroup2 rw - cgroup2 cgroup2 rw\n";
    asb_cgroup_mounts_t m;
    asb_cgroup_mounts_scan(&m, S(text));
    assert_true(m.has_v2);
    assert_string_equal(m.v2.mount, "/sys/fs/cgroup"); /* the first wins */
    assert_int_equal(m.n_v1, 0);
    assert_false(m.v2.outside_ns);
}

/* A caller in a cgroup namespace of its own sees the host's cgroup2 mount with a root above its
 * namespace's ("/.." per level): detection refuses it by name (the kernel would refuse the run's
 * clone into it with a bare ENOENT). A cgroup named "..x" is not above anything. */
static void test_mountinfo_outside_cgroup_namespace(void **state)
{
    (void)state;
    static const char *const roots[] = {"/..", "/../..", "/../../x", "/", "/..x", "/a/.."};
    static const bool outside[] = {true, true, true, false, false, false};
    for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
        char text[256];
        snprintf(
            text, sizeof(text),
            "26 24 0:23 %s /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
            roots[i]);
        asb_cgroup_mounts_t m;
        asb_cgroup_mounts_scan(&m, text, strlen(text));
        assert_true(m.has_v2);
        if (m.v2.outside_ns != outside[i])
            fail_msg("root '%s': outside_ns %d, want %d", roots[i], m.v2.outside_ns, outside[i]);
        assert_true(m.v2.nsdelegate);
    }
    /* Without nsdelegate the kernel lets a run start above the namespace: not flagged. */
    static const char plain[] = "26 24 0:23 /.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    asb_cgroup_mounts_t m;
    asb_cgroup_mounts_scan(&m, S(plain));
    assert_true(m.v2.outside_ns);
    assert_false(m.v2.nsdelegate);
    /* The namespace's own cgroup2, mounted after the host's (listed second), is the one used. */
    static const char both[] = "26 24 0:23 /.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n"
                               "90 80 0:23 / /tmp/cg rw - cgroup2 cgroup2 rw,nsdelegate\n"
                               "91 80 0:23 /.. /other rw - cgroup2 cgroup2 rw,nsdelegate\n";
    asb_cgroup_mounts_scan(&m, S(both));
    assert_string_equal(m.v2.mount, "/tmp/cg");
    assert_false(m.v2.outside_ns);
}

static void test_mountinfo_malformed(void **state)
{
    (void)state;
    asb_cgroup_mounts_t m;
    memset(&m, 0, sizeof(m));
    /* no " - " separator */
    assert_int_equal(asb_cgroup_mounts_add_line(&m, S("32 31 0:29 / /x rw cgroup cgroup rw,cpu")),
                     -EINVAL);
    /* bad device */
    assert_int_equal(asb_cgroup_mounts_add_line(&m, S("32 31 zz / /x rw - cgroup cgroup rw,cpu")),
                     -EINVAL);
    /* a cgroup line cut short */
    assert_int_equal(asb_cgroup_mounts_add_line(&m, S("32 31 0:29 / /x rw - cgroup")), -EINVAL);
    /* a relative mount point (the kernel never writes one): refused, not used */
    assert_int_equal(
        asb_cgroup_mounts_add_line(&m, S("33 31 0:30 / sys/fs/cgroup/cpu rw - cgroup cg rw,cpu")),
        -EINVAL);
    /* not cgroup at all: fine, ignored */
    assert_int_equal(asb_cgroup_mounts_add_line(&m, S("1 2 0:3 / /proc rw - proc proc rw")), 0);
    assert_int_equal(m.n_v1, 0);
    assert_false(m.has_v2);
    /* "cpuset" must not count as "cpu" */
    assert_int_equal(
        asb_cgroup_mounts_add_line(&m, S("34 31 0:31 / /c rw - cgroup cgroup rw,cpuset")), 0);
    assert_int_equal(m.n_v1, 0);
}

static void test_controllers(void **state)
{
    (void)state;
    assert_int_equal(asb_cgroup_parse_controllers(S("cpuset cpu io memory hugetlb pids rdma\n")),
                     ASB_CGROUP_CTRL_CPU | ASB_CGROUP_CTRL_MEMORY | ASB_CGROUP_CTRL_PIDS |
                         ASB_CGROUP_CTRL_IO);
    assert_int_equal(asb_cgroup_parse_controllers(S("\n")), 0);
    assert_int_equal(asb_cgroup_parse_controllers(S("cpuset io")), ASB_CGROUP_CTRL_IO);
    assert_int_equal(asb_cgroup_parse_controllers(S("cpuset iox rdma")), 0);
    char names[64];
    asb_cgroup_controller_names(ASB_CGROUP_CTRL_PIDS | ASB_CGROUP_CTRL_CPU, names, sizeof(names));
    assert_string_equal(names, "pids, cpu");
}

/* ---- v2 and v1 control files -------------------------------------------------------------------
 */

/* Disk reads: v1 blkio.throttle.io_service_bytes and v2 io.stat, summed over devices. */
static void test_io_read_bytes(void **state)
{
    (void)state;
    static const char v1[] = "254:0 Read 1048576\n254:0 Write 4096\n254:0 Sync 0\n"
                             "254:0 Async 0\n254:0 Discard 0\n254:0 Total 1052672\n"
                             "8:0 Read 512\n8:0 Write 0\n8:0 Total 512\nTotal 1053184\n";
    uint64_t v = 99;
    assert_int_equal(asb_cgroup_parse_io_read_bytes(S(v1), false, &v), 0);
    assert_int_equal(v, 1048576 + 512);
    static const char v2[] = "254:0 rbytes=2000 wbytes=7 rios=3 wios=1 dbytes=0 dios=0\n"
                             "8:16 rbytes=24 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n";
    assert_int_equal(asb_cgroup_parse_io_read_bytes(S(v2), true, &v), 0);
    assert_int_equal(v, 2024);
    /* Nothing read yet: empty files are 0. */
    assert_int_equal(asb_cgroup_parse_io_read_bytes(S("Total 0\n"), false, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(asb_cgroup_parse_io_read_bytes(S(""), true, &v), 0);
    assert_int_equal(v, 0);
    /* A device line whose count is not a number is an error, not a guess. */
    assert_int_equal(asb_cgroup_parse_io_read_bytes(S("254:0 Read x\n"), false, &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_io_read_bytes(S("254:0 rbytes=-1\n"), true, &v), -EINVAL);
    assert_int_equal(
        asb_cgroup_parse_io_read_bytes(S("1:0 Read 18446744073709551615\n2:0 Read 1\n"), false, &v),
        -ERANGE);
}

static void test_devnum(void **state)
{
    (void)state;
    unsigned ma = 0, mi = 0;
    assert_int_equal(asb_cgroup_parse_devnum(S("254:0\n"), &ma, &mi), 0);
    assert_int_equal(ma, 254);
    assert_int_equal(mi, 0);
    assert_int_equal(asb_cgroup_parse_devnum(S("259:1048575"), &ma, &mi), 0);
    assert_int_equal(mi, 1048575);
    static const char *const bad[] = {"",      "254",    ":0",        "254:", "a:0",
                                      "1:2:3", "4096:0", "1:1048576", "-1:0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (asb_cgroup_parse_devnum(bad[i], strlen(bad[i]), &ma, &mi) != -EINVAL)
            fail_msg("'%s' accepted", bad[i]);
}

static void test_memory_events_v2(void **state)
{
    (void)state;
    static const char ev[] =
        "low 0\nhigh 0\nmax 1534\noom 3\noom_kill 2\noom_group_kill 1\nsock_throttled 0\n";
    uint64_t v = 99;
    assert_int_equal(asb_cgroup_parse_key_u64(S(ev), "oom_kill", &v), 0);
    assert_int_equal(v, 2);
    assert_int_equal(asb_cgroup_parse_key_u64(S(ev), "oom_group_kill", &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(asb_cgroup_parse_key_u64(S(ev), "oom", &v), 0); /* not a prefix match */
    assert_int_equal(v, 3);
    /* a 5.x kernel has no oom_group_kill line */
    static const char old[] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n";
    assert_int_equal(asb_cgroup_parse_key_u64(S(old), "oom_group_kill", &v), -ENOENT);
    assert_int_equal(asb_cgroup_parse_key_u64(S("oom_kill x\n"), "oom_kill", &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_key_u64(S("oom_kill -1\n"), "oom_kill", &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_key_u64(S("oom_kill 99999999999999999999\n"), "oom_kill", &v),
                     -ERANGE);
}

static void test_oom_control_v1(void **state)
{
    (void)state;
    static const char oc[] = "oom_kill_disable 0\nunder_oom 0\noom_kill 7\n";
    uint64_t v = 0;
    assert_int_equal(asb_cgroup_parse_key_u64(S(oc), "oom_kill", &v), 0);
    assert_int_equal(v, 7);
    /* pre-4.13 v1 has no oom_kill line: must be "absent", not 0 */
    assert_int_equal(
        asb_cgroup_parse_key_u64(S("oom_kill_disable 0\nunder_oom 1\n"), "oom_kill", &v), -ENOENT);
}

static void test_cpu_stat_v2(void **state)
{
    (void)state;
    static const char cs[] = "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n"
                             "nr_periods 10\nnr_throttled 4\nthrottled_usec 90000\n"
                             "nr_bursts 0\nburst_usec 0\n";
    uint64_t v = 0;
    assert_int_equal(asb_cgroup_parse_key_u64(S(cs), "usage_usec", &v), 0);
    assert_int_equal(v, 1234567);
    assert_int_equal(asb_cgroup_parse_key_u64(S(cs), "nr_throttled", &v), 0);
    assert_int_equal(v, 4);
}

static void test_single_values(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(asb_cgroup_parse_u64(S("67108864\n"), &v), 0);
    assert_int_equal(v, 67108864);
    assert_int_equal(asb_cgroup_parse_u64(S("max\n"), &v), 0); /* v2 memory.max, pids.max */
    assert_true(v == UINT64_MAX);
    assert_int_equal(asb_cgroup_parse_u64(S("18446744073709551615\n"), &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(asb_cgroup_parse_u64(S("18446744073709551616\n"), &v), -ERANGE);
    assert_int_equal(asb_cgroup_parse_u64(S(""), &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_u64(S("12 34\n"), &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_u64(S("0x10\n"), &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_u64(S("-1\n"), &v), -EINVAL);
}

static void test_pid_list(void **state)
{
    (void)state;
    pid_t pids[4];
    assert_int_equal(asb_cgroup_parse_pids(S("12\n345\n6789\n"), pids, 4), 3);
    assert_int_equal(pids[0], 12);
    assert_int_equal(pids[2], 6789);
    /* the last line cut off by a full buffer: never a wrong pid */
    assert_int_equal(asb_cgroup_parse_pids(S("12\n34"), pids, 4), 1);
    assert_int_equal(asb_cgroup_parse_pids(S("1\n2\n3\n4\n5\n"), pids, 4), 4);
    assert_int_equal(asb_cgroup_parse_pids(S(""), pids, 4), 0);
    assert_int_equal(asb_cgroup_parse_pids(S("0\nabc\n7\n"), pids, 4), 1);
    assert_int_equal(pids[0], 7);
}

static void test_swaps(void **state)
{
    (void)state;
    assert_false(
        asb_cgroup_parse_swaps_active(S("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")));
    assert_true(asb_cgroup_parse_swaps_active(
        S("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
          "/dev/sda2                               partition\t8388604\t\t0\t\t-2\n")));
    assert_false(asb_cgroup_parse_swaps_active(S("")));
}

/* /proc/self/timens_offsets: the boottime offset the kernel adds to every starttime this
 * process reads (QA finding: owners in a time namespace judged everyone else dead). */
#define assert_int_true_within_one(a, b) assert_true((a) + 1 >= (b) && (a) <= (b) + 1)

static void test_timens_boottime(void **state)
{
    (void)state;
    int64_t ns = 1;
    assert_int_equal(asb_cgroup_parse_timens_boottime(S("monotonic 0 0\nboottime 0 0\n"), &ns), 0);
    assert_int_equal(ns, 0);
    assert_int_equal(
        asb_cgroup_parse_timens_boottime(S("monotonic 5 0\nboottime  100000 250000000\n"), &ns), 0);
    assert_int_equal(ns, 100000250000000ll);
    assert_int_equal(asb_cgroup_parse_timens_boottime(S("boottime -30 0\n"), &ns), 0);
    assert_int_equal(ns, -30000000000ll);
    /* the nanosecond part is never negative: "-2 500000000" is -1.5 s (review finding) */
    assert_int_equal(asb_cgroup_parse_timens_boottime(S("boottime -2 500000000\n"), &ns), 0);
    assert_int_equal(ns, -1500000000ll);
    /* A shown starttime back on the host's clock (10 ms ticks): a positive offset, a negative
     * one with a fraction, and a negative one the kernel's unsigned sum wrapped (review
     * finding): the host start is 1000 ticks = 10 s in each case. */
    const int64_t tick = 10000000;
    uint64_t host = 0;
    assert_int_equal(asb_cgroup_host_starttime(1000 + 10000, 100000000000000ll / 1000, tick, &host),
                     0);
    assert_int_equal(host, 1000);
    assert_int_equal(asb_cgroup_host_starttime(1000 - 150, -1500000000ll, tick, &host), 0);
    assert_int_true_within_one(host, 1000);
    uint64_t start_ns = 10000000000ull; /* 10 s */
    int64_t off = -20000000000ll;       /* -20 s: start + off wraps */
    uint64_t shown = (start_ns + (uint64_t)off) / (uint64_t)tick;
    assert_int_equal(asb_cgroup_host_starttime(shown, off, tick, &host), 0);
    assert_int_true_within_one(host, 1000);
    assert_int_equal(asb_cgroup_host_starttime(5, 100000000, tick, &host), -ERANGE);
    const char *bad[] = {"monotonic 0 0\n",
                         "boottime 1\n",
                         "boottime x 0\n",
                         "boottime 1 1000000000\n",
                         "boottime 99999999999999999999 0\n",
                         "boottime - 0\n",
                         ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(asb_cgroup_parse_timens_boottime(bad[i], strlen(bad[i]), &ns), -EINVAL);
}

static void test_stat_starttime(void **state)
{
    (void)state;
    /* A hostile command name with spaces and ") " in it must not shift the fields. */
    static const char st[] =
        "4242 (evil) 1 2 3 4 5) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
        "987654 10000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
    uint64_t v = 0;
    assert_int_equal(asb_cgroup_parse_stat_starttime(S(st), &v), 0);
    assert_int_equal(v, 987654);
    assert_int_equal(asb_cgroup_parse_stat_starttime(S("4242 (x) S 1 2 3\n"), &v), -EINVAL);
    assert_int_equal(asb_cgroup_parse_stat_starttime(S("no paren"), &v), -EINVAL);
}

/* ---- owner-tagged names -------------------------------------------------------------------------
 */

static void test_owner_names(void **state)
{
    (void)state;
    char name[ASB_CGROUP_NAME_MAX];
    assert_int_equal(
        asb_cgroup_format_name(name, sizeof(name), 1234, 5678, 4026531836u, "0123abcd-x_y.z"), 0);
    assert_string_equal(name, ASB_OWNER_PREFIX "-1234-5678-p4026531836-0123abcd-x_y.z");
    pid_t pid = 0;
    uint64_t start = 0, ns = 0;
    assert_int_equal(asb_cgroup_parse_name(name, &pid, &start, &ns), 0);
    assert_int_equal(pid, 1234);
    assert_int_equal(start, 5678);
    assert_int_equal(ns, 4026531836u);
    /* a name from before session 14 has no pid namespace: 0 */
    assert_int_equal(asb_cgroup_parse_name("asb-12-34-0123abcd", &pid, &start, &ns), 0);
    assert_int_equal(ns, 0);
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 1, 1, 0, "ok"), -EINVAL);

    /* the longest valid name fits */
    char id[ASB_CGROUP_RUN_ID_MAX + 2];
    memset(id, 'a', ASB_CGROUP_RUN_ID_MAX);
    id[ASB_CGROUP_RUN_ID_MAX] = '\0';
    assert_int_equal(
        asb_cgroup_format_name(name, sizeof(name), 2147483647, UINT64_MAX, UINT64_MAX, id), 0);
    assert_int_equal(asb_cgroup_parse_name(name, &pid, &start, &ns), 0);
    assert_int_equal(pid, 2147483647);
    assert_true(start == UINT64_MAX);
    id[ASB_CGROUP_RUN_ID_MAX] = 'a';
    id[ASB_CGROUP_RUN_ID_MAX + 1] = '\0';
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 1, 1, 7, id), -EINVAL);

    /* run ids that could escape the parent directory or confuse tools */
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 1, 1, 7, ".."), -EINVAL);
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 1, 1, 7, "a/b"), -EINVAL);
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 1, 1, 7, ""), -EINVAL);
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 1, 1, 7, "-rf"), -EINVAL);
    assert_int_equal(asb_cgroup_format_name(name, sizeof(name), 0, 1, 7, "ok"), -EINVAL);
    assert_int_equal(asb_cgroup_format_name(name, 8, 1, 1, 7, "ok"), -ENAMETOOLONG);

    /* names that are not ours are left alone by the reaper */
    const char *foreign[] = {"asb",
                             "asb-",
                             "asb-12",
                             "asb-12-34",
                             "asb-12-34-",
                             "asb-0-34-x",
                             "asb-x-34-y",
                             "asb-12-3x-y",
                             "asb-+12-34-y",
                             "asb-12--34-y",
                             "asbx-12-34-y",
                             "other-12-34-y",
                             "asb-99999999999-1-y",
                             "asb-12-34-a/b",
                             "asb-12-34-..",
                             "asb-12-34-p0-x",
                             "asb-12-34-p12",
                             "asb-12-34-p1x-y",
                             "user.slice"};
    for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
        if (asb_cgroup_parse_name(foreign[i], &pid, &start, &ns) != -EINVAL)
            fail_msg("parsed a foreign name: %s", foreign[i]);
    }
    /* a run id may itself contain dashes */
    assert_int_equal(asb_cgroup_parse_name("asb-12-34-a-b-c", &pid, &start, &ns), 0);
    assert_int_equal(pid, 12);
    assert_int_equal(start, 34);
}

static void test_parent_names(void **state)
{
    (void)state;
    assert_true(asb_cgroup_valid_parent(ASB_CGROUP_PARENT));
    assert_true(asb_cgroup_valid_parent("agent-sandbox-test"));
    assert_false(asb_cgroup_valid_parent(""));
    assert_false(asb_cgroup_valid_parent("."));
    assert_false(asb_cgroup_valid_parent(".."));
    assert_false(asb_cgroup_valid_parent("a/b"));
    char longname[ASB_CGROUP_PARENT_NAME_MAX + 1];
    memset(longname, 'a', ASB_CGROUP_PARENT_NAME_MAX);
    longname[ASB_CGROUP_PARENT_NAME_MAX] = '\0';
    assert_false(asb_cgroup_valid_parent(longname));
    longname[ASB_CGROUP_PARENT_NAME_MAX - 1] = '\0';
    assert_true(asb_cgroup_valid_parent(longname));
}

static void test_version_names(void **state)
{
    (void)state;
    assert_string_equal(asb_cgroup_version_name(ASB_CGROUP_V1), "v1");
    assert_string_equal(asb_cgroup_version_name(ASB_CGROUP_V2), "v2");
    assert_string_equal(asb_cgroup_version_name(ASB_CGROUP_NONE), "none");
}

static void test_host_init_v2_and_create_checks(void **state)
{
    (void)state;
    asb_cgroup_host_t host;
    asb_error_t err;
    assert_int_equal(asb_cgroup_host_init_v2(&host, "/nonexistent/cg2", ASB_CGROUP_CTRL_PIDS, &err),
                     0);
    assert_int_equal(host.version, ASB_CGROUP_V2);
    assert_int_equal(host.n_hierarchies, 1);
    assert_int_equal(host.controllers, ASB_CGROUP_CTRL_PIDS);
    assert_string_equal(host.parent, ASB_CGROUP_PARENT);

    /* A limit whose controller the host lacks is refused before anything is created. */
    asb_cgroup_t cg;
    asb_cgroup_limits_t lim = {.memory_bytes = 1 << 20};
    assert_int_equal(asb_cgroup_create(&cg, &host, "x", &lim, &err), -ENOTSUP);
    assert_non_null(strstr(err.message, "memory"));
    assert_int_equal(cg.n_dirs, 0);
    lim = (asb_cgroup_limits_t){.cpus = -1.0};
    assert_int_equal(asb_cgroup_create(&cg, &host, "x", &lim, &err), -EINVAL);
    lim = (asb_cgroup_limits_t){.pids = 1};
    assert_int_equal(asb_cgroup_create(&cg, &host, "../x", &lim, &err), -EINVAL);
    asb_cgroup_host_t bad = host;
    memcpy(bad.parent, "..", 3);
    assert_int_equal(asb_cgroup_create(&cg, &bad, "x", &lim, &err), -EINVAL);
    char *report = NULL;
    assert_int_equal(asb_cgroup_reap_stale(&bad, &report, &err), -EINVAL);
    assert_null(report);
    /* and a zeroed cgroup is safe to destroy */
    asb_cgroup_t zero;
    memset(&zero, 0, sizeof(zero));
    assert_int_equal(asb_cgroup_destroy(&zero, &err), 0);
    assert_int_equal(asb_cgroup_dirfd_v2(&zero), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mountinfo_hybrid_separate_cpu_cpuacct),
        cmocka_unit_test(test_mountinfo_comounted_and_bind_and_escapes),
        cmocka_unit_test(test_mountinfo_pure_v2),
        cmocka_unit_test(test_mountinfo_outside_cgroup_namespace),
        cmocka_unit_test(test_mountinfo_malformed),
        cmocka_unit_test(test_controllers),
        cmocka_unit_test(test_io_read_bytes),
        cmocka_unit_test(test_devnum),
        cmocka_unit_test(test_memory_events_v2),
        cmocka_unit_test(test_oom_control_v1),
        cmocka_unit_test(test_cpu_stat_v2),
        cmocka_unit_test(test_single_values),
        cmocka_unit_test(test_pid_list),
        cmocka_unit_test(test_swaps),
        cmocka_unit_test(test_stat_starttime),
        cmocka_unit_test(test_timens_boottime),
        cmocka_unit_test(test_owner_names),
        cmocka_unit_test(test_parent_names),
        cmocka_unit_test(test_version_names),
        cmocka_unit_test(test_host_init_v2_and_create_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
