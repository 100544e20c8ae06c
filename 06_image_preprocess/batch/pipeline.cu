/* pipeline.cu - the batch tool's one pipeline: files into their slots of
 * the tensor, batch by batch, whichever decoder decodes them (decoder.h:
 * nvJPEG on the GPU, stb_image on the CPU), each at its own size.
 *
 *   reader threads: read the files of batches k+1 and k+2 (queued in
 *       that order) into pinned memory; decoder_file leaves each for
 *       nvJPEG's batched decoder, decodes it with nvJPEG's hybrid path
 *       into its slot of the batch's device arena, or with stb_image
 *       into the same slot of pinned staging; then they check the
 *       tensors that came back
 *   main thread (pipeline_next): batch k -> nvjpegDecodeBatched (every
 *       file's planes into its arena slot, in device memory) + H2D of
 *       the CPU-decoded planes and of the kernel's table -> one kernel
 *       over the whole batch (resize, normalize, flip, type) -> its
 *       sampled rows of the check's picks D2H (the CLI's check) [-> the
 *       batch D2H, if asked]
 * Batch k runs on stream k % S (--streams S), with nvJPEG decode state
 * k % S, and S + 3 batch buffers turn in order: batches k + 1 and k + 2
 * queued for the readers, batch k being submitted, batches k - S + 1 ..
 * k - 1 on the GPU, and batch k - S, finished, whose tensor the readers
 * check before its buffer is filled again. So a buffer is handed to
 * nvJPEG only after a host wait on its last use: nvJPEG's hardware
 * decoder on H100-class GPUs can start writing before earlier work on
 * its stream has ended (torchcodec PR 1634), and nothing else then
 * reads the arena. The readers go from one batch to the next without
 * waiting for the main thread, and nothing in the steady state waits on
 * the host but the event of batch k - S, S batches behind.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "timing.h"

#include "batch_check.h"
#include "batch_report.h"
#include "pipeline.h"

/* A decoder that fails every batch says so this many times, not more
 * (the routed: line counts them all). */
static const int MAX_FAILURE_LINES = 3;
static const char FAILED_ON_GPU[] = "its batch failed on the GPU";

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
    size_t image = x->image[j], len = r->bytes[image];
    uint8_t *bits = x->h_bits + x->offset[j];
    x->why[j] = NULL;
    x->planes[j] = r->src->channels;
    /* A file the open took from its header is checked whole here, the
     * first time it is read: a cut one is a bad file like any other. */
    if (read_exact(r->src->list->paths[image], bits, len, x->err[j],
                   BATCH_ERR_LEN) != 0 ||
        inputs_recheck(r->src, image, bits, len, x->err[j],
                       BATCH_ERR_LEN) != 0)
        x->how[j] = ROUTE_BAD;
    else
        x->how[j] = decoder_file(r->dec, thread, image, bits, len,
                                 split_pick(x->split_q, j),
                                 x->h_staging + x->slot[j],
                                 x->d_arena + x->slot[j], &x->planes[j],
                                 &x->why[j], x->err[j], BATCH_ERR_LEN);
    x->item_ms[j] = cm_now_ms() - start;
    r->per_thread[thread].read_ms += x->item_ms[j];
}

/* Stops the run on a file that cannot be used: nothing of ours is in
 * flight or touched by a reader after this. */
static int stop(batch_run *r, const char *err)
{
    snprintf(r->error, sizeof r->error, "%s", err);
    r->failed = 1;
    pipeline_drain(r);
    return -1;
}

int pipeline_cuda(batch_run *r, cudaError_t err, const char *call)
{
    if (err == cudaSuccess)
        return 0;
    char why[BATCH_ERR_LEN];
    ib_cuda_failed(err, call, why, sizeof why);
    if (!r->cuda_failed) {
        snprintf(r->error, sizeof r->error, "%s", why);
        r->failed = r->cuda_failed = 1;
    }
    return -1;
}

/* Stops the run after a CUDA call failed (r->error says which). */
static int stop_cuda(batch_run *r)
{
    pipeline_drain(r);
    return -1;
}

/* Where nvJPEG failed a batch: its JPEGs decoded by stb_image here, one
 * by one, into their staging slots (or found unusable). Whatever nvJPEG
 * enqueued before it failed is finished first, so that it cannot write
 * over the planes copied in after (rare: files the screens passed). */
