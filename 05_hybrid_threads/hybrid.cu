/* 05_hybrid_threads - prepare on the CPU, compute on the GPU, and keep
 * both busy at once.
 *
 * Mirrors section 2.24.3 of the tutorial: NumPy makes the inputs, CuPy
 * multiplies them, and a ThreadPoolExecutor runs compute_matrix_mult:
 *     future = executor.submit(compute_matrix_mult, a_np, b_np)
 *     c_np = future.result()
 * Each task here prepares A and B on the CPU (random samples, each row
 * normalised), copies them in, multiplies (cublasDgemm), copies C out and
 * checks it (Freivalds, O(n^2)). Three modes, each timed and verified:
 *   serial    the tutorial's first example: one thread, task after task;
 *   offload   the tutorial's thread pool: a worker does the GPU part while
 *             the main thread does CPU work (and we show how much);
 *   pipeline  W GPU workers with their own streams and pinned buffers, and
 *             every CPU thread preparing: all stages of different tasks
 *             overlap (pipeline.cu). We compare it with its floor.
 *
 * Run: make run-05    (options: make run-05 ARGS="--help")
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "device.h"
#include "files.h"
#include "hybrid.h"
#include "options.h"
#include "timing.h"
#include "units.h"
#include "verify.h"

static const char *const PROGRAM = PROGRAM_NAME;
static const uint64_t RANDOM_SEED = 42;
static const size_t QUICK_N = 300;
static const int QUICK_TASKS = 5, QUICK_WORKERS = 2, QUICK_THREADS = 2;

/* The tutorial's compute_matrix_mult: cp.asarray(a), cp.asarray(b),
 * cp.dot, cp.asnumpy, from and into pageable host memory (as NumPy's).
 * Every step and its events go to lane->stream, so they run in the order
 * they are queued whatever stream the lane has (the serial and offload
 * modes give it the legacy default stream, as CuPy's). From pageable
 * memory a cudaMemcpyAsync is not asynchronous: the driver copies the
 * bytes through a pinned staging buffer inside the call (a copy to the
 * host returns only once the data is there). Returns 0, or 1 with the
 * failed call in err (err_len bytes), as TRY_CUDA does. */
static int compute_matrix_mult(gpu_lane *lane, task_data *d, char *err,
                               size_t err_len)
{
    size_t bytes = d->n * d->n * sizeof(double);
    cudaStream_t stream = lane->stream;
    TRY_CUDA(cudaEventRecord(lane->marks[0], stream), err, err_len);
    TRY_CUDA(cudaMemcpyAsync(lane->d_a, d->h_a, bytes,
                             cudaMemcpyHostToDevice, stream), err, err_len);
    TRY_CUDA(cudaMemcpyAsync(lane->d_b, d->h_b, bytes,
                             cudaMemcpyHostToDevice, stream), err, err_len);
    TRY_CUDA(cudaEventRecord(lane->marks[1], stream), err, err_len);
    if (lane_gemm(lane, d->n, err, err_len) != 0)   /* on lane->stream */
        return 1;
    TRY_CUDA(cudaEventRecord(lane->marks[2], stream), err, err_len);
    TRY_CUDA(cudaMemcpyAsync(d->h_c, lane->d_c, bytes,
                             cudaMemcpyDeviceToHost, stream), err, err_len);
    TRY_CUDA(cudaEventRecord(lane->marks[3], stream), err, err_len);
    /* h_c is ours once the last mark, after the copy back, is reached. */
    TRY_CUDA(cudaEventSynchronize(lane->marks[3]), err, err_len);
    return 0;
}

/* Prep and check on the calling thread, timed on the run's clock. Each
 * returns 0, or 1 with the task and the reason in *failure. */
static int prep_here(const settings *s, task_data *d, int k,
                     const run_clock *clock, task_record *r,
                     run_failure *failure)
{
    const task_cpu here = {.cpu = NULL, .chunks = 1, .rank = 0};
    r->start_ms[STAGE_PREP] = run_clock_ms(clock);
    int failed = task_prepare(d, s->seed, k, here, &r->cpu_ms,
                              failure->message,
                              sizeof failure->message) != 0;
    r->end_ms[STAGE_PREP] = run_clock_ms(clock);
    if (failed)
        failure->task = k;
    return failed;
}

