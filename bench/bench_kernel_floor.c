/* bench_kernel_floor - what the kernel alone charges for the hardened profile's controls.
 *
 * No agent-sandbox code runs here: each arm is one bare system call in a fresh child, timed from
 * where its caller waits, interleaved round by round in a shuffled order, medians. It answers
 * "how much of a cold hardened run is the kernel's own price for a control the profile must
 * have", which no change of ours can remove:
 *  - clone3 with the hardened profile's namespaces, with and without the network namespace
 *    (its creation runs every registered subsystem's per-namespace setup);
 *  - loading our hardened and docker-default seccomp programs (the kernel checks, converts and
 *    JIT-compiles them, and precomputes its per-syscall cache) against a one-instruction one;
 *  - a whole run of /bin/true, from the clone to the reaped exit: bare, as PID 1 of the hardened
 *    profile's namespaces, and there with the least private root a sandbox has (a tmpfs, a
 *    read-only /usr, /proc, pivot_root). The last is below what any namespace sandbox does
 *    (bubblewrap does more), so its distance to bare is a floor no cold sandbox run can beat on
 *    this kernel, whatever its code.
 * Needs root (the namespaces); prints a skip otherwise. Not a test: no pass/fail. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_clock.h"
#include "seccomp_bpf.h"

enum { ROUNDS_DEFAULT = 60 };

#define NS_HARDENED_NO_NET                                                                         \
    (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

typedef struct arm {
    const char *name;
    int kind; /* 0: clone3; 1: seccomp load; 2: /bin/true in flags; 3: and a root; 4: and PID 1 */
    uint64_t flags;
    struct sock_fprog prog;
} arm_t;

/* A child in new namespaces (flags), reaped with SIGCHLD: 0 in the child, as fork. */
static long clone3_child(uint64_t flags)
{
    struct clone_args a;
    memset(&a, 0, sizeof(a));
    a.flags = flags;
    a.exit_signal = SIGCHLD;
    return syscall(SYS_clone3, &a, sizeof(a));
}

/* What the creator waits for in clone3 (the child exits at once; reaping is not timed). */
static double time_clone3(uint64_t flags)
{
    double t = now_s();
    long pid = clone3_child(flags);
    double d = now_s() - t;
    if (pid == 0)
        _exit(0);
    if (pid < 0) {
        fprintf(stderr, "bench_kernel_floor: clone3 %#llx: %s\n", (unsigned long long)flags,
                strerror(errno));
        exit(1);
    }
    while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return d;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The least private root a sandbox has, built by PID 1 of fresh user, pid and mount namespaces:
 * its own id maps (a file cannot be made without them), a tmpfs with /usr bound read-only, the
 * merged-/usr links and a /proc. 0, or -1 with errno. */
static int minimal_root(void)
{
    static const char *const links[][2] = {
        {"usr/bin", "/tmp/bin"}, {"usr/lib", "/tmp/lib"}, {"usr/lib64", "/tmp/lib64"}};
    if (write_file("/proc/self/setgroups", "deny") < 0 ||
        write_file("/proc/self/uid_map", "0 0 1") < 0 ||
        write_file("/proc/self/gid_map", "0 0 1") < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") < 0 ||
        mkdir("/tmp/usr", 0755) < 0 || mkdir("/tmp/proc", 0755) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
        if (symlink(links[i][0], links[i][1]) < 0)
            return -1;
    if (mount("/usr", "/tmp/usr", NULL, MS_BIND | MS_REC, NULL) < 0 ||
        mount(NULL, "/tmp/usr", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
              NULL) < 0 ||
        mount("proc", "/tmp/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ||
        chdir("/tmp") < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
        umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
        return -1;
    return 0;
}

/* PID 1 stays, as a supervisor does: /bin/true runs in a child it starts and reaps (vfork, so
 * that the copy of this bench's own address space is not what is measured). */
static void exec_true_under_pid1(void)
{
    char *const argv[] = {"true", NULL};
    char *const envp[] = {NULL};
    pid_t pid = vfork();
    if (pid == 0) {
        execve("/bin/true", argv, envp);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
        _exit(125);
    _exit(WEXITSTATUS(st));
}

/* One run of /bin/true from the clone to its reaped exit: the child execs it directly, as PID 1
 * of the namespaces in flags (none: a plain fork), after building a root when asked; with
 * pid1, PID 1 starts it in a child of its own and waits instead. */
static double time_true(uint64_t flags, bool root, bool pid1)
{
    double t = now_s();
    long pid = clone3_child(flags);
    if (pid == 0) {
        char *const argv[] = {"true", NULL};
        char *const envp[] = {NULL};
        if (root && minimal_root() < 0)
            _exit(126);
        if (pid1)
            exec_true_under_pid1();
        execve("/bin/true", argv, envp);
        _exit(127);
    }
    int st = 0;
    if (pid > 0)
        while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
            ;
    double d = now_s() - t;
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_kernel_floor: /bin/true in namespaces %#llx%s failed (%s)\n",
                (unsigned long long)flags, root ? " with a root" : "",
                pid < 0 ? strerror(errno) : "the child's exit status was not 0");
        exit(1);
    }
    return d;
}

/* The seccomp(2) call itself, timed in a fresh child (a filter cannot be removed again). */
static double time_seccomp(const struct sock_fprog *prog)
{
    int p[2];
    if (pipe(p) < 0) {
        perror("bench_kernel_floor: pipe");
        exit(1);
    }
    pid_t pid = fork();
    if (pid == 0) {
        double d = -1;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
            double t = now_s();
            if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, prog) == 0)
                d = now_s() - t;
        }
        ssize_t w = write(p[1], &d, sizeof(d));
        _exit(w == (ssize_t)sizeof(d) ? 0 : 1);
    }
    close(p[1]);
    double d = -1;
    ssize_t n = pid > 0 ? read(p[0], &d, sizeof(d)) : -1;
    close(p[0]);
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    if (n != (ssize_t)sizeof(d) || d < 0) {
        fprintf(stderr, "bench_kernel_floor: seccomp load of %u instructions failed\n",
                (unsigned)prog->len);
        exit(1);
    }
    return d;
}