static int fall_back(batch_run *r, batch_buf *x, cudaStream_t stream,
                     const size_t *items, int n, const char *why)
{
    if (RUN_CUDA(r, cudaStreamSynchronize(stream)))
        return -1;
    if (!r->quiet && r->o->verbose &&
        r->batch_failures++ < MAX_FAILURE_LINES)
        printf("decoder: images %zu to %zu: %s; decoding their %d JPEGs on "
               "the CPU\n", x->first, x->first + x->count - 1, why, n);
    for (int g = 0; g < n; g++) {
        size_t j = items[g], image = x->image[j];
        x->planes[j] = r->src->channels;
        x->why[j] = FAILED_ON_GPU;
        x->how[j] = decoder_cpu(r->dec, image, x->h_bits + x->offset[j],
                                r->bytes[image], x->h_staging + x->slot[j],
                                x->err[j], BATCH_ERR_LEN) == 0
                        ? ROUTE_CPU
                        : ROUTE_BAD;
    }
    return 0;
}

/* nvJPEG's batched decode of the batch's files it takes: one call for
 * those of the run's format, one for the gray ones of an RGB run, timed
 * by the host clock around the calls and by events on the stream. */
static int batched_decode(batch_run *r, batch_buf *x, cudaStream_t stream)
{
    const uint8_t **bits = r->list_bits;
    size_t *lengths = r->list_lengths, *items = r->list_items;
    nj_dest *dests = r->list_dests;
    int rgb = r->src->channels == 3;
    double start = 0;
    x->timed = 0;
    for (int gray = 0; gray <= rgb; gray++) {
        int n = 0;
        for (size_t j = 0; j < x->count; j++) {
            size_t image = x->image[j];
            if (x->how[j] != ROUTE_GPU_BATCH ||
                (rgb && x->planes[j] == 1) != gray)
                continue;
            bits[n] = x->h_bits + x->offset[j];
            lengths[n] = r->bytes[image];
            dests[n].plane0 = x->d_arena + x->slot[j];
            dests[n].width = r->src->width[image];
            dests[n].height = r->src->height[image];
            items[n++] = j;
        }
        if (n == 0)
            continue;
        if (!x->timed) {
            if (RUN_CUDA(r, cudaEventRecord(x->decode_start, stream)))
                return -1;
            start = cm_now_ms();
            x->timed = 1;
        }
        char why[256];
        if (decoder_batch(r->dec, x->lane, gray, stream, bits, lengths, dests,
                          n, why, sizeof why) != 0 &&
            fall_back(r, x, stream, items, n, why) != 0)
            return -1;
    }
    if (x->timed) {
        x->decode_host_ms = cm_now_ms() - start;
        r->counts.nj_host_ms += x->decode_host_ms;
        if (RUN_CUDA(r, cudaEventRecord(x->decode_end, stream))) {
            x->timed = 0;
            return -1;
        }
    }
    return 0;
}

/* Sends batch x to the GPU on its lane: the files nvJPEG's batched
 * decoder takes, the CPU-decoded planes and the table over PCIe, the
 * kernel, the sampled rows and (if asked) the batch back. */
