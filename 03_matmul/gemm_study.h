/* gemm_study.h - the second part of chapter 03's lab: the tutorial's GEMM in
 * four precisions (gemm_study.cu), and its speed as n grows (gemm_sweep.cu).
 *
 *   gemm_study s = {.handle = handle, .set = set, .warmup = 2,
 *                   .repeat = 10, .major = 9, .minor = 0, .csv = NULL,
 *                   .verdict = &verdict};
 *   precision_table(&s, &ops, h_c);     ops holds A, B, C in float64
 *   size_sweep(&s, quick);
 */
#ifndef GEMM_STUDY_H
#define GEMM_STUDY_H

#include <stdio.h>
#include <cublas_v2.h>

#include "gemm_check.h"
#include "gemm_plan.h"
#include "timing.h"
#include "verify.h"

/* cuBLAS's workspace and the context's own allocations come on top of our
 * matrices; we keep this much spare when deciding whether a size fits. */
#define CUBLAS_SPARE_BYTES ((size_t)256 << 20)

/* The precision probe reads its C back this many elements at a time, into
 * a host buffer of doubles (8 MiB). */
#define GEMM_PROBE_PIECE ((size_t)1 << 20)

/* Device operands of one n x n GEMM, row-major: float64 (allocated by the
 * caller), then the lower-precision copies gemm_low_alloc makes. */
typedef struct {
    size_t n;
    double *d_a, *d_b, *d_c;
    float *d_a32, *d_b32, *d_c32;   /* fp32 / tf32 inputs, result of all */
    void *d_a16, *d_b16;            /* __nv_bfloat16 inputs */
} gemm_operands;

typedef struct {
    cublasHandle_t handle;
    unsigned set;           /* GEMM_BIT()s to run */
    int warmup, repeat;
    int major, minor;       /* the GPU's compute capability */
    FILE *csv;              /* NULL: no CSV */
    cm_verdict *verdict;
} gemm_study;

/* C = A B in precision p on g's buffers, enqueued on the handle's stream. */
void gemm_enqueue(cublasHandle_t handle, const gemm_operands *g,
                  gemm_precision p);

/* Allocates the copies the precisions in set need and converts d_a, d_b
 * into them; gemm_low_free releases them. */
void gemm_low_alloc(gemm_operands *g, unsigned set);
void gemm_low_free(gemm_operands *g);

/* What the precision table and the size sweep (gemm_sweep.cu) share. */

/* Precision p's GEMM on g, timed: s->warmup untimed runs, then s->repeat
 * timed with CUDA events. */
cm_stats time_gemm(const gemm_study *s, const gemm_operands *g,
                   gemm_precision p);

/* 2 n^3: n^2 results, each n multiplies and n adds. */
double gemm_flops(size_t n);

/* bf16 GEMMs need compute capability 8.0; tf32 runs everywhere, in fp32
 * before 8.0 (gemm_ran_as names it so). */
int runnable(const gemm_study *s, gemm_precision p);

/* A line for each precision asked for that does not run as asked: bf16
 * before compute capability 8.0 (skipped), tf32 there (run as fp32). */
void say_what_runs(const gemm_study *s);

/* The probe (gemm_check.h) for every precision of the study, at g's size
 * and with the calls that were timed: A and B become x I and ones, are
 * rounded as the timed inputs were, each call runs once, and its C comes
 * back in pieces to be read. It overwrites g's buffers. */
void run_probes(const gemm_study *s, gemm_operands *g, gemm_probe *probes);

/* Times every precision of the study at g->n, checks every element of
 * each result against h_c64, the (already verified) float64 result, then
 * runs the precision probe (gemm_check.h) on g's buffers: A, B and C are
 * overwritten. */
void precision_table(const gemm_study *s, gemm_operands *g,
                     const double *h_c64);

/* TFLOP/s of each precision as n grows, each result checked (every
 * element, or Freivalds' test of fp64 above GEMM_SWEEP_CPU_CHECK_MAX_N)
 * and probed; stops at the first n that does not fit. */
void size_sweep(const gemm_study *s, int quick);

#endif /* GEMM_STUDY_H */
