/* bare_decode.cu - --bare-decode: nvJPEG's batched decode alone, on the
 * files the pipeline would give it, each into a slot of its own size,
 * nothing else timed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "timing.h"

#include "../image_io.h"
#include "bare_decode.h"
#include "batch_check.h"

/* The files the batched decoder takes, read into one pinned block. */
typedef struct {
    uint8_t *h_bits;
    const uint8_t **data;
    size_t *lengths, *image, *slot, n;
    int *gray;                 /* 1: a gray file of an RGB run */
} bare_files;

/* Reads and screens every file on this thread: this mode measures no
 * reading. */
static void take_files(batch_run *r, nj_engine *engine, bare_files *f)
{
    size_t total = 0, n = r->n_images;
    for (size_t i = 0; i < n; i++)
        total += r->bytes[i];
    CUDA_CHECK(cudaMallocHost(&f->h_bits, total ? total : 1));
    f->data = (const uint8_t **)cm_host_alloc(n * sizeof(uint8_t *), "list");
    f->lengths = (size_t *)cm_host_alloc(n * sizeof(size_t), "lengths");
    f->image = (size_t *)cm_host_alloc(n * sizeof(size_t), "images");
    f->slot = (size_t *)cm_host_alloc(n * sizeof(size_t), "slots");
    f->gray = (int *)cm_host_alloc(n * sizeof(int), "gray");
    f->n = 0;
    char err[BATCH_ERR_LEN];
    for (size_t i = 0, at = 0; i < n; at += r->bytes[i++]) {
        size_t len = 0;
        unsigned char *file = io_read_file(r->src->list->paths[i], &len, err,
                                           sizeof err);
        int same = file && len == r->bytes[i];
        if (same)
            memcpy(f->h_bits + at, file, len);
        free(file);
        /* A file whose frame is not the size it was checked at (changed
         * since) would overrun its slot: left out like a refused one. */
        js_header h;
        size_t w = 0, ht = 0;
        /* So is one its whole-file check refuses (cut short). */
        if (!same ||
            inputs_recheck(r->src, i, f->h_bits + at, len, err,
                           sizeof err) != 0 ||
            js_screen(f->h_bits + at, len, &h) || !engine ||
            !nj_batched(engine) || nj_screen(engine, 0, f->h_bits + at, len) ||
            h.width != r->src->width[i] || h.height != r->src->height[i] ||
            nj_parsed_size(engine, 0, &w, &ht) != 0 ||
            w != r->src->width[i] || ht != r->src->height[i])
            continue;
        f->data[f->n] = f->h_bits + at;
        f->image[f->n] = i;
        f->gray[f->n] = r->src->channels == 3 && h.components == 1;
        f->lengths[f->n++] = len;
    }
}

static void free_files(bare_files *f)
{
    CUDA_CHECK(cudaFreeHost(f->h_bits));
    free(f->data);
    free(f->lengths);
    free(f->image);
    free(f->slot);
    free(f->gray);
}

/* Decodes files first .. first + count - 1 into arena on lane's stream
 * and state: those of the run's format, then the gray ones. */
static void decode_batch(batch_run *r, const bare_files *f, size_t first,
                         size_t count, int lane, uint8_t *arena)
{
    nj_engine *engine = decoder_engine(r->dec);
    int rgb = r->src->channels == 3;
    char why[256];
    for (int gray = 0; gray <= rgb; gray++) {
        int n = 0;
        for (size_t i = first; i < first + count; i++) {
            if (f->gray[i] != gray)
                continue;
            size_t image = f->image[i];
            r->list_bits[n] = f->data[i];
            r->list_lengths[n] = f->lengths[i];
            r->list_dests[n].plane0 = arena + f->slot[i];
            r->list_dests[n].width = r->src->width[image];
            r->list_dests[n++].height = r->src->height[image];
        }
        if (n > 0 && nj_decode(engine, lane, gray, r->lanes[lane],
                               r->list_bits, r->list_lengths, r->list_dests,
                               n, why, sizeof why) != 0) {
            fprintf(stderr, "imgbatch: %s\n", why);
            exit(1);
        }
    }
}

