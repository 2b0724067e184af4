/* policy.h - what the build-time seccomp generator knows about our two policies.
 *
 * The generator (asb-seccomp-gen) is a host tool linked with libseccomp. It turns the tables in
 * policy_docker.c and policy_hardened.c into classic BPF once, at build time; the supervisor then
 * loads that BPF as-is, so the static supervisor never links libseccomp and every sandbox runs the
 * very program that was reviewed in the generated header.
 *
 * The filters are for x86_64 only. Any other audit arch (i386 via int 0x80, and x32, which reports
 * AUDIT_ARCH_X86_64 with __X32_SYSCALL_BIT set) kills the process: those ABIs have their own
 * syscall tables, and a filter written for one table lets through the same numbers meaning other
 * calls in another.
 */
#ifndef ASB_SECCOMP_GEN_POLICY_H
#define ASB_SECCOMP_GEN_POLICY_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A syscall refused on purpose, and the attack the refusal stops. */
typedef struct gen_refusal {
    const char *name;
    const char *why;
} gen_refusal_t;

/* A call allowed except for some values of one argument, compared on its low 32 bits (the
 * kernel reads these arguments as 32-bit ints, so the upper half of the register must not
 * matter). With when_arg >= 0, only calls whose argument when_arg (low 32 bits) equals
 * when_value are checked; all others are allowed. */
typedef struct gen_arg_refusal {
    const char *name;
    unsigned arg;
    const uint32_t *deny;
    size_t n_deny;
    int when_arg;
    uint32_t when_value;
    /* The denied values return 0 without doing anything instead of failing (EPERM): for advice
     * the kernel may ignore anyway, so programs that check the result keep working. */
    bool noop;
    /* Bits of the argument that do not decide (e.g. futex's FUTEX_PRIVATE_FLAG): a denied value
     * is denied with these bits set or clear, in every combination. */
    uint32_t ignore_bits;
    /* Refused with this errno instead of the policy's EPERM (0: EPERM). ENOSYS tells libc that
     * the operation does not exist here, which is what its feature probes test for. */
    int refuse_errno;
    const char *why; /* printed by the listing */
    /* More gates, each with its own denied values: with when_arg >= 0, calls whose argument
     * when_arg equals a gate's value are checked against that gate's list too (e.g. setsockopt
     * options per level). Not with noop or refuse_errno. */
    const struct gen_gate *more_gates;
    size_t n_more_gates;
} gen_arg_refusal_t;

/* One more value of an argument refusal's gating argument, and what it denies: the listed values,
 * or with refuse_all every value (then deny is NULL and n_deny 0: one comparison in the filter
 * instead of a partition of the argument's range per denied value). */
typedef struct gen_gate {
    uint32_t value;
    const uint32_t *deny;
    size_t n_deny;
    bool refuse_all;
} gen_gate_t;

/* A call allowed only while none of `mask`'s bits is set in argument `arg`. */
typedef struct gen_flag_refusal {
    const char *name;
    unsigned arg;
    uint32_t mask;
    const char *why; /* printed by the listing */
} gen_flag_refusal_t;

/* A call allowed when argument gate_arg (low 32 bits) equals gate_value and no bit of mask is
 * set in argument arg: fcntl(F_SETFL) without O_DIRECT. Pairs with an argument refusal of the
 * same call that denies gate_value (so nothing else allows it; no errno of its own). */
typedef struct gen_gated_flag {
    const char *name;
    unsigned gate_arg;
    uint32_t gate_value;
    unsigned arg;
    uint32_t mask;
    const char *why; /* printed by the listing */
} gen_gated_flag_t;

/* An IPv4/IPv6 socket type with one protocol allowed for it. */
typedef struct gen_inet_pair {
    uint32_t type;
    uint32_t protocol;
} gen_inet_pair_t;

/* Refusals both policies make (each policy lists them itself: a base's conditional rules are not
 * inherited). Setting an extended attribute: a POSIX ACL on a tmpfs file (the sandbox's /tmp,
 * workspace, /dev/shm, or a memfd) pins about 64 KiB of kernel memory no memory cgroup is charged
 * for; a hardened run held 1.7 GB of the host's memory under its 128 MiB limit that way
 * (red-team finding, session 16). Seccomp cannot read the attribute's name, so every set fails
 * as on a file system without xattrs (cp, tar, Python's shutil carry on). */
#define GEN_XATTR_WHY "a POSIX ACL on tmpfs pins kernel memory no memory cgroup is charged for"
#define GEN_XATTR_SET_REFUSALS                                                                     \
    {"setxattr", GEN_XATTR_WHY}, {"lsetxattr", GEN_XATTR_WHY},                                     \
    {                                                                                              \
        "fsetxattr", GEN_XATTR_WHY                                                                 \
    }
/* Multicast group joins at IPPROTO_IP: IP_ADD_MEMBERSHIP, IP_BLOCK_SOURCE,
 * IP_ADD_SOURCE_MEMBERSHIP, IP_MSFILTER, MCAST_JOIN_GROUP, MCAST_BLOCK_SOURCE,
 * MCAST_JOIN_SOURCE_GROUP, MCAST_MSFILTER (why: in each policy). */
#define GEN_IP_MCAST_JOINS 35, 38, 39, 41, 42, 43, 46, 48
/* The same at IPPROTO_IPV6: IPV6_ADD_MEMBERSHIP, IPV6_JOIN_ANYCAST, MCAST_JOIN_GROUP,
 * MCAST_BLOCK_SOURCE, MCAST_JOIN_SOURCE_GROUP, MCAST_MSFILTER. */
