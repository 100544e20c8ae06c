/* kernels.cu - the GPU side of 06_image_preprocess: the tutorial's three
 * steps as CuPy runs them (three kernels), and one kernel that fuses
 * them. preprocess.cu times and checks both; batch.cu runs the fused one.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "check.h"
#include "kernels.h"

static const int THREADS_PER_BLOCK = 256;
static const size_t MAX_BLOCKS = (size_t)1 << 20;  /* grid-stride beyond */
/* The fused kernel's unit of work is a warp's tile: 512 neighbouring
 * output floats (2 KB) made from 512 input bytes. Each lane of the warp
 * does 4 groups of 4 pixels in it. */
static const size_t TILE_PIXELS = 512;
#define GROUPS_PER_LANE 4

/* Step 1, image_cp.astype(cp.float32): one thread per element, as CuPy's
 * elementwise kernels do; the grid-stride loop covers any size. */
__global__ void to_float_kernel(float *out, const uint8_t *in, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = (float)in[i];
}

/* Step 2, / 255.0. __fdiv_rn is the IEEE division rounded to nearest that
 * '/' compiles to by default, and it stays so even under -use_fast_math.
 * Multiplying by (1 / 255.0f) instead changes 126 of the 256 results. */
__global__ void divide_kernel(float *x, float divisor, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] = __fdiv_rn(x[i], divisor);
}

/* Step 3, cp.flip(axis=1). CuPy makes this free: a view of the same memory
 * with a negative column stride. It stops being free as soon as contiguous
 * data is needed (cp.ascontiguousarray, a library call, .get() to the
 * host): then CuPy runs exactly this copy. */
__global__ void flip_kernel(float *out, const float *in, size_t width,
                            size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        size_t y = i / width, x = i - y * width;
        out[i] = in[y * width + width - 1 - x];
    }
}

void launch_naive_steps(float *d_out, float *d_float, const uint8_t *d_in,
                        size_t width, size_t height, cudaStream_t stream)
{
    size_t n = width * height;
    size_t blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    unsigned grid = (unsigned)(blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS);
    to_float_kernel<<<grid, THREADS_PER_BLOCK, 0, stream>>>(d_float, d_in,
                                                            n);
    CUDA_CHECK(cudaGetLastError());
    divide_kernel<<<grid, THREADS_PER_BLOCK, 0, stream>>>(d_float, 255.0f,
                                                          n);
    CUDA_CHECK(cudaGetLastError());
    flip_kernel<<<grid, THREADS_PER_BLOCK, 0, stream>>>(d_out, d_float,
                                                        width, n);
    CUDA_CHECK(cudaGetLastError());
}

/* Bytes 3, 2, 1, 0 of a little-endian word (the flip), each / 255.0f. */
__device__ __forceinline__ float4 flip_normalize4(unsigned w)
{
    return make_float4(__fdiv_rn((float)(w >> 24), 255.0f),
                       __fdiv_rn((float)((w >> 16) & 255), 255.0f),
                       __fdiv_rn((float)((w >> 8) & 255), 255.0f),
                       __fdiv_rn((float)(w & 255), 255.0f));
}

/* 4 bytes from src: one 4-byte load when src allows it (widths that are
 * multiples of 4), else four 1-byte loads of the same cache line. */
__device__ __forceinline__ unsigned load4(const uint8_t *src)
{
    if (((uintptr_t)src & 3) == 0)
        return *(const unsigned *)src;
    return src[0] | src[1] << 8 | src[2] << 16 | (unsigned)src[3] << 24;
}

/* Where pixel i's row starts. A 64-bit division costs dozens of
 * instructions; a 32-bit one, enough for any image up to 4 G pixels,
 * about half as many. */
__device__ __forceinline__ size_t row_start(size_t i, size_t width)
{
    if (((i | width) >> 32) == 0)
        return (unsigned)i / (unsigned)width * width;
    return i / width * width;
}

/* out[first .. first + 3] one float at a time, for a group that crosses
 * the end of a row (or of the image); row is where first's row starts. */
__device__ __forceinline__ void normalize_flip_each(
    float *out, const uint8_t *in, size_t width, size_t n, size_t first,
    size_t row)
{
    size_t start = row, end = row + width;
    for (size_t i = first; i < first + 4 && i < n; i++) {
        if (i == end) {  /* the next row begins */
            start = end;
            end += width;
        }
        float x = (float)in[2 * start + width - 1 - i];
        __stcs(out + i, __fdiv_rn(x, 255.0f));
    }
}

