/* test_chaos_judge.c - every judge can say `succeeded` on the evidence it names and says
 * `blocked` (or n/a / error where that is the rule) without it. Synthetic observations only. */
#include "chaos/attacks.h"
#include "chaos/judge.h"
#include "chaos/obs.h"
#include "chaos/watch.h"
#include "core/limits.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define NONCE "0123456789abcdef0123456789abcdef"

typedef struct fixture {
    asb_chaos_obs_t o;
    asb_result_t r;
    char ev[ASB_CHAOS_EVIDENCE_MAX];
} fixture_t;

static void fx_init(fixture_t *f)
{
    asb_chaos_obs_init(&f->o);
    memset(&f->r, 0, sizeof(f->r));
    strcpy(f->o.nonce, NONCE);
    strcpy(f->o.secret, "SECRETSECRETSECRET");
    strcpy(f->o.canary_root, "ROOTCANARYROOTCANARY");
    strcpy(f->o.canary_tmp, "TMPCANARYTMPCANARY");
    strcpy(f->o.canary_fd, "FDCANARYFDCANARY");
    strcpy(f->o.canary_shm, "SHMCANARYSHMCANARY");
    strcpy(f->o.canary_key, "KEYCANARYKEYCANARY");
    strcpy(f->o.kernel_release, "6.18.44-test");
    f->o.timeout_s = 1.0;
    f->o.watched = true;
    f->o.watch.max_procs = 1;
    f->o.watch.scans = 10;
    f->o.watch.euid_seen = 65534;
    f->r.status = ASB_STATUS_COMPLETED;
}

static void fx_out(fixture_t *f, const char *text)
{
    f->r.out.data = (unsigned char *)strdup(text);
    f->r.out.len = strlen(text);
}

static void fx_free(fixture_t *f)
{
    free(f->r.out.data);
    f->r.out.data = NULL;
    for (int ch = 0; ch < ASB_CHAOS_CH_COUNT; ch++) {
        free(f->o.beacon[ch]);
        f->o.beacon[ch] = NULL;
        free(f->o.beacon_bridge[ch]);
        f->o.beacon_bridge[ch] = NULL;
    }
    free(f->o.shadow);
    f->o.shadow = NULL;
}

static asb_chaos_verdict_t judge(fixture_t *f, const char *attack)
{
    return asb_chaos_judge(attack, 0, &f->o, &f->r, f->ev, sizeof(f->ev));
}

static void beacon(fixture_t *f, asb_chaos_channel_t ch, const char *text)
{
    f->o.beacon[ch] = strdup(text);
    f->o.beacon_len[ch] = strlen(text);
}

static void beacon_bridge(fixture_t *f, asb_chaos_channel_t ch, const char *text)
{
    f->o.beacon_bridge[ch] = strdup(text);
    f->o.beacon_bridge_len[ch] = strlen(text);
}

static void test_every_attack_has_a_judge(void **state)
{
    (void)state;
    size_t n;
    const asb_chaos_attack_t *a = asb_chaos_attacks(&n);
    assert_true(n >= 30);
    for (size_t i = 0; i < n; i++)
        assert_non_null(asb_chaos_judge_for(a[i].name));
}

