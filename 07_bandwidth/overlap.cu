/* overlap.cu - part 4 of 07_bandwidth: doing several things at once.
 *
 * A GPU moves data with copy engines and computes with its SMs. With two
 * or more copy engines (asyncEngineCount >= 2) a copy to the device and
 * one back can run at the same time, one engine each; with one, the two
 * directions take turns (each can still overlap compute); with none,
 * copies do not overlap compute. One stream runs its work in order; work
 * on different streams may run at the same time. So we copy host->device
 * and device->host at once on two streams, then cut a copy-compute-copy
 * job into chunks spread over several streams, so that chunk k+1 travels
 * in while chunk k is computed and chunk k-1 travels out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "floor.h"
#include "plan.h"
#include "timing.h"
#include "units.h"

static const int THREADS_PER_BLOCK = 256;
static const size_t SAMPLE_STRIDE = 4099;   /* elements between checks */

/* The pipeline's compute: `work` steps of v = sqrt(v + 1) per element.
 * Addition and sqrt are correctly rounded on the GPU and the CPU alike
 * (and there is no multiply-add to fuse), so the CPU result is exact. */
__global__ void sqrt_steps_kernel(double *data, size_t n, int work)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        double v = data[i];
        for (int k = 0; k < work; k++)
            v = sqrt(v + 1.0);
        data[i] = v;
    }
}

static double sqrt_steps_cpu(double v, int work)
{
    for (int k = 0; k < work; k++)
        v = sqrt(v + 1.0);
    return v;
}

static void launch_sqrt_steps(double *d_data, size_t n, int work,
                              cudaStream_t stream)
{
    size_t blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    if (blocks > 65535)
        blocks = 65535;   /* the grid-stride loop covers the rest */
    if (n == 0)
        return;
    sqrt_steps_kernel<<<(unsigned)blocks, THREADS_PER_BLOCK, 0, stream>>>(
        d_data, n, work);
    CUDA_CHECK(cudaGetLastError());
}

typedef struct {
    bw_buffers *b;
    size_t n, chunks;
    size_t n_streams;     /* created: at least 2, for both ways */
    size_t pipe_streams;  /* used by the pipeline: --streams */
    int work;
    cudaStream_t *streams;
    cudaEvent_t fork, *joins;
} overlap_job;

/* Lets streams[1..] start only after what streams[0] (the job's first
 * stream, not the default stream) has queued so far (the timing start
 * event), and makes streams[0] wait for all of them at the end (before
 * the stop event), so events on streams[0] time the whole job. */
static void fork_streams(overlap_job *j, size_t count)
{
    CUDA_CHECK(cudaEventRecord(j->fork, j->streams[0]));
    for (size_t s = 1; s < count; s++)
        CUDA_CHECK(cudaStreamWaitEvent(j->streams[s], j->fork, 0));
}

static void join_streams(overlap_job *j, size_t count)
{
    for (size_t s = 1; s < count; s++) {
        CUDA_CHECK(cudaEventRecord(j->joins[s], j->streams[s]));
        CUDA_CHECK(cudaStreamWaitEvent(j->streams[0], j->joins[s], 0));
    }
}

/* H2D of the whole array on streams[0] and, at the same time, D2H of
 * another array on streams[1]: one copy engine each, where there are two. */
static void both_ways_region(void *ctx)
{
    overlap_job *j = (overlap_job *)ctx;
    bw_buffers *b = j->b;
    fork_streams(j, 2);
    CUDA_CHECK(cudaMemcpyAsync(b->d_x, b->h_pinned, b->bytes,
                               cudaMemcpyHostToDevice, j->streams[0]));
    CUDA_CHECK(cudaMemcpyAsync(b->h_pinned_back, b->d_y, b->bytes,
                               cudaMemcpyDeviceToHost, j->streams[1]));
    join_streams(j, 2);
}

static void compute_region(void *ctx)
{
    overlap_job *j = (overlap_job *)ctx;
    launch_sqrt_steps(j->b->d_x, j->n, j->work, j->streams[0]);
}

