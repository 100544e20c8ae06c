/* gemm.c - the row-major GEMM of gemm.h, sizes checked before cuBLAS. */
#include "gemm.h"

#include <limits.h>

int cm_gemm_int_sizes(size_t m, size_t n, size_t k, size_t lda, size_t ldb,
                      size_t ldc, int out[6])
{
    const size_t sizes[6] = {m, n, k, lda, ldb, ldc};
    for (int i = 0; i < 6; i++)
        if (sizes[i] > (size_t)INT_MAX)
            return -1;
    for (int i = 0; i < 6; i++)
        out[i] = (int)sizes[i];
    return 0;
}

cublasStatus_t cm_gemm_rowmajor(cublasHandle_t handle, size_t m, size_t n,
                                size_t k, double alpha, const double *d_a,
                                size_t lda, const double *d_b, size_t ldb,
                                double beta, double *d_c, size_t ldc)
{
    int s[6];
    if (cm_gemm_int_sizes(m, n, k, lda, ldb, ldc, s) != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, s[1], s[0], s[2],
                       &alpha, d_b, s[4], d_a, s[3], &beta, d_c, s[5]);
}