static int check_here(task_data *d, const run_clock *clock, task_record *r,
                      run_failure *failure, int k)
{
    const task_cpu here = {.cpu = NULL, .chunks = 1, .rank = 0};
    double check_ms;
    r->start_ms[STAGE_CHECK] = run_clock_ms(clock);
    int failed = task_check(d, here, &check_ms, &r->worst_ratio,
                            failure->message, sizeof failure->message);
    r->end_ms[STAGE_CHECK] = run_clock_ms(clock);
    r->cpu_ms += check_ms;
    r->checked = !failed;
    if (failed)
        failure->task = k;
    return failed;
}

/* ---- mode 1: serial ---- */
double run_serial(const settings *s, simple_mode *m, run_clock *clock,
                  task_record *records, run_failure *failure)
{
    task_data *d = &m->sets[0];
    run_clock_start(clock);
    for (int k = 0; k < s->tasks; k++) {
        records[k].worker = 0;
        if (prep_here(s, d, k, clock, &records[k], failure))
            break;
        if (compute_matrix_mult(&m->lane, d, failure->message,
                                sizeof failure->message) != 0 ||
            lane_stage_times(&m->lane, clock, &records[k],
                             failure->message,
                             sizeof failure->message) != 0) {
            failure->task = k;
            break;
        }
        spoil_if_asked(s, d, k);
        if (check_here(d, clock, &records[k], failure, k))
            break;
    }
    return run_clock_ms(clock);
}

/* ---- mode 2: offload ---- */
typedef struct {
    gpu_lane *lane;
    task_data *d;
    int device;
} offload_job;

static int offload_task(void *arg, int worker, char *err, size_t err_len)
{
    offload_job *job = (offload_job *)arg;
    (void)worker;
    /* The current GPU is a per-thread setting: a new thread starts on
     * device 0, whatever main() chose. */
    TRY_CUDA(cudaSetDevice(job->device), err, err_len);
    return compute_matrix_mult(job->lane, job->d, err, err_len);
}

/* The tutorial submits and at once waits on future.result(), which gains
 * nothing. Between submit and wait we check the previous task and prepare
 * the next one into the other set of host buffers. */
double run_offload(const settings *s, simple_mode *m, run_clock *clock,
                   task_record *records, run_failure *failure,
                   offload_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    run_clock_start(clock);
    prep_here(s, &m->sets[0], 0, clock, &records[0], failure);
    for (int k = 0; k < s->tasks && failure->task < 0; k++) {
        offload_job job = {.lane = &m->lane, .d = &m->sets[k % 2],
                           .device = s->device};
        records[k].worker = 0;
        pool_future *f = pool_submit(m->worker, offload_task, &job);
        if (!f) {
            fprintf(stderr, "out of host memory for a task\n");
            exit(1);
        }
        double work_start = cm_now_ms();
        if (k > 0)
            check_here(&m->sets[(k - 1) % 2], clock, &records[k - 1],
                       failure, k - 1);
        if (failure->task < 0 && k + 1 < s->tasks)
            prep_here(s, &m->sets[(k + 1) % 2], k + 1, clock,
                      &records[k + 1], failure);
        double wait_start = cm_now_ms();
        int status = pool_wait(f);
        stats->main_work_ms += wait_start - work_start;
        stats->main_wait_ms += cm_now_ms() - wait_start;
        stats->worker_ms += pool_run_ms(f);
        if (status != 0 && failure->task < 0) {
            failure->task = k;
            snprintf(failure->message, sizeof failure->message, "%s",
                     pool_error(f));
        }
        pool_future_free(f);
        if (failure->task < 0 &&
            lane_stage_times(&m->lane, clock, &records[k], failure->message,
                             sizeof failure->message) != 0)
            failure->task = k;
        spoil_if_asked(s, &m->sets[k % 2], k);
    }
    if (failure->task < 0)
        check_here(&m->sets[(s->tasks - 1) % 2], clock,
                   &records[s->tasks - 1], failure, s->tasks - 1);
    return run_clock_ms(clock);
}

