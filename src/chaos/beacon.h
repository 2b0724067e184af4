/* beacon.h - the harness's listeners for one run: TCP, UDP, a tiny HTTP responder, a DNS
 * responder (records the query names), an abstract unix socket and a Docker-API decoy socket.
 * IP listeners bind 127.0.0.1, on ports the kernel picks; a run that reaches them has reached
 * the host's network namespace.
 *
 * A docker container always has its own network namespace, so host loopback is out of reach
 * even for a container on the default bridge, which can still reach every host service through
 * the bridge's host address (docker0's, e.g. 172.17.0.1). For docker runs the IP listeners
 * therefore also bind that address, on the same ports; it exists only on the host's side of the
 * bridge (not an outside interface). A run that reaches it has left its container's network. */
#ifndef ASB_CHAOS_BEACON_H
#define ASB_CHAOS_BEACON_H

#include "agent_sandbox.h"
#include "chaos/obs.h"

#include <pthread.h>
#include <stdint.h>

#define ASB_CHAOS_BEACON_CAP (16 * 1024) /* bytes kept per channel */
#define ASB_CHAOS_BEACON_CONNS 32

#define ASB_CHAOS_BRIDGE_IF "docker0" /* the engine's default bridge */

enum { ASB_CHAOS_VIA_LOOPBACK = 0, ASB_CHAOS_VIA_BRIDGE, ASB_CHAOS_VIA_COUNT };

typedef struct asb_chaos_beacon {
    int tcp, udp, http, dns, abstract, docker, stop_efd;
    int br_tcp, br_udp, br_http, br_dns; /* the same ports on the bridge address, -1 if none */
    uint16_t tcp_port, udp_port, http_port, dns_port;
    char abstract_name[64]; /* without the leading NUL */
    char docker_path[256];
    char bridge_addr[16]; /* dotted quad of the bridge address listened on, "" when none */
    pthread_t thread;
    bool running;
    /* Received bytes per arrival address and channel; owned until handed to the observations. */
    char *buf[ASB_CHAOS_VIA_COUNT][ASB_CHAOS_CH_COUNT];
    size_t len[ASB_CHAOS_VIA_COUNT][ASB_CHAOS_CH_COUNT];
} asb_chaos_beacon_t;

/* Bind everything and start the listener thread. docker_path: where to serve the decoy. With
 * bridge, the IP listeners also bind ASB_CHAOS_BRIDGE_IF's IPv4 address; when the host has no
 * such address bridge_addr stays "" (not an error here: the judges refuse to call a docker run's
 * egress blocked without it). */
int asb_chaos_beacon_start(asb_chaos_beacon_t *b, const char *docker_path, bool bridge,
                           asb_error_t *err);

/* The IPv4 address of interface ifname as a dotted quad; -ENOENT when it has none. */
int asb_chaos_iface_addr(const char *ifname, char *out, size_t n);

/* Stop the thread after a last non-blocking drain of everything already queued; move the
 * received bytes into the observations; close every socket. Safe to call on a failed start. */
void asb_chaos_beacon_stop(asb_chaos_beacon_t *b, asb_chaos_obs_t *o);

/* Decode the query name of a DNS query into out ("a.b.c"); 0 or -1 when malformed. */
int asb_chaos_dns_qname(const unsigned char *msg, size_t len, char *out, size_t out_len,
                        size_t *qend);

#endif
