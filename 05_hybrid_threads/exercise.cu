/* 05_hybrid_threads/exercise.cu - make it print PASS. Each task's copy
 * in, GEMM and copy back must run in order, and C must be back before the
 * CPU reads it; the lines marked FIXME 1 to FIXME 3 break that. On which
 * stream does each step run, and when may the CPU read C? (See README.)
 *   nvcc -O2 -o exercise exercise.cu -lcublas -lpthread
 *   ./exercise
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
enum { N = 2000, TASKS = 16, WORKERS = 4 };     /* matrices N x N float64 */
static const size_t BYTES = (size_t)N * N * sizeof(double);
/* Every CUDA call returns a status; we stop at the first failure and say
   which call failed, where, and why. Never compiled out. */
#define CUDA_CHECK(call)                                                  \
    do {                                                                  \
        cudaError_t err_ = (call);                                        \
        if (err_ != cudaSuccess) {                                        \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__,       \
                    __LINE__, #call, cudaGetErrorName(err_),              \
                    cudaGetErrorString(err_));                            \
            exit(1);                                                      \
        }                                                                 \
    } while (0)
#define CUBLAS_CHECK(call)                                                \
    do {                                                                  \
        cublasStatus_t st_ = (call);                                      \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                               \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__,       \
                    __LINE__, #call, cublasGetStatusName(st_),            \
                    cublasGetStatusString(st_));                          \
            exit(1);                                                      \
        }                                                                 \
    } while (0)
static struct worker {
    cudaStream_t stream;        /* a queue of GPU work, run in order */
    cublasHandle_t handle;      /* cuBLAS's state, and the stream it uses */
    double *h_a, *h_b, *h_c, *d_a, *d_b, *d_c;  /* A, B, C; h_: pinned */
    int wrong;                          /* rows that failed the check */
} workers[WORKERS];
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_task;                   /* the queue: tasks next_task.. */
/* np.random.rand as whole numbers lo..lo+4: float64 sums stay exact. */
static void fill(double *m, size_t count, unsigned long long seed, int lo)
{
    for (size_t i = 0; i < count; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        m[i] = lo + (double)((seed >> 33) % 5);
    }
}
static void matvec(const double *m, const double *v, double *out)
{
    for (size_t i = 0; i < N; i++) {
        double sum = 0;
        for (size_t j = 0; j < N; j++)
            sum += m[i * N + j] * v[j];
        out[i] = sum;
    }
}
static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    double x[N], y[N], z[N], one = 1.0, zero = 0.0;
    for (;;) {
        pthread_mutex_lock(&queue_lock);    /* take and advance: one step */
        int k = next_task < TASKS ? next_task++ : -1;
        pthread_mutex_unlock(&queue_lock);
        if (k < 0)
            return NULL;
        fill(w->h_a, 2 * N * N, 1 + k, -2);    /* a_np, b_np (B follows A) */
        fill(x, N, 1000 + k, 1);
        matvec(w->h_b, x, y);           /* Freivalds: C = A B implies */
        matvec(w->h_a, y, z);           /* C x = A (B x), N^2 steps */
        /* a_cp = cp.asarray(a); b_cp = cp.asarray(b): B follows A, so */
        CUDA_CHECK(cudaMemcpyAsync(w->d_a, w->h_a, 2 * BYTES,  /* one copy */
                                   cudaMemcpyHostToDevice, 0)); /* FIXME 1 */
        /* c_cp = cp.dot(a_cp, b_cp) on the handle's stream. cuBLAS is
           column-major: B^T A^T = (A B)^T, so B goes first. */
        CUBLAS_CHECK(cublasDgemm(w->handle, CUBLAS_OP_N, CUBLAS_OP_N, N, N,
                     N, &one, w->d_b, N, w->d_a, N, &zero, w->d_c, N));
        CUDA_CHECK(cudaMemcpyAsync(w->h_c, w->d_c, BYTES,   /* asnumpy */
                                   cudaMemcpyDeviceToHost, w->stream));
        /* FIXME 2: C has only been queued to come back */
        matvec(w->h_c, x, y);
        for (size_t i = 0; i < N; i++)  /* exact, so no tolerance */
            w->wrong += y[i] != z[i];
    }
}
/* All tasks on `threads` workers: wall ms (each task ends in its sync). */
static double run_tasks(int threads)
{
    pthread_t ids[WORKERS];
    struct timespec t0, t1;
    next_task = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++)   /* with ThreadPoolExecutor() */
        if (pthread_create(&ids[i], NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "cannot start thread %d\n", i);
            exit(1);
        }
    for (int i = 0; i < threads; i++)   /* future.result() */
        pthread_join(ids[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
}
int main(int argc, char **argv)
{
    if (argc > 1) {                      /* this lesson takes no argument */
        fprintf(stderr, "usage: %s (no arguments)\n", argv[0]);
        return 2;
    }
    int device_count = 0, driver_version = 0, wrong = 0;
    cudaError_t count_err = cudaGetDeviceCount(&device_count);
    if (count_err != cudaSuccess || device_count == 0) { /* exit 77: skip */
        (void)cudaDriverGetVersion(&driver_version);  /* 0: no driver */
        fprintf(stderr, "no usable CUDA device: %s\n", driver_version == 0
                ? "no NVIDIA driver or GPU found" : count_err != cudaSuccess
                ? cudaGetErrorString(count_err) : "none found");
        return 77;
    }
    for (struct worker *w = workers; w < workers + WORKERS; w++) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&w->stream,
                                             cudaStreamNonBlocking));
        CUBLAS_CHECK(cublasCreate(&w->handle));
        CUBLAS_CHECK(cublasSetStream(w->handle, 0 /* FIXME 3 */));
        CUDA_CHECK(cudaMallocHost((void **)&w->h_a, 3 * BYTES)); /* A B C */
        CUDA_CHECK(cudaMalloc((void **)&w->d_a, 3 * BYTES));
        w->h_b = w->h_a + N * N, w->h_c = w->h_b + N * N;
        w->d_b = w->d_a + N * N, w->d_c = w->d_b + N * N;
        next_task = TASKS - 1;  /* warm-up: one task on this thread, so */
        worker_main(w);         /* each handle's first GEMM is untimed */
    }
    double serial_ms = run_tasks(1), threaded_ms = run_tasks(WORKERS);
    printf("%d tasks, C = A B of %d x %d float64\nserial, 1 thread: %.1f ms"
           "\nthreaded, %d threads: %.1f ms\nspeedup: %.2fx\n", TASKS, N, N,
           serial_ms, WORKERS, threaded_ms, serial_ms / threaded_ms);
    for (struct worker *w = workers; w < workers + WORKERS; w++) {
        wrong += w->wrong;
        CUBLAS_CHECK(cublasDestroy(w->handle));
        CUDA_CHECK(cudaStreamDestroy(w->stream));
        CUDA_CHECK(cudaFreeHost(w->h_a));
        CUDA_CHECK(cudaFree(w->d_a));
    }
    printf(wrong ? "FAIL: rows where C x != A (B x), got %d, expected 0\n"
                 : "PASS\n", wrong);      /* every row of every task run */
    return wrong != 0;
}
