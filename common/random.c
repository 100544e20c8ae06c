/* random.c - host xoshiro256** fill (no CUDA here). */
#include "random.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

cm_rng cm_rng_seed(uint64_t seed)
{
    cm_rng r;
    for (int i = 0; i < 4; i++)
        r.s[i] = splitmix64(&seed);
    return r;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cm_rng_next(cm_rng *r)
{
    uint64_t *s = r->s;
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

double cm_rng_uniform(cm_rng *r)
{
    return (double)(cm_rng_next(r) >> 11) * 0x1.0p-53;
}

void cm_fill_uniform_f64(double *h_data, size_t n, uint64_t seed)
{
    cm_rng r = cm_rng_seed(seed);
    for (size_t i = 0; i < n; i++)
        h_data[i] = cm_rng_uniform(&r);
}

void cm_fill_uniform_f32(float *h_data, size_t n, uint64_t seed)
{
    cm_rng r = cm_rng_seed(seed);
    for (size_t i = 0; i < n; i++)
        h_data[i] = (float)(cm_rng_next(&r) >> 40) * 0x1.0p-24f;
}
