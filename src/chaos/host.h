/* host.h - the harness's host-side state for one run: a private directory under /tmp, canaries
 * in /root and /tmp, targets for the write attacks, a victim process, a SysV segment, a key, a
 * deliberately inheritable fd, the kernel-log position. All random, all removed afterwards. */
#ifndef ASB_CHAOS_HOST_H
#define ASB_CHAOS_HOST_H

#include "agent_sandbox.h"
#include "chaos/obs.h"

#include <sys/types.h>

enum {
    ASB_CHAOS_PLANT_VICTIM = 1u << 0,
    ASB_CHAOS_PLANT_SHM = 1u << 1,
    ASB_CHAOS_PLANT_KEY = 1u << 2,
    ASB_CHAOS_PLANT_FD = 1u << 3,
    ASB_CHAOS_PLANT_SYSRQ = 1u << 4,
    ASB_CHAOS_PLANT_MOUNT = 1u << 5, /* a tmpfs with a random name mounted on the host */
    ASB_CHAOS_PLANT_CACHE = 1u << 6, /* a /usr file the sandbox sees, in the host's page cache */
    ASB_CHAOS_PLANT_DISK = 1u << 7,  /* a /usr file on a host block device, and its read count */
};

#define ASB_CHAOS_MAX_CGROUP_TARGETS 8
#define ASB_CHAOS_TMP_PREFIX "asb-chaos-"
#define ASB_CHAOS_ENV_MAX 20

typedef struct asb_chaos_host {
    unsigned plant;
    /* "<owner pid>-<owner start time>-<16 hex>": every name below carries it, so that what a
     * killed harness left is found and removed by `cleanup` (asb_chaos_reap_stale). */
    char rnd[64];
    char dir[256]; /* /tmp/asb-chaos-<rnd>, removed with everything in it */
    char root_canary[256], tmp_canary[300], marker[300], mount_target[300], docker_path[300];
    char planted_mount[300]; /* PLANT_MOUNT: where, when mounted */
    char rootfs_targets[2][256];
    char cgroup_targets[ASB_CHAOS_MAX_CGROUP_TARGETS][300];
    int n_cgroup_targets;
    pid_t victim;
    int shm_id;
    long key_id;
    int fd_canary;
    int kmsg_fd;
    char env_store[ASB_CHAOS_ENV_MAX][1024];
    const char *env[ASB_CHAOS_ENV_MAX];
    size_t n_env;
} asb_chaos_host_t;

/* Plant everything; fills the planted values and reference facts into o. On failure what was
 * made is still removed by asb_chaos_host_teardown. */
int asb_chaos_host_setup(asb_chaos_host_t *h, unsigned plant, asb_chaos_obs_t *o, asb_error_t *err);

/* Add an ASB_CHAOS_<key>=<value> entry for the run's environment. */
void asb_chaos_host_env(asb_chaos_host_t *h, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* After the run: what changed on the host (files, mounts, cgroups, victim, kernel log). */
void asb_chaos_host_observe(asb_chaos_host_t *h, asb_chaos_obs_t *o);

/* mtime of the orphan's marker in ns, 0 when absent. */
long long asb_chaos_host_marker_mtime(const asb_chaos_host_t *h);

/* Remove every planted object; undo mounts and cgroups the attack made. */
void asb_chaos_host_teardown(asb_chaos_host_t *h);

/* What harnesses that were killed (SIGKILL: no teardown ran) left on the host: for each
 * /tmp/asb-chaos-<rnd> whose owner is gone, the same objects teardown removes (mounts under
 * it, its canaries, the write attacks' targets, cgroup targets, its key and SysV segment),
 * then the directory. Live harnesses' are never touched. Appends a line per harness to
 * *report (malloc'd); returns how many were removed. */
int asb_chaos_reap_stale(char **report);

#endif
