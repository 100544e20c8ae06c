/* 02_interop - the lab: cp.asarray and cp.asnumpy written out as the CUDA
 * calls they are, and what each one costs, first call and steady state.
 *
 * Mirrors section 2.24.1.2.3 of the tutorial:
 *     x_np = np.array([1, 2, 3, 4])
 *     x_cp = cp.asarray(x_np)            # host -> device
 *     x_np_from_cp = cp.asnumpy(x_cp)    # device -> host
 * at the tutorial's two sizes: 4 elements and a 10000 x 10000 float64
 * array (800 MB). Each round trip is checked bit for bit. lesson.cu is the
 * short, standalone version; this program uses the helpers in common/.
 *
 * Run: make run-02    (options: make run-02 ARGS="--help")
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "array.h"
#include "check.h"
#include "device.h"
#include "files.h"
#include "options.h"
#include "random.h"
#include "timing.h"
#include "units.h"
#include "verify.h"

static const uint64_t RANDOM_SEED = 2024;

/* One array's trip: host source, device copy, host result. */
typedef struct {
    const char *label;
    cm_dtype dtype;
    size_t shape[2];
    int ndim;
    size_t nbytes;
    void *h_src, *h_back, *d_data;
} trip;

/* The copies, timed with CUDA events: the stop event completes
 * only after the copy's DMA, whatever the host sees. (A pageable cudaMemcpy
 * to the device may return once the data is in the driver's staging
 * buffer, before it reaches the GPU; to the host it returns when done.) */
static void h2d_region(void *ctx)
{
    trip *t = (trip *)ctx;
    CUDA_CHECK(cudaMemcpy(t->d_data, t->h_src, t->nbytes,
                          cudaMemcpyHostToDevice));
}

static void d2h_region(void *ctx)
{
    trip *t = (trip *)ctx;
    CUDA_CHECK(cudaMemcpy(t->h_back, t->d_data, t->nbytes,
                          cudaMemcpyDeviceToHost));
}

/* cudaMalloc alone, on the host clock: it enqueues nothing on a stream,
 * so CUDA events have nothing to bracket. Each allocation is freed outside
 * the timed interval, so the samples hold cudaMalloc and nothing else. */
static cm_stats time_malloc(size_t nbytes, int warmup, int repeat)
{
    int n = repeat > 0 ? repeat : 1;
    double *samples = (double *)cm_host_alloc((size_t)n * sizeof *samples,
                                              "cudaMalloc samples");
    for (int i = -warmup; i < n; i++) {
        void *d_tmp;
        double t0 = cm_now_ms();
        CUDA_CHECK(cudaMalloc(&d_tmp, nbytes));
        double ms = cm_now_ms() - t0;
        CUDA_CHECK(cudaFree(d_tmp));
        if (i >= 0)
            samples[i] = ms;
    }
    cm_stats s = cm_stats_of(samples, n);
    free(samples);
    return s;
}

/* The copies' steady state. A pageable copy's speed (mostly the CPU's
 * copy through the driver's staging buffers) drifts from second to
 * second, so H2D and D2H take turns within each repetition instead of
 * running as two batches one after the other: both directions sample the
 * same stretch of time, and their difference is theirs, not the drift's.
 * Each copy is bracketed by its own pair of CUDA events. */
static void time_copies(trip *t, int warmup, int repeat, cm_stats *h2d,
                        cm_stats *d2h)
{
    int n = repeat > 0 ? repeat : 1;
    double *h2d_ms = (double *)cm_host_alloc(2 * (size_t)n * sizeof(double),
                                             "copy samples");
    double *d2h_ms = h2d_ms + n;
    cm_event_timer timer = cm_timer_create(0);
    for (int i = -warmup; i < n; i++) {
        cm_timer_start(&timer);
        h2d_region(t);
        float in_ms = cm_timer_stop(&timer);
        cm_timer_start(&timer);
        d2h_region(t);
        float out_ms = cm_timer_stop(&timer);
        if (i >= 0) {
            h2d_ms[i] = in_ms;
            d2h_ms[i] = out_ms;
        }
    }
    cm_timer_destroy(&timer);
    *h2d = cm_stats_of(h2d_ms, n);
    *d2h = cm_stats_of(d2h_ms, n);
    free(h2d_ms);
}

