/* imgbatch.cu - the batch tool of 06_image_preprocess: image files (a
 * folder, several files, or a list of them) into one (N, H, W) float32
 * tensor on the GPU, as a training loader makes it. JPEGs are decoded by
 * nvJPEG on the GPU where the build has it, other files by stb_image on
 * CPU threads; every image is normalized (x / 255) and flipped by the
 * chapter's fused kernel, checked, and timed. Its manual is README.md
 * beside it.
 *
 * main: the options and every file checked (no GPU yet) -> the decoders
 * chosen -> the GPU -> the pipeline (pipeline.cu): a warm-up, the timed
 * passes -> the checks (batch_check.c) -> the .npy and the CSV.
 *
 * Run: make run-06-batch ARGS="images/ --out-npy batch.npy"
 *      make run-06-batch ARGS="jpegs/ --keep-on-gpu"
 *      make run-06-batch ARGS="--make-corpus jpegs/ --count 2000"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "device.h"
#include "files.h"
#include "timing.h"
#include "verify.h"

#include "../npy.h"
#include "bare_decode.h"
#include "batch_check.h"
#include "batch_cli.h"
#include "batch_inputs.h"
#include "batch_report.h"
#include "corpus.h"
#include "decoder.h"
#include "pipeline.h"

/* Images a batch by default: as many as make BATCH_PIXELS, so that big
 * images take fewer per batch and each buffer stays near 640 MiB of
 * device memory (its planes and its float32 tensor), from 16 to 256. */
static const size_t BATCH_PIXELS = (size_t)1 << 27;
static const size_t MIN_DEFAULT_BATCH = 16, MAX_DEFAULT_BATCH = 256;

static size_t batch_size(size_t asked, size_t pixels, size_t n_images)
{
    size_t by_size = BATCH_PIXELS / pixels;
    size_t n = asked ? asked
               : by_size > MAX_DEFAULT_BATCH ? MAX_DEFAULT_BATCH
               : by_size < MIN_DEFAULT_BATCH ? MIN_DEFAULT_BATCH
                                             : by_size;
    return n < n_images ? n : n_images;
}

/* The .npy: its header announces every image and is rewritten at the end
 * with the number the tensor got (fewer if some failed to decode). If the
 * program stops first (a CUDA error exits inside CUDA_CHECK, a file fails
 * to decode), files.c removes the temporary file. */
typedef struct {
    cm_out_file file;
    char header[NPY_HEADER_MAX];
    size_t shape[3], header_len;
} npy_out;

static FILE *npy_open(npy_out *o, const char *path, const batch_source *src)
{
    o->shape[0] = src->list->count;
    o->shape[1] = src->height;
    o->shape[2] = src->width;
    o->header_len = npy_header(o->header, sizeof o->header, o->shape, 3);
    if (cm_out_open(&o->file, path) != 0)
        cm_fail("%s", o->file.error);
    if (fwrite(o->header, 1, o->header_len, o->file.fp) != o->header_len)
        cm_fail("cannot write the .npy header");
    return o->file.fp;
}

/* Rewrites the header for n images and keeps the file only if every
 * check held and every write succeeded. */
static void npy_close(npy_out *o, const char *path, size_t n,
                      int write_failed, cm_verdict *v)
{
    o->shape[0] = n;
    if (npy_header(o->header, sizeof o->header, o->shape, 3) !=
            o->header_len ||
        fseek(o->file.fp, 0, SEEK_SET) != 0 ||
        fwrite(o->header, 1, o->header_len, o->file.fp) != o->header_len)
        write_failed = 1;
    if (write_failed || v->failures > 0) {
        cm_out_abort(&o->file);
        printf("%s: not written (%s)\n", path,
               write_failed ? "write error" : "checks failed");
    } else if (cm_out_commit(&o->file) != 0) {
        cm_fail("%s", o->file.error);
    } else {
        printf("wrote %s (float32, shape (%zu, %zu, %zu))\n", path, n,
               o->shape[1], o->shape[2]);
    }
    if (write_failed)
        cm_check_true(v, "tensor file written", 0, path);
}

