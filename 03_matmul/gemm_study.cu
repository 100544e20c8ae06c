/* gemm_study.cu - what precision costs and buys: the second part of
 * chapter 03's lab (the first is matmul.cu; gemm_sweep.cu, where the GPU
 * fills up as n grows, uses the calls and the probe of this file).
 *
 * CuPy picks the GEMM from the dtype: cp.dot is cublasGemmEx with
 * CUBLAS_COMPUTE_64F on float64 arrays and CUBLAS_COMPUTE_32F on float32,
 * CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores) with CUPY_TF32=1. Here
 * four choices sit side by side on the same A and B (significand bits
 * counted with the implicit leading 1):
 *   fp64  cublasDgemm                     the tutorial's, 53 bits
 *   fp32  cublasSgemm                     inputs rounded to 24 bits
 *   tf32  cublasGemmEx, FAST_TF32         tensor cores read 11 bits
 *   bf16  cublasGemmEx, bf16 in, fp32 sum 16-bit inputs: fp32's exponent,
 *                                         8 significant bits (7 stored)
 * Each is timed (warm-up, CUDA events, median), every element of its
 * result is checked against the tolerance in gemm_plan.c (gemm_check.c),
 * and the probe of gemm_check.h, run with the same call at the same size,
 * says which precision the call read its inputs in. Before compute
 * capability 8.0 there are no TF32 tensor cores: cuBLAS runs the tf32
 * call in fp32, and the rows say so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "check.h"
#include "gemm_check.h"
#include "gemm_study.h"
#include "timing.h"
#include "units.h"

static const int THREADS_PER_BLOCK = 256;
static const int MAX_BLOCKS = 4096;

/* Rounding float64 to the narrower formats, once, outside the timed GEMM:
 * what the GEMM costs is the question, not the conversion. Both round to
 * nearest. Grid-stride loops, so any size works with a bounded grid. */
__global__ void to_float(const double *in, float *out, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += stride)
        out[i] = (float)in[i];
}

__global__ void to_bfloat16(const double *in, __nv_bfloat16 *out,
                            size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += stride)
        out[i] = __double2bfloat16(in[i]);
}

/* The probe's operands (gemm_check.h): A = x I, B = ones, n x n. */
__global__ void fill_probe(double *d_a, double *d_b, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         i < n * n; i += stride) {
        d_a[i] = i / n == i % n ? GEMM_PROBE_X : 0.0;
        d_b[i] = 1.0;
    }
}

static int blocks_for(size_t count)
{
    size_t blocks = (count + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    return blocks < (size_t)MAX_BLOCKS ? (int)(blocks ? blocks : 1)
                                       : MAX_BLOCKS;
}

/* All four calls use the same trick as matmul.cu: cuBLAS is column-major,
 * so it reads our row-major A as A^T. Asking for C^T = B^T A^T (B passed
 * first) leaves row-major C = A B in memory. Scalars alpha = 1, beta = 0
 * are read from host memory during the call. */
void gemm_enqueue(cublasHandle_t handle, const gemm_operands *g,
                  gemm_precision p)
{
    int n = (int)g->n;   /* no wrap: --n is at most INT_MAX */
    const double one64 = 1.0, zero64 = 0.0;
    const float one = 1.0f, zero = 0.0f;
    switch (p) {
    case GEMM_FP64:
        CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                 &one64, g->d_b, n, g->d_a, n, &zero64,
                                 g->d_c, n));
        break;
    case GEMM_FP32:
        /* The handle is in CUBLAS_DEFAULT_MATH, so this is true fp32: TF32
         * needs CUBLAS_TF32_TENSOR_OP_MATH or the compute type below. */
        CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                 &one, g->d_b32, n, g->d_a32, n, &zero,
                                 g->d_c32, n));
        break;
    case GEMM_TF32:
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                  &one, g->d_b32, CUDA_R_32F, n, g->d_a32,
                                  CUDA_R_32F, n, &zero, g->d_c32, CUDA_R_32F,
                                  n, CUBLAS_COMPUTE_32F_FAST_TF32,
                                  CUBLAS_GEMM_DEFAULT));
        break;
    case GEMM_BF16:
        /* bf16 inputs, products and sums in fp32, an fp32 result. */
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                  &one, g->d_b16, CUDA_R_16BF, n, g->d_a16,
                                  CUDA_R_16BF, n, &zero, g->d_c32,
                                  CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
        break;
    case GEMM_PRECISIONS:
        break;
    }
}

