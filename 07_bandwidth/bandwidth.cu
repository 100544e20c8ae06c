/* 07_bandwidth - how fast data crosses between host and GPU, measured
 * right: pageable vs pinned memory, many small copies vs one batched copy,
 * both directions at once, copies overlapped with compute.
 *
 * Mirrors section 2.24.5 of the tutorial:
 *     x_np = np.random.rand(10000, 10000)
 *     start_time = time.time()
 *     x_cp = cp.asarray(x_np)
 *     transfer_time = time.time() - start_time
 * and corrects it: that first call also starts the driver and creates the
 * CUDA context, so its "bandwidth" is mostly start-up; its pinned example
 * (`cp pinned_array(x_np)`) is not valid code; and its "batched transfer"
 * is ten separate 800 MB copies, not a batch.
 *
 * Run: make run-07    (options: make run-07 ARGS="--help"; a size sweep:
 *      make run-07 ARGS="--sweep --csv sweep.csv", then make plot-07;
 *      every GPU of the machine: ARGS="--all-gpus" with the host, in
 *      all_gpus.cu, and ARGS="--p2p" with each other, in p2p.cu)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "ceiling.h"
#include "check.h"
#include "device.h"
#include "files.h"
#include "options.h"
#include "plan.h"
#include "random.h"
#include "timing.h"
#include "units.h"

static const uint64_t RANDOM_SEED = 2245;
/* Pinned copies of these sizes (bytes) define the link's practical
 * maximum; large enough that the fixed cost per copy is negligible. */
static const size_t CEILING_BYTES[3] = {16u << 20, 64u << 20, 256u << 20};
static const size_t QUICK_CEILING_BYTES[3] = {1u << 20, 2u << 20, 4u << 20};

/* For the host clock: a pageable cudaMemcpy host-to-device may return
 * once the last piece is staged, before it reaches the GPU, so we wait
 * for the device before the clock is read. */
