/* imgbatch.cu - the batch tool of 06_image_preprocess: image files (a
 * folder, several files, or a list of them) into one tensor on the GPU,
 * as a training loader makes it: gray (N, H, W) or RGB (N, 3, H, W),
 * float32, float16 or uint8. JPEGs are decoded by nvJPEG on the GPU
 * where the build has it, other files by stb_image on CPU threads, each
 * at its own size; one kernel a batch resizes, normalizes, flips and
 * types them; up to --check-images images are checked against stb_image
 * (every value that comes back, too), and the run timed. Its manual is
 * README.md beside it; it loads through the library, imgbatch.h, as
 * any program can.
 *
 * main: the options (batch_cli.c) -> imgbatch_open (the files checked,
 * no GPU yet; then the GPU, the decoders, the buffers) -> a warm-up, the
 * timed passes, each an imgbatch_next loop -> the report
 * (batch_report.c) -> the checks (batch_check.c) -> the .npy and CSV.
 *
 * Run: make run-06-batch ARGS="images/ --out-npy batch.npy"
 *      make run-06-batch ARGS="jpegs/ --resize 224x224 --keep-on-gpu"
 *      make run-06-batch ARGS="--make-corpus jpegs/ --count 2000"
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
#include "verify.h"

#include "../npy.h"
#include "bare_decode.h"
#include "batch_check.h"
#include "batch_cli.h"
#include "batch_report.h"
#include "corpus.h"
#include "imgbatch.h"
#include "pipeline.h"

static const double PROGRESS_EVERY_MS = 250;

/* The .npy: its header announces every image and is rewritten at the end
 * with the number the tensor got (fewer if some failed to decode). If the
 * program stops first (a CUDA error exits inside CUDA_CHECK, a file fails
 * to decode), files.c removes the temporary file. */
typedef struct {
    cm_out_file file;
    char header[NPY_HEADER_MAX];
    const char *descr;
    size_t shape[4], header_len;
    int ndim;
} npy_out;

static void npy_open(npy_out *o, const char *path, const batch_run *r)
{
    tf_dtype t = r->spec->dtype;
    o->descr = npy_descr(t != TF_UINT8, tf_elem_bytes(t));
    o->ndim = pipeline_shape(r, r->n_images, o->shape);
    o->header_len = npy_header_typed(o->header, sizeof o->header, o->descr,
                                     o->shape, o->ndim);
    if (cm_out_open(&o->file, path) != 0)
        cm_fail("%s", o->file.error);
    if (fwrite(o->header, 1, o->header_len, o->file.fp) != o->header_len)
        cm_fail("cannot write the .npy header");
}

/* Rewrites the header for n images and keeps the file only if every
 * check held and every write succeeded. */
static void npy_close(npy_out *o, const char *path, size_t n,
                      int write_failed, cm_verdict *v)
{
    o->shape[0] = n;
    if (npy_header_typed(o->header, sizeof o->header, o->descr, o->shape,
                         o->ndim) != o->header_len ||
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
        printf("wrote %s ('%s', shape (%zu", path, o->descr, n);
        for (int d = 1; d < o->ndim; d++)
            printf(", %zu", o->shape[d]);
        printf("))\n");
    }
    if (write_failed)
        cm_check_true(v, "tensor file written", 0, path);
}

/* One pass through the loader: every batch, appended to the .npy (out)
 * once ready, and its labels put at their places in labels (NULL: the
 * images have none; *unlabelled counts batches that came without).
 * Returns the images the tensor got. */
