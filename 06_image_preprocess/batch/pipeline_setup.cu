/* pipeline_setup.cu - the pipeline's buffers (pipeline.h), allocated
 * once before the first batch and freed after the last: the batch
 * buffers in turn, the CUDA streams, the check's rows and the readers'
 * counts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "units.h"

#include "pipeline.h"

void pipeline_start(batch_run *r)
{
    const batch_source *src = r->src;
    r->pixels = cm_mul_size(src->width, src->height, "an image");
    r->n_images = src->list->count;
    r->n_bufs = r->b->streams + 1 + PIPELINE_LOOKAHEAD;
    int back = !r->b->keep_on_gpu && !r->b->bare_decode;
    size_t batch_pixels = cm_mul_size(r->max_batch, r->pixels, "a batch");
    size_t tensor_bytes = cm_mul_size(batch_pixels, sizeof(float),
                                      "a batch's tensor");
    r->n_sample_rows = src->height < SAMPLE_ROWS ? src->height : SAMPLE_ROWS;
    for (size_t k = 0; k < r->n_sample_rows; k++)
        r->sample_y[k] = r->n_sample_rows == 1 ? 0
                         : k * (src->height - 1) / (r->n_sample_rows - 1);
    /* The largest run of max_batch consecutive files sizes the pinned
     * buffers for files. */
    size_t bits_bytes = 1;
    for (size_t first = 0; first < r->n_images; first += r->max_batch) {
        size_t sum = 0;
        for (size_t i = first; i < first + r->max_batch && i < r->n_images;
             i++)
            sum += r->bytes[i];
        bits_bytes = sum > bits_bytes ? sum : bits_bytes;
    }
    size_t samples_bytes = r->n_images * r->n_sample_rows * src->width *
                           sizeof(float);
    size_t n = (size_t)r->n_bufs;
    cm_require_host_bytes(n * (bits_bytes + batch_pixels +
                               (back ? tensor_bytes : 0)) + samples_bytes,
                          "the pinned batch buffers");
    cm_require_device_bytes(n * (batch_pixels + tensor_bytes),
                            "the batches' planes and tensors");
    r->bufs = (batch_buf *)cm_host_alloc(n * sizeof(batch_buf), "batches");
    memset(r->bufs, 0, n * sizeof(batch_buf));
    for (size_t k = 0; k < n; k++) {
        batch_buf *x = &r->bufs[k];
        x->run = r;
        CUDA_CHECK(cudaMallocHost(&x->h_bits, bits_bytes));
        CUDA_CHECK(cudaMallocHost(&x->h_planes, batch_pixels));
        CUDA_CHECK(cudaMalloc(&x->d_planes, batch_pixels));
        CUDA_CHECK(cudaMalloc(&x->d_out, tensor_bytes));
        if (back)
            CUDA_CHECK(cudaMallocHost(&x->h_out, tensor_bytes));
        CUDA_CHECK(cudaEventCreateWithFlags(&x->done,
                                            cudaEventDisableTiming));
        size_t m = r->max_batch;
        x->offset = (size_t *)cm_host_alloc(m * sizeof(size_t), "offsets");
        x->how = (route *)cm_host_alloc(m * sizeof(route), "routes");
        x->why = (const char **)cm_host_alloc(m * sizeof(char *), "routes");
        x->err = (char (*)[BATCH_ERR_LEN])cm_host_alloc(m * BATCH_ERR_LEN,
                                                        "messages");
        x->item_of = (size_t *)cm_host_alloc(m * sizeof(size_t), "items");
    }
    r->lanes = (cudaStream_t *)cm_host_alloc(
        (size_t)r->b->streams * sizeof(cudaStream_t), "streams");
    for (int k = 0; k < r->b->streams; k++)
        CUDA_CHECK(cudaStreamCreate(&r->lanes[k]));
    CUDA_CHECK(cudaMallocHost(&r->h_samples, samples_bytes ? samples_bytes
                                                           : 1));
    r->gpu_decoded = (uint8_t *)cm_host_alloc(r->n_images, "routes");
    r->out_index = (size_t *)cm_host_alloc(r->n_images * sizeof(size_t),
                                           "tensor index");
    r->per_thread = (thread_counts *)calloc((size_t)r->threads,
                                            sizeof(thread_counts));
    if (!r->per_thread)
        cm_fail("not enough memory for the reader threads' counts");
    char files[32], planes[32], tensor[32];
    printf("pipeline: %d batch buffers in turn on %d CUDA streams, each "
           "with pinned %s for files and %s for CPU-decoded planes, and a "
           "%s tensor on the GPU%s\n", r->n_bufs, r->b->streams,
           cm_fmt_bytes_short(bits_bytes, files, sizeof files),
           cm_fmt_bytes_short(batch_pixels, planes, sizeof planes),
           cm_fmt_bytes_short(tensor_bytes, tensor, sizeof tensor),
           back ? " (and pinned, for it back)" : "");
}

void pipeline_stop(batch_run *r)
{
    for (int k = 0; k < r->n_bufs; k++) {
        batch_buf *x = &r->bufs[k];
        CUDA_CHECK(cudaFreeHost(x->h_bits));
        CUDA_CHECK(cudaFreeHost(x->h_planes));
        CUDA_CHECK(cudaFree(x->d_planes));
        CUDA_CHECK(cudaFree(x->d_out));
        if (x->h_out)
            CUDA_CHECK(cudaFreeHost(x->h_out));
        CUDA_CHECK(cudaEventDestroy(x->done));
        free(x->offset);
        free(x->how);
        free(x->why);
        free(x->err);
        free(x->item_of);
    }
    for (int k = 0; k < r->b->streams; k++)
        CUDA_CHECK(cudaStreamDestroy(r->lanes[k]));
    CUDA_CHECK(cudaFreeHost(r->h_samples));
    free(r->bufs);
    free(r->lanes);
    free(r->gpu_decoded);
    free(r->out_index);
    free(r->per_thread);
}