static void copy_and_wait_region(void *ctx)
{
    bw_copy_region(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* A pageable copy's speed (mostly the CPU's copy through the staging
 * buffers) drifts from second to second. So the host clock and the
 * events take turns within each repetition, the host clock first in even
 * ones and the events first in odd ones: both columns sample the same
 * stretch of time, and only the clocks differ. */
static void time_both_clocks(bw_copy *job, int warmup, int repeat,
                             cm_stats *host, cm_stats *events)
{
    int n = repeat > 0 ? repeat : 1;
    double *host_ms = (double *)cm_host_alloc(2 * (size_t)n * sizeof(double),
                                              "the timings");
    double *event_ms = host_ms + n;
    cm_event_timer timer = cm_timer_create(0);
    for (int i = 0; i < warmup; i++)
        copy_and_wait_region(job);
    for (int i = 0; i < n; i++)
        for (int turn = 0; turn < 2; turn++) {
            if ((i + turn) % 2 == 0) {
                double t0 = cm_now_ms();
                copy_and_wait_region(job);
                host_ms[i] = cm_now_ms() - t0;
            } else {
                cm_timer_start(&timer);
                bw_copy_region(job);
                event_ms[i] = cm_timer_stop(&timer);
            }
        }
    cm_timer_destroy(&timer);
    *host = cm_stats_of(host_ms, n);
    *events = cm_stats_of(event_ms, n);
    free(host_ms);
}

/* One line of part 1's warm table: median, its rate, and the spread. */
static void print_clock_row(const char *name, const char *clock,
                            cm_stats s, double bytes)
{
    printf("     %-14s%-12s%8.2f ms %7.2f GB/s %9.2f - %.2f ms\n", name,
           clock, s.median_ms, cm_gbps(bytes, s.median_ms), s.min_ms,
           s.max_ms);
}

/* Part 1: the tutorial's timing (first call, host clock) beside the right
 * one (warm-up, CUDA events, median), for pageable memory both ways. The
 * device is selected here, inside the first timed step, because that is
 * where the tutorial's first cp.asarray pays for it. */
static void part1_tutorial(bw_report *r, bw_buffers *b, int device,
                           size_t device_bytes, size_t side)
{
    char text[64];
    double t0 = cm_now_ms();
    cm_select_device(device, NULL);
    double startup_ms = cm_now_ms() - t0;
    printf("GB/s = 1e9 bytes/s; each rate counts the bytes copied, once per "
           "direction\n(H2D: host to device, D2H: device to host)\n");
    printf("\n1. The tutorial's measurement: x_cp = cp.asarray(x_np), "
           "x_np a %zu x %zu float64\n   array of %s\n", side, side,
           cm_fmt_bytes(b->bytes, text, sizeof text));
    cm_require_device_bytes(device_bytes, "the arrays of this chapter");
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMalloc((void **)&b->d_x, b->bytes));
    double malloc_ms = cm_now_ms() - t0;
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMemcpy(b->d_x, b->h_x, b->bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    double first_h2d_ms = cm_now_ms() - t0;
    /* cp.asnumpy-style: into memory the OS has not handed over yet, so
     * the first copy also pays a page fault per page (4 KiB, or 2 MiB
     * where transparent huge pages back it). */
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMemcpy(b->h_scratch, b->d_x, b->bytes,
                          cudaMemcpyDeviceToHost));
    double first_d2h_ms = cm_now_ms() - t0;
    double tutorial_ms = startup_ms + malloc_ms + first_h2d_ms;
    double bytes = (double)b->bytes;
    printf("   first calls, host clock (what time.time() around them "
           "sees):\n");
    printf("     start-up: driver + context (cudaSetDevice) %10.1f ms\n",
           startup_ms);
    printf("     cudaMalloc of the array                    %10.1f ms\n",
           malloc_ms);
    printf("     first cudaMemcpy H2D                       %10.1f ms "
           "%7.2f GB/s\n", first_h2d_ms, cm_gbps(bytes, first_h2d_ms));
    printf("     = the tutorial's first cp.asarray          %10.1f ms "
           "%7.2f GB/s\n", tutorial_ms, cm_gbps(bytes, tutorial_ms));
    printf("       (it prints %.1f \"MB/s\": its MB is 2^20 bytes)\n",
           bytes / 1048576.0 / (tutorial_ms * 1e-3));
    printf("     first cudaMemcpy D2H, fresh malloc memory  %10.1f ms "
           "%7.2f GB/s\n", first_d2h_ms, cm_gbps(bytes, first_d2h_ms));
    bw_check_host(&r->verdict, "first round trip", b->h_scratch, b->h_x,
                  b->bytes);
    bw_add_row(r, "pageable H2D, tutorial way", b->bytes, "H2D",
               tutorial_ms);

    /* The right way: the same copies, warm, many times, median. Once the
     * host waits for the GPU before reading it, the host clock times the
     * same span as the events; the spread (min - max) shows how far one
     * run strays from the next. */
    printf("   warm (after %d untimed), %d runs on each clock, the two "
           "clocks in turn:\n%39s%34s\n", r->warmup, r->repeat, "median",
           "spread: min - max");
    /* cudaMemcpy (async = 0) on the legacy default stream, as
     * cp.asarray and cp.asnumpy of a NumPy array would. */
    bw_copy h2d = {.dst = b->d_x, .src = b->h_x, .bytes = b->bytes,
                   .kind = cudaMemcpyHostToDevice, .stream = 0, .async = 0};
    bw_copy d2h = {.dst = b->h_scratch, .src = b->d_x, .bytes = b->bytes,
                   .kind = cudaMemcpyDeviceToHost, .stream = 0, .async = 0};
    const char *names[2] = {"pageable H2D", "pageable D2H"};
    bw_copy *jobs[2] = {&h2d, &d2h};
    double *rates[2] = {&b->pageable_h2d_gbps, &b->pageable_d2h_gbps};
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            bw_poison_device(b->d_x, b->bytes);
        else
            bw_poison_host(b->h_scratch, b->bytes);
        cm_stats host, events;
        time_both_clocks(jobs[k], r->warmup, r->repeat, &host, &events);
        print_clock_row(names[k], "host clock", host, bytes);
        print_clock_row("", "CUDA events", events, bytes);
        *rates[k] = bw_add_row(r, names[k], b->bytes,
                               k == 0 ? "H2D" : "D2H", events.median_ms);
        if (k == 0)
            bw_check_device(&r->verdict, "pageable H2D", b->d_x, b->h_x,
                            b->bytes, b->h_scratch);
        else
            bw_check_host(&r->verdict, "pageable D2H", b->h_scratch,
                          b->h_x, b->bytes);
    }
    printf("   the tutorial's way says %.2f GB/s, the right way %.2f GB/s: "
           "%.0f%% of its one\n   timed call was start-up and allocation, "
           "not copying\n", cm_gbps(bytes, tutorial_ms),
           b->pageable_h2d_gbps,
           100.0 * (startup_ms + malloc_ms) / tutorial_ms);
}

