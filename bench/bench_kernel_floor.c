/* bench_kernel_floor - what the kernel alone charges for the hardened profile's controls.
 *
 * No agent-sandbox code runs here: each arm is one bare system call in a fresh child, timed from
 * where its caller waits, interleaved round by round in a shuffled order, medians. It answers
 * "how much of a cold hardened run is the kernel's own price for a control the profile must
 * have", which no change of ours can remove:
 *  - clone3 with the hardened profile's namespaces, with and without the network namespace
 *    (its creation runs every registered subsystem's per-namespace setup);
 *  - loading our hardened and docker-default seccomp programs (the kernel checks, converts and
 *    JIT-compiles them, and precomputes its per-syscall cache) against a one-instruction one.
 * Needs root (the namespaces); prints a skip otherwise. Not a test: no pass/fail. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
    int kind; /* 0: clone3 with flags; 1: seccomp load of prog */
    uint64_t flags;
    struct sock_fprog prog;
} arm_t;

/* What the creator waits for in clone3 (the child exits at once; reaping is not timed). */
static double time_clone3(uint64_t flags)
{
    struct clone_args a;
    memset(&a, 0, sizeof(a));
    a.flags = flags;
    a.exit_signal = SIGCHLD;
    double t = now_s();
    long pid = syscall(SYS_clone3, &a, sizeof(a));
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
        arms[a].kind == 0 ? time_clone3(arms[a].flags) : time_seccomp(&arms[a].prog);
    for (int r = 0; r < rounds; r++) {
        int order[N];
        shuffled(order, N);
        for (int k = 0; k < N; k++) {
            const arm_t *a = &arms[order[k]];
            t[order[k]][r] = a->kind == 0 ? time_clone3(a->flags) : time_seccomp(&a->prog);
        }
    }
    double m[N];
    for (int a = 0; a < N; a++)
        m[a] = median(t[a], rounds) * 1e3;
    printf("bench_kernel_floor: %d rounds, interleaved, shuffled (seed %u); one system call each\n",
           rounds, seed);
    printf("%-44s %10s\n", "arm", "median_ms");
    for (int a = 0; a < N; a++)
        printf("%-44s %10.3f\n", arms[a].name, m[a]);
    printf("network namespace creation:       +%.3f ms\n", m[2] - m[1]);
    printf("hardened seccomp program load:    +%.3f ms over a 1-instruction program\n",
           m[5] - m[3]);
    printf("kernel floor of these two controls in a cold hardened run: %.3f ms\n",
           (m[2] - m[0]) + m[5]);
    for (int a = 0; a < N; a++)
        free(t[a]);
    return 0;
}
