/* lib_support_cuda.c - the CUDA half of lib_support.h: device and pinned
 * allocations through the test hook, a failed call as one line of text,
 * and the loader's device entered and left. */
#include "lib_support.h"

#include <stdio.h>
#include <string.h>

cudaError_t ib_cuda_malloc(void **p, size_t bytes)
{
    *p = NULL;
    return ib_alloc_refused() ? cudaErrorMemoryAllocation
                              : cudaMalloc(p, bytes ? bytes : 1);
}

cudaError_t ib_cuda_malloc_host(void **p, size_t bytes)
{
    *p = NULL;
    return ib_alloc_refused() ? cudaErrorMemoryAllocation
                              : cudaMallocHost(p, bytes ? bytes : 1);
}

int ib_cuda_failed(cudaError_t err, const char *call, char *why,
                   size_t why_len)
{
    if (err == cudaSuccess)
        return 0;
    /* A refused call leaves its error as the thread's last one: cleared,
     * so that the caller's next cudaGetLastError is about its own work. */
    (void)cudaGetLastError();
    int name = (int)strcspn(call, "(");
    snprintf(why, why_len, "%.*s failed: %s: %s", name, call,
             cudaGetErrorName(err), cudaGetErrorString(err));
    return -1;
}

int ib_current_device(void)
{
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        device = -1;
    }
    return device;
}

cudaError_t ib_enter_device(int device, int *caller)
{
    *caller = ib_current_device();
    return *caller == device ? cudaSuccess : cudaSetDevice(device);
}

void ib_leave_device(int device, int caller)
{
    if (caller >= 0 && caller != device && cudaSetDevice(caller) !=
                                               cudaSuccess)
        (void)cudaGetLastError();
}