/* Part 2, continued: memory the program already has, such as a NumPy
 * array's (here x_np itself), pinned where it lies. cudaHostRegister locks
 * its pages: no second buffer and no copy into one, but the locking costs
 * about what cudaMallocHost's does, and the memory must be unregistered
 * (cudaHostUnregister) before it is freed. */
static void part2_registered(bw_report *r, bw_buffers *b,
                             cudaStream_t stream)
{
    int device, supported = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&supported,
                                      cudaDevAttrHostRegisterSupported,
                                      device));
    if (!supported) {
        printf("   cudaHostRegister: not supported on this device\n");
        bw_add_unmeasured_row(r, "registered H2D", "not supported here");
        return;
    }
    void *h_x = (void *)b->h_x;   /* locked in place, never written */
    double t0 = cm_now_ms();
    CUDA_CHECK(cudaHostRegister(h_x, b->bytes, cudaHostRegisterDefault));
    double register_ms = cm_now_ms() - t0;
    bw_copy h2d = {.dst = b->d_x, .src = b->h_x, .bytes = b->bytes,
                   .kind = cudaMemcpyHostToDevice, .stream = stream,
                   .async = 1};
    bw_poison_device(b->d_x, b->bytes);
    cm_stats s = cm_time_events(bw_copy_region, &h2d, stream, r->warmup,
                                r->repeat);
    double gbps = bw_add_row(r, "registered H2D", b->bytes, "H2D",
                             s.median_ms);
    bw_check_device(&r->verdict, "registered H2D", b->d_x, b->h_x, b->bytes,
                    b->h_scratch);
    t0 = cm_now_ms();
    CUDA_CHECK(cudaHostUnregister(h_x));   /* x_np is pageable again */
    printf("   x_np pinned where it lies: cudaHostRegister took %.1f ms, "
           "cudaHostUnregister\n   %.1f ms; H2D %.2f ms (%.2f - %.2f) "
           "%.2f GB/s (%.2fx pageable)\n", register_ms, cm_now_ms() - t0,
           s.median_ms, s.min_ms, s.max_ms, gbps,
           gbps / b->pageable_h2d_gbps);
}

/* Part 2: pinned memory. The copy engine can read only memory that stays
 * put at a known physical address; pageable memory is first copied by the
 * CPU into a pinned staging buffer inside the driver, pinned memory is
 * read by the engine directly (DMA). */