static size_t one_pass(imgbatch *loader, FILE *out, const char *label,
                       int64_t *labels, size_t *unlabelled)
{
    batch_run *r = imgbatch_run(loader);
    imgbatch_batch x;
    int rc, show = isatty(STDERR_FILENO);
    double shown = cm_now_ms();
    imgbatch_rewind(loader);
    while ((rc = imgbatch_next(loader, &x)) == 1) {
        if (labels && x.count && !x.labels)
            ++*unlabelled;
        else if (labels && x.count)
            memcpy(labels + x.first, x.labels, x.count * sizeof *labels);
        if (out && x.count) {
            CUDA_CHECK(cudaEventSynchronize(x.ready));
            double start = cm_now_ms();
            if (fwrite(x.host, 1, x.bytes, out) != x.bytes)
                r->counts.write_failed = 1;
            r->counts.write_ms += cm_now_ms() - start;
        }
        if (show && cm_now_ms() - shown >= PROGRESS_EVERY_MS) {
            fprintf(stderr, "\r%s: %zu / %zu images", label,
                    x.first + x.count, r->n_images);
            shown = cm_now_ms();
        }
    }
    if (show)
        fprintf(stderr, "\r%60s\r", "");  /* the progress line goes */
    if (rc < 0)
        cm_fail("%s", imgbatch_failure_reason());
    return r->counts.n_out;
}

/* Takes tensor images marked in drop out of the .npy written so far
 * (n images after its header): the others move down, in order, and the
 * file is cut after them. Returns the images left. */
static size_t npy_drop(npy_out *o, size_t n, size_t image_bytes,
                       const uint8_t *drop, int *write_failed)
{
    FILE *fp = o->file.fp, *in = NULL;
    void *buf = malloc(image_bytes);
    size_t kept = 0;
    if (!buf || fflush(fp) != 0 || !(in = fopen(o->file.tmp_path, "rb")))
        *write_failed = 1;
    for (size_t i = 0; i < n && !*write_failed; i++) {
        if (drop[i])
            continue;
        /* Each image is read before any write reaches its bytes. */
        if (kept != i &&
            (fseeko(in, (off_t)(o->header_len + i * image_bytes),
                    SEEK_SET) != 0 ||
             fread(buf, 1, image_bytes, in) != image_bytes ||
             fseeko(fp, (off_t)(o->header_len + kept * image_bytes),
                    SEEK_SET) != 0 ||
             fwrite(buf, 1, image_bytes, fp) != image_bytes))
            *write_failed = 1;
        kept++;
    }
    if (*write_failed || fflush(fp) != 0 ||
        ftruncate(fileno(fp), (off_t)(o->header_len + kept * image_bytes)))
        *write_failed = 1;
    if (in)
        fclose(in);
    free(buf);
    return kept;
}

/* The labels of the images kept: those marked in drop go, the others
 * move down in order. Returns how many are left. */
static size_t labels_drop(int64_t *labels, size_t n, const uint8_t *drop)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!drop || !drop[i])
            labels[kept++] = labels[i];
    return kept;
}

/* Writes the labels (n of them) after every check held, through a
 * temporary file: complete or absent. */
static void labels_write(const char *path, const int64_t *labels, size_t n,
                         cm_verdict *v)
{
    char err[1300];
    if (v->failures > 0)
        printf("%s: not written (checks failed)\n", path);
    else if (npy_save_i64(path, labels, n, err, sizeof err) != 0)
        cm_check_true(v, "labels file written", 0, err);
    else
        printf("wrote %s ('<i8', shape (%zu,))\n", path, n);
}

/* Warm-up (--warmup batches, untimed, when nothing is written: nvJPEG's
 * first calls, the readers' first reads), then the timed passes, each on
 * the host clock from the first read to the last batch's end; the report
 * of the last; the checks; the files. */
