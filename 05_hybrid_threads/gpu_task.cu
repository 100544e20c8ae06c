/* gpu_task.cu - the pieces of a task that every mode uses: host buffers
 * (pageable or pinned), a GPU worker's stream, cuBLAS handle and device
 * buffers, the GEMM itself, and the clocks that time each stage.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "hybrid.h"
#include "timing.h"

/* A task's host buffers. Pageable (malloc) memory is what a NumPy array
 * is; pinned memory (cudaMallocHost) can be read by the copy engines
 * directly, which is what makes cudaMemcpyAsync truly asynchronous. */
void task_data_alloc(task_data *d, size_t n, int pinned)
{
    size_t bytes = cm_mul_size(n * n, sizeof(double), "a matrix");
    double **matrices[3] = {&d->h_a, &d->h_b, &d->h_c};
    double **vectors[6] = {&d->x, &d->y, &d->s, &d->z, &d->bound, &d->ratio};
    d->n = n;
    for (int i = 0; i < 3; i++) {
        if (pinned)
            CUDA_CHECK(cudaMallocHost((void **)matrices[i], bytes));
        else
            *matrices[i] = (double *)cm_host_alloc(bytes, "a host matrix");
    }
    for (int i = 0; i < 6; i++)
        *vectors[i] = (double *)cm_host_alloc(n * sizeof(double),
                                              "a check vector");
}

void task_data_free(task_data *d, int pinned)
{
    double *matrices[3] = {d->h_a, d->h_b, d->h_c};
    for (int i = 0; i < 3; i++) {
        if (pinned)
            CUDA_CHECK(cudaFreeHost(matrices[i]));
        else
            free(matrices[i]);
    }
    double *vectors[6] = {d->x, d->y, d->s, d->z, d->bound, d->ratio};
    for (int i = 0; i < 6; i++)
        free(vectors[i]);
}

void lane_create(gpu_lane *lane, size_t n, int own_stream)
{
    size_t bytes = n * n * sizeof(double);
    memset(lane, 0, sizeof *lane);
    /* Non-blocking: our streams never wait for the legacy default one. */
    if (own_stream)
        CUDA_CHECK(cudaStreamCreateWithFlags(&lane->stream,
                                             cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&lane->handle));
    CUBLAS_CHECK(cublasSetStream(lane->handle, lane->stream));
    double **buffers[3] = {&lane->d_a, &lane->d_b, &lane->d_c};
    for (int i = 0; i < 3; i++) {
        CUDA_CHECK(cudaMalloc((void **)buffers[i], bytes));
        CUDA_CHECK(cudaMemsetAsync(*buffers[i], 0, bytes, lane->stream));
    }
    /* A thread waiting for an ordinary event (or stream) spins on its
     * core under the default scheduling, whenever the process has no more
     * CUDA contexts than CPUs (the usual case). Blocking-sync events make
     * the waiting GPU worker sleep instead, leaving the core to the
     * threads that prepare data. */
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaEventCreateWithFlags(&lane->marks[i],
                                            cudaEventBlockingSync));
    CUDA_CHECK(cudaStreamSynchronize(lane->stream));
}

void lane_destroy(gpu_lane *lane)
{
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaEventDestroy(lane->marks[i]));
    CUDA_CHECK(cudaFree(lane->d_a));
    CUDA_CHECK(cudaFree(lane->d_b));
    CUDA_CHECK(cudaFree(lane->d_c));
    CUBLAS_CHECK(cublasDestroy(lane->handle));
    if (lane->stream)
        CUDA_CHECK(cudaStreamDestroy(lane->stream));
}

/* C = A B for row-major matrices. cuBLAS is column-major, so it reads our
 * row-major A as A^T. Asked for B^T A^T = (A B)^T, which it writes
 * column-major, it leaves A B in row-major order: B goes first. */
int lane_gemm(gpu_lane *lane, size_t n, char *err, size_t err_len)
{
    const double one = 1.0, zero = 0.0;
    int side = (int)n;
    TRY_CUBLAS(cublasDgemm(lane->handle, CUBLAS_OP_N, CUBLAS_OP_N, side,
                           side, side, &one, lane->d_b, side, lane->d_a,
                           side, &zero, lane->d_c, side), err, err_len);
    return 0;
}

/* An event recorded and waited for marks the run's start on the GPU's
 * clock; cm_now_ms at that moment marks it on the host's. */
void run_clock_start(run_clock *clock)
{
    CUDA_CHECK(cudaEventRecord(clock->event, 0));
    CUDA_CHECK(cudaEventSynchronize(clock->event));
    clock->host_ms = cm_now_ms();
}

double run_clock_ms(const run_clock *clock)
{
    return cm_now_ms() - clock->host_ms;
}

/* After the lane's last mark has completed: its GPU stages on the run's
 * time axis. Each stage ends where the next begins on the stream. */
int lane_stage_times(gpu_lane *lane, const run_clock *clock,
                     task_record *record, char *err, size_t err_len)
{
    float ms[4];
    for (int i = 0; i < 4; i++)
        TRY_CUDA(cudaEventElapsedTime(&ms[i], clock->event,
                                      lane->marks[i]), err, err_len);
    for (int s = STAGE_H2D; s <= STAGE_D2H; s++) {
        record->start_ms[s] = ms[s - STAGE_H2D];
        record->end_ms[s] = ms[s - STAGE_H2D + 1];
    }
    return 0;
}

/* --fail-task K: pretend task K's result came back with one wrong element
 * (C[n/2][n/3] + 1), to show the check catch it and the run stop. */
void spoil_if_asked(const settings *s, task_data *d, int task)
{
    if (task == s->fail_task)
        d->h_c[(s->n / 2) * s->n + s->n / 3] += 1.0;
}
