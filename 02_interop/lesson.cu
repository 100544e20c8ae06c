/* 02_interop/lesson.cu - cp.asarray and cp.asnumpy are an allocation and a
 * copy each way. Tutorial 2.24.1.2.3, at the size its 2.24.5 times:
 *     x_np = np.random.rand(10000, 10000)  # float64, 800 MB
 *     x_cp = cp.asarray(x_np)              # NumPy -> CuPy: host to GPU
 *     x_np_from_cp = cp.asnumpy(x_cp)      # CuPy -> NumPy: GPU to host
 *   nvcc -O2 -o lesson lesson.cu
 *   ./lesson          (./lesson N: an N x N array instead, N <= 40000)
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

/* np.random.rand's stand-in: splitmix64, top 53 bits as a double in
   [0, 1). Every mantissa bit varies, so "bit for bit" means something. */
static double next_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0; /* 2^53 */
}

/* 800 MB twice may be more than the host has: say so and stop. */
static double *host_alloc(size_t bytes, const char *what)
{
    double *h_p = (double *)malloc(bytes);
    if (h_p == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes of host memory for %s; "
                "try a smaller N, e.g. ./lesson 4000\n", bytes, what);
        exit(1);
    }
    return h_p;
}

/* A round trip must not change a single bit: memcmp, not == (which calls
   -0.0 equal to 0.0, and NaN unequal to itself). Prints a check line; the
   first mismatch of the run becomes the FAIL line in verdict. */
static void check_trip(const char *what, const double *h_back,
                       const double *h_src, size_t n, char *verdict)
{
    size_t i = n;
    if (memcmp(h_back, h_src, n * sizeof *h_src) != 0)
        for (i = 0; memcmp(&h_back[i], &h_src[i], sizeof *h_src) == 0; i++)
            continue;
    printf("check %s: %s\n", what, i == n ? "identical, bit for bit" : "NO");
    if (i < n && verdict[0] == '\0')
        snprintf(verdict, 256, "FAIL: %s, element %zu: got %.17g, expected "
                 "%.17g (bit for bit)", what, i, h_back[i], h_src[i]);
}

/* One copy timed with CUDA events on the default stream. The GPU stamps
   `stop` only when the copy is done, even if cudaMemcpy returned earlier
   (from pageable memory to the device it may return before the data has
   arrived); cudaEventSynchronize waits for that stamp. */
static float time_copy(void *dst, const void *src, size_t bytes,
                       cudaMemcpyKind kind)
{
    cudaEvent_t start, stop;
    float ms = 0;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    size_t side = argc == 2 ? (size_t)strtoull(argv[1], &end, 10) : 10000;
    if (argc > 2 || (end && *end) || side == 0 || side > 40000) {
        fprintf(stderr, "usage: %s [N] with 1 <= N <= 40000\n", argv[0]);
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

    /* x_np = np.random.rand(N, N): ordinary (pageable) host memory. */
    size_t count = side * side, bytes = count * sizeof(double);
    double *h_src = host_alloc(bytes, "x_np");
    double *h_back = host_alloc(bytes, "x_np_from_cp");
    uint64_t state = 2024;
    for (size_t i = 0; i < count; i++)
        h_src[i] = next_uniform(&state);
    printf("x_np: %zu x %zu float64, %zu bytes\n", side, side, bytes);

    /* x_cp = cp.asarray(x_np): device memory of the same size, copy in;
       x_np_from_cp = cp.asnumpy(x_cp): host memory (h_back), copy out.
       CuPy itself (cupy/_core/core.pyx) does more: cp.asarray of a pageable
       NumPy array copies it on the CPU into a buffer from CuPy's pinned
       memory pool (cudaHostAlloc when none is free), then starts
       cudaMemcpyAsync into memory from CuPy's device pool (chapter 04) and
       returns without waiting; cp.asnumpy copies into a new NumPy array
       with cudaMemcpyAsync and waits. A host clock around cp.asarray times
       a CPU copy, not the transfer. Our cudaMemcpy from pageable memory
       leaves the staging through pinned memory to the driver. */
    double *d_x = NULL;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_src, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(h_back, d_x, bytes, cudaMemcpyDeviceToHost));
    char verdict[256] = "";
    check_trip("asnumpy(asarray(x_np)) == x_np", h_back, h_src, count,
               verdict);

    /* Those copies were the warm-up: the copy back also paid for the first
       touch of h_back (the OS maps a page only when it is first written).
       Now one timed copy each way, into a wiped h_back so that the timed
       trip is checked too. GB/s: 10^9 bytes per second. */
    memset(h_back, 0, bytes);
    float h2d_ms = time_copy(d_x, h_src, bytes, cudaMemcpyHostToDevice);
    float d2h_ms = time_copy(h_back, d_x, bytes, cudaMemcpyDeviceToHost);
    printf("asarray: cudaMemcpy host -> device %9.3f ms %7.2f GB/s\n",
           h2d_ms, bytes / (h2d_ms * 1e6));
    printf("asnumpy: cudaMemcpy device -> host %9.3f ms %7.2f GB/s\n",
           d2h_ms, bytes / (d2h_ms * 1e6));
    check_trip("timed round trip", h_back, h_src, count, verdict);

    printf("%s\n", verdict[0] ? verdict : "PASS");
    CUDA_CHECK(cudaFree(d_x));
    free(h_src);
    free(h_back);
    return verdict[0] != '\0';
}
