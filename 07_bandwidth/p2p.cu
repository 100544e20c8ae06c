/* p2p.cu - `07_bandwidth --p2p`: how fast the GPUs of one machine copy
 * to each other.
 *
 * cudaMemcpyPeerAsync copies between the memories of two GPUs. With peer
 * access enabled (cudaDeviceEnablePeerAccess, for pairs that
 * cudaDeviceCanAccessPeer allows: NVLink, or PCIe with P2P) the copy goes
 * from one GPU to the other directly; without it, the CUDA Programming
 * Guide says, the copy is staged through host memory. So we print which
 * pairs can, then the GB/s of every ordered pair without peer access, one
 * way and both ways at once; then we enable it and measure again. The
 * diagonal is a copy within one GPU (cudaMemcpyAsync device to device),
 * for scale. Every copy carries its source GPU's pattern (gpus.h) into a
 * poisoned buffer and is checked after its timed runs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "gpus.h"
#include "timing.h"
#include "units.h"

typedef struct {
    int n;                       /* GPUs */
    size_t bytes, words;         /* of each copy */
    int warmup, repeat;
    uint64_t **d_src, **d_dst;   /* on GPU g: its pattern; what it gets */
    cudaStream_t *streams;       /* one per GPU */
    cudaEvent_t *forks, *joins;  /* one each per GPU, for both ways */
    int *can;                    /* can[i * n + j]: i can access j */
    uint64_t *h_check;           /* what a GPU received, copied back */
} p2p_run;

/* A matrix's copies, all checked, for one verdict line. */
typedef struct {
    int copies, bad;
    char first_bad[96];
} p2p_tally;

typedef struct {
    p2p_run *r;
    int src, dst, both;
} pair_job;

/* src's pattern into dst's buffer, on src's stream: the GPU that holds
 * the bytes pushes them. */
static void copy_pair(p2p_run *r, int src, int dst)
{
    if (src == dst)
        CUDA_CHECK(cudaMemcpyAsync(r->d_dst[dst], r->d_src[src], r->bytes,
                                   cudaMemcpyDeviceToDevice,
                                   r->streams[src]));
    else
        CUDA_CHECK(cudaMemcpyPeerAsync(r->d_dst[dst], dst, r->d_src[src],
                                       src, r->bytes, r->streams[src]));
}

/* The timed region, on src's stream. Both ways: dst's stream starts after
 * what src's stream has queued (the start event) and copies back at the
 * same time; src's stream waits for it before the stop event. A stream
 * may wait for an event of another GPU. */
static void pair_region(void *ctx)
{
    pair_job *j = (pair_job *)ctx;
    p2p_run *r = j->r;
    if (!j->both) {
        copy_pair(r, j->src, j->dst);
        return;
    }
    CUDA_CHECK(cudaEventRecord(r->forks[j->src], r->streams[j->src]));
    CUDA_CHECK(cudaStreamWaitEvent(r->streams[j->dst], r->forks[j->src],
                                   0));
    copy_pair(r, j->src, j->dst);
    copy_pair(r, j->dst, j->src);
    CUDA_CHECK(cudaEventRecord(r->joins[j->dst], r->streams[j->dst]));
    CUDA_CHECK(cudaStreamWaitEvent(r->streams[j->src], r->joins[j->dst],
                                   0));
}

/* Fills what GPU g receives with 0xFF bytes, and waits: the copies into
 * it run on another GPU's stream, which would not wait for this memset. */