static int run_passes(imgbatch *loader, const batch_options *b,
                      int passes, cm_verdict *v)
{
    batch_run *r = imgbatch_run(loader);
    nj_engine *engine = decoder_engine(r->dec);
    npy_out npy;
    FILE *out = NULL;
    if (b->out_npy) {
        npy_open(&npy, b->out_npy, r);
        out = npy.file.fp;
    }
    nj_memory opened, before, after;
    nj_allocations(engine, &opened);
    size_t all = r->n_images, n_out = 0, skipped, file_bytes;
    size_t files = r->src->list->count, unlabelled = 0;
    const int64_t *file_labels = r->src->list->labels;
    int64_t *labels = file_labels ? (int64_t *)cm_host_alloc(
                                        all * sizeof(int64_t), "labels")
                                  : NULL;
    /* Each file's sampled rows, the same in every pass it comes in by
     * the same route. */
    uint64_t *rows_hash = (uint64_t *)cm_host_alloc(
        files * CHECK_ROUTES * sizeof(uint64_t), "hashes");
    uint8_t *seen = (uint8_t *)cm_host_alloc(files, "hashes");
    memset(seen, 0, files);
    /* No warm-up when writing: the files hold the first pass, epoch 0. */
    if (!out && !b->out_labels && b->opt.warmup > 0) {
        size_t warm = (size_t)b->opt.warmup * r->max_batch;
        r->n_images = warm < all ? warm : all;
        r->quiet = 1;
        one_pass(loader, NULL, "warm-up", NULL, NULL);
        r->n_images = all;
        r->quiet = 0;
        for (int th = 0; th < r->threads; th++)
            r->per_thread[th].back_images = r->per_thread[th].back_bad = 0;
    }
    double *ms = (double *)cm_host_alloc((size_t)passes * sizeof(double),
                                         "timings");
    int repeatable = 1;
    for (int p = 0; p < passes; p++) {
        nj_allocations(engine, &before);
        double start = cm_now_ms();
        n_out = one_pass(loader, out, "pass", labels, &unlabelled);
        ms[p] = cm_now_ms() - start;
        nj_allocations(engine, &after);
        repeatable &= check_samples_repeat(r, rows_hash, seen);
    }
    free(rows_hash);
    free(seen);
    if (engine)
        printf("nvJPEG allocations: %zu device (%.1f MiB), %zu pinned "
               "(%.1f MiB) while opening; %zu during the last pass\n",
               opened.device_allocs, opened.device_bytes / 1048576.0,
               opened.pinned_allocs, opened.pinned_bytes / 1048576.0,
               after.device_allocs - before.device_allocs +
                   after.pinned_allocs - before.pinned_allocs);
    cm_stats s = cm_stats_of(ms, passes);
    imgbatch_file_counts(loader, &skipped, &file_bytes);
    report_routes(&r->counts);
    decoder_say_failures(r->dec);
    report_pass(r, &r->counts, &s, passes, file_bytes, ms[passes - 1],
                out != NULL);
    /* The check's test hook (tests only): IMGBATCH_TEST_GARBLE=N spoils
     * a 16 x 16 block of tensor image N's sampled rows by 50 levels, as a
     * decoder that garbles one MCU would; the check must fail naming its
     * file if it picked image N (every image of a pass of at most
     * --check-images; the first and last always), and cannot see it if
     * not. */
    const char *garble = getenv("IMGBATCH_TEST_GARBLE");
    uint8_t *garbled = garble ? check_samples_of(
                                    r, (size_t)strtoull(garble, NULL, 10))
                              : NULL;
    if (garbled)
        check_garble(r->spec, &r->levels, garbled, 16, 50);
    sampled_result checked = report_check_first(r, n_out);
    /* Nothing left to check or write: one line, and no .npy. */
    if (n_out == checked.n_corrupt) {
        if (out)
            cm_out_abort(&npy.file);
        size_t files = skipped + r->n_images;
        if (files == 1)
            fprintf(stderr, "imgbatch: no usable image: its one file was "
                    "skipped\n");
        else
            fprintf(stderr, "imgbatch: no usable image: all %zu files were "
                    "skipped\n", files);
        free(checked.corrupt);
        free(checked.corrupt_why);
        free(ms);
        free(labels);
        return CM_EXIT_FAIL;
    }
    report_checks(r, passes, n_out, repeatable, &checked, v);
    if (labels) {
        /* The last pass's labels against its files', position by
         * position (out_index: the file at each). */
        size_t wrong = 0;
        for (size_t i = 0; i < n_out; i++)
            wrong += labels[i] != file_labels[r->out_index[i]];
        char text[128];
        snprintf(text, sizeof text, "%zu labels, %zu wrong, %zu batches "
                 "without", n_out, wrong, unlabelled);
        cm_check_true(v, "every batch's labels those of its files",
                      wrong == 0 && unlabelled == 0, text);
    }
    /* The files last, after every check: kept only if all held, without
     * the corrupt files the check found. The CSV after the .npy is
     * closed, so that two outputs naming one file never write into each
     * other. */
    if (out) {
        if (checked.corrupt)
            n_out = npy_drop(&npy, n_out, r->image_bytes, checked.corrupt,
                             &r->counts.write_failed);
        npy_close(&npy, b->out_npy, n_out, r->counts.write_failed, v);
    }
    if (b->out_labels)
        labels_write(b->out_labels, labels,
                     labels_drop(labels, n_out, checked.corrupt), v);
    free(labels);
    free(checked.corrupt);
    free(checked.corrupt_why);
    report_csv(b->opt.csv, &r->counts, &s, skipped, file_bytes, v);
    free(ms);
    return 0;
}

