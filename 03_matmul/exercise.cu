/* 03_matmul/exercise.cu - make gemm_rowmajor right, and the case that
 * calls it. It prints FAIL until the four FIXME lines are fixed; the
 * lesson, lesson.cu, is the solution.
 *  1. gemm_rowmajor passes A first and m, n, k in our order, as if cuBLAS
 *     were row-major. It is column-major: it reads a row-major matrix as
 *     its transpose. Which product gives our C, and in what order?
 *  2. run_case passes k and n as A's and C's leading dimensions: right for
 *     a dense matrix, wrong for the padded rows of the second case.
 *  3. Run 1 (the timed one) starts from whatever run 0 left in C. With
 *     beta = 0.5, C = alpha A B + beta C needs the old C again.
 * Hint: the 1000^3 case is square, so only a wrong order shows there; a
 * wrong m, n or ld shows only in the 123 x 45 x 67 case (or as cuBLAS
 * refusing the call: CUBLAS_STATUS_INVALID_VALUE on the FAIL line).
 *   nvcc -O2 -o exercise exercise.cu -lcublas
 *   ./exercise
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
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
/* C = alpha A B + beta C, row-major (C, NumPy): A m x k, B k x n, C m x n;
 * a leading dimension (ld) is the step from one row to the next (the row
 * length, or more in a view of a larger matrix); beta = 0: C is not read.
 * cuBLAS is column-major: it reads our row-major A as A^T. So we ask for
 * C^T = B^T A^T (n x m), which it writes column by column, i.e. our
 * row-major C: B goes first, m and n trade places, each ld stays ours. */
static cublasStatus_t gemm_rowmajor(cublasHandle_t handle, int m, int n,
        int k, double alpha, const double *d_A, int lda, const double *d_B,
        int ldb, double beta, double *d_C, int ldc)
{
    return cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, /* FIXME */
        &alpha, d_A, lda, d_B, ldb, &beta, d_C, ldc);    /* FIXME: order */
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
    /* a_np, b_np = np.random.rand(...), old C: 64-bit LCG, top 53 bits */
    double *h_a = (double *)malloc(bytes + c_bytes);
    if (h_a == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes\n", bytes + c_bytes);
        exit(1);
    }
    double *h_b = h_a + a_count, *h_c = h_b + b_count, *h_ref = h_c + c_count;
    uint64_t state = (uint64_t)m;
    for (size_t i = 0; i < count; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        h_a[i] = (double)(state >> 11) / 9007199254740992.0;
    }
    memcpy(h_ref, h_c, c_bytes);
    /* a_cp = cp.asarray(a_np); b_cp = cp.asarray(b_np) */
    double *d_a;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    double *d_b = d_a + a_count, *d_c = d_b + b_count;
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    /* c_cp = cp.dot(a_cp, b_cp) from the old C: run 0 warms up, run 1 is
     * timed. cuBLAS only queues the GEMM: we wait for the stop event. */
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;   /* checked below */
    for (int run = 0; run < 2; run++) {
        /* FIXME: which C does each run start from? */
        CUDA_CHECK(cudaEventRecord(start, 0));
        status = gemm_rowmajor(handle, m, n, k, alpha,
                               d_a, k, d_b, ldb, beta, d_c, n); /* FIXME */
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
    }
    float ms = 0.0f;     /* the GEMM alone: 2 m n k flop (multiply, add) */
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("  GEMM: %.3f ms, %.2f TFLOP/s\n", ms, 2.0 * m * n * k / (ms * 1e9));
    /* c_np = cp.asnumpy(c_cp): after the GEMM, on the same stream. */
    CUDA_CHECK(cudaMemcpy(h_c, d_c, c_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_a));
    /* print(c_np), in short: one element, k products of mean 1/4. */
    printf("  C[0][0] = %.8f\n", h_c[0]);
    /* The CPU's textbook triple loop, on the old C kept in h_ref. */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0, *ref = &h_ref[(size_t)i * ldc + j];
            for (int p = 0; p < k; p++)
                sum += h_a[(size_t)i * lda + p] * h_b[(size_t)p * ldb + j];
            *ref = alpha * sum + beta * *ref;
        }
    double diff = 0.0, norm = 0.0;   /* over C's padding too */
    for (size_t i = 0; i < c_count; i++) {
        diff += (h_c[i] - h_ref[i]) * (h_c[i] - h_ref[i]);
        norm += h_ref[i] * h_ref[i];
    }
    free(h_a);
    /* k terms >= 0: each side errs by at most about (k+2) DBL_EPSILON/2
     * (Higham 3.1); the two differ by up to twice that; we allow 2x more. */
    double err = sqrt(diff / norm), tol = 2.0 * (k + 2) * DBL_EPSILON;
    printf("  vs CPU: relative error %.3e (tolerance %.1e)\n", err, tol);
    int ok = status == CUBLAS_STATUS_SUCCESS && err <= tol;  /* NaN fails */
    if (!ok)
        printf("FAIL: %d x %d x %d GEMM (%s) vs CPU, relative error: got "
               "%.3e, expected <= %.1e\n", m, n, k,
               cublasGetStatusName(status), err, tol);
    return ok;
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
    if (ok)
        printf("PASS\n");
    return ok ? 0 : 1;
}
