/* check.h - always-on checks for CUDA runtime, cuBLAS and cuRAND calls.
 *
 *   CUDA_CHECK(cudaMalloc(&d_x, bytes));
 *   scale<<<blocks, threads>>>(d_x, n);  CUDA_CHECK(cudaGetLastError());
 *   CUBLAS_CHECK(cublasDgemm(handle, ...));
 *   CURAND_CHECK(curandGenerateUniform(gen, d_x, n));
 *
 * On failure each prints file:line, the call's text and the error's name
 * and message (cuRAND has no message: its status's name and number) to
 * stderr, then exits with status 1. They are never compiled out: a
 * release build checks exactly what a debug build checks.
 * It needs only the C library and the CUDA Toolkit's headers, so it can be
 * pasted as is; a program links -lcublas or -lcurand only if it uses them.
 */
#ifndef CM_CHECK_H
#define CM_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <curand.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t cm_err_ = (call);                                         \
        if (cm_err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, \
                    #call, cudaGetErrorName(cm_err_),                         \
                    cudaGetErrorString(cm_err_));                             \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* cuBLAS >= 11.4 names its own status codes. */
#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t cm_st_ = (call);                                       \
        if (cm_st_ != CUBLAS_STATUS_SUCCESS) {                                \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, \
                    #call, cublasGetStatusName(cm_st_),                       \
                    cublasGetStatusString(cm_st_));                           \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* cuRAND has no function that names its status codes, so we do it here. */
static inline const char *cm_curand_status_name(curandStatus_t status)
{
    switch (status) {
    case CURAND_STATUS_SUCCESS: return "CURAND_STATUS_SUCCESS";
    case CURAND_STATUS_VERSION_MISMATCH:
        return "CURAND_STATUS_VERSION_MISMATCH";
    case CURAND_STATUS_NOT_INITIALIZED: return "CURAND_STATUS_NOT_INITIALIZED";
    case CURAND_STATUS_ALLOCATION_FAILED:
        return "CURAND_STATUS_ALLOCATION_FAILED";
    case CURAND_STATUS_TYPE_ERROR: return "CURAND_STATUS_TYPE_ERROR";
    case CURAND_STATUS_OUT_OF_RANGE: return "CURAND_STATUS_OUT_OF_RANGE";
    case CURAND_STATUS_LENGTH_NOT_MULTIPLE:
        return "CURAND_STATUS_LENGTH_NOT_MULTIPLE";
    case CURAND_STATUS_DOUBLE_PRECISION_REQUIRED:
        return "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED";
    case CURAND_STATUS_LAUNCH_FAILURE: return "CURAND_STATUS_LAUNCH_FAILURE";
    case CURAND_STATUS_PREEXISTING_FAILURE:
        return "CURAND_STATUS_PREEXISTING_FAILURE";
    case CURAND_STATUS_INITIALIZATION_FAILED:
        return "CURAND_STATUS_INITIALIZATION_FAILED";
    case CURAND_STATUS_ARCH_MISMATCH: return "CURAND_STATUS_ARCH_MISMATCH";
    case CURAND_STATUS_INTERNAL_ERROR: return "CURAND_STATUS_INTERNAL_ERROR";
    }
    return "unknown cuRAND status";
}

#define CURAND_CHECK(call)                                                    \
    do {                                                                      \
        curandStatus_t cm_st_ = (call);                                       \
        if (cm_st_ != CURAND_STATUS_SUCCESS) {                                \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__,\
                    #call, cm_curand_status_name(cm_st_), (int)cm_st_);       \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#endif /* CM_CHECK_H */
