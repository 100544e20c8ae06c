/* pipeline.cu - the batch tool's one pipeline: files into an (N, H, W)
 * float32 tensor, batch by batch, whichever decoder decodes them
 * (decoder.h: nvJPEG on the GPU, stb_image on the CPU).
 *
 *   reader threads: read the files of batches k+1 and k+2 (queued in
 *       that order) into pinned memory; decoder_file leaves each for
 *       nvJPEG's batched decoder, decodes it with nvJPEG's hybrid path
 *       into the batch's device planes, or with stb_image into pinned
 *       staging; then they check the tensors that came back
 *   main thread: batch k -> nvjpegDecodeBatched (luma planes, in device
 *       memory) + H2D of the CPU-decoded planes -> the fused normalize +
 *       flip kernel over the whole batch -> sampled rows D2H (the check)
 *       [-> the whole batch D2H, unless --keep-on-gpu; into the .npy]
 * Batch k runs on stream k % S (--streams S), with nvJPEG decode state
 * k % S, and S + 3 batch buffers turn in order: batches k + 1 and k + 2
 * queued for the readers, batch k being submitted, batches k - S + 1 ..
 * k - 1 on the GPU, and batch k - S, finished, whose tensor the readers
 * check before its buffer is filled again. The readers go from one batch
 * to the next without waiting for the main thread. A hardware-decoded
 * image crosses PCIe only as its compressed file (a hybrid-path one as
 * its Huffman-decoded coefficients).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "timing.h"
#include "units.h"

#include "../kernels.h"
#include "../reference.h"
#include "batch_check.h"
#include "batch_report.h"
#include "pipeline.h"

static const double PROGRESS_EVERY_MS = 250;
/* A decoder that fails every batch says so this many times, not more
 * (the routed: line counts them all). */
static const int MAX_FAILURE_LINES = 3;

/* Reads a whole file into dst, which holds exactly `expected` bytes (its
 * size when it was checked). Returns 0 or -1 with err. */
static int read_exact(const char *path, uint8_t *dst, size_t expected,
                      char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open", path);
        return -1;
    }
    size_t got = fread(dst, 1, expected, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    if (got != expected || more) {
        snprintf(err, err_len, "%s: changed since it was checked", path);
        return -1;
    }
    return 0;
}

/* A reader's item: read the file, then the decoder decides and decodes
 * (or leaves it for the batched decoder). */
static void read_item(void *ctx, size_t j, int thread)
{
    batch_buf *x = (batch_buf *)ctx;
    batch_run *r = x->run;
    double start = cm_now_ms();
    size_t image = x->first + j, len = r->bytes[image];
    uint8_t *bits = x->h_bits + x->offset[j];
    x->why[j] = NULL;
    if (read_exact(r->src->list->paths[image], bits, len, x->err[j],
                   BATCH_ERR_LEN) != 0)
        x->how[j] = ROUTE_BAD;
    else
        x->how[j] = decoder_file(r->dec, thread, image, bits, len,
                                 x->h_planes + j * r->pixels,
                                 x->d_planes + j * r->pixels, &x->why[j],
                                 x->err[j], BATCH_ERR_LEN);
    r->per_thread[thread].read_ms += cm_now_ms() - start;
}

/* A reader's item: tensor image `pos` of a batch that came back, every
 * pixel. One the CPU decoded must be exactly flip(plane) / 255.0f of the
 * plane it was made from, still in the batch's staging; one a GPU path
 * decoded (its plane never came back) must hold whole levels, k / 255.0f.
 * What the GPU decoders made is checked against stb_image afterwards
 * (batch_check.c). */
static void check_back_item(void *ctx, size_t pos, int thread)
{
    batch_buf *x = (batch_buf *)ctx;
    batch_run *r = x->run;
    thread_counts *t = &r->per_thread[thread];
    double start = cm_now_ms();
    size_t j = x->item_of[pos];
    const float *out = x->h_out + pos * r->pixels;
    int bad;
    if (x->how[j] == ROUTE_CPU)
        bad = ref_first_mismatch(out, x->h_planes + j * r->pixels,
                                 r->src->width, r->src->height) != r->pixels;
    else
        bad = !check_whole_levels(out, r->pixels);
    t->back_images++;
    if (bad && t->back_bad++ == 0)
        t->back_first_bad = x->first + j;
    t->check_ms += cm_now_ms() - start;
}

/* Stops the run on a file that cannot be used (not --skip-bad): the
 * readers stop touching our buffers first; files.c removes a partial
 * .npy. */
