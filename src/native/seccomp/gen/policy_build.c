/* policy_build.c - turn a gen_policy_t into a libseccomp filter, and describe it.
 *
 * The filter is an allowlist: the default action is ERRNO(EPERM), as Docker's (EPERM rather than
 * ENOSYS, so a refused call reads as "not permitted" and no program mistakes it for an old kernel),
 * and every rule ALLOWs. That shape matters with libseccomp: it silently drops conditional rules
 * of a syscall that also has an unconditional one, and it refuses rules whose action equals the
 * default. "Allow ioctl except TIOCSTI" is therefore written as a union of ALLOW rules covering
 * every other request value (allow_unless_low32), which is exact whatever order libseccomp
 * evaluates the rules in. The builder checks the shape so an edit of the tables cannot break it.
 */
#include "native/seccomp/gen/policy.h"

#include <errno.h>
#include <linux/sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

/* Every namespace flag clone(2) can carry. CLONE_NEWTIME (0x80) cannot be passed to clone(2): it
 * lies in the exit-signal byte; unshare(2) and clone3(2), which could pass it, are not allowed. */
#define GEN_CLONE_NS_FLAGS                                                                         \
    ((uint64_t)(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |      \
                CLONE_NEWPID | CLONE_NEWNET))

/* Calls that carry conditions (or a non-default errno) in every policy; they must never also be
 * on an unconditional list, or libseccomp would drop the conditions. */
static const char *const CONDITIONAL[] = {"clone",     "clone3", "socket",  "personality",
                                          "prlimit64", "execve", "execveat"};

#define GEN_MAX_SYSCALLS 512
#define GEN_MAX_GATES 8 /* gen_arg_refusal_t.more_gates */

/* x86_64 numbers of calls newer than libseccomp 2.5.4 knows (arch/x86/entry/syscalls/
 * syscall_64.tbl; syscall numbers are kernel ABI and never change). */
static const struct {
    const char *name;
    int nr;
} NEWER_SYSCALLS[] = {
    {"mseal", 462},
};

int asb_gen_syscall_nr(const char *name)
{
    int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
    if (nr >= 0)
        return nr;
    for (size_t i = 0; i < sizeof(NEWER_SYSCALLS) / sizeof(NEWER_SYSCALLS[0]); i++)
        if (strcmp(NEWER_SYSCALLS[i].name, name) == 0)
            return NEWER_SYSCALLS[i].nr;
    return -1; /* unknown, or a pseudo-syscall that does not exist on x86_64 */
}

static int fail(char *why, size_t why_len, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *why, size_t why_len, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return code;
}

static bool in_list(const gen_refusal_t *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return true;
    return false;
}

static bool is_refused(const gen_policy_t *p, const char *name)
{
    return in_list(p->refused, p->n_refused, name);
}

static bool is_arg_refused(const gen_policy_t *p, const char *name)
{
    for (size_t i = 0; i < p->n_arg_refused; i++)
        if (strcmp(p->arg_refused[i].name, name) == 0)
            return true;
    return false;
}

static bool is_conditional(const gen_policy_t *p, const char *name)
{
    for (size_t i = 0; i < sizeof(CONDITIONAL) / sizeof(CONDITIONAL[0]); i++)
        if (strcmp(CONDITIONAL[i], name) == 0)
            return true;
    if (p->n_socket_families > 0 && strcmp(name, "socketpair") == 0)
        return true;
    for (size_t i = 0; i < p->n_flag_refused; i++)
        if (strcmp(p->flag_refused[i].name, name) == 0)
            return true;
    return is_arg_refused(p, name) || in_list(p->noop, p->n_noop, name) ||
           in_list(p->einval, p->n_einval, name) || in_list(p->eopnotsupp, p->n_eopnotsupp, name) ||
           in_list(p->enosys, p->n_enosys, name);
}

/* The unconditional allowlist of p in table order: base's, then p's own, minus p's refusals and
 * minus the calls p puts argument conditions on. Returns the count, or -1 when it would not fit. */