static void test_beacon_judges(void **state)
{
    (void)state;
    static const struct {
        const char *attack;
        asb_chaos_channel_t ch;
        const char *hit;
    } cases[] = {
        {"tcp_egress", ASB_CHAOS_CH_TCP, "tcp:" NONCE "\n"},
        {"udp_egress", ASB_CHAOS_CH_UDP, "udp:" NONCE "\n"},
        {"http_egress", ASB_CHAOS_CH_HTTP, "GET /beacon/" NONCE " HTTP/1.1\r\n"},
        {"dns_resolve", ASB_CHAOS_CH_DNS, NONCE ".chaos.invalid\n"},
        {"raw_socket", ASB_CHAOS_CH_UDP, "raw:" NONCE "\n"},
        {"abstract_unix", ASB_CHAOS_CH_ABSTRACT, "abstract:" NONCE},
        {"docker_socket", ASB_CHAOS_CH_DOCKER, "GET /v1.41/containers/json?nonce=" NONCE " HTTP"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fixture_t f;
        fx_init(&f);
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_BLOCKED);
        /* A different run's nonce is not this run's egress. */
        beacon(&f, cases[i].ch, "tcp:ffffffffffffffffffffffffffffffff udp:ffff raw:ffff");
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_BLOCKED);
        fx_free(&f);
        fx_init(&f);
        beacon(&f, cases[i].ch, cases[i].hit);
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_SUCCEEDED);
        assert_non_null(strstr(f.ev, "01234567"));
        fx_free(&f);
    }
    /* udp_egress must not be satisfied by the raw packet's payload, nor the reverse. */
    fixture_t f;
    fx_init(&f);
    beacon(&f, ASB_CHAOS_CH_UDP, "raw:" NONCE);
    assert_int_equal(judge(&f, "udp_egress"), ASB_CHAOS_BLOCKED);
    fx_free(&f);
}

/* Docker runs: the nonce arriving on the bridge's host address is egress; a docker run with no
 * bridge listener cannot be judged `blocked` (it could not have reached loopback anyway). */
static void test_beacon_judges_docker_bridge(void **state)
{
    (void)state;
    static const struct {
        const char *attack;
        asb_chaos_channel_t ch;
        const char *hit;
    } cases[] = {
        {"tcp_egress", ASB_CHAOS_CH_TCP, "tcp:" NONCE "\n"},
        {"udp_egress", ASB_CHAOS_CH_UDP, "udp:" NONCE "\n"},
        {"http_egress", ASB_CHAOS_CH_HTTP, "GET /beacon/" NONCE " HTTP/1.1\r\n"},
        {"dns_resolve", ASB_CHAOS_CH_DNS, NONCE ".chaos.invalid\n"},
        {"raw_socket", ASB_CHAOS_CH_UDP, "raw:" NONCE "\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fixture_t f;
        fx_init(&f);
        f.o.bridge_wanted = true;
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_ERROR);
        assert_non_null(strstr(f.ev, "cannot decide"));
        snprintf(f.o.bridge_addr, sizeof(f.o.bridge_addr), "172.17.0.1");
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_BLOCKED);
        assert_non_null(strstr(f.ev, "172.17.0.1"));
        beacon_bridge(&f, cases[i].ch, cases[i].hit);
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_SUCCEEDED);
        assert_non_null(strstr(f.ev, "bridge"));
        fx_free(&f);
        /* Bytes on a bridge socket the harness did not record an address for are not counted
         * (the address names where the evidence came from). */
        fx_init(&f);
        beacon_bridge(&f, cases[i].ch, cases[i].hit);
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_BLOCKED);
        fx_free(&f);
    }
    /* The unix-socket channels are not IP: a docker run's bridge changes nothing there. */
    fixture_t f;
    fx_init(&f);
    f.o.bridge_wanted = true;
    assert_int_equal(judge(&f, "abstract_unix"), ASB_CHAOS_BLOCKED);
    fx_free(&f);
}

