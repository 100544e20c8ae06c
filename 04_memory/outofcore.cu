/* outofcore.cu - part 3 of 04_memory: the blocked GEMM that does save GPU
 * memory. The tutorial's blocking keeps A, B and C on the GPU, so it needs
 * as much memory as one call. Here A, B and C stay in pinned host memory;
 * only a C tile and two pieces of its inputs are on the GPU at a time:
 *
 *   for each C tile (rows r, columns c):        C tile stays on the GPU
 *     for each piece p of the inner dimension:  A[r, p] and B[p, c] come in
 *       C tile += A[r, p] @ B[p, c]             while the next piece copies
 *     C tile goes home                          while the next tile starts
 *
 * Three streams do the three jobs (copy in, GEMM, copy out); events say
 * when a buffer is full or free again. The planner (tiling.c) picks the
 * tile shape that fits --mem-limit and is estimated fastest.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "ceiling.h"
#include "check.h"
#include "memory.h"
#include "options.h"
#include "tiling.h"
#include "timing.h"
#include "units.h"

static const size_t CEILING_BYTES = (size_t)256 << 20;  /* copy test size */
static const size_t PROBE_SIDE_MAX = 4096;              /* GEMM rate test */

typedef struct {
    const ooc_plan *plan;
    const double *h_a, *h_b;
    double *h_c;
    double *d_c[2], *d_a[2], *d_b[2];
    int copies;  /* 0: the GEMMs alone, on whatever the buffers hold */
    cublasHandle_t handle;
    cudaStream_t gemm, copy_in, copy_out;
    cudaEvent_t start, end, piece_in[2], piece_used[2], tile_done[2],
        tile_home[2];
} ooc_job;

static void streamed_gemm(void *ctx)
{
    ooc_job *j = (ooc_job *)ctx;
    const ooc_plan *p = j->plan;
    size_t n = p->n, e = sizeof(double), piece = 0;
    /* Nothing of this run may start before the previous run ended. */
    CUDA_CHECK(cudaEventRecord(j->start, j->gemm));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_in, j->start, 0));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_out, j->start, 0));
    for (size_t ti = 0; ti < p->row_tiles; ti++)
        for (size_t tj = 0; tj < p->col_tiles; tj++) {
            size_t tile = ti * p->col_tiles + tj, cb = tile % p->c_buffers;
            size_t row0 = ti * p->tile_rows, col0 = tj * p->tile_cols;
            size_t rows = tile_extent(n, p->tile_rows, ti);
            size_t cols = tile_extent(n, p->tile_cols, tj);
            /* This C buffer held tile - 2: it must be home first. */
            if (j->copies && tile >= p->c_buffers)
                CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->tile_home[cb], 0));
            for (size_t kp = 0; kp < p->k_pieces; kp++, piece++) {
                size_t slot = piece % 2, k0 = kp * p->tile_k;
                size_t inner = tile_extent(n, p->tile_k, kp);
                if (j->copies) {
                    /* The slot's last piece (two back) must be used up. A
                     * piece is a block of a row-major matrix: rows of
                     * inner (or cols) elements, n apart on the host, packed
                     * on the GPU. cudaMemcpy2DAsync copies exactly that. */
                    if (piece >= 2)
                        CUDA_CHECK(cudaStreamWaitEvent(
                            j->copy_in, j->piece_used[slot], 0));
                    CUDA_CHECK(cudaMemcpy2DAsync(
                        j->d_a[slot], inner * e, j->h_a + row0 * n + k0,
                        n * e, inner * e, rows, cudaMemcpyHostToDevice,
                        j->copy_in));
                    CUDA_CHECK(cudaMemcpy2DAsync(
                        j->d_b[slot], cols * e, j->h_b + k0 * n + col0,
                        n * e, cols * e, inner, cudaMemcpyHostToDevice,
                        j->copy_in));
                    CUDA_CHECK(cudaEventRecord(j->piece_in[slot],
                                               j->copy_in));
                    CUDA_CHECK(cudaStreamWaitEvent(j->gemm,
                                                   j->piece_in[slot], 0));
                }
                /* beta = 0 on the first piece: cuBLAS then ignores what
                 * the buffer held, so C needs no zeroing. */
                dgemm_rowmajor(j->handle, rows, cols, inner, j->d_a[slot],
                               inner, j->d_b[slot], cols, kp ? 1.0 : 0.0,
                               j->d_c[cb], cols);
                CUDA_CHECK(cudaEventRecord(j->piece_used[slot], j->gemm));
            }
            if (j->copies) {
                CUDA_CHECK(cudaEventRecord(j->tile_done[cb], j->gemm));
                CUDA_CHECK(cudaStreamWaitEvent(j->copy_out,
                                               j->tile_done[cb], 0));
                CUDA_CHECK(cudaMemcpy2DAsync(
                    j->h_c + row0 * n + col0, n * e, j->d_c[cb], cols * e,
                    cols * e, rows, cudaMemcpyDeviceToHost, j->copy_out));
                CUDA_CHECK(cudaEventRecord(j->tile_home[cb], j->copy_out));
            }
        }
    /* The run ends when the last tile is home; the timing events are on
     * the GEMM stream, so it waits for that. */
    CUDA_CHECK(cudaEventRecord(j->end, j->copy_out));
    CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->end, 0));
}

