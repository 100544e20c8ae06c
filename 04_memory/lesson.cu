/* 04_memory lesson: section 2.24.2 of the tutorial, each CuPy line as a
 * comment above its C: x.nbytes / 1024**2 (MiB, not MB) and what cudaMalloc
 * takes for x; block_matrix_multiply(a, b, 1000) with sub-matrix views as
 * its blocks; del x; free_all_blocks() as the stream-ordered pool's trim.
 * Build and run (CUDA 11.4 or newer: the pool, cuBLAS status names):
 *   nvcc -O2 -o lesson lesson.cu -lcublas
 *   ./lesson
 */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
/* C = A B + beta C, row-major, as in 03_matmul. cuBLAS is column-major and
   reads our C as C^T = B^T A^T: so B goes first and sizes are (cols, rows).
   ld* is the row length of the matrix that each pointer points into. */
static void gemm_rowmajor(cublasHandle_t handle, size_t rows, size_t cols,
                          size_t inner, const double *d_a, size_t lda,
                          const double *d_b, size_t ldb, double beta,
                          double *d_c, size_t ldc)
{
    const double one = 1.0;
    CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)cols,
                             (int)rows, (int)inner, &one, d_b, (int)ldb, d_a,
                             (int)lda, &beta, d_c, (int)ldc));
}
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

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
    /* x = cp.random.rand(10000, 10000); x.nbytes / 1024**2  # "MB" */
    size_t nbytes = (size_t)10000 * 10000 * sizeof(double), free0, free1, all;
    printf("x.nbytes = %zu bytes = %.2f MiB (the tutorial's \"MB\") = %.2f "
           "MB\n", nbytes, nbytes / 1048576.0, nbytes / 1e6);
    /* cudaMalloc takes the memory at once, in whole pages. cudaMemGetInfo
       counts the whole GPU, so other processes move it too. */
    double *d_x, *d_a;
    CUDA_CHECK(cudaMemGetInfo(&free0, &all));
    CUDA_CHECK(cudaMalloc(&d_x, nbytes));
    CUDA_CHECK(cudaMemGetInfo(&free1, &all));
    printf("cudaMalloc(x.nbytes): GPU free %zu -> %zu bytes, fell by %lld\n",
           free0, free1, (long long)free0 - (long long)free1);
    CUDA_CHECK(cudaFree(d_x));
    /* a, b = cp.random.rand(2500, 2500), made on the host in [0, 1). One
       device allocation holds a, b, c by one call and c by blocks. */
    size_t n = 2500, bs = 1000, nn = n * n, bytes = nn * sizeof(double);
    double *h_ab = (double *)malloc(2 * bytes);
    if (h_ab == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes\n", 2 * bytes);
        return 1;
    }
    for (size_t i = 0; i < 2 * nn; i++)
        h_ab[i] = (double)(i * 2654435761u % 1000003) / 1000003.0;
    CUDA_CHECK(cudaMalloc(&d_a, 4 * bytes));
    double *d_b = d_a + nn, *d_one = d_b + nn, *d_blk = d_one + nn;
    CUDA_CHECK(cudaMemcpy(d_a, h_ab, 2 * bytes, cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    /* c = cp.dot(a, b): one call, the reference */
    gemm_rowmajor(handle, n, n, n, d_a, n, d_b, n, 0.0, d_one, n);
    /* c = block_matrix_multiply(a, b, 1000); n = 2500 leaves edge blocks.
       a[i:i+bs, k:k+bs] is a view: the address of its first element, with
       the parent's row length n as leading dimension. beta = 1 adds into
       c's block in place; beta = 0 on the first k-block overwrites it. */
    for (size_t i = 0; i < n; i += bs)
        for (size_t j = 0; j < n; j += bs)
            for (size_t k = 0; k < n; k += bs)
                gemm_rowmajor(handle, min_size(bs, n - i),
                              min_size(bs, n - j), min_size(bs, n - k),
                              d_a + i * n + k, n,  /* a[i:i+bs, k:k+bs] */
                              d_b + k * n + j, n,  /* b[k:k+bs, j:j+bs] */
                              k == 0 ? 0.0 : 1.0,  /* c[i.., j..] += */
                              d_blk + i * n + j, n);
    /* norm(c_blocked - c) / norm(c): each c is within n u |a||b| = n u ab
       (nothing is negative) of the exact product, u = eps / 2; only the
       order of summation differs, so at most n eps. We allow 2 n eps. */
    double minus_one = -1.0, diff, norm, tol = 2.0 * (double)n * DBL_EPSILON;
    CUBLAS_CHECK(cublasDaxpy(handle, (int)nn, &minus_one, d_one, 1, d_blk, 1));
    CUBLAS_CHECK(cublasDnrm2(handle, (int)nn, d_blk, 1, &diff));
    CUBLAS_CHECK(cublasDnrm2(handle, (int)nn, d_one, 1, &norm));
    CUBLAS_CHECK(cublasDestroy(handle));
    printf("blocked vs one call: relative error %.3g (tolerance 2 n eps = "
           "%.3g)\n", diff / norm, tol);
    /* x = cp.random.rand(10000, 10000) from the device's pool, in stream
       order; CuPy's pool on the same allocator: cupy.cuda.MemoryAsyncPool */
    cudaMemPool_t pool;
    unsigned long long used, kept, left, threshold = ULLONG_MAX;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    /* The release threshold is what the pool may keep at a synchronize.
       The default, 0, would give x back there and leave nothing to trim;
       CuPy's pools keep every block, and so do we. */
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                       &threshold));
    CUDA_CHECK(cudaMallocAsync((void **)&d_x, nbytes, cudaStreamPerThread));
    CUDA_CHECK(cudaFreeAsync(d_x, cudaStreamPerThread));  /* del x */
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent,
                                       &used));
    CUDA_CHECK(cudaMemPoolGetAttribute(
        pool, cudaMemPoolAttrReservedMemCurrent, &kept));
    /* free_all_blocks(): what no live allocation holds goes to the GPU */
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    CUDA_CHECK(cudaMemPoolGetAttribute(
        pool, cudaMemPoolAttrReservedMemCurrent, &left));
    printf("pool after del x: used %llu bytes, reserved %llu; after "
           "free_all_blocks(): reserved %llu\n", used, kept, left);
    CUDA_CHECK(cudaFree(d_a));
    free(h_ab);
    int ok = diff <= tol * norm;    /* written so that NaN fails too */
    if (!ok)
        printf("FAIL: blocked vs one-call c, relative error, got %.3g, "
               "expected <= %.3g (2 n eps)\n", diff / norm, tol);
    else if (used != 0 || kept < nbytes || left != 0)
        printf("FAIL: pool used, reserved after del x, after trim, got %llu, "
               "%llu, %llu, expected 0, >= %zu, 0\n", used, kept, left, nbytes);
    else
        printf("PASS\n");
    return !ok || used != 0 || kept < nbytes || left != 0;
}
