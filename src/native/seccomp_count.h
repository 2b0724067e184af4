/* seccomp_count.h - how many seccomp filters a process runs under, for the host and the
 * supervisor alike (the supervisor links this file too: libc only). */
#ifndef ASB_NATIVE_SECCOMP_COUNT_H
#define ASB_NATIVE_SECCOMP_COUNT_H

#include <sys/types.h>

/* The seccomp filters in force on process pid (Seccomp_filters in its /proc status), or on the
 * calling thread when pid is 0; -1 when the kernel does not say (before Linux 5.9). */
long long asb_native_seccomp_filters(pid_t pid);

#endif
