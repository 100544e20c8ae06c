/* batch.cu - the batch tool of 06_image_preprocess: many image files into
 * one (N, H, W) float32 tensor, as a real preprocessing job needs.
 *
 * A pipeline whose stages work on different images at once:
 *   decode threads (decode_pool.c) -> pinned staging buffers ->
 *   cudaMemcpyAsync H2D -> fused kernel -> cudaMemcpyAsync D2H -> file
 * Images take the S streams in turn (image i takes stream i % S while none
 * is skipped). While an image's copy runs, the images before it compute
 * and copy back on the other streams, and the decode threads are already
 * working on the images after it. The main thread alone appends
 * each result to the .npy, in input order, while the decode threads check
 * it against the CPU reference in row bands. The slowest stage sets the
 * pace, and the report names it from measured times (print_limit): with
 * small images that decode quickly it can be the write to the file.
 *
 * Run: make run-06 ARGS="images/ --out-npy batch.npy"
 *      make run-06 ARGS="--list files.txt --resize 224x224 --skip-bad"
 */
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

#include "../kernels.h"
#include "../npy.h"
#include "../reference.h"
#include "batch.h"
#include "batch_inputs.h"
#include "decode_pool.h"
#include "gpu_batch.h"
#include "jpeg_screen.h"
#include "nvjpeg_decoder.h"

static const int DEFAULT_STREAMS = 3;
static const double PROGRESS_EVERY_MS = 250;
/* Decode threads busy this share of their time: they are the limit. */
static const double DECODE_BOUND_SHARE = 0.8;
/* An image's check is cut into this many row bands per decode thread
 * (at most MAX_CHECK_PARTS), so that threads still busy decoding do not
 * hold it up: the others, and the main thread, take the rest. */
static const size_t CHECK_PARTS_PER_THREAD = 2;
#define MAX_CHECK_PARTS 64

/* One stream with its own device buffers and pinned result buffer, and
 * the image it has in flight. */
typedef struct {
    cudaStream_t stream;
    uint8_t *d_in;
    float *d_out, *h_out;
    const uint8_t *h_in;  /* the staging buffer its image came from */
    size_t image;
    int busy;
} lane;

/* What the main thread did, in ms: it runs the pipeline alone, so the
 * largest of these says what holds the batch back when the decode
 * threads are not busy. check_ms is the time it waited for (or helped
 * with) checks still running after its write. */
typedef struct {
    double wait_decode_ms, wait_gpu_ms, check_ms, write_ms;
} main_thread_time;

typedef struct {
    size_t done, mismatched, first_mismatch;
    int write_failed;
    main_thread_time time;
} batch_totals;

/* One image's check against the CPU reference, cut into `parts` bands
 * of rows (ref_band_differs). */
typedef struct {
    const float *h_out;
    const uint8_t *h_in;
    size_t width, height, parts;
    int differs[MAX_CHECK_PARTS];  /* written by band k's thread only */
} image_check;

/* A dp_job_fn: compares one band, exactly. */
static void check_band(void *ctx, size_t band)
{
    image_check *c = (image_check *)ctx;
    c->differs[band] = ref_band_differs(c->h_out, c->h_in, c->width,
                                        c->height, band, c->parts);
}

/* Waits for the lane's image; has the decode threads check it while this
 * thread appends it to the file (both only read it); then gives its
 * staging buffer back to the decoders, which may only now overwrite it.
 * The lane's result buffer is free again when this returns. */
static void finish(lane *l, dp_pool *pool, FILE *out, image_check *check,
                   batch_totals *t)
{
    double start = cm_now_ms();
    CUDA_CHECK(cudaStreamSynchronize(l->stream));
    double synced = cm_now_ms();
    size_t n = check->width * check->height;
    check->h_out = l->h_out;
    check->h_in = l->h_in;
    dp_post(pool, check_band, check, check->parts);
    if (out && fwrite(l->h_out, sizeof(float), n, out) != n)
        t->write_failed = 1;
    double written = cm_now_ms();
    dp_join(pool);
    int differs = 0;
    for (size_t k = 0; k < check->parts; k++)
        differs |= check->differs[k];
    if (differs && t->mismatched++ == 0)
        t->first_mismatch = l->image;
    t->time.wait_gpu_ms += synced - start;
    t->time.write_ms += written - synced;
    t->time.check_ms += cm_now_ms() - written;
    dp_release(pool, l->image);
    l->busy = 0;
    t->done++;
}

