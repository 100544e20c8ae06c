/* pool.cu - part 3 of 04_memory: giving memory back, CuPy's way.
 *
 *     x = cp.random.rand(10000, 10000)
 *     y = cp.dot(x, x)
 *     del x                                              # back to the pool
 *     cp.get_default_memory_pool().free_all_blocks()     # back to the GPU
 *     print(y)
 *
 * CuPy keeps a pool: `del x` hands x's block to the pool, where the next
 * array reuses it without asking the driver, and only free_all_blocks()
 * gives unused blocks back to the GPU. CUDA's stream-ordered allocator
 * (cudaMallocAsync / cudaFreeAsync) keeps the same kind of pool per device;
 * cudaMemPoolTrimTo(pool, 0) is its free_all_blocks(); CuPy's own pool on
 * that allocator is cupy.cuda.MemoryAsyncPool, whose free_all_blocks() is
 * a synchronize and that trim. (The tutorial's get_default_memory_pool()
 * is always CuPy's default MemoryPool, its own pool over cudaMalloc; a
 * program that allocates from a MemoryAsyncPool instead trims it with that
 * pool's own free_all_blocks().) The pool counts "used" (held by live
 * allocations) and "reserved" (taken from the GPU, in chunks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "array.h"
#include "check.h"
#include "gemm.h"
#include "freivalds.h"
#include "memory.h"
#include "random.h"
#include "timing.h"

static const uint64_t SEED_POOL_X = 11, SEED_POOL_CHECK = 12;

typedef struct {
    uint64_t used, reserved;  /* the pool's own counts */
    size_t free;              /* cudaMemGetInfo: the whole GPU */
} pool_state;

static double mib(double bytes) { return bytes / 1048576.0; }

static pool_state look(cudaMemPool_t pool, const char *when)
{
    pool_state s;
    size_t total;
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent,
                                       &s.used));
    CUDA_CHECK(cudaMemPoolGetAttribute(
        pool, cudaMemPoolAttrReservedMemCurrent, &s.reserved));
    CUDA_CHECK(cudaMemGetInfo(&s.free, &total));
    printf("  %-34s used %9.1f MiB, reserved %9.1f MiB, GPU free %10.1f "
           "MiB\n", when, mib((double)s.used), mib((double)s.reserved),
           mib((double)s.free));
    return s;
}

typedef struct {
    size_t bytes;
    cudaStream_t stream;
} alloc_job;

static void malloc_and_free(void *ctx)
{
    alloc_job *j = (alloc_job *)ctx;
    void *d_p;
    CUDA_CHECK(cudaMalloc(&d_p, j->bytes));
    CUDA_CHECK(cudaFree(d_p));
}

static void pool_malloc_and_free(void *ctx)
{
    alloc_job *j = (alloc_job *)ctx;
    void *d_p;
    CUDA_CHECK(cudaMallocAsync(&d_p, j->bytes, j->stream));
    CUDA_CHECK(cudaFreeAsync(d_p, j->stream));
    CUDA_CHECK(cudaStreamSynchronize(j->stream));
}

