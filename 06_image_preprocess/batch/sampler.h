/* sampler.h - the order in which a pass (an epoch) walks a data set of n
 * images: shuffled or not, this process's shard of it, whole batches or
 * not. Pure C, no GPU: imgbatch_api.cu asks it for each pass's order.
 *
 *   sampler s;
 *   sampler_config c = {.n = 10, .shuffle = 1, .seed = 7, .rank = 1,
 *                       .world_size = 3, .batch_size = 2};
 *   if (sampler_init(&s, &c, err, sizeof err) != 0) ...err says why...
 *   size_t *perm = malloc(c.n * sizeof *perm);       scratch, n of them
 *   size_t *order = malloc(s.count * sizeof *order);
 *   sampler_order(&s, epoch, perm, order);   order[k]: the k-th image
 *
 * The shards are torch.utils.data.DistributedSampler's: the (shuffled)
 * list of n, padded by repeating its start up to ceil(n / W) * W indices
 * (drop_last: cut to floor(n / W) * W), and rank r takes indices r,
 * r + W, r + 2W, ... of it. drop_last also drops the rank's last short
 * batch, as DataLoader(drop_last=True): both take the one flag. The
 * shuffle is epoch e's permutation of 0 .. n-1 by Fisher-Yates, drawing
 * from splitmix64 started at seed ^ sampler_mix(e): a pure function of
 * (seed, e), but not torch's generator, so the orders differ from
 * torch's (the shard of a given order is the same).
 */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t n;               /* images in the data set */
    int shuffle;            /* a new permutation every epoch */
    uint64_t seed;
    size_t rank, world_size;    /* this process of world_size (0: 1) */
    int drop_last;          /* shards cut, not padded; no short batch */
    size_t batch_size;      /* images a batch (drop_last needs it) */
} sampler_config;

typedef struct {
    sampler_config c;
    size_t per_rank;        /* DistributedSampler's num_samples */
    size_t padded;          /* indices repeated to fill the shards */
    size_t dropped;         /* indices cut (drop_last) from the list */
    size_t count;           /* images a pass of this rank */
    size_t batches;         /* batches a pass, the last maybe short */
} sampler;

/* Checks c and fills s. Returns 0, or -1 with one line in err: no
 * image, rank not below world_size, a batch size of 0, or drop_last
 * leaving this rank no image or no whole batch. */
int sampler_init(sampler *s, const sampler_config *c, char *err,
                 size_t err_len);

/* 1 if every pass is the files in turn, 0 .. n-1 (no shuffle, one rank,
 * no batch dropped): the caller may skip the order. */
int sampler_is_identity(const sampler *s);

/* Epoch e's order of this rank: order[0 .. s->count - 1], image indices
 * below n. perm is scratch of n entries (the whole list). */
void sampler_order(const sampler *s, uint64_t epoch, size_t *perm,
                   size_t *order);

/* Epoch e's permutation of 0 .. n-1 (Fisher-Yates from the last index
 * down, j = next % (i + 1)). */
void sampler_permutation(size_t n, uint64_t seed, uint64_t epoch,
                         size_t *perm);

/* splitmix64 (Steele, Lea, Flood 2014; Vigna's splitmix64.c): adds the
 * golden gamma to *state and returns the mixed value. */
uint64_t sampler_splitmix64(uint64_t *state);

/* splitmix64's finalizer of x + gamma: the epoch's offset of the seed. */
uint64_t sampler_mix(uint64_t x);

#ifdef __cplusplus
}
#endif

#endif /* SAMPLER_H */
