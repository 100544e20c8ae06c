/* memory.h - what the four parts of 04_memory share: the run's settings,
 * the planner's probes and small reporting helpers.
 *
 *   memory_run run = {...};
 *   part_blocked(&run, h_single, h_blocked);
 *   check_product(&run, "blocked C", h_blocked);
 */
#ifndef MEMORY_H
#define MEMORY_H

#include <stdio.h>

#include <cublas_v2.h>

#include "freivalds.h"
#include "pack.h"
#include "tiling.h"
#include "verify.h"

typedef struct {
    size_t n;               /* A, B and C are n x n float64, row-major */
    size_t block;           /* block side of the in-device blocked GEMM */
    size_t mem_limit;       /* device budget of the out-of-core GEMM */
    size_t pool_chunk;      /* what a memory pool reserves at a time */
    ooc_kind plan_kind;     /* out-of-core plan asked for, or OOC_ANY */
    int streams;            /* streams of the blocked GEMM */
    int device, warmup, repeat;
    const double *h_a, *h_b;    /* pinned host inputs */
    const double *h_single;     /* the one-call C, once computed, or NULL */
    const cm_freivalds_ref *check;  /* x and A (B x) for h_a, h_b */
    cm_verdict *verdict;
    FILE *csv;                  /* "part,metric,value,unit" rows, or NULL */
    double blocked_over_one;    /* results for the summary, 0 if not run */
    double outofcore_over_floor, outofcore_over_bound;
} memory_run;

/* cudaMallocHost, or exit 1 naming the bytes when the host cannot pin them. */
double *pinned_alloc(size_t bytes, const char *what);

/* A memory pool of our own on the device (probe.cu), and the bytes a
 * fresh one reserves for a 1-byte allocation. */
cudaMemPool_t pool_create(int device);
size_t pool_chunk_bytes(int device);

/* Measures pinned copy rates, the cost of a 2D copy's rows, the rate at
 * which `packers` pack such rows on the host (reading h_a, writing h_c:
 * n x n pinned) and the square DGEMM rate, and prints them;
 * tiled_gemm_tflops is left 0. */
void measure_rates(ooc_rates *rates, cublasHandle_t handle,
                   cudaStream_t stream, size_t n, size_t budget,
                   pack_pool *packers, double *h_a, double *h_c);

/* The DGEMM rate, 1e12 flop/s, of tiled plan p's usual step: all its C
 * buffers at once ((c_buffers x tile_rows) x tile_cols x tile_k, A's
 * leading dimension tile_k, beta = 1), on buffers of its own. */
double probe_tiled_gemm_tflops(cublasHandle_t handle, cudaStream_t stream,
                               const ooc_plan *p);

/* Freivalds' check of h_c against A B, and, when the one-call C exists and
 * is not h_c itself, the relative difference from it. */
void check_product(const memory_run *run, const char *what,
                   const double *h_c);

/* A check of a condition, with printf-style detail of what was seen. */
void check_fact(cm_verdict *v, const char *what, int ok, const char *fmt,
                ...);

/* One CSV row; nothing when csv is NULL. */
void csv_row(FILE *csv, const char *part, const char *metric, double value,
             const char *unit);

void part_accounting(const memory_run *run);
void part_blocked(memory_run *run, double *h_single, double *h_blocked);
void part_pool(const memory_run *run);
void part_outofcore(memory_run *run);

#endif /* MEMORY_H */