static int submit(batch_run *r, batch_buf *x)
{
    pass_counts *c = &r->counts;
    double start = cm_now_ms();
    cudaStream_t stream = r->lanes[x->lane];
    for (size_t j = 0; j < x->count; j++)
        if (x->how[j] == ROUTE_BAD && !r->o->skip_bad)
            return stop(r, x->err[j]);
    if (batched_decode(r, x, stream) != 0)
        return stop_cuda(r);
    x->good = 0;
    x->out_first = c->n_out;
    const int64_t *labels = r->src->list->labels;
    size_t first_pick = r->check_next;
    for (size_t j = 0; j < x->count; j++) {
        size_t image = x->image[j];
        /* The check's next pick, if it is this file: its tensor index. */
        int picked = r->check_next < r->n_checked &&
                     r->check_pos[r->check_next] == x->first + j;
        if (x->how[j] == ROUTE_BAD && !r->o->skip_bad)
            return stop(r, x->err[j]);  /* a JPEG stb_image refused too */
        if (x->how[j] == ROUTE_BAD) {
            if (!r->quiet && r->o->verbose)
                fprintf(stderr, "skipped: %s\n", x->err[j]);
            c->skipped++;
            if (picked)
                r->check_out[r->check_next++] = SIZE_MAX;
            continue;
        }
        if (picked) {
            r->check_route[r->check_next] = (uint8_t)x->how[j];
            r->check_out[r->check_next++] = x->out_first + x->good;
        }
        size_t pos = x->good++, w = r->src->width[image],
               h = r->src->height[image];
        x->item_of[pos] = j;
        x->names[pos] = r->src->list->paths[image];
        if (labels)
            x->labels[pos] = labels[image];
        r->out_index[x->out_first + pos] = image;
        r->gpu_decoded[image] = x->how[j] != ROUTE_CPU;
        count_route(c, x->how[j], x->why[j]);
        /* inputs_check placed it */
        tf_image_entry(&x->h_table[pos], r->spec, x->slot[j], w, h,
                       x->planes[j], inputs_orientation(r->src, image));
        if (x->how[j] == ROUTE_CPU &&
            RUN_CUDA(r, cudaMemcpyAsync(x->d_arena + x->slot[j],
                                        x->h_staging + x->slot[j],
                                        (size_t)x->planes[j] * w * h,
                                        cudaMemcpyHostToDevice, stream)))
            return stop_cuda(r);
    }
    if (x->good > 0) {
        int n = (int)x->good;
        if (r->d_tensor)  /* a slice of the whole tensor */
            x->d_out = (uint8_t *)r->d_tensor + x->out_first * r->image_bytes;
        /* The caller's work on this buffer's last batch comes first. */
        if (RUN_CUDA(r, cudaMemcpyAsync(x->d_table, x->h_table,
                                        x->good * sizeof(tf_image),
                                        cudaMemcpyHostToDevice, stream)) ||
            (x->used &&
             RUN_CUDA(r, cudaStreamWaitEvent(stream, x->released, 0))) ||
            RUN_CUDA(r, launch_transform(x->d_out, x->d_table, n,
                                         x->d_arena, r->spec, stream)) ||
            pipeline_copy_picks(r, x, first_pick, stream) != 0 ||
            (x->h_out &&
             RUN_CUDA(r, cudaMemcpyAsync(x->h_out, x->d_out,
                                         x->good * r->image_bytes,
                                         cudaMemcpyDeviceToHost, stream))))
            return stop_cuda(r);
    }
    if (RUN_CUDA(r, cudaEventRecord(x->done, stream)))
        return stop_cuda(r);
    x->in_flight = 1;
    c->n_out += x->good;
    c->submit_ms += cm_now_ms() - start;
    return 0;
}

/* Batch x's times on each side, for the split's share (split.h):
 * submit_ms, the main thread's time submitting it. */
static void observe_split(batch_run *r, const batch_buf *x,
                          double submit_ms)
{
    split_batch b = {0};
    for (size_t j = 0; j < x->count; j++) {
        if (x->how[j] == ROUTE_GPU_BATCH) {
            b.batched++;
            b.plain++;
            b.plain_ms += x->item_ms[j];
        } else if (x->how[j] == ROUTE_GPU_HYBRID &&
                   x->why[j] == SPLIT_WHY) {
            b.moved++;
            b.moved_ms += x->item_ms[j];
        } else {
            b.other_ms += x->item_ms[j];
        }
    }
    b.batched_ms = x->timed ? x->decode_host_ms : 0;
    b.main_other_ms = submit_ms > b.batched_ms ? submit_ms - b.batched_ms
                                               : 0;
    split_observe(&r->split, &b);
}

/* Waits for batch x, and has the readers check what came back (they run
 * it after the batches queued before it). */
static int finish(batch_run *r, batch_buf *x)
{
    pass_counts *c = &r->counts;
    double start = cm_now_ms();
    if (RUN_CUDA(r, cudaEventSynchronize(x->done)))
        return -1;
    c->wait_gpu_ms += cm_now_ms() - start;
    x->in_flight = 0;
    if (x->timed) {
        float span = 0;
        x->timed = 0;
        if (RUN_CUDA(r, cudaEventElapsedTime(&span, x->decode_start,
                                             x->decode_end)))
            return -1;
        double tail = span - x->decode_host_ms;
        c->nj_span_ms += span;
        c->nj_tail_ms += tail > 0 ? tail : 0;
        c->nj_batches++;
    }
    if (r->check && x->h_out && x->good) {
        x->check_job = rp_post(r->pool, check_back_item, x, x->good);
        x->checking = 1;
    }
    return 0;
}

/* Returns once the readers' check of x's last batch is done: its
 * buffers may then be filled again. */
static void wait_check(batch_run *r, batch_buf *x)
{
    if (!x->checking)
        return;
    double start = cm_now_ms();
    rp_wait_job(r->pool, x->check_job);
    r->counts.wait_check_ms += cm_now_ms() - start;
    x->checking = 0;
}

/* Queues batch k, in buffer x, for the readers: which files it holds
 * (positions k * max_batch on of the pass's order), where each file's
 * bytes and planes go. */