static int effective_allow(const gen_policy_t *p, const char **out, size_t cap)
{
    size_t n = 0;
    const gen_policy_t *layers[2] = {p->base, p};
    for (size_t l = 0; l < 2; l++) {
        if (!layers[l])
            continue;
        for (size_t i = 0; i < layers[l]->n_allow; i++) {
            const char *name = layers[l]->allow[i];
            if (is_refused(p, name) || is_conditional(p, name))
                continue;
            if (n == cap)
                return -1;
            out[n++] = name;
        }
    }
    return (int)n;
}

static int add_rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned count,
                    const struct scmp_arg_cmp *cmp, char *why, size_t why_len)
{
    /* _exact: libseccomp must not rewrite a rule behind our back; it never needs to for the
     * native x86_64 ABI. */
    int rc = seccomp_rule_add_exact_array(ctx, action, nr, count, cmp);
    if (rc < 0)
        return fail(why, why_len, rc, "seccomp_rule_add(syscall %d): %s", nr, strerror(-rc));
    return 0;
}

/* ALLOW nr whenever the low 32 bits of argument `arg` are none of deny[] (and, with pre, pre
 * holds too): one masked-equality rule per maximal bit prefix that contains no denied value (at
 * most 32 per denied value). The upper 32 bits are ignored on purpose: the kernel truncates
 * these arguments to 32 bits, so a comparison on all 64 could be dodged by setting a high bit. */
static int allow_unless_low32(scmp_filter_ctx ctx, int nr, unsigned arg, const uint32_t *deny,
                              size_t n_deny, const struct scmp_arg_cmp *pre, uint32_t mask,
                              uint32_t value, int bit, uint32_t ignore, char *why, size_t why_len)
{
    while (bit >= 0 && (ignore & (1u << bit)))
        bit--; /* a bit that does not decide: never compared, so either value of it matches */
    bool hit = false;
    for (size_t i = 0; i < n_deny; i++)
        if ((deny[i] & mask) == value)
            hit = true;
    if (!hit) {
        struct scmp_arg_cmp cmp[2] = {
            {.arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = value}};
        if (pre)
            cmp[1] = *pre;
        return add_rule(ctx, SCMP_ACT_ALLOW, nr, pre ? 2 : 1, cmp, why, why_len);
    }
    if (bit < 0)
        return 0; /* exactly a denied value: left to the default action */
    uint32_t b = 1u << bit;
    int rc = allow_unless_low32(ctx, nr, arg, deny, n_deny, pre, mask | b, value, bit - 1, ignore,
                                why, why_len);
    if (rc < 0)
        return rc;
    return allow_unless_low32(ctx, nr, arg, deny, n_deny, pre, mask | b, value | b, bit - 1, ignore,
                              why, why_len);
}

/* One argument refusal: the call is allowed for every other value (and, with a gate, whenever
 * the gating argument has another value). */
/* r->noop: each denied value (with the gate, if any) returns 0 and does nothing; with
 * r->refuse_errno it fails with that errno. Otherwise the default action refuses them. */
