/* hybrid.h - what the lab's CUDA files share: hybrid.cu (main, the serial
 * and offload modes), gpu_task.cu (the GPU half of a task), pipeline.cu
 * (the pipeline mode) and measure.cu (how each mode is measured).
 */
#ifndef HYBRID_H
#define HYBRID_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "pool.h"
#include "report.h"
#include "task.h"
#include "verify.h"

#define PROGRAM_NAME "05_hybrid_threads"

enum { SERIAL, OFFLOAD, PIPELINE, MODE_COUNT };
extern const char *const MODE_NAMES[MODE_COUNT];

typedef struct {
    size_t n;           /* matrix side */
    size_t bytes;       /* of one n x n float64 matrix */
    int tasks;
    int workers;        /* GPU workers of the pipeline */
    int threads;        /* CPU threads that prepare and check (pipeline) */
    int fail_task;      /* -1, or the task whose result we spoil */
    int device;         /* the CUDA device every thread must use */
    uint64_t seed;
} settings;

/* One GPU worker's own resources. Two workers never share a stream, a
 * cuBLAS handle or device buffers, so no work of one is queued behind the
 * other's; they still share the GPU's copy engines and SMs, and a copy or
 * GEMM may wait for those while another worker's uses them. */
typedef struct {
    cudaStream_t stream;    /* 0: the legacy default stream */
    cublasHandle_t handle;
    double *d_a, *d_b, *d_c;
    cudaEvent_t marks[4];   /* before H2D, after H2D, after GEMM, after D2H */
} gpu_lane;

/* The start of a run on both clocks, so host stages (host clock) and GPU
 * stages (events) share one time axis in the timeline. */
typedef struct {
    cudaEvent_t event;
    double host_ms;
} run_clock;

/* Why a run stopped: the first failed task in task order. */
typedef struct {
    int task;           /* -1 while every task passed */
    char message[768];
} run_failure;

/* Inside a pool task a failed call must not exit(): other threads still
 * use the GPU. TRY_CUDA(call, err, err_len) writes CUDA_CHECK's message
 * into the buffer err (err_len bytes: the task's error, which reaches the
 * caller through its future) and makes the enclosing function return 1;
 * the caller shuts the pool down and then exits. TRY_CUBLAS likewise. */
#define TRY_CUDA(call, err, err_len)                                       \
    do {                                                                   \
        cudaError_t try_err_ = (call);                                     \
        if (try_err_ != cudaSuccess) {                                     \
            snprintf((err), (err_len), "%s:%d: %s failed: %s: %s",         \
                     __FILE__, __LINE__, #call,                            \
                     cudaGetErrorName(try_err_),                           \
                     cudaGetErrorString(try_err_));                        \
            return 1;                                                      \
        }                                                                  \
    } while (0)

#define TRY_CUBLAS(call, err, err_len)                                     \
    do {                                                                   \
        cublasStatus_t try_st_ = (call);                                   \
        if (try_st_ != CUBLAS_STATUS_SUCCESS) {                            \
            snprintf((err), (err_len), "%s:%d: %s failed: %s: %s",         \
                     __FILE__, __LINE__, #call,                            \
                     cublasGetStatusName(try_st_),                         \
                     cublasGetStatusString(try_st_));                      \
            return 1;                                                      \
        }                                                                  \
    } while (0)

/* Resources of the serial and offload modes: one GPU lane on the legacy
 * default stream, like CuPy's, and pageable host buffers: one set in the
 * serial mode, two in offload (the next task is prepared into one while
 * the GPU worker copies the other). */
typedef struct {
    gpu_lane lane;
    task_data sets[2];      /* sets[1] only in offload */
    pool *worker;           /* offload: the single GPU worker */
} simple_mode;

typedef struct {
    double worker_ms;       /* the GPU worker's busy time */
    double main_work_ms;    /* main thread, submit to wait: its CPU work */
    double main_wait_ms;    /* time it then waited for the worker */
} offload_stats;

/* hybrid.cu */
double run_serial(const settings *s, simple_mode *m, run_clock *clock,
                  task_record *records, run_failure *failure);
double run_offload(const settings *s, simple_mode *m, run_clock *clock,
                   task_record *records, run_failure *failure,
                   offload_stats *stats);

/* gpu_task.cu */
void task_data_alloc(task_data *d, size_t n, int pinned);
void task_data_free(task_data *d, int pinned);
void lane_create(gpu_lane *lane, size_t n, int own_stream);
void lane_destroy(gpu_lane *lane);
int lane_gemm(gpu_lane *lane, size_t n, char *err, size_t err_len);
int lane_stage_times(gpu_lane *lane, const run_clock *clock,
                     task_record *record, char *err, size_t err_len);
void run_clock_start(run_clock *clock);
double run_clock_ms(const run_clock *clock);
void spoil_if_asked(const settings *s, task_data *d, int task);

/* measure.cu */
/* Prints what this GPU does with each part alone (pinned copies of one
 * matrix each way, one GEMM of random data). */
void measure_ceilings(const settings *s, int repeat);
void measure_mode(int mode, const settings *s, int warmup, int repeat,
                  cm_verdict *v, mode_summary *sum, task_record **records);

/* pipeline.cu */
typedef struct pipeline pipeline;
pipeline *pipeline_create(const settings *s);
double pipeline_run(pipeline *p, run_clock *clock, task_record *records,
                    run_failure *failure);
void pipeline_destroy(pipeline *p);

/* What each resource needed when it worked alone (pipeline_alone). */
typedef struct {
    double cpu_ms;          /* prep + check busy time, all tasks */
    double h2d_ms, gemm_ms, d2h_ms;   /* all tasks, CUDA events */
    double one_thread_ms;   /* one task's prep + check on one thread, or
                               0 if not measured */
} alone_times;

/* Every task again with no two resources at work at once; returns 0,
 * or 1 with the failed task in *failure. */
int pipeline_alone(pipeline *p, int one_thread, task_record *records,
                   alone_times *t, run_failure *failure);

#endif /* HYBRID_H */