/* All three steps in one pass: each byte read once, each float written
 * once, 5 bytes per pixel instead of 21. Four bytes in five are writes,
 * so the kernel is shaped around its stores.
 *
 * A warp writes one tile of 512 floats at a time. Lane t takes float4
 * number t, t + 32, t + 64 and t + 96 of the tile (4 pixels each), so
 * each of the warp's four store instructions writes 32 neighbouring
 * float4s: one contiguous 512-byte segment, four whole 128-byte lines.
 * (Giving each lane 16 neighbouring floats instead looks tidier, but then
 * one store instruction writes 32 pieces of 16 bytes 64 bytes apart,
 * spread over 2 KB; on an H200 that ran at less than half the speed.)
 * The source of 4 neighbouring pixels is 4 neighbouring bytes (the row
 * read backwards), one 4-byte load, so each load instruction of the warp
 * reads 128 contiguous bytes, one line.
 *
 * The four loads are all issued before the first store: a lane then
 * waits for memory once per tile, with 16 bytes on their way, rather
 * than four times. A group of 4 pixels that crosses the end of a row
 * (widths that are not multiples of 4) is written one float at a time.
 *
 * The grid holds only as many threads as the GPU runs at once; each warp
 * then steps through the tiles w, w + W, w + 2W, ... (W warps in all).
 * The stores are streaming (__stcs, "cache streaming"): the tensor is
 * not read again by this kernel, so L2 may evict its lines first instead
 * of keeping them at the expense of data that is still wanted. */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
normalize_flip_kernel(float *__restrict__ out,
                      const uint8_t *__restrict__ in, size_t width,
                      size_t height)
{
    size_t n = width * height;
    size_t lane = threadIdx.x % 32;
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    size_t step = (size_t)gridDim.x * blockDim.x / 32 * TILE_PIXELS;
    for (size_t tile = warp * TILE_PIXELS; tile < n; tile += step) {
        unsigned word[GROUPS_PER_LANE];
        size_t row[GROUPS_PER_LANE];
        bool whole[GROUPS_PER_LANE];
#pragma unroll
        for (int g = 0; g < GROUPS_PER_LANE; g++) {
            /* Pixels first .. first + 3; in their row, out[i] is
             * in[mirror - i] with mirror = 2 * row + width - 1. */
            size_t first = tile + 4 * (32 * g + lane);
            row[g] = row_start(first, width);
            whole[g] = first < n && first + 4 <= row[g] + width;
            if (whole[g])
                word[g] = load4(in + (2 * row[g] + width - 4 - first));
        }
#pragma unroll
        for (int g = 0; g < GROUPS_PER_LANE; g++) {
            size_t first = tile + 4 * (32 * g + lane);
            /* The word's last byte is the group's first pixel. */
            if (whole[g])
                __stcs((float4 *)(out + first), flip_normalize4(word[g]));
            else if (first < n)
                normalize_flip_each(out, in, width, n, first, row[g]);
        }
    }
}

void launch_normalize_flip(float *d_out, const uint8_t *d_in, size_t width,
                           size_t height, cudaStream_t stream)
{
    /* A warp for every tile, but no more blocks than the GPU keeps
     * resident at once (SMs x blocks per SM). That number depends only
     * on the GPU and the kernel, so it is asked once per device: the
     * queries cost microseconds, a few percent of the kernel's time.
     * (The cache is not thread-safe; we launch from one host thread.) */
    static int known_device = -1;
    static size_t resident_blocks;
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    if (device != known_device) {
        int sms, blocks_per_sm;
        CUDA_CHECK(cudaDeviceGetAttribute(
            &sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks_per_sm, normalize_flip_kernel, THREADS_PER_BLOCK, 0));
        resident_blocks = (size_t)sms * (size_t)blocks_per_sm;
        known_device = device;
    }
    size_t tiles = (width * height + TILE_PIXELS - 1) / TILE_PIXELS;
    size_t warps_per_block = THREADS_PER_BLOCK / 32;
    size_t blocks = (tiles + warps_per_block - 1) / warps_per_block;
    if (blocks > resident_blocks)
        blocks = resident_blocks;
    if (blocks == 0)
        return;
    normalize_flip_kernel<<<(unsigned)blocks, THREADS_PER_BLOCK, 0,
                            stream>>>(d_out, d_in, width, height);
    CUDA_CHECK(cudaGetLastError());
}
