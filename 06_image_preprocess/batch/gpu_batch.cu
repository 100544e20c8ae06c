/* gpu_batch.cu - the batched pipeline: files into an (N, H, W) float32
 * tensor that stays on the GPU, JPEGs decoded by nvJPEG's hardware
 * decoder, progressive JPEGs by nvJPEG's hybrid path (Huffman decoding
 * on the reader threads, the inverse DCT on the GPU), everything else by
 * stb_image on CPU threads.
 *
 *   reader threads: read the files of batches k+1 and k+2 (queued in
 *       that order) into pinned memory, screen each (jpeg_screen.c,
 *       then nvJPEG's own check); decode the refused ones that
 *       js_hybrid_ok takes with nvJPEG's hybrid path straight into the
 *       batch's device planes (the thread waits for its own stream), the
 *       rest with stb_image into pinned staging
 *   main thread: batch k -> nvjpegDecodeBatched (luma planes, in device
 *       memory) + H2D of the CPU-decoded planes -> the fused normalize +
 *       flip kernel over the whole batch -> sampled rows D2H (the check)
 *       [-> the whole batch D2H and into the .npy, with --out-npy]
 * Four batch buffers turn in order: batches k + 1 and k + 2 queued for
 * the readers, batch k being submitted, batch k - 1 on the GPU. The
 * readers go from one batch to the next without waiting for the main
 * thread: a batch's last slow decodes on the readers (hybrid-path
 * Huffman decoding, stb_image) do not leave the other readers idle, nor
 * does the main thread's submitting.
 * A hardware-decoded image crosses PCIe only as its compressed file (a
 * hybrid-path one as its Huffman-decoded coefficients); what
 * comes back is the check's sampled rows (and, with --out-npy, the
 * tensor).
 *
 * The check, after the timed passes: every image decoded again by
 * stb_image on the CPU threads and compared on SAMPLE_ROWS rows with the
 * tensor: the tensor must be exactly flip(byte) / 255 for some byte, and
 * that byte within 1 level of stb_image's (two JPEG decoders round their
 * inverse DCT differently).
 *
 * Run: make run-06 ARGS="jpegs/ --decoder gpu"
 *      make run-06 ARGS="jpegs/ --decoder gpu --bare-decode"
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "device.h"
#include "files.h"
#include "timing.h"
#include "units.h"
#include "verify.h"

#include "../image_io.h"
#include "../kernels.h"
#include "../npy.h"
#include "gpu_batch.h"
#include "nvjpeg_decoder.h"
#include "reader_pool.h"

enum { BUFFERS = 4, ERR_LEN = 1280, MAX_REASONS = 16 };
#define SAMPLE_ROWS ((size_t)8)
static const size_t MAX_DEFAULT_BATCH = 256, MIN_DEFAULT_BATCH = 16;
/* Default batch: up to this many pixels, so that big images take fewer
 * per batch and each buffer stays near 640 MiB of device memory (its
 * planes and its float32 tensor). */
static const size_t BATCH_PIXELS = (size_t)1 << 27;
static const double PROGRESS_EVERY_MS = 250;
static const double READERS_BOUND_SHARE = 0.8;
/* A decoder that fails every batch says so this many times, not more
 * (the routed: line counts them all). */
static const int MAX_FAILURE_LINES = 3;

struct gpu_run;

/* One batch in flight: its files' bytes, their routes, the staging of
 * the CPU-decoded planes, and its part of the tensor on the GPU. */
typedef struct {
    struct gpu_run *run;       /* the run it belongs to */
    size_t job;                /* the readers' job that fills it */
    size_t first, count;       /* images first .. first + count - 1 */
    uint8_t *h_bits;           /* the files, pinned, one after another */
    size_t *offset;            /* each file's place in h_bits */
    const char **route;        /* NULL: the GPU decodes it; else why not */
    uint8_t *hybrid;           /* 1: decoded by the hybrid path, on the
                                * GPU, into d_planes at its item index */
    int *bad;                  /* 1: unusable, err says why */
    char (*err)[ERR_LEN];
    uint8_t *h_planes;         /* CPU-decoded planes, pinned, by item */
    uint8_t *d_planes;         /* the batch's decoded planes, on the GPU */
    float *d_out, *h_out;      /* its tensor; h_out only with --out-npy */
    size_t good, out_first;    /* images kept, their first tensor index */
    cudaEvent_t done;
    int in_flight;
} batch_buf;

/* The run's state, shared with the reader threads. */
typedef struct gpu_run {
    const batch_options *b;
    batch_source *src;
    const size_t *bytes;       /* each file's size */
    size_t pixels, n_images, max_batch;
    nj_engine *engine;         /* NULL: every file to the CPU */
    int cpu_only;              /* --decoder cpu */
    int quiet;                 /* 1: "skipped:" lines already printed */
    int batch_failures;        /* batches nvJPEG failed, lines printed */
    reader_pool *pool;         /* the reader threads */
    double *busy_ms;           /* per reader thread */
    /* results, by image index */
    uint8_t *gpu_decoded;      /* 1: decoded by nvJPEG */
    size_t *out_index;         /* tensor index -> image index */
    float *h_samples;          /* SAMPLE_ROWS rows of every tensor image */
    size_t sample_y[SAMPLE_ROWS], n_sample_rows;
    /* the check's counts, per reader thread */
    size_t *one_level, *worse, *inexact, *check_failed;
    size_t *first_bad;
    /* the hybrid path's failures (those files went to stb_image): the
     * count, and the first one's image and reason, kept by the thread
     * that counted 1 */
    size_t hybrid_failures, hybrid_failed_image;
    char hybrid_why[256];
    int hybrid_failures_said;  /* 1: the line was printed */
} gpu_run;

