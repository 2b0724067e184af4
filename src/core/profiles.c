#include "core/profiles.h"
#include "core/limits.h"

#include <linux/capability.h>
#include <string.h>

#define CAPBIT(c) (1ull << (c))

uint64_t asb_docker_default_caps(void)
{
    /* moby/oci default capability list (CHOWN ... AUDIT_WRITE): the 14 caps a `docker run` gets. */
    return CAPBIT(CAP_CHOWN) | CAPBIT(CAP_DAC_OVERRIDE) | CAPBIT(CAP_FSETID) | CAPBIT(CAP_FOWNER) |
           CAPBIT(CAP_MKNOD) | CAPBIT(CAP_NET_RAW) | CAPBIT(CAP_SETGID) | CAPBIT(CAP_SETUID) |
           CAPBIT(CAP_SETFCAP) | CAPBIT(CAP_SETPCAP) | CAPBIT(CAP_NET_BIND_SERVICE) |
           CAPBIT(CAP_SYS_CHROOT) | CAPBIT(CAP_KILL) | CAPBIT(CAP_AUDIT_WRITE);
}

static const asb_profile_t PROFILES[] = {
    {
        .name = "subprocess",
        .summary = "UNSAFE baseline: a host process in a private temp dir, scrubbed env, own "
                   "session, wall clock and output caps. Code runs on the host.",
        .sandboxed = false,
        .root = ASB_ROOT_HOST,
        .caps = ASB_CAPS_UNCHANGED,
        .seccomp = ASB_SECCOMP_NONE,
        .uid = -1,
        .gid = -1,
        .defaults = {.timeout_s = ASB_DEFAULT_TIMEOUT_S,
                     .output_bytes = ASB_DEFAULT_OUTPUT_BYTES,
                     .file_in_bytes = ASB_DEFAULT_FILE_IN_BYTES,
                     .file_out_bytes = ASB_DEFAULT_FILE_OUT_BYTES},
    },
    {
        .name = "baseline",
        .summary = "What a default container gives, plus host-safety limits: user, pid, mount, "
                   "ipc, uts, cgroup namespaces; root inside is unprivileged outside; writable "
                   "root that never reaches the host; Docker's default caps and seccomp; HOST "
                   "NETWORK.",
        .sandboxed = true,
        .ns_user = true,
        .ns_pid = true,
        .ns_mount = true,
        .ns_ipc = true,
        .ns_uts = true,
        .ns_cgroup = true,
        .ns_net = false,
        .root = ASB_ROOT_OVERLAY_RW,
        .mask_proc = true,
        .workspace_bytes = ASB_BASELINE_WORKSPACE_BYTES,
        .tmp_bytes = ASB_BASELINE_TMP_BYTES,
        .caps = ASB_CAPS_DOCKER_DEFAULT,
        .seccomp = ASB_SECCOMP_DOCKER_DEFAULT,
        .no_new_privs = false,
        .landlock = false,
        .landlock_scope = true,
        .devpts = true,
        .cgroup = true,
        .uid = 0,
        .gid = 0,
        .defaults = {.timeout_s = ASB_DEFAULT_TIMEOUT_S,
                     .memory_bytes = ASB_BASELINE_MEMORY_BYTES,
                     .pids = ASB_BASELINE_PIDS,
                     .cpus = ASB_BASELINE_CPUS,
                     .output_bytes = ASB_DEFAULT_OUTPUT_BYTES,
                     .nofile = ASB_BASELINE_NOFILE,
                     .file_in_bytes = ASB_DEFAULT_FILE_IN_BYTES,
                     .file_out_bytes = ASB_DEFAULT_FILE_OUT_BYTES,
                     .io_read_bps = ASB_BASELINE_IO_READ_BPS,
                     .io_read_iops = ASB_BASELINE_IO_READ_IOPS},
    },
    {
        .name = "hardened",
        .summary = "No network but lo; read-only allowlisted root; uid 65534 with no "
                   "capabilities; no_new_privs; strict seccomp; Landlock; tight cgroup limits.",
        .sandboxed = true,
        .ns_user = true,
        .ns_pid = true,
        .ns_mount = true,
        .ns_ipc = true,
        .ns_uts = true,
        .ns_cgroup = true,
        .ns_net = true,
        .root = ASB_ROOT_ALLOWLIST_RO,
        .mask_proc = true,
        .tmp_noexec = true,
        .workspace_noexec = true,
        .workspace_bytes = ASB_HARDENED_WORKSPACE_BYTES,
        .tmp_bytes = ASB_HARDENED_TMP_BYTES,
        .caps = ASB_CAPS_NONE,
        .seccomp = ASB_SECCOMP_HARDENED,
        .no_new_privs = true,
        .landlock = true,
        .landlock_scope = false, /* own net+pid namespaces; scope still applied on ABI >= 6 */
        .memfd_noexec = true,
        .uname_hidden = true,
        .cgroup = true,
        .uid = ASB_HARDENED_UID,
        .gid = ASB_HARDENED_GID,
        .defaults = {.timeout_s = ASB_DEFAULT_TIMEOUT_S,
                     .memory_bytes = ASB_HARDENED_MEMORY_BYTES,
                     .pids = ASB_HARDENED_PIDS,
                     .cpus = ASB_HARDENED_CPUS,
                     .output_bytes = ASB_DEFAULT_OUTPUT_BYTES,
                     .fsize_bytes = ASB_HARDENED_FSIZE_BYTES,
                     .nofile = ASB_HARDENED_NOFILE,
                     .file_in_bytes = ASB_DEFAULT_FILE_IN_BYTES,
                     .file_out_bytes = ASB_DEFAULT_FILE_OUT_BYTES,
                     .io_read_bps = ASB_HARDENED_IO_READ_BPS,
                     .io_read_iops = ASB_HARDENED_IO_READ_IOPS},
    },
};

static const char *const PROFILE_NAMES[] = {"subprocess", "baseline", "hardened", NULL};

const asb_profile_t *asb_profile_table(size_t *count)
{
    *count = sizeof(PROFILES) / sizeof(PROFILES[0]);
    return PROFILES;
}

const asb_profile_t *asb_profile_find(const char *name)
{
    if (!name)
        name = "hardened";
    for (size_t i = 0; i < sizeof(PROFILES) / sizeof(PROFILES[0]); i++)
        if (strcmp(PROFILES[i].name, name) == 0)
            return &PROFILES[i];
    return NULL;
}

const char *const *asb_profile_names(void)
{
    return PROFILE_NAMES;
}
