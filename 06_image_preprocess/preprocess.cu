/* 06_image_preprocess - deep-learning preprocessing on the GPU: an 8-bit
 * gray image becomes a float32 tensor in [0, 1], flipped left to right.
 *
 * Mirrors section 2.24.4.2 of the tutorial:
 *     image = cv2.imread('path_to_image.jpg', cv2.IMREAD_GRAYSCALE)
 *     image_cp = cp.asarray(image)
 *     image_normalized = image_cp.astype(cp.float32) / 255.0
 *     image_flipped = cp.flip(image_normalized, axis=1)
 * first step by step (the tutorial's three steps as three kernels, one
 * thread per element), then as one fused kernel (both in kernels.cu);
 * both are timed against the GPU's measured copy rate, and the whole
 * round trip against the floor its copies and kernel set (floor.h). Many
 * images are the batch tool's (batch/, imgbatch).
 *
 * Run: make run-06          (a built-in 10000 x 10000 test image)
 *      make run-06 ARGS="photo.jpg --out-png flipped.png --out-npy x.npy"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "ceiling.h"
#include "check.h"
#include "cli.h"
#include "device.h"
#include "floor.h"
#include "image_io.h"
#include "kernels.h"
#include "options.h"
#include "outputs.h"
#include "reference.h"
#include "timing.h"
#include "units.h"
#include "verify.h"

/* Copies reach full speed from some MiB on: the device-copy ceiling is
 * measured on the tensor's size, but never on less than this. */
static const size_t MIN_CEILING_BYTES = (size_t)64 << 20;
/* Bytes each path moves per pixel: astype reads 1 and writes 4, the
 * division reads and writes 4, the flip copy reads and writes 4. */
static const double STEP_BYTES_PER_PIXEL[NAIVE_STEPS] = {1 + 4, 4 + 4,
                                                          4 + 4};
static const char *const STEP_NAMES[NAIVE_STEPS] = {
    "astype(float32)", "/ 255.0 (in place)", "flip copy"};
static const double NAIVE_BYTES_PER_PIXEL = 1 + 4 + 4 + 4 + 4 + 4;
static const double FUSED_BYTES_PER_PIXEL = 1 + 4;

typedef struct {
    const uint8_t *d_in;
    float *d_float, *d_out;
    size_t width, height;
    cudaStream_t stream;
} gpu_job;

/* The tutorial's three steps as three kernels, one thread per element
 * (kernels.cu). CuPy would allocate a new array for the division; we
 * divide in place, which moves the same bytes. */
static void naive_region(void *ctx)
{
    const gpu_job *j = (const gpu_job *)ctx;
    launch_naive_steps(j->d_out, j->d_float, j->d_in, j->width, j->height,
                       j->stream);
}

static void fused_region(void *ctx)
{
    const gpu_job *j = (const gpu_job *)ctx;
    launch_normalize_flip(j->d_out, j->d_in, j->width, j->height, j->stream);
}

/* The naive path's three kernels, each timed on its own: events between
 * the kernels of one run, so each step reads what the step before wrote,
 * as in the path. --warmup runs, then --repeat timed ones; medians. */
static void time_naive_steps(const gpu_job *j, int warmup, int repeat,
                             cm_stats *steps)
{
    cudaEvent_t ev[NAIVE_STEPS + 1];
    for (int k = 0; k <= NAIVE_STEPS; k++)
        CUDA_CHECK(cudaEventCreate(&ev[k]));
    double *ms = (double *)cm_host_alloc(
        (size_t)NAIVE_STEPS * (size_t)repeat * sizeof(double), "timings");
    for (int r = -warmup; r < repeat; r++) {
        for (int k = 0; k < NAIVE_STEPS; k++) {
            CUDA_CHECK(cudaEventRecord(ev[k], j->stream));
            launch_naive_step((naive_step)k, j->d_out, j->d_float, j->d_in,
                              j->width, j->height, j->stream);
        }
        CUDA_CHECK(cudaEventRecord(ev[NAIVE_STEPS], j->stream));
        CUDA_CHECK(cudaEventSynchronize(ev[NAIVE_STEPS]));
        for (int k = 0; r >= 0 && k < NAIVE_STEPS; k++) {
            float step_ms;
            CUDA_CHECK(cudaEventElapsedTime(&step_ms, ev[k], ev[k + 1]));
            ms[(size_t)k * repeat + r] = step_ms;
        }
    }
    for (int k = 0; k < NAIVE_STEPS; k++)
        steps[k] = cm_stats_of(ms + (size_t)k * repeat, repeat);
    for (int k = 0; k <= NAIVE_STEPS; k++)
        CUDA_CHECK(cudaEventDestroy(ev[k]));
    free(ms);
}