static void read_batch(batch_run *r, batch_buf *x, size_t k)
{
    x->first = k * r->max_batch;
    x->count = r->n_images - x->first < r->max_batch
                   ? r->n_images - x->first
                   : r->max_batch;
    x->lane = (int)(k % (size_t)r->streams);
    x->split_q = r->split_on ? split_q(&r->split) : 0;
    size_t at = 0, slot = 0;
    for (size_t j = 0; j < x->count; j++) {
        size_t position = x->first + j;
        size_t image = r->order ? r->order[position] : position;
        x->image[j] = image;
        x->offset[j] = at;
        at += r->bytes[image];
        x->slot[j] = slot;
        slot += pipeline_slot_bytes(r, image);
    }
    x->job = rp_post(r->pool, read_item, x, x->count);
}

/* The caller's work on the batch it held is enqueued by now: an event
 * after it, which the buffer's next kernel waits for. */
static int release_handed(batch_run *r)
{
    batch_buf *x = r->handed;
    if (!x)
        return 0;
    r->handed = NULL;
    if (RUN_CUDA(r, cudaEventRecord(x->released, r->lanes[x->lane])))
        return -1;
    x->used = 1;
    return 0;
}

int pipeline_begin(batch_run *r)
{
    /* The last pass's batches, and what the caller did with them. */
    for (int s = 0; s < r->streams; s++)
        if (RUN_CUDA(r, cudaStreamSynchronize(r->lanes[s])))
            return -1;
    memset(&r->counts, 0, sizeof r->counts);
    for (int th = 0; th < r->threads; th++)
        r->per_thread[th].read_ms = r->per_thread[th].check_ms = 0;
    r->n_batches = (r->n_images + r->max_batch - 1) / r->max_batch;
    r->next_batch = 0;
    pipeline_pick(r);
    for (size_t k = 0; k < PIPELINE_LOOKAHEAD && k < r->n_batches; k++)
        read_batch(r, &r->bufs[k], k);
    return 0;
}

int pipeline_next(batch_run *r, batch_buf **out)
{
    size_t k = r->next_batch, lanes = (size_t)r->streams;
    size_t n_bufs = (size_t)r->n_bufs;
    if (release_handed(r) != 0)
        return stop_cuda(r);
    if (r->failed)
        return -1;
    if (k >= r->n_batches) {
        /* The last ones, oldest first; then every check. */
        for (size_t b = k > lanes ? k - lanes : 0; b < k; b++)
            if (r->bufs[b % n_bufs].in_flight &&
                finish(r, &r->bufs[b % n_bufs]) != 0)
                return stop_cuda(r);
        for (size_t b = 0; b < n_bufs; b++)
            wait_check(r, &r->bufs[b]);
        return 0;
    }
    batch_buf *x = &r->bufs[k % n_bufs];
    double start = cm_now_ms();
    rp_wait_job(r->pool, x->job);
    r->counts.wait_read_ms += cm_now_ms() - start;
    /* Batch k - S used batch k's stream and decode state: finished
     * first. The buffer of batch k + 2 last held batch k - S - 1,
     * finished one step ago: once the readers have checked it, they may
     * fill it. */
    if (k >= lanes && finish(r, &r->bufs[(k - lanes) % n_bufs]) != 0)
        return stop_cuda(r);
    if (k + PIPELINE_LOOKAHEAD < r->n_batches) {
        batch_buf *y = &r->bufs[(k + PIPELINE_LOOKAHEAD) % n_bufs];
        wait_check(r, y);
        read_batch(r, y, k + PIPELINE_LOOKAHEAD);
    }
    start = cm_now_ms();
    if (submit(r, x) != 0)
        return -1;
    if (r->split_on)
        observe_split(r, x, cm_now_ms() - start);
    r->next_batch = k + 1;
    r->handed = x;
    *out = x;
    return 1;
}

int pipeline_drain(batch_run *r)
{
    int rc = 0;
    rp_wait(r->pool);
    if (release_handed(r) != 0)
        rc = -1;
    /* A batch stopped half-way may have work on its stream, and no
     * event after it. After a failure each call is still made: what
     * can finish does, before its buffers are freed. */
    for (int s = 0; s < r->lanes_made; s++)
        if (RUN_CUDA(r, cudaStreamSynchronize(r->lanes[s])))
            rc = -1;
    for (int b = 0; b < r->n_bufs; b++) {
        batch_buf *x = &r->bufs[b];
        if (x->in_flight && RUN_CUDA(r, cudaEventSynchronize(x->done)))
            rc = -1;
        x->in_flight = x->checking = x->timed = 0;
    }
    return rc;
}
