/* 02_interop/exercise.cu - the lesson with four steps left to you, on
 * lines marked FIXME 1 to 4, one line each. Goal: PASS, as lesson.cu
 * prints: every round trip bit for bit, pageable and pinned. The comment
 * at each FIXME says what the step is for; the CUDA Runtime API reference
 * (Memory Management) has the calls. Try it before you open lesson.cu.
 *   nvcc -O2 -o exercise exercise.cu
 *   ./exercise        (./exercise 2000: a smaller array while you try)
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

/* A round trip must not change a bit: memcmp, not == (-0.0 == 0.0, NaN !=
   NaN). Prints a check line; the run's first mismatch becomes verdict. */
static void check_trip(const char *what, const double *h_back,
                       const double *h_src, size_t n, char *verdict)
{
    size_t i = 0;
    while (i < n && memcmp(&h_back[i], &h_src[i], sizeof *h_src) == 0)
        i++;
    printf("check %s: %s\n", what, i == n ? "identical, bit for bit" : "NO");
    if (i < n && verdict[0] == '\0')
        snprintf(verdict, 256, "FAIL: %s, element %zu: got %.17g, expected "
                 "%.17g (bit for bit)", what, i, h_back[i], h_src[i]);
}

/* One copy on stream 0 between two events, in ms. cudaMemcpyAsync returns
   at once from pinned memory (from pageable, maybe early); the GPU stamps
   `stop` when the copy is done, and cudaEventSynchronize waits for it. */
static float time_copy(void *dst, const void *src, size_t bytes,
                       cudaMemcpyKind kind)
{
    cudaEvent_t start, stop;
    float ms = 0;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, 0));
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

/* A round trip h_from -> d_x -> h_to, each copy timed once (GB/s: 10^9
   bytes/s), h_to wiped after the copy in (it may be h_from), then checked. */
static void timed_trip(const char *what, double *d_x, const double *h_from,
                       double *h_to, const double *h_src, size_t count,
                       char *verdict)
{
    size_t bytes = count * sizeof(double);
    CUDA_CHECK(cudaMemset(d_x, 0, bytes));
    float in_ms = time_copy(d_x, h_from, bytes, cudaMemcpyHostToDevice);
    memset(h_to, 0, bytes);
    float out_ms = time_copy(h_to, d_x, bytes, cudaMemcpyDeviceToHost);
    printf("%s: to GPU %8.3f ms %6.2f GB/s, back %8.3f ms %6.2f GB/s\n",
           what, in_ms, bytes / (in_ms * 1e6), out_ms, bytes / (out_ms * 1e6));
    check_trip(what, h_to, h_src, count, verdict);
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

    /* 3 N x N arrays: x_np, the result, a pinned copy. Linux's malloc
       promises memory it may not have (the OOM killer ends us when pages
       are touched): we first read MemAvailable (not a container's limit). */
    size_t count = side * side, bytes = count * sizeof(double);
    unsigned long long avail_kb = ~0ULL >> 10;    /* no /proc: no limit */
    char line[256];
    FILE *meminfo = fopen("/proc/meminfo", "r");
    while (meminfo && fgets(line, sizeof line, meminfo) &&
           sscanf(line, "MemAvailable: %llu", &avail_kb) != 1)
        continue;
    if (meminfo)
        fclose(meminfo);
    double *h_src = (double *)malloc(bytes), *h_back = (double *)malloc(bytes);
    if (!h_src || !h_back || 3 * bytes / 1024 > avail_kb) {
        fprintf(stderr, "host memory: need 3 x %zu bytes, %llu kB available;"
                " try a smaller N (./lesson 4000)\n", bytes, avail_kb);
        return 1;
    }
    uint64_t state = 2024;  /* an LCG, not NumPy's MT19937: 53 bits, [0, 1) */
    for (size_t i = 0; i < count; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        h_src[i] = (double)(state >> 11) / 9007199254740992.0;     /* 2^53 */
    }
    printf("x_np: %zu x %zu float64, %zu bytes\n", side, side, bytes);

    /* x_cp = cp.asarray(x_np): device memory, copy in; x_np_from_cp =
       cp.asnumpy(x_cp): host memory (h_back), copy out; from pageable memory
       through the driver's own pinned buffers. It warms up h_back too. */
    double *d_x = NULL, *h_pinned = NULL;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMemset(d_x, 0, bytes));  /* FIXME 1: cp.asarray's copy */
    memset(h_back, 0, bytes);              /* FIXME 2: cp.asnumpy's copy */
    char verdict[256] = "";
    check_trip("asnumpy(asarray(x_np)) == x_np", h_back, h_src, count,
               verdict);
    timed_trip("pageable trip", d_x, h_src, h_back, h_src, count, verdict);

    /* cp.asarray copies x_np on the CPU into pinned (page-locked) memory of
       its pool, then queues cudaMemcpyAsync: the copy engines read it. */
    h_pinned = (double *)malloc(bytes);   /* FIXME 3: page-locked memory */
    struct cudaPointerAttributes attr;   /* how to tell pinned memory */
    CUDA_CHECK(cudaPointerGetAttributes(&attr, h_pinned));
    if (attr.type != cudaMemoryTypeHost && verdict[0] == '\0')
        snprintf(verdict, 256, "FAIL: h_pinned is not page-locked memory");
    memset(h_pinned, 0, bytes);    /* FIXME 4: cp.asarray's CPU copy */
    timed_trip("pinned trip", d_x, h_pinned, h_pinned, h_src, count, verdict);
    printf("%s\n", verdict[0] ? verdict : "PASS");
    if (attr.type == cudaMemoryTypeHost)  /* back the way it came: pinned */
        CUDA_CHECK(cudaFreeHost(h_pinned));  /* memory is not free()'s */
    else
        free(h_pinned);
    CUDA_CHECK(cudaFree(d_x));
    free(h_src);
    free(h_back);
    return verdict[0] != '\0';
}