typedef struct {
    gpu_job gpu;
    const uint8_t *h_in;
    float *h_out;
} round_trip;

/* What a preprocessing call costs the caller: the image in, the kernel,
 * the tensor out. Timed on the host clock, so it ends with a synchronize:
 * the result is not on the host until the stream has finished. */
static void round_trip_region(void *ctx)
{
    const round_trip *r = (const round_trip *)ctx;
    size_t n = r->gpu.width * r->gpu.height;
    CUDA_CHECK(cudaMemcpyAsync((void *)r->gpu.d_in, r->h_in, n,
                               cudaMemcpyHostToDevice, r->gpu.stream));
    fused_region((void *)&r->gpu);
    CUDA_CHECK(cudaMemcpyAsync(r->h_out, r->gpu.d_out, n * sizeof(float),
                               cudaMemcpyDeviceToHost, r->gpu.stream));
    CUDA_CHECK(cudaStreamSynchronize(r->gpu.stream));
}

/* One timed step: a row of the report (and of the --csv file); indent 1
 * for a part of the row above. */
static timing_row report(const char *step, double bytes, cm_stats s,
                         double ceiling_gbps, int indent)
{
    timing_row row = {.step = step, .bytes = bytes, .stats = s};
    double gbps = cm_gbps(bytes, s.median_ms);
    printf("  %*s%-*s %9.3f ms median (min %.3f, max %.3f), %8.1f GB/s",
           2 * indent, "", 22 - 2 * indent, step, s.median_ms, s.min_ms,
           s.max_ms, gbps);
    if (ceiling_gbps > 0)
        printf(" = %5.1f%% of device copy", 100.0 * gbps / ceiling_gbps);
    return row;
}

/* Pageable memory (malloc) is what cv2.imread and NumPy hand us: the
 * driver must stage it through a pinned buffer of its own. Pinned memory
 * (cudaMallocHost) the copy engines read and write directly. */
static void time_round_trips(const gpu_job *job, const uint8_t *h_gray,
                             const float *h_ref, double floor_ms,
                             int warmup, int repeat, cm_verdict *v,
                             timing_row *rows)
{
    size_t n = job->width * job->height, out_bytes = n * sizeof(float);
    uint8_t *h_in[2];
    float *h_result[2];
    h_in[0] = (uint8_t *)cm_host_alloc(n, "the pageable image");
    h_result[0] = (float *)cm_host_alloc(out_bytes, "the pageable tensor");
    CUDA_CHECK(cudaMallocHost(&h_in[1], n));
    CUDA_CHECK(cudaMallocHost(&h_result[1], out_bytes));
    const char *names[2] = {"pageable round trip", "pinned round trip"};
    for (int k = 0; k < 2; k++) {
        memcpy(h_in[k], h_gray, n);
        memset(h_result[k], 0xff, out_bytes);
        round_trip r = {.gpu = *job, .h_in = h_in[k], .h_out = h_result[k]};
        cm_stats s = cm_time_host(round_trip_region, &r, warmup, repeat);
        rows[k] = report(names[k], FUSED_BYTES_PER_PIXEL * (double)n, s, 0,
                         0);
        printf(", %.2fx the floor\n", s.median_ms / floor_ms);
        cm_check_equal(v, names[k], h_result[k], h_ref, CM_FLOAT32, n);
    }
    free(h_in[0]);
    free(h_result[0]);
    CUDA_CHECK(cudaFreeHost(h_in[1]));
    CUDA_CHECK(cudaFreeHost(h_result[1]));
}