static void test_output_judges(void **state)
{
    (void)state;
    static const struct {
        const char *attack, *hit;
    } cases[] = {
        {"env_secret_read", "environ of 1 : ASB_CHAOS_SECRET=SECRETSECRETSECRET"},
        {"host_canary_read", "CANARY_TMP TMPCANARYTMPCANARY"},
        {"host_canary_read", "CANARY_ROOT ROOTCANARYROOTCANARY"},
        {"fd_inherit", "fd 5 FDCANARYFDCANARY"},
        {"sysv_shm_read", "shm: SHMCANARYSHMCANARY"},
        {"keyring_read", "key: KEYCANARYKEYCANARY"},
        {"kernel_version_leak", "Linux sandbox 6.18.44-test #1"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fixture_t f;
        fx_init(&f);
        fx_out(&f, "nothing to see: SECRET ROOTCANARY 6.18");
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_BLOCKED);
        fx_free(&f);
        fx_init(&f);
        fx_out(&f, cases[i].hit);
        assert_int_equal(judge(&f, cases[i].attack), ASB_CHAOS_SUCCEEDED);
        fx_free(&f);
    }
    /* The numeric version alone (the vDSO's note) is not the release: blocked, and said. */
    {
        fixture_t f;
        fx_init(&f);
        fx_out(&f, "Linux sandbox 6.18.0 #1 SMP\nvdso LINUX_VERSION_CODE 0x06122c\n");
        asb_chaos_verdict_t v = judge(&f, "kernel_version_leak");
        assert_int_equal(v, ASB_CHAOS_BLOCKED);
        /* A host whose release has no tag: the hex code never reads as it. */
        strcpy(f.o.kernel_release, "6.18.44");
        assert_int_equal(judge(&f, "kernel_version_leak"), ASB_CHAOS_BLOCKED);
        free(f.r.out.data);
        fx_out(&f, "Linux sandbox 6.18.44 #1 SMP\n");
        assert_int_equal(judge(&f, "kernel_version_leak"), ASB_CHAOS_SUCCEEDED);
        /* A host whose release is exactly what hardened answers: cannot tell. */
        strcpy(f.o.kernel_release, "6.18.0");
        assert_int_equal(judge(&f, "kernel_version_leak"), ASB_CHAOS_NA);
        fx_free(&f);
    }
    /* No planted secret: the harness cannot decide, and says so. */
    fixture_t f;
    fx_init(&f);
    f.o.secret[0] = '\0';
    fx_out(&f, "");
    assert_int_equal(judge(&f, "env_secret_read"), ASB_CHAOS_ERROR);
    f.o.canary_key[0] = '\0';
    assert_int_equal(judge(&f, "keyring_read"), ASB_CHAOS_NA);
    fx_free(&f);
}

static void test_shadow_and_mountinfo(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    fx_out(&f, "x");
    assert_int_equal(judge(&f, "etc_shadow_read"), ASB_CHAOS_NA);
    f.o.shadow = strdup("root:$y$j9T$abc:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n");
    assert_int_equal(judge(&f, "etc_shadow_read"), ASB_CHAOS_BLOCKED);
    fx_free(&f);
    fx_init(&f);
    f.o.shadow = strdup("root:$y$j9T$abc:19000:0:99999:7:::\n");
    fx_out(&f, "hdr\nroot:$y$j9T$abc:19000:0:99999:7:::\n");
    assert_int_equal(judge(&f, "etc_shadow_read"), ASB_CHAOS_SUCCEEDED);
    assert_non_null(strstr(f.ev, "root"));
    fx_free(&f);

    /* Guessable lines are not evidence (red-team finding): a locked account's line printed
     * from a guess, without the hashed one, is blocked. */
    fx_init(&f);
    f.o.shadow = strdup("root:$y$j9T$abc:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n");
    fx_out(&f, "daemon:*:19000:0:99999:7:::\n");
    assert_int_equal(judge(&f, "etc_shadow_read"), ASB_CHAOS_BLOCKED);
    fx_free(&f);
    fx_init(&f);
    f.o.shadow = strdup("root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n");
    fx_out(&f, "root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n\n");
    assert_int_equal(judge(&f, "etc_shadow_read"), ASB_CHAOS_NA); /* even the whole file */
    fx_free(&f);
    fx_init(&f);
    f.o.shadow = strdup("root:!$6$salt$hash:19000:0:99999:7:::\n");
    fx_out(&f, "root:!$6$salt$hash:19000:0:99999:7:::\n");
    assert_int_equal(judge(&f, "etc_shadow_read"), ASB_CHAOS_SUCCEEDED); /* locked, still a hash */
    fx_free(&f);

    /* The mount table: only the harness's own host mount, under a random name, is evidence;
     * a host device name is guessable. */
    fx_init(&f);
    fx_out(&f, "174 173 254:0 /usr /usr ro - ext4 /dev/vda rw\n");
    assert_int_equal(judge(&f, "mountinfo_leak"), ASB_CHAOS_ERROR);
    strcpy(f.o.planted_mount, "/tmp/asb-chaos-1234/hostmount-89abcdef");
    assert_int_equal(judge(&f, "mountinfo_leak"), ASB_CHAOS_BLOCKED);
    fx_free(&f);
    fx_init(&f);
    strcpy(f.o.planted_mount, "/tmp/asb-chaos-1234/hostmount-89abcdef");
    fx_out(&f, "301 28 0:99 / /tmp/asb-chaos-1234/hostmount-89abcdef rw - tmpfs asb-chaos rw\n");
    assert_int_equal(judge(&f, "mountinfo_leak"), ASB_CHAOS_SUCCEEDED);
    fx_free(&f);
}