/* Copy in, compute, copy out: the whole array, one stream, in order. */
static void serial_region(void *ctx)
{
    overlap_job *j = (overlap_job *)ctx;
    bw_buffers *b = j->b;
    CUDA_CHECK(cudaMemcpyAsync(b->d_x, b->h_pinned, b->bytes,
                               cudaMemcpyHostToDevice, j->streams[0]));
    launch_sqrt_steps(b->d_x, j->n, j->work, j->streams[0]);
    CUDA_CHECK(cudaMemcpyAsync(b->h_pinned_back, b->d_x, b->bytes,
                               cudaMemcpyDeviceToHost, j->streams[0]));
}

/* The same work in chunks, chunk c on stream c % pipe_streams: in order
 * within a chunk, overlapped across chunks. The copies are async and the
 * host memory pinned; with pageable memory they would not overlap. */
static void pipelined_region(void *ctx)
{
    overlap_job *j = (overlap_job *)ctx;
    bw_buffers *b = j->b;
    fork_streams(j, j->pipe_streams);
    for (size_t c = 0; c < j->chunks; c++) {
        size_t first, count;
        bw_chunk(j->n, j->chunks, c, &first, &count);
        cudaStream_t stream = j->streams[c % j->pipe_streams];
        size_t bytes = count * sizeof(double);
        CUDA_CHECK(cudaMemcpyAsync(b->d_x + first, b->h_pinned + first,
                                   bytes, cudaMemcpyHostToDevice, stream));
        launch_sqrt_steps(b->d_x + first, count, j->work, stream);
        CUDA_CHECK(cudaMemcpyAsync(b->h_pinned_back + first, b->d_x + first,
                                   bytes, cudaMemcpyDeviceToHost, stream));
    }
    join_streams(j, j->pipe_streams);
}

/* Compares the output with the CPU reference at every SAMPLE_STRIDE-th
 * element and at both ends of every chunk: a chunk that was skipped or
 * misplaced cannot pass. (All elements on the CPU would take longer than
 * the whole GPU run.) */
static void check_samples(cm_verdict *v, const char *what,
                          const overlap_job *j)
{
    size_t cap = j->n / SAMPLE_STRIDE + 1 + 2 * j->chunks;
    double *got = (double *)cm_host_alloc(cap * sizeof(double), "samples");
    double *want = (double *)cm_host_alloc(cap * sizeof(double), "samples");
    size_t count = 0;
    for (size_t c = 0; c < j->chunks; c++) {
        size_t first, size;
        bw_chunk(j->n, j->chunks, c, &first, &size);
        size_t ends[2] = {first, first + size - 1};
        for (int e = 0; e < 2; e++) {
            got[count] = j->b->h_pinned_back[ends[e]];
            want[count++] = sqrt_steps_cpu(j->b->h_x[ends[e]], j->work);
        }
    }
    for (size_t i = 0; i < j->n; i += SAMPLE_STRIDE) {
        got[count] = j->b->h_pinned_back[i];
        want[count++] = sqrt_steps_cpu(j->b->h_x[i], j->work);
    }
    char label[96];
    snprintf(label, sizeof label, "%s, %zu sampled elements vs CPU", what,
             count);
    cm_check_equal(v, label, got, want, CM_FLOAT64, count);
    free(got);
    free(want);
}

