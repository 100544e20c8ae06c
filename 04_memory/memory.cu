/* 04_memory - what GPU memory costs and how to live within it.
 *
 * Mirrors section 2.24.2 of the tutorial:
 *     x = cp.random.rand(10000, 10000); x.nbytes / 1024**2      (accounting)
 *     c = block_matrix_multiply(a, b, 1000)                      (blocking)
 *     del x; cp.get_default_memory_pool().free_all_blocks()     (release)
 * in four parts, each runnable alone with --part; the first three are the
 * tutorial's three snippets, the fourth is what blocking is for:
 *   accounting  nbytes in bytes, MB and MiB; what cudaMalloc really takes
 *   blocked     the tutorial's blocked GEMM on the GPU, against one call
 *   pool        del x; free_all_blocks(): cudaMallocAsync's pool, used vs
 *               reserved, what a trim gives back
 *   outofcore   the blocked GEMM that actually saves memory: A, B and C stay
 *               on the host and tiles stream through a --mem-limit budget
 * Every product is checked on the CPU by Freivalds' method
 * (common/freivalds.h).
 *
 * Run: make run-04 ARGS="--part pool"   (all parts: make run-04; options:
 * make run-04 ARGS="--help"). Files: memory.cu (this: main), accounting.cu,
 * checks.cu, cost.c (the run's DGEMM work, and shrinking it), blocked.cu,
 * pool.cu, outofcore.cu, streamed.cu (part 4's
 * GEMM), pack.c (the host threads that pack its A pieces), tiling.c (tile
 * arithmetic), replay.c (its estimates), planner.c, probe.cu (what the
 * out-of-core planner measures).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "gemm.h"
#include "cost.h"
#include "device.h"
#include "files.h"
#include "memory.h"
#include "options.h"
#include "random.h"
#include "tiling.h"
#include "timing.h"
#include "units.h"

static const uint64_t SEED_A = 1, SEED_B = 2, SEED_X = 3, SEED_RATE = 4;
static const size_t QUICK_RATE_SIDE = 2048;  /* DGEMM rate probe, at most */

/* The budget below the least that a plan of `kind` needs, rounded up to
 * whole granules (2 MiB pages before we know the pool, its measured chunk
 * after): one line on stderr, and 1. Options that contradict each other
 * are a bad command line: the caller exits 2. */
static int budget_too_small(size_t mem_limit, size_t n, ooc_kind kind,
                            size_t granule, const char *granules)
{
    size_t least = ooc_min_budget(n, sizeof(double), granule, kind);
    if (mem_limit >= least)
        return 0;
    size_t slab = ooc_min_budget(n, sizeof(double), 1, kind);
    char asked[96], need[96], plan[96], unit[32];
    fprintf(stderr, "%s: --mem-limit %s is below what the out-of-core GEMM "
            "needs for n = %zu: at least %s: its smallest %splan takes %s, "
            "rounded up to whole %s %s\n", cm_program_name(),
            cm_fmt_bytes(mem_limit, asked, sizeof asked), n,
            cm_fmt_bytes(least, need, sizeof need),
            kind == OOC_RESIDENT ? "resident-B " :
            kind == OOC_TILED ? "tiled " : "",
            cm_fmt_bytes(slab, plan, sizeof plan),
            cm_fmt_bytes_short(granule, unit, sizeof unit), granules);
    return 1;
}

/* A stream-ordered pool (cudaMallocAsync, cudaMemPoolCreate) is not on
 * every setup (some virtual GPUs lack them): without one, the parts that
 * use a pool cannot run, which we say in one line before touching any,
 * and exit 77 (skipped), as with no GPU. */
static void require_memory_pools(int device)
{
    int supported = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&supported,
                                      cudaDevAttrMemoryPoolsSupported,
                                      device));
    if (supported)
        return;
    fprintf(stderr, "%s: device %d has no memory pools "
            "(cudaDevAttrMemoryPoolsSupported is 0), which the accounting, "
            "pool and out-of-core parts need; --part blocked runs without "
            "them\n", cm_program_name(), device);
    exit(CM_EXIT_NO_DEVICE);
}

typedef struct {
    cublasHandle_t handle;
    size_t side;
    double *d_a, *d_b, *d_c;
} rate_job;