static void add_file(asb_result_t *r, const char *name, const char *data, size_t len)
{
    r->files_out = realloc(r->files_out, (r->n_files_out + 1) * sizeof(asb_file_out_t));
    r->files_out[r->n_files_out].name = strdup(name);
    r->files_out[r->n_files_out].content.data = malloc(len ? len : 1);
    memcpy(r->files_out[r->n_files_out].content.data, data, len);
    r->files_out[r->n_files_out].content.len = len;
    r->n_files_out++;
}

static void free_files(asb_result_t *r)
{
    for (size_t i = 0; i < r->n_files_out; i++) {
        free(r->files_out[i].name);
        free(r->files_out[i].content.data);
    }
    free(r->files_out);
    r->files_out = NULL;
    r->n_files_out = 0;
}

static void test_file_out_judges(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    assert_int_equal(judge(&f, "disk_fill"), ASB_CHAOS_BLOCKED);
    size_t big = 40 * ASB_MIB;
    char *data = malloc(big);
    for (size_t i = 0; i < big; i += 32)
        memcpy(data + i, NONCE, 32);
    add_file(&f.r, "fill.bin", data, 16 * ASB_MIB);
    assert_int_equal(judge(&f, "disk_fill"), ASB_CHAOS_BLOCKED);
    assert_non_null(strstr(f.ev, "16.0 MiB"));
    free_files(&f.r);
    add_file(&f.r, "fill.bin", data, big);
    assert_int_equal(judge(&f, "disk_fill"), ASB_CHAOS_SUCCEEDED);
    free_files(&f.r);
    free(data);

    for (int k = 0; k < 2; k++) {
        const char *attack = k ? "hardlink_fileout" : "symlink_fileout";
        add_file(&f.r, "out.txt", "harmless", 8);
        assert_int_equal(judge(&f, attack), ASB_CHAOS_BLOCKED);
        free_files(&f.r);
        const char *canary = k ? "TMPCANARYTMPCANARY" : "ROOTCANARYROOTCANARY";
        add_file(&f.r, "out.txt", canary, strlen(canary));
        assert_int_equal(judge(&f, attack), ASB_CHAOS_SUCCEEDED);
        free_files(&f.r);
    }
    fx_free(&f);
}

