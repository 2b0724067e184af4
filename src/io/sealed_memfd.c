/* sealed_memfd.c - see sealed_memfd.h. */
#include "io/sealed_memfd.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* Linux 6.3; musl's and older headers lack it */
#endif

int asb_sealed_memfd(const char *name, const void *data, size_t len, asb_error_t *err)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL) /* a kernel before 6.3: the mode below does the work */
        fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return asb_err_sys(err, errno, "memfd %s", name);
    int e = 0;
    const char *step = NULL;
    if (fchmod(fd, 0444) < 0) {
        e = errno, step = "chmod";
        goto fail;
    }
    const unsigned char *p = data;
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, p + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            e = errno, step = "write";
            goto fail;
        }
        off += (size_t)w;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
        e = errno, step = "seal";
        goto fail;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    e = errno;
    close(fd);
    if (ro < 0)
        return asb_err_sys(err, e, "memfd %s: reopen read-only", name);
    return ro;
fail:
    close(fd);
    return asb_err_sys(err, e, "memfd %s: %s", name, step);
}
