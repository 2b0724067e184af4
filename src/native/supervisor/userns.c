/* userns.c - the supervisor makes the sandbox's user namespace itself, as the sandbox's own host
 * uid.
 *
 * The kernel counts some resources per user up the chain of user namespaces: queued signals,
 * processes (RLIMIT_NPROC), inotify instances, POSIX message queue bytes. Each count is charged
 * at every level to the uid that OWNS the namespace there, which is whoever created it. A user
 * namespace made by host root (as clone3 from the host did) charges everything its workload
 * queues to host root: kill(2) queues standard signals past any RLIMIT_SIGPENDING, and enough
 * sandboxes took host root past its own limit (red-team finding, session 8). So the host clones
 * us as host root into new pid and time namespaces only, and we:
 *   1. do what only host root can do for this pid namespace: set vm.memfd_noexec (the sysctl is
 *      per pid namespace, writable by global root only) and make its /proc instance (procfs
 *      takes its owner from the pid namespace, owned here by the host's user namespace);
 *   2. become the sandbox's own owner uid and gid (spec.owner_uid: one per id slot, below every
 *      range mapped into a sandbox, so never an id inside one), keeping our capabilities
 *      for this one step (SECBIT_NO_SETUID_FIXUP) so that hosts that restrict unprivileged user
 *      namespaces still let us make one, and unshare the user namespace: the kernel records that
 *      uid as its owner, and the host checks it (NS_GET_OWNER_UID) before it maps our ids;
 *   3. make the mount, ipc, uts and (hardened) network namespaces inside it, so that they belong
 *      to it as before (no id map is needed for that: the host writes them meanwhile), and
 *      after the host's "ids" become root of the namespace.
 * The mount namespace is made from inside the user namespace: every mount copied from the host
 * is locked there, as it was when clone3 made both at once. */
#include "core/error.h"
#include "native/proto.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#ifndef FSCONFIG_CMD_CREATE
#define FSCONFIG_CMD_CREATE 6
#endif

/* A procfs instance of our pid namespace, detached (mounted into the root later). */
static int proc_instance(asb_error_t *err)
{
    int fs = (int)syscall(SYS_fsopen, "proc", FSOPEN_CLOEXEC);
    if (fs < 0)
        return asb_err_sys(err, errno, "fsopen proc");
    int mnt = -1;
    if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
        mnt = asb_err_sys(err, errno, "create the sandbox's /proc");
    else if ((mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
                                 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) < 0)
        mnt = asb_err_sys(err, errno, "mount the sandbox's /proc");
    close(fs);
    return mnt;
}

int sup_enter_userns(const sup_spec_t *spec, int ctl, int *proc_mnt, asb_error_t *err)
{
    *proc_mnt = -1;
    if (geteuid() != 0)
        return asb_err(err, -EPERM, "the supervisor did not start as host root (euid %u)",
                       (unsigned)geteuid());
    /* 2 = no executable memfd: code written at run time cannot be exec'd via memfd + execveat.
     * The attestation checks the value; a kernel without it makes the hardened run refused. */
    if (spec->memfd_noexec) {
        int fd = open("/proc/sys/vm/memfd_noexec", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            (void)!write(fd, "2", 1);
            close(fd);
        }
    }
    int mnt = proc_instance(err);
    if (mnt < 0)
        return mnt;
    uid_t id = (uid_t)spec->owner_uid;
    int flags = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (spec->netns ? CLONE_NEWNET : 0);
    if (setgroups(0, NULL) < 0 || prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP, 0, 0, 0) < 0 ||
        setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0) {
        asb_err_sys(err, errno, "become the sandbox's owner uid %u", (unsigned)id);
        goto fail;
    }
    if (unshare(CLONE_NEWUSER) < 0) {
        asb_err_sys(err, errno, "unshare the user namespace as owner uid %u", (unsigned)id);
        goto fail;
    }
    /* Changing ids cleared both flags: set again at once (and once more in sup_take_ids). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (sup_send_msg(ctl, spec->nonce, "userns", NULL) < 0) {
        asb_err(err, -EPIPE, "cannot tell the host about the user namespace");
        goto fail;
    }
    /* While the host checks the owner and writes the maps. */
    if (unshare(flags) < 0) {
        asb_err_sys(err, errno, "unshare mount, ipc, uts%s namespaces", spec->netns ? ", net" : "");
        goto fail;
    }
    *proc_mnt = mnt;
    return 0;
fail:
    close(mnt);
    return err->code;
}

int sup_take_ids(int ctl, asb_error_t *err)
{
    int none[1];
    size_t n = 0;
    if (sup_recv_fds(ctl, "ids", ASB_SETUP_TIMEOUT_MS, none, 1, &n) < 0 || n != 0) {
        for (size_t i = 0; i < n; i++)
            close(none[i]);
        return asb_err(err, -EPROTO, "no id maps from the host");
    }
    /* Every id root of the namespace, which needs no privilege once the maps exist: anything
     * else means the sandbox is not the one the host made, and nothing runs. */
    uid_t ru, eu, su;
    gid_t rg, eg, sg;
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0 || getresuid(&ru, &eu, &su) < 0 ||
        getresgid(&rg, &eg, &sg) < 0 || ru | eu | su | rg | eg | sg)
        return asb_err(err, -EPERM, "cannot make every id root of the sandbox's user namespace");
    /* Not dumpable: nothing in the sandbox may ptrace us or open our /proc entries; and we die
     * with the host. Set after the last id change, whatever it cleared. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    return 0;
}