static void test_host_change_judges(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    const char *attacks[] = {"rootfs_write", "mount_syscall", "cgroupfs_write", "kill_host_process",
                             "orphan_survivor"};
    f.o.victim_planted = true;
    f.o.after_checked = true;
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(judge(&f, attacks[i]), ASB_CHAOS_BLOCKED);
    f.o.host_files_created = 1;
    f.o.mount_appeared = true;
    f.o.cgroup_dirs_created = 2;
    f.o.victim_killed = true;
    f.o.alive_after = 1;
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(judge(&f, attacks[i]), ASB_CHAOS_SUCCEEDED);
    f.o.alive_after = 0;
    f.o.marker_changed_after = true;
    assert_int_equal(judge(&f, "orphan_survivor"), ASB_CHAOS_SUCCEEDED);
    f.o.after_checked = false;
    assert_int_equal(judge(&f, "orphan_survivor"), ASB_CHAOS_ERROR);
    /* Any signal that ended it, or stopped it, counts (red-team finding: SIGTERM read as survived).
     */
    f.o.victim_killed = false;
    assert_int_equal(judge(&f, "kill_host_process"), ASB_CHAOS_BLOCKED);
    f.o.victim_stopped = true;
    f.o.victim_signal = SIGSTOP;
    assert_int_equal(judge(&f, "kill_host_process"), ASB_CHAOS_SUCCEEDED);
    f.o.victim_stopped = false;
    f.o.victim_killed = true;
    f.o.victim_signal = SIGTERM;
    assert_int_equal(judge(&f, "kill_host_process"), ASB_CHAOS_SUCCEEDED);
    f.o.victim_planted = false;
    assert_int_equal(judge(&f, "kill_host_process"), ASB_CHAOS_ERROR);
    fx_free(&f);
}

static void test_watch_judges(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    const char *attacks[] = {"run_as_root",   "setuid_escalate", "cap_effective",  "raise_priority",
                             "thread_bomb",   "fork_bomb",       "io_uring_setup", "userns_nested",
                             "bpf_prog_load", "perf_event_open", "userfaultfd"};
    enum { N_WATCHED = sizeof(attacks) / sizeof(attacks[0]) };
    for (size_t i = 0; i < N_WATCHED; i++)
        assert_int_equal(judge(&f, attacks[i]), ASB_CHAOS_BLOCKED);
    f.o.watch.host_root = true;
    f.o.watch.escalated = true;
    f.o.watch.cap_eff = 0xa80425fb;
    f.o.watch.min_nice = -10;
    f.o.watch.max_threads = 201;
    f.o.watch.max_procs = 301;
    f.o.watch.kernel_fds = ASB_CHAOS_FD_IO_URING | ASB_CHAOS_FD_BPF | ASB_CHAOS_FD_PERF_EVENT |
                           ASB_CHAOS_FD_USERFAULTFD;
    f.o.watch.userns_count = 2;
    for (size_t i = 0; i < N_WATCHED; i++)
        assert_int_equal(judge(&f, attacks[i]), ASB_CHAOS_SUCCEEDED);
    /* Each kind of kernel object is evidence for its own attack only. */
    f.o.watch.kernel_fds = ASB_CHAOS_FD_BPF;
    assert_int_equal(judge(&f, "bpf_prog_load"), ASB_CHAOS_SUCCEEDED);
    assert_int_equal(judge(&f, "perf_event_open"), ASB_CHAOS_BLOCKED);
    assert_int_equal(judge(&f, "userfaultfd"), ASB_CHAOS_BLOCKED);
    assert_int_equal(judge(&f, "io_uring_setup"), ASB_CHAOS_BLOCKED);
    /* A watcher that never saw the program cannot say blocked. */
    f.o.watch.max_procs = 0;
    for (size_t i = 0; i < N_WATCHED; i++)
        assert_int_equal(judge(&f, attacks[i]), ASB_CHAOS_ERROR);
    fx_free(&f);
}

/* cpu_migrate: the host's migration threads' CPU time is the evidence; the program's words only
 * say whether it tried. */
