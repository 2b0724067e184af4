/* asb-seccomp-gen - build the sandbox's seccomp policies with libseccomp, at build time.
 *
 *   asb-seccomp-gen OUT.h        write the header: both policies as raw BPF arrays
 *   asb-seccomp-gen --list       print both policies, with why each refusal exists
 *   asb-seccomp-gen --pfc NAME   print libseccomp's pseudo-code for one policy (review aid)
 *
 * Why at build time: the supervisor is a static PID 1 that must not depend on libseccomp (nor on
 * anything in the sandbox's root), and a reviewed, fixed program is easier to trust than one
 * assembled at run time. The policies themselves, and why each refusal exists, are in
 * policy_docker.c and policy_hardened.c; how they become rules is in policy_build.c.
 *
 * The output is deterministic: it depends only on the tables and the libseccomp version (its
 * code generator decides the instruction layout), never on time, host, paths or environment.
 * The header is written to a temporary file and renamed, so a failed run never leaves a partial
 * header that make would take as up to date.
 */
#include "native/seccomp/gen/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel's limit on one classic BPF program (BPF_MAXINSNS). */
#define GEN_MAX_INSNS 4096u

static const gen_policy_t *const POLICIES[] = {
    &asb_gen_policy_docker_default,
    &asb_gen_policy_hardened,
};
#define N_POLICIES (sizeof(POLICIES) / sizeof(POLICIES[0]))

/* Export ctx as classic BPF into a malloc'd array via a memfd (libseccomp 2.5 only exports to an
 * fd). */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **prog, size_t *len)
{
    int rc;
    unsigned char *buf = NULL;
    int fd = memfd_create("asb-seccomp-bpf", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    rc = seccomp_export_bpf(ctx, fd);
    if (rc < 0)
        goto out;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        goto out;
    }
    size_t size = (size_t)st.st_size;
    if (size == 0 || size % sizeof(struct sock_filter) != 0 ||
        size / sizeof(struct sock_filter) > GEN_MAX_INSNS) {
        rc = -E2BIG;
        goto out;
    }
    buf = malloc(size);
    if (!buf) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = pread(fd, buf + done, size - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : -EIO;
            goto out;
        }
        done += (size_t)n;
    }
    *prog = (struct sock_filter *)buf;
    *len = size / sizeof(struct sock_filter);
    buf = NULL;
    rc = 0;
out:
    free(buf);
    close(fd);
    return rc;
}

static int build(const gen_policy_t *p, scmp_filter_ctx *ctx)
{
    char why[512] = "";
    int rc = asb_gen_policy_build(p, ctx, why, sizeof(why));
    if (rc < 0)
        fprintf(stderr, "asb-seccomp-gen: %s: %s\n", p->name, why);
    return rc;
}

static void emit_array(FILE *f, const gen_policy_t *p, const struct sock_filter *prog, size_t len)
{
    fprintf(f, "/* ---- %s ---------------------------------------------------------------\n",
            p->name);
    asb_gen_policy_describe(p, f, " * ", 0);
    fprintf(f, " */\n");
    fprintf(f, "__attribute__((unused)) static const struct sock_filter asb_bpf_%s[] = {\n",
            p->name);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "    {0x%04x, %3u, %3u, 0x%08x},\n", prog[i].code, prog[i].jt, prog[i].jf,
                prog[i].k);
    fprintf(f, "};\n");
    fprintf(f, "__attribute__((unused)) static const unsigned asb_bpf_%s_len = %zuu;\n\n", p->name,
            len);
}

/* Small programs stacked on hardened's own filter, each one rule on one system call and
 * everything else left to the filters below ("allow" is the weakest answer, so theirs stands).
 * Another audit arch is killed by hardened's own filter first; killed here too.
 *  - memfd_refuse, on kernels without vm.memfd_noexec (before Linux 6.3): memfd_create refused
 *    outright. A memfd is the one file a workload can create that no path reaches, so no
 *    Landlock rule and no noexec mount covers exec'ing it (execveat with AT_EMPTY_PATH); where
 *    the kernel cannot make memfds non-executable, none is made at all.
 *  - uname_notify: uname(2) goes to the supervisor, which answers it with major.minor only,
 *    without the release's build tag and the build date (supervisor/uname.c). A notification
 *    is weaker than any refusal of the filter below and stronger than its "allow". */
#define MEMFD_REFUSE_NAME "memfd_refuse"
#define UNAME_NOTIFY_NAME "uname_notify"
static int build_one_rule(const char *name, uint32_t action, int syscall_nr, scmp_filter_ctx *out)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return -ENOMEM;
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc == 0)
        rc = seccomp_rule_add(ctx, action, syscall_nr, 0);
    if (rc < 0) {
        seccomp_release(ctx);
        fprintf(stderr, "asb-seccomp-gen: %s: %s\n", name, strerror(-rc));
        return rc;
    }
    *out = ctx;
    return 0;
}

