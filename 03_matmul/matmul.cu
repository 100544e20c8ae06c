/* 03_matmul, the lab (lesson.cu is the short, standalone version) - the
 * tutorial's matrix product on the GPU: two random 1000 x 1000 float64
 * matrices, multiplied by cuBLAS, copied back, printed.
 *
 * Mirrors section 2.24.1.3 of the tutorial:
 *     a_np = np.random.rand(1000, 1000)
 *     b_np = np.random.rand(1000, 1000)
 *     a_cp = cp.asarray(a_np); b_cp = cp.asarray(b_np)
 *     c_cp = cp.dot(a_cp, b_cp)         # one float64 GEMM in cuBLAS
 *     c_np = cp.asnumpy(c_cp)
 *     print(c_np)
 * CuPy makes that GEMM a cublasGemmEx call with CUBLAS_COMPUTE_64F; we
 * call cublasDgemm, the same float64 product with the same argument order.
 * Each step but cublasCreate (timed once) is timed twice: its first call
 * (host clock; cuBLAS starts up inside the first cp.dot) and its steady
 * state (median of --repeat). C is checked: every element against a CPU
 * GEMM (cpu_gemm.c) up to n = 4096, each row's weighted sum by Freivalds'
 * test above that (gemm_check.c). --precision all adds fp32, TF32 and
 * bf16 GEMMs, each checked and probed for the precision it ran in,
 * --sweep the speed as n grows (gemm_study.cu, gemm_sweep.cu).
 *
 * Run: make run-03    (options: make run-03 ARGS="--help")
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "array.h"
#include "check.h"
#include "device.h"
#include "files.h"
#include "freivalds.h"
#include "gemm.h"
#include "gemm_check.h"
#include "gemm_plan.h"
#include "gemm_study.h"
#include "options.h"
#include "random.h"
#include "timing.h"
#include "units.h"
#include "verify.h"

static const size_t TUTORIAL_N = 1000;
static const size_t QUICK_N = 257;          /* odd: cuts every tile */
static const uint64_t SEED_A = 1, SEED_B = 2, SEED_CHECK = 3;
/* The CPU's warm runs stop at --repeat, or sooner once they have taken
 * about this long (one run at least): room for the default 10 at n = 1000,
 * where a run takes tens of ms on a 16-thread host; n = 4096 is about 69
 * times the work, so there one run can pass the limit and be the only one. */
static const double CPU_TIMING_MS = 1000.0;
static const char DEFAULT_PRECISION[] = "fp64";

/* The tutorial's arrays: host (NumPy) and device (CuPy) copies. */
typedef struct {
    cublasHandle_t handle;
    size_t n, bytes;
    const double *h_a, *h_b;
    double *h_c;
    double *d_a, *d_b, *d_c;
} tutorial;

/* c_cp = cp.dot(a_cp, b_cp). cuBLAS follows Fortran: matrices are
 * column-major. Our arrays are row-major, like NumPy's, and a row-major
 * matrix read column-major is its transpose. So we ask cuBLAS for
 * C^T = B^T A^T, which it writes column-major: exactly row-major C = A B.
 * In practice: pass B first, then A, as cm_gemm_rowmajor (common/gemm.h)
 * does. Passing A first computes B A, and nothing complains: only the
 * check against the CPU would catch it. */
static void dgemm(const tutorial *t)
{
    size_t n = t->n;   /* above INT_MAX: an error, not a wrapped int */
    CUBLAS_CHECK(cm_gemm_rowmajor(t->handle, n, n, n, 1.0, t->d_a, n,
                                  t->d_b, n, 0.0, t->d_c, n));
}

/* The timed steps. cudaMemcpy from the device into pageable (malloc'd)
 * memory returns when the data is there. The other way it may return as
 * soon as the driver has staged our data in its own pinned buffer, before
 * the DMA to the device has finished: a host clock around h2d() must
 * synchronize before it stops. */