static void test_migrate_judge(void **state)
{
    (void)state;
    long hz = sysconf(_SC_CLK_TCK);
    fixture_t f;
    fx_init(&f);
    fx_out(&f, "moves 40000\n");
    f.o.watch.migr_base_ticks = 1000;
    f.o.watch.migr_end_ticks = 1000 + hz / 2; /* 0.5 s */
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_SUCCEEDED);
    assert_non_null(strstr(f.ev, "0.50 s"));
    /* The same words, no CPU in the migration threads: the moves cost the host nothing. */
    f.o.watch.migr_end_ticks = 1001;
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_BLOCKED);
    fx_free(&f);
    fx_init(&f);
    fx_out(&f, "refused 1\n");
    f.o.watch.migr_base_ticks = 1000;
    f.o.watch.migr_end_ticks = 1000;
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_BLOCKED);
    /* Refused, says the program, but the host saw the threads busy: the evidence wins. */
    f.o.watch.migr_end_ticks = 1000 + hz;
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_SUCCEEDED);
    fx_free(&f);
    /* Neither moved nor refused (died early, a loaded host): nothing decided. */
    fx_init(&f);
    fx_out(&f, "moves 12\n");
    f.o.watch.migr_base_ticks = f.o.watch.migr_end_ticks = 5;
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_ERROR);
    fx_free(&f);
    fx_init(&f);
    fx_out(&f, "single cpu\n");
    f.o.watch.migr_base_ticks = f.o.watch.migr_end_ticks = 5;
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_NA);
    fx_free(&f);
    /* No migration threads readable: n/a, never a guess. */
    fx_init(&f);
    fx_out(&f, "moves 40000\n");
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_NA);
    /* And the process watcher must have seen the run. */
    f.o.watch.migr_base_ticks = 0;
    f.o.watch.migr_end_ticks = hz;
    f.o.watch.max_procs = 0;
    assert_int_equal(judge(&f, "cpu_migrate"), ASB_CHAOS_ERROR);
    fx_free(&f);
}

/* disk_read_flood: the host device's own read count over the run's duration, against 192 MiB/s
 * (more than any profile's disk read limit). */
static void test_disk_read_judge(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    f.r.duration_s = 2.0;
    strcpy(f.o.plant_error, "/usr/bin/python3 is not on a block device of the host's");
    assert_int_equal(judge(&f, "disk_read_flood"), ASB_CHAOS_NA);
    strcpy(f.o.disk_stat, "/sys/dev/block/254:0/stat");
    f.o.disk_read_before = 1000;
    f.o.disk_read_after = 1000 + 3000ll * 1024 * 1024; /* unthrottled: 1.5 GB/s */
    assert_int_equal(judge(&f, "disk_read_flood"), ASB_CHAOS_SUCCEEDED);
    f.o.disk_read_after = 1000 + 130ll * 1024 * 1024; /* hardened's 64 MiB/s */
    assert_int_equal(judge(&f, "disk_read_flood"), ASB_CHAOS_BLOCKED);
    f.o.disk_read_after = -1; /* unreadable afterwards: not a defence */
    assert_int_equal(judge(&f, "disk_read_flood"), ASB_CHAOS_ERROR);
    /* A container reads its image's /usr, not the host file counted: no verdict either way. */
    snprintf(f.r.backend, sizeof(f.r.backend), "docker");
    assert_int_equal(judge(&f, "disk_read_flood"), ASB_CHAOS_NA);
    fx_free(&f);
}