static int add_noops(scmp_filter_ctx ctx, int nr, const gen_arg_refusal_t *r, char *why,
                     size_t why_len)
{
    if (!r->noop && !r->refuse_errno)
        return 0;
    uint32_t action = SCMP_ACT_ERRNO(r->noop ? 0 : (uint16_t)r->refuse_errno);
    for (size_t i = 0; i < r->n_deny; i++) {
        struct scmp_arg_cmp c[2] = {{.arg = r->arg,
                                     .op = SCMP_CMP_MASKED_EQ,
                                     .datum_a = 0xffffffffu & ~r->ignore_bits,
                                     .datum_b = r->deny[i] & ~r->ignore_bits},
                                    {.arg = (unsigned)r->when_arg,
                                     .op = SCMP_CMP_MASKED_EQ,
                                     .datum_a = 0xffffffffu,
                                     .datum_b = r->when_value}};
        int rc = add_rule(ctx, action, nr, r->when_arg < 0 ? 1 : 2, c, why, why_len);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int add_arg_refusal(scmp_filter_ctx ctx, const gen_arg_refusal_t *r, char *why,
                           size_t why_len)
{
    int nr = asb_gen_syscall_nr(r->name);
    int rc = add_noops(ctx, nr, r, why, why_len);
    if (rc < 0)
        return rc;
    if (r->when_arg < 0)
        return allow_unless_low32(ctx, nr, r->arg, r->deny, r->n_deny, NULL, 0, 0, 31,
                                  r->ignore_bits, why, why_len);
    /* Allowed whenever the gating argument has none of the gates' values; for each gate, allowed
     * unless the argument is one of that gate's denied values. */
    uint32_t gate[1 + GEN_MAX_GATES];
    gate[0] = r->when_value;
    for (size_t g = 0; g < r->n_more_gates; g++)
        gate[1 + g] = r->more_gates[g].value;
    rc = allow_unless_low32(ctx, nr, (unsigned)r->when_arg, gate, 1 + r->n_more_gates, NULL, 0, 0,
                            31, 0, why, why_len);
    if (rc < 0)
        return rc;
    for (size_t g = 0; g <= r->n_more_gates; g++) {
        if (g > 0 && r->more_gates[g - 1].refuse_all)
            continue; /* no allow rule at all: the default action refuses every value */
        struct scmp_arg_cmp pre = {.arg = (unsigned)r->when_arg,
                                   .op = SCMP_CMP_MASKED_EQ,
                                   .datum_a = 0xffffffffu,
                                   .datum_b = gate[g]};
        const uint32_t *deny = g == 0 ? r->deny : r->more_gates[g - 1].deny;
        size_t n_deny = g == 0 ? r->n_deny : r->more_gates[g - 1].n_deny;
        rc = allow_unless_low32(ctx, nr, r->arg, deny, n_deny, &pre, 0, 0, 31, r->ignore_bits, why,
                                why_len);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int resolve(const char *name, char *why, size_t why_len)
{
    int nr = asb_gen_syscall_nr(name);
    if (nr < 0)
        return fail(why, why_len, -ENOENT, "no x86_64 syscall named \"%s\"", name);
    return nr;
}

/* Table checks that turn a silent libseccomp behaviour into a build failure. */
static int check_tables(const gen_policy_t *p, const char **allow, int n_allow, char *why,
                        size_t why_len)
{
    for (int i = 0; i < n_allow; i++) {
        int nr = resolve(allow[i], why, why_len);
        if (nr < 0)
            return nr;
        if (is_conditional(p, allow[i]))
            return fail(why, why_len, -EINVAL, "%s: \"%s\" is conditional, not for the allowlist",
                        p->name, allow[i]);
        for (int j = 0; j < i; j++)
            if (asb_gen_syscall_nr(allow[j]) == nr)
                return fail(why, why_len, -EINVAL, "%s: \"%s\" listed twice", p->name, allow[i]);
    }
    for (size_t i = 0; i < p->n_refused; i++) {
        int nr = resolve(p->refused[i].name, why, why_len);
        if (nr < 0)
            return nr;
        if (is_conditional(p, p->refused[i].name))
            return fail(why, why_len, -EINVAL, "%s: \"%s\" cannot be refused whole", p->name,
                        p->refused[i].name);
    }
    for (size_t i = 0; i < p->n_arg_refused; i++) {
        const gen_arg_refusal_t *r = &p->arg_refused[i];
        int nr = resolve(r->name, why, why_len);
        if (nr < 0)
            return nr;
        for (size_t k = 0; k < sizeof(CONDITIONAL) / sizeof(CONDITIONAL[0]); k++)
            if (strcmp(CONDITIONAL[k], r->name) == 0)
                return fail(why, why_len, -EINVAL, "%s: \"%s\" already carries conditions", p->name,
                            r->name);
        for (size_t k = 0; k < i; k++)
            if (strcmp(p->arg_refused[k].name, r->name) == 0)
                return fail(why, why_len, -EINVAL, "%s: \"%s\" has two argument refusals", p->name,
                            r->name);
        bool gates_ok =
            r->n_more_gates == 0 ||
            (r->when_arg >= 0 && r->n_more_gates <= GEN_MAX_GATES && !r->noop && !r->refuse_errno);
        for (size_t g = 0; gates_ok && g < r->n_more_gates; g++)
            gates_ok = (r->more_gates[g].refuse_all ? r->more_gates[g].n_deny == 0
                                                    : r->more_gates[g].n_deny > 0) &&
                       r->more_gates[g].value != r->when_value;
        if (r->n_deny == 0 || r->arg > 5 || r->when_arg > 5 || (int)r->arg == r->when_arg ||
            !gates_ok || (r->noop && r->refuse_errno) || r->refuse_errno < 0 ||
            r->refuse_errno > 4095)
            return fail(why, why_len, -EINVAL, "%s: \"%s\": a malformed argument refusal", p->name,
                        r->name);
    }
    return 0;
}

/* A gated flag needs its call's argument refusal to deny the gate's value on the gate's
 * argument, with no errno rule of its own for it (two rules for one value would conflict). */
static int check_gated(const gen_policy_t *p, char *why, size_t why_len)
{
    for (size_t i = 0; i < p->n_gated_flags; i++) {
        const gen_gated_flag_t *g = &p->gated_flags[i];
        bool paired = false;
        for (size_t k = 0; k < p->n_arg_refused; k++) {
            const gen_arg_refusal_t *r = &p->arg_refused[k];
            if (strcmp(r->name, g->name) != 0 || r->arg != g->gate_arg || r->when_arg >= 0 ||
                r->noop || r->refuse_errno)
                continue;
            for (size_t d = 0; d < r->n_deny; d++)
                paired |= r->deny[d] == g->gate_value;
        }
        if (!paired || g->arg == g->gate_arg || g->arg > 5 || g->gate_arg > 5 || g->mask == 0)
            return fail(why, why_len, -EINVAL, "%s: \"%s\": a malformed gated flag", p->name,
                        g->name);
    }
    return 0;
}

static int build_rules(const gen_policy_t *p, scmp_filter_ctx ctx, char *why, size_t why_len)
{
    const char *allow[GEN_MAX_SYSCALLS];
    int n_allow = effective_allow(p, allow, GEN_MAX_SYSCALLS);
    if (n_allow < 0)
        return fail(why, why_len, -E2BIG, "%s: more than %d syscalls", p->name, GEN_MAX_SYSCALLS);
    int rc = check_tables(p, allow, n_allow, why, why_len);
    if (rc == 0)
        rc = check_gated(p, why, why_len);
    if (rc < 0)
        return rc;

    for (int i = 0; i < n_allow; i++) {
        rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr(allow[i]), 0, NULL, why, why_len);
        if (rc < 0)
            return rc;
    }

    /* clone(2) only without namespace flags: a new user namespace is the usual first step of a
     * container escape, and the others would let the workload build its own mount/net views. */
    struct scmp_arg_cmp clone_cmp = {
        .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = GEN_CLONE_NS_FLAGS, .datum_b = 0};
    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr("clone"), 1, &clone_cmp, why, why_len);
    if (rc < 0)
        return rc;

    /* clone3(2) takes its flags in memory, where a filter cannot look: fail it with ENOSYS so glibc
     * (>= 2.34, which tries clone3 first for threads and posix_spawn) falls back to clone(2). */
    rc = add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), asb_gen_syscall_nr("clone3"), 0, NULL, why, why_len);
    if (rc < 0)
        return rc;

    /* Socket families: with an allowlist (hardened), only those, compared on the low 32 bits the
     * kernel reads; otherwise any family but AF_VSOCK, which reaches the hypervisor's host side
     * (and vsock has had guest-to-host bugs), which no network namespace isolates. */
    if (p->n_socket_families > 0) {
        /* socketpair(2) too: it runs the family's socket creation before it can fail, so with
         * socket(2) alone restricted, AF_NETLINK, AF_VSOCK or AF_TIPC (which implements
         * socketpair) stayed reachable (review finding). */
        static const char *const calls[] = {"socket", "socketpair"};
        for (size_t c = 0; c < 2; c++)
            for (size_t i = 0; i < p->n_socket_families; i++) {
                uint32_t fam = p->socket_families[i];
                struct scmp_arg_cmp cmp[2] = {
                    {.arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = fam}};
                bool inet = fam == AF_INET || fam == AF_INET6;
                if (!inet || p->n_inet_pairs == 0) {
                    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr(calls[c]), 1, cmp, why,
                                  why_len);
                    if (rc < 0)
                        return rc;
                    continue;
                }
                /* IPv4/IPv6 with a type/protocol allowlist: together they pick the kernel code
                 * (and, where modules load on demand, the module a socket call loads: protocol 0
                 * with SOCK_DCCP asks for DCCP, with SOCK_SEQPACKET for SCTP; review finding).
                 * The type's low 4 bits only: the kernel refuses any other bit but SOCK_NONBLOCK
                 * and SOCK_CLOEXEC. */
                for (size_t k = 0; k < p->n_inet_pairs; k++) {
                    struct scmp_arg_cmp three[3] = {cmp[0],
                                                    {.arg = 1,
                                                     .op = SCMP_CMP_MASKED_EQ,
                                                     .datum_a = 0xfu,
                                                     .datum_b = p->inet_pairs[k].type},
                                                    {.arg = 2,
                                                     .op = SCMP_CMP_MASKED_EQ,
                                                     .datum_a = 0xffffffffu,
                                                     .datum_b = p->inet_pairs[k].protocol}};
                    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr(calls[c]), 3, three, why,
                                  why_len);
                    if (rc < 0)
                        return rc;
                }
            }
    } else {
        /* AF_NETLINK with refused protocols: the family is taken out of the first tree, and
         * a second one allows it for every protocol but those. */
        const uint32_t fams[] = {AF_VSOCK, AF_NETLINK};
        size_t n_fams = p->n_netlink_refused > 0 ? 2 : 1;
        rc = allow_unless_low32(ctx, asb_gen_syscall_nr("socket"), 0, fams, n_fams, NULL, 0, 0, 31,
                                0, why, why_len);
        if (rc < 0)
            return rc;
        if (p->n_netlink_refused > 0) {
            const struct scmp_arg_cmp nl = {
                .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = AF_NETLINK};
            rc = allow_unless_low32(ctx, asb_gen_syscall_nr("socket"), 2, p->netlink_refused,
                                    p->n_netlink_refused, &nl, 0, 0, 31, 0, why, why_len);
            if (rc < 0)
                return rc;
        }
    }

    for (size_t i = 0; i < p->n_noop; i++) {
        rc = add_rule(ctx, SCMP_ACT_ERRNO(0), asb_gen_syscall_nr(p->noop[i].name), 0, NULL, why,
                      why_len);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < p->n_einval; i++) {
        rc = add_rule(ctx, SCMP_ACT_ERRNO(EINVAL), asb_gen_syscall_nr(p->einval[i].name), 0, NULL,
                      why, why_len);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < p->n_enosys; i++) {
        rc = add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), asb_gen_syscall_nr(p->enosys[i].name), 0, NULL,
                      why, why_len);
        if (rc < 0)
            return rc;
    }
    /* Gated flags: the gate's value is denied by the call's argument refusal; allowed again
     * while no bit of mask is set in arg. */
    for (size_t i = 0; i < p->n_gated_flags; i++) {
        const gen_gated_flag_t *g = &p->gated_flags[i];
        struct scmp_arg_cmp c[2] = {
            {.arg = g->gate_arg,
             .op = SCMP_CMP_MASKED_EQ,
             .datum_a = 0xffffffffu,
             .datum_b = g->gate_value},
            {.arg = g->arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = g->mask, .datum_b = 0}};
        rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr(g->name), 2, c, why, why_len);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < p->n_eopnotsupp; i++) {
        rc = add_rule(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), asb_gen_syscall_nr(p->eopnotsupp[i].name), 0,
                      NULL, why, why_len);
        if (rc < 0)
            return rc;
    }
    /* Flag refusals: allowed while (arg & mask) == 0; a set bit falls to the default. */
    for (size_t i = 0; i < p->n_flag_refused; i++) {
        const gen_flag_refusal_t *r = &p->flag_refused[i];
        struct scmp_arg_cmp cmp = {
            .arg = r->arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = r->mask, .datum_b = 0};
        rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr(r->name), 1, &cmp, why, why_len);
        if (rc < 0)
            return rc;
    }

    /* prlimit64(2) only on the caller itself (pid 0, what setrlimit/getrlimit use): with another
     * pid, a workload that shares its supervisor's uid (baseline, root inside) could set the
     * supervisor's RLIMIT_CPU to 1 s and have it killed, turning its own failure into a
     * "supervisor was killed" error. */
    struct scmp_arg_cmp self_cmp = {
        .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = 0};
    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr("prlimit64"), 1, &self_cmp, why, why_len);
    if (rc < 0)
        return rc;
    /* Reading any process's limits (no new limit: a NULL pointer, all 64 bits) changes nothing:
     * psutil's Process.rlimit() and `prlimit --pid` read them that way (compatibility QA). */
    struct scmp_arg_cmp read_cmp = {.arg = 2, .op = SCMP_CMP_EQ, .datum_a = 0};
    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr("prlimit64"), 1, &read_cmp, why, why_len);
    if (rc < 0)
        return rc;
    /* execve(2) and execveat(2) only with an argv (all 64 bits compared: a valid pointer may
     * have its low half zero). A NULL argv uses up the kernel's once-per-boot warning about the
     * pkexec exploit's pattern (CVE-2021-4034), so a host process doing it later went unlogged
     * (red-team finding, session 16); no program needs it. */
    struct scmp_arg_cmp argv_cmp = {.arg = 1, .op = SCMP_CMP_GT, .datum_a = 0};
    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr("execve"), 1, &argv_cmp, why, why_len);
    if (rc < 0)
        return rc;
    struct scmp_arg_cmp argv_at_cmp = {.arg = 2, .op = SCMP_CMP_GT, .datum_a = 0};
    rc = add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr("execveat"), 1, &argv_at_cmp, why,
                  why_len);
    if (rc < 0)
        return rc;

    /* personality(2): ADDR_NO_RANDOMIZE would switch off ASLR for whatever the workload execs
     * next, READ_IMPLIES_EXEC makes every readable mapping executable. Compared on all 64 bits:
     * anything but the exact listed values is refused. */
    for (size_t i = 0; i < p->n_personalities; i++) {
        struct scmp_arg_cmp cmp = {.arg = 0, .op = SCMP_CMP_EQ, .datum_a = p->personalities[i]};
        rc =
            add_rule(ctx, SCMP_ACT_ALLOW, asb_gen_syscall_nr("personality"), 1, &cmp, why, why_len);
        if (rc < 0)
            return rc;
    }

    for (size_t i = 0; i < p->n_arg_refused; i++) {
        rc = add_arg_refusal(ctx, &p->arg_refused[i], why, why_len);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int asb_gen_policy_build(const gen_policy_t *p, scmp_filter_ctx *out, char *why, size_t why_len)
{
    *out = NULL;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (!ctx)
        return fail(why, why_len, -ENOMEM, "seccomp_init failed");

    int rc = 0;
    /* Always x86_64, whatever the build host, and nothing else: libseccomp then refuses any other
     * audit arch (i386) and x86_64 calls with __X32_SYSCALL_BIT set (x32), with ENOSYS as a
     * kernel without those ABIs would. Not a kill: the kernel writes every seccomp kill to its
     * log, under the rate limit it shares with all audit records, and a run killing forked
     * children in a loop (4,092 in 6 s) kept other sandboxes' and the host's denials out of it
     * (red-team finding, session 8). A refused call is not logged. */
    uint32_t native = seccomp_arch_native();
    if (native != SCMP_ARCH_X86_64) {
        rc = seccomp_arch_add(ctx, SCMP_ARCH_X86_64);
        if (rc == 0)
            rc = seccomp_arch_remove(ctx, native);
        if (rc < 0) {
            fail(why, why_len, rc, "select x86_64: %s", strerror(-rc));
            goto out;
        }
    }
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS));
    if (rc < 0) {
        fail(why, why_len, rc, "bad-arch action: %s", strerror(-rc));
        goto out;
    }
    /* A binary tree over syscall numbers: ~9 comparisons instead of up to ~300 per syscall. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    if (rc < 0) {
        fail(why, why_len, rc, "optimize attribute: %s", strerror(-rc));
        goto out;
    }
    rc = build_rules(p, ctx, why, why_len);
    if (rc < 0)
        goto out;
    *out = ctx;
    ctx = NULL;
out:
    if (ctx)
        seccomp_release(ctx);
    return rc;
}

/* Print words separated by ", ", wrapped at ~96 columns, each line starting with prefix. */
static void print_wrapped(FILE *f, const char *prefix, const char *const *words, size_t n,
                          const int *nrs)
{
    size_t col = 0;
    for (size_t i = 0; i < n; i++) {
        char word[96];
        if (nrs)
            snprintf(word, sizeof(word), "%s(%d)%s", words[i], nrs[i], i + 1 < n ? "," : "");
        else
            snprintf(word, sizeof(word), "%s%s", words[i], i + 1 < n ? "," : "");
        size_t len = strlen(word);
        if (col == 0) {
            fprintf(f, "%s    %s", prefix, word);
            col = 4 + len;
        } else if (col + 1 + len > 96) {
            fprintf(f, "\n%s    %s", prefix, word);
            col = 4 + len;
        } else {
            fprintf(f, " %s", word);
            col += 1 + len;
        }
    }
    if (col)
        fputc('\n', f);
}

