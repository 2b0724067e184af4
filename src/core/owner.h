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

/* "asb-<pid>-<start>" for the calling process. */
int asb_owner_tag(char *out, size_t len);

/* Parse "asb-<pid>-<start>-<rest>"; false when name is not owner-tagged. */
bool asb_owner_parse(const char *name, pid_t *pid, uint64_t *start);

/* "<dev>:<inode>" of the calling process's pid namespace (/proc/self/ns/pid): an owner tag's
 * pid means something only to a process of the same namespace. */
int asb_owner_pidns(char *out, size_t len);

/* The owner is alive: the pid exists and has the same start time. */
bool asb_owner_alive(pid_t pid, uint64_t start);

/* Append line and a newline to *report (malloc'd, NULL to start): what a cleanup removed. */
void asb_report_append(char **report, const char *line);

/* Remove the subprocess temp dirs this process owns (cleanup.c): for a CLI ending on a signal
 * while a run's program still had its directory. Best effort. */
void asb_cleanup_own_temp_dirs(void);

#endif