static void poison_received(p2p_run *r, int g)
{
    CUDA_CHECK(cudaSetDevice(g));
    CUDA_CHECK(cudaMemset(r->d_dst[g], 0xFF, r->bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* Checks that GPU `at` received GPU `from`'s pattern, every word. */
static void check_received(p2p_run *r, int from, int at, p2p_tally *t)
{
    CUDA_CHECK(cudaSetDevice(at));
    bw_poison_host(r->h_check, r->bytes);
    CUDA_CHECK(cudaMemcpy(r->h_check, r->d_dst[at], r->bytes,
                          cudaMemcpyDeviceToHost));
    size_t k = bw_pattern_mismatch(r->h_check, r->words, from);
    t->copies++;
    if (k != r->words && t->bad++ == 0)
        snprintf(t->first_bad, sizeof t->first_bad,
                 "GPU %d to %d: word %zu of %zu differs", from, at, k,
                 r->words);
}

/* Times src -> dst (and dst -> src at the same time, if both), checks
 * what arrived, and returns the GB/s of the bytes copied (both: twice). */
static double measure_pair(p2p_run *r, int src, int dst, int both,
                           p2p_tally *t)
{
    poison_received(r, dst);
    if (both)
        poison_received(r, src);
    pair_job job = {.r = r, .src = src, .dst = dst, .both = both};
    /* cm_time_events' events belong to the current GPU, and an event is
     * recorded only on a stream of its own GPU. */
    CUDA_CHECK(cudaSetDevice(src));
    cm_stats s = cm_time_events(pair_region, &job, r->streams[src],
                                r->warmup, r->repeat);
    check_received(r, src, dst, t);
    if (both)
        check_received(r, dst, src, t);
    return cm_gbps((double)r->bytes * (both ? 2 : 1), s.median_ms);
}

/* One matrix: every ordered pair one way, or every pair both ways at once
 * (its figure in both cells); with peer access, only the pairs that can
 * have it, both ways for both ways. The diagonal: a copy within a GPU. */
static void measure_matrix(p2p_run *r, int both, int peer, cm_verdict *v)
{
    int n = r->n;
    double *gbps = (double *)cm_host_alloc((size_t)n * n * sizeof(double),
                                           "the matrix");
    for (int k = 0; k < n * n; k++)
        gbps[k] = NAN;
    p2p_tally t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int can = i == j || (r->can[i * n + j] &&
                                 (!both || r->can[j * n + i]));
            if ((both && j <= i) || (peer && !can))
                continue;
            gbps[i * n + j] = measure_pair(r, i, j, both, &t);
            if (both)
                gbps[j * n + i] = gbps[i * n + j];
        }
    char what[64], detail[128];
    snprintf(what, sizeof what, "%s, peer access %s",
             both ? "both ways at once" : "one way", peer ? "on" : "off");
    printf("\n%s: GB/s of the bytes copied%s;\nrows: the GPU copied "
           "from, columns: the GPU copied to\n", what,
           both ? " both ways" : "");
    bw_print_matrix(stdout, gbps, n);
    if (t.bad == 0)
        snprintf(detail, sizeof detail, "%d of %d copies identical",
                 t.copies, t.copies);
    else
        snprintf(detail, sizeof detail, "%s (%d of %d wrong)", t.first_bad,
                 t.bad, t.copies);
    cm_check_true(v, what, t.bad == 0, detail);
    free(gbps);
}

/* Peer access on (or off again) for every ordered pair that can have it:
 * then GPU i may read and write GPU j's memory, and copies go direct. */
static void set_peer_access(p2p_run *r, int on)
{
    for (int i = 0; i < r->n; i++) {
        CUDA_CHECK(cudaSetDevice(i));
        for (int j = 0; j < r->n; j++) {
            if (j == i || !r->can[i * r->n + j])
                continue;
            if (on)
                CUDA_CHECK(cudaDeviceEnablePeerAccess(j, 0));
            else
                CUDA_CHECK(cudaDeviceDisablePeerAccess(j));
        }
    }
}

int bw_p2p(size_t bytes, int warmup, int repeat)
{
    p2p_run r = {.n = bw_select_every_gpu(), .bytes = bytes,
                 .words = bytes / sizeof(uint64_t), .warmup = warmup,
                 .repeat = repeat};
    int n = r.n;
    cm_require_host_bytes(bytes, "the host buffer of the checks");
    r.h_check = (uint64_t *)cm_host_alloc(bytes, "the host buffer");
    r.d_src = (uint64_t **)cm_host_alloc(
        2 * (size_t)n * sizeof(uint64_t *), "the GPUs' buffers");
    r.d_dst = r.d_src + n;
    r.streams = (cudaStream_t *)cm_host_alloc(n * sizeof(cudaStream_t),
                                              "streams");
    r.forks = (cudaEvent_t *)cm_host_alloc(2 * (size_t)n *
                                           sizeof(cudaEvent_t), "events");
    r.joins = r.forks + n;
    r.can = (int *)cm_host_alloc((size_t)n * n * sizeof(int), "pairs");
    for (int g = 0; g < n; g++) {
        CUDA_CHECK(cudaSetDevice(g));
        cm_require_device_bytes(2 * bytes, "two buffers per GPU");
        CUDA_CHECK(cudaMalloc((void **)&r.d_src[g], bytes));
        CUDA_CHECK(cudaMalloc((void **)&r.d_dst[g], bytes));
        CUDA_CHECK(cudaStreamCreate(&r.streams[g]));
        CUDA_CHECK(cudaEventCreateWithFlags(&r.forks[g],
                                            cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&r.joins[g],
                                            cudaEventDisableTiming));
        bw_fill_pattern(r.h_check, r.words, g);
        CUDA_CHECK(cudaMemcpy(r.d_src[g], r.h_check, bytes,
                              cudaMemcpyHostToDevice));
        for (int j = 0; j < n; j++) {
            r.can[g * n + j] = 0;
            if (j != g)
                CUDA_CHECK(cudaDeviceCanAccessPeer(&r.can[g * n + j], g,
                                                   j));
        }
    }

    char text[64];
    cm_verdict verdict = {0};
    cm_fmt_bytes(bytes, text, sizeof text);
    if (n == 1) {
        printf("\n--p2p: only one GPU, nothing to pair.\nFor scale, a copy "
               "of %s within GPU 0\n(cudaMemcpyAsync device to device), "
               "median of %d after %d warm-up(s):\n", text, repeat,
               warmup);
        p2p_tally t;
        memset(&t, 0, sizeof t);
        double gbps = measure_pair(&r, 0, 0, 0, &t);
        printf("   %.1f GB/s of the bytes copied\n", gbps);
        cm_check_true(&verdict, "copy within GPU 0", t.bad == 0,
                      t.bad ? t.first_bad : "1 of 1 copies identical");
    } else {
        printf("\n--p2p: copies of %s\nfrom each GPU to each other "
               "(cudaMemcpyPeerAsync on the source GPU's stream;\nthe "
               "diagonal: a copy within the GPU), median of %d after %d "
               "warm-up(s), CUDA\nevents; GB/s = 1e9 bytes/s\n", text,
               repeat, warmup);
        printf("\nwhich GPU can access which (cudaDeviceCanAccessPeer; "
               "rows: the GPU that\naccesses, columns: the GPU whose "
               "memory it accesses):\n");
        bw_print_access(stdout, r.can, n);
        measure_matrix(&r, 0, 0, &verdict);
        measure_matrix(&r, 1, 0, &verdict);
        int any = 0;
        for (int k = 0; k < n * n; k++)
            any |= r.can[k];
        if (!any) {
            printf("\nno GPU can access another's memory: the copies "
                   "above, through the host, are\nwhat a program gets\n");
        } else {
            set_peer_access(&r, 1);
            measure_matrix(&r, 0, 1, &verdict);
            measure_matrix(&r, 1, 1, &verdict);
            set_peer_access(&r, 0);
        }
    }

    for (int g = 0; g < n; g++) {
        CUDA_CHECK(cudaSetDevice(g));
        CUDA_CHECK(cudaFree(r.d_src[g]));
        CUDA_CHECK(cudaFree(r.d_dst[g]));
        CUDA_CHECK(cudaStreamDestroy(r.streams[g]));
        CUDA_CHECK(cudaEventDestroy(r.forks[g]));
        CUDA_CHECK(cudaEventDestroy(r.joins[g]));
    }
    free(r.can);
    free(r.forks);
    free(r.streams);
    free(r.d_src);
    free(r.h_check);
    return cm_verdict_report(&verdict);
}
