/* 03_matmul/exercise.cu - the lesson with three things to fix, on lines
 * marked FIXME 1 to FIXME 3. Goal: PASS, every element of both products
 * within its bound. Where to look: cuBLAS's documentation of cublasDgemm
 * (what m, n, k and each ld mean to a column-major library) and the
 * comment at each FIXME. The 1000^3 case is square: which mistakes can it
 * see? Try before you read lesson.cu.
 *   nvcc -O2 -o exercise exercise.cu -lcublas
 *   ./exercise
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

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
/* The same for cuBLAS, which has its own status type and strings. */
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

/* C = alpha A B + beta C for row-major A (m x k), B (k x n) and C (m x n);
   lda, ldb, ldc: the row length of the array each points into. cuBLAS is
   column-major. FIXME 1: what does it see when it reads our A, which
   product, written column by column, is our C, and so in which order? */
static void gemm_rowmajor(cublasHandle_t handle, int m, int n, int k,
                          double alpha, const double *d_a, int lda,
                          const double *d_b, int ldb, double beta,
                          double *d_c, int ldc)
{
    CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, /* FIXME 1 */
                             m, n, k, &alpha, d_a, lda,        /* FIXME 1 */
                             d_b, ldb, &beta, d_c, ldc));      /* FIXME 1 */
}

/* One product on GPU and CPU: prints its lines, returns 1 if they agree. */
static int run_case(cublasHandle_t handle, int m, int n, int k, int lda,
                    int ldb, int ldc, double alpha, double beta)
{
    size_t a_count = (size_t)m * lda, b_count = (size_t)k * ldb;
    size_t c_count = (size_t)m * ldc, count = a_count + b_count + c_count;
    size_t bytes = count * sizeof(double), c_bytes = c_count * sizeof(double);
    printf("C = %g A B + %g C, m %d, n %d, k %d, lda %d, ldb %d, ldc %d: "
           "%zu bytes\n", alpha, beta, m, n, k, lda, ldb, ldc, bytes);
    /* a_np, b_np = np.random.rand(...), the old C, then C's reference, in
       one block of pinned memory (chapter 02: copies from it are faster). */
    double *h_a;
    CUDA_CHECK(cudaMallocHost(&h_a, bytes + c_bytes));
    double *h_b = h_a + a_count, *h_c = h_b + b_count, *h_ref = h_c + c_count;
    for (size_t i = 0; i < count; i++)
        h_a[i] = rand() / (RAND_MAX + 1.0);      /* uniform in [0, 1) */
    memcpy(h_ref, h_c, c_bytes);
    /* a_cp = cp.asarray(a_np), b_cp too: one copy of A, B and the old C. */
    double *d_a;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    double *d_b = d_a + a_count, *d_c = d_b + b_count;
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    /* c_cp = cp.dot(a_cp, b_cp) (FIXME 2: from which C?): run 0 warms up,
       run 1 is timed. cuBLAS only queues the GEMM: we wait for `stop`. */
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int run = 0; run < 2; run++) {
        /* FIXME 2: which C does each run start from? */
        CUDA_CHECK(cudaEventRecord(start, 0));
        gemm_rowmajor(handle, m, n, k, alpha, d_a, k, d_b, ldb, /* FIXME 3 */
                      beta, d_c, n);                          /* FIXME 3 */
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
    }
    float ms = 0.0f;     /* the GEMM alone: 2 m n k flop (multiply, add) */
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    /* c_np = cp.asnumpy(c_cp); print(c_np), in short: one element. */
    CUDA_CHECK(cudaMemcpy(h_c, d_c, c_bytes, cudaMemcpyDeviceToHost));
    printf("  GEMM: %.3f ms, %.2f TFLOP/s; C[0][0] = %.8f\n", ms,
           2.0 * m * n * k / (ms * 1e9), h_c[0]);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_a));
    /* The CPU's triple loop on the old C in h_ref, and each element's own
       bound: each side errs by at most about (k + 2) DBL_EPSILON / 2 of
       |alpha| sum |a b| + |beta c| (Higham 3.1): |C| for A, B, C >= 0, as
       here (else sum |a b|). We allow 4 times that: tol |C|. */
    double tol = 2.0 * (k + 2) * DBL_EPSILON, worst = 0.0;
    size_t at = 0;                     /* worst: largest |C - C_cpu| / bound */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            size_t e = (size_t)i * ldc + j;
            double sum = 0.0;
            for (int p = 0; p < k; p++)
                sum += h_a[(size_t)i * lda + p] * h_b[(size_t)p * ldb + j];
            h_ref[e] = alpha * sum + beta * h_ref[e];
            double ratio = fabs(h_c[e] - h_ref[e]) / (tol * fabs(h_ref[e]));
            if (isnan(ratio) || ratio > worst) {    /* NaN stays, and fails */
                worst = ratio;
                at = e;
            }
        }
    printf("  vs CPU: the worst element at %.2g of its bound\n", worst);
    if (!(worst <= 1.0))
        printf("FAIL: %d x %d x %d GEMM vs CPU, C[%zu][%zu]: got %.17g, "
               "expected %.17g (%.2g times its bound)\n", m, n, k, at / ldc,
               at % ldc, h_c[at], h_ref[at], worst);
    CUDA_CHECK(cudaFreeHost(h_a));
    return worst <= 1.0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {                      /* this lesson takes no argument */
        fprintf(stderr, "usage: %s (no arguments)\n", argv[0]);
        return 2;
    }
    int device_count = 0, driver_version = 0;
    cudaError_t count_err = cudaGetDeviceCount(&device_count);
    if (count_err != cudaSuccess || device_count == 0) { /* exit 77: skip */
        (void)cudaDriverGetVersion(&driver_version);  /* 0: no driver */
        fprintf(stderr, "no usable CUDA device: %s\n", driver_version == 0
                ? "no NVIDIA driver or GPU found" : count_err != cudaSuccess
                ? cudaGetErrorString(count_err) : "none found");
        return 77;
    }
    cublasHandle_t handle;   /* CuPy makes one inside its first cp.dot */
    CUBLAS_CHECK(cublasCreate(&handle));
    int ok = run_case(handle, 1000, 1000, 1000, 1000, 1000, 1000, 1.0, 0.0)
             && run_case(handle, 123, 45, 67, 70, 50, 48, 2.0, 0.5);
    CUBLAS_CHECK(cublasDestroy(handle));
    printf("%s", ok ? "PASS\n" : "");    /* run_case printed any FAIL */
    return ok ? 0 : 1;
}