/* The route of a file nvJPEG's hybrid path failed on (the CPU got it). */
static const char HYBRID_FAILED[] = "nvJPEG's hybrid path failed on it";

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

/* Decodes file bytes to gray with stb_image into dst (width x height). */
static int cpu_decode(const gpu_run *r, size_t image, const uint8_t *bits,
                      size_t len, uint8_t *dst, char *err)
{
    const char *path = r->src->list->paths[image];
    io_image img;
    if (io_decode_gray(path, bits, len, r->src->max_pixels, &img, err,
                       ERR_LEN) != 0)
        return -1;
    int rc = 0;
    if (img.width != r->src->width || img.height != r->src->height) {
        snprintf(err, ERR_LEN, "%s: %zu x %zu, but the batch is %zu x %zu",
                 path, img.width, img.height, r->src->width,
                 r->src->height);
        rc = -1;
    } else {
        memcpy(dst, img.pixels, r->pixels);
    }
    io_image_free(&img);
    return rc;
}

/* A reader's item: read file, screen it, decode it here if the GPU may
 * not. */
static void read_item(void *ctx, size_t j, int thread)
{
    batch_buf *x = (batch_buf *)ctx;
    gpu_run *r = x->run;
    double start = cm_now_ms();
    size_t image = x->first + j;
    size_t len = r->bytes[image];
    uint8_t *bits = x->h_bits + x->offset[j];
    x->bad[j] = read_exact(r->src->list->paths[image], bits, len,
                           x->err[j], ERR_LEN) != 0;
    const char *route = "--decoder cpu";
    if (!x->bad[j] && !r->cpu_only) {
        route = js_screen(bits, len, NULL);
        if (!route)
            route = r->engine ? nj_screen(r->engine, thread, bits, len)
                              : "no GPU decoder";
    }
    x->hybrid[j] = 0;
    if (!x->bad[j] && route && r->engine && !r->cpu_only &&
        nj_hybrid_ready(r->engine) && js_hybrid_ok(bits, len)) {
        char why[256];
        if (nj_hybrid_decode(r->engine, thread, bits, len,
                             x->d_planes + j * r->pixels, why,
                             sizeof why) == 0) {
            x->hybrid[j] = 1;
        } else {
            if (__atomic_add_fetch(&r->hybrid_failures, 1,
                                   __ATOMIC_RELAXED) == 1) {
                r->hybrid_failed_image = image;
                snprintf(r->hybrid_why, sizeof r->hybrid_why, "%s", why);
            }
            route = HYBRID_FAILED;
        }
    }
    x->route[j] = route;
    if (!x->bad[j] && route && !x->hybrid[j])
        x->bad[j] = cpu_decode(r, image, bits, len,
                               x->h_planes + j * r->pixels, x->err[j]) != 0;
    r->busy_ms[thread] += cm_now_ms() - start;
}

/* Reasons, counted (they are string constants, so a pointer names
 * one). */
typedef struct {
    const char *why[MAX_REASONS];
    size_t count[MAX_REASONS];
    size_t n;
} reasons;

static void count_reason(reasons *c, const char *why)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->why[k] == why) {
            c->count[k]++;
            return;
        }
    if (c->n < MAX_REASONS) {
        c->why[c->n] = why;
        c->count[c->n++] = 1;
    }
}

/* Where files went: gpu counts both GPU paths, hybrid the files of the
 * hybrid path among them (by why the batched decoder refused them). */
typedef struct {
    reasons cpu_why, hybrid_why;
    size_t gpu, hybrid, cpu, skipped;
} route_counts;

static void count_route(route_counts *c, const char *why)
{
    if (!why) {
        c->gpu++;
        return;
    }
    c->cpu++;
    count_reason(&c->cpu_why, why);
}

static void count_hybrid(route_counts *c, const char *why)
{
    c->gpu++;
    c->hybrid++;
    count_reason(&c->hybrid_why, why);
}

/* What the main thread did, in ms. */
typedef struct {
    double wait_read_ms, submit_ms, wait_gpu_ms, write_ms;
} main_time;

/* Sends batch x to the GPU on stream, state slot: its GPU files to
 * nvJPEG, its CPU-decoded planes over PCIe, then the kernel and the
 * sampled rows. Unusable files stop the run, or with --skip-bad are
 * left out. */