typedef struct {
    cublasHandle_t handle;
    size_t side;
    double *d_a, *d_b, *d_c;
} probe_job;

static void probe_gemm(void *ctx)
{
    probe_job *j = (probe_job *)ctx;
    dgemm_rowmajor(j->handle, j->side, j->side, j->side, j->d_a, j->side,
                   j->d_b, j->side, 0.0, j->d_c, j->side);
}

/* The planner weighs GEMM time against copy time, so it needs this GPU's
 * DGEMM rate: one square GEMM that fits in the budget. */
static double probe_gemm_tflops(cublasHandle_t handle, cudaStream_t stream,
                                size_t n, size_t budget)
{
    probe_job j = {handle, n < PROBE_SIDE_MAX ? n : PROBE_SIDE_MAX, NULL,
                   NULL, NULL};
    while (j.side > 64 && 3 * j.side * j.side * sizeof(double) > budget)
        j.side /= 2;
    size_t bytes = j.side * j.side * sizeof(double);
    CUDA_CHECK(cudaMalloc(&j.d_a, bytes));
    CUDA_CHECK(cudaMalloc(&j.d_b, bytes));
    CUDA_CHECK(cudaMalloc(&j.d_c, bytes));
    CUDA_CHECK(cudaMemset(j.d_a, 0, bytes));
    CUDA_CHECK(cudaMemset(j.d_b, 0, bytes));
    cm_stats s = cm_time_events(probe_gemm, &j, stream, 1, 3);
    CUDA_CHECK(cudaFree(j.d_a));
    CUDA_CHECK(cudaFree(j.d_b));
    CUDA_CHECK(cudaFree(j.d_c));
    double side = (double)j.side;
    return cm_tflops(2.0 * side * side * side, s.median_ms);
}

/* The pool takes memory from the GPU in chunks, not bytes: one byte from
 * an empty pool makes it reserve a whole chunk, which we read back. The
 * plan rounds its slab up to this, so that what the pool reserves, not
 * only what we use, stays within the budget. */
