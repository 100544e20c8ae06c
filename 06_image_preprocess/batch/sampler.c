/* sampler.c - each pass's order: a seeded shuffle per epoch, this rank's
 * shard as DistributedSampler makes it, whole batches (sampler.h). */
#include "sampler.h"

#include <stdio.h>

static const uint64_t GOLDEN_GAMMA = 0x9E3779B97F4A7C15ull;

uint64_t sampler_mix(uint64_t x)
{
    uint64_t z = x + GOLDEN_GAMMA;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t sampler_splitmix64(uint64_t *state)
{
    uint64_t z = *state;
    *state += GOLDEN_GAMMA;
    return sampler_mix(z);
}

void sampler_permutation(size_t n, uint64_t seed, uint64_t epoch,
                         size_t *perm)
{
    /* The epoch is mixed into the start, not added: seed + e would make
     * epoch e's stream epoch 0's shifted by e draws. */
    uint64_t state = seed ^ sampler_mix(epoch);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    /* The modulo's bias is below n / 2^64: nothing a data set shows. */
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(sampler_splitmix64(&state) % (uint64_t)i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

int sampler_init(sampler *s, const sampler_config *c, char *err,
                 size_t err_len)
{
    size_t w = c->world_size ? c->world_size : 1;
    s->c = *c;
    s->c.world_size = w;
    if (c->n == 0) {
        snprintf(err, err_len, "no image to sample from");
        return -1;
    }
    if (c->rank >= w) {
        snprintf(err, err_len, "rank %zu is not below world_size %zu",
                 c->rank, w);
        return -1;
    }
    if (c->batch_size == 0) {
        snprintf(err, err_len, "a batch of 0 images");
        return -1;
    }
    /* DistributedSampler: ceil(n / W) each, the list padded; with
     * drop_last, ceil((n - W) / W) = floor(n / W), the list cut. */
    s->per_rank = c->drop_last ? c->n / w : (c->n + w - 1) / w;
    s->padded = c->drop_last ? 0 : s->per_rank * w - c->n;
    s->dropped = c->drop_last ? c->n - s->per_rank * w : 0;
    if (s->per_rank == 0) {
        snprintf(err, err_len, "drop_last leaves rank %zu no image: %zu "
                 "images over %zu ranks", c->rank, c->n, w);
        return -1;
    }
    s->count = c->drop_last ? s->per_rank / c->batch_size * c->batch_size
                            : s->per_rank;
    if (s->count == 0) {
        snprintf(err, err_len, "drop_last leaves rank %zu no whole batch: "
                 "%zu images a pass, batches of %zu", c->rank, s->per_rank,
                 c->batch_size);
        return -1;
    }
    s->batches = (s->count + c->batch_size - 1) / c->batch_size;
    return 0;
}

int sampler_is_identity(const sampler *s)
{
    return !s->c.shuffle && s->c.world_size == 1 && s->count == s->c.n;
}

void sampler_order(const sampler *s, uint64_t epoch, size_t *perm,
                   size_t *order)
{
    size_t n = s->c.n, w = s->c.world_size;
    if (s->c.shuffle)
        sampler_permutation(n, s->c.seed, epoch, perm);
    else
        for (size_t i = 0; i < n; i++)
            perm[i] = i;
    /* Index i of the padded list is perm[i % n]: torch appends
     * indices[:padding], or the list repeated when the padding is
     * longer than it. Rank r takes r, r + W, ...; the first count. */
    for (size_t k = 0; k < s->count; k++)
        order[k] = perm[(s->c.rank + k * w) % n];
}
