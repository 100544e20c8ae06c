/* alloc.h - allocate, or say in one line what could not be had.
 *
 *   cm_require_host_bytes(4 * bytes, "A, B, C and the reference");
 *   double *h_a = cm_host_alloc(bytes, "matrix A");
 *   cm_require_device_bytes(3 * bytes, "A, B and C");
 *   CUDA_CHECK(cudaMalloc(&d_a, bytes));
 *
 * Each prints the bytes asked for and the bytes there are to stderr and
 * exits 1 when the memory is not there, instead of crashing later: on the
 * host, malloc() promises memory it may not have, and the kernel's OOM
 * killer ends the program without a word when the pages are first touched.
 */
#ifndef CM_ALLOC_H
#define CM_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Requests from this size up are compared with the host memory available
 * first: a few small file reads, far less than touching that many pages. */
#define CM_HOST_CHECK_BYTES ((size_t)16 << 20)

/* malloc that exits 1 with a clear message on failure (or size 0 -> 1),
 * and, from CM_HOST_CHECK_BYTES up, when the host has not that much
 * memory available (cm_require_host_bytes). */
void *cm_host_alloc(size_t bytes, const char *what);

/* Host memory this process can still get without swapping: the kernel's
 * MemAvailable (/proc/meminfo), or less where a cgroup (a container's
 * memory limit) leaves less. *total (may be NULL) receives all the memory
 * there is for us (MemTotal, or the limit). SIZE_MAX (and *total
 * SIZE_MAX) when the system does not say. */
size_t cm_host_available_bytes(size_t *total);

/* Exits 1 with "not enough host memory for WHAT: need X, Y available of
 * Z" if fewer than bytes are available right now. Programs call it with
 * the total of their large buffers before they touch the GPU. */
void cm_require_host_bytes(size_t bytes, const char *what);

/* Exits 1 with "not enough GPU memory for WHAT: need X, Y free of Z" if
 * the current device has fewer than bytes free right now. */
void cm_require_device_bytes(size_t bytes, const char *what);

/* a * b, or exits 1 naming WHAT if the product overflows size_t. */
size_t cm_mul_size(size_t a, size_t b, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* CM_ALLOC_H */