static void part2_pinned(bw_report *r, bw_buffers *b, int quick)
{
    char text[64];
    printf("\n2. Pinned (page-locked) host memory, the same %s\n",
           cm_fmt_bytes(b->bytes, text, sizeof text));
    /* Pinning is slow (the OS locks every page), so pin once and reuse.
     * cudaHostAlloc with flags is the general form of cudaMallocHost. */
    double t0 = cm_now_ms();
    CUDA_CHECK(cudaMallocHost((void **)&b->h_pinned, b->bytes));
    double pin_ms = cm_now_ms() - t0;
    t0 = cm_now_ms();
    CUDA_CHECK(cudaHostAlloc((void **)&b->h_pinned_back, b->bytes,
                             cudaHostAllocDefault));
    double pin_back_ms = cm_now_ms() - t0;
    memcpy(b->h_pinned, b->h_x, b->bytes);
    printf("   cudaMallocHost took %.1f ms, cudaHostAlloc %.1f ms: pin once, "
           "reuse\n", pin_ms, pin_back_ms);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    bw_copy h2d = {.dst = b->d_x, .src = b->h_pinned, .bytes = b->bytes,
                   .kind = cudaMemcpyHostToDevice, .stream = stream,
                   .async = 1};
    bw_copy d2h = {.dst = b->h_pinned_back, .src = b->d_x, .bytes = b->bytes,
                   .kind = cudaMemcpyDeviceToHost, .stream = stream,
                   .async = 1};
    bw_poison_device(b->d_x, b->bytes);
    cm_stats s = cm_time_events(bw_copy_region, &h2d, stream, r->warmup,
                                r->repeat);
    b->pinned_h2d_gbps = bw_add_row(r, "pinned H2D", b->bytes, "H2D",
                                    s.median_ms);
    bw_check_device(&r->verdict, "pinned H2D", b->d_x, b->h_x, b->bytes,
                    b->h_scratch);
    bw_poison_host(b->h_pinned_back, b->bytes);
    cm_stats t = cm_time_events(bw_copy_region, &d2h, stream, r->warmup,
                                r->repeat);
    b->pinned_d2h_gbps = bw_add_row(r, "pinned D2H", b->bytes, "D2H",
                                    t.median_ms);
    bw_check_host(&r->verdict, "pinned D2H", b->h_pinned_back, b->h_x,
                  b->bytes);
    printf("   cudaMemcpyAsync, median of %d (min - max):\n   H2D %.2f ms "
           "(%.2f - %.2f) %.2f GB/s (%.2fx pageable),\n   D2H %.2f ms "
           "(%.2f - %.2f) %.2f GB/s (%.2fx pageable)\n", r->repeat,
           s.median_ms, s.min_ms, s.max_ms, b->pinned_h2d_gbps,
           b->pinned_h2d_gbps / b->pageable_h2d_gbps, t.median_ms, t.min_ms,
           t.max_ms, b->pinned_d2h_gbps,
           b->pinned_d2h_gbps / b->pageable_d2h_gbps);
    part2_registered(r, b, stream);
    CUDA_CHECK(cudaStreamDestroy(stream));

    /* The practical maximum of the link: the best median over pinned
     * copies of other sizes, measured now on this machine. */
    const size_t *sizes = quick ? QUICK_CEILING_BYTES : CEILING_BYTES;
    char size_text[3][32];
    for (int i = 0; i < 3; i++)
        cm_fmt_bytes_short(sizes[i], size_text[i], sizeof size_text[i]);
    printf("   the link's practical maximum: the best pinned median over "
           "copies of\n   %s, %s and %s:\n", size_text[0], size_text[1],
           size_text[2]);
    enum cudaMemcpyKind kinds[2] = {cudaMemcpyHostToDevice,
                                    cudaMemcpyDeviceToHost};
    double *best[2] = {&b->link_h2d_gbps, &b->link_d2h_gbps};
    double mine[2] = {b->pinned_h2d_gbps, b->pinned_d2h_gbps};
    for (int k = 0; k < 2; k++) {
        int best_i = 0;
        *best[k] = 0;
        for (int i = 0; i < 3; i++) {
            double g = cm_measure_pinned_gbps(sizes[i], kinds[k], r->warmup,
                                              r->repeat);
            if (g > *best[k]) {
                *best[k] = g;
                best_i = i;
            }
        }
        printf("     %s %.2f GB/s (at %s): the %s copy above reaches "
               "%.1f%% of it\n", k ? "D2H" : "H2D", *best[k],
               size_text[best_i], cm_fmt_bytes_short(b->bytes, text, 32),
               100.0 * mine[k] / *best[k]);
    }
    /* And the raw rate of the PCIe link it runs over, if sysfs tells. */
    struct cudaDeviceProp prop;
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    double raw = bw_pcie_link_gbps(prop.pciDomainID, prop.pciBusID,
                                   prop.pciDeviceID, text, sizeof text);
    if (raw > 0)
        printf("   %s: %.2f GB/s raw per direction; the best pinned copy "
               "is %.0f%% of it\n   (packet headers and flow control take "
               "the rest)\n", text, raw,
               100.0 * (b->link_h2d_gbps > b->link_d2h_gbps
                            ? b->link_h2d_gbps : b->link_d2h_gbps) / raw);
    else
        printf("   PCIe link speed not readable from /sys: raw rate "
               "unknown\n");
}