void part_pool(const memory_run *run)
{
    size_t n = run->n, bytes = n * n * sizeof(double);
    cm_verdict *v = run->verdict;
    printf("\n== 3. releasing memory: del x; free_all_blocks() ==\n");
    cm_require_device_bytes(cm_mul_size(2, bytes, "x and y"), "x and y");
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, run->device));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    /* The release threshold is how much unused memory the pool may keep
     * at a synchronize. The default, 0, gives all of it back at the next
     * synchronize; CuPy keeps everything, which is a threshold of "all". */
    uint64_t threshold_default, keep_all = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                       &threshold_default));
    printf("release threshold: %llu bytes by default; we set it to keep "
           "everything, as CuPy's pool does\n",
           (unsigned long long)threshold_default);
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                       &keep_all));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    pool_state s0 = look(pool, "start:");

    double *d_x, *d_y;
    CUDA_CHECK(cudaMallocAsync((void **)&d_x, bytes, stream));
    cm_curand_uniform(d_x, CM_FLOAT64, n * n, SEED_POOL_X, stream);
    CUDA_CHECK(cudaMallocAsync((void **)&d_y, bytes, stream));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cm_gemm_rowmajor(handle, n, n, n, 1.0, d_x, n, d_x, n, 0.0,
                                  d_y, n));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUBLAS_CHECK(cublasDestroy(handle));
    pool_state s1 = look(pool, "x, y = rand, dot(x, x):");
    check_fact(v, "pool holds x and y", s1.used >= s0.used + 2 * bytes &&
               s1.reserved >= s1.used, "used %llu, reserved %llu",
               (unsigned long long)s1.used, (unsigned long long)s1.reserved);
    /* Keep a copy of x: y is checked against it below. */
    double *h_x = (double *)cm_host_alloc(bytes, "a copy of x");
    CUDA_CHECK(cudaMemcpy(h_x, d_x, bytes, cudaMemcpyDeviceToHost));

    /* del x: the memory goes back to the pool, not to the GPU. */
    CUDA_CHECK(cudaFreeAsync(d_x, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    pool_state s2 = look(pool, "del x (cudaFreeAsync):");
    check_fact(v, "del x returns x to the pool, not the GPU",
               s2.used + bytes <= s1.used && s2.reserved == s1.reserved,
               "used fell %lld, reserved moved %lld",
               (long long)(s1.used - s2.used),
               (long long)(s2.reserved - s1.reserved));

    /* free_all_blocks(): the pool gives back the chunks no live
     * allocation touches. y is still alive, so its chunks stay, including
     * one it may share with x (the two can lie back to back in the pool),
     * so the trim may keep a chunk more than y's bytes rounded up to
     * chunks. */
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    pool_state s3 = look(pool, "free_all_blocks() (TrimTo 0):");
    long long released = (long long)(s2.reserved - s3.reserved);
    long long free_rose = (long long)s3.free - (long long)s2.free;
    /* What stays is y's chunks: y's bytes rounded up to whole chunks,
     * plus at most the one it shares with x. */
    size_t chunk = run->pool_chunk > 1 ? run->pool_chunk
                                       : pool_chunk_bytes(run->device);
    uint64_t most = ((s3.used + chunk - 1) / chunk + 1) * chunk;
    check_fact(v, "trim releases unused memory, and only that",
               s3.used == s2.used && s3.reserved >= s3.used &&
               s3.reserved <= most,
               "released %lld, still reserved %llu for %llu used (at most "
               "%llu: chunks of %zu)", released,
               (unsigned long long)s3.reserved, (unsigned long long)s3.used,
               (unsigned long long)most, chunk);
    /* cudaMemGetInfo counts the whole GPU: another process (a desktop, a
     * browser) may allocate or free meanwhile, so this is not checked. */
    printf("  GPU free rose by %lld bytes for the %lld the pool released "
           "(whole GPU: information)\n", free_rose, released);

    /* print(y): like CuPy, copy all of y back to print its corners. */
    double *h_y = (double *)cm_host_alloc(bytes, "a copy of y");
    CUDA_CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
    size_t shape[2] = {n, n};
    char *text = cm_format(h_y, CM_FLOAT64, 2, shape);
    printf("print(y)\n%s\n", text);
    free(text);
    /* Checksums of y for the CSV: every element, and row i's sum times
     * i + 1 (a transposed or row-swapped y differs). cupy_original.py
     * compares them with CuPy's y: cp.random.RandomState(11).rand(n, n)
     * is this x, the same cuRAND generator, seed and offset. */
    if (run->csv) {
        double y_sum = 0, y_weighted = 0;
        for (size_t i = 0; i < n; i++) {
            double row_sum = 0;
            for (size_t j = 0; j < n; j++)
                row_sum += h_y[i * n + j];
            y_sum += row_sum;
            y_weighted += (double)(i + 1) * row_sum;
        }
        csv_row(run->csv, "pool", "y_sum", y_sum, "sum");
        csv_row(run->csv, "pool", "y_weighted_sum", y_weighted, "sum");
    }
    cm_freivalds_ref check;
    size_t row;
    char detail[160];
    cm_freivalds_prepare(&check, h_x, h_x, n, SEED_POOL_CHECK);
    double worst = cm_freivalds_check(&check, h_y, &row);
    snprintf(detail, sizeof detail, "worst ratio |(y r)_i - (x (x r))_i| "
             "/ tolerance_i %.3g, row %zu (<= 1 passes)", worst, row);
    cm_check_true(v, "y = x @ x by Freivalds", worst <= 1.0, detail);
    cm_freivalds_release(&check);
    free(h_x);
    free(h_y);

    CUDA_CHECK(cudaFreeAsync(d_y, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    pool_state s4 = look(pool, "del y; free_all_blocks():");
    check_fact(v, "with nothing alive, trim empties the pool",
               s4.used == s0.used && s4.reserved <= s0.reserved,
               "used %llu, reserved %llu (at the start %llu, %llu)",
               (unsigned long long)s4.used, (unsigned long long)s4.reserved,
               (unsigned long long)s0.used, (unsigned long long)s0.reserved);

    /* The default threshold (0) needs no trim: the pool gives free memory
     * back at the next synchronize. */
    uint64_t keep_none = 0;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                       &keep_none));
    CUDA_CHECK(cudaMallocAsync((void **)&d_x, bytes, stream));
    CUDA_CHECK(cudaFreeAsync(d_x, stream));
    look(pool, "threshold 0: alloc + free:");
    CUDA_CHECK(cudaStreamSynchronize(stream));
    pool_state s5 = look(pool, "threshold 0: after synchronize:");
    check_fact(v, "threshold 0 releases at synchronize, no trim needed",
               s5.reserved <= s0.reserved, "reserved %llu (at the start %llu)",
               (unsigned long long)s5.reserved,
               (unsigned long long)s0.reserved);

    /* Why pools exist: cudaMalloc + cudaFree go to the driver every time
     * (and cudaFree waits for the whole GPU); a warm pool hands back the
     * block it kept. */
    alloc_job job = {.bytes = bytes, .stream = stream};
    cm_stats plain = cm_time_host(malloc_and_free, &job, run->warmup,
                                  run->repeat);
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                       &keep_all));
    cm_stats pooled = cm_time_host(pool_malloc_and_free, &job,
                                   run->warmup > 0 ? run->warmup : 1,
                                   run->repeat);
    printf("cudaMalloc + cudaFree of %.1f MiB:           %9.4f ms median\n"
           "cudaMallocAsync + cudaFreeAsync, warm pool: %9.4f ms median\n",
           mib((double)bytes), plain.median_ms, pooled.median_ms);
    csv_row(run->csv, "pool", "cudaMalloc_cudaFree_ms", plain.median_ms,
            "ms");
    csv_row(run->csv, "pool", "pool_alloc_free_ms", pooled.median_ms, "ms");
    csv_row(run->csv, "pool", "trim_released", (double)released, "bytes");

    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                       &threshold_default));
    CUDA_CHECK(cudaStreamDestroy(stream));
}
