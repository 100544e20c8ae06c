/* bare_decode.cu - --bare-decode: nvJPEG's batched decode alone, on the
 * files the pipeline would give it, nothing else timed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "timing.h"

#include "../image_io.h"
#include "../kernels.h"
#include "bare_decode.h"
#include "batch_check.h"

void bare_decode(batch_run *r, int passes, cm_verdict *v)
{
    nj_engine *engine = decoder_engine(r->dec);
    int lanes = r->b->streams;
    /* All files in one pinned block, read and screened on this thread:
     * this mode measures no reading. */
    size_t total = 0, n_gpu = 0, n = r->n_images;
    for (size_t i = 0; i < n; i++)
        total += r->bytes[i];
    uint8_t *h_bits;
    CUDA_CHECK(cudaMallocHost(&h_bits, total ? total : 1));
    const uint8_t **data = (const uint8_t **)cm_host_alloc(
        n * sizeof(uint8_t *), "bitstream list");
    size_t *lengths = (size_t *)cm_host_alloc(n * sizeof(size_t), "lengths");
    size_t *image_of = (size_t *)cm_host_alloc(n * sizeof(size_t), "images");
    char err[BATCH_ERR_LEN];
    for (size_t i = 0, at = 0; i < n; at += r->bytes[i++]) {
        size_t len = 0;
        unsigned char *file = io_read_file(r->src->list->paths[i], &len,
                                           err, sizeof err);
        int same = file && len == r->bytes[i];
        if (same)
            memcpy(h_bits + at, file, len);
        free(file);
        if (!same || js_screen(h_bits + at, len, NULL) ||
            !engine || nj_screen(engine, 0, h_bits + at, len))
            continue;
        data[n_gpu] = h_bits + at;
        image_of[n_gpu] = i;
        lengths[n_gpu++] = len;
    }
    printf("bare decode: %zu of %zu files taken by the GPU decoder, read "
           "beforehand; only nvjpegDecodeBatched timed\n", n_gpu, n);
    if (n_gpu == 0 || !engine) {
        cm_check_true(v, "files for the GPU decoder", 0,
                      engine ? "none" : "no GPU decoder");
        return;
    }
    uint8_t *planes[BATCH_MAX_SIZE];
    double *ms = (double *)cm_host_alloc((size_t)passes * sizeof(double),
                                         "timings");
    char why[256];
    size_t batch = r->max_batch, last = (n_gpu - 1) / batch;
    for (int p = -1; p < passes; p++) {  /* pass -1: the warm-up */
        double start = cm_now_ms();
        for (size_t k = 0; k * batch < n_gpu; k++) {
            /* Lane k % S: its stream and decode state, whose last batch
             * (k - S, before it on that stream) is done before the state
             * is used again, as nvjpegDecodeBatched needs. */
            int lane = (int)(k % (size_t)lanes);
            if (k >= (size_t)lanes)
                CUDA_CHECK(cudaStreamSynchronize(r->lanes[lane]));
            size_t first = k * batch;
            size_t count = n_gpu - first < batch ? n_gpu - first : batch;
            for (size_t i = 0; i < count; i++)
                planes[i] = r->bufs[lane].d_planes + i * r->pixels;
            if (nj_decode(engine, lane, r->lanes[lane], data + first,
                          lengths + first, planes, (int)count, why,
                          sizeof why) != 0) {
                fprintf(stderr, "imgbatch: %s\n", why);
                exit(1);
            }
        }
        /* Finished means decoded: the host clock stops after this. */
        for (int s = 0; s < lanes; s++)
            CUDA_CHECK(cudaStreamSynchronize(r->lanes[s]));
        if (p >= 0)
            ms[p] = cm_now_ms() - start;
    }
    cm_stats s = cm_stats_of(ms, passes);
    printf("bare nvJPEG batched decode: %.1f images/s median (%d passes, "
           "%.1f ms each, min %.1f, max %.1f), batches of %zu\n",
           n_gpu / (s.median_ms * 1e-3), passes, s.median_ms, s.min_ms,
           s.max_ms, batch);
    /* What was decoded is checked too: the last batch's planes, through
     * the kernel, on the sampled rows. */
    int lane = (int)(last % (size_t)lanes);
    size_t first = last * batch, count = n_gpu - first;
    cudaStream_t stream = r->lanes[lane];
    float *d_out = r->bufs[lane].d_out;
    launch_normalize_flip(d_out, r->bufs[lane].d_planes, r->src->width,
                          count * r->src->height, stream);
    for (size_t i = 0; i < count; i++) {
        size_t image = image_of[first + i], width = r->src->width;
        r->out_index[i] = image;
        r->gpu_decoded[image] = 1;
        for (size_t k = 0; k < r->n_sample_rows; k++)
            CUDA_CHECK(cudaMemcpyAsync(
                r->h_samples + (i * r->n_sample_rows + k) * width,
                d_out + i * r->pixels + r->sample_y[k] * width,
                width * sizeof(float), cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    sampled_result c = check_sampled(r, count);
    snprintf(err, sizeof err, "%zu images, %zu rows each: %zu pixels one "
             "level apart, %zu worse or unchecked", count, r->n_sample_rows,
             c.one_level, c.worse + c.inexact + c.unreadable);
    cm_check_true(v, "last batch vs stb_image (within 1 level)",
                  c.worse + c.inexact + c.unreadable == 0, err);
    CUDA_CHECK(cudaFreeHost(h_bits));
    free(data);
    free(lengths);
    free(image_of);
    free(ms);
}
