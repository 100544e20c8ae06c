/* test_06_sampler.c - imgbatch's sampler (batch/sampler.c) on the CPU:
 * splitmix64's published first outputs; permutations that are
 * permutations, the same for the same (seed, epoch), another for
 * another epoch or seed; DistributedSampler's shards written out by hand
 * for n = 10 over 3 ranks with and without drop_last, and against a
 * model of torch's code (pad by repeating the start, or cut; take rank,
 * rank + W, ...) for many sizes; every rank the same number of images
 * and batches; drop_last's last batch; the refusals. */
#include "test.h"
#include "../06_image_preprocess/batch/sampler.h"

#include <stdint.h>
#include <string.h>

enum { MAX_N = 64 };

static sampler make(size_t n, int shuffle, uint64_t seed, size_t rank,
                    size_t world, int drop_last, size_t batch)
{
    sampler s;
    char err[256];
    sampler_config c = {.n = n, .shuffle = shuffle, .seed = seed,
                        .rank = rank, .world_size = world,
                        .drop_last = drop_last, .batch_size = batch};
    memset(&s, 0, sizeof s);
    if (sampler_init(&s, &c, err, sizeof err) != 0) {
        fprintf(stderr, "unexpected refusal: %s\n", err);
        test_failures++;
    }
    return s;
}

/* 1 if p holds each of 0 .. n-1 once. */
static int is_permutation(const size_t *p, size_t n)
{
    unsigned char seen[MAX_N] = {0};
    for (size_t i = 0; i < n; i++) {
        if (p[i] >= n || seen[p[i]])
            return 0;
        seen[p[i]] = 1;
    }
    return 1;
}

/* DistributedSampler.__iter__ as torch writes it, then DataLoader's
 * drop_last, on the list `indices` (n of them): returns the count. */
static size_t torch_model(const size_t *indices, size_t n, size_t rank,
                          size_t world, int drop_last, size_t batch,
                          size_t *out)
{
    size_t list[4 * MAX_N], len = n, num_samples, total;
    memcpy(list, indices, n * sizeof *list);
    if (drop_last && n % world != 0) {
        /* math.ceil((len - W) / W), len - W possibly negative */
        long long d = (long long)n - (long long)world;
        num_samples = d <= 0 ? 0 : (size_t)((d + (long long)world - 1) /
                                            (long long)world);
    } else {
        num_samples = (n + world - 1) / world;
    }
    total = num_samples * world;
    if (!drop_last) {
        size_t padding = total - len;
        if (padding <= len) {
            memcpy(list + len, list, padding * sizeof *list);
        } else {
            size_t times = (padding + len - 1) / len;
            for (size_t k = 0; k < times * len && k < padding; k++)
                list[len + k] = list[k % len];
        }
        len += padding;
    } else {
        len = total;
    }
    size_t count = 0;
    for (size_t i = rank; i < total; i += world)
        out[count++] = list[i];
    if (drop_last)
        count = count / batch * batch;
    return count;
}