/* d_a and d_b, rounded into the copies the precisions in set read. */
static void low_convert(gemm_operands *g, unsigned set)
{
    size_t count = g->n * g->n;
    if (set & (GEMM_BIT(GEMM_FP32) | GEMM_BIT(GEMM_TF32))) {
        to_float<<<blocks_for(count), THREADS_PER_BLOCK>>>(g->d_a, g->d_a32,
                                                           count);
        CUDA_CHECK(cudaGetLastError());
        to_float<<<blocks_for(count), THREADS_PER_BLOCK>>>(g->d_b, g->d_b32,
                                                           count);
        CUDA_CHECK(cudaGetLastError());
    }
    if (set & GEMM_BIT(GEMM_BF16)) {
        to_bfloat16<<<blocks_for(count), THREADS_PER_BLOCK>>>(
            g->d_a, (__nv_bfloat16 *)g->d_a16, count);
        CUDA_CHECK(cudaGetLastError());
        to_bfloat16<<<blocks_for(count), THREADS_PER_BLOCK>>>(
            g->d_b, (__nv_bfloat16 *)g->d_b16, count);
        CUDA_CHECK(cudaGetLastError());
    }
}

void gemm_low_alloc(gemm_operands *g, unsigned set)
{
    size_t count = g->n * g->n;
    if (set & (GEMM_BIT(GEMM_FP32) | GEMM_BIT(GEMM_TF32))) {
        CUDA_CHECK(cudaMalloc(&g->d_a32, count * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&g->d_b32, count * sizeof(float)));
    }
    if (set & GEMM_BIT(GEMM_BF16)) {
        CUDA_CHECK(cudaMalloc(&g->d_a16, count * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&g->d_b16, count * sizeof(__nv_bfloat16)));
    }
    if (set & ~GEMM_BIT(GEMM_FP64))
        CUDA_CHECK(cudaMalloc(&g->d_c32, count * sizeof(float)));
    low_convert(g, set);
    CUDA_CHECK(cudaDeviceSynchronize());
}

void gemm_low_free(gemm_operands *g)
{
    void *buffers[5] = {g->d_a32, g->d_b32, g->d_c32, g->d_a16, g->d_b16};
    for (int i = 0; i < 5; i++)
        CUDA_CHECK(cudaFree(buffers[i]));   /* cudaFree(NULL) is a no-op */
    g->d_a32 = g->d_b32 = g->d_c32 = NULL;
    g->d_a16 = g->d_b16 = NULL;
}

typedef struct {
    cublasHandle_t handle;
    const gemm_operands *g;
    gemm_precision p;
} gemm_call;

static void gemm_region(void *ctx)
{
    const gemm_call *c = (const gemm_call *)ctx;
    gemm_enqueue(c->handle, c->g, c->p);
}

cm_stats time_gemm(const gemm_study *s, const gemm_operands *g,
                   gemm_precision p)
{
    gemm_call call = {.handle = s->handle, .g = g, .p = p};
    return cm_time_events(gemm_region, &call, 0, s->warmup, s->repeat);
}

double gemm_flops(size_t n) { return 2.0 * (double)n * n * n; }

int runnable(const gemm_study *s, gemm_precision p)
{
    return (s->set & GEMM_BIT(p)) && (p != GEMM_BF16 || s->major >= 8);
}

void say_what_runs(const gemm_study *s)
{
    if ((s->set & GEMM_BIT(GEMM_BF16)) && !runnable(s, GEMM_BF16))
        printf("  (bf16 GEMM needs compute capability 8.0+: skipped)\n");
    if ((s->set & GEMM_BIT(GEMM_TF32)) && s->major < 8)
        printf("  (no TF32 tensor cores before compute capability 8.0: "
               "the tf32 call runs\n  as fp32 on sm_%d%d)\n", s->major,
               s->minor);
}

void run_probes(const gemm_study *s, gemm_operands *g, gemm_probe *probes)
{
    size_t count = g->n * g->n;
    fill_probe<<<blocks_for(count), THREADS_PER_BLOCK>>>(g->d_a, g->d_b,
                                                         g->n);
    CUDA_CHECK(cudaGetLastError());
    low_convert(g, s->set);
    double *h_piece = (double *)cm_host_alloc(
        GEMM_PROBE_PIECE * sizeof(double), "the probe's C");
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        if (!runnable(s, (gemm_precision)p))
            continue;
        /* Same stream as the kernels above; cudaMemcpy waits for it. */
        gemm_enqueue(s->handle, g, (gemm_precision)p);
        int wide = p == GEMM_FP64;            /* the others return fp32 */
        size_t size = wide ? sizeof(double) : sizeof(float);
        const char *d_c = wide ? (const char *)g->d_c
                               : (const char *)g->d_c32;
        probes[p] = gemm_probe_start((gemm_precision)p);
        for (size_t first = 0; first < count; first += GEMM_PROBE_PIECE) {
            size_t left = count - first;
            size_t m = left < GEMM_PROBE_PIECE ? left : GEMM_PROBE_PIECE;
            CUDA_CHECK(cudaMemcpy(h_piece, d_c + first * size, m * size,
                                  cudaMemcpyDeviceToHost));
            gemm_probe_scan(&probes[p], h_piece,
                            wide ? CM_FLOAT64 : CM_FLOAT32, m, first);
        }
    }
    free(h_piece);
}

