/* owner.h - owner tags: every leftover-capable object (temp dir, cgroup, container) is named
 * "asb-<owner pid>-<owner starttime>-..." so a later process can tell whether its owner is alive.
 */
#ifndef ASB_CORE_OWNER_H
#define ASB_CORE_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Field 22 of /proc/<pid>/stat (start time in clock ticks), 0 when the process does not exist. */
uint64_t asb_owner_starttime(pid_t pid);

/* "asb-<pid>-<start>-p<pid namespace inode>" for the calling process: a pid means something only
 * in its own pid namespace, so the namespace is part of every owner tag. */
int asb_owner_tag(char *out, size_t len);

/* Parse "asb-<pid>-<start>-[p<pidns>-]<rest>"; *pidns is 0 for a tag without one (before
 * session 14). False when name is not owner-tagged. */
bool asb_owner_parse(const char *name, pid_t *pid, uint64_t *start, uint64_t *pidns);

/* The inode of the calling process's pid namespace, 0 when it cannot be read. */
uint64_t asb_owner_pidns_ino(void);

/* "<dev>:<inode>" of the calling process's pid namespace (/proc/self/ns/pid): an owner tag's
 * pid means something only to a process of the same namespace. */
int asb_owner_pidns(char *out, size_t len);

/* The owner is alive, or cannot be judged from here: the pid exists with the same start time,
 * or the tag names another pid namespace than the caller's (pidns 0: the caller's). A reaper
 * must never touch what a live owner elsewhere still uses (QA finding, session 14: a run from
 * `unshare -pf` was killed by a run on the host). */
bool asb_owner_alive(pid_t pid, uint64_t start, uint64_t pidns);

/* Append line and a newline to *report (malloc'd, NULL to start): what a cleanup removed. */
void asb_report_append(char **report, const char *line);

/* Remove the subprocess temp dirs this process owns (cleanup.c): for a CLI ending on a signal
 * while a run's program still had its directory. Best effort. */
void asb_cleanup_own_temp_dirs(void);
/* The subprocess temp dirs of dead owners (a killed caller), with the processes their programs
 * left running: what `agent-sandbox cleanup` does for them, done at the start of every
 * subprocess run. Best effort. */
void asb_cleanup_dead_temp_dirs(void);

#endif
