/* example.cu - the batch tool's library (imgbatch.h) in a program of its
 * own: a folder of images into 64 x 64 gray float32 batches on the GPU,
 * one kernel on each batch (each image's mean, where a training step
 * would go), checked on the CPU from the same batch copied back.
 *
 * Build: make imgbatch_example     (-> build/bin/imgbatch_example)
 * Run:   build/bin/imgbatch_example FOLDER
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "imgbatch.h"

#define CHECK(call)                                                       \
    do {                                                                  \
        cudaError_t err_ = (call);                                        \
        if (err_ != cudaSuccess) {                                        \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, \
                    #call, cudaGetErrorString(err_));                     \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

/* One block of 256 threads per image: its mean, summed in shared memory. */
__global__ void image_means(const float *images, size_t pixels,
                            float *means)
{
    __shared__ float part[256];
    const float *image = images + blockIdx.x * pixels;
    float sum = 0;
    for (size_t i = threadIdx.x; i < pixels; i += blockDim.x)
        sum += image[i];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        means[blockIdx.x] = part[0] / (float)pixels;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
        return 2;
    }
    imgbatch_options o;
    imgbatch_defaults(&o);  /* gray, float32, x / 255 */
    o.folder = argv[1];
    o.resize_width = o.resize_height = 64;
    o.copy_to_host = 1;     /* each batch back too, for the check */
    imgbatch *b;
    imgbatch_status st = imgbatch_open(&b, &o);
    if (st != IMGBATCH_OK) {
        fprintf(stderr, "imgbatch_example: %s\n", imgbatch_failure_reason());
        return st == IMGBATCH_ERR_NO_DEVICE ? 77
               : st == IMGBATCH_ERR_OPTIONS ? 2 : 1;
    }
    imgbatch_info info;
    imgbatch_get_info(b, &info);
    size_t pixels = info.height * info.width, images = 0;
    float *d_means;
    float *h_means = (float *)malloc(info.batch_images * sizeof(float));
    CHECK(cudaMalloc(&d_means, info.batch_images * sizeof(float)));
    double worst = 0;
    imgbatch_batch x;
    int rc;
    while ((rc = imgbatch_next(b, &x)) == 1) {
        if (x.count == 0)  /* every file of the batch skipped */
            continue;
        /* On the batch's stream: after its decode and kernel. */
        image_means<<<(unsigned)x.count, 256, 0, x.stream>>>(
            (const float *)x.data, pixels, d_means);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_means, d_means, x.count * sizeof(float),
                              cudaMemcpyDeviceToHost, x.stream));
        CHECK(cudaStreamSynchronize(x.stream));  /* means and x.host */
        const float *host = (const float *)x.host;
        for (size_t i = 0; i < x.count; i++) {
            double sum = 0;
            for (size_t k = 0; k < pixels; k++)
                sum += host[i * pixels + k];
            double diff = fabs(h_means[i] - sum / (double)pixels);
            worst = diff > worst ? diff : worst;
        }
        images += x.count;
    }
    if (rc < 0)
        fprintf(stderr, "imgbatch_example: %s\n", imgbatch_failure_reason());
    CHECK(cudaFree(d_means));
    free(h_means);
    imgbatch_close(b);
    /* float sums of at most 4096 values in [0, 1], in a tree: far within
     * 1e-5 of the exact mean. */
    printf("%zu images of %zu x %zu: each one's mean on the GPU, largest "
           "difference from the CPU's %.2e\n", images, info.width,
           info.height, worst);
    if (rc < 0 || images == 0 || worst > 1e-5) {
        printf("FAIL: largest difference %.2e (tolerance 1e-5), %zu "
               "images%s\n", worst, images, rc < 0 ? ", stopped" : "");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
