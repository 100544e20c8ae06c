/* array.h - NumPy-like arrays: dtype, shape, nbytes, on the host or a GPU,
 * printed exactly as NumPy's str() prints them.
 *
 *   size_t shape[1] = {4};
 *   cm_array h = cm_array_new(CM_INT32, 1, shape, CM_ON_HOST);
 *   for (int i = 0; i < 4; i++) ((int32_t *)h.data)[i] = i + 1;
 *   cm_array x = cm_array_new(CM_INT32, 1, shape, CM_ON_DEVICE);
 *   cm_array_copy(&x, &h);               // host to device
 *   cm_array_print(stdout, &x);          // [1 2 3 4]  (copies back first)
 *   cm_array_free(&x); cm_array_free(&h);
 *
 * Allocation failures print one line naming the bytes asked and exit 1.
 */
#ifndef CM_ARRAY_H
#define CM_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CM_UINT8, CM_INT32, CM_INT64, CM_FLOAT32, CM_FLOAT64 } cm_dtype;

enum { CM_ON_HOST = -1, CM_ON_DEVICE = -2 };  /* for cm_array_new */

typedef struct {
    void *data;        /* host pointer, or device pointer when device >= 0 */
    cm_dtype dtype;
    int ndim;          /* 1 or 2 */
    size_t shape[2];
    size_t size;       /* number of elements */
    size_t nbytes;     /* size * itemsize */
    int device;        /* CUDA device ordinal, or CM_ON_HOST */
} cm_array;

size_t cm_dtype_size(cm_dtype dtype);
const char *cm_dtype_name(cm_dtype dtype);   /* "uint8", "float64", ... */

/* Element i of a host buffer of the given dtype, as a double (exact for
 * every dtype except int64 beyond 2^53). */
double cm_value_at(const void *h_data, cm_dtype dtype, size_t i);

/* Elements in shape[0..ndim), or 0 with *overflow = 1 if the count or its
 * byte size does not fit in size_t. */
size_t cm_shape_size(cm_dtype dtype, int ndim, const size_t *shape,
                     int *overflow);

/* NumPy's str() of a host buffer (threshold 1000, 3 edge items, line width
 * 75, precision 8): "[1 2 3 4]", "[[0.1 0.2]\n [0.3 0.4]]", with "..." for
 * arrays of more than 1000 elements. Returns a malloc'd string. */
char *cm_format(const void *h_data, cm_dtype dtype, int ndim,
                const size_t *shape);

/* Allocates an array on the host (where = CM_ON_HOST) or on the current
 * CUDA device (CM_ON_DEVICE). The contents are uninitialised. */
cm_array cm_array_new(cm_dtype dtype, int ndim, const size_t *shape,
                      int where);
void cm_array_free(cm_array *a);

/* Copies src into dst (same dtype and shape; host or device either side). */
void cm_array_copy(cm_array *dst, const cm_array *src);

/* Prints like NumPy's print(); a device array is first copied to the host,
 * because the CPU cannot read device memory directly. */
void cm_array_print(FILE *out, const cm_array *a);

#ifdef __cplusplus
}
#endif

#endif /* CM_ARRAY_H */