void bw_overlap(bw_report *r, bw_buffers *b, size_t chunks, size_t streams,
                int work)
{
    overlap_job j;
    memset(&j, 0, sizeof j);
    j.b = b;
    j.n = b->bytes / sizeof(double);
    j.chunks = chunks;
    j.n_streams = streams < 2 ? 2 : streams;
    j.pipe_streams = streams;
    j.work = work;
    j.streams = (cudaStream_t *)cm_host_alloc(
        j.n_streams * sizeof(cudaStream_t), "streams");
    j.joins = (cudaEvent_t *)cm_host_alloc(
        j.n_streams * sizeof(cudaEvent_t), "events");
    for (size_t s = 0; s < j.n_streams; s++) {
        CUDA_CHECK(cudaStreamCreate(&j.streams[s]));
        CUDA_CHECK(cudaEventCreateWithFlags(&j.joins[s],
                                            cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaEventCreateWithFlags(&j.fork, cudaEventDisableTiming));
    double bytes = (double)b->bytes;
    printf("\n4. Overlap: several transfers, or transfers and compute, at "
           "once (pinned memory,\n   cudaMemcpyAsync, one stream each); "
           "median of %d\n", r->repeat);

    /* Both directions: d_y holds the data the D2H copy brings back. */
    int device, engines;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount,
                                      device));
    r->copy_engines = engines;
    CUDA_CHECK(cudaMemcpy(b->d_y, b->h_pinned, b->bytes,
                          cudaMemcpyHostToDevice));
    bw_poison_device(b->d_x, b->bytes);
    bw_poison_host(b->h_pinned_back, b->bytes);
    cm_stats s = cm_time_events(both_ways_region, &j, j.streams[0],
                                r->warmup, r->repeat);
    double both = bw_add_at_once_row(r, "H2D + D2H at once", 2 * b->bytes,
                                     s.median_ms);
    double faster = b->pinned_h2d_gbps > b->pinned_d2h_gbps
                        ? b->pinned_h2d_gbps : b->pinned_d2h_gbps;
    r->both_ways_ratio = both / faster;
    /* With one copy engine (or none) the two directions take turns, so
     * 1x is the best the pair can do. */
    printf("   H2D and D2H at once (%d copy engine%s): %.2f ms for 2 x %zu "
           "bytes\n   = %.2f GB/s, %.2fx the faster direction alone (%s)\n",
           engines, engines == 1 ? "" : "s", s.median_ms, b->bytes, both,
           r->both_ways_ratio, engines >= 2 ? "2x: perfect overlap"
                                            : "1x at best: they take turns");
    bw_check_device(&r->verdict, "both ways, H2D", b->d_x, b->h_x, b->bytes,
                    b->h_scratch);
    bw_check_host(&r->verdict, "both ways, D2H", b->h_pinned_back, b->h_x,
                  b->bytes);

    /* Copy in, compute, copy out: each step alone, then serial, then in
     * chunks. GB/s counts the bytes in plus the bytes out. */
    cm_stats kernel = cm_time_events(compute_region, &j, j.streams[0],
                                     r->warmup, r->repeat);
    double h2d_ms = bytes / (b->pinned_h2d_gbps * 1e6);
    double d2h_ms = bytes / (b->pinned_d2h_gbps * 1e6);
    /* Perfect overlap: the busiest engine, where the engines there are
     * (common/floor.h): in and out add up on a GPU with one. */
    double floor_ms = cm_overlap_floor_ms(kernel.median_ms, h2d_ms, d2h_ms,
                                          engines);
    printf("   copy in, compute (%d x v = sqrt(v + 1) per element), copy "
           "out; alone: H2D\n   %.2f ms, kernel %.2f ms, D2H %.2f ms: "
           "perfect overlap would take %.2f ms\n   (%d copy engine%s: %s)\n",
           work, h2d_ms, kernel.median_ms, d2h_ms, floor_ms, engines,
           engines == 1 ? "" : "s", cm_copy_engines_meaning(engines));
    bw_poison_host(b->h_pinned_back, b->bytes);
    cm_stats serial = cm_time_events(serial_region, &j, j.streams[0],
                                     r->warmup, r->repeat);
    bw_add_at_once_row(r, "copy+compute, serial", 2 * b->bytes,
                       serial.median_ms);
    printf("     %-28s %9.2f ms\n", "serial, one stream",
           serial.median_ms);
    check_samples(&r->verdict, "serial output", &j);
    bw_poison_host(b->h_pinned_back, b->bytes);
    cm_stats piped = cm_time_events(pipelined_region, &j, j.streams[0],
                                    r->warmup, r->repeat);
    char label[40];
    snprintf(label, sizeof label, "copy+compute, %zu chunks", chunks);
    bw_add_at_once_row(r, label, 2 * b->bytes, piped.median_ms);
    snprintf(label, sizeof label, "%zu chunks on %zu streams", chunks,
             streams);
    printf("     %-28s %9.2f ms (%.2fx faster than serial)\n", label,
           piped.median_ms, serial.median_ms / piped.median_ms);
    check_samples(&r->verdict, "pipelined output", &j);

    for (size_t i = 0; i < j.n_streams; i++) {
        CUDA_CHECK(cudaStreamDestroy(j.streams[i]));
        CUDA_CHECK(cudaEventDestroy(j.joins[i]));
    }
    CUDA_CHECK(cudaEventDestroy(j.fork));
    free(j.streams);
    free(j.joins);
}
