/* pipeline.cu - mode 3: many tasks in flight, so that the CPU, the copy
 * engines and the SMs all work at once.
 *
 * W GPU workers (a pool) each own a stream, a cuBLAS handle, device
 * buffers and pinned host buffers. A worker takes a task, has it prepared
 * by ALL the CPU threads (a second pool), copies it in, multiplies, copies
 * out and has it checked. While one worker's task is on the GPU, the
 * others' tasks are being prepared or copied: CPU prep, H2D, GEMM and D2H
 * of different tasks overlap.
 *
 * pipeline_alone runs the same tasks with one resource at work at a time:
 * what each needs alone is the floor the pipeline is judged against.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "hybrid.h"

/* Slices per CPU thread in each parallel step: a few per thread, so a
 * thread that finishes early takes another slice instead of idling. */
static const int SLICES_PER_THREAD = 4;

struct pipeline {
    settings s;
    pool *gpu;              /* W workers, worker i drives lanes[i] */
    pool *cpu;              /* the threads that prepare and check */
    gpu_lane *lanes;
    task_data *sets;        /* pinned host buffers, one set per worker */
    int lane_count, chunks;
    run_clock *clock;       /* of the run in progress */
    task_record *records;
};

typedef struct {
    pipeline *p;
    int task;
} pipeline_job;

/* One task on worker `worker`, from preparation to check. Returns 0, or 1
 * with the reason in err (err_len bytes, the future's error buffer). */
static int pipeline_task(void *arg, int worker, char *err, size_t err_len)
{
    pipeline_job *job = (pipeline_job *)arg;
    pipeline *p = job->p;
    int k = job->task;
    gpu_lane *lane = &p->lanes[worker];
    task_data *d = &p->sets[worker];
    task_record *r = &p->records[k];
    double prep_ms = 0, check_ms = 0;
    r->worker = worker;
    /* The current GPU is a setting of each thread, device 0 by default. */
    TRY_CUDA(cudaSetDevice(p->s.device), err, err_len);

    /* Preparation, shared by all CPU threads. Slices are queued with the
     * task index as rank, so task 0 gets every thread and is ready first,
     * then task 1, ...: the GPU can start after one task's prep, not
     * after W of them done side by side. */
    const task_cpu all_threads = {.cpu = p->cpu, .chunks = p->chunks,
                                   .rank = k};
    r->start_ms[STAGE_PREP] = run_clock_ms(p->clock);
    if (task_prepare(d, p->s.seed, k, all_threads, &prep_ms, err,
                     err_len) != 0)
        return 1;
    r->end_ms[STAGE_PREP] = run_clock_ms(p->clock);

    /* Copy in, multiply, copy out, all queued on this worker's stream.
     * From pinned memory cudaMemcpyAsync returns at once and the copy
     * engine reads the host buffer directly (no staging copy), so this
     * task's copies run while another worker's GEMM uses the SMs. */
    TRY_CUDA(cudaEventRecord(lane->marks[0], lane->stream), err, err_len);
    TRY_CUDA(cudaMemcpyAsync(lane->d_a, d->h_a, p->s.bytes,
                             cudaMemcpyHostToDevice, lane->stream),
             err, err_len);
    TRY_CUDA(cudaMemcpyAsync(lane->d_b, d->h_b, p->s.bytes,
                             cudaMemcpyHostToDevice, lane->stream),
             err, err_len);
    TRY_CUDA(cudaEventRecord(lane->marks[1], lane->stream), err, err_len);
    if (lane_gemm(lane, p->s.n, err, err_len) != 0)
        return 1;
    TRY_CUDA(cudaEventRecord(lane->marks[2], lane->stream), err, err_len);
    TRY_CUDA(cudaMemcpyAsync(d->h_c, lane->d_c, p->s.bytes,
                             cudaMemcpyDeviceToHost, lane->stream),
             err, err_len);
    TRY_CUDA(cudaEventRecord(lane->marks[3], lane->stream), err, err_len);
    /* The CPU may read h_c only once the copy has landed. This thread
     * sleeps here (a blocking-sync event) and leaves its core to prep. */
    TRY_CUDA(cudaEventSynchronize(lane->marks[3]), err, err_len);
    if (lane_stage_times(lane, p->clock, r, err, err_len) != 0)
        return 1;
    spoil_if_asked(&p->s, d, k);

    r->start_ms[STAGE_CHECK] = run_clock_ms(p->clock);
    int failed = task_check(d, all_threads, &check_ms, &r->worst_ratio, err,
                            err_len);
    r->end_ms[STAGE_CHECK] = run_clock_ms(p->clock);
    r->cpu_ms = prep_ms + check_ms;
    r->checked = !failed;
    return failed;
}

