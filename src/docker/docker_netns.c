/* docker_netns.c - docker-hardened's lo, taken down by the host.
 *
 * Native hardened keeps lo down: connections to a loopback listener that nobody accepts are
 * kernel memory no cgroup is charged for (chaos attack tcp_backlog_hold: 4,008 sockets held).
 * Docker's "none" network brings lo up, and the container, without CAP_NET_ADMIN, cannot take it
 * down. So the host does, after the start and before the container's supervisor forks the
 * workload (it waits for the host's word, container.c): a thread of ours enters the container's
 * network namespace through a pidfd of its init, checked to be the container's, clears IFF_UP on
 * lo, removes its addresses (a never-raised lo has none) and reads both back. The thread then ends,
 * and this process's own namespace was never left. The workload's attestation reports lo's state,
 * and the host refuses the run if it is up. */
#include "core/error.h"
#include "docker/docker.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct lo_job {
    int pidfd;
    const char *step;            /* what failed, NULL when lo is down */
    int error;                   /* its errno, 0 when not a system call's */
    char other[IF_NAMESIZE + 1]; /* an interface beside lo, when that is what failed */
} lo_job_t;

static bool same_ns(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The container's interfaces must be lo alone ("none"): anything else is not the namespace we
 * were asked to change. */
static bool only_lo(lo_job_t *j)
{
    struct if_nameindex *ni = if_nameindex();
    if (!ni) {
        j->step = "list the interfaces";
        j->error = errno;
        return false;
    }
    bool lo = false, ok = true;
    for (struct if_nameindex *i = ni; i->if_index != 0 && ok; i++) {
        if (strcmp(i->if_name, "lo") == 0) {
            lo = true;
        } else {
            snprintf(j->other, sizeof(j->other), "%s", i->if_name);
            j->step = "it holds another interface than lo";
            ok = false;
        }
    }
    if_freenameindex(ni);
    if (ok && !lo)
        j->step = "it has no lo";
    return ok && lo;
}

/* Delete one address of lo (index ifindex) through rtnetlink and wait for the kernel's answer;
 * one that is not there is no error (the check below reads what is left). */
static int del_addr(int family, const void *addr, size_t alen, unsigned char prefix, int ifindex)
{
    struct {
        struct nlmsghdr nh;
        struct ifaddrmsg ifa;
        char attrs[64];
    } req;
    memset(&req, 0, sizeof(req));
    req.nh.nlmsg_type = RTM_DELADDR;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.nh.nlmsg_seq = 1;
    req.ifa.ifa_family = (unsigned char)family;
    req.ifa.ifa_prefixlen = prefix;
    req.ifa.ifa_index = (unsigned)ifindex;
    struct rtattr *rta = (struct rtattr *)req.attrs;
    rta->rta_type = family == AF_INET ? IFA_LOCAL : IFA_ADDRESS;
    rta->rta_len = (unsigned short)RTA_LENGTH(alen);
    memcpy(RTA_DATA(rta), addr, alen);
    req.nh.nlmsg_len = (unsigned)(NLMSG_LENGTH(sizeof(req.ifa)) + RTA_ALIGN(rta->rta_len));
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return -errno;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    int rc = 0;
    if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
        rc = -errno;
    } else {
        char buf[1024];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
        if (n < 0)
            rc = -errno;
        else if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || h->nlmsg_type != NLMSG_ERROR)
            rc = -EPROTO;
        else
            rc = ((const struct nlmsgerr *)NLMSG_DATA(h))->error;
    }
    close(fd);
    /* Absent, or no IPv6 in this kernel (ipv6.disable=1 answers EOPNOTSUPP: no handler for the
     * family): nothing to remove. What is left is read back below either way. */
    return rc == -EADDRNOTAVAIL || rc == -ENOENT || rc == -ENODEV || rc == -EAFNOSUPPORT ||
                   rc == -EOPNOTSUPP
               ? 0
               : rc;
}

/* lo as a never-raised lo is, as natively: no address left on it. Down alone is not that: the
 * local routes Docker's lo got stay, and a connect to 127.0.0.1 then hung for minutes instead
 * of failing with ENETUNREACH. */
static bool no_addresses(lo_job_t *j)
{
    int ifindex = (int)if_nametoindex("lo");
    const struct in_addr v4 = {htonl(INADDR_LOOPBACK)};
    int rc = ifindex ? del_addr(AF_INET, &v4, sizeof(v4), 8, ifindex) : -ENODEV;
    if (rc == 0)
        rc = del_addr(AF_INET6, &in6addr_loopback, sizeof(in6addr_loopback), 128, ifindex);
    if (rc < 0) {
        j->step = "remove lo's addresses";
        j->error = -rc;
        return false;
    }
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all) < 0) {
        j->step = "read lo's addresses back";
        j->error = errno;
        return false;
    }
    bool none = true;
    for (const struct ifaddrs *a = all; a; a = a->ifa_next)
        none &= !a->ifa_addr ||
                (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6);
    freeifaddrs(all);
    if (!none)
        j->step = "an address is left on lo";
    return none;
}

static void *lo_down_thread(void *arg)
{
    lo_job_t *j = arg;
    struct stat own, there;
    if (stat("/proc/thread-self/ns/net", &own) < 0) {
        j->step = "stat our own network namespace";
        j->error = errno;
        return NULL;
    }
    if (setns(j->pidfd, CLONE_NEWNET) < 0) {
        j->step = "enter its network namespace (setns)";
        j->error = errno;
        return NULL;
    }
    if (stat("/proc/thread-self/ns/net", &there) < 0) {
        j->step = "stat its network namespace";
        j->error = errno;
        return NULL;
    }
    if (same_ns(&own, &there)) {
        j->step = "its network namespace is this process's own";
        return NULL;
    }
    if (!only_lo(j))
        return NULL;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        j->step = "socket";
        j->error = errno;
        return NULL;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
        j->step = "read lo's flags";
        j->error = errno;
    } else {
        ifr.ifr_flags = (short)(ifr.ifr_flags & ~IFF_UP);
        if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
            j->step = "take lo down (SIOCSIFFLAGS)";
            j->error = errno;
        } else if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
            j->step = "read lo's flags back";
            j->error = errno;
        } else if (ifr.ifr_flags & IFF_UP) {
            j->step = "lo is still up after it was taken down";
        }
    }
    close(s);
    if (!j->step)
        (void)no_addresses(j);
    return NULL;
}

int asb_docker_loopback_down(int init_pidfd, const char *id, asb_error_t *err)
{
    lo_job_t j = {.pidfd = init_pidfd};
    /* The thread starts with every signal blocked: no handler of the caller's runs inside the
     * container's network namespace, and no system call of the thread is interrupted. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int rc = pthread_create(&t, NULL, lo_down_thread, &j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        pthread_join(t, NULL);
    } else {
        j.step = "start a thread";
        j.error = rc;
    }
    if (!j.step)
        return 0;
    const char *why = j.error ? strerror(j.error) : j.other[0] ? j.other : "";
    bool denied = j.error == EPERM || j.error == EACCES;
    return asb_err(err, j.error ? -j.error : -EPERM,
                   "docker: cannot take container %.12s's lo down (%s%s%s); docker-hardened "
                   "keeps it down, as native hardened does%s",
                   id, j.step, why[0] ? ": " : "", why,
                   denied ? ", and needs a caller that may enter the container's network "
                            "namespace (root on the engine's host)"
                          : "");
}