int main(void)
{
    char err[256];
    /* splitmix64 from state 0: the first outputs of Vigna's
     * splitmix64.c. */
    uint64_t state = 0;
    EXPECT(sampler_splitmix64(&state) == 0xE220A8397B1DCDAFull);
    EXPECT(sampler_splitmix64(&state) == 0x6E789E6AA1B965F4ull);
    EXPECT(sampler_splitmix64(&state) == 0x06C45D188009454Full);

    /* Permutations: valid; a pure function of (seed, epoch); another
     * epoch or seed gives another order. */
    size_t a[MAX_N], b[MAX_N], c[MAX_N];
    for (size_t n = 0; n <= 40; n++) {
        sampler_permutation(n, 7, 3, a);
        EXPECT(is_permutation(a, n));
    }
    sampler_permutation(40, 7, 0, a);
    sampler_permutation(40, 7, 0, b);
    EXPECT(memcmp(a, b, sizeof(size_t) * 40) == 0);
    sampler_permutation(40, 7, 1, c);
    EXPECT(memcmp(a, c, sizeof(size_t) * 40) != 0);
    sampler_permutation(40, 8, 0, c);
    EXPECT(memcmp(a, c, sizeof(size_t) * 40) != 0);
    /* Fisher-Yates by hand for n = 3, seed 5, epoch 2. */
    state = 5 ^ sampler_mix(2);
    size_t hand[3] = {0, 1, 2}, t, j;
    j = (size_t)(sampler_splitmix64(&state) % 3);
    t = hand[2], hand[2] = hand[j], hand[j] = t;
    j = (size_t)(sampler_splitmix64(&state) % 2);
    t = hand[1], hand[1] = hand[j], hand[j] = t;
    sampler_permutation(3, 5, 2, a);
    EXPECT(memcmp(a, hand, sizeof hand) == 0);

    /* n = 10 over 3 ranks, not shuffled. Without drop_last the list is
     * 0..9 then 0, 1 (padded to 12): rank r takes r, r + 3, ... */
    static const size_t padded[3][4] = {{0, 3, 6, 9}, {1, 4, 7, 0},
                                        {2, 5, 8, 1}};
    static const size_t cut[3][3] = {{0, 3, 6}, {1, 4, 7}, {2, 5, 8}};
    for (size_t r = 0; r < 3; r++) {
        sampler s = make(10, 0, 0, r, 3, 0, 4);
        EXPECT(s.per_rank == 4 && s.count == 4 && s.padded == 2 &&
               s.dropped == 0 && s.batches == 1);
        sampler_order(&s, 0, a, b);
        EXPECT(memcmp(b, padded[r], sizeof padded[r]) == 0);
        /* drop_last: cut to 9, three each; batches of 2 drop one. */
        s = make(10, 0, 0, r, 3, 1, 3);
        EXPECT(s.per_rank == 3 && s.count == 3 && s.dropped == 1 &&
               s.padded == 0 && s.batches == 1);
        sampler_order(&s, 0, a, b);
        EXPECT(memcmp(b, cut[r], sizeof cut[r]) == 0);
        s = make(10, 0, 0, r, 3, 1, 2);
        EXPECT(s.count == 2 && s.batches == 1);
        sampler_order(&s, 0, a, b);
        EXPECT(memcmp(b, cut[r], 2 * sizeof(size_t)) == 0);
    }

    /* Against the model of torch's code, shuffled or not, for every n up
     * to 25 over 1 to 7 ranks (more ranks than images too), batches of
     * 1 to 4: the same indices; every rank the same count and batches;
     * without drop_last the shards cover the list. */
    for (size_t n = 1; n <= 25; n++)
        for (size_t w = 1; w <= 7; w++)
            for (int drop = 0; drop <= 1; drop++)
                for (size_t batch = 1; batch <= 4; batch++)
                    for (int shuffle = 0; shuffle <= 1; shuffle++) {
                        size_t want[MAX_N], counts = 0, batches = 0;
                        unsigned char covered[MAX_N] = {0};
                        int refused = 0, same = 1;
                        if (shuffle)
                            sampler_permutation(n, 11, 4, c);
                        else
                            for (size_t i = 0; i < n; i++)
                                c[i] = i;
                        for (size_t r = 0; r < w; r++) {
                            sampler s;
                            sampler_config cfg = {
                                .n = n, .shuffle = shuffle, .seed = 11,
                                .rank = r, .world_size = w,
                                .drop_last = drop, .batch_size = batch};
                            if (sampler_init(&s, &cfg, err, sizeof err)) {
                                refused = 1;
                                continue;
                            }
                            sampler_order(&s, 4, a, b);
                            size_t m = torch_model(c, n, r, w, drop, batch,
                                                   want);
                            same &= m == s.count &&
                                    memcmp(b, want, m * sizeof *b) == 0;
                            if (r == 0) {
                                counts = s.count;
                                batches = s.batches;
                            }
                            same &= s.count == counts &&
                                    s.batches == batches;
                            for (size_t k = 0; k < s.count; k++)
                                covered[b[k]] = 1;
                        }
                        /* drop_last refuses only where torch gives no
                         * whole batch: every rank alike. */
                        size_t model_count = torch_model(
                            c, n, 0, w, drop, batch, want);
                        EXPECT(refused == (model_count == 0));
                        EXPECT(same);
                        if (!drop)
                            for (size_t i = 0; i < n; i++)
                                EXPECT(covered[i]);
                    }

    /* One rank, no shuffle, no drop: the files in turn. */
    sampler s = make(10, 0, 0, 0, 1, 0, 3);
    EXPECT(sampler_is_identity(&s) && s.count == 10 && s.batches == 4);
    s = make(10, 0, 0, 0, 0, 0, 3);    /* world_size 0: one process */
    EXPECT(sampler_is_identity(&s));
    s = make(10, 1, 0, 0, 1, 0, 3);
    EXPECT(!sampler_is_identity(&s));
    /* drop_last on one rank: 10 in batches of 3 keeps 9, three batches. */
    s = make(10, 0, 0, 0, 1, 1, 3);
    EXPECT(!sampler_is_identity(&s) && s.count == 9 && s.batches == 3);

    /* Refusals, one line each. */
    sampler_config bad = {.n = 0, .batch_size = 1};
    EXPECT(sampler_init(&s, &bad, err, sizeof err) == -1 &&
           strstr(err, "no image"));
    bad.n = 5;
    bad.rank = 2;
    bad.world_size = 2;
    EXPECT(sampler_init(&s, &bad, err, sizeof err) == -1 &&
           strcmp(err, "rank 2 is not below world_size 2") == 0);
    bad.rank = 0;
    bad.batch_size = 0;
    EXPECT(sampler_init(&s, &bad, err, sizeof err) == -1);
    bad.batch_size = 1;
    bad.world_size = 6;
    bad.drop_last = 1;
    EXPECT(sampler_init(&s, &bad, err, sizeof err) == -1 &&
           strcmp(err, "drop_last leaves rank 0 no image: 5 images over 6 "
                  "ranks") == 0);
    bad.world_size = 2;
    bad.batch_size = 3;
    EXPECT(sampler_init(&s, &bad, err, sizeof err) == -1 &&
           strcmp(err, "drop_last leaves rank 0 no whole batch: 2 images a "
                  "pass, batches of 3") == 0);
    return test_summary();
}
