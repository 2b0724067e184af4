/* seccomp_count.c - the Seccomp_filters line of a /proc status: what the host's verifier and the
 * container's supervisor count the workload's filters against. */
#include "native/seccomp_count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long asb_native_seccomp_filters(pid_t pid)
{
    char path[48];
    if (pid > 0)
        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    else
        snprintf(path, sizeof(path), "/proc/thread-self/status");
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[256];
    long long n = -1;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "Seccomp_filters:", 16) == 0) {
            n = strtoll(line + 16, NULL, 10);
            break;
        }
    fclose(f);
    return n;
}
