/* profiles.h - the profile table: what each named profile enforces. The one place it lives. */
#ifndef ASB_CORE_PROFILES_H
#define ASB_CORE_PROFILES_H

#include "agent_sandbox.h"
#include <stdbool.h>

typedef enum asb_caps_policy {
    ASB_CAPS_UNCHANGED = 0, /* subprocess: whatever the caller has */
    ASB_CAPS_DOCKER_DEFAULT,
    ASB_CAPS_NONE,
} asb_caps_policy_t;

typedef enum asb_seccomp_policy {
    ASB_SECCOMP_NONE = 0,
    ASB_SECCOMP_DOCKER_DEFAULT,
    ASB_SECCOMP_HARDENED,
} asb_seccomp_policy_t;

typedef enum asb_root_policy {
    ASB_ROOT_HOST = 0,     /* subprocess: the host's file system */
    ASB_ROOT_OVERLAY_RW,   /* baseline: allowlisted system paths under a writable tmpfs overlay */
    ASB_ROOT_ALLOWLIST_RO, /* hardened: allowlisted system paths, read-only, nosuid, nodev */
} asb_root_policy_t;

typedef struct asb_profile {
    const char *name;
    const char *summary;
    bool sandboxed; /* false only for subprocess: runs on the host */
    /* namespaces */
    bool ns_user, ns_pid, ns_mount, ns_ipc, ns_uts, ns_cgroup, ns_net;
    asb_root_policy_t root;
    bool mask_proc; /* sensitive /proc entries masked, /proc/sys read-only */
    bool tmp_noexec;
    bool workspace_noexec; /* nothing written at run time can be executed (hardened, W^X) */
    uint64_t workspace_bytes, tmp_bytes;
    asb_caps_policy_t caps;
    asb_seccomp_policy_t seccomp;
    bool no_new_privs;
    bool landlock;
    /* Landlock scoping only (ABI >= 6): no connects to abstract unix sockets and no signals
     * outside the sandbox. Baseline shares the host network namespace, and with it the host's
     * abstract socket namespace (X11, D-Bus, container runtimes listen there). */
    bool landlock_scope;
    /* vm.memfd_noexec = 2 in the sandbox's pid namespace: no executable memfd, so code written
     * at run time cannot be exec'd through memfd_create + execveat (Landlock's execute check is
     * path-based and a memfd has no path under a rule). */
    bool memfd_noexec;
    /* Pseudo-terminals: a private devpts instance at /dev/pts (and /dev/ptmx), as a container
     * has. Not in hardened: a pty's line disciplines (TIOCSETD) are kernel surface of their own
     * (n_gsm, n_hdlc), and TIOCSTI is why a terminal is dangerous to share at all. */
    bool devpts;
    /* uname(2) is answered by the supervisor: the kernel's major and minor version only, no
     * build tag or build date, which name the exact kernel build (and its known bugs) to an
     * exploit; /proc/version, /proc/sys/kernel/{osrelease,version} agree and /usr/lib/modules
     * is empty. The vDSO's numeric version (LINUX_VERSION_CODE) cannot be hidden. */
    bool uname_hidden;
    bool cgroup;   /* memory (no swap), pids, cpu and disk read limits */
    long uid, gid; /* inside; -1 = unchanged */
    asb_limits_t defaults;
} asb_profile_t;

const asb_profile_t *asb_profile_find(const char *name);
const asb_profile_t *asb_profile_table(size_t *count);

/* Docker's default capability set (moby's defaults), as a bit mask of CAP_* numbers. */
uint64_t asb_docker_default_caps(void);

#endif
