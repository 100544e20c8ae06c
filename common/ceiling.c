/* ceiling.c - measured copy-bandwidth ceilings. */
#include "ceiling.h"
#include "alloc.h"
#include "check.h"
#include "timing.h"
#include "units.h"

#include <string.h>

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind kind;
    cudaStream_t stream;
} copy_job;

static void copy_region(void *ctx)
{
    copy_job *j = ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, j->kind,
                               j->stream));
}

double cm_measure_device_copy_gbps(size_t bytes, int warmup, int repeat)
{
    void *d_a, *d_b;
    cm_require_device_bytes(2 * bytes, "the device-copy ceiling test");
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMemset(d_a, 1, bytes));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    copy_job j = {d_b, d_a, bytes, cudaMemcpyDeviceToDevice, stream};
    cm_stats s = cm_time_events(copy_region, &j, stream, warmup, repeat);
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    return cm_gbps(2.0 * (double)bytes, s.median_ms);
}

double cm_measure_pinned_gbps(size_t bytes, enum cudaMemcpyKind kind,
                              int warmup, int repeat)
{
    void *h_buf, *d_buf;
    cm_require_device_bytes(bytes, "the pinned-copy ceiling test");
    CUDA_CHECK(cudaMallocHost(&h_buf, bytes));
    CUDA_CHECK(cudaMalloc(&d_buf, bytes));
    memset(h_buf, 1, bytes);
    CUDA_CHECK(cudaMemset(d_buf, 1, bytes));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    copy_job j = {d_buf, h_buf, bytes, kind, stream};
    if (kind == cudaMemcpyDeviceToHost) {
        j.dst = h_buf;
        j.src = d_buf;
    }
    cm_stats s = cm_time_events(copy_region, &j, stream, warmup, repeat);
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFreeHost(h_buf));
    return cm_gbps((double)bytes, s.median_ms);
}
