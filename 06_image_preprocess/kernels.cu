/* kernels.cu - the GPU side of 06_image_preprocess: the tutorial's three
 * steps as three kernels of one thread per element, and one kernel that
 * fuses them. preprocess.cu times and checks both (the batch tool's
 * kernel, batch/transform.cu, fuses a resize with the same steps).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "check.h"
#include "kernels.h"

static const int THREADS_PER_BLOCK = 256;
static const unsigned MAX_BLOCKS = 1u << 20;  /* grid-stride beyond */

/* Every kernel here indexes with 32-bit unsigned integers, the GPU's
 * native width: a 64-bit add or multiply takes two or more instructions,
 * and a 64-bit division is a software routine (the compiler tries the
 * 32-bit one first when both values fit). So one launch covers at most
 * BAND_PIXELS pixels (2 * row + width must fit in 32 bits, and
 * i + stride too); larger images go in bands of whole rows, a multiple
 * of 4 rows so that every band starts 16-byte aligned for the fused
 * kernel's float4 stores. */
static const size_t BAND_PIXELS = (size_t)1 << 30;

/* Rows per band for this width; exits if one row is too wide. */
static size_t band_rows(size_t width, const char *who)
{
    size_t rows = BAND_PIXELS / width / 4 * 4;
    if (rows == 0) {
        fprintf(stderr, "%s: rows of %zu pixels are wider than these "
                "kernels handle (%zu)\n", who, width, BAND_PIXELS / 4);
        exit(1);
    }
    return rows;
}

/* Step 1, image_cp.astype(cp.float32): one thread per element (the
 * scheme of CuPy's elementwise kernels, though not their code); the
 * grid-stride loop covers any size. */
__global__ void to_float_kernel(float *out, const uint8_t *in, unsigned n)
{
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = (float)in[i];
}

/* Step 2, / 255.0. __fdiv_rn is the IEEE division rounded to nearest that
 * '/' compiles to by default, and it stays so even under -use_fast_math.
 * Multiplying by (1 / 255.0f) instead changes 126 of the 256 results. */
__global__ void divide_kernel(float *x, float divisor, unsigned n)
{
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        x[i] = __fdiv_rn(x[i], divisor);
}

/* Step 3, cp.flip(axis=1). CuPy makes this free: a view of the same memory
 * with a negative column stride. It stops being free as soon as contiguous
 * data is needed (cp.ascontiguousarray, a library call, .get() to the
 * host): then CuPy runs a copy like this one. An elementwise kernel sees
 * only the flat index i, so it divides to find the row and column. */
__global__ void flip_kernel(float *out, const float *in, unsigned width,
                            unsigned n)
{
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned y = i / width, x = i - y * width;
        out[i] = in[y * width + width - 1 - x];
    }
}

void launch_naive_step(naive_step step, float *d_out, float *d_float,
                       const uint8_t *d_in, size_t width, size_t height,
                       cudaStream_t stream)
{
    if (width == 0 || height == 0)
        return;
    size_t rows_per_band = band_rows(width, "naive steps");
    for (size_t row0 = 0; row0 < height; row0 += rows_per_band) {
        size_t rows = height - row0 < rows_per_band ? height - row0
                                                    : rows_per_band;
        unsigned n = (unsigned)(rows * width);
        unsigned blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
        unsigned grid = blocks < MAX_BLOCKS ? blocks : MAX_BLOCKS;
        size_t offset = row0 * width;
        if (step == NAIVE_ASTYPE)
            to_float_kernel<<<grid, THREADS_PER_BLOCK, 0, stream>>>(
                d_float + offset, d_in + offset, n);
        else if (step == NAIVE_DIVIDE)
            divide_kernel<<<grid, THREADS_PER_BLOCK, 0, stream>>>(
                d_float + offset, 255.0f, n);
        else
            flip_kernel<<<grid, THREADS_PER_BLOCK, 0, stream>>>(
                d_out + offset, d_float + offset, (unsigned)width, n);
        CUDA_CHECK(cudaGetLastError());
    }
}

void launch_naive_steps(float *d_out, float *d_float, const uint8_t *d_in,
                        size_t width, size_t height, cudaStream_t stream)
{
    for (int step = 0; step < NAIVE_STEPS; step++)
        launch_naive_step((naive_step)step, d_out, d_float, d_in, width,
                          height, stream);
}

/* x / 255.0f for a byte x, without a division. __fdiv_rn costs about 12
 * instructions and a branch per pixel, which made the fused kernel
 * instruction-bound on an H200. For x in 0..255 one multiply by r = 1/255
 * (rounded) and one fused multiply-add correction give the correctly
 * rounded quotient: the same bits as x / 255.0f for all 256 bytes (every
 * run checks the result exactly against the CPU's x / 255.0f, and the
 * built-in image holds every gray level). The byte becomes a float by
 * placing it in the low mantissa bits of 2^23 (one byte permute) and
 * subtracting 2^23, cheaper than an int-to-float conversion. */
__device__ __forceinline__ float byte_div255(unsigned word, unsigned k)
{
    const float r = __uint_as_float(0x3b808081u);  /* 1 / 255, rounded */
    float x = __fsub_rn(__uint_as_float(__byte_perm(word, 0x4b000000u,
                                                    0x7540u + k)),
                        8388608.0f);
    float q = __fmul_rn(x, r);
    return __fmaf_rn(__fmaf_rn(-q, 255.0f, x), r, q);
}

