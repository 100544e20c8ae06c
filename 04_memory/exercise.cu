/* 04_memory/exercise.cu - lesson.cu with FIXME 1 to FIXME 5: it prints FAIL
 * until c by blocks matches c by one call bit for bit, and the pool keeps
 * x after del x, then gives all of it back (lesson.cu is the solution, but
 * try first). Where does a block of a row-major matrix start, how far
 * apart are its rows, and does each block product replace or add? What may
 * a pool keep at a synchronize? What does cudaMemPoolTrimTo's size mean?
 *   nvcc -O2 -o exercise exercise.cu -lcublas
 *   ./exercise
 */
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
/* C = alpha A B + beta C, row-major: A m x k, B k x n; ld*: the row length
   of the array each points into. cuBLAS is column-major: B goes first. */
static void gemm_rowmajor(cublasHandle_t handle, int m, int n, int k,
                          double alpha, const double *d_a, int lda,
                          const double *d_b, int ldb, double beta,
                          double *d_c, int ldc)
{
    CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                             &alpha, d_b, ldb, d_a, lda, &beta, d_c, ldc));
}
static int min_int(int a, int b) { return a < b ? a : b; }

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
    int pools = 0;    /* cudaMallocAsync needs them; some vGPUs lack them */
    CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported,
                                      0));
    if (!pools) {
        fprintf(stderr, "device 0 has no memory pools: skipped\n");
        return 77;
    }
    /* x = cp.random.rand(10000, 10000), values unused, from the device's
       stream-ordered pool (CuPy's MemoryAsyncPool's; the tutorial's
       MemoryPool is CuPy's own), on each host thread's own stream, which
       still syncs with the legacy stream 0 (cuBLAS's, cudaMemcpy's here). */
    size_t nbytes = (size_t)10000 * 10000 * sizeof(double);
    double *d_x, *d_a;
    cudaMemPool_t pool;
    cudaMemPoolAttr threshold = cudaMemPoolAttrReleaseThreshold;
    cudaMemPoolAttr reserved = cudaMemPoolAttrReservedMemCurrent;
    unsigned long long used, taken, kept, left, old, keep = 0; /* FIXME 1 */
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    /* The release threshold is what the pool may keep at a synchronize: 0
       by default, which gives x back there. We do as CuPy (FIXME 1), until
       the end, when we restore it: the pool serves the whole process. */
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, threshold, &old));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, threshold, &keep));
    CUDA_CHECK(cudaMallocAsync((void **)&d_x, nbytes, cudaStreamPerThread));
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, reserved, &taken));
    /* x.nbytes / 1024**2  # the tutorial's "MB" are MiB; pools take chunks */
    printf("x.nbytes = %zu bytes = %.2f MiB = %.2f MB; the pool took %llu\n",
           nbytes, nbytes / 1048576.0, nbytes / 1e6, taken);
    /* a, b = cp.random.rand(2500, 2500), in random sixteenths: every sum of
       their products is exact, in any order, so both c below must match bit
       for bit. One cudaMalloc holds a, b, c by one call and c by blocks. */
    int n = 2500, bs = 1000;                 /* n leaves edge blocks of 500 */
    size_t nn = (size_t)n * n, bytes = nn * sizeof(double), wrong = 0;
    double *h_ab = (double *)malloc(2 * bytes);  /* a, b; then both c */
    if (h_ab == NULL) {
        fprintf(stderr, "cannot allocate %zu bytes\n", 2 * bytes);
        return 1;
    }
    for (size_t e = 0; e < 2 * nn; e++)
        h_ab[e] = (double)(rand() % 16) / 16.0;        /* in [0, 1) */
    CUDA_CHECK(cudaMalloc(&d_a, 4 * bytes));
    double *d_b = d_a + nn, *d_one = d_b + nn, *d_blk = d_one + nn;
    CUDA_CHECK(cudaMemcpy(d_a, h_ab, 2 * bytes, cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    /* c = cp.dot(a, b): one call */
    gemm_rowmajor(handle, n, n, n, 1.0, d_a, n, d_b, n, 0.0, d_one, n);
    /* c = block_matrix_multiply(a, b, 1000). A block is a view: FIXME 2
       to 4: where does a[i:i+bs, k:k+bs] start, how far apart are its rows,
       and does each block product replace c's block or add to it? */
    for (int i = 0; i < n; i += bs)
        for (int j = 0; j < n; j += bs)
            for (int k = 0; k < n; k += bs)
                gemm_rowmajor(handle, min_int(bs, n - i), min_int(bs, n - j),
                              min_int(bs, n - k), 1.0,
                              d_a, n,                /* FIXME 2: a[i.., k..] */
                              d_b + (size_t)k * n + j, bs,  /* FIXME 3 */
                              0.0,                   /* FIXME 4: c[i.., j..] */
                              d_blk + (size_t)i * n + j, n);
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaMemcpy(h_ab, d_one, 2 * bytes, cudaMemcpyDeviceToHost));
    for (size_t e = 0; e < nn; e++)    /* each c_ij; a NaN differs as well */
        wrong += h_ab[nn + e] != h_ab[e];
    printf("c by blocks vs one call: %zu of %zu elements differ\n", wrong, nn);
    CUDA_CHECK(cudaFreeAsync(d_x, cudaStreamPerThread));  /* del x */
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent,
                                       &used));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, reserved, &kept));
    /* free_all_blocks(): what no live allocation holds goes to the GPU */
    CUDA_CHECK(cudaMemPoolTrimTo(pool, nbytes));       /* FIXME 5: keep? */
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, reserved, &left));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, threshold, &old));
    printf("pool after del x: used %llu bytes, reserved %llu; after "
           "free_all_blocks(): reserved %llu\n", used, kept, left);
    CUDA_CHECK(cudaFree(d_a));
    free(h_ab);
    int pool_ok = used == 0 && kept >= nbytes && left == 0;   /* kept: x */
    if (wrong || !pool_ok)
        printf("FAIL: c by blocks unlike one call's; pool used, reserved after "
               "del x, after trim: got %zu; %llu, %llu, %llu, expected 0; 0, "
               ">= %zu, 0\n", wrong, used, kept, left, nbytes);
    else
        printf("PASS\n");
    return wrong || !pool_ok;
}