/* Names what limits the batch: the decode threads if they were busy most
 * of the time (decoding and checking), else the largest part of the main
 * thread's time. */
static void print_limit(double busy_share, const main_thread_time *m,
                        double wall_ms)
{
    const char *what[4] = {
        "waiting for decoded images (more decode threads would help)",
        "the GPU stages (copies over PCIe and the kernel)",
        "waiting for the checks against the CPU reference",
        "writing the .npy (the file system, not the GPU)"};
    double ms[4] = {m->wait_decode_ms, m->wait_gpu_ms, m->check_ms,
                    m->write_ms};
    if (busy_share >= DECODE_BOUND_SHARE) {
        printf("limited by: the decode threads' CPU time, decoding and "
               "checking (more cores would help, not a faster GPU)\n");
        return;
    }
    int most = 0;
    for (int k = 1; k < 4; k++)
        if (ms[k] > ms[most])
            most = k;
    printf("limited by: %s, %.0f%% of the wall time on the main thread\n",
           what[most], 100.0 * ms[most] / wall_ms);
}

int run_batch(const batch_options *b, const cm_options *opt)
{
    /* The files, each checked (header, completeness, size) before the GPU
     * is touched. */
    char err[1280], text[64];
    path_list list;
    if (inputs_collect(b->paths, b->n_paths, b->list_file, &list, err,
                       sizeof err) != 0)
        cli_fail(err);
    batch_source src = {&list, b->resize_width, b->resize_height,
                        b->resize_width > 0, b->max_pixels};
    size_t files = list.count, skipped = 0, file_bytes = 0;
    double start = cm_now_ms();
    if (inputs_check(&src, b->skip_bad, &skipped, &file_bytes, err,
                     sizeof err) != 0)
        cli_fail(err);
    double check_ms = cm_now_ms() - start;

    /* Which decoders: nvJPEG on the GPU for the JPEGs where it was built
     * and asked for (the batched pipeline, gpu_batch.cu), else the
     * streaming pipeline below with every image decoded on the CPU. */
    decoder_request request = strcmp(b->decoder, "gpu") == 0 ||
                                      b->bare_decode ? DECODER_GPU
                              : strcmp(b->decoder, "cpu") == 0 ? DECODER_CPU
                                                               : DECODER_AUTO;
    size_t jpegs = 0;
    size_t *bytes = (size_t *)cm_host_alloc(list.count * sizeof(size_t),
                                            "the file sizes");
    if (inputs_survey(&list, bytes, &jpegs, err, sizeof err) != 0)
        cli_fail(err);
    decoder_plan plan = decoder_choose(request, nj_built(), src.resize,
                                       b->keep_on_gpu, jpegs > 0);
    if (plan.fail)
        cli_fail(plan.note);
    if (plan.gpu_pipeline) {
        int rc = run_gpu_batch(b, opt, &src, bytes, files, skipped,
                               file_bytes, check_ms, &plan);
        free(bytes);
        path_list_free(&list);
        return rc;
    }
    free(bytes);
    size_t n_images = list.count;
    size_t pixels = cm_mul_size(src.width, src.height, "an image");
    size_t out_bytes = cm_mul_size(pixels, sizeof(float), "a tensor");
    int streams = b->streams ? b->streams : DEFAULT_STREAMS;
    int threads = b->threads ? b->threads : inputs_default_threads();
    size_t n_slots = (size_t)streams + (size_t)threads;
    image_check check;
    memset(&check, 0, sizeof check);
    check.width = src.width;
    check.height = src.height;
    check.parts = CHECK_PARTS_PER_THREAD * (size_t)threads;
    if (check.parts > MAX_CHECK_PARTS)
        check.parts = MAX_CHECK_PARTS;
    if (check.parts > src.height)
        check.parts = src.height;

    cm_select_device((int)opt->device, NULL);
    printf("batch: %zu images of %zu files (%zu skipped), %zu x %zu each "
           "(%s), checked in %.1f ms\n", n_images, files, skipped,
           src.width, src.height, src.resize ? "resized, bilinear"
                                             : "all the same size",
           check_ms);
    if (plan.note)
        printf("decoder: %s\n", plan.note);
    printf("pipeline: %d decode threads, %zu pinned staging buffers of %s, "
           "%d CUDA streams\n", threads, n_slots,
           cm_fmt_bytes_short(pixels, text, sizeof text), streams);

    /* Pinned memory for every buffer the copy engines touch: only then is
     * cudaMemcpyAsync really asynchronous and the copies can overlap. */
    cm_require_device_bytes((size_t)streams * (pixels + out_bytes),
                            "the streams' device buffers");
    uint8_t **h_slots = (uint8_t **)cm_host_alloc(
        n_slots * sizeof(uint8_t *), "the staging list");
    for (size_t s = 0; s < n_slots; s++)
        CUDA_CHECK(cudaMallocHost(&h_slots[s], pixels));
    lane *lanes = (lane *)cm_host_alloc(streams * sizeof(lane), "lanes");
    for (int k = 0; k < streams; k++) {
        memset(&lanes[k], 0, sizeof lanes[k]);
        CUDA_CHECK(cudaStreamCreate(&lanes[k].stream));
        CUDA_CHECK(cudaMalloc(&lanes[k].d_in, pixels));
        CUDA_CHECK(cudaMalloc(&lanes[k].d_out, out_bytes));
        CUDA_CHECK(cudaMallocHost(&lanes[k].h_out, out_bytes));
    }

    /* The .npy goes out as the images come back; its header announces N
     * images and is rewritten at the end with the number written (fewer
     * if some failed to decode). If the program stops before the end (a
     * CUDA error exits from inside CUDA_CHECK, a file fails to decode),
     * files.c removes the temporary file: nothing half-written is left. */
    cm_out_file out_file;
    FILE *out = NULL;
    char header[NPY_HEADER_MAX];
    size_t shape[3] = {n_images, src.height, src.width};
    size_t header_len = npy_header(header, sizeof header, shape, 3);
    batch_totals t;
    memset(&t, 0, sizeof t);
    if (b->out_npy) {
        if (cm_out_open(&out_file, b->out_npy) != 0)
            cli_fail(out_file.error);
        out = out_file.fp;
        t.write_failed = fwrite(header, 1, header_len, out) != header_len;
    }

    dp_pool *pool = dp_start(n_images, h_slots, n_slots, threads,
                             inputs_decode, &src);
    if (!pool)
        cli_fail("cannot start the decode threads");
    size_t submitted = 0, failed = 0;
    int show_progress = isatty(STDERR_FILENO);
    double t0 = cm_now_ms(), shown = t0;
    for (size_t i = 0; i < n_images; i++) {
        const char *why;
        double wait_start = cm_now_ms();
        const uint8_t *h_in = dp_wait(pool, i, &why);
        t.time.wait_decode_ms += cm_now_ms() - wait_start;
        if (!h_in && !b->skip_bad) {
            snprintf(err, sizeof err, "%s", why);
            dp_stop(pool);
            cli_fail(err);  /* files.c removes the partial file */
        }
        if (!h_in) {
            fprintf(stderr, "skipped: %s\n", why);
            dp_release(pool, i);
            failed++;
            continue;
        }
        /* The lane's previous image must be done before its buffers are
         * reused. Then copy in, compute and copy out, queued in order on
         * the lane's stream; the host thread goes on at once. */
        lane *l = &lanes[submitted % streams];
        if (l->busy)
            finish(l, pool, out, &check, &t);
        CUDA_CHECK(cudaMemcpyAsync(l->d_in, h_in, pixels,
                                   cudaMemcpyHostToDevice, l->stream));
        launch_normalize_flip(l->d_out, l->d_in, src.width, src.height,
                              l->stream);
        CUDA_CHECK(cudaMemcpyAsync(l->h_out, l->d_out, out_bytes,
                                   cudaMemcpyDeviceToHost, l->stream));
        l->h_in = h_in;
        l->image = i;
        l->busy = 1;
        submitted++;
        if (show_progress && cm_now_ms() - shown >= PROGRESS_EVERY_MS) {
            fprintf(stderr, "\r%zu / %zu images", i + 1, n_images);
            shown = cm_now_ms();
        }
    }
    /* The rest, oldest first, so the file keeps the input order. */
    for (int k = 0; k < streams; k++) {
        lane *l = &lanes[(submitted + (size_t)k) % streams];
        if (l->busy)
            finish(l, pool, out, &check, &t);
    }
    double wall_ms = cm_now_ms() - t0, decode_ms = dp_busy_ms(pool);
    double worker_check_ms = dp_job_ms(pool);
    dp_stop(pool);
    if (show_progress)
        fprintf(stderr, "\r%zu / %zu images\n", n_images, n_images);

    cm_verdict verdict = {0};
    if (t.mismatched)
        snprintf(err, sizeof err, "%zu of %zu differ, the first is %s",
                 t.mismatched, t.done, list.paths[t.first_mismatch]);
    else
        snprintf(err, sizeof err, "%zu of %zu identical", t.done, t.done);
    cm_check_true(&verdict, "every image vs CPU reference (exact)",
                  t.mismatched == 0, err);
    snprintf(err, sizeof err, "%zu of %zu", t.done, n_images - failed);
    cm_check_true(&verdict, "every decoded image computed (at least one)",
                  t.done == n_images - failed && t.done > 0, err);

    printf("processed: %zu images in %.1f ms (skipped %zu at the check, "
           "%zu while decoding)\n", t.done, wall_ms, skipped, failed);
    printf("throughput: %.1f images/s, %.1f MB/s of files read, %.1f MB/s "
           "of float32 tensor\n", t.done / (wall_ms * 1e-3),
           cm_gbps((double)file_bytes, wall_ms) * 1e3,
           cm_gbps((double)t.done * out_bytes, wall_ms) * 1e3);
    double busy_share = (decode_ms + worker_check_ms) / (threads * wall_ms);
    printf("decode threads: decoded for %.1f ms and checked for %.1f ms in "
           "all (%zu bands an image), %.0f%% of %d threads x wall time\n",
           decode_ms, worker_check_ms, check.parts, 100.0 * busy_share,
           threads);
    printf("main thread: waited %.1f ms for decoded images, %.1f ms for "
           "the GPU, %.1f ms for checks", t.time.wait_decode_ms,
           t.time.wait_gpu_ms, t.time.check_ms);
    if (out)
        printf("; wrote the .npy for %.1f ms", t.time.write_ms);
    printf("\n");
    print_limit(busy_share, &t.time, wall_ms);

    /* The header now says how many images the file really holds. */
    if (out) {
        shape[0] = t.done;
        if (npy_header(header, sizeof header, shape, 3) != header_len ||
            fseek(out, 0, SEEK_SET) != 0 ||
            fwrite(header, 1, header_len, out) != header_len)
            t.write_failed = 1;
        if (t.write_failed || verdict.failures > 0) {
            cm_out_abort(&out_file);
            printf("%s: not written (%s)\n", b->out_npy,
                   t.write_failed ? "write error" : "checks failed");
        } else if (cm_out_commit(&out_file) != 0) {
            cli_fail(out_file.error);
        } else {
            printf("wrote %s (float32, shape (%zu, %zu, %zu))\n",
                   b->out_npy, t.done, src.height, src.width);
        }
        if (t.write_failed)
            cm_check_true(&verdict, "tensor file written", 0, b->out_npy);
    }
    /* The figures as CSV, after the last check: kept only if all held.
     * Written after the .npy is closed, so the two never write into one
     * file even if they name the same one. */
    cm_out_file csv_file;
    FILE *csv = cm_csv_open(&csv_file, opt->csv, "images,skipped,wall_ms,"
                            "images_per_s,file_mb_per_s,tensor_mb_per_s");
    if (csv)
        fprintf(csv, "%zu,%zu,%.3f,%.3f,%.3f,%.3f\n", t.done,
                skipped + failed, wall_ms, t.done / (wall_ms * 1e-3),
                cm_gbps((double)file_bytes, wall_ms) * 1e3,
                cm_gbps((double)t.done * out_bytes, wall_ms) * 1e3);
    cm_csv_finish(&csv_file, &verdict);

    for (int k = 0; k < streams; k++) {
        CUDA_CHECK(cudaStreamDestroy(lanes[k].stream));
        CUDA_CHECK(cudaFree(lanes[k].d_in));
        CUDA_CHECK(cudaFree(lanes[k].d_out));
        CUDA_CHECK(cudaFreeHost(lanes[k].h_out));
    }
    for (size_t s = 0; s < n_slots; s++)
        CUDA_CHECK(cudaFreeHost(h_slots[s]));
    free(h_slots);
    free(lanes);
    path_list_free(&list);
    printf("\n");
    return cm_verdict_report(&verdict);
}
