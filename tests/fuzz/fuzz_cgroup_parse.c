/* fuzz_cgroup_parse.c - the cgroup parsers (src/native/cgroup_parse.c) read only the bytes they
 * are given and keep their promises on any input: mount points are NUL-terminated absolute
 * paths, no more hierarchies than fit, controller bits only from the known set, a parsed owner
 * name round-trips through formatting, pid lists stay within their array. The docker backend's
 * reading of /proc/PID/cgroup (src/docker/docker_cgroup.c) finds only absolute, terminated paths
 * that never climb out of the reader's cgroup namespace. */
#include "docker/docker.h"
#include "native/cgroup_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz_cgroup_parse"
#include "fuzz_must.h"

static void check_mount(const asb_cgroup_mount_t *m)
{
    must(memchr(m->mount, '\0', sizeof(m->mount)) != NULL, "mount point not terminated");
    must(m->mount[0] == '/', "mount point not absolute");
    unsigned known = ASB_CGROUP_CTRL_MEMORY | ASB_CGROUP_CTRL_PIDS | ASB_CGROUP_CTRL_CPU |
                     ASB_CGROUP_CTRL_CPUACCT | ASB_CGROUP_CTRL_IO;
    must((m->controllers & ~known) == 0, "unknown controller bit");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exact-size copies: ASan sees any read past the end. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);

    asb_cgroup_mounts_t m;
    memset(&m, 0, sizeof(m));
    asb_cgroup_mounts_scan(&m, buf, size);
    must(m.n_v1 <= ASB_CGROUP_MAX_HIERARCHIES, "too many v1 hierarchies");
    if (m.has_v2)
        check_mount(&m.v2);
    for (size_t i = 0; i < m.n_v1; i++)
        check_mount(&m.v1[i]);

    unsigned c = asb_cgroup_parse_controllers(buf, size);
    char names[128];
    asb_cgroup_controller_names(c, names, sizeof(names));
    must(memchr(names, '\0', sizeof(names)) != NULL, "controller names not terminated");

    uint64_t v;
    (void)asb_cgroup_parse_u64(buf, size, &v);
    (void)asb_cgroup_parse_key_u64(buf, size, "oom_kill", &v);
    (void)asb_cgroup_parse_stat_starttime(buf, size, &v);
    (void)asb_cgroup_parse_swaps_active(buf, size);
    (void)asb_cgroup_parse_io_read_bytes(buf, size, false, &v);
    (void)asb_cgroup_parse_io_read_bytes(buf, size, true, &v);
    unsigned maj, min;
    if (asb_cgroup_parse_devnum(buf, size, &maj, &min) == 0)
        must(maj <= 0xfff && min <= 0xfffff, "device number out of range");
    int64_t boot_ns = 0;
    if (asb_cgroup_parse_timens_boottime(buf, size, &boot_ns) == 0)
        must(boot_ns > -INT64_MAX && boot_ns < INT64_MAX, "boottime offset out of range");
    pid_t pids[8];
    must(asb_cgroup_parse_pids(buf, size, pids, 8) <= 8, "more pids than room");

    /* /proc/PID/cgroup text as the docker backend reads it: a NUL-terminated copy. */
    char *text = malloc(size + 1);
    if (text) {
        memcpy(text, data, size);
        text[size] = '\0';
        const char *ctrls[] = {NULL, "pids", "memory", ""};
        for (size_t i = 0; i < sizeof(ctrls) / sizeof(ctrls[0]); i++) {
            char path[64];
            memset(path, 'x', sizeof(path));
            int rc = asb_docker_cgroup_path_in(text, ctrls[i], path, sizeof(path));
            must(rc == 1 || rc == 0 || rc == -EINVAL || rc == -EXDEV,
                 "odd return from asb_docker_cgroup_path_in");
            if (rc == 1) {
                must(memchr(path, '\0', sizeof(path)) != NULL, "cgroup path not terminated");
                must(path[0] == '/', "cgroup path not absolute");
                must(strstr(path, "/..") == NULL, "cgroup path climbs out of the namespace");
            }
        }
        free(text);
    }

    /* Owner names: what parses formats to a name that parses to the same values. */
    char name[ASB_CGROUP_NAME_MAX + 1];
    size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
    memcpy(name, buf, n);
    name[n] = '\0';
    pid_t pid;
    uint64_t start, ns;
    if (asb_cgroup_parse_name(name, &pid, &start, &ns) == 0) {
        must(pid > 0, "parsed a non-positive pid");
        const char *d1 = strchr(name + strlen(ASB_OWNER_PREFIX) + 1, '-');
        const char *run = d1 ? strchr(d1 + 1, '-') : NULL; /* the run id may hold '-' itself */
        if (run && ns != 0)
            run = strchr(run + 1, '-'); /* past "p<pidns>" */
        must(run && asb_cgroup_valid_run_id(run + 1), "parsed a name without a valid run id");
        char again[ASB_CGROUP_NAME_MAX + 1];
        pid_t pid2;
        uint64_t start2, ns2;
        uint64_t want_ns = ns ? ns : 1; /* a name from before pid namespaces: written with one */
        must(asb_cgroup_format_name(again, sizeof(again), pid, start, want_ns, run + 1) == 0 &&
                 asb_cgroup_parse_name(again, &pid2, &start2, &ns2) == 0 && pid2 == pid &&
                 start2 == start && ns2 == want_ns,
             "a parsed name does not round-trip");
    }
    free(buf);
    return 0;
}
