/* blocked.cu - part 2 of 04_memory: the tutorial's blocked GEMM, on the
 * GPU, timed against one GEMM call on the same data.
 *
 *     for i, j, k in blocks:  c[i, j] += cp.dot(a[i, k], b[k, j])
 *
 * CuPy's slices a[i:i+bs, k:k+bs] are views: a pointer into the big array
 * plus its row stride. cp.dot copies each such view into a contiguous
 * temporary before calling cuBLAS (it is neither C- nor F-contiguous),
 * has cuBLAS write the product into a third temporary, and += adds that
 * into c's block in a kernel of its own: four launches a block (two
 * copies, the GEMM, the add) where we make one GEMM call. We pass cuBLAS
 * the view itself, so no block is ever copied, and
 * beta = 1 makes cuBLAS add into C in place. Blocking like this saves no
 * memory (all of A, B and C are on the GPU): outofcore.cu does.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "check.h"
#include "gemm.h"
#include "memory.h"
#include "tiling.h"
#include "timing.h"
#include "units.h"

enum { MAX_STREAMS = 16 };

typedef struct {
    size_t n, block;
    int streams;
    const double *d_a, *d_b;
    double *d_c;
    cublasHandle_t handle[MAX_STREAMS];
    cudaStream_t stream[MAX_STREAMS];
    cudaEvent_t fork, join[MAX_STREAMS];
} gemm_job;

/* c = cp.dot(a, b): one call. */
static void one_call(void *ctx)
{
    gemm_job *j = (gemm_job *)ctx;
    CUBLAS_CHECK(cm_gemm_rowmajor(j->handle[0], j->n, j->n, j->n, 1.0,
                                  j->d_a, j->n, j->d_b, j->n, 0.0, j->d_c,
                                  j->n));
}

/* block_matrix_multiply(a, b, block). The k loop of one C block must run
 * in order on one stream (each call adds into the same block), but
 * different C blocks are independent: we deal them out over the streams,
 * so the GPU may run several block GEMMs at once (--streams 1: one at a
 * time, as CuPy runs them on its one stream). */
static void blocked_calls(void *ctx)
{
    gemm_job *j = (gemm_job *)ctx;
    size_t n = j->n, bs = j->block, blocks = tile_count(n, bs);
    /* c = cp.zeros((m, p)): all-zero bytes are 0.0. */
    CUDA_CHECK(cudaMemsetAsync(j->d_c, 0, n * n * sizeof(double),
                               j->stream[0]));
    CUDA_CHECK(cudaEventRecord(j->fork, j->stream[0]));
    for (int s = 1; s < j->streams; s++)
        CUDA_CHECK(cudaStreamWaitEvent(j->stream[s], j->fork, 0));
    for (size_t i = 0; i < blocks; i++)
        for (size_t jb = 0; jb < blocks; jb++) {
            int s = (int)((i * blocks + jb) % (size_t)j->streams);
            size_t rows = tile_extent(n, bs, i), cols = tile_extent(n, bs, jb);
            for (size_t k = 0; k < blocks; k++) {
                /* The views: a[i.., k..], b[k.., j..], c[i.., j..]. */
                const double *a = j->d_a + i * bs * n + k * bs;
                const double *b = j->d_b + k * bs * n + jb * bs;
                double *c = j->d_c + i * bs * n + jb * bs;
                CUBLAS_CHECK(cm_gemm_rowmajor(j->handle[s], rows, cols,
                                              tile_extent(n, bs, k), 1.0, a,
                                              n, b, n, 1.0, c, n));
            }
        }
    /* Join: stream[0] (the job's first stream, not the default stream),
     * where the timing events are, waits for the rest. */
    for (int s = 1; s < j->streams; s++) {
        CUDA_CHECK(cudaEventRecord(j->join[s], j->stream[s]));
        CUDA_CHECK(cudaStreamWaitEvent(j->stream[0], j->join[s], 0));
    }
}

