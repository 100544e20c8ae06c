/* alloc.h - allocate, or say in one line what could not be had.
 *
 *   double *h_a = cm_host_alloc(bytes, "matrix A");
 *   cm_require_device_bytes(3 * bytes, "A, B and C");
 *   CUDA_CHECK(cudaMalloc(&d_a, bytes));
 *
 * Both print the bytes asked for (and, on the GPU, the bytes free) to stderr
 * and exit 1 when the memory is not there, instead of crashing later.
 */
#ifndef CM_ALLOC_H
#define CM_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* malloc that exits 1 with a clear message on failure (or size 0 -> 1). */
void *cm_host_alloc(size_t bytes, const char *what);

/* Exits 1 with "not enough GPU memory for WHAT: need X, Y free of Z" if
 * the current device has fewer than bytes free right now. */
void cm_require_device_bytes(size_t bytes, const char *what);

/* a * b, or exits 1 naming WHAT if the product overflows size_t. */
size_t cm_mul_size(size_t a, size_t b, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* CM_ALLOC_H */