static void submit(gpu_run *r, batch_buf *x, int slot, size_t *out_count,
                   route_counts *routes, cudaStream_t stream, main_time *t)
{
    double start = cm_now_ms();
    const uint8_t *data[4096];
    size_t lengths[4096];
    uint8_t *planes[4096];
    size_t gpu_items[4096];
    int n_gpu = 0;
    x->good = 0;
    x->out_first = *out_count;
    for (size_t j = 0; j < x->count; j++) {
        size_t image = x->first + j;
        if (x->bad[j] && !r->b->skip_bad) {
            rp_wait(r->pool);  /* the readers stop touching our buffers */
            fprintf(stderr, "06_image_preprocess: %s\n", x->err[j]);
            exit(1);      /* files.c removes a partial .npy */
        }
        if (x->bad[j]) {
            if (!r->quiet)
                fprintf(stderr, "skipped: %s\n", x->err[j]);
            routes->skipped++;
            continue;
        }
        size_t pos = x->good++;
        uint8_t *d_plane = x->d_planes + pos * r->pixels;
        r->out_index[x->out_first + pos] = image;
        r->gpu_decoded[image] = x->route[j] == NULL || x->hybrid[j];
        if (x->hybrid[j]) {
            /* Decoded on the GPU by a reader into slot j (its thread
             * waited for it); moved down to slot pos if files before it
             * were skipped. Only later items' copies write slot j, and
             * they are enqueued after this one. */
            count_hybrid(routes, x->route[j]);
            if (pos != j)
                CUDA_CHECK(cudaMemcpyAsync(d_plane,
                                           x->d_planes + j * r->pixels,
                                           r->pixels,
                                           cudaMemcpyDeviceToDevice,
                                           stream));
            continue;
        }
        count_route(routes, x->route[j]);
        if (x->route[j]) {
            CUDA_CHECK(cudaMemcpyAsync(d_plane, x->h_planes + j * r->pixels,
                                       r->pixels, cudaMemcpyHostToDevice,
                                       stream));
        } else {
            data[n_gpu] = x->h_bits + x->offset[j];
            lengths[n_gpu] = r->bytes[image];
            planes[n_gpu] = d_plane;
            gpu_items[n_gpu++] = j;
        }
    }
    char why[256];
    if (n_gpu > 0 && nj_decode(r->engine, slot, data, lengths, planes, n_gpu,
                               why, sizeof why) != 0) {
        /* Rare (corrupt data the screens could not see): the batch's GPU
         * files are decoded here instead, one by one. */
        if (!r->quiet && r->batch_failures++ < MAX_FAILURE_LINES)
            printf("decoder: images %zu to %zu: %s; decoding their %d JPEGs "
                   "on the CPU\n", x->first, x->first + x->count - 1, why,
                   n_gpu);
        for (int g = 0; g < n_gpu; g++) {
            size_t j = gpu_items[g], image = x->first + j;
            uint8_t *h_plane = x->h_planes + j * r->pixels;
            if (cpu_decode(r, image, data[g], lengths[g], h_plane,
                           x->err[j]) != 0) {
                fprintf(stderr, "06_image_preprocess: %s\n", x->err[j]);
                rp_wait(r->pool);
                exit(1);
            }
            r->gpu_decoded[image] = 0;
            routes->gpu--;
            count_route(routes, "its batch failed on the GPU");
            CUDA_CHECK(cudaMemcpyAsync(planes[g], h_plane, r->pixels,
                                       cudaMemcpyHostToDevice, stream));
        }
    }
    if (x->good > 0) {
        /* The batch's planes lie one after another: as one image of
         * good * H rows, the flip of each row is the flip of its image. */
        launch_normalize_flip(x->d_out, x->d_planes, r->src->width,
                              x->good * r->src->height, stream);
        size_t width_bytes = r->src->width * sizeof(float);
        for (size_t k = 0; k < r->n_sample_rows; k++)
            CUDA_CHECK(cudaMemcpy2DAsync(
                r->h_samples + (x->out_first * r->n_sample_rows + k) *
                                   r->src->width,
                r->n_sample_rows * width_bytes,
                x->d_out + r->sample_y[k] * r->src->width,
                r->pixels * sizeof(float), width_bytes, x->good,
                cudaMemcpyDeviceToHost, stream));
        if (x->h_out)
            CUDA_CHECK(cudaMemcpyAsync(x->h_out, x->d_out,
                                       x->good * r->pixels * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaEventRecord(x->done, stream));
    x->in_flight = 1;
    *out_count += x->good;
    t->submit_ms += cm_now_ms() - start;
}

/* Waits for batch x and appends its tensor to the .npy. */
static int finish(gpu_run *r, batch_buf *x, FILE *out, main_time *t)
{
    double start = cm_now_ms();
    CUDA_CHECK(cudaEventSynchronize(x->done));
    double synced = cm_now_ms();
    size_t n = x->good * r->pixels;
    int failed = out && x->good && fwrite(x->h_out, sizeof(float), n,
                                          out) != n;
    t->wait_gpu_ms += synced - start;
    t->write_ms += cm_now_ms() - synced;
    x->in_flight = 0;
    return failed;
}

/* Points x at the batch starting at image `first`: its count and each
 * file's place in its pinned buffer. */
static void set_batch(const gpu_run *r, batch_buf *x, size_t first)
{
    x->first = first;
    x->count = r->n_images - first < r->max_batch ? r->n_images - first
                                                  : r->max_batch;
    for (size_t j = 0, at = 0; j < x->count; j++) {
        x->offset[j] = at;
        at += r->bytes[first + j];
    }
}

/* Queues batch k, in buffer x, for the readers. */
static void read_batch(gpu_run *r, batch_buf *x, size_t k)
{
    set_batch(r, x, k * r->max_batch);
    x->run = r;
    x->job = rp_post(r->pool, read_item, x, x->count);
}

/* One pass over every file. Returns the tensor images made. */
static size_t one_pass(gpu_run *r, batch_buf *bufs, cudaStream_t stream,
                       FILE *out, route_counts *routes, main_time *t,
                       int *write_failed, const char *label)
{
    size_t n_batches = (r->n_images + r->max_batch - 1) / r->max_batch;
    size_t out_count = 0;
    int show_progress = isatty(STDERR_FILENO);
    double shown = cm_now_ms();
    /* Batches 0 and 1 are queued before the loop; from then on batch
     * k + 2 is queued while batch k goes to the GPU, so the readers
     * always have a batch to go on with. */
    for (size_t k = 0; k < 2 && k < n_batches; k++)
        read_batch(r, &bufs[k], k);
    for (size_t k = 0; k < n_batches; k++) {
        batch_buf *x = &bufs[k % BUFFERS];
        double start = cm_now_ms();
        rp_wait_job(r->pool, x->job);
        t->wait_read_ms += cm_now_ms() - start;
        /* Buffer k + 2 last held batch k - 2, which used the same nvJPEG
         * state as batch k: it is finished first (the .npy gets its
         * batches in order), then refilled with batch k + 2. */
        batch_buf *y = &bufs[(k + 2) % BUFFERS];
        if (y->in_flight)
            *write_failed |= finish(r, y, out, t);
        if (k + 2 < n_batches)
            read_batch(r, y, k + 2);
        submit(r, x, (int)(k % NJ_STATES), &out_count, routes, stream, t);
        if (show_progress && cm_now_ms() - shown >= PROGRESS_EVERY_MS) {
            fprintf(stderr, "\r%s: %zu / %zu images", label,
                    x->first + x->count, r->n_images);
            shown = cm_now_ms();
        }
    }
    /* The last two, oldest first, so the file keeps the input order. */
    for (size_t k = n_batches >= 2 ? n_batches - 2 : 0; k < n_batches; k++)
        if (bufs[k % BUFFERS].in_flight)
            *write_failed |= finish(r, &bufs[k % BUFFERS], out, t);
    if (show_progress)
        fprintf(stderr, "\r%60s\r", "");  /* the progress line goes */
    return out_count;
}

/* The check of tensor image `item` (a reader's item): stb_image decodes
 * the file again; on every sampled row the tensor must be exactly
 * flip(byte) / 255.0f, and that byte within 1 level of stb_image's (0 for
 * an image the CPU decoded: the same decoder; 1 for both nvJPEG paths).
 * What is compared: asked for one channel, stb_image decodes only the Y
 * component of a YCbCr JPEG and returns that plane as it is (it computes
 * gray from R, G, B, stbi__compute_y, only for RGB-coded files, which the
 * screen sends to the CPU); NVJPEG_OUTPUT_Y is the same Y plane, and the
 * screen and js_hybrid_ok take only files whose Y is not resampled. So
 * the two differ only where their inverse DCTs round differently. */
static void check_item(void *ctx, size_t item, int thread)
{
    gpu_run *r = (gpu_run *)ctx;
    size_t image = r->out_index[item], width = r->src->width;
    size_t len = 0;
    char err[ERR_LEN];
    unsigned char *bits = io_read_file(r->src->list->paths[image], &len,
                                       err, sizeof err);
    uint8_t *ref = (uint8_t *)malloc(r->pixels);
    if (!bits || !ref || cpu_decode(r, image, bits, len, ref, err) != 0) {
        r->check_failed[thread]++;
        free(bits);
        free(ref);
        return;
    }
    size_t worse = 0;
    for (size_t k = 0; k < r->n_sample_rows; k++) {
        const float *row = r->h_samples +
                           (item * r->n_sample_rows + k) * width;
        const uint8_t *in = ref + r->sample_y[k] * width;
        for (size_t x = 0; x < width; x++) {
            float f = row[x];
            long byte = lrintf(f * 255.0f);
            if (!(byte >= 0 && byte <= 255 && f == (float)byte / 255.0f)) {
                r->inexact[thread]++;
                continue;
            }
            long diff = labs(byte - (long)in[width - 1 - x]);
            if (diff == 1 && r->gpu_decoded[image])
                r->one_level[thread]++;
            else if (diff != 0)
                worse++;
        }
    }
    if (worse && r->worse[thread]++ == 0)
        r->first_bad[thread] = image;
    free(bits);
    free(ref);
}

/* FNV-1a over the sampled rows: equal in every pass, or the decode is
 * not repeatable. */
static uint64_t samples_hash(const gpu_run *r, size_t n_out)
{
    const uint8_t *p = (const uint8_t *)r->h_samples;
    size_t n = n_out * r->n_sample_rows * r->src->width * sizeof(float);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static size_t sum_of(const size_t *v, int n)
{
    size_t s = 0;
    for (int k = 0; k < n; k++)
        s += v[k];
    return s;
}

static void print_limit(double readers_share, const main_time *m,
                        double wall_ms, int writing)
{
    const char *what[4] = {
        "waiting for the reader threads (reading, screening, CPU decodes)",
        "submitting batches (nvJPEG's host work, copies of CPU-decoded "
        "images)",
        "waiting for the GPU (the decoder and the kernel)",
        "writing the .npy (the disk, not the GPU)"};
    double ms[4] = {m->wait_read_ms, m->submit_ms, m->wait_gpu_ms,
                    writing ? m->write_ms : 0};
    if (readers_share >= READERS_BOUND_SHARE) {
        printf("limited by: the reader threads' CPU time, %.0f%% busy "
               "(reading, screening, CPU decodes)\n", 100 * readers_share);
        return;
    }
    int most = 0;
    for (int k = 1; k < 4; k++)
        if (ms[k] > ms[most])
            most = k;
    printf("limited by: %s, %.0f%% of the wall time on the main thread\n",
           what[most], 100.0 * ms[most] / wall_ms);
}

/* --bare-decode: every file read and screened first, then only
 * nvjpegDecodeBatched timed, batch after batch, as nvJPEG's own rate. */
static void bare_decode(gpu_run *r, batch_buf *bufs, cudaStream_t stream,
                        int passes, cm_verdict *verdict)
{
    /* All files in one pinned block, read and screened on this thread:
     * this mode measures no reading. */
    size_t total = 0;
    for (size_t i = 0; i < r->n_images; i++)
        total += r->bytes[i];
    batch_buf all;
    memset(&all, 0, sizeof all);
    CUDA_CHECK(cudaMallocHost(&all.h_bits, total));
    all.offset = (size_t *)cm_host_alloc(r->n_images * sizeof(size_t),
                                         "offsets");
    for (size_t i = 0, at = 0; i < r->n_images; i++) {
        all.offset[i] = at;
        at += r->bytes[i];
    }
    size_t n_gpu = 0;
    const uint8_t **data = (const uint8_t **)cm_host_alloc(
        r->n_images * sizeof(uint8_t *), "bitstream list");
    size_t *lengths = (size_t *)cm_host_alloc(r->n_images * sizeof(size_t),
                                              "lengths");
    size_t *image_of = (size_t *)cm_host_alloc(r->n_images * sizeof(size_t),
                                               "image list");
    char err[ERR_LEN];
    for (size_t i = 0; i < r->n_images; i++) {
        if (read_exact(r->src->list->paths[i], all.h_bits + all.offset[i],
                       r->bytes[i], err, sizeof err) != 0)
            continue;
        const uint8_t *bits = all.h_bits + all.offset[i];
        const char *why = js_screen(bits, r->bytes[i], NULL);
        if (!why && r->engine)
            why = nj_screen(r->engine, 0, bits, r->bytes[i]);
        if (why)
            continue;
        data[n_gpu] = bits;
        image_of[n_gpu] = i;
        lengths[n_gpu++] = r->bytes[i];
    }
    printf("bare decode: %zu of %zu files taken by the GPU decoder, read "
           "beforehand; only nvjpegDecodeBatched timed\n", n_gpu,
           r->n_images);
    if (n_gpu == 0 || !r->engine) {
        cm_check_true(verdict, "files for the GPU decoder", 0,
                      r->engine ? "none" : "no GPU decoder");
        return;
    }
    uint8_t *planes[4096];
    double *ms = (double *)cm_host_alloc((size_t)(passes + 1) *
                                         sizeof(double), "timings");
    char why[256];
    for (int p = -1; p < passes; p++) {  /* pass -1: the warm-up */
        double start = cm_now_ms();
        size_t k = 0;
        for (size_t first = 0; first < n_gpu; first += r->max_batch, k++) {
            batch_buf *x = &bufs[k % NJ_STATES];
            if (x->in_flight)
                CUDA_CHECK(cudaEventSynchronize(x->done));
            size_t n = n_gpu - first < r->max_batch ? n_gpu - first
                                                    : r->max_batch;
            for (size_t i = 0; i < n; i++)
                planes[i] = x->d_planes + i * r->pixels;
            if (nj_decode(r->engine, (int)(k % NJ_STATES), data + first,
                          lengths + first, planes, (int)n, why,
                          sizeof why) != 0) {
                fprintf(stderr, "06_image_preprocess: %s\n", why);
                exit(1);
            }
            CUDA_CHECK(cudaEventRecord(x->done, stream));
            x->in_flight = 1;
        }
        /* Finished means decoded: the host clock stops after this. */
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int s = 0; s < NJ_STATES; s++)
            bufs[s].in_flight = 0;
        if (p >= 0)
            ms[p] = cm_now_ms() - start;
    }
    cm_stats s = cm_stats_of(ms, passes);
    printf("bare nvJPEG batched decode: %.1f images/s median (%d passes, "
           "%.1f ms each, min %.1f, max %.1f), batches of %zu\n",
           n_gpu / (s.median_ms * 1e-3), passes, s.median_ms, s.min_ms,
           s.max_ms, r->max_batch);
    /* What was decoded is checked too: the last batch's planes, through
     * the kernel, on the sampled rows. */
    size_t last = (n_gpu - 1) / r->max_batch, first = last * r->max_batch;
    batch_buf *x = &bufs[last % NJ_STATES];
    size_t n = n_gpu - first;
    launch_normalize_flip(x->d_out, x->d_planes, r->src->width,
                          n * r->src->height, stream);
    for (size_t i = 0; i < n; i++) {
        size_t image = image_of[first + i];
        r->out_index[i] = image;
        r->gpu_decoded[image] = 1;
        for (size_t k = 0; k < r->n_sample_rows; k++)
            CUDA_CHECK(cudaMemcpyAsync(
                r->h_samples + (i * r->n_sample_rows + k) * r->src->width,
                x->d_out + i * r->pixels + r->sample_y[k] * r->src->width,
                r->src->width * sizeof(float), cudaMemcpyDeviceToHost,
                stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    rp_post(r->pool, check_item, r, n);
    rp_wait(r->pool);
    CUDA_CHECK(cudaFreeHost(all.h_bits));
    free(all.offset);
    free(data);
    free(lengths);
    free(image_of);
    free(ms);
    size_t bad = sum_of(r->worse, rp_threads(r->pool)) +
                 sum_of(r->inexact, rp_threads(r->pool)) +
                 sum_of(r->check_failed, rp_threads(r->pool));
    snprintf(err, sizeof err, "%zu images, %zu rows each: %zu pixels one "
             "level apart, %zu worse or unchecked", n, r->n_sample_rows,
             sum_of(r->one_level, rp_threads(r->pool)), bad);
    cm_check_true(verdict, "last batch vs stb_image (within 1 level)",
                  bad == 0, err);
}

int run_gpu_batch(const batch_options *b, const cm_options *opt,
                  batch_source *src, const size_t *bytes, size_t files,
                  size_t skipped, size_t file_bytes, double check_ms,
                  const decoder_plan *plan)
{
    char err[ERR_LEN], text[64];
    gpu_run r;
    memset(&r, 0, sizeof r);
    r.b = b;
    r.bytes = bytes;
    r.src = src;
    r.pixels = cm_mul_size(src->width, src->height, "an image");
    r.n_images = src->list->count;
    r.cpu_only = !plan->try_nvjpeg;
    size_t out_bytes = cm_mul_size(r.pixels, sizeof(float), "a tensor");
    size_t by_size = BATCH_PIXELS / r.pixels;
    r.max_batch = b->batch_size ? b->batch_size
                  : by_size > MAX_DEFAULT_BATCH ? MAX_DEFAULT_BATCH
                  : by_size < MIN_DEFAULT_BATCH ? MIN_DEFAULT_BATCH
                                                : by_size;
    if (r.max_batch > r.n_images)
        r.max_batch = r.n_images;
    int threads = b->threads ? b->threads : inputs_default_threads();
    /* The rows the check compares: SAMPLE_ROWS spread from the first to
     * the last (every row of a shorter image). */
    r.n_sample_rows = src->height < SAMPLE_ROWS ? src->height : SAMPLE_ROWS;
    for (size_t k = 0; k < r.n_sample_rows; k++)
        r.sample_y[k] = r.n_sample_rows == 1 ? 0
                        : k * (src->height - 1) / (r.n_sample_rows - 1);
    /* The largest run of max_batch consecutive files sizes the pinned
     * bitstream buffers. */
    size_t bits_bytes = 0;
    for (size_t first = 0; first < r.n_images; first += r.max_batch) {
        size_t sum = 0;
        for (size_t i = first; i < first + r.max_batch && i < r.n_images; i++)
            sum += r.bytes[i];
        bits_bytes = sum > bits_bytes ? sum : bits_bytes;
    }
    int writing = b->out_npy != NULL;
    size_t samples_bytes = r.n_images * r.n_sample_rows * src->width *
                           sizeof(float);
    size_t batch_pixels = r.max_batch * r.pixels;
    cm_require_host_bytes(BUFFERS * (bits_bytes + batch_pixels +
                                     (writing ? batch_pixels * 4 : 0)) +
                          samples_bytes, "the pinned batch buffers");

    cm_select_device((int)opt->device, NULL);
    cm_require_device_bytes(BUFFERS * batch_pixels * 5,
                            "the batches' planes and tensors");
    printf("batch: %zu images of %zu files (%zu skipped), %zu x %zu each "
           "(all the same size), checked in %.1f ms\n", r.n_images, files,
           skipped, src->width, src->height, check_ms);
    if (plan->note)
        printf("decoder: %s\n", plan->note);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    r.pool = rp_start(threads);
    if (!r.pool)
        cli_fail("cannot start the reader threads");
    if (plan->try_nvjpeg) {
        r.engine = nj_open((int)r.max_batch, src->width, src->height,
                           threads, stream, err, sizeof err);
        if (!r.engine)
            printf("decoder: %s; every file decoded on the CPU\n", err);
    }
    size_t opened_device = 0, opened_pinned = 0;
    if (r.engine)
        nj_allocations(r.engine, &opened_device, &opened_pinned);
    printf("decoder: %s; %d reader threads (CPU decodes: stb_image), "
           "batches of %zu images\n", r.engine ? nj_describe(r.engine)
           : "CPU only", threads, r.max_batch);

    batch_buf bufs[BUFFERS];
    memset(bufs, 0, sizeof bufs);
    for (int k = 0; k < BUFFERS; k++) {
        batch_buf *x = &bufs[k];
        CUDA_CHECK(cudaMallocHost(&x->h_bits, bits_bytes ? bits_bytes : 1));
        CUDA_CHECK(cudaMallocHost(&x->h_planes, batch_pixels));
        CUDA_CHECK(cudaMalloc(&x->d_planes, batch_pixels));
        CUDA_CHECK(cudaMalloc(&x->d_out, batch_pixels * sizeof(float)));
        if (writing)
            CUDA_CHECK(cudaMallocHost(&x->h_out,
                                      batch_pixels * sizeof(float)));
        CUDA_CHECK(cudaEventCreateWithFlags(&x->done,
                                            cudaEventDisableTiming));
        x->offset = (size_t *)cm_host_alloc(r.max_batch * sizeof(size_t),
                                            "offsets");
        x->route = (const char **)cm_host_alloc(
            r.max_batch * sizeof(char *), "routes");
        x->hybrid = (uint8_t *)cm_host_alloc(r.max_batch, "routes");
        x->bad = (int *)cm_host_alloc(r.max_batch * sizeof(int), "flags");
        x->err = (char (*)[ERR_LEN])cm_host_alloc(r.max_batch * ERR_LEN,
                                                  "messages");
    }
    CUDA_CHECK(cudaMallocHost(&r.h_samples, samples_bytes ? samples_bytes
                                                          : 1));
    r.gpu_decoded = (uint8_t *)cm_host_alloc(r.n_images, "routes");
    r.out_index = (size_t *)cm_host_alloc(r.n_images * sizeof(size_t),
                                          "tensor index");
    size_t **counters[5] = {&r.one_level, &r.worse, &r.inexact,
                            &r.check_failed, &r.first_bad};
    for (int c = 0; c < 5; c++)
        *counters[c] = (size_t *)calloc((size_t)threads, sizeof(size_t));
    r.busy_ms = (double *)calloc((size_t)threads, sizeof(double));
    if (!r.busy_ms || !r.first_bad)
        cli_fail("not enough memory for the reader threads' counts");
    char planes_text[32], tensor_text[32];
    printf("pipeline: %d batch buffers in turn, each with pinned %s for "
           "files and %s for CPU-decoded planes, and a %s tensor on the "
           "GPU%s\n", BUFFERS,
           cm_fmt_bytes_short(bits_bytes, text, sizeof text),
           cm_fmt_bytes_short(batch_pixels, planes_text, sizeof planes_text),
           cm_fmt_bytes_short(batch_pixels * sizeof(float), tensor_text,
                              sizeof tensor_text),
           writing ? " (copied back for the .npy)" : "");

    cm_verdict verdict = {0};
    int passes = writing ? 1 : opt->repeat_given ? (int)opt->repeat
                 : opt->quick ? 1 : 3;
    if (b->bare_decode) {
        bare_decode(&r, bufs, stream, passes, &verdict);
    } else {
        cm_out_file out_file;
        FILE *out = NULL;
        char header[NPY_HEADER_MAX];
        size_t shape[3] = {r.n_images, src->height, src->width};
        size_t header_len = npy_header(header, sizeof header, shape, 3);
        int write_failed = 0;
        if (writing) {
            if (cm_out_open(&out_file, b->out_npy) != 0)
                cli_fail(out_file.error);
            out = out_file.fp;
            write_failed = fwrite(header, 1, header_len, out) != header_len;
        }
        /* Warm-up, untimed, when nothing is written: one batch through
         * everything (nvJPEG's first calls, the readers' first reads). */
        route_counts routes;
        main_time t;
        size_t n_out = 0;
        if (!writing) {
            size_t all = r.n_images;
            r.n_images = r.max_batch;
            r.quiet = 1;
            memset(&routes, 0, sizeof routes);
            memset(&t, 0, sizeof t);
            one_pass(&r, bufs, stream, NULL, &routes, &t, &write_failed,
                     "warm-up");
            r.n_images = all;
        }
        double *ms = (double *)cm_host_alloc((size_t)passes * sizeof(double),
                                             "timings");
        uint64_t first_hash = 0;
        int repeatable = 1;
        for (int p = 0; p < passes; p++) {
            memset(&routes, 0, sizeof routes);
            memset(&t, 0, sizeof t);
            for (int th = 0; th < threads; th++)
                r.busy_ms[th] = 0;
            size_t dev0, pin0, dev1, pin1;
            if (r.engine)
                nj_allocations(r.engine, &dev0, &pin0);
            double start = cm_now_ms();
            r.quiet = p > 0;
            n_out = one_pass(&r, bufs, stream, out, &routes, &t,
                             &write_failed, "pass");
            ms[p] = cm_now_ms() - start;
            if (r.engine) {
                nj_allocations(r.engine, &dev1, &pin1);
                if (p == passes - 1)
                    printf("nvJPEG allocations: %zu device, %zu pinned "
                           "while opening; %zu during the last pass\n",
                           opened_device, opened_pinned,
                           dev1 - dev0 + pin1 - pin0);
            }
            uint64_t h = samples_hash(&r, n_out);
            if (p == 0)
                first_hash = h;
            repeatable &= h == first_hash;
        }
        cm_stats s = cm_stats_of(ms, passes);
        printf("routed: %zu images decoded on the GPU", routes.gpu);
        const reasons *hw = &routes.hybrid_why, *cw = &routes.cpu_why;
        if (routes.hybrid)
            printf(" (%zu of them by nvJPEG's hybrid path, Huffman decoding "
                   "on the reader threads: ", routes.hybrid);
        for (size_t k = 0; k < hw->n; k++)
            printf("%s%zu %s", k ? ", " : "", hw->count[k], hw->why[k]);
        printf("%s, %zu on the CPU", hw->n ? ")" : "", routes.cpu);
        for (size_t k = 0; k < cw->n; k++)
            printf("%s%zu %s", k ? ", " : " (", cw->count[k], cw->why[k]);
        printf("%s, %zu skipped while decoding\n", cw->n ? ")" : "",
               routes.skipped);
        if (r.hybrid_failures && !r.hybrid_failures_said) {
            r.hybrid_failures_said = 1;
            printf("decoder: nvJPEG's hybrid path failed %zu times (every "
                   "pass counted), first on %s: %s; stb_image decoded those "
                   "files\n",
                   r.hybrid_failures,
                   src->list->paths[r.hybrid_failed_image], r.hybrid_why);
        }
        double busy = 0;
        for (int th = 0; th < threads; th++)
            busy += r.busy_ms[th];
        double wall = ms[passes - 1];
        printf("processed: %zu images, %d pass%s: %.1f ms median (min "
               "%.1f, max %.1f)\n", n_out, passes, passes > 1 ? "es" : "",
               s.median_ms, s.min_ms, s.max_ms);
        printf("throughput: %.1f images/s (tensor %s), %.1f MB/s of files "
               "read\n", n_out / (s.median_ms * 1e-3),
               writing ? "written to the .npy" : "kept on the GPU",
               cm_gbps((double)file_bytes, s.median_ms) * 1e3);
        printf("reader threads: busy %.0f%% of %d threads x wall time "
               "(last pass)\n", 100 * busy / (threads * wall), threads);
        printf("main thread (last pass): waited %.1f ms for readers, "
               "submitted for %.1f ms, waited %.1f ms for the GPU",
               t.wait_read_ms, t.submit_ms, t.wait_gpu_ms);
        if (writing)
            printf("; wrote the .npy for %.1f ms", t.write_ms);
        printf("\n");
        print_limit(busy / (threads * wall), &t, wall, writing);

        /* The check, on the last pass's tensor (untimed). */
        double check_start = cm_now_ms();
        rp_post(r.pool, check_item, &r, n_out);
        rp_wait(r.pool);
        size_t one = sum_of(r.one_level, threads);
        size_t worse = sum_of(r.worse, threads);
        size_t inexact = sum_of(r.inexact, threads);
        size_t unchecked = sum_of(r.check_failed, threads);
        size_t sampled = n_out * r.n_sample_rows * src->width;
        const char *first_bad = "";
        for (int th = threads - 1; th >= 0; th--)
            if (r.worse[th])
                first_bad = src->list->paths[r.first_bad[th]];
        printf("check: rows");
        for (size_t k = 0; k < r.n_sample_rows; k++)
            printf(" %zu", r.sample_y[k]);
        printf(" of every image, %zu pixels, vs stb_image decoding the "
               "file again (%.0f ms)\n", sampled, cm_now_ms() - check_start);
        snprintf(err, sizeof err, "%zu pixels (%.3f%%) one level apart, "
                 "%zu images further apart%s%s, %zu not exact, %zu "
                 "unreadable", one, sampled ? 100.0 * one / sampled : 0.0,
                 worse, worse ? ", one is " : "", first_bad, inexact,
                 unchecked);
        cm_check_true(&verdict, "every image vs stb_image (sampled rows, "
                      "within 1 level)", worse + inexact + unchecked == 0,
                      err);
        snprintf(err, sizeof err, "%d passes", passes);
        cm_check_true(&verdict, "sampled rows bit-exact in every pass",
                      repeatable, err);
        snprintf(err, sizeof err, "%zu of %zu", n_out,
                 r.n_images - routes.skipped);
        cm_check_true(&verdict, "every usable image in the tensor",
                      n_out == r.n_images - routes.skipped && n_out > 0,
                      err);
        if (out) {
            shape[0] = n_out;
            if (npy_header(header, sizeof header, shape, 3) != header_len ||
                fseek(out, 0, SEEK_SET) != 0 ||
                fwrite(header, 1, header_len, out) != header_len)
                write_failed = 1;
            if (write_failed || verdict.failures > 0) {
                cm_out_abort(&out_file);
                printf("%s: not written (%s)\n", b->out_npy,
                       write_failed ? "write error" : "checks failed");
            } else if (cm_out_commit(&out_file) != 0) {
                cli_fail(out_file.error);
            } else {
                printf("wrote %s (float32, shape (%zu, %zu, %zu))\n",
                       b->out_npy, n_out, src->height, src->width);
            }
            if (write_failed)
                cm_check_true(&verdict, "tensor file written", 0,
                              b->out_npy);
        }
        cm_out_file csv_file;
        FILE *csv = cm_csv_open(&csv_file, opt->csv, "images,decoded_gpu,"
                                "decoded_cpu,ms_median,images_per_s");
        if (csv)
            fprintf(csv, "%zu,%zu,%zu,%.3f,%.3f\n", n_out, routes.gpu,
                    routes.cpu, s.median_ms, n_out / (s.median_ms * 1e-3));
        cm_csv_finish(&csv_file, &verdict);
        free(ms);
    }

    rp_stop(r.pool);
    nj_close(r.engine);
    for (int k = 0; k < BUFFERS; k++) {
        batch_buf *x = &bufs[k];
        CUDA_CHECK(cudaFreeHost(x->h_bits));
        CUDA_CHECK(cudaFreeHost(x->h_planes));
        CUDA_CHECK(cudaFree(x->d_planes));
        CUDA_CHECK(cudaFree(x->d_out));
        if (x->h_out)
            CUDA_CHECK(cudaFreeHost(x->h_out));
        CUDA_CHECK(cudaEventDestroy(x->done));
        free(x->offset);
        free(x->route);
        free(x->hybrid);
        free(x->bad);
        free(x->err);
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFreeHost(r.h_samples));
    free(r.gpu_decoded);
    free(r.out_index);
    for (int c = 0; c < 5; c++)
        free(*counters[c]);
    free(r.busy_ms);
    printf("\n");
    return cm_verdict_report(&verdict);
}
