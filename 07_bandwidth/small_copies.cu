/* small_copies.cu - part 3 of 07_bandwidth: many small arrays.
 *
 * Every copy pays a fixed cost before its first byte moves: a driver call,
 * a DMA descriptor for the copy engine, a round trip over PCIe to start
 * and finish it. For 8 KiB that fixed cost is most of the time. We pay it
 * once instead of once per array in two ways: pack the arrays into one
 * pinned buffer and copy it once, or hand the driver the whole list in one
 * call, cudaMemcpyBatchAsync (CUDA 12.8 and newer: built with an older
 * CUDA, or run on an older driver, its rows say so instead of a number).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "random.h"
#include "timing.h"
#include "units.h"

static const uint64_t SMALL_SEED = 7;

typedef struct {
    size_t arrays, array_bytes;
    void **h_arrays;     /* pageable, one malloc each, like a list of
                            NumPy arrays */
    char *h_pool;        /* pinned: the same arrays back to back */
    char *h_stage;       /* pinned: where pack + copy packs them */
    char *d_pool;        /* device: array i at i * array_bytes */
    void **d_dsts, **h_pool_srcs;   /* lists for cudaMemcpyBatchAsync */
    size_t *sizes;
    cudaStream_t stream;
} small_set;

/* The tutorial's loop, [cp.asarray(a) for a in arrays]: one blocking
 * cudaMemcpy per array. */
static void one_by_one_pageable(void *ctx)
{
    small_set *s = (small_set *)ctx;
    for (size_t i = 0; i < s->arrays; i++)
        CUDA_CHECK(cudaMemcpy(s->d_pool + i * s->array_bytes,
                              s->h_arrays[i], s->array_bytes,
                              cudaMemcpyHostToDevice));
}

/* Pinned sources and cudaMemcpyAsync: no staging and no waiting between
 * copies, but still one call and one DMA job per array. */
static void one_by_one_pinned(void *ctx)
{
    small_set *s = (small_set *)ctx;
    for (size_t i = 0; i < s->arrays; i++)
        CUDA_CHECK(cudaMemcpyAsync(s->d_pool + i * s->array_bytes,
                                   s->h_pool + i * s->array_bytes,
                                   s->array_bytes, cudaMemcpyHostToDevice,
                                   s->stream));
}

/* The arrays already live back to back in one pinned buffer (allocate
 * them that way from the start): one copy moves them all. */
static void packed_copy(void *ctx)
{
    small_set *s = (small_set *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(s->d_pool, s->h_pool,
                               s->arrays * s->array_bytes,
                               cudaMemcpyHostToDevice, s->stream));
}

/* The arrays are scattered in pageable memory: the CPU packs them into a
 * pinned buffer, then one copy. Timed on the host clock, pack included,
 * so we wait for the copy before returning. */
static void pack_and_copy(void *ctx)
{
    small_set *s = (small_set *)ctx;
    for (size_t i = 0; i < s->arrays; i++)
        memcpy(s->h_stage + i * s->array_bytes, s->h_arrays[i],
               s->array_bytes);
    CUDA_CHECK(cudaMemcpyAsync(s->d_pool, s->h_stage,
                               s->arrays * s->array_bytes,
                               cudaMemcpyHostToDevice, s->stream));
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
}

#if CUDART_VERSION >= 12080
/* One call, many copies. attrs[0] applies to every copy (attrsIdxs {0});
 * srcAccessOrder says when the driver may read the sources: in stream
 * order (pinned), or at any time (memory from malloc that nothing else
 * writes meanwhile). CUDA 12.8 and 12.9 take a failIdx before the stream
 * (the copy that failed); CUDA 13 dropped it. */
static cudaError_t batch_copy(small_set *s, void **srcs)
{
    struct cudaMemcpyAttributes attrs;
    memset(&attrs, 0, sizeof attrs);
    attrs.srcAccessOrder = srcs == s->h_arrays
                               ? cudaMemcpySrcAccessOrderAny
                               : cudaMemcpySrcAccessOrderStream;
    size_t attrs_index = 0;
#if CUDART_VERSION >= 13000
    return cudaMemcpyBatchAsync(s->d_dsts, srcs, s->sizes, s->arrays,
                                &attrs, &attrs_index, 1, s->stream);
#else
    size_t fail_index = SIZE_MAX;
    return cudaMemcpyBatchAsync(s->d_dsts, srcs, s->sizes, s->arrays,
                                &attrs, &attrs_index, 1, &fail_index,
                                s->stream);
#endif
}