/* The host memory the largest of the modes asked for holds at once (they
 * run one after another, each freeing its buffers before the next): per
 * set of task buffers A, B, C and Freivalds' six vectors; the serial mode
 * has one set, offload two, the pipeline one per GPU worker (pinned). The
 * pinned copies that measure the link take one matrix. */
static size_t host_peak_bytes(const settings *s, const char *mode)
{
    int all = strcmp(mode, "all") == 0;
    size_t per_set = cm_mul_size(3, s->bytes, "--n") + 6 * s->n *
                     sizeof(double);
    size_t lanes = (size_t)(s->workers < s->tasks ? s->workers : s->tasks);
    size_t sets = 1;
    if (all || strcmp(mode, "offload") == 0)
        sets = 2;
    if ((all || strcmp(mode, "pipeline") == 0) && lanes > sets)
        sets = lanes;
    return cm_mul_size(sets, per_set, "--n");
}

/* Whether two open files are one: --csv x and --timeline ./x would
 * interleave their rows in one file. */
static int same_file(FILE *a, FILE *b)
{
    struct stat sa, sb;
    return fstat(fileno(a), &sa) == 0 && fstat(fileno(b), &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int main(int argc, char **argv)
{
    const size_t default_n = 4000;
    const long long default_tasks = 8, default_workers = 4;
    size_t n = default_n;
    long long tasks = default_tasks, workers = default_workers;
    long long threads = 0, fail_task = -1;
    const char *mode = "all", *timeline = NULL;
    cm_opt own[] = {
        {.name = "n", .type = CM_OPT_SIZE, .value = &n, .metavar = "N",
         .help = "side of the N x N float64 matrices", .min = 1,
         .max = 32768},
        {.name = "tasks", .type = CM_OPT_INT, .value = &tasks,
         .metavar = "T", .help = "number of tasks", .min = 1,
         .max = 100000},
        {.name = "workers", .type = CM_OPT_INT, .value = &workers,
         .metavar = "W", .help = "GPU workers in the pipeline", .min = 1,
         .max = 64},
        {.name = "threads", .type = CM_OPT_INT, .value = &threads,
         .metavar = "N", .help = "CPU threads in the pipeline (0: all CPUs)",
         .min = 0, .max = 1024},
        {.name = "mode", .type = CM_OPT_CHOICE, .value = &mode,
         .metavar = "MODE", .help = "modes to run",
         .choices = "serial|offload|pipeline|all"},
        {.name = "timeline", .type = CM_OPT_STRING, .value = &timeline,
         .metavar = "FILE",
         .help = "CSV of every task's stage start/end (ms)"},
        {.name = "fail-task", .type = CM_OPT_INT, .value = &fail_task,
         .metavar = "K", .help = "spoil task K's result (shows a failed run)",
         .min = -1, .max = 1000000},
    };
    cm_cli cli = {
        .program = PROGRAM,
        .summary = "Prepare on the CPU, multiply on the GPU: one task after "
                   "another, offloaded\nto a worker thread, and pipelined "
                   "(mirrors ThreadPoolExecutor + cp.dot).",
        .opts = own,
        .n_opts = sizeof own / sizeof *own,
    };
    cm_options opt = cm_options_default();
    opt.repeat = 3;             /* serial runs are long: 3, not 10 */
    opt.warmup = 1;
    cm_parse_or_exit(&cli, &opt, argc, argv);
    if (opt.quick) {            /* small sizes, unless set otherwise */
        n = n == default_n ? QUICK_N : n;
        tasks = tasks == default_tasks ? QUICK_TASKS : tasks;
        workers = workers == default_workers ? QUICK_WORKERS : workers;
        threads = threads == 0 ? QUICK_THREADS : threads;
        opt.repeat = opt.repeat_given ? opt.repeat : 1;
    }
    /* An option for a mode that does not run is refused, not ignored. */
    if (strcmp(mode, "pipeline") != 0 && strcmp(mode, "all") != 0)
        cm_refuse_given(&cli, &opt, "workers|threads", "unless the "
                        "pipeline runs (--mode pipeline|all)");
    if (fail_task >= tasks) {
        fprintf(stderr, "%s: --fail-task %lld: the tasks are 0..%lld "
                "(see --help)\n", PROGRAM, fail_task, tasks - 1);
        return CM_EXIT_USAGE;
    }
    const settings s = {
        .n = n,
        .bytes = cm_mul_size(n * n, sizeof(double), "a matrix"),
        .tasks = (int)tasks,
        .workers = (int)workers,
        .threads = threads > 0 ? (int)threads : pool_cpu_count(),
        .fail_task = (int)fail_task,
        .device = (int)opt.device,
        .seed = RANDOM_SEED,
    };

    /* The output files are opened before the GPU is touched: a path that
     * cannot be written fails now, not after the measurements. */
    cm_out_file csv_file, timeline_file;
    FILE *csv = cm_csv_open(&csv_file, opt.csv, MODES_CSV_HEADER);
    FILE *timeline_csv = cm_csv_open(&timeline_file, timeline,
                                     TIMELINE_CSV_HEADER);
    if (csv && timeline_csv && same_file(csv, timeline_csv)) {
        fprintf(stderr, "%s: --csv and --timeline name the same file "
                "(see --help)\n", PROGRAM);
        return CM_EXIT_USAGE;   /* exit removes both unfinished files */
    }

    /* Host memory is counted before the GPU is touched: where it is not
     * there, one line says so (malloc would promise it, and the OOM killer
     * would end the run without a word when the pages are touched). */
    cm_require_host_bytes(host_peak_bytes(&s, mode),
                          "the task buffers of the largest mode");
    cm_select_device((int)opt.device, NULL);
    char bytes_text[64];
    printf("%d tasks, each C = A B with A, B, C of %zu x %zu float64, %s "
           "each\n", s.tasks, n, n,
           cm_fmt_bytes(s.bytes, bytes_text, sizeof bytes_text));
    printf("a task: prepare A and B on the CPU, copy them in, GEMM "
           "(2 n^3 = %.3g flop), copy C out, check it (Freivalds)\n",
           2.0 * (double)n * (double)n * (double)n);
    printf("pipeline: %d GPU workers, %d CPU threads (this process may use "
           "%d CPUs)\n", s.workers, s.threads, pool_cpu_count());

    /* What this GPU does with each part alone, for reference. (The
     * pipeline's floor is measured on its own tasks: pipeline_alone.) */
    measure_ceilings(&s, opt.quick ? 3 : 10);
    cm_verdict verdict = {0};
    mode_summary modes[MODE_COUNT];
    task_record *records[MODE_COUNT] = {NULL, NULL, NULL};
    int count = 0;
    for (int m = 0; m < MODE_COUNT; m++) {
        if (strcmp(mode, "all") != 0 && strcmp(mode, MODE_NAMES[m]) != 0)
            continue;
        printf("\n%s:\n", MODE_NAMES[m]);
        measure_mode(m, &s, (int)opt.warmup, (int)opt.repeat, &verdict,
                     &modes[count], &records[count]);
        count++;
    }
    printf("\n");
    print_table(modes, count);
    if (count > 1 && strcmp(modes[0].mode, "serial") == 0) {
        printf("speedup over serial (serial wall time / mode's):");
        for (int m = 1; m < count; m++)
            printf(" %s %.2fx", modes[m].mode,
                   modes[0].wall_ms / modes[m].wall_ms);
        printf("\n");
    }

    if (csv)
        write_modes_csv(csv, modes, count);
    if (timeline_csv)
        write_timeline_csv(timeline_csv, modes, count);
    for (int m = 0; m < count; m++)
        free(records[m]);
    cm_csv_finish(&csv_file, &verdict);   /* kept only if every check passed */
    cm_csv_finish(&timeline_file, &verdict);
    printf("\n");
    return cm_verdict_report(&verdict);
}
