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
/* The fused kernel's unit of work: 16 neighbouring output floats (64
 * bytes, four 16-byte stores) made from 16 input bytes (one load). */
static const size_t CHUNK_PIXELS = 16;

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

/* 16 bytes from src, as widely as its alignment allows: one 16-byte load,
 * four 4-byte loads, or sixteen 1-byte loads. The cache lines fetched are
 * the same; wider loads take fewer instructions per byte. */
__device__ __forceinline__ uint4 load16(const uint8_t *src)
{
    if (((uintptr_t)src & 15) == 0)
        return *(const uint4 *)src;
    if (((uintptr_t)src & 3) == 0) {
        const unsigned *w = (const unsigned *)src;
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
    unsigned w[4];
    for (int k = 0; k < 4; k++)
        w[k] = src[4 * k] | src[4 * k + 1] << 8 | src[4 * k + 2] << 16 |
               (unsigned)src[4 * k + 3] << 24;
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* All three steps in one pass: each byte read once, each float written
 * once, 5 bytes per pixel instead of 21. Four bytes in five are writes,
 * so what matters is writing wide and keeping many bytes in flight.
 *
 * The output is cut into chunks of 16 floats, out[16c .. 16c + 15]: each
 * chunk is 64-byte aligned (cudaMalloc aligns to 256), so a thread writes
 * it with four 16-byte stores, and a warp writes 2 KB of neighbouring
 * memory. A chunk that lies in one row reads its 16 source bytes, which
 * are neighbours too (the row read backwards), with one wide load when
 * the width is a multiple of 16. A chunk that crosses the end of a row
 * (other widths, or rows narrower than 16) goes one float at a time.
 *
 * The grid holds only as many threads as the GPU runs at once; each
 * thread then steps through the chunks c, c + T, c + 2T, ... (T threads
 * in all). Where a chunk's row starts is kept up to date as it steps, so
 * the loop needs no division (a 64-bit one costs dozens of instructions).
 *
 * The stores are streaming (__stcs, "cache streaming"): the tensor is
 * not read again by this kernel, so L2 may evict its lines first instead
 * of keeping them at the expense of data that is still wanted. */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
normalize_flip_kernel(float *__restrict__ out,
                      const uint8_t *__restrict__ in, size_t width,
                      size_t height)
{
    size_t n = width * height;
    size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) *
                   CHUNK_PIXELS;
    size_t step = (size_t)gridDim.x * blockDim.x * CHUNK_PIXELS;
    size_t row = first / width * width;        /* start of first's row */
    size_t row_step = step - step % width;     /* whole rows in a step */
    for (; first < n; first += step) {
        /* Within this row, out[i] = in[mirror - i]. */
        size_t mirror = 2 * row + width - 1;
        if (first + CHUNK_PIXELS <= row + width) {
            /* The source: in[mirror - first - 15 .. mirror - first]. Its
             * last byte is the chunk's first float, so the words go out
             * in reverse order, each with its bytes reversed. */
            uint4 v = load16(in + (mirror - first - (CHUNK_PIXELS - 1)));
            float4 *dst = (float4 *)(out + first);
            __stcs(dst + 0, flip_normalize4(v.w));
            __stcs(dst + 1, flip_normalize4(v.z));
            __stcs(dst + 2, flip_normalize4(v.y));
            __stcs(dst + 3, flip_normalize4(v.x));
        } else {
            size_t start = row, end = row + width;
            for (size_t i = first; i < first + CHUNK_PIXELS && i < n;
                 i++) {
                if (i == end) {  /* the next row begins */
                    start = end;
                    end += width;
                }
                float x = (float)in[2 * start + width - 1 - i];
                __stcs(out + i, __fdiv_rn(x, 255.0f));
            }
        }
        /* The next chunk, step floats on, is row_step further, or one
         * row more if what is left of step passes the end of the row. */
        row += row_step;
        if (first + step - row >= width)
            row += width;
    }
}

void launch_normalize_flip(float *d_out, const uint8_t *d_in, size_t width,
                           size_t height, cudaStream_t stream)
{
    /* Enough threads for every chunk, but no more blocks than the GPU
     * keeps resident at once (SMs x blocks per SM). That number depends
     * only on the GPU and the kernel, so it is asked once per device: the
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
    size_t chunks = (width * height + CHUNK_PIXELS - 1) / CHUNK_PIXELS;
    size_t blocks = (chunks + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    if (blocks > resident_blocks)
        blocks = resident_blocks;
    if (blocks == 0)
        return;
    normalize_flip_kernel<<<(unsigned)blocks, THREADS_PER_BLOCK, 0,
                            stream>>>(d_out, d_in, width, height);
    CUDA_CHECK(cudaGetLastError());
}
