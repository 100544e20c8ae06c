/* 07_bandwidth/exercise.cu - lines marked FIXME 1 to FIXME 3 break the
 * lesson. Make it print PASS: the "pinned" line must copy from page-locked
 * memory, and every copy must move all its bytes to their place. Before you
 * fix it, note the pinned line's GB/s; after, compare: why did it change?
 *   nvcc -O2 -o exercise exercise.cu
 *   ./exercise
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
static const size_t N = 10000 * 10000;     /* x_np's elements: 800 MB */
static const size_t ARRAYS = 1000, ARRAY_ELEMS = 1024;   /* 8 KiB each */
static char g_failure[160];                /* the first failed check */
#define FAIL_ONCE(...) \
    (void)(g_failure[0] || snprintf(g_failure, sizeof g_failure, __VA_ARGS__))

/* Copies n doubles at d_src back into h_back, first filled with 0xFF bytes
   (a NaN: a copy that never happened cannot pass), compares with h_want,
   and fills d_src with 0xFF too: the next copy must overwrite all of it. */
static void check_copy(const char *what, double *d_src,
                       const double *h_want, double *h_back, size_t n)
{
    memset(h_back, 0xFF, n * sizeof(double));
    CUDA_CHECK(cudaMemcpy(h_back, d_src, n * sizeof(double),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(d_src, 0xFF, n * sizeof(double)));
    size_t i = 0;
    while (i < n && h_back[i] == h_want[i])
        i++;
    if (i < n)
        FAIL_ONCE("%s, element %zu: got %g, expected %g", what, i,
                  h_back[i], h_want[i]);
    else
        printf("check %s: %zu elements identical ok\n", what, n);
}

/* Copies `pieces` pieces of `elems` doubles, piece i to d_dst + i * elems:
   a warm-up, then one run timed by CUDA events (the lab takes medians). */
static void time_h2d(const char *what, double *d_dst, const double *h_src,
                     size_t pieces, size_t elems)
{
    size_t bytes = pieces * elems * sizeof(double);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float ms = 0;
    for (int run = 0; run < 2; run++) {
        CUDA_CHECK(cudaMemset(d_dst, 0xFF, bytes));   /* poison, as above */
        CUDA_CHECK(cudaEventRecord(start, 0));
        /* This returns at once from pinned memory, from pageable memory once
           the CPU has staged the bytes: the GPU may still be copying. */
        for (size_t i = 0; i < pieces; i++)
            CUDA_CHECK(cudaMemcpyAsync(d_dst, h_src + i * elems, /* FIXME 1 */
                                       elems * sizeof(double),
                                       cudaMemcpyHostToDevice, 0));
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));   /* so we wait for it */
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    printf("%-36s %8.3f ms %6.2f GB/s", what, ms, bytes / (ms * 1e6));
    printf(pieces * elems == ARRAYS * ARRAY_ELEMS       /* the small arrays */
           ? ", %.2f us per array\n" : "\n", ms * 1e3 / ARRAYS);
}

int main(int argc, char **argv)
{
    if (argc > 1) {                      /* this lesson takes no argument */
        fprintf(stderr, "usage: %s (no arguments)\n", argv[0]);
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
    /* x_np in pageable memory, holding i at [i]: every check is exact.
       Filling it makes the OS hand over its pages now, not in a timing. */
    size_t bytes = N * sizeof(double), small = ARRAYS * ARRAY_ELEMS;
    double *h_x = (double *)malloc(bytes), *h_back = (double *)malloc(bytes);
    if (!h_x || !h_back) {
        printf("FAIL: malloc of 2 x %zu bytes, got NULL\n", bytes);
        return 1;
    }
    for (size_t i = 0; i < N; i++)
        h_x[i] = (double)i;
    /* The tutorial's number: the host clock around cudaMalloc and the copy,
       so with making the context, not loading the driver (done above). */
    double *d_x, *h_pinned;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CUDA_CHECK(cudaMalloc((void **)&d_x, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());   /* it may return before the end */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("x_np: %zu bytes; GB/s = 1e9 bytes/s\n%-36s %8.3f ms %6.2f GB/s\n",
           bytes, "first call incl. context, host clock", ms, bytes / ms / 1e6);
    check_copy("first call", d_x, h_x, h_back, N);
    time_h2d("pageable (malloc), events", d_x, h_x, 1, N);   /* the right way */
    check_copy("pageable H2D", d_x, h_x, h_back, N);
    /* Pinned (page-locked) memory: the copy engine reads it directly, with
       no staging copy by the CPU. Pinning is slow: pin once, reuse. */
    h_pinned = (double *)malloc(bytes);   /* FIXME 2: is this pinned? */
    struct cudaPointerAttributes attr;     /* does the driver agree? */
    CUDA_CHECK(cudaPointerGetAttributes(&attr, h_pinned));
    if (attr.type != cudaMemoryTypeHost)   /* malloc's: ...Unregistered */
        FAIL_ONCE("h_pinned's memory type, got %s, expected %s", attr.type ==
                  cudaMemoryTypeUnregistered ? "cudaMemoryTypeUnregistered"
                  : "not host memory", "cudaMemoryTypeHost (page-locked)");
    memcpy(h_pinned, h_x, bytes);
    time_h2d("pinned (page-locked), events", d_x, h_pinned, 1, N);
    check_copy("pinned H2D", d_x, h_x, h_back, N);
    /* [cp.asarray(a) for a in arrays], 1000 arrays of 8 KiB from malloc
       memory, against the same bytes packed in pinned memory: a fixed
       cost per copy, and pageable bytes staged by the CPU (the lab's
       part 3 times the two apart; packing costs the CPU a copy too). */
    time_h2d("1000 x 8 KiB, one copy each", d_x, h_x, ARRAYS, ARRAY_ELEMS);
    check_copy("one copy each", d_x, h_x, h_back, small);
    time_h2d("1000 x 8 KiB packed in pinned memory", d_x, h_pinned, 1,
             ARRAY_ELEMS);   /* FIXME 3: how many elements are packed? */
    check_copy("packed copy", d_x, h_x, h_back, small);
    CUDA_CHECK(cudaFree(d_x));
    if (attr.type == cudaMemoryTypeHost)  /* back the way it came: pinned */
        CUDA_CHECK(cudaFreeHost(h_pinned));  /* memory is not free()'s */
    else
        free(h_pinned);
    free(h_x);
    free(h_back);
    printf(g_failure[0] ? "FAIL: %s\n" : "PASS\n", g_failure);
    return g_failure[0] ? 1 : 0;
}
