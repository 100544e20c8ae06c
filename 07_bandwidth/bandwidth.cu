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
 *
 * This file is main: the options, checked before the GPU is touched, then
 * the parts in order (part 1 in pageable.cu, part 2 in pinned.cu).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "device.h"
#include "files.h"
#include "options.h"
#include "random.h"

static const uint64_t RANDOM_SEED = 2245;

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