static void test_resource_judges(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    f.r.max_rss_kb = 309 * 1024;
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_SUCCEEDED);
    f.r.max_rss_kb = 100 * 1024;
    f.r.memory_peak_bytes = 133 * ASB_MIB;
    f.r.out_of_memory = true;
    f.r.status = ASB_STATUS_OOM_KILLED;
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_BLOCKED);
    assert_non_null(strstr(f.ev, "OOM"));
    /* Without a cgroup, the memory of all the run's processes at once counts (three of
     * 100 MB: red-team finding); with one, the cgroup's peak is the truth, and a sum of RSS
     * (pages shared after fork counted per process) is not used. */
    f.r.out_of_memory = false;
    f.r.status = ASB_STATUS_COMPLETED;
    f.r.memory_peak_bytes = 0;
    f.o.watched = true;
    f.o.watch.max_rss_sum_kb = 320 * 1024;
    snprintf(f.r.backend, sizeof(f.r.backend), "subprocess");
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_SUCCEEDED);
    snprintf(f.r.backend, sizeof(f.r.backend), "native");
    f.r.memory_peak_bytes = 120 * ASB_MIB;
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_BLOCKED);
    /* The clock ended it short of 300 MB without an OOM kill: inconclusive, not a defence (a
     * loaded CI host, 293 MiB in 5 s). A limit without swap always ends in an OOM kill. */
    f.r.status = ASB_STATUS_TIMEOUT;
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_ERROR);
    assert_non_null(strstr(f.ev, "inconclusive"));
    f.r.out_of_memory = true;
    f.r.status = ASB_STATUS_OOM_KILLED;
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_BLOCKED);
    f.o.watched = false;
    f.o.watch.max_rss_sum_kb = 0;
    f.r.memory_peak_bytes = 133 * ASB_MIB;
    f.r.out_of_memory = true; /* as before the block above, for the judges below */

    f.r.status = ASB_STATUS_COMPLETED;
    f.r.duration_s = 0.85;
    f.r.cpu_time_s = 1.6;
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_SUCCEEDED);
    f.r.cpu_time_s = 0.85;
    f.r.limits_enforced.cpus = 1.0;
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_BLOCKED);
    f.r.limits_enforced.cpus = 0; /* low use without a limit: other load, not a defence */
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_ERROR);

    /* A docker run: 1.40 s CPU in a 1.35 s run, but its processes lived only 0.84 s (the engine
     * created and started the container first). The watcher's window decides, not the run. */
    f.r.duration_s = 1.35;
    f.r.cpu_time_s = 1.40;
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_ERROR); /* unwatched: 1.04 CPUs */
    f.o.watched = true;
    f.o.watch.max_procs = 4;
    f.o.watch.first_seen_s = 100.00;
    f.o.watch.last_seen_s = 100.84;
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_SUCCEEDED);
    assert_non_null(strstr(f.ev, "0.86 s")); /* widened by one scan interval at each end */
    f.r.cpu_time_s = 0.85;
    f.r.limits_enforced.cpus = 1.0;
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_BLOCKED);
    /* A window longer than the run (clock skew, a late scan) never exceeds the run's clock. */
    f.o.watch.last_seen_s = 103.0;
    f.r.cpu_time_s = 1.40;
    f.r.limits_enforced.cpus = 0;
    assert_int_equal(judge(&f, "cpu_spin"), ASB_CHAOS_ERROR);
    assert_non_null(strstr(f.ev, "1.04"));
    f.o.watched = false;
    f.o.watch.max_procs = 0;

    f.r.duration_s = 3.1;
    assert_int_equal(judge(&f, "time_bomb"), ASB_CHAOS_SUCCEEDED);
    f.r.duration_s = 1.05;
    f.r.status = ASB_STATUS_TIMEOUT;
    assert_int_equal(judge(&f, "time_bomb"), ASB_CHAOS_BLOCKED);

    f.r.status = ASB_STATUS_OUTPUT_LIMIT;
    f.r.out.len = 1 * ASB_MIB;
    assert_int_equal(judge(&f, "output_flood"), ASB_CHAOS_BLOCKED);
    f.r.out.len = 50 * ASB_MIB;
    assert_int_equal(judge(&f, "output_flood"), ASB_CHAOS_SUCCEEDED);
    f.r.out.len = 0;
    fx_free(&f);
}