/* --print-engine: "JPEG engine: yes (...)" or "JPEG engine: none (why)"
 * for the device asked for; the tests ask it what to expect. */
static int print_engine(int device)
{
    struct cudaDeviceProp prop;
    cm_select_device(device, &prop);  /* exits 77 without a usable GPU */
    char why[256];
    int yes = nj_engine_present(why, sizeof why);
    if (yes < 0) {
        fprintf(stderr, "imgbatch: %s\n", why);
        return 1;
    }
    printf("JPEG engine: %s (%s)\n", yes ? "yes" : "none", why);
    return 0;
}

int main(int argc, char **argv)
{
    /* --make-corpus DIR ...: write a JPEG corpus (corpus_main.c); no GPU. */
    if (argc > 1 && strcmp(argv[1], "--make-corpus") == 0)
        return corpus_main(argc - 1, argv + 1);
    batch_options b;
    batch_cli_parse(argc, argv, &b);
    if (b.print_engine)
        return print_engine(b.lib.device);

    /* The files are checked before the GPU is touched, so bad input is
     * reported the same way without one. */
    imgbatch *loader;
    imgbatch_status st = imgbatch_open(&loader, &b.lib);
    if (st != IMGBATCH_OK) {
        fprintf(stderr, "imgbatch: %s\n", imgbatch_failure_reason());
        return st == IMGBATCH_ERR_NO_DEVICE ? CM_EXIT_NO_DEVICE
               : st == IMGBATCH_ERR_OPTIONS ? CM_EXIT_USAGE
                                            : CM_EXIT_FAIL;
    }
    /* The loader gives the caller's current device back; our own CUDA
     * calls (the .npy's waits, --bare-decode) go to its device. */
    CUDA_CHECK(cudaSetDevice(b.lib.device));
    /* The check's rows (the library keeps none): those of at most
     * --check-images images a pass; --bare-decode checks its last batch. */
    batch_run *run = imgbatch_run(loader);
    char why[BATCH_ERR_LEN];
    int cuda;
    if (pipeline_check_start(run, b.bare_decode ? run->max_batch
                                                : (size_t)b.check_images,
                             &cuda, why, sizeof why) != 0) {
        fprintf(stderr, "imgbatch: %s\n", why);
        imgbatch_close(loader);
        return CM_EXIT_FAIL;
    }
    /* One pass when writing files; else --repeat (3, --quick 1). */
    cm_verdict verdict = {0};
    int passes = b.out_npy || b.out_labels ? 1 : (int)b.opt.repeat;
    int rc = 0;
    if (b.bare_decode)
        bare_decode(imgbatch_run(loader), passes, &verdict);
    else
        rc = run_passes(loader, &b, passes, &verdict);
    imgbatch_close(loader);
    if (rc)
        return rc;  /* said in its one line */
    printf("\n");
    return cm_verdict_report(&verdict);
}