pipeline *pipeline_create(const settings *s)
{
    pipeline *p = (pipeline *)calloc(1, sizeof *p);
    if (!p) {
        fprintf(stderr, "out of host memory for the pipeline\n");
        exit(1);
    }
    p->s = *s;
    p->lane_count = s->workers < s->tasks ? s->workers : s->tasks;
    p->chunks = SLICES_PER_THREAD * s->threads;
    cm_require_device_bytes(cm_mul_size(3 * (size_t)p->lane_count,
                                        s->bytes, "pipeline buffers"),
                            "the pipeline's A, B and C per worker");
    p->lanes = (gpu_lane *)cm_host_alloc(p->lane_count * sizeof *p->lanes,
                                         "GPU workers");
    p->sets = (task_data *)cm_host_alloc(p->lane_count * sizeof *p->sets,
                                         "host buffer sets");
    char err[256];
    for (int i = 0; i < p->lane_count; i++) {
        lane_create(&p->lanes[i], s->n, 1);
        task_data_alloc(&p->sets[i], s->n, 1);
        /* A first GEMM on each handle, untimed: cuBLAS loads its kernels
         * on first use, which must not land inside a timed run. */
        if (lane_gemm(&p->lanes[i], s->n, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            exit(1);
        }
        CUDA_CHECK(cudaStreamSynchronize(p->lanes[i].stream));
    }
    p->gpu = pool_create(p->lane_count, err, sizeof err);
    p->cpu = p->gpu ? pool_create(s->threads, err, sizeof err) : NULL;
    if (!p->gpu || !p->cpu) {
        fprintf(stderr, "cannot start the pipeline's threads: %s\n", err);
        exit(1);
    }
    return p;
}

double pipeline_run(pipeline *p, run_clock *clock, task_record *records,
                    run_failure *failure)
{
    int tasks = p->s.tasks;
    pipeline_job *jobs = (pipeline_job *)cm_host_alloc(
        tasks * sizeof *jobs, "pipeline jobs");
    pool_future **futures = (pool_future **)cm_host_alloc(
        tasks * sizeof *futures, "pipeline futures");
    p->clock = clock;
    p->records = records;
    failure->task = -1;

    run_clock_start(clock);
    for (int k = 0; k < tasks; k++) {
        jobs[k].p = p;
        jobs[k].task = k;
        futures[k] = pool_submit(p->gpu, pipeline_task, &jobs[k]);
        if (!futures[k]) {
            fprintf(stderr, "out of host memory for a pipeline task\n");
            exit(1);
        }
    }
    /* The results in task order, like a list of futures in Python. At the
     * first failure we stop: queued tasks are cancelled, running ones
     * finish, the workers are joined, and then we report. */
    for (int k = 0; k < tasks; k++) {
        if (pool_wait(futures[k]) != 0) {
            failure->task = k;
            snprintf(failure->message, sizeof failure->message, "%s",
                     pool_error(futures[k]));
            pool_shutdown(p->gpu, POOL_CANCEL);
            pool_shutdown(p->cpu, POOL_DRAIN);
            p->gpu = p->cpu = NULL;
            break;
        }
    }
    double wall_ms = run_clock_ms(clock);
    for (int k = 0; k < tasks; k++)
        pool_future_free(futures[k]);
    free(futures);
    free(jobs);
    return wall_ms;
}

/* Each resource alone, for the floor: every task once more, on the
 * calling thread with worker 0's lane and buffers. The CPU pool prepares
 * a task while the GPU is idle; the GPU copies it in, multiplies and
 * copies C out while the CPU waits; the pool checks C while the GPU is
 * idle. Nothing overlaps, so no resource is slowed by another. With
 * one_thread, the last task is then prepared and checked once more on
 * this thread alone (the same values again): what one core costs. */
int pipeline_alone(pipeline *p, int one_thread, task_record *records,
                   alone_times *t, run_failure *failure)
{
    gpu_lane *lane = &p->lanes[0];
    task_data *d = &p->sets[0];
    const task_cpu here = {.cpu = NULL, .chunks = 1, .rank = 0};
    char *err = failure->message;
    size_t err_len = sizeof failure->message;
    memset(t, 0, sizeof *t);
    failure->task = -1;
    for (int k = 0; k < p->s.tasks; k++) {
        task_record *r = &records[k];
        const task_cpu all_threads = {.cpu = p->cpu, .chunks = p->chunks,
                                      .rank = 0};
        double prep_ms = 0, check_ms = 0;
        float ms[3];
        failure->task = k;              /* until it has passed */
        if (task_prepare(d, p->s.seed, k, all_threads, &prep_ms, err,
                         err_len) != 0)
            return 1;
        TRY_CUDA(cudaEventRecord(lane->marks[0], lane->stream), err,
                 err_len);
        TRY_CUDA(cudaMemcpyAsync(lane->d_a, d->h_a, p->s.bytes,
                                 cudaMemcpyHostToDevice, lane->stream),
                 err, err_len);
        TRY_CUDA(cudaMemcpyAsync(lane->d_b, d->h_b, p->s.bytes,
                                 cudaMemcpyHostToDevice, lane->stream),
                 err, err_len);
        TRY_CUDA(cudaEventRecord(lane->marks[1], lane->stream), err,
                 err_len);
        if (lane_gemm(lane, p->s.n, err, err_len) != 0)
            return 1;
        TRY_CUDA(cudaEventRecord(lane->marks[2], lane->stream), err,
                 err_len);
        TRY_CUDA(cudaMemcpyAsync(d->h_c, lane->d_c, p->s.bytes,
                                 cudaMemcpyDeviceToHost, lane->stream),
                 err, err_len);
        TRY_CUDA(cudaEventRecord(lane->marks[3], lane->stream), err,
                 err_len);
        TRY_CUDA(cudaEventSynchronize(lane->marks[3]), err, err_len);
        for (int i = 0; i < 3; i++)
            TRY_CUDA(cudaEventElapsedTime(&ms[i], lane->marks[i],
                                          lane->marks[i + 1]), err, err_len);
        spoil_if_asked(&p->s, d, k);
        if (task_check(d, all_threads, &check_ms, &r->worst_ratio, err,
                       err_len) != 0)
            return 1;
        r->checked = 1;
        r->cpu_ms = prep_ms + check_ms;
        t->cpu_ms += r->cpu_ms;
        t->h2d_ms += ms[0];
        t->gemm_ms += ms[1];
        t->d2h_ms += ms[2];
    }
    if (one_thread) {       /* the last task's A, B and C are still here */
        int k = p->s.tasks - 1;
        double prep_ms = 0, check_ms = 0, worst;
        failure->task = k;
        if (task_prepare(d, p->s.seed, k, here, &prep_ms, err,
                         err_len) != 0 ||
            task_check(d, here, &check_ms, &worst, err, err_len) != 0)
            return 1;
        t->one_thread_ms = prep_ms + check_ms;
    }
    failure->task = -1;
    return 0;
}

void pipeline_destroy(pipeline *p)
{
    /* GPU workers first: they are the ones that submit to the CPU pool. */
    pool_shutdown(p->gpu, POOL_CANCEL);
    pool_shutdown(p->cpu, POOL_DRAIN);
    for (int i = 0; i < p->lane_count; i++) {
        lane_destroy(&p->lanes[i]);
        task_data_free(&p->sets[i], 1);
    }
    free(p->lanes);
    free(p->sets);
    free(p);
}