static void print_row(FILE *csv, const trip *t, const char *step,
                      double first_ms, cm_stats steady, int is_copy)
{
    printf("  %-28s first %9.4f ms   steady %9.4f ms", step, first_ms,
           steady.median_ms);
    /* For a few bytes the time is the call's fixed cost, not the bytes:
     * a GB/s would mean nothing, so it is printed from 1 MB up. */
    if (is_copy && t->nbytes >= 1000000)
        printf("   %7.2f GB/s", cm_gbps((double)t->nbytes, steady.median_ms));
    printf("\n");
    /* The spread of the copies' steady runs, under their median. */
    if (is_copy)
        printf("  %-28s %28s%9.4f - %.4f ms\n", "", "steady min - max",
               steady.min_ms, steady.max_ms);
    if (csv)
        fprintf(csv, "%s,%zu,%s,%.6f,%.6f,%.6f,%.3f\n", t->label, t->nbytes,
                step, first_ms, steady.median_ms, steady.min_ms,
                is_copy ? cm_gbps((double)t->nbytes, steady.median_ms) : 0);
}

/* asarray and asnumpy for one array: the first call of each step on the
 * host clock, then the steady state as a median after warm-up (the copies
 * on CUDA events, cudaMalloc on the host clock), then a bit-exact compare
 * of what came back. */
static void run_trip(trip *t, const cm_options *opt, FILE *csv,
                     cm_verdict *verdict)
{
    char bytes[64];
    printf("\n%s: %s, %s\n", t->label, cm_dtype_name(t->dtype),
           cm_fmt_bytes(t->nbytes, bytes, sizeof bytes));

    /* x_cp = cp.asarray(x_np): allocate device memory, copy the bytes.
     * (The free-memory check comes first: it is not part of asarray.) */
    cm_require_device_bytes(t->nbytes, t->label);
    double t0 = cm_now_ms();
    CUDA_CHECK(cudaMalloc(&t->d_data, t->nbytes));
    double first_malloc = cm_now_ms() - t0;
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMemcpy(t->d_data, t->h_src, t->nbytes,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());  /* the DMA may still be running */
    double first_h2d = cm_now_ms() - t0;

    /* x_np_from_cp = cp.asnumpy(x_cp): host memory, copy back. The first
     * copy into freshly malloc'd memory also pays for the page faults that
     * give the process that memory. */
    t->h_back = cm_host_alloc(t->nbytes, "the asnumpy result");
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMemcpy(t->h_back, t->d_data, t->nbytes,
                          cudaMemcpyDeviceToHost));
    double first_d2h = cm_now_ms() - t0;

    if (t->ndim == 1 && t->shape[0] <= 10) {
        printf("  print(x_cp)           ");
        char *text = cm_format(t->h_back, t->dtype, t->ndim, t->shape);
        printf("%s   (printing copies it back)\n", text);
        free(text);
    }
    cm_check_equal(verdict, "asnumpy(asarray(x)) == x", t->h_back, t->h_src,
                   t->dtype, t->nbytes / cm_dtype_size(t->dtype));

    int warmup = (int)opt->warmup, repeat = (int)opt->repeat;
    cm_stats malloc_s = time_malloc(t->nbytes, warmup, repeat);
    /* Wiped, so that the check below sees what the timed copies wrote. */
    memset(t->h_back, 0, t->nbytes);
    cm_stats h2d_s, d2h_s;
    time_copies(t, warmup, repeat, &h2d_s, &d2h_s);
    print_row(csv, t, "asarray: cudaMalloc", first_malloc, malloc_s, 0);
    print_row(csv, t, "asarray: cudaMemcpy H2D", first_h2d, h2d_s, 1);
    print_row(csv, t, "asnumpy: cudaMemcpy D2H", first_d2h, d2h_s, 1);

    /* The timed repeats rewrote both buffers: check the last trip too. */
    cm_check_equal(verdict, "after timed repeats", t->h_back, t->h_src,
                   t->dtype, t->nbytes / cm_dtype_size(t->dtype));
    CUDA_CHECK(cudaFree(t->d_data));
    free(t->h_back);
}