void part_blocked(memory_run *run, double *h_single, double *h_blocked)
{
    size_t n = run->n, bs = run->block, bytes = n * n * sizeof(double);
    size_t blocks = tile_count(n, bs);
    printf("\n== 2. blocked GEMM on the GPU: block_matrix_multiply(a, b, "
           "%zu) ==\n", bs);
    printf("%zu x %zu blocks (edge block %zu), %zu GEMM calls over %d "
           "streams, all data on the GPU\n", blocks, blocks,
           tile_extent(n, bs, blocks - 1), blocks * blocks * blocks,
           run->streams);

    gemm_job job;
    job.n = n;
    job.block = bs;
    job.streams = run->streams;
    double *d_a, *d_b, *d_single, *d_blocked;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_single, bytes));
    CUDA_CHECK(cudaMalloc(&d_blocked, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, run->h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, run->h_b, bytes, cudaMemcpyHostToDevice));
    job.d_a = d_a;
    job.d_b = d_b;
    /* One cuBLAS handle per stream, as cuBLAS's guide suggests for
     * concurrent streams: each handle has its own workspace, so calls on
     * different streams never share one. */
    for (int s = 0; s < job.streams; s++) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&job.stream[s],
                                             cudaStreamNonBlocking));
        CUBLAS_CHECK(cublasCreate(&job.handle[s]));
        CUBLAS_CHECK(cublasSetStream(job.handle[s], job.stream[s]));
        CUDA_CHECK(cudaEventCreateWithFlags(&job.join[s],
                                            cudaEventDisableTiming));
    }
    CUDA_CHECK(cudaEventCreateWithFlags(&job.fork, cudaEventDisableTiming));

    /* Warm-up runs load the GEMM kernels before the timed ones. */
    job.d_c = d_single;
    cm_stats one = cm_time_events(one_call, &job, job.stream[0],
                                  run->warmup, run->repeat);
    job.d_c = d_blocked;
    cm_stats blk = cm_time_events(blocked_calls, &job, job.stream[0],
                                  run->warmup, run->repeat);
    CUDA_CHECK(cudaMemcpy(h_single, d_single, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_blocked, d_blocked, bytes,
                          cudaMemcpyDeviceToHost));

    double flops = 2.0 * (double)n * (double)n * (double)n;
    printf("one call   c = a @ b:        %9.3f ms median (min %.3f, max "
           "%.3f), %6.2f TFLOP/s (2 n^3 / time)\n", one.median_ms,
           one.min_ms, one.max_ms, cm_tflops(flops, one.median_ms));
    printf("blocked    %5zu calls:        %9.3f ms median (min %.3f, max "
           "%.3f), %6.2f TFLOP/s\n", blocks * blocks * blocks,
           blk.median_ms, blk.min_ms, blk.max_ms,
           cm_tflops(flops, blk.median_ms));
    printf("blocked / one call: %.2fx the time (the blocked times include "
           "cp.zeros, a memset of C)\n", blk.median_ms / one.median_ms);
    csv_row(run->csv, "blocked", "one_call_ms", one.median_ms, "ms");
    csv_row(run->csv, "blocked", "one_call_tflops",
            cm_tflops(flops, one.median_ms), "TFLOP/s");
    csv_row(run->csv, "blocked", "blocked_ms", blk.median_ms, "ms");
    csv_row(run->csv, "blocked", "blocked_tflops",
            cm_tflops(flops, blk.median_ms), "TFLOP/s");
    csv_row(run->csv, "blocked", "blocked_over_one_call",
            blk.median_ms / one.median_ms, "ratio");
    run->blocked_over_one = blk.median_ms / one.median_ms;

    CUDA_CHECK(cudaEventDestroy(job.fork));
    for (int s = 0; s < job.streams; s++) {
        CUBLAS_CHECK(cublasDestroy(job.handle[s]));
        CUDA_CHECK(cudaStreamDestroy(job.stream[s]));
        CUDA_CHECK(cudaEventDestroy(job.join[s]));
    }
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_single));
    CUDA_CHECK(cudaFree(d_blocked));
}
