/* rng.h - a small seeded generator for the round order: xoshiro256** (Blackman & Vigna) seeded by
 * splitmix64, and a Fisher-Yates shuffle. The caller owns the state and records the seed, so a
 * study can be replayed in the same order. Not for secrets. */
#ifndef ASB_STATS_RNG_H
#define ASB_STATS_RNG_H

#include "agent_sandbox.h"

typedef struct asb_rng {
    uint64_t seed; /* as given to asb_rng_seed, for the record */
    uint64_t s[4];
} asb_rng_t;

/* One step of splitmix64: advances *state and returns the next output. */
uint64_t asb_splitmix64(uint64_t *state);

/* s[0..3] are four splitmix64 outputs from the seed (never all zero). */
void asb_rng_seed(asb_rng_t *rng, uint64_t seed);

uint64_t asb_rng_next(asb_rng_t *rng);

/* Uniform on [0, bound), bound >= 1, by rejection (no modulo bias). */
uint64_t asb_rng_below(asb_rng_t *rng, uint64_t bound);

/* Uniformly random permutation of idx[0..n-1] in place (Fisher-Yates, from the top). */
void asb_rng_shuffle(asb_rng_t *rng, size_t *idx, size_t n);

/* A fresh seed from getrandom(2), for a study that was not given one. */
int asb_rng_seed_from_os(uint64_t *seed, asb_error_t *err);

#endif