static void batch_pinned(void *ctx)
{
    small_set *s = (small_set *)ctx;
    CUDA_CHECK(batch_copy(s, s->h_pool_srcs));
}

static void batch_pageable(void *ctx)
{
    small_set *s = (small_set *)ctx;
    CUDA_CHECK(batch_copy(s, s->h_arrays));
}
#define BATCH_REGION(fn) fn
#else
/* Built with a CUDA before 12.8: there is no cudaMemcpyBatchAsync to call,
 * and its cases print "needs CUDA 12.8" in place of their numbers. */
#define BATCH_REGION(fn) NULL
#endif

/* One way of copying the arrays, as printed and as a summary row. */
typedef struct {
    const char *what, *label;
    cm_region_fn region;
    int timing;        /* 0: events, legacy stream; 1: events, our
                          stream; 2: host clock */
    void **batch_srcs; /* a cudaMemcpyBatchAsync case: its source list */
} small_case;

/* Whether a cudaMemcpyBatchAsync case can run here: 1 if so (after one
 * untimed batch that the driver accepted), else 0 with the reason printed
 * as the case's row and a short one, `why`, for the summary. */
static int batch_runs_here(small_set *s, const small_case *c, char *why,
                           size_t why_len)
{
#if CUDART_VERSION >= 12080
    int driver = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    if (driver < 12080) {
        printf("   %-38s needs a CUDA 12.8 driver (this: %d.%d)\n", c->what,
               driver / 1000, driver % 1000 / 10);
        snprintf(why, why_len, "needs a CUDA 12.8 driver");
        return 0;
    }
    cudaError_t err = batch_copy(s, c->batch_srcs);
    if (err != cudaSuccess) {
        /* Read and so clear the error: it is not one of ours that a
         * later CUDA_CHECK(cudaGetLastError()) should report. */
        (void)cudaGetLastError();
        printf("   %-38s refused here: %s\n", c->what, cudaGetErrorName(err));
        snprintf(why, why_len, "refused here");
        return 0;
    }
    CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return 1;
#else
    (void)s;
    printf("   %-38s needs CUDA 12.8 (built with %d.%d)\n", c->what,
           CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    snprintf(why, why_len, "needs CUDA 12.8");
    return 0;
#endif
}

/* Times one case after poisoning the destination, prints its row and
 * checks that every array arrived. Returns the median ms, or 0 if the
 * case cannot run here (a cudaMemcpyBatchAsync case without CUDA 12.8,
 * or refused by the driver): then its summary row says why. */
static double run_case(bw_report *r, small_set *s, const small_case *c,
                       double baseline_ms, void *h_check)
{
    size_t total = s->arrays * s->array_bytes;
    char why[40];
    if (c->batch_srcs && !batch_runs_here(s, c, why, sizeof why)) {
        bw_add_unmeasured_row(r, c->label, why);
        return 0;
    }
    bw_poison_device(s->d_pool, total);
    cm_stats st = c->timing == 2
        ? cm_time_host(c->region, s, r->warmup, r->repeat)
        : cm_time_events(c->region, s, c->timing ? s->stream : 0,
                         r->warmup, r->repeat);
    double ms = st.median_ms;
    double gbps = bw_add_row(r, c->label, total, "H2D", ms);
    printf("   %-38s %8.3f %8.2f %7.2f %6.1fx\n", c->what, ms,
           ms * 1e3 / (double)s->arrays, gbps,
           baseline_ms > 0 ? baseline_ms / ms : 1.0);
    bw_check_device(&r->verdict, c->label, s->d_pool, s->h_pool, total,
                    h_check);
    return ms;
}

void bw_small_copies(bw_report *r, size_t arrays, size_t array_bytes)
{
    small_set s;
    memset(&s, 0, sizeof s);
    s.arrays = arrays;
    s.array_bytes = array_bytes;
    size_t total = arrays * array_bytes;
    char text[64];
    printf("\n3. Batched transfers: %zu small float64 arrays of %s each, "
           "host to device.\n   (The tutorial's \"batched transfer\" copies "
           "ten 800 MB arrays one by one:\n   large copies, not a batch.) "
           "GB/s counts all %zu bytes; median of %d\n", arrays,
           cm_fmt_bytes_short(array_bytes, text, sizeof text), total,
           r->repeat);

    /* The arrays, twice: scattered in pageable memory and packed in one
     * pinned pool, with the same random contents. */
    s.h_arrays = (void **)cm_host_alloc(arrays * sizeof(void *), "list");
    CUDA_CHECK(cudaMallocHost((void **)&s.h_pool, total));
    CUDA_CHECK(cudaMallocHost((void **)&s.h_stage, total));
    CUDA_CHECK(cudaMalloc((void **)&s.d_pool, total));
    cm_fill_uniform_f64((double *)s.h_pool, total / sizeof(double),
                        SMALL_SEED);
    s.d_dsts = (void **)cm_host_alloc(arrays * sizeof(void *), "list");
    s.h_pool_srcs = (void **)cm_host_alloc(arrays * sizeof(void *), "list");
    s.sizes = (size_t *)cm_host_alloc(arrays * sizeof(size_t), "list");
    for (size_t i = 0; i < arrays; i++) {
        s.h_arrays[i] = cm_host_alloc(array_bytes, "a small array");
        memcpy(s.h_arrays[i], s.h_pool + i * array_bytes, array_bytes);
        s.d_dsts[i] = s.d_pool + i * array_bytes;
        s.h_pool_srcs[i] = s.h_pool + i * array_bytes;
        s.sizes[i] = array_bytes;
    }
    void *h_check = cm_host_alloc(total, "the copy back");
    CUDA_CHECK(cudaStreamCreate(&s.stream));

    const small_case cases[] = {
        {.what = "one by one, pageable (cudaMemcpy)",
         .label = "small, 1 by 1, pageable", .region = one_by_one_pageable,
         .timing = 0},
        {.what = "one by one, pinned (cudaMemcpyAsync)",
         .label = "small, 1 by 1, pinned", .region = one_by_one_pinned,
         .timing = 1},
        {.what = "cudaMemcpyBatchAsync, pageable",
         .label = "small, BatchAsync, pageable",
         .region = BATCH_REGION(batch_pageable), .timing = 1,
         .batch_srcs = s.h_arrays},
        {.what = "cudaMemcpyBatchAsync, pinned",
         .label = "small, BatchAsync, pinned",
         .region = BATCH_REGION(batch_pinned), .timing = 1,
         .batch_srcs = s.h_pool_srcs},
        {.what = "packed in pinned memory, one copy",
         .label = "small, packed, 1 copy", .region = packed_copy,
         .timing = 1},
        {.what = "pack on the CPU + 1 copy (host clock)",
         .label = "small, pack + 1 copy", .region = pack_and_copy,
         .timing = 2},
    };
    size_t n_cases = sizeof cases / sizeof cases[0];
    printf("   %-38s %8s %8s %7s %7s\n", "", "ms", "us/array", "GB/s",
           "speedup");
    double baseline_ms = 0, pinned_ms = 0, packed_ms = 0, pack_ms = 0;
    for (size_t k = 0; k < n_cases; k++) {
        double ms = run_case(r, &s, &cases[k], baseline_ms, h_check);
        if (k == 0)
            baseline_ms = ms;
        if (cases[k].region == one_by_one_pinned)
            pinned_ms = ms;
        if (cases[k].region == packed_copy)
            packed_ms = ms;
        if (cases[k].region == pack_and_copy)
            pack_ms = ms;
    }
    r->batched_speedup = baseline_ms / packed_ms;
    r->one_by_one_ms = baseline_ms;
    r->small_bytes = total;
    r->pack_speedup = baseline_ms / pack_ms;
    /* What each extra copy adds on top of moving its data, when the copies
     * are queued back to back: the host issues the next copy while the
     * current one moves, so this is less than one copy alone takes from
     * start to end (the 4 KiB row of --sweep). */
    if (arrays > 1)
        printf("   cost of each extra copy, queued back to back: about %.2f "
               "us\n   ((one by one, pinned - packed) / %zu)\n",
               (pinned_ms - packed_ms) * 1e3 / (double)(arrays - 1),
               arrays - 1);

    CUDA_CHECK(cudaStreamDestroy(s.stream));
    for (size_t i = 0; i < arrays; i++)
        free(s.h_arrays[i]);
    free(s.h_arrays);
    free(s.d_dsts);
    free(s.h_pool_srcs);
    free(s.sizes);
    free(h_check);
    CUDA_CHECK(cudaFreeHost(s.h_pool));
    CUDA_CHECK(cudaFreeHost(s.h_stage));
    CUDA_CHECK(cudaFree(s.d_pool));
}
