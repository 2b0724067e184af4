/* bench_cli.c - what a user typing a command waits for: `agent-sandbox run` against bubblewrap
 * with as many of the same controls as it has, on `python3 -c pass` and `/bin/true`, each a fresh
 * process (posix_spawn + wait), interleaved round by round in a shuffled order, medians.
 *
 * bubblewrap gets: every namespace (user, pid, mount, ipc, uts, net, cgroup), uid/gid 65534, no
 * capabilities, a new session, die-with-parent, a cleared environment, /usr read-only with the
 * merged-/usr links, its own /proc, /dev, tmpfs /tmp and /workspace, and our hardened seccomp
 * program (the same BPF the supervisor loads). It has no cgroup limits, no Landlock, no
 * attestation, no /proc masks, no per-run device nodes, no time namespace and no read-only root:
 * the comparison flatters it. Without bwrap on the machine its arms print as skipped.
 * Usage: bench_cli [ROUNDS] (default 30). */
#include "seccomp_bpf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"

extern char **environ;

#define SECCOMP_FD 10

/* One run of argv as a fresh process; exits the bench if it fails (a failing arm measures
 * nothing). seccomp_fd >= 0 becomes fd SECCOMP_FD of the child. */
static double run(char *const *argv, int seccomp_fd)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (seccomp_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, seccomp_fd, SECCOMP_FD);
    double t = now_s();
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "bench_cli: spawn %s: %s\n", argv[0], strerror(rc));
        exit(1);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    double d = now_s() - t;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_cli: %s ... failed (status %d)\n", argv[0], st);
        exit(1);
    }
    return d;
}

/* The hardened seccomp program as bwrap reads it (--seccomp FD: struct sock_filter[]). bwrap
 * reads it once per run, so each run gets a fresh memfd. */
static int seccomp_memfd(void)
{
    int fd = memfd_create("seccomp", MFD_CLOEXEC);
    size_t len = asb_bpf_hardened_len * sizeof(asb_bpf_hardened[0]);
    if (fd < 0 || write(fd, asb_bpf_hardened, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
        fprintf(stderr, "bench_cli: seccomp memfd: %s\n", strerror(errno));
        exit(1);
    }
    return fd;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    if (rounds < 5)
        rounds = 5;
    char self[PATH_MAX], cli[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(cli, sizeof(cli), "%s/agent-sandbox", self);
    const char *bwrap = access("/usr/bin/bwrap", X_OK) == 0 ? "/usr/bin/bwrap" : NULL;

    const char *progs[2][4] = {{"/usr/bin/python3", "-c", "pass", NULL}, {"/bin/true", NULL}};
    const char *names[2] = {"python3 -c pass", "/bin/true"};
    enum { BARE, BWRAP, HARDENED, BASELINE, ARMS };
    const char *arm_names[ARMS] = {"bare", "bwrap+seccomp", "asb hardened", "asb baseline"};
    static const char *const bw_flags[] = {"--unshare-all", "--die-with-parent",
                                           "--new-session", "--cap-drop",
                                           "ALL",           "--uid",
                                           "65534",         "--gid",
                                           "65534",         "--ro-bind",
                                           "/usr",          "/usr",
                                           "--symlink",     "usr/lib",
                                           "/lib",          "--symlink",
                                           "usr/lib64",     "/lib64",
                                           "--symlink",     "usr/bin",
                                           "/bin",          "--symlink",
                                           "usr/sbin",      "/sbin",
                                           "--proc",        "/proc",
                                           "--dev",         "/dev",
                                           "--tmpfs",       "/tmp",
                                           "--tmpfs",       "/workspace",
                                           "--chdir",       "/workspace",
                                           "--clearenv",    "--setenv",
                                           "PATH",          "/usr/bin:/bin",
                                           "--hostname",    "sandbox",
                                           "--seccomp",     "10"};
    enum { NBW = sizeof(bw_flags) / sizeof(bw_flags[0]) };
    char *av[2][ARMS][NBW + 8];
    for (int p = 0; p < 2; p++) {
        int k = 0;
        for (int i = 0; progs[p][i]; i++)
            av[p][BARE][k++] = (char *)progs[p][i];
        av[p][BARE][k] = NULL;
        k = 0;
        av[p][BWRAP][k++] = (char *)(bwrap ? bwrap : "/usr/bin/bwrap");
        for (int i = 0; i < NBW; i++)
            av[p][BWRAP][k++] = (char *)bw_flags[i];
        for (int i = 0; progs[p][i]; i++)
            av[p][BWRAP][k++] = (char *)progs[p][i];
        av[p][BWRAP][k] = NULL;
        for (int a = HARDENED; a <= BASELINE; a++) {
            k = 0;
            av[p][a][k++] = cli;
            av[p][a][k++] = "run";
            av[p][a][k++] = "--profile";
            av[p][a][k++] = a == HARDENED ? "hardened" : "baseline";
            av[p][a][k++] = "--";
            for (int i = 0; progs[p][i]; i++)
                av[p][a][k++] = (char *)progs[p][i];
            av[p][a][k] = NULL;
        }
    }
    double *t[2][ARMS];
    for (int p = 0; p < 2; p++)
        for (int a = 0; a < ARMS; a++)
            t[p][a] = calloc((size_t)rounds, sizeof(double));
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    for (int r = -2; r < rounds; r++) { /* two unrecorded warm-up rounds */
        for (int p = 0; p < 2; p++) {
            int order[ARMS];
            shuffled(order, ARMS);
            for (int k = 0; k < ARMS; k++) {
                int a = order[k];
                if (a == BWRAP && !bwrap)
                    continue;
                int sfd = a == BWRAP ? seccomp_memfd() : -1;
                double d = run(av[p][a], sfd);
                if (sfd >= 0)
                    close(sfd);
                if (r >= 0)
                    t[p][a][r] = d;
            }
        }
    }
    printf("bench_cli: %d rounds, each arm a fresh process, interleaved, shuffled (seed %u)\n",
           rounds, seed);
    printf("%-16s %-14s %10s %10s %10s %10s\n", "program", "arm", "median_ms", "delta_ms", "ratio",
           "vs_bwrap");
    for (int p = 0; p < 2; p++) {
        double bare = median(t[p][BARE], rounds);
        double bw = bwrap ? median(t[p][BWRAP], rounds) : 0;
        for (int a = 0; a < ARMS; a++) {
            if (a == BWRAP && !bwrap) {
                printf("%-16s %-14s SKIP: /usr/bin/bwrap not installed\n", names[p], arm_names[a]);
                continue;
            }
            double m = a == BARE ? bare : a == BWRAP ? bw : median(t[p][a], rounds);
            char vs[16] = "-";
            if (bwrap && a >= HARDENED)
                snprintf(vs, sizeof(vs), "%.2fx", m / bw);
            printf("%-16s %-14s %10.2f %+10.2f %9.2fx %10s\n", names[p], arm_names[a], m * 1e3,
                   (m - bare) * 1e3, m / bare, vs);
        }
    }
    return 0;
}
