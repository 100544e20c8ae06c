/* array.c - allocating, copying and printing cm_arrays on host or device. */
#include "array.h"
#include "check.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

cm_array cm_array_new(cm_dtype dtype, int ndim, const size_t *shape,
                      int where)
{
    cm_array a;
    memset(&a, 0, sizeof a);
    int overflow;
    a.size = cm_shape_size(dtype, ndim, shape, &overflow);
    if (overflow || ndim < 1 || ndim > 2) {
        fprintf(stderr, "array shape too large or not 1-D/2-D\n");
        exit(1);
    }
    a.dtype = dtype;
    a.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        a.shape[d] = shape[d];
    a.nbytes = a.size * cm_dtype_size(dtype);
    if (where == CM_ON_HOST) {
        a.device = CM_ON_HOST;
        a.data = cm_host_alloc(a.nbytes, "array");
    } else {
        CUDA_CHECK(cudaGetDevice(&a.device));
        cm_require_device_bytes(a.nbytes, "array");
        CUDA_CHECK(cudaMalloc(&a.data, a.nbytes ? a.nbytes : 1));
    }
    return a;
}

void cm_array_free(cm_array *a)
{
    if (a->device == CM_ON_HOST)
        free(a->data);
    else if (a->data)
        CUDA_CHECK(cudaFree(a->data));
    a->data = NULL;
}

void cm_array_copy(cm_array *dst, const cm_array *src)
{
    if (dst->nbytes != src->nbytes || dst->dtype != src->dtype) {
        fprintf(stderr, "cm_array_copy: arrays differ in dtype or size\n");
        exit(1);
    }
    /* cudaMemcpyDefault lets the driver tell host from device pointers
     * (unified addressing), so one call covers all four directions. */
    CUDA_CHECK(cudaMemcpy(dst->data, src->data, src->nbytes,
                          cudaMemcpyDefault));
}

void cm_array_print(FILE *out, const cm_array *a)
{
    const void *h_data = a->data;
    void *h_copy = NULL;
    if (a->device != CM_ON_HOST) {
        h_copy = cm_host_alloc(a->nbytes, "printed array");
        CUDA_CHECK(cudaMemcpy(h_copy, a->data, a->nbytes,
                              cudaMemcpyDeviceToHost));
        h_data = h_copy;
    }
    char *text = cm_format(h_data, a->dtype, a->ndim, a->shape);
    fprintf(out, "%s\n", text);
    free(text);
    free(h_copy);
}
