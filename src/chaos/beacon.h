/* beacon.h - the harness's listeners for one run: TCP, UDP, a tiny HTTP responder, a DNS
 * responder (records the query names), an abstract unix socket and a Docker-API decoy socket.
 * IP listeners bind 127.0.0.1 only, on ports the kernel picks; a run that reaches them has
 * reached the host's network namespace. */
#ifndef ASB_CHAOS_BEACON_H
#define ASB_CHAOS_BEACON_H

#include "agent_sandbox.h"
#include "chaos/obs.h"

#include <pthread.h>
#include <stdint.h>

#define ASB_CHAOS_BEACON_CAP (16 * 1024) /* bytes kept per channel */
#define ASB_CHAOS_BEACON_CONNS 32

typedef struct asb_chaos_beacon {
    int tcp, udp, http, dns, abstract, docker, stop_efd;
    uint16_t tcp_port, udp_port, http_port, dns_port;
    char abstract_name[64]; /* without the leading NUL */
    char docker_path[256];
    pthread_t thread;
    bool running;
    char *buf[ASB_CHAOS_CH_COUNT]; /* owned until handed to the observations */
    size_t len[ASB_CHAOS_CH_COUNT];
} asb_chaos_beacon_t;

/* Bind everything and start the listener thread. docker_path: where to serve the decoy. */
int asb_chaos_beacon_start(asb_chaos_beacon_t *b, const char *docker_path, asb_error_t *err);

/* Stop the thread after a last non-blocking drain of everything already queued; move the
 * received bytes into the observations; close every socket. Safe to call on a failed start. */
void asb_chaos_beacon_stop(asb_chaos_beacon_t *b, asb_chaos_obs_t *o);

/* Decode the query name of a DNS query into out ("a.b.c"); 0 or -1 when malformed. */
int asb_chaos_dns_qname(const unsigned char *msg, size_t len, char *out, size_t out_len,
                        size_t *qend);

#endif