static void stop_on(batch_run *r, const char *err)
{
    rp_wait(r->pool);
    fprintf(stderr, "imgbatch: %s\n", err);
    exit(1);
}

/* Sends batch x to the GPU on its lane: the files nvJPEG's batched
 * decoder takes, the CPU-decoded planes over PCIe, then the kernel, the
 * sampled rows and (unless kept) the tensor back. */
static void submit(batch_run *r, batch_buf *x, pass_counts *c)
{
    double start = cm_now_ms();
    cudaStream_t stream = r->lanes[x->lane];
    const uint8_t *bits[BATCH_MAX_SIZE];
    size_t lengths[BATCH_MAX_SIZE], items[BATCH_MAX_SIZE];
    uint8_t *planes[BATCH_MAX_SIZE];
    int n_gpu = 0;
    x->good = 0;
    x->out_first = c->n_out;
    for (size_t j = 0; j < x->count; j++) {
        size_t image = x->first + j;
        if (x->how[j] == ROUTE_BAD && !r->b->skip_bad)
            stop_on(r, x->err[j]);
        if (x->how[j] == ROUTE_BAD) {
            if (!r->quiet)
                fprintf(stderr, "skipped: %s\n", x->err[j]);
            c->skipped++;
            continue;
        }
        size_t pos = x->good++;
        uint8_t *d_plane = x->d_planes + pos * r->pixels;
        x->item_of[pos] = j;
        r->out_index[x->out_first + pos] = image;
        r->gpu_decoded[image] = x->how[j] != ROUTE_CPU;
        count_route(c, x->how[j], x->why[j]);
        if (x->how[j] == ROUTE_GPU_BATCH) {
            bits[n_gpu] = x->h_bits + x->offset[j];
            lengths[n_gpu] = r->bytes[image];
            planes[n_gpu] = d_plane;
            items[n_gpu++] = j;
        } else if (x->how[j] == ROUTE_CPU) {
            CUDA_CHECK(cudaMemcpyAsync(d_plane, x->h_planes + j * r->pixels,
                                       r->pixels, cudaMemcpyHostToDevice,
                                       stream));
        } else if (pos != j) {
            /* Decoded by a reader into slot j (its thread waited for it);
             * moved down to slot pos when files before it were skipped.
             * Only later items' copies write slot j, enqueued after. */
            CUDA_CHECK(cudaMemcpyAsync(d_plane, x->d_planes + j * r->pixels,
                                       r->pixels, cudaMemcpyDeviceToDevice,
                                       stream));
        }
    }
    char why[256];
    if (n_gpu > 0 && decoder_batch(r->dec, x->lane, stream, bits, lengths,
                                   planes, n_gpu, why, sizeof why) != 0) {
        /* Rare (corrupt data the screens could not see): the batch's GPU
         * files are decoded here instead, one by one. */
        if (!r->quiet && r->batch_failures++ < MAX_FAILURE_LINES)
            printf("decoder: images %zu to %zu: %s; decoding their %d JPEGs "
                   "on the CPU\n", x->first, x->first + x->count - 1, why,
                   n_gpu);
        for (int g = 0; g < n_gpu; g++) {
            size_t j = items[g], image = x->first + j;
            uint8_t *h_plane = x->h_planes + j * r->pixels;
            if (decoder_cpu(r->dec, image, bits[g], lengths[g], h_plane,
                            x->err[j], BATCH_ERR_LEN) != 0)
                stop_on(r, x->err[j]);
            x->how[j] = ROUTE_CPU;
            r->gpu_decoded[image] = 0;
            c->gpu--;
            count_route(c, ROUTE_CPU, "its batch failed on the GPU");
            CUDA_CHECK(cudaMemcpyAsync(planes[g], h_plane, r->pixels,
                                       cudaMemcpyHostToDevice, stream));
        }
    }
    if (x->good > 0) {
        /* The batch's planes lie one after another: as one image of
         * good * H rows, the flip of each row is the flip of its image. */
        size_t width = r->src->width, row_bytes = width * sizeof(float);
        launch_normalize_flip(x->d_out, x->d_planes, width,
                              x->good * r->src->height, stream);
        for (size_t k = 0; k < r->n_sample_rows; k++)
            CUDA_CHECK(cudaMemcpy2DAsync(
                r->h_samples + (x->out_first * r->n_sample_rows + k) * width,
                r->n_sample_rows * row_bytes,
                x->d_out + r->sample_y[k] * width, r->pixels * sizeof(float),
                row_bytes, x->good, cudaMemcpyDeviceToHost, stream));
        if (x->h_out)
            CUDA_CHECK(cudaMemcpyAsync(x->h_out, x->d_out,
                                       x->good * r->pixels * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaEventRecord(x->done, stream));
    x->in_flight = 1;
    c->n_out += x->good;
    c->submit_ms += cm_now_ms() - start;
}

/* Waits for batch x, appends its tensor to the .npy and has the readers
 * check it (they run it after the batches queued before it). */
static void finish(batch_run *r, batch_buf *x, pass_counts *c)
{
    double start = cm_now_ms();
    CUDA_CHECK(cudaEventSynchronize(x->done));
    double synced = cm_now_ms();
    size_t n = x->good * r->pixels;
    if (r->out && n && fwrite(x->h_out, sizeof(float), n, r->out) != n)
        c->write_failed = 1;
    c->wait_gpu_ms += synced - start;
    c->write_ms += cm_now_ms() - synced;
    x->in_flight = 0;
    if (x->h_out && x->good) {
        x->check_job = rp_post(r->pool, check_back_item, x, x->good);
        x->checking = 1;
    }
}

/* Returns once the readers' check of x's last batch is done: its
 * buffers may then be filled again. */
static void wait_check(batch_run *r, batch_buf *x, pass_counts *c)
{
    if (!x->checking)
        return;
    double start = cm_now_ms();
    rp_wait_job(r->pool, x->check_job);
    c->wait_check_ms += cm_now_ms() - start;
    x->checking = 0;
}

/* Queues batch k, in buffer x, for the readers. */
static void read_batch(batch_run *r, batch_buf *x, size_t k)
{
    x->first = k * r->max_batch;
    x->count = r->n_images - x->first < r->max_batch
                   ? r->n_images - x->first
                   : r->max_batch;
    x->lane = (int)(k % (size_t)r->b->streams);
    for (size_t j = 0, at = 0; j < x->count; j++) {
        x->offset[j] = at;
        at += r->bytes[x->first + j];
    }
    x->job = rp_post(r->pool, read_item, x, x->count);
}

size_t pipeline_pass(batch_run *r, pass_counts *c, const char *label)
{
    size_t n_batches = (r->n_images + r->max_batch - 1) / r->max_batch;
    size_t lanes = (size_t)r->b->streams, n_bufs = (size_t)r->n_bufs;
    int show_progress = isatty(STDERR_FILENO);
    double shown = cm_now_ms();
    memset(c, 0, sizeof *c);
    for (int th = 0; th < r->threads; th++)
        r->per_thread[th].read_ms = r->per_thread[th].check_ms = 0;
    for (size_t k = 0; k < PIPELINE_LOOKAHEAD && k < n_batches; k++)
        read_batch(r, &r->bufs[k], k);
    for (size_t k = 0; k < n_batches; k++) {
        batch_buf *x = &r->bufs[k % n_bufs];
        double start = cm_now_ms();
        rp_wait_job(r->pool, x->job);
        c->wait_read_ms += cm_now_ms() - start;
        /* Batch k - S used batch k's stream and decode state: finished
         * first (the .npy gets the batches in order). The buffer of
         * batch k + 2 last held batch k - S - 1, finished one step ago:
         * once the readers have checked it, they may fill it. */
        if (k >= lanes)
            finish(r, &r->bufs[(k - lanes) % n_bufs], c);
        if (k + PIPELINE_LOOKAHEAD < n_batches) {
            size_t ahead = k + PIPELINE_LOOKAHEAD;
            batch_buf *y = &r->bufs[ahead % n_bufs];
            wait_check(r, y, c);
            read_batch(r, y, ahead);
        }
        submit(r, x, c);
        if (show_progress && cm_now_ms() - shown >= PROGRESS_EVERY_MS) {
            fprintf(stderr, "\r%s: %zu / %zu images", label,
                    x->first + x->count, r->n_images);
            shown = cm_now_ms();
        }
    }
    /* The last ones, oldest first, so the file keeps the input order;
     * then every check. */
    for (size_t k = n_batches > lanes ? n_batches - lanes : 0;
         k < n_batches; k++)
        if (r->bufs[k % n_bufs].in_flight)
            finish(r, &r->bufs[k % n_bufs], c);
    for (size_t k = 0; k < n_bufs; k++)
        wait_check(r, &r->bufs[k], c);
    if (show_progress)
        fprintf(stderr, "\r%60s\r", "");  /* the progress line goes */
    return c->n_out;
}