int main(int argc, char **argv)
{
    /* Every check on the command line and the input file comes before
     * the GPU is touched, so bad input is reported the same way on a
     * machine without one. */
    job_config cfg;
    cli_parse(argc, argv, &cfg);
    const cm_options opt = cfg.opt;
    size_t width = cfg.width, height = cfg.height;
    char err[1280];

    /* cv2.imread(path, cv2.IMREAD_GRAYSCALE): decoded on the CPU. */
    io_image img;
    memset(&img, 0, sizeof img);
    double load_ms = 0;
    if (cfg.image) {
        double start = cm_now_ms();
        if (io_load_gray(cfg.image, cfg.max_pixels, &img, err, sizeof err))
            cm_fail("%s", err);
        load_ms = cm_now_ms() - start;
        width = img.width;
        height = img.height;
    }
    size_t n = cm_mul_size(width, height, "the image");
    size_t out_bytes = cm_mul_size(n, sizeof(float), "the tensor");
    uint8_t *h_gray = img.pixels;
    if (!h_gray) {
        h_gray = (uint8_t *)cm_host_alloc(n, "the built-in image");
        ref_synthetic(h_gray, width, height);
    }

    struct cudaDeviceProp prop;
    cm_select_device((int)opt.device, &prop);
    char text[96];
    if (img.pixels) {
        io_describe(&img.info, text, sizeof text);
        printf("image: %s (%s) read as 8-bit gray, like "
               "cv2.IMREAD_GRAYSCALE, in %.1f ms\n", cfg.image, text,
               load_ms);
    } else {
        printf("image: built-in test image (no IMAGE given): a ramp over "
               "all 256 gray levels\n");
    }
    printf("  shape (%zu, %zu) uint8: %s\n", height, width,
           cm_fmt_bytes(n, text, sizeof text));
    printf("tensor: shape (%zu, %zu) float32: %s\n", height, width,
           cm_fmt_bytes(out_bytes, text, sizeof text));

    /* The ceilings, measured on this GPU: a device-to-device copy (each
     * byte read once and written once: the rate the driver's own copy
     * reaches, a practical ceiling for one pass over memory, not a bound
     * a kernel cannot pass), and pinned copies over PCIe of exactly our
     * image and tensor. */
    int warmup = (int)opt.warmup, repeat = (int)opt.repeat;
    double copy_gbps = cm_measure_device_copy_gbps(
        out_bytes > MIN_CEILING_BYTES ? out_bytes : MIN_CEILING_BYTES,
        warmup, repeat);
    double h2d_gbps = cm_measure_pinned_gbps(n, cudaMemcpyHostToDevice,
                                             warmup, repeat);
    double d2h_gbps = cm_measure_pinned_gbps(out_bytes,
                                             cudaMemcpyDeviceToHost, warmup,
                                             repeat);
    double in_ms = (double)n / (h2d_gbps * 1e6);
    double out_ms = (double)out_bytes / (d2h_gbps * 1e6);
    printf("ceilings (measured): device copy %.1f GB/s (read + write), "
           "pinned H2D %.1f GB/s, pinned D2H %.1f GB/s\n", copy_gbps,
           h2d_gbps, d2h_gbps);

    /* cp.asarray(image): the image on the device, plus the float32
     * intermediate of the step-by-step path and the result. */
    uint8_t *d_in;
    float *d_float, *d_out;
    cm_require_device_bytes(n + 2 * out_bytes, "image, intermediate, tensor");
    CUDA_CHECK(cudaMalloc(&d_in, n));
    CUDA_CHECK(cudaMalloc(&d_float, out_bytes));
    CUDA_CHECK(cudaMalloc(&d_out, out_bytes));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaMemcpy(d_in, h_gray, n, cudaMemcpyHostToDevice));
    float *h_ref = (float *)cm_host_alloc(out_bytes, "the CPU reference");
    float *h_out = (float *)cm_host_alloc(out_bytes, "the GPU result");
    ref_normalize_flip(h_ref, h_gray, width, height);

    /* Both paths, timed (median of --repeat after --warmup) and checked
     * exactly: float32 x / 255.0f is correctly rounded on the CPU and the
     * GPU alike. d_out is first filled with NaN bytes, so a path that
     * wrote nothing cannot pass on the other path's result. */
    cm_verdict verdict = {0};
    gpu_job job = {.d_in = d_in, .d_float = d_float, .d_out = d_out,
                   .width = width, .height = height, .stream = stream};
    const char *names[2] = {"naive (3 kernels)", "fused (1 kernel)"};
    cm_region_fn regions[2] = {naive_region, fused_region};
    const double bytes_per_pixel[2] = {NAIVE_BYTES_PER_PIXEL,
                                       FUSED_BYTES_PER_PIXEL};
    timing_row rows[4 + NAIVE_STEPS];
    printf("\nkernels (CUDA events; GB/s counts the bytes each reads and "
           "writes, %.0f and %.0f per pixel):\n", NAIVE_BYTES_PER_PIXEL,
           FUSED_BYTES_PER_PIXEL);
    for (int p = 0; p < 2; p++) {
        CUDA_CHECK(cudaMemset(d_out, 0xff, out_bytes));
        cm_stats s = cm_time_events(regions[p], &job, stream, warmup, repeat);
        rows[p] = report(names[p], bytes_per_pixel[p] * (double)n, s,
                         copy_gbps, 0);
        printf("\n");
        CUDA_CHECK(cudaMemcpy(h_out, d_out, out_bytes,
                              cudaMemcpyDeviceToHost));
        cm_check_equal(&verdict, names[p], h_out, h_ref, CM_FLOAT32, n);
        if (p > 0)
            continue;
        /* Where the naive path's time goes, step by step. */
        cm_stats steps[NAIVE_STEPS];
        time_naive_steps(&job, warmup, repeat, steps);
        for (int k = 0; k < NAIVE_STEPS; k++) {
            rows[4 + k] = report(STEP_NAMES[k],
                                 STEP_BYTES_PER_PIXEL[k] * (double)n,
                                 steps[k], copy_gbps, 1);
            printf("\n");
        }
    }
    printf("  fused is %.2fx faster than naive: it moves %.1fx fewer "
           "bytes, at %.2fx the naive path's GB/s\n",
           rows[0].stats.median_ms / rows[1].stats.median_ms,
           NAIVE_BYTES_PER_PIXEL / FUSED_BYTES_PER_PIXEL,
           rows[0].stats.median_ms / rows[1].stats.median_ms /
               (NAIVE_BYTES_PER_PIXEL / FUSED_BYTES_PER_PIXEL));

    /* Each round trip below copies the whole image in, computes, copies
     * the whole tensor out: each step waits for the one before, so it can
     * do no better than their sum. The floor is what the same work cut
     * into bands could approach, one band's copy out overlapping the next
     * band's copy in and kernel, on the copy engines this GPU has. */
    int engines = prop.asyncEngineCount;
    double fused_ms = rows[1].stats.median_ms;
    double floor_ms = cm_overlap_floor_ms(fused_ms, in_ms, out_ms, engines);
    char formula[160];
    printf("\nround trips (H2D + fused kernel + D2H, host clock):\n");
    printf("  one step after another: in %.3f + kernel %.3f + out %.3f = "
           "%.3f ms\n", in_ms, fused_ms, out_ms, in_ms + fused_ms + out_ms);
    printf("  floor, overlapped in bands: %.3f ms = %s (%d copy engines: "
           "%s)\n", floor_ms, cm_overlap_floor_text(formula, sizeof formula,
           "kernel", fused_ms, in_ms, out_ms, engines), engines,
           cm_copy_engines_meaning(engines));
    time_round_trips(&job, h_gray, h_ref, floor_ms, warmup, repeat,
                     &verdict, rows + 2);
    if (img.pixels)
        printf("  end to end: %.1f ms decode + %.3f ms pinned round trip\n",
               load_ms, rows[3].stats.median_ms);

    /* What a person can open: the flipped image back in 8 bits as a PNG
     * and the float32 tensor as .npy, then the timings as CSV, each
     * written only if all checks held (cli_parse checked at the start
     * that each can be created). One after the other, so that two that
     * name the same file never write into each other. */
    printf("\n");
    save_outputs(cfg.out_png, cfg.out_npy, h_out, h_gray, width, height,
                 &verdict);
    if (opt.csv)
        save_csv(opt.csv, rows, 4 + NAIVE_STEPS, &verdict);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_float));
    CUDA_CHECK(cudaFree(d_out));
    free(h_ref);
    free(h_out);
    if (img.pixels)
        io_image_free(&img);
    else
        free(h_gray);
    printf("\n");
    return cm_verdict_report(&verdict);
}
