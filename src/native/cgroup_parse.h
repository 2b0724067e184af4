/* cgroup_parse.h - pure parsers for the cgroup module: mountinfo, flat keyed files (memory.events,
 * memory.oom_control, cpu.stat), single values, pid lists, owner-tagged names, /proc/<pid>/stat.
 * No I/O here, so every format is unit-tested from strings (tests/unit/test_cgroup_parse.c).
 * Buffers are (pointer, length) and need not be NUL-terminated. */
#ifndef ASB_NATIVE_CGROUP_PARSE_H
#define ASB_NATIVE_CGROUP_PARSE_H

#include "core/limits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The controllers this project uses, as bits. cpuacct exists on v1 only (v2 folds it into cpu). */
enum {
    ASB_CGROUP_CTRL_MEMORY = 1u << 0,
    ASB_CGROUP_CTRL_PIDS = 1u << 1,
    ASB_CGROUP_CTRL_CPU = 1u << 2,
    ASB_CGROUP_CTRL_CPUACCT = 1u << 3,
    ASB_CGROUP_CTRL_IO = 1u << 4, /* v1 "blkio", v2 "io": disk read throttling */
};
#define ASB_CGROUP_CTRL_REQUIRED                                                                   \
    (ASB_CGROUP_CTRL_MEMORY | ASB_CGROUP_CTRL_PIDS | ASB_CGROUP_CTRL_CPU)

/* "asb-<pid>-<starttime>-p<pidns>-<run id>" with NUL: prefix, 4 dashes, 10-digit pid, 'p' and
 * two 20-digit u64. */
#define ASB_CGROUP_NAME_MAX                                                                        \
    (sizeof(ASB_OWNER_PREFIX) + 4 + 10 + 1 + 20 + 20 + ASB_CGROUP_RUN_ID_MAX)

/* One controller hierarchy as seen in /proc/self/mountinfo. */
typedef struct asb_cgroup_mount {
    char mount[ASB_CGROUP_PATH_MAX]; /* mount point, octal escapes (\040) decoded */
    unsigned dev_major, dev_minor;   /* identifies the hierarchy across bind mounts */
    unsigned controllers;            /* ASB_CGROUP_CTRL_* bits (v1: from the super options) */
    /* The mount shows a cgroup above the reader's cgroup namespace root (mountinfo root "/.."
     * or "/../..."): a caller in a cgroup namespace of its own looking at the host's mount. */
    bool outside_ns;
    bool nsdelegate; /* cgroup2 mounted with nsdelegate: the kernel then refuses to move or
                      * clone a process into a cgroup outside the caller's namespace */
} asb_cgroup_mount_t;

/* What a mountinfo scan found: the first cgroup2 mount (the first inside the reader's cgroup
 * namespace when there is one: a namespace's own mount made after the host's), and one mount per
 * v1 hierarchy that carries
 * at least one controller we use (first mount of each hierarchy wins; co-mounted "cpu,cpuacct" is
 * one hierarchy with two bits). */
typedef struct asb_cgroup_mounts {
    bool has_v2;
    asb_cgroup_mount_t v2;
    size_t n_v1;
    asb_cgroup_mount_t v1[ASB_CGROUP_MAX_HIERARCHIES];
} asb_cgroup_mounts_t;

/* Feed one mountinfo line (without its '\n'). Lines that are not cgroup mounts are ignored;
 * returns -EINVAL for a cgroup line that cannot be parsed, else 0. */
int asb_cgroup_mounts_add_line(asb_cgroup_mounts_t *m, const char *line, size_t len);

/* Scan a whole mountinfo text (zeroes *m first). Malformed cgroup lines are skipped. */
void asb_cgroup_mounts_scan(asb_cgroup_mounts_t *m, const char *text, size_t len);

/* Controller bits named in a space-separated list (cgroup.controllers, cgroup.subtree_control). */
unsigned asb_cgroup_parse_controllers(const char *buf, size_t len);

/* The bytes a cgroup read from block devices, summed over its devices: v1
 * blkio.throttle.io_service_bytes ("MAJ:MIN Read N" lines), v2 io.stat ("MAJ:MIN rbytes=N ...").
 * 0 or -EINVAL (a line that names a device but whose count is not a number) or -ERANGE. */