static size_t pool_chunk_bytes(cudaMemPool_t pool, cudaStream_t stream)
{
    void *d_byte;
    uint64_t reserved = 0, zero = 0;
    CUDA_CHECK(cudaMallocFromPoolAsync(&d_byte, 1, pool, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemPoolGetAttribute(
        pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CUDA_CHECK(cudaFreeAsync(d_byte, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    /* High-water marks can be reset, to zero only: start them afresh. */
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh,
                                       &zero));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh,
                                       &zero));
    return reserved > 0 ? (size_t)reserved : 1;
}

void part_outofcore(memory_run *run)
{
    size_t n = run->n, bytes = n * n * sizeof(double);
    char t1[96], t2[96], t3[96], t4[96];
    printf("\n== 3. out-of-core blocked GEMM: A, B, C on the host, at most "
           "%s on the GPU ==\n",
           cm_fmt_bytes(run->mem_limit, t1, sizeof t1));

    ooc_job j;
    memset(&j, 0, sizeof j);
    CUDA_CHECK(cudaStreamCreateWithFlags(&j.gemm, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&j.copy_in, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&j.copy_out,
                                         cudaStreamNonBlocking));
    cudaEvent_t *events[] = {&j.start, &j.end, &j.piece_in[0],
                             &j.piece_in[1], &j.piece_used[0],
                             &j.piece_used[1], &j.tile_done[0],
                             &j.tile_done[1], &j.tile_home[0],
                             &j.tile_home[1]};
    /* Events that only order streams need no timestamps. */
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CUDA_CHECK(cudaEventCreateWithFlags(events[i],
                                            cudaEventDisableTiming));
    /* cuBLAS's own workspace comes with the handle, outside the budget,
     * like the CUDA context: --mem-limit bounds the data buffers. */
    CUBLAS_CHECK(cublasCreate(&j.handle));
    CUBLAS_CHECK(cublasSetStream(j.handle, j.gemm));

    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = run->device;
    cudaMemPool_t pool;
    CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    size_t chunk = pool_chunk_bytes(pool, j.gemm);

    /* Measure what the plan trades off, on this GPU. */
    size_t ceiling_bytes = bytes < CEILING_BYTES ? bytes : CEILING_BYTES;
    ooc_rates rates;
    rates.h2d_gbps = cm_measure_pinned_gbps(ceiling_bytes,
                                            cudaMemcpyHostToDevice, 2, 10);
    rates.d2h_gbps = cm_measure_pinned_gbps(ceiling_bytes,
                                            cudaMemcpyDeviceToHost, 2, 10);
    rates.gemm_tflops = probe_gemm_tflops(j.handle, j.gemm, n,
                                          run->mem_limit);
    printf("measured: pinned copies in %.2f GB/s, out %.2f GB/s (%s "
           "each); DGEMM %.2f TFLOP/s; pool chunk %s\n", rates.h2d_gbps,
           rates.d2h_gbps, cm_fmt_bytes_short(ceiling_bytes, t1, sizeof t1),
           rates.gemm_tflops, cm_fmt_bytes_short(chunk, t2, sizeof t2));
    ooc_plan plan, fewest;
    if (ooc_plan_make(n, sizeof(double), run->mem_limit, chunk, &rates,
                      &plan) != 0) {  /* main checked 2 MiB chunks */
        fprintf(stderr, "04_memory: --mem-limit %s is below the smallest "
                "out-of-core tiling in %s pool chunks: it needs %s\n",
                cm_fmt_bytes(run->mem_limit, t1, sizeof t1),
                cm_fmt_bytes_short(chunk, t2, sizeof t2),
                cm_fmt_bytes(plan.device_bytes, t3, sizeof t3));
        exit(CM_EXIT_FAIL);
    }
    ooc_plan_make(n, sizeof(double), run->mem_limit, chunk, NULL, &fewest);
    fewest.estimate_ms = ooc_estimate_ms(&fewest, &rates);
    char described[512];
    printf("plan: %s\n", ooc_plan_describe(&plan, described,
                                            sizeof described));
    if (plan.tile_rows != fewest.tile_rows ||
        plan.tile_cols != fewest.tile_cols || plan.tile_k != fewest.tile_k)
        printf("not chosen, the plan moving the fewest bytes: %s\n",
               ooc_plan_describe(&fewest, described, sizeof described));
    printf("bytes moved: in %s (A x %zu tile columns + B x %zu tile rows), "
           "out %s (C once)\n", cm_fmt_bytes(plan.h2d_bytes, t1, sizeof t1),
           plan.col_tiles, plan.row_tiles,
           cm_fmt_bytes(plan.d2h_bytes, t2, sizeof t2));

    /* All GPU buffers come from one allocation out of our own pool, so the
     * pool's high-water marks are exactly what this part held. */
    cm_require_device_bytes(plan.device_bytes, "the out-of-core buffers");
    size_t free_before, free_during, total;
    CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    char *d_slab;
    CUDA_CHECK(cudaMallocFromPoolAsync((void **)&d_slab, plan.device_bytes,
                                       pool, j.gemm));
    CUDA_CHECK(cudaStreamSynchronize(j.gemm));
    CUDA_CHECK(cudaMemGetInfo(&free_during, &total));
    for (int i = 0; i < 2; i++) {
        j.d_c[i] = (double *)(d_slab + plan.c_offset[i]);
        j.d_a[i] = (double *)(d_slab + plan.a_offset[i]);
        j.d_b[i] = (double *)(d_slab + plan.b_offset[i]);
    }
    double *h_c = pinned_alloc(bytes, "the out-of-core C");
    j.plan = &plan;
    j.h_a = run->h_a;
    j.h_b = run->h_b;
    j.h_c = h_c;

    j.copies = 1;
    cm_stats s = cm_time_events(streamed_gemm, &j, j.gemm, run->warmup,
                                run->repeat);
    /* The same GEMMs without the copies: the compute part of the floor. */
    j.copies = 0;
    cm_stats g = cm_time_events(streamed_gemm, &j, j.gemm, run->warmup,
                                run->repeat);
    CUDA_CHECK(cudaFreeAsync(d_slab, j.gemm));
    CUDA_CHECK(cudaStreamSynchronize(j.gemm));
    uint64_t used_high = 0, reserved_high = 0;
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh,
                                       &used_high));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh,
                                       &reserved_high));
    CUDA_CHECK(cudaMemPoolDestroy(pool));

    double flops = 2.0 * (double)n * (double)n * (double)n;
    double moved = (double)(plan.h2d_bytes + plan.d2h_bytes);
    /* Copies in and out use separate copy engines and directions of the
     * bus, so they overlap each other and the GEMMs: the floor is the
     * busiest of the three. */
    double in_ms = (double)plan.h2d_bytes / (rates.h2d_gbps * 1e6);
    double out_ms = (double)plan.d2h_bytes / (rates.d2h_gbps * 1e6);
    double floor_ms = fmax(g.median_ms, fmax(in_ms, out_ms));
    printf("out-of-core: %.3f ms median (min %.3f, max %.3f), %.2f "
           "TFLOP/s, %.2f GB/s moved (in + out / time)\n", s.median_ms,
           s.min_ms, s.max_ms, cm_tflops(flops, s.median_ms),
           cm_gbps(moved, s.median_ms));
    printf("floor = max(GEMMs alone %.3f ms, in %.3f ms, out %.3f ms) = "
           "%.3f ms; time / floor = %.2fx\n", g.median_ms, in_ms, out_ms,
           floor_ms, s.median_ms / floor_ms);
    printf("the plan's estimate adds the first pieces in and the last tile "
           "out, which nothing hides: %.3f ms; time / estimate = %.2fx\n",
           plan.estimate_ms, s.median_ms / plan.estimate_ms);
    printf("device memory: pool peak in use %s, peak reserved %s, GPU free "
           "fell by %s; budget %s\n",
           cm_fmt_bytes_short((size_t)used_high, t1, sizeof t1),
           cm_fmt_bytes_short((size_t)reserved_high, t2, sizeof t2),
           cm_fmt_bytes_short(free_before > free_during
                              ? free_before - free_during : 0, t3, sizeof t3),
           cm_fmt_bytes_short(run->mem_limit, t4, sizeof t4));
    check_fact(run->verdict, "out-of-core pool bytes in use <= --mem-limit",
               used_high <= run->mem_limit, "peak %llu of %zu bytes",
               (unsigned long long)used_high, run->mem_limit);
    check_fact(run->verdict, "out-of-core pool bytes reserved <= --mem-limit",
               reserved_high <= run->mem_limit, "peak %llu of %zu bytes",
               (unsigned long long)reserved_high, run->mem_limit);
    const char *metric[] = {"ms", "tflops", "bytes_moved", "floor_ms",
                            "time_over_floor", "pool_reserved_high"};
    const char *unit[] = {"ms", "TFLOP/s", "bytes", "ms", "ratio", "bytes"};
    double value[] = {s.median_ms, cm_tflops(flops, s.median_ms), moved,
                      floor_ms, s.median_ms / floor_ms,
                      (double)reserved_high};
    for (int i = 0; i < 6; i++)
        csv_row(run->csv, "outofcore", metric[i], value[i], unit[i]);
    run->outofcore_over_floor = s.median_ms / floor_ms;

    check_product(run, "out-of-core C", h_c);
    CUDA_CHECK(cudaFreeHost(h_c));
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CUDA_CHECK(cudaEventDestroy(*events[i]));
    CUBLAS_CHECK(cublasDestroy(j.handle));
    CUDA_CHECK(cudaStreamDestroy(j.gemm));
    CUDA_CHECK(cudaStreamDestroy(j.copy_in));
    CUDA_CHECK(cudaStreamDestroy(j.copy_out));
}
