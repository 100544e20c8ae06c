/* lib_support.c - the library's host allocations and its test hook
 * (lib_support.h); the CUDA half is lib_support_cuda.c, so that code of
 * the library that allocates only on the host (the file list) links
 * without the CUDA runtime. */
#include "lib_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The countdown to the allocation that fails (-1: none), the allocations
 * counted since it was set, and whether it fired. Atomic: the reader
 * threads and nvJPEG allocate too. */
static long countdown = -1, counted;
static int fired;

void imgbatch_test_fail_after(long n)
{
    __atomic_store_n(&counted, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fired, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&countdown, n < 0 ? -1 : n, __ATOMIC_SEQ_CST);
}

long imgbatch_test_allocations(void)
{
    return __atomic_load_n(&counted, __ATOMIC_SEQ_CST);
}

int imgbatch_test_failed(void)
{
    return __atomic_load_n(&fired, __ATOMIC_SEQ_CST);
}

int ib_alloc_refused(void)
{
    __atomic_fetch_add(&counted, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&countdown, __ATOMIC_SEQ_CST) < 0)
        return 0;
    /* Only the call that takes the countdown from 0 to -1 fails. */
    if (__atomic_sub_fetch(&countdown, 1, __ATOMIC_SEQ_CST) != -1)
        return 0;
    __atomic_store_n(&fired, 1, __ATOMIC_SEQ_CST);
    return 1;
}

void *ib_malloc(size_t bytes)
{
    return ib_alloc_refused() ? NULL : malloc(bytes ? bytes : 1);
}

void *ib_calloc(size_t n, size_t size)
{
    return ib_alloc_refused() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *ib_realloc(void *p, size_t bytes)
{
    return ib_alloc_refused() ? NULL : realloc(p, bytes ? bytes : 1);
}

char *ib_strdup(const char *s)
{
    return ib_alloc_refused() ? NULL : strdup(s);
}