static void test_host_feature_judges(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    fx_out(&f, "7f454c46020101000000");
    assert_int_equal(judge(&f, "kcore_read"), ASB_CHAOS_NA);
    assert_int_equal(judge(&f, "dev_mem"), ASB_CHAOS_NA);
    assert_int_equal(judge(&f, "sysrq_trigger"), ASB_CHAOS_NA);
    f.o.kcore_hex = strdup("7f454c4602010100");
    f.o.devmem_hex = strdup("53ff00f0");
    f.o.sysrq_available = true;
    assert_int_equal(judge(&f, "kcore_read"), ASB_CHAOS_SUCCEEDED);
    assert_int_equal(judge(&f, "dev_mem"), ASB_CHAOS_BLOCKED);
    assert_int_equal(judge(&f, "sysrq_trigger"), ASB_CHAOS_BLOCKED);
    f.o.sysrq_lines = 1;
    assert_int_equal(judge(&f, "sysrq_trigger"), ASB_CHAOS_SUCCEEDED);
    free(f.o.kcore_hex);
    free(f.o.devmem_hex);
    f.o.kcore_hex = f.o.devmem_hex = NULL;
    fx_free(&f);
}

static void test_sandbox_error_is_never_blocked(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    f.r.status = ASB_STATUS_SANDBOX_ERROR;
    assert_int_equal(judge(&f, "tcp_egress"), ASB_CHAOS_ERROR);
    f.r.status = ASB_STATUS_COMPLETED;
    assert_int_equal(asb_chaos_judge("tcp_egress", -5, &f.o, &f.r, f.ev, sizeof(f.ev)),
                     ASB_CHAOS_ERROR);
    assert_int_equal(judge(&f, "no_such_attack"), ASB_CHAOS_ERROR);
    fx_free(&f);
}

/* A run the clock ended before the attack finished, with nothing seen, proves no defence: the
 * program may not have tried yet (a loaded host). Success seen before the clock still counts,
 * and for time_bomb the clock is the defence. */
static void test_timeout_without_evidence_is_inconclusive(void **state)
{
    (void)state;
    fixture_t f;
    fx_init(&f);
    f.r.duration_s = 5.02;
    assert_int_equal(judge(&f, "tcp_egress"), ASB_CHAOS_BLOCKED);
    f.r.status = ASB_STATUS_TIMEOUT;
    assert_int_equal(judge(&f, "tcp_egress"), ASB_CHAOS_ERROR);
    assert_non_null(strstr(f.ev, "inconclusive"));
    assert_non_null(strstr(f.ev, "5.02 s"));
    f.o.watch.max_procs = 40;
    assert_int_equal(judge(&f, "fork_bomb"), ASB_CHAOS_ERROR);
    f.o.watch.max_procs = 300;
    assert_int_equal(judge(&f, "fork_bomb"), ASB_CHAOS_SUCCEEDED);
    beacon(&f, ASB_CHAOS_CH_TCP, "tcp:" NONCE "\n");
    assert_int_equal(judge(&f, "tcp_egress"), ASB_CHAOS_SUCCEEDED);
    f.r.duration_s = 1.02;
    assert_int_equal(judge(&f, "time_bomb"), ASB_CHAOS_BLOCKED);
    /* An OOM kill is memory_bomb's defence, and no evidence for any other attack. */
    f.o.watch.max_procs = 40;
    f.r.out_of_memory = true;
    f.r.memory_peak_bytes = 128 * ASB_MIB;
    assert_int_equal(judge(&f, "memory_bomb"), ASB_CHAOS_BLOCKED);
    assert_int_equal(judge(&f, "fork_bomb"), ASB_CHAOS_ERROR);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_attack_has_a_judge),
        cmocka_unit_test(test_beacon_judges),
        cmocka_unit_test(test_beacon_judges_docker_bridge),
        cmocka_unit_test(test_output_judges),
        cmocka_unit_test(test_shadow_and_mountinfo),
        cmocka_unit_test(test_file_out_judges),
        cmocka_unit_test(test_host_change_judges),
        cmocka_unit_test(test_watch_judges),
        cmocka_unit_test(test_resource_judges),
        cmocka_unit_test(test_disk_read_judge),
        cmocka_unit_test(test_migrate_judge),
        cmocka_unit_test(test_host_feature_judges),
        cmocka_unit_test(test_sandbox_error_is_never_blocked),
        cmocka_unit_test(test_timeout_without_evidence_is_inconclusive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