static size_t smaller(size_t a, size_t b) { return a < b ? a : b; }

int main(int argc, char **argv)
{
    size_t side = 10000, arrays = 1000, array_bytes = 8192;
    size_t chunks = 16, streams = 4;
    size_t sweep_min = 4096, sweep_max = (size_t)1 << 30;
    long long work = 200;
    int sweep = 0, all_gpus = 0, p2p = 0;
    cm_opt own[] = {
        {.name = "n", .type = CM_OPT_SIZE, .value = &side, .metavar = "N",
         .help = "side of the N x N float64 array", .min = 1,
         .max = 1 << 20},
        {.name = "arrays", .type = CM_OPT_SIZE, .value = &arrays,
         .metavar = "N", .help = "number of small arrays (part 3)",
         .min = 1, .max = 1 << 20},
        {.name = "array-bytes", .type = CM_OPT_SIZE, .value = &array_bytes,
         .metavar = "SIZE", .help = "bytes per small array, multiple of 8",
         .min = 8, .max = 1 << 30},
        {.name = "chunks", .type = CM_OPT_SIZE, .value = &chunks,
         .metavar = "N", .help = "chunks of the copy-compute pipeline",
         .min = 1, .max = 4096},
        {.name = "streams", .type = CM_OPT_SIZE, .value = &streams,
         .metavar = "N", .help = "streams of the copy-compute pipeline",
         .min = 1, .max = 32},
        {.name = "work", .type = CM_OPT_INT, .value = &work, .metavar = "N",
         .help = "sqrt steps per element in its kernel", .min = 1,
         .max = 100000},
        {.name = "sweep", .type = CM_OPT_FLAG, .value = &sweep,
         .help = "instead: sizes min..max, both ways"},
        {.name = "min", .type = CM_OPT_SIZE, .value = &sweep_min,
         .metavar = "SIZE", .help = "smallest size of --sweep", .min = 1},
        {.name = "max", .type = CM_OPT_SIZE, .value = &sweep_max,
         .metavar = "SIZE", .help = "largest size of --sweep", .min = 1,
         .max = (long long)1 << 40},
        {.name = "all-gpus", .type = CM_OPT_FLAG, .value = &all_gpus,
         .help = "instead: pinned copies, each GPU alone and all at once"},
        {.name = "p2p", .type = CM_OPT_FLAG, .value = &p2p,
         .help = "instead: copies between GPUs, every pair"},
    };
    cm_cli cli = {
        .program = "07_bandwidth",
        .summary = "Host-GPU transfer bandwidth measured right: pageable vs "
                   "pinned, batched,\noverlapped (mirrors section 2.24.5).",
        .opts = own,
        .n_opts = sizeof own / sizeof *own,
    };
    cm_options opt = cm_options_default();
    cm_parse_or_exit(&cli, &opt, argc, argv);

    /* Every input is checked before the GPU is touched. An option that
     * does nothing in the mode asked is refused, not ignored: the run
     * would not be the one the user meant. */
    const char *gpus_mode = all_gpus ? "with --all-gpus"
                            : p2p    ? "with --p2p"
                                     : NULL;
    if (gpus_mode) {
        cm_refuse_given(&cli, &opt, all_gpus ? "p2p" : "", gpus_mode);
        cm_refuse_given(&cli, &opt, "n|arrays|array-bytes|chunks|streams|"
                        "work|sweep|min|max", gpus_mode);
        /* Shared options are not in cli, so refused here by hand (a
         * --device 0 cannot be told from the default). */
        if (opt.csv || opt.device != 0)
            cm_usage_error("--%s does nothing %s",
                           opt.csv ? "csv" : "device", gpus_mode);
    } else if (sweep) {
        cm_refuse_given(&cli, &opt, "n|arrays|array-bytes|chunks|streams|"
                        "work", "with --sweep");
    } else {
        cm_refuse_given(&cli, &opt, "min|max", "without --sweep");
    }
    if (array_bytes % sizeof(double) != 0)
        cm_usage_error("--array-bytes must be a multiple of 8 (float64)");
    if (sweep_min > sweep_max)
        cm_usage_error("--min must not be larger than --max");
    if (opt.quick) {
        side = smaller(side, 512);
        arrays = smaller(arrays, 200);
        array_bytes = smaller(array_bytes, 4096);
        work = work < 16 ? work : 16;
        sweep_max = smaller(sweep_max, 4 << 20);
        sweep_min = smaller(sweep_min, sweep_max);
        if (!opt.repeat_given)
            opt.repeat = 3;
        if (!opt.warmup_given)
            opt.warmup = 1;
    }
    /* --csv is opened now, so that a path that cannot be written fails
     * before the measurements; it is kept only if every check passes. */
    cm_out_file csv;
    memset(&csv, 0, sizeof csv);
    if (opt.csv && cm_out_open(&csv, opt.csv) != 0) {
        fprintf(stderr, "07_bandwidth: %s\n", csv.error);
        return CM_EXIT_FAIL;
    }

    if (all_gpus || p2p) {
        /* The size at which part 2 finds the link's practical maximum. */
        size_t bytes = opt.quick ? QUICK_CEILING_BYTES[2] : CEILING_BYTES[2];
        return all_gpus ? bw_all_gpus(bytes, (int)opt.warmup,
                                      (int)opt.repeat)
                        : bw_p2p(bytes, (int)opt.warmup, (int)opt.repeat);
    }
    if (sweep) {
        cm_require_host_bytes(cm_mul_size(4, sweep_max, "--max"),
                              "the sweep's four host buffers");
        cm_select_device((int)opt.device, NULL);
        cm_require_device_bytes(cm_mul_size(2, sweep_max, "--max"),
                                "the sweep's two device buffers");
        return bw_sweep(sweep_min, sweep_max, (int)opt.warmup,
                        (int)opt.repeat, &csv);
    }

    size_t bytes = cm_mul_size(cm_mul_size(side, side, "--n"),
                               sizeof(double), "--n");
    chunks = smaller(chunks, side * side);   /* no empty chunks */
    size_t small_bytes = cm_mul_size(arrays, array_bytes, "--arrays");
    size_t ceiling = opt.quick ? QUICK_CEILING_BYTES[2] : CEILING_BYTES[2];
    cm_require_host_bytes(4 * bytes + 4 * small_bytes + ceiling,
                          "the arrays of this chapter");

    /* x_np = np.random.rand(10000, 10000), in ordinary (pageable) memory:
     * filling it also makes the OS hand over every page. */
    bw_report report;
    memset(&report, 0, sizeof report);
    report.warmup = (int)opt.warmup;
    report.repeat = (int)opt.repeat;
    bw_buffers b;
    memset(&b, 0, sizeof b);
    b.bytes = bytes;
    double *h_x = (double *)cm_host_alloc(bytes, "x_np");
    cm_fill_uniform_f64(h_x, side * side, RANDOM_SEED);
    b.h_x = h_x;
    b.h_scratch = (double *)cm_host_alloc(bytes, "the copy back");

    part1_tutorial(&report, &b, (int)opt.device,
                   2 * bytes + small_bytes + ceiling, side);
    CUDA_CHECK(cudaMalloc((void **)&b.d_y, bytes));
    part2_pinned(&report, &b, opt.quick);
    bw_small_copies(&report, arrays, array_bytes);
    bw_overlap(&report, &b, chunks, streams, (int)work);
    bw_summary(&report, &b);
    if (csv.fp)
        bw_write_rows_csv(csv.fp, report.rows, report.n_rows);
    bw_finish_csv(&csv, &report.verdict);   /* kept only if all passed */

    CUDA_CHECK(cudaFree(b.d_x));
    CUDA_CHECK(cudaFree(b.d_y));
    CUDA_CHECK(cudaFreeHost(b.h_pinned));
    CUDA_CHECK(cudaFreeHost(b.h_pinned_back));
    free(h_x);
    free(b.h_scratch);
    return cm_verdict_report(&report.verdict);
}