static void rate_gemm(void *ctx)
{
    rate_job *j = (rate_job *)ctx;
    CUBLAS_CHECK(cm_gemm_rowmajor(j->handle, j->side, j->side, j->side, 1.0,
                                  j->d_a, j->side, j->d_b, j->side, 0.0,
                                  j->d_c, j->side));
}

/* This GPU's DGEMM rate, quickly even where FP64 is slow: the median of
 * three GEMMs of side min(n, QUICK_RATE_SIDE) on random data (zeros
 * would run faster than real numbers), after one warm-up. */
static double quick_dgemm_tflops(size_t n, size_t *side)
{
    rate_job j = {.side = n < QUICK_RATE_SIDE ? n : QUICK_RATE_SIDE};
    size_t count = j.side * j.side, bytes = count * sizeof(double);
    cm_require_device_bytes(3 * bytes, "the DGEMM rate probe");
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&j.handle));
    CUBLAS_CHECK(cublasSetStream(j.handle, stream));
    CUDA_CHECK(cudaMalloc((void **)&j.d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.d_c, bytes));
    cm_curand_uniform(j.d_a, CM_FLOAT64, count, SEED_RATE, stream);
    cm_curand_uniform(j.d_b, CM_FLOAT64, count, SEED_RATE + 1, stream);
    cm_stats s = cm_time_events(rate_gemm, &j, stream, 1, 3);
    CUDA_CHECK(cudaFree(j.d_a));
    CUDA_CHECK(cudaFree(j.d_b));
    CUDA_CHECK(cudaFree(j.d_c));
    CUBLAS_CHECK(cublasDestroy(j.handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
    *side = j.side;
    double flop = 2.0 * (double)j.side * (double)j.side * (double)j.side;
    return s.median_ms > 0 ? cm_tflops(flop, s.median_ms) : 0;
}

/* Says up front what the GEMM parts of the run will cost on this GPU
 * (GeForce cards run FP64 at 1/32 to 1/64 of their FP32 rate: minutes
 * for the default run), and where that is more than MEM_RUN_LIMIT_S,
 * shrinks a default run and says how. Returns 1 if it changed *r. */
static int say_gemm_cost(mem_run *r)
{
    size_t side;
    double tflops = quick_dgemm_tflops(r->n, &side);
    double tflop = mem_run_tflop(r);
    printf("DGEMM rate: %.2f TFLOP/s (%zu x %zu, random data); the GEMMs "
           "of this run: %.1f TFLOP, about %.1f s at that rate\n", tflops,
           side, side, tflop, tflops > 0 ? tflop / tflops : 0);
    mem_run asked = *r;
    if (!mem_run_shrink(r, tflops, MEM_RUN_LIMIT_S))
        return 0;
    printf("FP64 is slow on this GPU: the run is cut to about %.1f s with "
           "n = %zu (not %zu), %d repeats\nafter %d warm-up(s) (not %d "
           "after %d); give --n and --repeat to choose\n",
           mem_run_tflop(r) / tflops, r->n, asked.n, r->repeat, r->warmup,
           asked.repeat, asked.warmup);
    return 1;
}

/* Host bytes at the run's peak for the parts asked: pinned A and B
 * (blocked and out-of-core parts) and the one-call and blocked C (blocked
 * part), all kept to the end, plus the larger of the pool part's copies of
 * x and y and the out-of-core part's pinned C. With n <= 2^20, at most 6
 * matrices of 8 TiB: no overflow. */
static size_t host_peak_bytes(size_t bytes, int blocked, int pool,
                              int outofcore)
{
    size_t kept = (blocked || outofcore ? 2 : 0) + (blocked ? 2 : 0);
    size_t passing = pool ? 2 : outofcore ? 1 : 0;
    return (kept + passing) * bytes;
}

int main(int argc, char **argv)
{
    size_t n = 10000, block = 1000, mem_limit = (size_t)1 << 30;
    long long streams = 4;
    const char *part = "all", *plan = "auto";
    cm_opt own[] = {
        {.name = "n", .type = CM_OPT_SIZE, .value = &n, .metavar = "N",
         .help = "A, B and C are N x N float64", .min = 1, .max = 1 << 20},
        {.name = "block", .type = CM_OPT_SIZE, .value = &block,
         .metavar = "N", .help = "block side of the in-device blocked GEMM",
         .min = 1, .max = 1 << 20},
        {.name = "mem-limit", .type = CM_OPT_SIZE, .value = &mem_limit,
         .metavar = "SIZE",
         .help = "device memory the out-of-core GEMM may use", .min = 1},
        {.name = "plan", .type = CM_OPT_CHOICE, .value = &plan,
         .metavar = "PLAN",
         .help = "out-of-core plan: the planner's pick, or one forced",
         .choices = "auto|resident|tiled"},
        {.name = "streams", .type = CM_OPT_INT, .value = &streams,
         .metavar = "N",
         .help = "streams the blocked GEMM spreads its C blocks over",
         .min = 1, .max = 16},
        {.name = "part", .type = CM_OPT_CHOICE, .value = &part,
         .metavar = "PART", .help = "which part to run",
         .choices = "accounting|blocked|pool|outofcore|all"},
    };
    cm_cli cli = {
        .program = "04_memory",
        .summary = "GPU memory: nbytes, blocked and out-of-core GEMM under a "
                   "budget, pool release (mirrors 2.24.2).",
        .opts = own,
        .n_opts = sizeof own / sizeof *own,
    };
    cm_options opt = cm_options_default();
    cm_parse_or_exit(&cli, &opt, argc, argv);
    /* --quick: an odd n that the block leaves an edge of 1, a budget
     * above a pool chunk that still forces several panels, few repeats;
     * sizes given explicitly are kept. */
    if (opt.quick) {
        n = n == 10000 ? 2001 : n;
        block = block == 1000 ? 500 : block;
        mem_limit = mem_limit == (size_t)1 << 30 ? (size_t)64 << 20
                                                 : mem_limit;
        opt.repeat = opt.repeat_given ? opt.repeat : 3;
        opt.warmup = opt.warmup_given ? opt.warmup : 1;
    }
    block = block < n ? block : n;
    int all = strcmp(part, "all") == 0;
    int do_accounting = all || strcmp(part, "accounting") == 0;
    int do_blocked = all || strcmp(part, "blocked") == 0;
    int do_pool = all || strcmp(part, "pool") == 0;
    int do_outofcore = all || strcmp(part, "outofcore") == 0;
    /* An option for a part that does not run is refused, not ignored. */
    if (!do_blocked)
        cm_refuse_given(&cli, &opt, "block|streams",
                        "unless the blocked part runs (--part blocked|all)");
    if (!do_outofcore)
        cm_refuse_given(&cli, &opt, "mem-limit|plan", "unless the "
                        "out-of-core part runs (--part outofcore|all)");
    ooc_kind kind = strcmp(plan, "resident") == 0 ? OOC_RESIDENT
                    : strcmp(plan, "tiled") == 0  ? OOC_TILED
                                                  : OOC_ANY;
    size_t bytes = cm_mul_size(cm_mul_size(n, n, "A"), sizeof(double), "A");

    /* What cannot work fails here, at once and in one line, before any
     * part runs: the host memory the parts need, the CSV file, a GPU
     * without pools and a --mem-limit that no out-of-core plan fits.
     * Part 4 itself plans and prints its plan where it starts, after
     * parts 1 to 3; here only the least budget of any plan is compared,
     * in 2 MiB pages before we touch the GPU, then in the pool's real
     * chunks, which may ask for more. */
    if (do_outofcore && budget_too_small(mem_limit, n, kind,
                                         OOC_POOL_GRANULE, "pages"))
        return CM_EXIT_USAGE;
    cm_require_host_bytes(host_peak_bytes(bytes, do_blocked, do_pool,
                                          do_outofcore),
                          "the matrices of the parts asked");
    cm_out_file csv_file;
    FILE *csv = cm_csv_open(&csv_file, opt.csv, "part,metric,value,unit");
    struct cudaDeviceProp prop;
    int device = cm_select_device((int)opt.device, &prop);
    if (do_accounting || do_pool || do_outofcore)
        require_memory_pools(device);
    size_t chunk = do_outofcore ? pool_chunk_bytes(device) : 1;
    if (do_outofcore && budget_too_small(mem_limit, n, kind, chunk,
                                         "pool chunks on this GPU"))
        return CM_EXIT_USAGE;
    /* The GEMMs' cost, said before they start; a smaller n only makes
     * the checks above easier to meet. */
    if (do_blocked || do_pool || do_outofcore) {
        mem_run cost = {
            .n = n,
            .warmup = (int)opt.warmup,
            .repeat = (int)opt.repeat,
            .blocked = do_blocked,
            .pool = do_pool,
            .outofcore = do_outofcore,
            .n_given = opt.quick || cm_given(&cli, &opt, "n"),
            .repeat_given = opt.quick || opt.repeat_given ||
                            opt.warmup_given,
        };
        if (say_gemm_cost(&cost)) {
            n = cost.n;
            opt.repeat = cost.repeat;
            opt.warmup = cost.warmup;
            block = block < n ? block : n;
            bytes = n * n * sizeof(double);   /* smaller than checked */
        }
    }

    cm_verdict verdict = {0};
    cm_freivalds_ref check;
    memset(&check, 0, sizeof check);
    memory_run run = {
        .n = n,
        .block = block,
        .mem_limit = mem_limit,
        .pool_chunk = chunk,
        .plan_kind = kind,
        .streams = (int)streams,
        .device = device,
        .warmup = (int)opt.warmup,
        .repeat = (int)opt.repeat,
        .check = &check,        /* filled below, with the inputs */
        .verdict = &verdict,
        .csv = csv,
    };   /* h_a, h_b, h_single and the results: set as the parts run */
    char text[96], limit[32];
    cm_fmt_bytes_short(mem_limit, limit, sizeof limit);
    printf("n = %zu: A, B and C are %s each; block %zu; --mem-limit %s; "
           "median of %d runs after %d warm-ups\n", n,
           cm_fmt_bytes(bytes, text, sizeof text), block, limit, run.repeat,
           run.warmup);

    if (do_accounting)
        part_accounting(&run);

    double *h_a = NULL, *h_b = NULL, *h_single = NULL, *h_blocked = NULL;
    if (do_blocked || do_outofcore) {
        /* Ask for the in-device part's memory before filling gigabytes. */
        if (do_blocked)
            cm_require_device_bytes(cm_mul_size(4, bytes, "A, B, 2 C"),
                                    "A, B and two C (blocked part)");
        /* Host-made inputs in pinned memory: the out-of-core part streams
         * from them, and pinned copies are the fast ones (chapter 07). */
        h_a = pinned_alloc(bytes, "A");
        h_b = pinned_alloc(bytes, "B");
        cm_fill_uniform_f64(h_a, n * n, SEED_A);
        cm_fill_uniform_f64(h_b, n * n, SEED_B);
        cm_freivalds_prepare(&check, h_a, h_b, n, SEED_X);
        run.h_a = h_a;
        run.h_b = h_b;
    }
    if (do_blocked) {
        h_single = (double *)cm_host_alloc(bytes, "the one-call C");
        h_blocked = (double *)cm_host_alloc(bytes, "the blocked C");
        part_blocked(&run, h_single, h_blocked);
        check_product(&run, "one-call C", h_single);
        run.h_single = h_single;
        check_product(&run, "blocked C", h_blocked);
    }
    /* The tutorial's last snippet, then the lab's own: the out-of-core
     * part, the longest, comes last. */
    if (do_pool)
        part_pool(&run);
    if (do_outofcore)
        part_outofcore(&run);

    /* The chapter's two headline ratios, with the GPU named. */
    if (do_blocked || do_outofcore)
        printf("\nsummary on %s, n = %zu:", prop.name, n);
    if (do_blocked)
        printf(" blocked / one call %.2fx (block %zu);",
               run.blocked_over_one, block);
    if (do_outofcore)
        printf(" out-of-core / its floor %.2fx, moved / I/O bound %.2fx "
               "(budget %s)", run.outofcore_over_floor,
               run.outofcore_over_bound, limit);
    cm_csv_finish(&csv_file, &verdict);   /* kept only if every check passed */
    free(h_single);
    free(h_blocked);
    if (h_a) {
        CUDA_CHECK(cudaFreeHost(h_a));
        CUDA_CHECK(cudaFreeHost(h_b));
        cm_freivalds_release(&check);
    }
    printf("\n");
    return cm_verdict_report(&verdict);
}
