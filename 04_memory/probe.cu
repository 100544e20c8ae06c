/* probe.cu - what the out-of-core planner (planner.c) needs to know about
 * this GPU and host, measured rather than assumed: how fast pinned copies
 * run, what each row of a 2D copy costs on top of its bytes, how fast the
 * host threads pack the rows of an A piece into one block, how fast
 * DGEMM runs (square, and in a tiled plan's shape), and in what chunks a
 * memory pool takes memory from the GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "ceiling.h"
#include "check.h"
#include "gemm.h"
#include "memory.h"
#include "pack.h"
#include "random.h"
#include "tiling.h"
#include "timing.h"
#include "units.h"

static const size_t CEILING_BYTES = (size_t)256 << 20;  /* copy test size */
static const size_t PROBE_SIDE_MAX = 4096;              /* GEMM rate test */
static const size_t PROBE_ROW_BYTES = 4096;  /* a narrow A piece's rows */

cudaMemPool_t pool_create(int device)
{
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    return pool;
}

/* A pool takes memory from the GPU in chunks, not bytes: one byte from an
 * empty pool makes it reserve a whole chunk, which we read back. A pool of
 * our own, destroyed at once, so nothing else is disturbed. */
size_t pool_chunk_bytes(int device)
{
    cudaMemPool_t pool = pool_create(device);
    cudaStream_t stream;
    void *d_byte;
    uint64_t reserved = 0;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocFromPoolAsync(&d_byte, 1, pool, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemPoolGetAttribute(
        pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CUDA_CHECK(cudaFreeAsync(d_byte, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaMemPoolDestroy(pool));
    return reserved > 0 ? (size_t)reserved : 1;
}

typedef struct {
    void *dst;
    size_t dst_pitch;
    const void *src;
    size_t src_pitch, width, rows;
    enum cudaMemcpyKind kind;
    cudaStream_t stream;
} copy_2d_job;

static void copy_2d(void *ctx)
{
    copy_2d_job *j = (copy_2d_job *)ctx;
    CUDA_CHECK(cudaMemcpy2DAsync(j->dst, j->dst_pitch, j->src, j->src_pitch,
                                 j->width, j->rows, j->kind, j->stream));
}

/* What each row of a 2D copy costs beyond its bytes at the contiguous
 * rate, in microseconds: we copy the first `width` bytes of every row of
 * an n x n host matrix (rows n * 8 bytes apart, the shape of a narrow A
 * piece) and take off the time its bytes alone would need. */
static double row_cost_us(size_t n, size_t width, enum cudaMemcpyKind kind,
                          double gbps, double *h_matrix, cudaStream_t stream)
{
    size_t pitch = n * sizeof(double);
    void *d_rows;
    cm_require_device_bytes(n * width, "the 2D-copy probe");
    CUDA_CHECK(cudaMalloc(&d_rows, n * width));
    CUDA_CHECK(cudaMemset(d_rows, 0, n * width));
    int in = kind == cudaMemcpyHostToDevice;   /* else device to host */
    copy_2d_job j = {
        .dst = in ? d_rows : (void *)h_matrix,
        .dst_pitch = in ? width : pitch,
        .src = in ? (const void *)h_matrix : d_rows,
        .src_pitch = in ? pitch : width,
        .width = width,
        .rows = n,
        .kind = kind,
        .stream = stream,
    };
    cm_stats s = cm_time_events(copy_2d, &j, stream, 1, 5);
    CUDA_CHECK(cudaFree(d_rows));
    double bytes_ms = (double)(n * width) / (gbps * 1e6);
    double extra_us = (s.median_ms - bytes_ms) * 1e3 / (double)n;
    return extra_us > 0 ? extra_us : 0;
}

typedef struct {
    cublasHandle_t handle;
    size_t rows, cols, inner, lda;
    double beta;   /* 1: C += A B, reading C as a tile's later steps do */
    double *d_a, *d_b, *d_c;
} probe_job;

static void probe_gemm(void *ctx)
{
    probe_job *j = (probe_job *)ctx;
    CUBLAS_CHECK(cm_gemm_rowmajor(j->handle, j->rows, j->cols, j->inner, 1.0,
                                  j->d_a, j->lda, j->d_b, j->cols, j->beta,
                                  j->d_c, j->cols));
}

/* TFLOP/s of j's GEMM (rows x inner A with leading dimension lda, inner x
 * cols B), on buffers of its own: the median of 3 after 1 warm-up. */
static double time_gemm_tflops(probe_job *j, cudaStream_t stream)
{
    size_t a = j->rows * j->lda, b = j->inner * j->cols;
    size_t c = j->rows * j->cols, e = sizeof(double);
    cm_require_device_bytes((a + b + c) * e, "the DGEMM rate probe");
    CUDA_CHECK(cudaMalloc(&j->d_a, a * e));
    CUDA_CHECK(cudaMalloc(&j->d_b, b * e));
    CUDA_CHECK(cudaMalloc(&j->d_c, c * e));
    /* Random inputs, not zeros: a GEMM of zeros flips fewer bits, draws
     * less power and can run at higher clocks than one of real data. */
    cm_curand_uniform(j->d_a, CM_FLOAT64, a, 1, stream);
    cm_curand_uniform(j->d_b, CM_FLOAT64, b, 2, stream);
    cm_curand_uniform(j->d_c, CM_FLOAT64, c, 3, stream);
    cm_stats s = cm_time_events(probe_gemm, j, stream, 1, 3);
    CUDA_CHECK(cudaFree(j->d_a));
    CUDA_CHECK(cudaFree(j->d_b));
    CUDA_CHECK(cudaFree(j->d_c));
    return cm_tflops(2.0 * (double)j->rows * (double)j->cols *
                     (double)j->inner, s.median_ms);
}

/* This GPU's DGEMM rate: one square GEMM that fits in the budget. */
static double probe_gemm_tflops(cublasHandle_t handle, cudaStream_t stream,
                                size_t n, size_t budget)
{
    size_t side = n < PROBE_SIDE_MAX ? n : PROBE_SIDE_MAX;
    while (side > 64 && 3 * side * side * sizeof(double) > budget)
        side /= 2;
    probe_job j = {.handle = handle, .rows = side, .cols = side,
                   .inner = side, .lda = side};
    return time_gemm_tflops(&j, stream);
}

double probe_tiled_gemm_tflops(cublasHandle_t handle, cudaStream_t stream,
                               const ooc_plan *p)
{
    /* The GEMM of a step with every C buffer staying: all the buffers'
     * rows at once, accumulating (beta = 1), as streamed.cu runs most
     * steps. Its buffers are at most the plan's slab, which fits the
     * budget. */
    probe_job j = {.handle = handle, .rows = p->c_buffers * p->tile_rows,
                   .cols = p->tile_cols, .inner = p->tile_k,
                   .lda = p->tile_k, .beta = 1.0};
    return time_gemm_tflops(&j, stream);
}

typedef struct {
    pack_pool *packers;
    double *dst;
    const double *src;
    size_t src_pitch, width, rows;
} pack_job;

static void pack_region(void *ctx)
{
    pack_job *j = (pack_job *)ctx;
    pack_rows(j->packers, j->dst, j->src, j->src_pitch, j->width, j->rows);
}

/* GB/s of the host threads packing n rows of `width` bytes, n doubles
 * apart in h_matrix (the shape of a narrow A piece), into h_dst, one
 * after the other: memcpy per row, as streamed.cu packs. */
static double pack_gbps(pack_pool *packers, size_t n, size_t width,
                        const double *h_matrix, double *h_dst)
{
    pack_job j = {.packers = packers, .dst = h_dst, .src = h_matrix,
                  .src_pitch = n * sizeof(double), .width = width,
                  .rows = n};
    cm_stats s = cm_time_host(pack_region, &j, 1, 5);
    return cm_gbps((double)(n * width), s.median_ms);
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    cudaStream_t stream;
} d2d_job;

static void copy_d2d(void *ctx)
{
    d2d_job *j = (d2d_job *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes,
                               cudaMemcpyDeviceToDevice, j->stream));
}

/* GB/s of a device-to-device copy of `bytes` (each byte read once and
 * written once), on buffers of its own: the median of 5 after 1. */
static double device_copy_gbps(size_t bytes, cudaStream_t stream)
{
    cm_require_device_bytes(2 * bytes, "the device copy probe");
    d2d_job j = {.bytes = bytes, .stream = stream};
    CUDA_CHECK(cudaMalloc(&j.dst, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.src, bytes));
    CUDA_CHECK(cudaMemsetAsync((void *)j.src, 0, bytes, stream));
    cm_stats s = cm_time_events(copy_d2d, &j, stream, 1, 5);
    CUDA_CHECK(cudaFree(j.dst));
    CUDA_CHECK(cudaFree((void *)j.src));
    return cm_gbps((double)bytes, s.median_ms);
}

/* GB/s of a 2D copy with rows of `width` bytes, by the row-cost model. */
static double gbps_2d(double width, double gbps, double row_us)
{
    return width / (width / (gbps * 1e3) + row_us) / 1e3;
}

void measure_rates(ooc_rates *r, cublasHandle_t handle, cudaStream_t stream,
                   size_t n, size_t budget, pack_pool *packers, double *h_a,
                   double *h_c)
{
    size_t bytes = n * n * sizeof(double);
    size_t ceiling_bytes = bytes < CEILING_BYTES ? bytes : CEILING_BYTES;
    char text[32];
    r->h2d_gbps = cm_measure_pinned_gbps(ceiling_bytes,
                                         cudaMemcpyHostToDevice, 2, 10);
    r->d2h_gbps = cm_measure_pinned_gbps(ceiling_bytes,
                                         cudaMemcpyDeviceToHost, 2, 10);
    /* Rows narrower than a matrix row exist only for n >= 2. The D2H and
     * packing probes write into h_c, which the real run overwrites
     * later. */
    size_t width = n * sizeof(double) / 2;
    width = width < PROBE_ROW_BYTES ? width : PROBE_ROW_BYTES;
    r->h2d_row_us = r->d2h_row_us = r->pack_gbps = 0;
    r->pack_threads = pack_pool_threads(packers);
    if (n >= 2) {
        r->h2d_row_us = row_cost_us(n, width, cudaMemcpyHostToDevice,
                                    r->h2d_gbps, h_a, stream);
        r->d2h_row_us = row_cost_us(n, width, cudaMemcpyDeviceToHost,
                                    r->d2h_gbps, h_c, stream);
        r->pack_gbps = pack_gbps(packers, n, width, h_a, h_c);
    }
    r->gemm_tflops = probe_gemm_tflops(handle, stream, n, budget);
    r->tiled_gemm_tflops = 0;
    r->d2d_gbps = device_copy_gbps(ceiling_bytes, stream);
    printf("measured: pinned copies in %.2f GB/s, out %.2f GB/s (%s each); "
           "DGEMM %.2f TFLOP/s\n", r->h2d_gbps, r->d2h_gbps,
           cm_fmt_bytes_short(ceiling_bytes, text, sizeof text),
           r->gemm_tflops);
    printf("measured: 2D copies of %zu rows of %zu bytes: in %.2f GB/s, out "
           "%.2f GB/s; so each row costs %.3f us in, %.3f us out on top of "
           "its bytes\n", n, width,
           gbps_2d((double)width, r->h2d_gbps, r->h2d_row_us),
           gbps_2d((double)width, r->d2h_gbps, r->d2h_row_us),
           r->h2d_row_us, r->d2h_row_us);
    printf("measured: the same rows packed into one block on the host by %d "
           "thread%s (memcpy a row): %.2f GB/s\n", r->pack_threads,
           r->pack_threads > 1 ? "s" : "", r->pack_gbps);
    printf("measured: device memory copies %.2f GB/s (%s): a GEMM reads and "
           "writes its C on top of its multiply-adds, about a copy of C at "
           "that rate, whatever its k\n", r->d2d_gbps,
           cm_fmt_bytes_short(ceiling_bytes, text, sizeof text));
}