/* One small program stacked on a profile's own filter. */
static int emit_stacked(FILE *f, const char *name, const char *comment, uint32_t action,
                        int syscall_nr)
{
    scmp_filter_ctx ctx = NULL;
    struct sock_filter *prog = NULL;
    size_t len = 0;
    int rc = build_one_rule(name, action, syscall_nr, &ctx);
    if (rc < 0)
        return rc;
    rc = export_bpf(ctx, &prog, &len);
    seccomp_release(ctx);
    if (rc < 0) {
        fprintf(stderr, "asb-seccomp-gen: %s: export: %s\n", name, strerror(-rc));
        return rc;
    }
    fprintf(f, "/* ---- %s ----\n%s */\n", name, comment);
    fprintf(f, "__attribute__((unused)) static const struct sock_filter asb_bpf_%s[] = {\n", name);
    for (size_t i = 0; i < len; i++)
        fprintf(f, "    {0x%04x, %3u, %3u, 0x%08x},\n", prog[i].code, prog[i].jt, prog[i].jf,
                prog[i].k);
    fprintf(f, "};\n");
    fprintf(f, "__attribute__((unused)) static const unsigned asb_bpf_%s_len = %zuu;\n\n", name,
            len);
    free(prog);
    return 0;
}

static int write_header(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
        fprintf(stderr, "asb-seccomp-gen: path too long: %s\n", path);
        return 1;
    }
    FILE *f = fopen(tmp, "we");
    if (!f) {
        fprintf(stderr, "asb-seccomp-gen: %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f,
            "/* seccomp_bpf.h - GENERATED by asb-seccomp-gen (src/native/seccomp/gen) with "
            "libseccomp %u.%u.%u.\n",
            seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro);
    fprintf(f, " * Do not edit: change the tables in src/native/seccomp/gen and rebuild.\n"
               " * Classic BPF for seccomp(SECCOMP_SET_MODE_FILTER), x86_64 only; loaded by\n"
               " * src/native/supervisor/seccomp_install.c. `asb-seccomp-gen --list` explains each "
               "refusal. */\n");
    fprintf(f, "#ifndef ASB_GENERATED_SECCOMP_BPF_H\n#define ASB_GENERATED_SECCOMP_BPF_H\n\n");
    fprintf(f, "#include <linux/filter.h>\n\n");
    fprintf(f, "/* The audit arch every program checks first (AUDIT_ARCH_X86_64). */\n");
    fprintf(f, "#define ASB_SECCOMP_BPF_AUDIT_ARCH 0xc000003eu\n\n");

    int status = 0;
    for (size_t i = 0; i < N_POLICIES && status == 0; i++) {
        scmp_filter_ctx ctx = NULL;
        struct sock_filter *prog = NULL;
        size_t len = 0;
        if (build(POLICIES[i], &ctx) < 0) {
            status = 1;
            break;
        }
        int rc = export_bpf(ctx, &prog, &len);
        seccomp_release(ctx);
        if (rc < 0) {
            fprintf(stderr, "asb-seccomp-gen: %s: export: %s\n", POLICIES[i]->name, strerror(-rc));
            status = 1;
            break;
        }
        emit_array(f, POLICIES[i], prog, len);
        free(prog);
    }
    if (status == 0 &&
        emit_stacked(
            f, MEMFD_REFUSE_NAME,
            " * Stacked on hardened's filter where the kernel has no vm.memfd_noexec (before\n"
            " * Linux 6.3): memfd_create fails with EPERM, everything else is left to the\n"
            " * filter below.",
            SCMP_ACT_ERRNO(EPERM), SCMP_SYS(memfd_create)) < 0)
        status = 1;
    if (status == 0 &&
        emit_stacked(f, UNAME_NOTIFY_NAME,
                     " * Stacked on hardened's filter: uname(2) is a notification the supervisor\n"
                     " * answers; everything else is left to the filter below.",
                     SCMP_ACT_NOTIFY, SCMP_SYS(uname)) < 0)
        status = 1;
    fprintf(f, "#endif\n");
    if (fclose(f) != 0 && status == 0) {
        fprintf(stderr, "asb-seccomp-gen: %s: %s\n", tmp, strerror(errno));
        status = 1;
    }
    if (status == 0 && rename(tmp, path) != 0) {
        fprintf(stderr, "asb-seccomp-gen: rename %s: %s\n", path, strerror(errno));
        status = 1;
    }
    if (status != 0)
        unlink(tmp);
    return status;
}

static int list(void)
{
    for (size_t i = 0; i < N_POLICIES; i++) {
        scmp_filter_ctx ctx = NULL;
        if (build(POLICIES[i], &ctx) < 0)
            return 1;
        struct sock_filter *prog = NULL;
        size_t len = 0;
        int rc = export_bpf(ctx, &prog, &len);
        seccomp_release(ctx);
        if (rc < 0) {
            fprintf(stderr, "asb-seccomp-gen: %s: export: %s\n", POLICIES[i]->name, strerror(-rc));
            return 1;
        }
        free(prog);
        asb_gen_policy_describe(POLICIES[i], stdout, "", 1);
        printf("  BPF: %zu instructions\n\n", len);
    }
    return 0;
}

static int pfc(const char *name)
{
    for (size_t i = 0; i < N_POLICIES; i++) {
        if (strcmp(POLICIES[i]->name, name) != 0)
            continue;
        scmp_filter_ctx ctx = NULL;
        if (build(POLICIES[i], &ctx) < 0)
            return 1;
        fflush(stdout);
        int rc = seccomp_export_pfc(ctx, STDOUT_FILENO);
        seccomp_release(ctx);
        return rc < 0 ? 1 : 0;
    }
    fprintf(stderr, "asb-seccomp-gen: no policy named \"%s\"\n", name);
    return 2;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: asb-seccomp-gen OUT.h | --list | --pfc docker_default|hardened\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0)
        return list();
    if (argc == 3 && strcmp(argv[1], "--pfc") == 0)
        return pfc(argv[2]);
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && argv[1][0] != '-')
        return write_header(argv[1]);
    usage(stderr);
    return 2;
}