/* The last batch through the kernel, its sampled rows back, checked. */
static void check_last(batch_run *r, const bare_files *f, size_t first,
                       size_t count, int lane, uint8_t *arena,
                       cm_verdict *v)
{
    batch_buf *x = &r->bufs[lane];
    cudaStream_t stream = r->lanes[lane];
    for (size_t i = 0; i < count; i++) {
        size_t image = f->image[first + i];
        size_t w = r->src->width[image], h = r->src->height[image];
        int gray = f->gray[first + i] || r->src->channels == 1;
        tf_image_entry(&x->h_table[i], r->spec, f->slot[first + i], w, h,
                       gray ? 1 : 3, inputs_orientation(r->src, image));
        r->out_index[i] = image;
        r->gpu_decoded[image] = 1;
        /* Every image of it a pick of the check (room for a batch's). */
        r->check_pos[i] = r->check_out[i] = i;
        r->check_route[i] = (uint8_t)ROUTE_GPU_BATCH;
    }
    r->n_checked = count;
    void *d_out = r->d_tensor ? r->d_tensor : x->d_out;
    CUDA_CHECK(cudaMemcpyAsync(x->d_table, x->h_table,
                               count * sizeof(tf_image),
                               cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(launch_transform(d_out, x->d_table, (int)count, arena, r->spec,
                                stream));
    CUDA_CHECK(launch_gather_samples(x->d_samples, d_out, (int)count,
                                     r->spec, stream));
    CUDA_CHECK(cudaMemcpyAsync(r->h_samples, x->d_samples,
                               count * r->sample_bytes,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    sampled_result c = check_sampled(r, count);
    char text[BATCH_ERR_LEN];
    snprintf(text, sizeof text, "%zu images: %zu of %zu values one level "
             "apart, %zu images broke a rule%s%s", count, c.gpu.one_level,
             c.gpu.values, c.failed, c.failed ? ", the first " : "",
             c.failed ? c.first_failed : "");
    cm_check_true(v, "last batch vs stb_image (the rules of the check)",
                  c.failed == 0 && !c.run_why, text);
    free(c.corrupt);
    free(c.corrupt_why);
}

void bare_decode(batch_run *r, int passes, cm_verdict *v)
{
    nj_engine *engine = decoder_engine(r->dec);
    int lanes = r->streams;
    bare_files f;
    take_files(r, engine, &f);
    printf("bare decode: %zu of %zu files taken by the batched decoder, "
           "read beforehand; only nvjpegDecodeBatched timed\n", f.n,
           r->n_images);
    if (f.n == 0) {
        cm_check_true(v, "files for the batched decoder", 0,
                      !engine ? "no GPU decoder"
                      : nj_batched(engine) ? "none"
                      : r->o->backend == IMGBATCH_BACKEND_HYBRID
                          ? "none: --nvjpeg-backend hybrid has no batched "
                            "decoder"
                          : "none: auto has no batched decoder without "
                            "a JPEG engine (--nvjpeg-backend gpu-hybrid "
                            "times the GPU hybrid backend's)");
        free_files(&f);
        return;
    }
    /* Each batch's slots, and an arena a lane as large as the most any
     * batch needs. */
    size_t batch = r->max_batch, most = 1;
    for (size_t first = 0; first < f.n; first += batch) {
        size_t at = 0;
        for (size_t i = first; i < f.n && i < first + batch; i++) {
            f.slot[i] = at;
            at += pipeline_slot_bytes(r, f.image[i]);
        }
        most = at > most ? at : most;
    }
    uint8_t **arena = (uint8_t **)cm_host_alloc(
        (size_t)lanes * sizeof(uint8_t *), "arenas");
    cm_require_device_bytes((size_t)lanes * most, "the bare decode's arenas");
    for (int s = 0; s < lanes; s++)
        CUDA_CHECK(cudaMalloc(&arena[s], most));
    double *ms = (double *)cm_host_alloc((size_t)passes * sizeof(double),
                                         "timings");
    size_t last = (f.n - 1) / batch;
    for (int p = -1; p < passes; p++) {  /* pass -1: the warm-up */
        double start = cm_now_ms();
        for (size_t k = 0; k <= last; k++) {
            /* Lane k % S: its stream and decode state, whose last batch
             * (k - S) is done before they are used again, as
             * nvjpegDecodeBatched needs (and the host waits, so no
             * decode writes an arena that is still being read). */
            int lane = (int)(k % (size_t)lanes);
            if (k >= (size_t)lanes)
                CUDA_CHECK(cudaStreamSynchronize(r->lanes[lane]));
            size_t first = k * batch;
            decode_batch(r, &f, first, f.n - first < batch ? f.n - first
                                                           : batch,
                         lane, arena[lane]);
        }
        /* Finished means decoded: the host clock stops after this. */
        for (int s = 0; s < lanes; s++)
            CUDA_CHECK(cudaStreamSynchronize(r->lanes[s]));
        if (p >= 0)
            ms[p] = cm_now_ms() - start;
    }
    cm_stats s = cm_stats_of(ms, passes);
    printf("bare nvJPEG batched decode: %.0f images/s median (min %.0f, max "
           "%.0f; %d passes, %.2f ms each median), batches of %zu\n",
           f.n / (s.median_ms * 1e-3), f.n / (s.max_ms * 1e-3),
           f.n / (s.min_ms * 1e-3), passes, s.median_ms, batch);
    /* What was decoded is checked too: the last batch, through the
     * kernel, on the sampled rows. */
    int lane = (int)(last % (size_t)lanes);
    check_last(r, &f, last * batch, f.n - last * batch, lane, arena[lane],
               v);
    for (int k = 0; k < lanes; k++)
        CUDA_CHECK(cudaFree(arena[k]));
    free(arena);
    free(ms);
    free_files(&f);
}