int main(int argc, char **argv)
{
    size_t side = 10000;
    cm_opt own[] = {
        {.name = "n", .type = CM_OPT_SIZE, .value = &side, .metavar = "N",
         .help = "side of the large N x N float64 array",
         .min = 1, .max = 1 << 20},
    };
    cm_cli cli = {.program = "02_interop",
                  .summary = "cp.asarray / cp.asnumpy as cudaMalloc + "
                             "cudaMemcpy, with the cost of each step.",
                  .opts = own, .n_opts = sizeof own / sizeof own[0]};
    cm_options opt = cm_options_default();
    cm_parse_or_exit(&cli, &opt, argc, argv);
    if (opt.quick) {
        side = side < 1000 ? side : 1000;
        if (!opt.repeat_given)
            opt.repeat = 3;
    }
    size_t big_bytes = cm_mul_size(cm_mul_size(side, side, "--n"),
                                   sizeof(double), "--n");
    /* Before the GPU is touched: host memory for the large array and its
     * copy back, and the CSV file, so that a size or a path that cannot
     * work fails at once, in one line. */
    cm_require_host_bytes(cm_mul_size(2, big_bytes, "--n"),
                          "the large array and its copy back");
    cm_out_file csv_file;
    FILE *csv = cm_csv_open(&csv_file, opt.csv,
                            "array,bytes,step,first_ms,steady_ms_median,"
                            "steady_ms_min,gb_per_s");

    /* The first CUDA calls of a process start the driver and create the
     * context on the GPU: driver state, the device's address space. It is
     * paid once, and CuPy pays it inside the first cp.asarray. We time
     * cm_select_device, this program's first CUDA calls, which does all of
     * it and a little more: cudaGetDeviceCount (the driver starts),
     * cudaGetDeviceProperties, cudaSetDevice and cudaFree(0) (the context,
     * since CUDA 12 made by cudaSetDevice), and the device line it prints. */
    double t0 = cm_now_ms();
    cm_select_device((int)opt.device, NULL);
    double startup_ms = cm_now_ms() - t0;
    printf("CUDA start-up: driver, device query, context (cm_select_device, "
           "host clock): %.1f ms\n", startup_ms);
    printf("timing: 'first' = the first call, host clock; 'steady' = median"
           " of %lld after %lld warm-up(s),\n        copies on CUDA events,"
           " H2D and D2H in turn in each run; cudaMalloc on the\n        "
           "host clock (freed outside the timing)\n", opt.repeat,
           opt.warmup);

    cm_verdict verdict = {0};

    /* The tutorial's x_np = np.array([1, 2, 3, 4]): int64, 32 bytes. */
    int64_t h_small[4] = {1, 2, 3, 4};
    trip small = {.label = "x_np = np.array([1, 2, 3, 4])",
                  .dtype = CM_INT64, .shape = {4, 0}, .ndim = 1,
                  .nbytes = sizeof h_small, .h_src = h_small};
    run_trip(&small, &opt, csv, &verdict);

    /* np.random.rand(side, side): the tutorial's 2.24.5 array by default,
     * which chapters 04 and 07 use too. */
    trip big = {.label = "x_np = np.random.rand(N, N)",
                .dtype = CM_FLOAT64, .shape = {side, side}, .ndim = 2,
                .nbytes = big_bytes};
    printf("\n(N = %zu)", side);
    big.h_src = cm_host_alloc(big_bytes, "the large array");
    cm_fill_uniform_f64((double *)big.h_src, side * side, RANDOM_SEED);
    run_trip(&big, &opt, csv, &verdict);
    free(big.h_src);

    printf("\nFor 32 bytes the time is all fixed cost (a driver call, a DMA"
           " setup), so no GB/s\nis shown. For the large array the rate is"
           " set by the pageable path: the driver\nstages the data through"
           " its own pinned buffer, piece by piece; chapter 07 copies\n"
           "from pinned memory directly and shows how much faster that"
           " is.\n\n");
    cm_csv_finish(&csv_file, &verdict);   /* kept only if every check passed */
    return cm_verdict_report(&verdict);
}
