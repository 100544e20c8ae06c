/* gemm.h - C = alpha A B + beta C for row-major float64 matrices, with
 * cuBLAS (column-major, int sizes) doing the work.
 *
 *   CUBLAS_CHECK(cm_gemm_rowmajor(handle, m, n, k, 1.0, d_a, lda,
 *                                 d_b, ldb, 0.0, d_c, ldc));
 *   A is m x k, B k x n, C m x n; lda, ldb, ldc: row lengths in elements.
 *
 * The lessons of 03 and 04 write the same helper with int arguments; this
 * one takes size_t, as every size in the labs is, and refuses what cuBLAS
 * cannot take instead of letting a cast wrap it.
 */
#ifndef CM_GEMM_H
#define CM_GEMM_H

#include <stddef.h>
#include <cublas_v2.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The six sizes as cuBLAS's ints, in the order m, n, k, lda, ldb, ldc.
 * Returns 0, or -1 (out untouched) when one is above INT_MAX. */
int cm_gemm_int_sizes(size_t m, size_t n, size_t k, size_t lda, size_t ldb,
                      size_t ldc, int out[6]);

/* cuBLAS reads a row-major matrix column by column, that is as its
 * transpose, so we ask it for C^T = B^T A^T (n x m), which it writes
 * column by column: our row-major C. B first, n before m. Returns
 * cuBLAS's status, or CUBLAS_STATUS_INVALID_VALUE, before any call, when
 * a size or leading dimension is above INT_MAX. */
cublasStatus_t cm_gemm_rowmajor(cublasHandle_t handle, size_t m, size_t n,
                                size_t k, double alpha, const double *d_a,
                                size_t lda, const double *d_b, size_t ldb,
                                double beta, double *d_c, size_t ldc);

#ifdef __cplusplus
}
#endif

#endif /* CM_GEMM_H */