static double time_arm(const arm_t *a)
{
    switch (a->kind) {
    case 0:
        return time_clone3(a->flags);
    case 1:
        return time_seccomp(&a->prog);
    default:
        return time_true(a->flags, a->kind >= 3, a->kind == 4);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS_DEFAULT;
    if (rounds < 5)
        rounds = 5;
    if (geteuid() != 0) {
        printf("SKIP: bench_kernel_floor needs root (user, pid and network namespaces)\n");
        return 0;
    }
    static const struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    arm_t arms[] = {
        {"clone3, no namespace", 0, 0, {0}},
        {"clone3, hardened namespaces without net", 0, NS_HARDENED_NO_NET, {0}},
        {"clone3, hardened namespaces (with net)", 0, NS_HARDENED_NO_NET | CLONE_NEWNET, {0}},
        {"seccomp, 1-instruction program", 1, 0, {1, (struct sock_filter *)allow}},
        {"seccomp, docker_default program",
         1,
         0,
         {(unsigned short)asb_bpf_docker_default_len,
          (struct sock_filter *)asb_bpf_docker_default}},
        {"seccomp, hardened program",
         1,
         0,
         {(unsigned short)asb_bpf_hardened_len, (struct sock_filter *)asb_bpf_hardened}},
        {"/bin/true, bare (clone to reaped exit)", 2, 0, {0}},
        {"/bin/true as PID 1 of hardened namespaces", 2, NS_HARDENED_NO_NET | CLONE_NEWNET, {0}},
        {"/bin/true there, with a minimal root", 3, NS_HARDENED_NO_NET | CLONE_NEWNET, {0}},
        {"/bin/true there, started by a waiting PID 1", 4, NS_HARDENED_NO_NET | CLONE_NEWNET, {0}},
    };
    enum { N = sizeof(arms) / sizeof(arms[0]) };
    double *t[N];
    for (int a = 0; a < N; a++)
        if (!(t[a] = calloc((size_t)rounds, sizeof(double)))) {
            perror("bench_kernel_floor");
            return 1;
        }
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    for (int a = 0; a < N; a++) /* warm-up */
        (void)time_arm(&arms[a]);
    for (int r = 0; r < rounds; r++) {
        int order[N];
        shuffled(order, N);
        for (int k = 0; k < N; k++) {
            const arm_t *a = &arms[order[k]];
            t[order[k]][r] = time_arm(a);
        }
    }
    double m[N];
    for (int a = 0; a < N; a++)
        m[a] = median(t[a], rounds) * 1e3;
    printf("bench_kernel_floor: %d rounds, interleaved, shuffled (seed %u); one system call each,\n"
           "or one /bin/true from clone to reaped exit\n",
           rounds, seed);
    printf("%-44s %10s\n", "arm", "median_ms");
    for (int a = 0; a < N; a++)
        printf("%-44s %10.3f\n", arms[a].name, m[a]);
    printf("network namespace creation:       +%.3f ms\n", m[2] - m[1]);
    printf("hardened seccomp program load:    +%.3f ms over a 1-instruction program\n",
           m[5] - m[3]);
    printf("kernel floor of these two controls in a cold hardened run: %.3f ms\n",
           (m[2] - m[0]) + m[5]);
    printf("/bin/true in the namespaces alone:  +%.3f ms over bare\n", m[7] - m[6]);
    printf("/bin/true there with a minimal root: +%.3f ms over bare: the kernel's floor for any\n"
           "  cold namespace sandbox on this host (issue 2's cold target: +3 ms)\n",
           m[8] - m[6]);
    printf("and started by a PID 1 that waits:   +%.3f ms over bare (a supervisor's least cost)\n",
           m[9] - m[6]);
    for (int a = 0; a < N; a++)
        free(t[a]);
    return 0;
}