/* Warm-up (--warmup batches, untimed, when nothing is written: nvJPEG's
 * first calls, the readers' first reads), then the timed passes, each on
 * the host clock from the first read to the last batch's end; the report
 * of the last; the checks. */
static void run_passes(batch_run *r, int passes, size_t skipped,
                       size_t file_bytes, cm_verdict *v)
{
    const batch_options *b = r->b;
    pass_counts c;
    npy_out npy;
    r->out = b->out_npy ? npy_open(&npy, b->out_npy, r->src) : NULL;
    size_t opened_dev, opened_pinned, dev0 = 0, pinned0 = 0, dev1 = 0,
           pinned1 = 0, n_out = 0;
    nj_allocations(decoder_engine(r->dec), &opened_dev, &opened_pinned);
    if (!r->out && b->opt.warmup > 0) {
        size_t all = r->n_images, warm = (size_t)b->opt.warmup * r->max_batch;
        r->n_images = warm < all ? warm : all;
        r->quiet = 1;
        pipeline_pass(r, &c, "warm-up");
        r->n_images = all;
        for (int th = 0; th < r->threads; th++)
            r->per_thread[th].back_images = r->per_thread[th].back_bad = 0;
    }
    double *ms = (double *)cm_host_alloc((size_t)passes * sizeof(double),
                                         "timings");
    uint64_t first_hash = 0;
    int repeatable = 1;
    for (int p = 0; p < passes; p++) {
        nj_allocations(decoder_engine(r->dec), &dev0, &pinned0);
        double start = cm_now_ms();
        r->quiet = p > 0;
        n_out = pipeline_pass(r, &c, "pass");
        ms[p] = cm_now_ms() - start;
        nj_allocations(decoder_engine(r->dec), &dev1, &pinned1);
        uint64_t h = check_samples_hash(r, n_out);
        first_hash = p == 0 ? h : first_hash;
        repeatable &= h == first_hash;
    }
    if (decoder_engine(r->dec))
        printf("nvJPEG allocations: %zu device, %zu pinned while "
               "opening; %zu during the last pass\n", opened_dev,
               opened_pinned, dev1 - dev0 + pinned1 - pinned0);
    cm_stats s = cm_stats_of(ms, passes);
    report_routes(&c);
    decoder_say_failures(r->dec);
    report_pass(r, &c, &s, passes, file_bytes, ms[passes - 1]);

    /* The checks: the tensors that came back, every pixel, while the
     * passes ran; now the sampled rows against stb_image (untimed). */
    char text[1280];
    if (!b->keep_on_gpu) {
        size_t checked = 0, bad = 0, first = 0;
        for (int th = r->threads - 1; th >= 0; th--) {
            const thread_counts *t = &r->per_thread[th];
            checked += t->back_images;
            bad += t->back_bad;
            first = t->back_bad ? t->back_first_bad : first;
        }
        snprintf(text, sizeof text, "%zu images in %d pass%s, %zu differ%s%s",
                 checked, passes, passes > 1 ? "es" : "", bad,
                 bad ? ", the first is " : "",
                 bad ? r->src->list->paths[first] : "");
        cm_check_true(v, "every image back on the host vs its plane "
                      "(every pixel)", bad == 0 && checked > 0, text);
    }
    sampled_result sr = check_sampled(r, n_out);
    printf("check: rows");
    for (size_t k = 0; k < r->n_sample_rows; k++)
        printf(" %zu", r->sample_y[k]);
    printf(" of every image, %zu pixels, vs stb_image decoding the file "
           "again (%.0f ms)\n", sr.pixels, sr.ms);
    snprintf(text, sizeof text, "%zu pixels (%.3f%%) one level apart, %zu "
             "images further apart%s%s, %zu not exact, %zu unreadable",
             sr.one_level, sr.pixels ? 100.0 * sr.one_level / sr.pixels : 0,
             sr.worse, sr.worse ? ", one is " : "", sr.first_worse,
             sr.inexact, sr.unreadable);
    cm_check_true(v, "every image vs stb_image (sampled rows, within 1 "
                  "level)", sr.worse + sr.inexact + sr.unreadable == 0, text);
    snprintf(text, sizeof text, "%d passes", passes);
    cm_check_true(v, "sampled rows bit-exact in every pass", repeatable,
                  text);
    snprintf(text, sizeof text, "%zu of %zu", n_out,
             r->n_images - c.skipped);
    cm_check_true(v, "every usable image in the tensor",
                  n_out == r->n_images - c.skipped && n_out > 0, text);

    /* The files last, after every check: kept only if all held. The CSV
     * after the .npy is closed, so that two outputs naming one file never
     * write into each other. */
    if (r->out)
        npy_close(&npy, b->out_npy, n_out, c.write_failed, v);
    report_csv(b->opt.csv, &c, &s, skipped, file_bytes, v);
    free(ms);
}