#define GEN_IPV6_MCAST_JOINS 20, 27, 42, 43, 46, 48
/* Keys at IPPROTO_TCP: TCP_MD5SIG, TCP_MD5SIG_EXT, TCP_AO_ADD_KEY, TCP_AO_DEL_KEY, TCP_AO_INFO,
 * TCP_AO_GET_KEYS, TCP_AO_REPAIR. Each key is socket option memory (sock_kmalloc), bounded only
 * by net.core.optmem_max per socket and charged to no memory cgroup; TCP_MD5SIG works on an
 * unconnected socket, so no network is needed: a hardened run held 1.4 GB of host memory under
 * its 128 MiB limit (red-team finding, session 16). */
#define GEN_TCP_KEY_OPTIONS 14, 32, 38, 39, 40, 41, 42
/* O_DIRECT reads bypass the page cache and wait for the disk uninterruptibly: under the run's
 * disk read limit a killed run's threads cannot die until their queued reads drain at it (a 3 s
 * run of 60 threads lasted 58.5 s: review finding, session 20). Refused where a filter can see
 * the flag (open, openat, fcntl F_SETFL); openat2 carries its flags in memory and fails with
 * ENOSYS, so libc and programs fall back to openat. A buffered read dies at a fatal signal. */
#define GEN_O_DIRECT 040000u
#define GEN_O_DIRECT_WHY                                                                           \
    "O_DIRECT: uninterruptible reads that outlast a killed run under its disk limit"
#define GEN_O_DIRECT_FLAG_REFUSALS                                                                 \
    {"open", 1, GEN_O_DIRECT, GEN_O_DIRECT_WHY},                                                   \
    {                                                                                              \
        "openat", 2, GEN_O_DIRECT, GEN_O_DIRECT_WHY                                                \
    }
#define GEN_O_DIRECT_SETFL                                                                         \
    {                                                                                              \
        "fcntl", 1, 4 /* F_SETFL */, 2, GEN_O_DIRECT, GEN_O_DIRECT_WHY                             \
    }

/* One policy, as data. The builder (policy_build.c) turns it into a libseccomp context. */
typedef struct gen_policy {
    const char *name;  /* "docker_default": the generated arrays are asb_bpf_<name>[] */
    const char *title; /* one line for the listing */
    /* Allowed without conditions: base's list (if any) then this one. Entries also named in
     * `refused` are dropped, so the hardened policy can start from the Docker list and subtract. */
    const struct gen_policy *base;
    const char *const *allow;
    size_t n_allow;
    const gen_refusal_t *refused;
    size_t n_refused;
    /* personality(2): only these exact persona values are allowed. */
    const uint64_t *personalities;
    size_t n_personalities;
    /* Calls refused only for some argument values (each call at most once). */
    const gen_arg_refusal_t *arg_refused;
    size_t n_arg_refused;
    /* socket(2) and socketpair(2): when non-empty, only these families are allowed (else
     * socket(2) with any family but AF_VSOCK, and socketpair(2) with any). */
    const uint32_t *socket_families;
    size_t n_socket_families;
    /* Without a family allowlist: AF_NETLINK protocols refused (every other one allowed). */
    const uint32_t *netlink_refused;
    size_t n_netlink_refused;
    /* With socket_families: for AF_INET and AF_INET6, only these socket types (argument 1, its
     * low 4 bits: SOCK_NONBLOCK and SOCK_CLOEXEC may be set) with these protocols (argument 2),
     * when non-empty. */
    const struct gen_inet_pair *inet_pairs;
    size_t n_inet_pairs;
    /* Calls that return 0 without doing anything (ERRNO(0)), each with why. */
    const gen_refusal_t *noop;
    size_t n_noop;
    /* Calls that fail with EINVAL, each with why: what runtimes read as "not supported for
     * these files" and fall back from to read/write (splice, sendfile). */
    const gen_refusal_t *einval;
    size_t n_einval;
    /* Calls that fail with EOPNOTSUPP, each with why: what programs read as "this file system
     * has no such feature" and carry on without (setting extended attributes). */
    const gen_refusal_t *eopnotsupp;
    size_t n_eopnotsupp;
    /* Calls allowed only when no bit of mask is set in argument arg (low 32 bits). */
    const gen_flag_refusal_t *flag_refused;
    size_t n_flag_refused;
    /* Values an argument refusal denies that are allowed again without some flags. */
    const gen_gated_flag_t *gated_flags;
    size_t n_gated_flags;
    /* Calls that fail with ENOSYS, each with why: "not on this kernel", which libc and programs
     * fall back from (openat2: its flags are in memory, where a filter cannot look). */
    const gen_refusal_t *enosys;
    size_t n_enosys;
} gen_policy_t;

/* Both policies share these conditional rules (policy_build.c): clone(2) without any namespace
 * flag; clone3(2) fails with ENOSYS so libc falls back to clone(2), whose flags a filter can see;
 * socket(2) for every family but AF_VSOCK. */

extern const gen_policy_t asb_gen_policy_docker_default;
extern const gen_policy_t asb_gen_policy_hardened;

/* The x86_64 number of a syscall name, or -1 when x86_64 has no such call. Knows a few calls newer
 * than the libseccomp we build with. */
int asb_gen_syscall_nr(const char *name);

/* Build the filter of one policy. On failure returns a negative errno and writes why to `why`. */
int asb_gen_policy_build(const gen_policy_t *p, scmp_filter_ctx *out, char *why, size_t why_len);

/* A human listing of one policy: each line starts with `prefix` (" * " inside the generated
 * header's comment, "" for --list). With `reasons`, each refusal is followed by why. */
void asb_gen_policy_describe(const gen_policy_t *p, FILE *f, const char *prefix, int reasons);

#endif
