/* rng.c - splitmix64, xoshiro256**, bounded draws and Fisher-Yates. */
#include "stats/rng.h"

#include "core/error.h"

#include <errno.h>
#include <sys/random.h>

uint64_t asb_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void asb_rng_seed(asb_rng_t *rng, uint64_t seed)
{
    uint64_t sm = seed;
    rng->seed = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = asb_splitmix64(&sm);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t asb_rng_next(asb_rng_t *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t asb_rng_below(asb_rng_t *rng, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    /* 2^64 mod bound values at the bottom would make small results likelier: redraw them. */
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t r = asb_rng_next(rng);
        if (r >= threshold)
            return r % bound;
    }
}

void asb_rng_shuffle(asb_rng_t *rng, size_t *idx, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)asb_rng_below(rng, i);
        size_t tmp = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = tmp;
    }
}

int asb_rng_seed_from_os(uint64_t *seed, asb_error_t *err)
{
    for (;;) {
        ssize_t got = getrandom(seed, sizeof(*seed), 0);
        if (got == (ssize_t)sizeof(*seed))
            return 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return asb_err_sys(err, errno, "getrandom");
        return asb_err(err, -EIO, "getrandom: short read of %zd bytes", got);
    }
}
