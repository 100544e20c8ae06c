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
static int64_t h_r[ARANGE_N];               /* 8 MB: too big for the stack */

/* cp.arange: a kernel runs once per thread, and k<<<blocks, threads>>>()
   starts `blocks` blocks of `threads` threads. A thread finds its place
   from blockIdx.x (its block), blockDim.x (threads per block) and
   threadIdx.x (its place in its block). A grid-stride loop then takes
   elements first, first + stride, ..., stride being the grid's thread
   count: any grid covers any n; `i < n` stops threads past the end. */
__global__ void arange_kernel(int64_t *d_out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < n; i += stride)
        d_out[i] = (int64_t)i;
}

/* print() of a 1-D int64 host array as NumPy prints it: padded to the
   widest number shown, and above 1000 elements 3 at each end around "...".
   (NumPy also wraps lines at 75 columns; ours fit on one line.) */
static void print_int64(const int64_t *h_a, size_t n)
{
    size_t head = n > 1000 ? 3 : n;        /* shown: [0, head) */
    size_t tail = n > 1000 ? n - 3 : n;    /* and [tail, n) */
    int width = 1;
    for (size_t i = 0; i < n; i = i + 1 == head ? tail : i + 1) {
        int w = snprintf(NULL, 0, "%lld", (long long)h_a[i]);
        width = w > width ? w : width;
    }
    printf("[");
    for (size_t i = 0; i < n; i = i + 1 == head ? tail : i + 1)
        printf("%s%*lld", i == 0 ? "" : i == tail ? " ... " : " ", width,
               (long long)h_a[i]);
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
       d_x is a GPU address the CPU must never dereference (on a PCIe GPU,
       a segmentation fault); dtype, shape and nbytes live on the host. So
       print(x), as in CuPy, copies the array back and prints the copy. */
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
       nothing, cudaGetLastError() just after it returns the error and
       clears it, and the GPU stays usable (the launch below works): so we
       check it after every launch. compute-sanitizer reports API errors
       even when caught, so this one runs only under --bad-launch. */
    CUDA_CHECK(cudaMalloc(&d_r, sizeof h_r));
    if (bad_launch) {
        arange_kernel<<<1, 2048>>>(d_r, ARANGE_N);
        cudaError_t first = cudaGetLastError(), again = cudaGetLastError();
        printf("bad launch <<<1, 2048>>>: cudaGetLastError() = %s, then %s\n",
               cudaGetErrorName(first), cudaGetErrorName(again));
    }

    /* How many blocks? One per 256 elements would do, but an SM holds only
       a few blocks at once and the rest wait for a slot. We launch what
       fits at once (one full wave) and let the loop give each thread
       several elements: our choice, not a limit (gridDim.x < 2^31). */
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
       reported by a later call, at the latest the next one that waits for
       the GPU, like this one; it is sticky: every call after fails too. (A
       write just past the end may not fault; compute-sanitizer finds it.) */
    CUDA_CHECK(cudaMemcpy(h_r, d_r, sizeof h_r, cudaMemcpyDeviceToHost));
    print_int64(h_r, ARANGE_N);

    /* Both checked exactly on the CPU: integers have no rounding. */
    size_t i = 0, j = 0;
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