void asb_gen_policy_describe(const gen_policy_t *p, FILE *f, const char *prefix, int reasons)
{
    const char *allow[GEN_MAX_SYSCALLS];
    int nrs[GEN_MAX_SYSCALLS];
    int n = effective_allow(p, allow, GEN_MAX_SYSCALLS);
    if (n < 0)
        n = 0;
    for (int i = 0; i < n; i++)
        nrs[i] = asb_gen_syscall_nr(allow[i]);

    fprintf(f, "%s%s: %s\n", prefix, p->name, p->title);
    fprintf(f,
            "%s  arch x86_64 only (any other arch, and x32: ERRNO(ENOSYS)); default ERRNO(EPERM)\n",
            prefix);
    fprintf(f, "%s  allowed (%d):\n", prefix, n);
    print_wrapped(f, prefix, allow, (size_t)n, nrs);
    fprintf(f, "%s  conditional:\n", prefix);
    fprintf(f, "%s    clone(%d): allowed when no CLONE_NEW* flag (mask 0x%08llx) is set\n", prefix,
            asb_gen_syscall_nr("clone"), (unsigned long long)GEN_CLONE_NS_FLAGS);
    fprintf(f, "%s    clone3(%d): ERRNO(ENOSYS), so libc falls back to clone\n", prefix,
            asb_gen_syscall_nr("clone3"));
    if (p->n_socket_families > 0) {
        fprintf(f, "%s    socket(%d), socketpair(%d): only families", prefix,
                asb_gen_syscall_nr("socket"), asb_gen_syscall_nr("socketpair"));
        for (size_t i = 0; i < p->n_socket_families; i++)
            fprintf(f, " %u", p->socket_families[i]);
        if (p->n_inet_pairs > 0) {
            fprintf(f, "; for %d and %d only (type, protocol)", AF_INET, AF_INET6);
            for (size_t i = 0; i < p->n_inet_pairs; i++)
                fprintf(f, " (%u, %u)", p->inet_pairs[i].type, p->inet_pairs[i].protocol);
        }
        fprintf(f, ", on the low 32 bits\n");
    } else {
        fprintf(f, "%s    socket(%d): any family but AF_VSOCK (%d), on the low 32 bits\n", prefix,
                asb_gen_syscall_nr("socket"), AF_VSOCK);
        if (p->n_netlink_refused > 0) {
            fprintf(f, "%s    socket(%d, AF_NETLINK): any protocol but", prefix,
                    asb_gen_syscall_nr("socket"));
            for (size_t i = 0; i < p->n_netlink_refused; i++)
                fprintf(f, " %u", p->netlink_refused[i]);
            fprintf(f, " (the host's socket table and device events)\n");
        }
    }
    fprintf(f,
            "%s    prlimit64(%d): only on the caller itself (pid 0), or to read (no new limit)\n",
            prefix, asb_gen_syscall_nr("prlimit64"));
    fprintf(f, "%s    execve(%d), execveat(%d): only with an argv (not NULL)\n", prefix,
            asb_gen_syscall_nr("execve"), asb_gen_syscall_nr("execveat"));
    fprintf(f, "%s    personality(%d): only", prefix, asb_gen_syscall_nr("personality"));
    for (size_t i = 0; i < p->n_personalities; i++)
        fprintf(f, " 0x%llx", (unsigned long long)p->personalities[i]);
    fputc('\n', f);
    for (size_t i = 0; i < p->n_noop; i++)
        fprintf(f, "%s    %s(%d): a no-op returning 0 (%s)\n", prefix, p->noop[i].name,
                asb_gen_syscall_nr(p->noop[i].name), p->noop[i].why);
    for (size_t i = 0; i < p->n_einval; i++)
        fprintf(f, "%s    %s(%d): fails with EINVAL (%s)\n", prefix, p->einval[i].name,
                asb_gen_syscall_nr(p->einval[i].name), p->einval[i].why);
    for (size_t i = 0; i < p->n_eopnotsupp; i++)
        fprintf(f, "%s    %s(%d): fails with EOPNOTSUPP (%s)\n", prefix, p->eopnotsupp[i].name,
                asb_gen_syscall_nr(p->eopnotsupp[i].name), p->eopnotsupp[i].why);
    for (size_t i = 0; i < p->n_enosys; i++)
        fprintf(f, "%s    %s(%d): fails with ENOSYS (%s)\n", prefix, p->enosys[i].name,
                asb_gen_syscall_nr(p->enosys[i].name), p->enosys[i].why);
    for (size_t i = 0; i < p->n_gated_flags; i++)
        fprintf(f,
                "%s    %s(%d): with argument %u = %u, refused when argument %u has a bit of 0x%x "
                "(%s)\n",
                prefix, p->gated_flags[i].name, asb_gen_syscall_nr(p->gated_flags[i].name),
                p->gated_flags[i].gate_arg, p->gated_flags[i].gate_value, p->gated_flags[i].arg,
                p->gated_flags[i].mask, p->gated_flags[i].why);
    for (size_t i = 0; i < p->n_flag_refused; i++)
        fprintf(f, "%s    %s(%d): refused when argument %u has a bit of 0x%x (%s)\n", prefix,
                p->flag_refused[i].name, asb_gen_syscall_nr(p->flag_refused[i].name),
                p->flag_refused[i].arg, p->flag_refused[i].mask, p->flag_refused[i].why);
    for (size_t i = 0; i < p->n_arg_refused; i++) {
        const gen_arg_refusal_t *r = &p->arg_refused[i];
        char how[48];
        if (r->refuse_errno)
            snprintf(how, sizeof(how), "refused with errno %d", r->refuse_errno);
        fprintf(f, "%s    %s(%d): %s when argument %u is", prefix, r->name,
                asb_gen_syscall_nr(r->name),
                r->noop ? "a no-op returning 0" : (r->refuse_errno ? how : "refused"), r->arg);
        for (size_t k = 0; k < r->n_deny; k++)
            fprintf(f, " 0x%x", r->deny[k]);
        if (r->ignore_bits)
            fprintf(f, " with any of bits 0x%x set or clear", r->ignore_bits);
        if (r->when_arg >= 0)
            fprintf(f, " and argument %d is 0x%x", r->when_arg, r->when_value);
        for (size_t g = 0; g < r->n_more_gates; g++) {
            fprintf(f, "; or argument %u is", r->arg);
            for (size_t k = 0; k < r->more_gates[g].n_deny; k++)
                fprintf(f, " 0x%x", r->more_gates[g].deny[k]);
            fprintf(f, " and argument %d is 0x%x", r->when_arg, r->more_gates[g].value);
        }
        fprintf(f, ", on the low 32 bits (%s)\n", r->why);
    }
    if (p->n_refused == 0)
        return;
    fprintf(f, "%s  refused on purpose (%zu), beyond everything not allowed:\n", prefix,
            p->n_refused);
    if (!reasons) {
        const char *names[GEN_MAX_SYSCALLS];
        size_t k = 0;
        for (size_t i = 0; i < p->n_refused && k < GEN_MAX_SYSCALLS; i++)
            names[k++] = p->refused[i].name;
        print_wrapped(f, prefix, names, k, NULL);
        return;
    }
    for (size_t i = 0; i < p->n_refused; i++)
        fprintf(f, "%s    %-18s %s\n", prefix, p->refused[i].name, p->refused[i].why);
}
