/* measure.cu - how each mode is measured and judged: the limits of this
 * GPU, then per mode its setup (outside the timing), warm-up runs, timed
 * runs (in the pipeline each after a run with every resource alone, for
 * the floor), the median run's stage breakdown, and the checks of every
 * task.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ceiling.h"
#include "check.h"
#include "hybrid.h"
#include "options.h"
#include "random.h"
#include "timing.h"
#include "units.h"

const char *const MODE_NAMES[MODE_COUNT] = {"serial", "offload",
                                            "pipeline"};

/* Up to this size the serial mode's last C is also compared with a CPU
 * triple loop (n^3 work), beside Freivalds' check of every task. */
static const size_t FULL_CHECK_MAX_N = 512;

/* GEMM alone on an idle GPU, on random A and B: a GEMM of zeros flips
 * fewer bits, draws less power and can run at higher clocks than one of
 * real data, so it would promise more than a task's GEMM delivers. */
typedef struct {
    gpu_lane lane;
    size_t n;
} gemm_probe;

static void gemm_region(void *ctx)
{
    gemm_probe *g = (gemm_probe *)ctx;
    char err[512];
    if (lane_gemm(&g->lane, g->n, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
}

void measure_ceilings(const settings *s, int repeat)
{
    gemm_probe g;
    double h2d_gbps, d2h_gbps, gemm_ms;
    double flop = 2.0 * (double)s->n * (double)s->n * (double)s->n;
    char bytes[64];
    h2d_gbps = cm_measure_pinned_gbps(s->bytes, cudaMemcpyHostToDevice, 1,
                                      repeat);
    d2h_gbps = cm_measure_pinned_gbps(s->bytes, cudaMemcpyDeviceToHost, 1,
                                      repeat);
    g.n = s->n;
    cm_require_device_bytes(3 * s->bytes, "the GEMM probe");
    lane_create(&g.lane, s->n, 1);
    cm_curand_uniform(g.lane.d_a, CM_FLOAT64, s->n * s->n, s->seed,
                      g.lane.stream);
    cm_curand_uniform(g.lane.d_b, CM_FLOAT64, s->n * s->n, s->seed + 1,
                      g.lane.stream);
    gemm_ms = cm_time_events(gemm_region, &g, g.lane.stream, 1, repeat)
                  .median_ms;
    lane_destroy(&g.lane);
    printf("\nthis GPU, each part alone (median of %d):\n", repeat);
    printf("  pinned copy of %s: host to device %.2f GB/s, device to "
           "host %.2f GB/s\n", cm_fmt_bytes_short(s->bytes, bytes,
                                                   sizeof bytes),
           h2d_gbps, d2h_gbps);
    printf("  GEMM of random data: %.3f ms = %.2f TFLOP/s (2 n^3 flop)\n",
           gemm_ms, cm_tflops(flop, gemm_ms));
}

typedef struct {
    simple_mode simple;
    pipeline *pipe;
} mode_resources;

static void mode_setup(int mode, const settings *s, mode_resources *r)
{
    char err[256];
    memset(r, 0, sizeof *r);
    if (mode == PIPELINE) {
        r->pipe = pipeline_create(s);
        return;
    }
    cm_require_device_bytes(3 * s->bytes, "A, B and C");
    lane_create(&r->simple.lane, s->n, 0);
    for (int i = 0; i < (mode == OFFLOAD ? 2 : 1); i++)
        task_data_alloc(&r->simple.sets[i], s->n, 0);
    if (mode == OFFLOAD && !(r->simple.worker = pool_create(1, err,
                                                            sizeof err))) {
        fprintf(stderr, "cannot start the GPU worker: %s\n", err);
        exit(1);
    }
    /* cuBLAS loads its kernels on first use: not inside a timed run. */
    if (lane_gemm(&r->simple.lane, s->n, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void mode_teardown(int mode, mode_resources *r)
{
    if (mode == PIPELINE) {
        pipeline_destroy(r->pipe);
        return;
    }
    pool_shutdown(r->simple.worker, POOL_DRAIN);
    lane_destroy(&r->simple.lane);
    for (int i = 0; i < (mode == OFFLOAD ? 2 : 1); i++)
        task_data_free(&r->simple.sets[i], 0);
}

/* A failed task: one line that names it, then exit 1. Every pool has
 * stopped by now (pipeline_run stops its own), so no thread is left
 * running; the end of the process returns GPU and pinned memory. */
static void fail_exit(int mode, mode_resources *r, const run_failure *f)
{
    pool_shutdown(r->simple.worker, POOL_CANCEL);
    fprintf(stderr, "%s: task %d failed in the %s mode: %s\n", PROGRAM_NAME,
            f->task, MODE_NAMES[mode], f->message);
    exit(CM_EXIT_FAIL);
}

/* The serial mode's last task, checked in full: C against a CPU triple
 * loop. The worst case of either side's rounding is n u |A||B| / |AB|,
 * below 1e-12 for these normalised inputs at n <= 512: we allow 1e-11. */
static void check_full_product(cm_verdict *v, const task_data *d)
{
    size_t n = d->n;
    double *ref = (double *)cm_host_alloc(n * n * sizeof(double),
                                          "the CPU product");
    memset(ref, 0, n * n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < n; j++)
                ref[i * n + j] += d->h_a[i * n + k] * d->h_b[k * n + j];
    cm_check_rel(v, "serial: last task's C vs CPU triple loop", d->h_c,
                 CM_FLOAT64, ref, CM_FLOAT64, n * n, 1e-11);
    free(ref);
}

/* The median over the alone runs of each of their times. */
static alone_times alone_medians(const alone_times *t, int runs)
{
    double *v = (double *)cm_host_alloc(5 * (size_t)runs * sizeof *v,
                                        "alone times");
    for (int i = 0; i < runs; i++) {
        v[i] = t[i].cpu_ms;
        v[runs + i] = t[i].h2d_ms;
        v[2 * runs + i] = t[i].gemm_ms;
        v[3 * runs + i] = t[i].d2h_ms;
        v[4 * runs + i] = t[i].one_thread_ms;
    }
    alone_times m = t[0];
    m.cpu_ms = cm_stats_of(v, runs).median_ms;
    m.h2d_ms = cm_stats_of(v + runs, runs).median_ms;
    m.gemm_ms = cm_stats_of(v + 2 * runs, runs).median_ms;
    m.d2h_ms = cm_stats_of(v + 3 * runs, runs).median_ms;
    m.one_thread_ms = cm_stats_of(v + 4 * runs, runs).median_ms;
    free(v);
    return m;
}

/* The pipeline's floor: each resource's work for all tasks, measured
 * while it worked alone (pipeline_alone, median of the runs). They work
 * in parallel, so the busiest one is the least time the whole can take.
 * Then the contention: the same prep and check, in the pipeline and
 * alone. */
static void report_floor(const settings *s, const alone_times *alone,
                         int runs, mode_summary *sum)
{
    floor_inputs in;
    int engines = 0;
    alone_times m = alone_medians(alone, runs);
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount,
                                      s->device));
    in.h2d_bytes = 2.0 * (double)s->bytes * s->tasks;    /* A and B */
    in.h2d_ms = m.h2d_ms;
    in.d2h_bytes = (double)s->bytes * s->tasks;          /* C */
    in.d2h_ms = m.d2h_ms;
    in.copy_engines = engines;
    in.gemm_ms = m.gemm_ms;
    in.cpu_ms = m.cpu_ms;
    in.cpu_threads = s->threads;
    double per_task = m.cpu_ms / s->tasks;
    printf("  alone (median of %d run%s): prep + check %.2f ms of CPU per "
           "task on %d threads", runs, runs == 1 ? "" : "s", per_task,
           s->threads);
    if (m.one_thread_ms > 0)
        printf(", %.2f ms on 1 (%.2fx)", m.one_thread_ms,
               per_task / m.one_thread_ms);
    printf("\n");
    print_contention(sum->cpu_ms / s->tasks, per_task);
    pipeline_floor f = floor_of(&in);
    print_floor(&in, &f, s->tasks, sum->wall_ms);
    sum->floor_ms = f.floor_ms;
    sum->limit = FLOOR_NAMES[f.limit];
}

static double run_once(int mode, const settings *s, mode_resources *r,
                       run_clock *clock, task_record *records,
                       offload_stats *stats)
{
    run_failure failure;
    double wall_ms;
    failure.task = -1;
    failure.message[0] = '\0';
    if (mode == SERIAL)
        wall_ms = run_serial(s, &r->simple, clock, records, &failure);
    else if (mode == OFFLOAD)
        wall_ms = run_offload(s, &r->simple, clock, records, &failure,
                              stats);
    else
        wall_ms = pipeline_run(r->pipe, clock, records, &failure);
    if (failure.task >= 0)
        fail_exit(mode, r, &failure);
    return wall_ms;
}

/* How many tasks' C passed their check, and the worst error / tolerance
 * among them, over `count` records. */
static size_t count_checked(const task_record *r, size_t count,
                            double *worst)
{
    size_t checked = 0;
    for (size_t k = 0; k < count; k++) {
        checked += r[k].checked;
        if (r[k].worst_ratio > *worst)
            *worst = r[k].worst_ratio;
    }
    return checked;
}

void measure_mode(int mode, const settings *s, int warmup, int repeat,
                  cm_verdict *v, mode_summary *sum, task_record **records)
{
    size_t t = (size_t)s->tasks, runs = (size_t)repeat + 1;
    task_record *rec = (task_record *)cm_host_alloc(
        cm_mul_size(runs * t, sizeof *rec, "run records"), "run records");
    task_record *alone_rec = (task_record *)cm_host_alloc(
        cm_mul_size(runs * t, sizeof *rec, "run records"), "run records");
    double *walls = (double *)cm_host_alloc(runs * sizeof *walls, "times");
    offload_stats *stats = (offload_stats *)cm_host_alloc(
        runs * sizeof *stats, "offload statistics");
    alone_times *alone = (alone_times *)cm_host_alloc(
        runs * sizeof *alone, "alone times");
    memset(rec, 0, runs * t * sizeof *rec);
    memset(alone_rec, 0, runs * t * sizeof *rec);
    memset(stats, 0, runs * sizeof *stats);
    run_clock clock;
    CUDA_CHECK(cudaEventCreate(&clock.event));
    mode_resources r;
    mode_setup(mode, s, &r);

    for (int i = 0; i < warmup + repeat; i++) {
        int slot = i < warmup ? repeat : i - warmup; /* spare for warm-up */
        /* The pipeline's floor comes from runs with each resource alone,
         * taken in turn with the timed runs, so that both see the same
         * state of the host (its clocks, the other loads on it). */
        if (mode == PIPELINE && slot < repeat) {
            run_failure failure;
            if (pipeline_alone(r.pipe, 1, alone_rec + slot * t,
                               &alone[slot], &failure) != 0) {
                pipeline_destroy(r.pipe);   /* stops its threads */
                fail_exit(mode, &r, &failure);
            }
        }
        walls[slot] = run_once(mode, s, &r, &clock, rec + slot * t,
                               &stats[slot]);
    }
    int med = median_run(walls, repeat);
    memset(sum, 0, sizeof *sum);
    sum->mode = MODE_NAMES[mode];
    sum->n = s->n;
    sum->tasks = s->tasks;
    sum->workers = mode != PIPELINE ? 1 : s->workers < s->tasks ? s->workers
                                                                : s->tasks;
    sum->threads = mode == PIPELINE ? s->threads : 1;
    sum->runs = repeat;
    sum->wall_ms = walls[med];
    sum->records = rec + med * t;
    stage_medians(sum->records, s->tasks, sum->stage_ms);
    for (size_t k = 0; k < t; k++)
        sum->cpu_ms += sum->records[k].cpu_ms;
    print_mode(sum);
    if (mode == OFFLOAD)
        printf("  GPU worker busy %.2f ms; between each submit and its wait "
               "the main thread\n  did %.2f ms of CPU work (next prep, "
               "previous check), and waited %.2f ms\n", stats[med].worker_ms,
               stats[med].main_work_ms, stats[med].main_wait_ms);
    if (mode == PIPELINE)
        report_floor(s, alone, repeat, sum);

    /* A failed check has ended the program already; what can still go
     * wrong is a task whose check never ran. So we count the tasks of the
     * timed runs (and of the alone runs) that were checked and passed:
     * every one of them must be. */
    /* In size_t: --tasks 100000 x --repeat 1000000 x 2 passes an int. */
    double worst = 0;
    size_t timed = t * (size_t)repeat;
    size_t expected = timed * (mode == PIPELINE ? 2 : 1);
    size_t checked = count_checked(rec, timed, &worst);
    if (mode == PIPELINE)
        checked += count_checked(alone_rec, timed, &worst);
    char what[64], detail[200];
    snprintf(what, sizeof what, "%s: every task's C checked (Freivalds)",
             MODE_NAMES[mode]);
    snprintf(detail, sizeof detail, "%zu of %zu tasks (%d x %d run%s%s), "
             "worst |Cx - A(Bx)| / tolerance %.2e", checked, expected,
             s->tasks, repeat, repeat == 1 ? "" : "s",
             mode == PIPELINE ? ", timed and alone" : "", worst);
    cm_check_true(v, what, checked == expected && worst <= 1.0, detail);
    if (mode == SERIAL && s->n <= FULL_CHECK_MAX_N)
        check_full_product(v, &r.simple.sets[0]);
    mode_teardown(mode, &r);
    CUDA_CHECK(cudaEventDestroy(clock.event));
    *records = rec;
    free(alone_rec);
    free(alone);
    free(walls);
    free(stats);
}
