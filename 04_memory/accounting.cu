/* accounting.cu - part 1 of 04_memory: what an array really takes.
 *
 *     x = cp.random.rand(10000, 10000); x.nbytes / 1024**2
 *
 * x.nbytes in bytes, MB and MiB; what cudaMalloc takes from the GPU, seen
 * by cudaMemGetInfo in whole pages; and the same x from a memory pool of
 * our own, whose counters say what it holds (to the byte) and reserves
 * (in whole chunks), and what a trim gives back.
 */
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "check.h"
#include "memory.h"
#include "tiling.h"
#include "units.h"

static const size_t PAGE_BYTES = (size_t)2 << 20;  /* GPU page: 2 MiB */

/* A pool's own counters: bytes held by live allocations, bytes taken
 * from the GPU. */
static void pool_counts(cudaMemPool_t pool, uint64_t *used,
                        uint64_t *reserved)
{
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent,
                                       used));
    CUDA_CHECK(cudaMemPoolGetAttribute(
        pool, cudaMemPoolAttrReservedMemCurrent, reserved));
}

/* How far GPU free memory fell between two cudaMemGetInfo readings. */
static long long report_drop(const char *what, size_t before, size_t after,
                             size_t asked)
{
    long long drop = (long long)before - (long long)after;
    printf("  %-26s asked %11zu bytes, GPU free fell by %11lld bytes "
           "(%.2f pages of 2 MiB)\n", what, asked, drop,
           (double)drop / (double)PAGE_BYTES);
    return drop;
}

void part_accounting(const memory_run *run)
{
    size_t n = run->n;
    size_t nbytes = cm_mul_size(cm_mul_size(n, n, "x"), sizeof(double), "x");
    char text[96], text2[96];
    printf("\n== 1. accounting: x = cp.random.rand(%zu, %zu); x.nbytes ==\n",
           n, n);
    printf("x.nbytes = %zu x %zu x 8 bytes = %s\n", n, n,
           cm_fmt_bytes(nbytes, text, sizeof text));
    /* The tutorial divides by 1024**2 and prints "MB": that is MiB. */
    printf("the tutorial's x.nbytes / 1024**2 = %.2f, labelled \"MB\", is "
           "MiB (2^20 bytes); in MB (10^6 bytes) x is %.2f MB\n",
           (double)nbytes / 1048576.0, (double)nbytes / 1e6);
    csv_row(run->csv, "accounting", "nbytes", (double)nbytes, "bytes");

    /* cudaMalloc maps physical memory at once (the GPU does not overcommit
     * as host malloc does), so cudaMemGetInfo sees every allocation
     * immediately, in whole pages. We skip filling x: it changes nothing. */
    cm_require_device_bytes(nbytes, "x");
    size_t free0, free1, free2, free3, free4, total;
    void *d_one, *d_two, *d_x;
    CUDA_CHECK(cudaMemGetInfo(&free0, &total));
    printf("GPU memory: %s in all; %s free before we allocate anything (the "
           "rest is the CUDA context and any other process)\n",
           cm_fmt_bytes(total, text, sizeof text),
           cm_fmt_bytes(free0, text2, sizeof text2));
    printf("GPU free falls (cudaMemGetInfo sees the whole GPU, other "
           "processes too: information, not checks):\n");
    CUDA_CHECK(cudaMalloc(&d_one, 1));
    CUDA_CHECK(cudaMemGetInfo(&free1, &total));
    CUDA_CHECK(cudaMalloc(&d_two, 1));
    CUDA_CHECK(cudaMemGetInfo(&free2, &total));
    CUDA_CHECK(cudaMalloc(&d_x, nbytes));
    CUDA_CHECK(cudaMemGetInfo(&free3, &total));
    report_drop("cudaMalloc(1 byte):", free0, free1, 1);
    report_drop("cudaMalloc(1 byte) again:", free1, free2, 1);
    long long drop = report_drop("cudaMalloc(x.nbytes):", free2, free3,
                                 nbytes);
    printf("  small allocations share pages; a large one is rounded up to "
           "whole pages: %lld bytes beyond x.nbytes\n",
           drop - (long long)nbytes);
    csv_row(run->csv, "accounting", "cudaMalloc_x_free_drop", (double)drop,
            "bytes");

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_one));
    CUDA_CHECK(cudaFree(d_two));
    CUDA_CHECK(cudaMemGetInfo(&free4, &total));
    long long back = (long long)free4 - (long long)free0;
    printf("  after cudaFree of all three, GPU free is %+lld bytes from the "
           "start: cudaFree returns memory at once, no pool in between\n",
           back);

    /* What we check: the same x from a memory pool of our own, whose
     * counters only this process moves. Its first byte reserves a whole
     * chunk; x is held to the byte (used) and taken from the GPU in whole
     * chunks (reserved); a trim gives every chunk back. */
    size_t chunk = run->pool_chunk > 1 ? run->pool_chunk
                                       : pool_chunk_bytes(run->device);
    cudaMemPool_t pool = pool_create(run->device);
    cudaStream_t stream;
    uint64_t used = 0, reserved = 0;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocFromPoolAsync(&d_x, nbytes, pool, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    pool_counts(pool, &used, &reserved);
    printf("the same x from a pool of our own (cudaMemPoolCreate; only this "
           "process moves its counters), in chunks of %s:\n",
           cm_fmt_bytes_short(chunk, text, sizeof text));
    printf("  cudaMallocFromPoolAsync(x.nbytes): pool used %llu, reserved "
           "%llu bytes (%.2f chunks)\n", (unsigned long long)used,
           (unsigned long long)reserved, (double)reserved / (double)chunk);
    uint64_t whole = (uint64_t)tile_count(nbytes, chunk) * chunk;
    check_fact(run->verdict, "x holds x.nbytes, reserved in whole chunks",
               used == nbytes && reserved == whole,
               "used %llu of %zu, reserved %llu of %llu",
               (unsigned long long)used, nbytes,
               (unsigned long long)reserved, (unsigned long long)whole);
    CUDA_CHECK(cudaFreeAsync(d_x, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    pool_counts(pool, &used, &reserved);
    check_fact(run->verdict, "free and trim gave all of it back",
               used == 0 && reserved == 0, "pool used %llu, reserved %llu",
               (unsigned long long)used, (unsigned long long)reserved);
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaMemPoolDestroy(pool));
}