int main(int argc, char **argv)
{
    /* --make-corpus DIR ...: write a JPEG corpus (corpus_main.c); no GPU. */
    if (argc > 1 && strcmp(argv[1], "--make-corpus") == 0)
        return corpus_main(argc - 1, argv + 1);
    batch_options b;
    batch_cli_parse(argc, argv, &b);

    /* The files, each checked (header, completeness, size) before the GPU
     * is touched, so bad input is reported the same way without one. */
    char err[1280];
    path_list list;
    if (inputs_collect(b.paths, b.n_paths, b.list_file, &list, err,
                       sizeof err) != 0)
        cm_fail("%s", err);
    batch_source src = {.list = &list, .width = b.resize_width,
                        .height = b.resize_height,
                        .resize = b.resize_width > 0,
                        .max_pixels = b.max_pixels};
    size_t files = list.count, skipped = 0, file_bytes = 0, jpegs = 0;
    double start = cm_now_ms();
    if (inputs_check(&src, b.skip_bad, &skipped, &file_bytes, err,
                     sizeof err) != 0)
        cm_fail("%s", err);
    double check_ms = cm_now_ms() - start;
    size_t *bytes = (size_t *)cm_host_alloc(list.count * sizeof(size_t),
                                            "the file sizes");
    if (inputs_survey(&list, bytes, &jpegs, err, sizeof err) != 0)
        cm_fail("%s", err);

    /* Which decoders: nvJPEG for the JPEGs where it was built and can
     * take them as they are, stb_image for the rest (decoder.h). */
    decoder_plan plan = decoder_choose(b.bare_decode ? DECODER_GPU
                                                     : b.decoder,
                                       nj_built(), src.resize, jpegs > 0);
    if (plan.fail)
        cm_fail("%s", plan.note);
    int threads = b.threads ? b.threads : inputs_default_threads();
    size_t max_batch = batch_size(b.batch_size,
                                  cm_mul_size(src.width, src.height,
                                              "an image"),
                                  list.count);

    cm_select_device((int)b.opt.device, NULL);
    printf("batch: %zu images of %zu files (%zu skipped), %zu x %zu each "
           "(%s), checked in %.1f ms\n", list.count, files, skipped,
           src.width, src.height, src.resize ? "resized, bilinear"
                                             : "all the same size",
           check_ms);
    if (plan.note)
        printf("decoder: %s\n", plan.note);
    reader_pool *pool = rp_start(threads);
    if (!pool)
        cm_fail("cannot start the reader threads");
    decoder *dec = decoder_open(&plan, &src, (int)max_batch, threads,
                                b.streams);
    printf("decoder: %s; %d reader threads (CPU decodes: stb_image), "
           "batches of %zu images\n", decoder_describe(dec), threads,
           max_batch);
    batch_run run = {.b = &b, .src = &src, .bytes = bytes, .dec = dec,
                     .pool = pool, .threads = threads,
                     .max_batch = max_batch};
    pipeline_start(&run);

    /* One pass when writing the .npy; else --repeat (3, --quick 1). */
    cm_verdict verdict = {0};
    int passes = b.out_npy ? 1 : (int)b.opt.repeat;
    if (b.bare_decode)
        bare_decode(&run, passes, &verdict);
    else
        run_passes(&run, passes, skipped, file_bytes, &verdict);

    pipeline_stop(&run);
    decoder_close(dec);
    rp_stop(pool);
    free(bytes);
    path_list_free(&list);
    printf("\n");
    return cm_verdict_report(&verdict);
}
