/* 01_array_basics/lesson.cu - a CuPy array is GPU memory plus a little
 * description (tutorial 2.24.1.2.2), then the course's first kernel:
 *     x = cp.array([1, 2, 3, 4])
 *     print(x)                       # [1 2 3 4]
 *     r = cp.arange(1000003)         # our own kernel, checked on the CPU
 *   nvcc -O2 -o lesson lesson.cu
 *   ./lesson
 *   ./lesson --bad-launch     (also makes one bad launch and catches it)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

/* Every CUDA call returns a status; we stop at the first failure and say
   which call failed, where, and why. Never compiled out. */
#define CUDA_CHECK(call)                                                  \
    do {                                                                  \
        cudaError_t err_ = (call);                                        \
        if (err_ != cudaSuccess) {                                        \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__,       \
                    __LINE__, #call, cudaGetErrorName(err_),              \
                    cudaGetErrorString(err_));                            \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

#define ARANGE_N 1000003                    /* not a multiple of 256 */
static const int THREADS_PER_BLOCK = 256;
static int64_t h_r[ARANGE_N];         /* 8 MB: about a whole default stack */

/* cp.arange: k<<<blocks, threads>>>() runs k in `blocks` blocks of
   `threads` threads. Each finds its place from blockIdx.x (its block),
   blockDim.x (threads per block) and threadIdx.x (its place in the block)
   and takes elements first, first + stride, ... (stride: the grid's
   thread count): any grid covers any n, and `i < n` stops the rest. */
__global__ void arange_kernel(int64_t *d_out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < n; i += stride)
        d_out[i] = (int64_t)i;
}

/* print() of a 1-D int64 host array as NumPy prints it: padded to the
   widest number shown; above 1000 elements only the first 3 and the last
   3, with "..." between. (NumPy wraps lines at 75 columns; ours fit.) */
static size_t next_shown(size_t i, size_t n)    /* the index after i */
{
    return n > 1000 && i == 2 ? n - 3 : i + 1;  /* 2 -> n - 3: a jump */
}
static void print_int64(const int64_t *h_a, size_t n)
{
    int width = 1;
    for (size_t i = 0; i < n; i = next_shown(i, n)) {
        int w = snprintf(NULL, 0, "%lld", (long long)h_a[i]);
        width = w > width ? w : width;
    }
    printf("[");
    for (size_t i = 0; i < n; i = next_shown(i, n)) {
        if (i > 0)            /* " ... " where the loop jumped, else " " */
            fputs(n > 1000 && i == n - 3 ? " ... " : " ", stdout);
        printf("%*lld", width, (long long)h_a[i]);
    }
    printf("]\n");
}

int main(int argc, char **argv)
{
    int bad_launch = argc == 2 && strcmp(argv[1], "--bad-launch") == 0;
    if (argc > 2 || (argc == 2 && !bad_launch)) {
        fprintf(stderr, "usage: %s [--bad-launch]\n", argv[0]);
        return 2;
    }
    int device_count = 0, driver_version = 0;
    cudaError_t count_err = cudaGetDeviceCount(&device_count);
    if (count_err != cudaSuccess || device_count == 0) { /* exit 77: skip */
        (void)cudaDriverGetVersion(&driver_version);  /* 0: no driver */
        fprintf(stderr, "no usable CUDA device: %s\n", driver_version == 0
                ? "no NVIDIA driver or GPU found" : count_err != cudaSuccess
                ? cudaGetErrorString(count_err) : "none found");
        return 77;
    }

    /* x = cp.array([1, 2, 3, 4]): int64, NumPy's default for Python ints.
       d_x is a GPU address the CPU must never dereference; dtype, shape and
       nbytes live on the host. print(x) copies x back first, as CuPy does. */
    const int64_t h_x[4] = {1, 2, 3, 4};
    int64_t *d_x = NULL, *d_r = NULL, h_back[4];
    CUDA_CHECK(cudaMalloc(&d_x, sizeof h_x));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice));
    printf("x = cp.array([1, 2, 3, 4]): int64, shape (4,), %zu bytes at "
           "device address %p\nprint(x)\n", sizeof h_x, (void *)d_x);
    CUDA_CHECK(cudaMemcpy(h_back, d_x, sizeof h_x, cudaMemcpyDeviceToHost));
    print_int64(h_back, 4);
    CUDA_CHECK(cudaFree(d_x));

    /* Errors show up in two places. A bad launch configuration (2048
       threads per block; the limit is 1024) never starts: <<<>>> returns
       nothing; cudaGetLastError() just after it returns the error (not
       named the same on every CUDA setup: see the README) and
       clears it; the GPU stays usable. So we check after every launch.
       (compute-sanitizer reports even a caught error: hence the flag.) */
    CUDA_CHECK(cudaMalloc(&d_r, sizeof h_r));
    if (bad_launch) {
        arange_kernel<<<1, 2048>>>(d_r, ARANGE_N);
        cudaError_t first = cudaGetLastError(), again = cudaGetLastError();
        printf("bad launch <<<1, 2048>>>: cudaGetLastError() = %s, then %s\n",
               cudaGetErrorName(first), cudaGetErrorName(again));
    }

    /* How many blocks? One per 256 elements would do, but an SM holds only
       a few at once and the rest wait. We launch one full wave and let the
       loop give each thread several elements (a choice: gridDim.x < 2^31). */
    int sm_count = 0, blocks_per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_count,
                                      cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, arange_kernel, THREADS_PER_BLOCK, 0));
    size_t needed = (ARANGE_N + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK,
           wave = (size_t)sm_count * (size_t)blocks_per_sm;
    int blocks = (int)(needed < wave ? needed : wave);
    arange_kernel<<<blocks, THREADS_PER_BLOCK>>>(d_r, ARANGE_N);
    CUDA_CHECK(cudaGetLastError());
    printf("r = cp.arange(%d): %d blocks (%d SMs x %d) x %d threads\n",
           ARANGE_N, blocks, sm_count, blocks_per_sm, THREADS_PER_BLOCK);

    /* A fault inside a running kernel (a write through a bad pointer) is
       reported by a later call, at the latest one that waits for the GPU,
       like this one, and every call after fails too. (A write just past
       the end may not fault at all; compute-sanitizer finds it.) */
    CUDA_CHECK(cudaMemcpy(h_r, d_r, sizeof h_r, cudaMemcpyDeviceToHost));
    print_int64(h_r, ARANGE_N);

    size_t i = 0, j = 0;    /* checked exactly: integers do not round */
    while (i < 4 && h_back[i] == h_x[i])
        i++;
    while (j < ARANGE_N && h_r[j] == (int64_t)j)
        j++;
    if (i < 4)
        printf("FAIL: x[%zu] came back as %lld, expected %lld\n", i,
               (long long)h_back[i], (long long)h_x[i]);
    else if (j < ARANGE_N)
        printf("FAIL: r[%zu] = %lld, expected %zu\n", j, (long long)h_r[j], j);
    else
        printf("PASS\n");
    CUDA_CHECK(cudaFree(d_r));
    return i < 4 || j < ARANGE_N;
}