/* One check line for the probes: what each call read x as, or the first
 * call that read it as a lower precision. */
static void report_probes(const gemm_study *s, const gemm_probe *probes,
                          size_t n, const char *what)
{
    char detail[400] = "", ran[64];
    int ok = 1;
    for (int p = 0; p < GEMM_PRECISIONS && ok; p++) {
        if (!runnable(s, (gemm_precision)p))
            continue;
        gemm_ran_as((gemm_precision)p, s->major, s->minor, ran, sizeof ran);
        ok = probes[p].ok;
        if (!ok) {
            size_t len = (size_t)snprintf(detail, sizeof detail,
                                          "the %s call: ", ran);
            gemm_probe_describe(&probes[p], n, detail + len,
                                sizeof detail - len);
        } else {
            size_t len = strlen(detail);
            snprintf(detail + len, sizeof detail - len, "%s%s reads x as %s",
                     len ? ", " : "", ran,
                     gemm_probe_name(probes[p].read_as));
        }
    }
    cm_check_true(s->verdict, what, ok, detail);
}

void precision_table(const gemm_study *s, gemm_operands *g,
                     const double *h_c64)
{
    size_t n = g->n, count = n * n;
    printf("\nprecision table: the same A and B (n = %zu), each GEMM "
           "median of %d;\nmax error: the largest |C - C64| / C64 of one "
           "element, C64 the fp64 C;\nreads as: what the probe, A = x I "
           "times B = ones, says the call read x as\n", n, s->repeat);
    say_what_runs(s);
    gemm_low_alloc(g, s->set);
    float *h_c32 = (float *)cm_host_alloc(count * sizeof(float), "fp32 C");
    gemm_check checks[GEMM_PRECISIONS];
    cm_stats times[GEMM_PRECISIONS];
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        if (!runnable(s, (gemm_precision)p))
            continue;
        times[p] = time_gemm(s, g, (gemm_precision)p);
        /* The float64 row is the reference itself (checked above); the
         * others come back as fp32 and are compared element by element. */
        if (p != GEMM_FP64) {
            CUDA_CHECK(cudaMemcpy(h_c32, g->d_c32, count * sizeof(float),
                                  cudaMemcpyDeviceToHost));
            checks[p] = gemm_compare(h_c32, CM_FLOAT32, h_c64, count,
                                     gemm_tolerance((gemm_precision)p, n));
        }
    }
    gemm_probe probes[GEMM_PRECISIONS];
    run_probes(s, g, probes);

    printf("  %-5s %-31s %9s %8s %10s %9s  %s\n", "prec", "cuBLAS call",
           "GEMM ms", "TFLOP/s", "max error", "tolerance", "reads as");
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        if (!runnable(s, (gemm_precision)p))
            continue;
        const gemm_precision_info *info = gemm_info((gemm_precision)p);
        double tol = gemm_tolerance((gemm_precision)p, n);
        double tflops = cm_tflops(gemm_flops(n), times[p].median_ms);
        int ref = p == GEMM_FP64, as_fp32 = p == GEMM_TF32 && s->major < 8;
        printf("  %-5s %-31s %9.4f %8.2f ", info->name,
               as_fp32 ? "cublasGemmEx, FAST_TF32 -> fp32" : info->call,
               times[p].median_ms, tflops);
        if (ref)
            printf("%10s %9s", "reference", "-");
        else
            printf("%10.2e %9.1e", checks[p].error, tol);
        printf("  %s\n", gemm_probe_name(probes[p].read_as));
        if (s->csv) {
            gemm_result r = {.part = "precision", .n = n,
                             .precision = info->name,
                             .gemm_ms = times[p].median_ms,
                             .gemm_min_ms = times[p].min_ms,
                             .tflops = tflops,
                             .rel_error = ref ? -1 : checks[p].error,
                             .tolerance = tol,
                             .ok = (ref || checks[p].ok) && probes[p].ok,
                             .h2d_ms = -1, .d2h_ms = -1,
                             .end_to_end_ms = -1, .first_gemm_ms = -1,
                             .cpu_ms = -1, .c = NULL};
            gemm_csv_row(s->csv, &r);
        }
    }
    for (int p = GEMM_FP32; p < GEMM_PRECISIONS; p++) {
        if (!runnable(s, (gemm_precision)p))
            continue;
        char name[64], what[96];
        snprintf(what, sizeof what, "%s C vs fp64 C",
                 gemm_ran_as((gemm_precision)p, s->major, s->minor, name,
                             sizeof name));
        gemm_report(s->verdict, what, &checks[p], n);
    }
    report_probes(s, probes, n, "probe, x = " GEMM_PROBE_TEXT);
    free(h_c32);
    gemm_low_free(g);
}
