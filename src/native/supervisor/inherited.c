/* inherited.c - process state the supervisor does not take over from the host-side caller.
 *
 * clone and exec keep a process's personality, OOM score adjustment, scheduling policy, nice
 * value, I/O priority, umask and resource limits, so a caller running under `setarch -R` (or a
 * debugger), as an OOM-protected service or with real-time priority handed all of it to the
 * untrusted program (red-team finding: ASLR was off in every workload of such a caller). The
 * supervisor resets it first thing, before it builds anything, for itself and so for everything
 * it forks; the workload attests what is in force (sup_attest) and the host checks it. Every
 * reset here only lowers privilege, which a process may always do for itself. */
#include "core/error.h"
#include "core/limits.h"
#include "native/supervisor/sup.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_RT 1
#define IOPRIO_CLASS_BE 2
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_BE_NORM 4

/* The OOM killer's first choice, whatever protection the caller has. Raising the value needs
 * no privilege; a workload can lower it again only down to the caller's own minimum
 * (oom_score_adj_min), which THREAT_MODEL.md asks callers to keep at 0 or above. In a container
 * Docker's runtime has set it already (OomScoreAdj), and there our non-dumpable supervisor, not
 * root, could not open the file for writing: an equal value is left alone. */
static int oom_first(asb_error_t *err)
{
    static const char path[] = "/proc/self/oom_score_adj";
    if (sup_read_int(path, INT64_MIN) == ASB_SANDBOX_OOM_SCORE_ADJ)
        return 0;
    char val[16];
    int n = snprintf(val, sizeof(val), "%d", ASB_SANDBOX_OOM_SCORE_ADJ);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, val, (size_t)n) != n) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return asb_err_sys(err, e, "set oom_score_adj to %d", ASB_SANDBOX_OOM_SCORE_ADJ);
    }
    close(fd);
    return 0;
}

int sup_reset_inherited(asb_error_t *err)
{
    /* Plain Linux: ADDR_NO_RANDOMIZE (no ASLR), READ_IMPLIES_EXEC and the rest cleared. */
    if (personality(PER_LINUX) < 0 || personality(0xffffffff) != PER_LINUX)
        return asb_err_sys(err, errno, "reset the personality to PER_LINUX");
    umask(ASB_SANDBOX_UMASK);
    int rc = oom_first(err);
    if (rc < 0)
        return rc;
    /* No real-time class: a FIFO or RR caller's priority would let the program starve the host.
     * (SCHED_BATCH and SCHED_IDLE are kept: they only yield more.) */
    /* Raw calls: musl's wrappers refuse (ENOSYS), the policy being per thread on Linux. */
    int pol = (int)syscall(SYS_sched_getscheduler, 0);
    if (pol == SCHED_FIFO || pol == SCHED_RR) {
        struct sched_param sp = {.sched_priority = 0};
        if (syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp) < 0)
            return asb_err_sys(err, errno, "leave the caller's real-time scheduling class");
    } else if (pol < 0) {
        return asb_err_sys(err, errno, "read the scheduling policy");
    }
    /* Never a better nice value than a default process (a worse one is the caller's choice). */
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    if (errno == 0 && nice < 0 && setpriority(PRIO_PROCESS, 0, 0) < 0)
        return asb_err_sys(err, errno, "reset the nice value to 0");
    /* Nor the real-time I/O class. */
    long io = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
    if (io >= 0 && (io >> IOPRIO_CLASS_SHIFT) == IOPRIO_CLASS_RT &&
        syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
                (IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT) | IOPRIO_BE_NORM) < 0)
        return asb_err_sys(err, errno, "leave the caller's real-time I/O class");
    /* No KSM page sharing handed down: the caller's "merge everything" flag survives fork and
     * exec (a systemd service with MemoryKSM=yes), and hardened refuses to set it for a reason
     * (docs/SECCOMP.md; review finding). EINVAL: this kernel has no KSM. */
    long merge = (long)prctl(68 /* PR_GET_MEMORY_MERGE */, 0, 0, 0, 0);
    if (merge > 0 && prctl(67 /* PR_SET_MEMORY_MERGE */, 0, 0, 0, 0) < 0)
        return asb_err_sys(err, errno, "leave the caller's KSM page sharing");
    /* Nor the caller's I/O flusher flag (a userspace block or FUSE server's: PF_MEMALLOC_NOIO
     * and PF_LOCAL_THROTTLE change how the kernel reclaims and throttles for the process), which
     * survives fork and exec too (red-team note, session 19). Reading and clearing it need
     * CAP_SYS_RESOURCE, which the native supervisor has at this point; in a container, where the
     * runtime started us and nothing of a caller's reaches us, EPERM leaves it. */
    long flusher = (long)prctl(58 /* PR_GET_IO_FLUSHER */, 0, 0, 0, 0);
    if (flusher > 0 && prctl(57 /* PR_SET_IO_FLUSHER */, 0, 0, 0, 0) < 0)
        return asb_err_sys(err, errno, "leave the caller's I/O flusher state");
    /* And no way back to either: no real-time priority, no nice value below the current one. */
    struct rlimit zero = {0, 0};
    if (setrlimit(RLIMIT_RTPRIO, &zero) < 0 || setrlimit(RLIMIT_NICE, &zero) < 0)
        return asb_err_sys(err, errno, "RLIMIT_RTPRIO and RLIMIT_NICE to 0");
    return 0;
}
