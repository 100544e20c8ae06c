/* lib_support.h - what the loader's files share so that the library
 * never ends its host process: allocations that a test can make fail,
 * and a failed CUDA call as one line of text for the caller.
 *
 *   uint8_t *p = (uint8_t *)ib_malloc(bytes);      NULL: out of memory
 *   if (IB_CUDA(ib_cuda_malloc(&d, bytes), why, sizeof why))
 *       goto fail;                     why: "cudaMalloc(...) failed: ..."
 *
 *   imgbatch_test_fail_after(3);   the 4th allocation from now fails
 *
 * Every host and device allocation of the library goes through these
 * (and what nvJPEG allocates through the allocators it is handed; its
 * hardware decoder allocates on its own), so that a test can walk the
 * failure of each one in turn.
 */
#ifndef LIB_SUPPORT_H
#define LIB_SUPPORT_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The test hook: allocation number n from now on (0: the next one)
 * fails, once; n < 0: none does. */
void imgbatch_test_fail_after(long n);
/* The allocations made or refused since the last imgbatch_test_fail_after,
 * and whether its failure has happened yet. */
long imgbatch_test_allocations(void);
int imgbatch_test_failed(void);

/* 1 if this allocation is the one to fail (each call counts one). */
int ib_alloc_refused(void);

void *ib_malloc(size_t bytes);
void *ib_calloc(size_t n, size_t size);
void *ib_realloc(void *p, size_t bytes);
char *ib_strdup(const char *s);
cudaError_t ib_cuda_malloc(void **p, size_t bytes);
cudaError_t ib_cuda_malloc_host(void **p, size_t bytes);

/* 0 if err is cudaSuccess; else -1 with "CALL failed: NAME: text" in why
 * (CALL cut at its first parenthesis). */
int ib_cuda_failed(cudaError_t err, const char *call, char *why,
                   size_t why_len);
#define IB_CUDA(call, why, why_len)                                       \
    ib_cuda_failed((call), #call, (why), (why_len))

/* The calling thread's current device, or -1 where none can be read. */
int ib_current_device(void);
/* Runs on the CUDA device `device` and gives the calling thread's back:
 * *caller gets the thread's device (ib_current_device). */
cudaError_t ib_enter_device(int device, int *caller);
void ib_leave_device(int device, int caller);

#ifdef __cplusplus
}
#endif

#endif /* LIB_SUPPORT_H */
