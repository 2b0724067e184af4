/* docker_tcp.c - the TCP socket memory limit of a container on cgroup v1.
 *
 * cgroup v1 charges TCP socket buffers to a memory cgroup only once that cgroup has a TCP limit
 * (memory.kmem.tcp.limit_in_bytes), and the engine sets none (HostConfig.KernelMemoryTCP is
 * accepted and ignored by this engine's runtime). A docker-hardened run held 2.4 GB of loopback
 * buffers, past the host-wide tcp_mem hard limit, while its cgroup read 42 MB (red-team finding,
 * session 7). The host sets the native backend's limit on the container's own memory cgroup after
 * the start and before the workload is released: every socket the workload makes is charged.
 * On cgroup v2 memory.max counts socket memory already: nothing to do. */
#include "core/error.h"
#include "docker/docker.h"
#include "native/cgroup.h"
#include "native/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int asb_docker_limit_tcp_v1(asb_docker_engine_t *eng, const char *id, uint64_t memory_bytes,
                            asb_error_t *err)
{
    if (memory_bytes == 0)
        return 0; /* no memory limit to add sockets to */
    /* On v1 the memory hierarchy holds the container's own cgroup; on v2 memory.max counts
     * socket memory already: nothing to do. */
    asb_cgroup_host_t host;
    int rc;
    if ((rc = asb_cgroup_detect(&host, err)) < 0)
        return rc;
    if (host.version != ASB_CGROUP_V1)
        return 0;
    char dir[2 * ASB_CGROUP_PATH_MAX];
    int dfd = -1;
    if ((rc = asb_docker_container_cgroup(eng, &host, id, ASB_CGROUP_CTRL_MEMORY, dir, sizeof(dir),
                                          &dfd, err)) < 0)
        return rc;
    if (rc == 0)
        return asb_err(err, -ENOENT,
                       "docker: the container is in no v1 memory cgroup this host's memory "
                       "hierarchy holds");
    char want[32], got[64];
    snprintf(want, sizeof(want), "%" PRIu64, asb_cgroup_v1_tcp_bytes(memory_bytes));
    size_t n = 0;
    rc = asb_cgroup_fs_write_at(dfd, "memory.kmem.tcp.limit_in_bytes", want);
    if (rc == 0)
        rc = asb_cgroup_fs_read_at(dfd, "memory.kmem.tcp.limit_in_bytes", got, sizeof(got), &n);
    close(dfd);
    if (rc < 0)
        return asb_err_sys(err, -rc,
                           "docker: cannot limit TCP socket memory (%s/memory.kmem.tcp."
                           "limit_in_bytes; on cgroup v1 the docker backend needs a root "
                           "caller to set it); without it a container's socket buffers escape "
                           "its memory limit",
                           dir);
    /* Read back: the kernel rounds to pages; the limit must not be above what was asked. */
    uint64_t v = strtoull(got, NULL, 10);
    if (v == 0 || v > asb_cgroup_v1_tcp_bytes(memory_bytes))
        return asb_err(err, -EIO, "docker: the TCP memory limit of %s reads %" PRIu64, dir, v);
    return 0;
}