/* Bytes 3, 2, 1, 0 of a little-endian word (the flip), each / 255. */
__device__ __forceinline__ float4 flip_normalize4(unsigned word)
{
    return make_float4(byte_div255(word, 3), byte_div255(word, 2),
                       byte_div255(word, 1), byte_div255(word, 0));
}

/* 4 bytes from src: one 4-byte load when src allows it (widths that are
 * multiples of 4), else four 1-byte loads. */
__device__ __forceinline__ unsigned load4(const uint8_t *src)
{
    if (((uintptr_t)src & 3) == 0)
        return *(const unsigned *)src;
    return src[0] | src[1] << 8 | src[2] << 16 | (unsigned)src[3] << 24;
}

/* out[first .. first + 3] one float at a time, for a group that crosses
 * the end of a row (or of the image); row is where first's row starts. */
__device__ __forceinline__ void normalize_flip_each(
    float *out, const uint8_t *in, unsigned width, unsigned n,
    unsigned first, unsigned row)
{
    unsigned start = row, end = row + width;
    for (unsigned i = first; i < first + 4 && i < n; i++) {
        if (i == end) {  /* the next row begins */
            start = end;
            end += width;
        }
        unsigned byte = in[2 * start + width - 1 - i];
        __stcs(out + i, byte_div255(byte, 0));
    }
}

/* All three steps in one pass: each byte read once, each float written
 * once, 5 bytes per pixel instead of 21. Four bytes in five are writes,
 * so the kernel is shaped around its stores.
 *
 * Each warp writes one tile of 512 floats. Lane t takes float4 number t,
 * t + 32, t + 64 and t + 96 of the tile (4 pixels each), so each of the
 * warp's four store instructions writes 32 neighbouring float4s: one
 * contiguous 512-byte segment. (Giving each lane 16 neighbouring floats
 * looks tidier, but then one store instruction writes 32 pieces of 16
 * bytes 64 bytes apart; on an H200 that reached 34% of the device copy
 * rate where this layout reached 74% (73% in the run listed below), less
 * than half the speed.)
 * The source of 4 neighbouring pixels is 4 neighbouring bytes (the row
 * read backwards): one 4-byte load, 128 contiguous bytes per warp load.
 * All four loads are issued before the first store, so a lane waits for
 * memory once per tile. A group that crosses the end of a row (widths
 * that are not multiples of 4) is written one float at a time.
 *
 * What made it fast, measured on an H200 (% of the device copy rate):
 * the layout above with __fdiv_rn, 73%; the division above instead,
 * 82%; 32-bit index arithmetic and no division per pixel to find its
 * row, 85%; one tile per warp in blocks of 1024 threads, a grid that
 * covers the image (the GPU schedules blocks as others finish), 93%.
 * The stores are streaming (__stcs): nothing here reads the tensor again,
 * so L2 may evict it first. */
#define FUSED_THREADS 1024
#define TILE_FLOATS 512u
#define GROUPS 4

__global__ void __launch_bounds__(FUSED_THREADS)
normalize_flip_kernel(float *__restrict__ out,
                      const uint8_t *__restrict__ in, unsigned width,
                      unsigned n)
{
    unsigned lane = threadIdx.x % 32;
    unsigned warp = blockIdx.x * (FUSED_THREADS / 32) + threadIdx.x / 32;
    unsigned tile = warp * TILE_FLOATS;
    if (tile >= n)
        return;
    /* One division per warp. A tile is 512 floats, so when rows are at
     * least that wide, each pixel's row is the tile's first row or the
     * next one; narrower rows divide per group. */
    unsigned tile_row = tile / width * width;
    unsigned word[GROUPS], row[GROUPS];
    bool whole[GROUPS];
#pragma unroll
    for (int g = 0; g < GROUPS; g++) {
        /* Pixels first .. first + 3; in their row, out[i] is
         * in[mirror - i] with mirror = 2 * row + width - 1. */
        unsigned first = tile + 128u * g + 4u * lane;
        if (width >= TILE_FLOATS)
            row[g] = first - tile_row >= width ? tile_row + width
                                                : tile_row;
        else
            row[g] = first / width * width;
        whole[g] = first < n && first + 4 <= row[g] + width;
        if (whole[g])
            word[g] = load4(in + (2 * row[g] + width - 4 - first));
    }
#pragma unroll
    for (int g = 0; g < GROUPS; g++) {
        unsigned first = tile + 128u * g + 4u * lane;
        /* The word's last byte is the group's first pixel. */
        if (whole[g])
            __stcs((float4 *)(out + first), flip_normalize4(word[g]));
        else if (first < n)
            normalize_flip_each(out, in, width, n, first, row[g]);
    }
}

void launch_normalize_flip(float *d_out, const uint8_t *d_in, size_t width,
                           size_t height, cudaStream_t stream)
{
    if (width == 0 || height == 0)
        return;
    size_t rows_per_band = band_rows(width, "normalize_flip");
    for (size_t row0 = 0; row0 < height; row0 += rows_per_band) {
        size_t rows = height - row0 < rows_per_band ? height - row0
                                                    : rows_per_band;
        size_t n = rows * width;
        size_t tiles = (n + TILE_FLOATS - 1) / TILE_FLOATS;
        size_t blocks = (tiles + FUSED_THREADS / 32 - 1) /
                        (FUSED_THREADS / 32);
        normalize_flip_kernel<<<(unsigned)blocks, FUSED_THREADS, 0,
                                stream>>>(d_out + row0 * width,
                                          d_in + row0 * width,
                                          (unsigned)width, (unsigned)n);
        CUDA_CHECK(cudaGetLastError());
    }
}