int asb_cgroup_parse_io_read_bytes(const char *buf, size_t len, bool v2, uint64_t *out);

/* "MAJ:MIN" (a sysfs `dev` file, optional trailing newline). 0 or -EINVAL. */
int asb_cgroup_parse_devnum(const char *buf, size_t len, unsigned *major, unsigned *minor);

/* Names of the bits in mask ("memory, pids"), for error messages. */
void asb_cgroup_controller_names(unsigned mask, char *out, size_t size);

/* A single decimal value with optional trailing whitespace; "max" reads as UINT64_MAX.
 * 0, -EINVAL (not a number) or -ERANGE. */
int asb_cgroup_parse_u64(const char *buf, size_t len, uint64_t *out);

/* The value of "key" in a flat keyed file ("key value\n" lines): memory.events, cpu.stat,
 * memory.oom_control. 0, -ENOENT (no such key) or -EINVAL/-ERANGE (bad value). */
int asb_cgroup_parse_key_u64(const char *buf, size_t len, const char *key, uint64_t *out);

/* Pids of a cgroup.procs text, one per '\n'-terminated line (a cut-off last line is ignored, so a
 * partial read never yields a wrong pid). Returns how many were stored (at most max). */
size_t asb_cgroup_parse_pids(const char *buf, size_t len, pid_t *pids, size_t max);

/* Field 22 (starttime, clock ticks since boot) of /proc/<pid>/stat. The command name (field 2) may
 * hold spaces and parentheses, so fields are counted from the last ')'. 0 or -EINVAL. */
int asb_cgroup_parse_stat_starttime(const char *buf, size_t len, uint64_t *out);

/* The boottime line of /proc/self/timens_offsets ("boottime <secs> <nanosecs>", secs may be
 * negative) as nanoseconds. 0 or -EINVAL (no such line, bad numbers). */
int asb_cgroup_parse_timens_boottime(const char *buf, size_t len, int64_t *ns);

/* A starttime the kernel showed (raw ticks, the reader's boottime offset added) on the host's
 * boot clock: the offset (ns, rounded down to ticks of tick_ns) taken back out, and the kernel's
 * unsigned wrap of a negative offset undone. 0 or -ERANGE. */
int asb_cgroup_host_starttime(uint64_t raw, int64_t off_ns, int64_t tick_ns, uint64_t *out);

/* /proc/swaps lists at least one active swap area (any line after the header). */
bool asb_cgroup_parse_swaps_active(const char *buf, size_t len);

/* A run id is 1..ASB_CGROUP_RUN_ID_MAX of [A-Za-z0-9_.-], not starting with '.' or '-': it becomes
 * part of a directory name, so it must never be "..", hold '/', or look like an option. */
bool asb_cgroup_valid_run_id(const char *run_id);

/* The runs' parent directory: a plain name of [A-Za-z0-9_.-], not "." or "..", shorter than
 * ASB_CGROUP_PARENT_NAME_MAX (checked on the host struct, which callers may fill by hand). */
bool asb_cgroup_valid_parent(const char *name);

/* The owner fields of an owner-tagged name "<ASB_OWNER_PREFIX>-<pid>-<start>-[p<pidns>-]<rest>"
 * (cgroups, temp dirs, container labels), decimal digits only; *pidns is 0 for a name from before
 * session 14, which had none; *rest points past the fields. 0 or -EINVAL. */
int asb_owner_tag_fields(const char *name, uint64_t *pid, uint64_t *start, uint64_t *pidns,
                         const char **rest);

/* "<ASB_OWNER_PREFIX>-<pid>-<start>-p<pidns>-<run id>" into out: pidns is the inode of the
 * owner's pid namespace, in which its pid means something. 0 or -EINVAL (bad run id, pidns 0) /
 * -ENAMETOOLONG. */
int asb_cgroup_format_name(char *out, size_t size, pid_t pid, uint64_t start, uint64_t pidns,
                           const char *run_id);

/* Parse a directory name made by asb_cgroup_format_name; *pidns is 0 for a name from before
 * session 14, which had none. 0, or -EINVAL when it is not one of ours (then the caller must
 * leave it alone). */
int asb_cgroup_parse_name(const char *name, pid_t *pid, uint64_t *start, uint64_t *pidns);

#endif
