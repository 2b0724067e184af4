/* ending.c - the end of a run, shared by the native and the container mode of the supervisor. */
#include "native/supervisor/sup.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void sup_collect_exec_error(int attfd, char *buf, size_t size, size_t len)
{
    if (attfd >= 0) {
        ssize_t n = read(attfd, buf + len, size - 1 - len);
        if (n > 0)
            len += (size_t)n;
        close(attfd);
    }
    buf[len] = '\0';
    if (strncmp(buf, "exec-error:", 11) == 0)
        memmove(buf, buf + 11, strlen(buf + 11) + 1);
}

void sup_reap_all(void)
{
    for (;;) {
        int status;
        pid_t p = waitpid(-1, &status, 0);
        if (p < 0 && errno == EINTR)
            continue;
        if (p < 0)
            return;
    }
}