static void h2d(const tutorial *t)
{
    CUDA_CHECK(cudaMemcpy(t->d_a, t->h_a, t->bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(t->d_b, t->h_b, t->bytes, cudaMemcpyHostToDevice));
}

static void d2h(const tutorial *t)
{
    CUDA_CHECK(cudaMemcpy(t->h_c, t->d_c, t->bytes, cudaMemcpyDeviceToHost));
}

static void h2d_region(void *ctx) { h2d((const tutorial *)ctx); }
static void gemm_region(void *ctx) { dgemm((const tutorial *)ctx); }
static void d2h_region(void *ctx) { d2h((const tutorial *)ctx); }
static void end_to_end_region(void *ctx)
{
    h2d((const tutorial *)ctx);
    dgemm((const tutorial *)ctx);
    d2h((const tutorial *)ctx);   /* waits for the GEMM: same stream */
}

/* Host bytes of one n x n product and its check at their peak: A, B and
 * C in float64; then, one after the other, the check of C (a CPU
 * reference of all of it, or Freivalds' six vectors) and the float32 C of
 * the lower precisions with the probe's 8 MiB piece. gemm_host_bytes (36
 * n^2 bytes) is at least this from n = 1024 up (below, no sum comes near
 * SIZE_MAX), so this cannot overflow once that has been checked. */
static size_t host_peak_bytes(size_t n, unsigned set, int by_cpu)
{
    size_t matrix = n * n * sizeof(double);
    size_t check = by_cpu ? matrix : 6 * n * sizeof(double);
    size_t low = set != GEMM_BIT(GEMM_FP64)
                     ? n * n * sizeof(float) +
                           GEMM_PROBE_PIECE * sizeof(double)
                     : 0;
    return 3 * matrix + (check > low ? check : low);
}

/* Host bytes of --sweep: the most any one of its sizes needs (the main
 * run's matrices are freed by then). */
static size_t sweep_host_bytes(unsigned set, int quick)
{
    const size_t *sizes;
    size_t count = gemm_sweep_sizes(quick, &sizes), most = 0;
    for (size_t i = 0; i < count; i++) {
        size_t n = sizes[i], matrix = n * n * sizeof(double);
        size_t bytes = 3 * matrix + (gemm_check_by_cpu(n, 1, quick)
                                     ? matrix : 6 * n * sizeof(double));
        if (set != GEMM_BIT(GEMM_FP64))     /* beside them, not after */
            bytes += n * n * sizeof(float);
        bytes += GEMM_PROBE_PIECE * sizeof(double);     /* the probe */
        most = bytes > most ? bytes : most;
    }
    return most;
}

static void row(const char *step, double first_ms, double steady_ms,
                const char *rate)
{
    printf("  %-34s %8.3f ", step, first_ms);
    if (steady_ms >= 0)
        printf("%8.3f   %s\n", steady_ms, rate);
    else
        printf("%8s   %s\n", "-", rate);
}

int main(int argc, char **argv)
{
    size_t n = TUTORIAL_N;
    const char *precision = DEFAULT_PRECISION;
    int sweep = 0;
    /* --n stops at INT_MAX, cuBLAS's limit; the byte counts of that size
     * overflow size_t and are refused below, before anything is touched. */
    cm_opt own[] = {
        {.name = "n", .type = CM_OPT_SIZE, .value = &n, .metavar = "N",
         .help = "side of the N x N float64 matrices",
         .min = 1, .max = INT_MAX},
        {.name = "precision", .type = CM_OPT_CHOICE, .value = &precision,
         .metavar = "P", .help = "GEMM precisions",
         .choices = "fp64|fp32|tf32|bf16|all"},
        {.name = "sweep", .type = CM_OPT_FLAG, .value = &sweep,
         .help = "also time the GEMMs for n = 256 ... 10000"},
    };
    cm_cli cli = {.program = "03_matmul",
                  .summary = "C = A B for random N x N float64 matrices "
                             "with cuBLAS, as cp.dot does it,\nchecked "
                             "against a CPU GEMM and timed step by step.",
                  .opts = own, .n_opts = sizeof own / sizeof own[0]};
    cm_options opt = cm_options_default();
    cm_parse_or_exit(&cli, &opt, argc, argv);
    if (opt.quick) {
        n = cm_given(&cli, &opt, "n") ? n : QUICK_N;
        precision = precision == DEFAULT_PRECISION ? "all" : precision;
        sweep = 1;
        opt.repeat = opt.repeat_given ? opt.repeat : 3;
        opt.warmup = opt.warmup_given ? opt.warmup : 1;
    }
    unsigned set = gemm_precision_set(precision);
    int overflow, host_overflow;
    size_t device_bytes = gemm_device_bytes(n, set, &overflow);
    gemm_host_bytes(n, &host_overflow);
    if (overflow || host_overflow ||
        device_bytes > SIZE_MAX - CUBLAS_SPARE_BYTES) {
        fprintf(stderr, "03_matmul: --n %zu: the matrices would need more "
                "bytes than size_t can count (see --help)\n", n);
        return CM_EXIT_USAGE;
    }

    /* Everything at once, before any allocation: a size that cannot fit
     * fails here, in one line with the bytes needed and available, not
     * halfway through (on the host, malloc would promise the memory and
     * the OS kill us when the pages are touched). The host and the CSV
     * file come before the GPU is touched, so they fail the same way
     * without one. */
    int by_cpu = gemm_check_by_cpu(n, 0, opt.quick);
    cm_require_host_bytes(host_peak_bytes(n, set, by_cpu),
                          by_cpu ? "A, B, C and the CPU reference"
                                 : "A, B, C and Freivalds' test");
    if (sweep)
        cm_require_host_bytes(sweep_host_bytes(set, opt.quick),
                              "the sweep's A, B, C and their check");
    cm_out_file csv_file;
    FILE *csv = cm_csv_open(&csv_file, opt.csv, GEMM_CSV_HEADER);
    struct cudaDeviceProp prop;
    cm_select_device((int)opt.device, &prop);
    cm_require_device_bytes(device_bytes + CUBLAS_SPARE_BYTES,
                            "A, B, C, their copies and cuBLAS");
    cm_verdict verdict = {0};
    int warmup = (int)opt.warmup, repeat = (int)opt.repeat;

    /* a_np = np.random.rand(n, n), b_np likewise: uniform in [0, 1). */
    tutorial t;
    memset(&t, 0, sizeof t);
    t.n = n;
    t.bytes = n * n * sizeof(double);
    char text[64];
    printf("C = A B with A, B = np.random.rand(%zu, %zu): float64, "
           "row-major,\n  %s each\n", n, n,
           cm_fmt_bytes(t.bytes, text, sizeof text));
    double *h_a = (double *)cm_host_alloc(t.bytes, "A");
    double *h_b = (double *)cm_host_alloc(t.bytes, "B");
    t.h_c = (double *)cm_host_alloc(t.bytes, "C");
    cm_fill_uniform_f64(h_a, n * n, SEED_A);
    cm_fill_uniform_f64(h_b, n * n, SEED_B);
    t.h_a = h_a;
    t.h_b = h_b;
    CUDA_CHECK(cudaMalloc(&t.d_a, t.bytes));
    CUDA_CHECK(cudaMalloc(&t.d_b, t.bytes));
    CUDA_CHECK(cudaMalloc(&t.d_c, t.bytes));

    /* The tutorial's script once, each step on the host clock. The cuBLAS
     * handle (the library's state and workspace) is what CuPy creates
     * inside its first cp.dot; the GEMM kernel itself is chosen and loaded
     * on the first cublasDgemm. Neither the pageable H2D copy nor cuBLAS
     * is sure to be done when its call returns, so we synchronize before
     * reading the clock. */
    double t0 = cm_now_ms();
    h2d(&t);
    CUDA_CHECK(cudaDeviceSynchronize());
    double first_h2d = cm_now_ms() - t0;
    t0 = cm_now_ms();
    CUBLAS_CHECK(cublasCreate(&t.handle));
    /* Default math: fp64 stays fp64 (no emulation, no tensor-core TF32). */
    CUBLAS_CHECK(cublasSetMathMode(t.handle, CUBLAS_DEFAULT_MATH));
    double create_ms = cm_now_ms() - t0;
    t0 = cm_now_ms();
    dgemm(&t);
    CUDA_CHECK(cudaDeviceSynchronize());
    double first_gemm = cm_now_ms() - t0;
    t0 = cm_now_ms();
    d2h(&t);
    double first_d2h = cm_now_ms() - t0;

    /* print(c_np): NumPy prints only the corners of a large matrix. */
    printf("\nprint(c_np)\n");
    size_t shape[2] = {n, n};
    char *printed = cm_format(t.h_c, CM_FLOAT64, 2, shape);
    printf("%s\n", printed);
    free(printed);

    /* C is checked (gemm_check.c): every element against cpu_gemm's
     * product (on every CPU this process may use) where the CPU can afford
     * all of it, each row's weighted sum by Freivalds' test, O(n^2), where
     * it cannot. */
    gemm_cpu_times cpu = {.threads = 0};
    gemm_check check;
    if (by_cpu) {
        double *h_ref = (double *)cm_host_alloc(t.bytes, "CPU reference");
        memset(h_ref, 0, t.bytes);      /* fault its pages in, untimed */
        if (gemm_cpu_reference(n, h_a, h_b, h_ref, repeat, CPU_TIMING_MS,
                               &cpu) < 0) {
            fprintf(stderr, "%s: out of host memory for the CPU "
                    "reference\n", cm_program_name());
            return CM_EXIT_FAIL;
        }
        printf("\nCPU reference: cpu_gemm.c (blocked C, no BLAS) on %d "
               "threads, all of C:\n  first run %.1f ms, then median of %d "
               "more %.1f ms: %.1f GFLOP/s\n", cpu.threads, cpu.first_ms,
               cpu.warm_runs, cpu.warm_ms,
               2.0 * (double)n * n * n / cpu.warm_ms / 1e6);
        check = gemm_compare(t.h_c, CM_FLOAT64, h_ref, n * n,
                             gemm_tolerance(GEMM_FP64, n));
        gemm_report(&verdict, "C vs CPU GEMM", &check, n);
        free(h_ref);
    } else {
        printf("\nno CPU reference (n > %zu: n^3 = %.2g multiply-adds): C "
               "is checked by Freivalds'\n  test, each row of C x against "
               "A (B x) for a random x: 3 n^2 multiply-adds\n",
               GEMM_CPU_CHECK_MAX_N, (double)n * n * n);
        cm_freivalds_ref f;
        cm_freivalds_prepare(&f, h_a, h_b, n, SEED_CHECK);
        check = gemm_freivalds(&f, t.h_c);
        gemm_report(&verdict, "C", &check, n);
        cm_freivalds_release(&f);
    }

    /* Steady state: warm-up, then CUDA events around each step, median;
     * end to end on the host clock, as a user would time the script (its
     * last step, the D2H copy, returns only when C is in host memory). */
    cm_stats h2d_s = cm_time_events(h2d_region, &t, 0, warmup, repeat);
    cm_stats gemm_s = cm_time_events(gemm_region, &t, 0, warmup, repeat);
    cm_stats d2h_s = cm_time_events(d2h_region, &t, 0, warmup, repeat);
    cm_stats e2e_s = cm_time_host(end_to_end_region, &t, warmup, repeat);
    /* What time.time() around cp.dot measures: the launch alone. */
    double *launch = (double *)cm_host_alloc(repeat * sizeof(double),
                                             "launch times");
    for (int i = 0; i < repeat; i++) {
        t0 = cm_now_ms();
        dgemm(&t);
        launch[i] = cm_now_ms() - t0;
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    cm_stats launch_s = cm_stats_of(launch, repeat);
    free(launch);

    double flops = 2.0 * (double)n * n * n;   /* n^3 multiply-adds */
    char rate[4][48];
    snprintf(rate[0], 48, "%.2f GB/s", cm_gbps(2.0 * t.bytes,
                                                  h2d_s.median_ms));
    snprintf(rate[1], 48, "%.2f TFLOP/s", cm_tflops(flops,
                                                     gemm_s.median_ms));
    snprintf(rate[2], 48, "%.2f GB/s", cm_gbps(t.bytes, d2h_s.median_ms));
    snprintf(rate[3], 48, "%.2f TFLOP/s", cm_tflops(flops,
                                                     e2e_s.median_ms));
    printf("\ntimes (ms): first = host clock, steady = median of %d after "
           "%d warm-up(s);\nTFLOP/s = 2 n^3 / time, GB/s = 1e9 bytes/s\n",
           repeat, warmup);
    printf("  %-34s %8s %8s   %s\n", "step", "first", "steady", "rate");
    row("cp.asarray x2: H2D A, B (pageable)", first_h2d, h2d_s.median_ms,
        rate[0]);
    row("cp.dot, first call: cublasCreate", create_ms, -1, "");
    row("cp.dot: cublasDgemm + sync", first_gemm, gemm_s.median_ms,
        rate[1]);
    row("cp.dot: launch only, no sync", launch_s.median_ms, -1,
        "what a host timer sees");
    row("cp.asnumpy: D2H C (pageable)", first_d2h, d2h_s.median_ms,
        rate[2]);
    row("end to end: H2D + GEMM + D2H",
        first_h2d + create_ms + first_gemm + first_d2h, e2e_s.median_ms,
        rate[3]);
    /* Only a CPU product of all of C gives a measured speedup. Warm medians
     * on both sides: the CPU's GEMM against the GPU's GEMM, and against
     * the GPU's end to end (copies included). */
    if (by_cpu)
        printf("speedup over the CPU reference (warm medians): GEMM %.0fx, "
               "end to end %.1fx\n", cpu.warm_ms / gemm_s.median_ms,
               cpu.warm_ms / e2e_s.median_ms);
    else
        printf("speedup over the CPU: not measured (n > %zu: C was not "
               "recomputed on the CPU)\n", GEMM_CPU_CHECK_MAX_N);
    if (csv) {
        /* Freivalds' test measures no element's error: those stay empty. */
        gemm_result r = {.part = "tutorial", .n = n, .precision = "fp64",
                         .gemm_ms = gemm_s.median_ms,
                         .gemm_min_ms = gemm_s.min_ms,
                         .tflops = cm_tflops(flops, gemm_s.median_ms),
                         .rel_error = check.freivalds ? -1 : check.error,
                         .tolerance = check.freivalds ? -1 : check.tolerance,
                         .ok = check.ok, .h2d_ms = h2d_s.median_ms,
                         .d2h_ms = d2h_s.median_ms,
                         .end_to_end_ms = e2e_s.median_ms,
                         .first_gemm_ms = create_ms + first_gemm,
                         .cpu_ms = by_cpu ? cpu.warm_ms : -1, .c = t.h_c};
        gemm_csv_row(csv, &r);
    }

    gemm_study study = {.handle = t.handle, .set = set, .warmup = warmup,
                        .repeat = repeat, .major = prop.major,
                        .minor = prop.minor, .csv = csv,
                        .verdict = &verdict};
    if (set != GEMM_BIT(GEMM_FP64)) {
        /* The table overwrites A, B and C with its probe at the end. */
        gemm_operands ops = {.n = n, .d_a = t.d_a, .d_b = t.d_b,
                             .d_c = t.d_c};
        precision_table(&study, &ops, t.h_c);
    }
    CUDA_CHECK(cudaFree(t.d_a));
    CUDA_CHECK(cudaFree(t.d_b));
    CUDA_CHECK(cudaFree(t.d_c));
    free(h_a);
    free(h_b);
    free(t.h_c);
    if (sweep)
        size_sweep(&study, opt.quick);

    CUBLAS_CHECK(cublasDestroy(t.handle));
    cm_csv_finish(&csv_file, &verdict);   /* kept only if every check passed */
    printf("\n");
    return cm_verdict_report(&verdict);
}
