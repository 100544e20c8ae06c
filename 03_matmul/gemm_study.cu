/* gemm_study.cu - what precision costs and buys, and where the GPU fills
 * up: the second part of chapter 03's lab (the first is matmul.cu).
 *
 * CuPy picks the GEMM from the dtype: cp.dot is cublasGemmEx with
 * CUBLAS_COMPUTE_64F on float64 arrays and CUBLAS_COMPUTE_32F on float32,
 * CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores) with CUPY_TF32=1. Here
 * four choices sit side by side on the same A and B (significand bits
 * counted with the implicit leading 1):
 *   fp64  cublasDgemm                     the tutorial's, 53 bits
 *   fp32  cublasSgemm                     inputs rounded to 24 bits
 *   tf32  cublasGemmEx, FAST_TF32         tensor cores read 11 bits
 *   bf16  cublasGemmEx, bf16 in, fp32 sum 16-bit inputs with 8 bits of
 *                                         significand and fp32's exponent
 * Each is timed (warm-up, CUDA events, median), and every element of its
 * result is checked against the bound in gemm_plan.c (gemm_check.c).
 * Before compute capability 8.0 there are no TF32 tensor cores: cuBLAS
 * runs the tf32 call in fp32, and the rows say so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "check.h"
#include "cpu_gemm.h"
#include "freivalds.h"
#include "gemm_check.h"
#include "gemm_study.h"
#include "random.h"
#include "timing.h"
#include "units.h"

static const int THREADS_PER_BLOCK = 256;
static const int MAX_BLOCKS = 4096;
static const uint64_t SWEEP_SEED_A = 301, SWEEP_SEED_B = 302;
static const uint64_t SWEEP_SEED_CHECK = 303;

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
    int n = (int)g->n;
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

void gemm_low_alloc(gemm_operands *g, unsigned set)
{
    size_t count = g->n * g->n;
    if (set & (GEMM_BIT(GEMM_FP32) | GEMM_BIT(GEMM_TF32))) {
        CUDA_CHECK(cudaMalloc(&g->d_a32, count * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&g->d_b32, count * sizeof(float)));
        to_float<<<blocks_for(count), THREADS_PER_BLOCK>>>(g->d_a, g->d_a32,
                                                           count);
        CUDA_CHECK(cudaGetLastError());
        to_float<<<blocks_for(count), THREADS_PER_BLOCK>>>(g->d_b, g->d_b32,
                                                           count);
        CUDA_CHECK(cudaGetLastError());
    }
    if (set & GEMM_BIT(GEMM_BF16)) {
        CUDA_CHECK(cudaMalloc(&g->d_a16, count * sizeof(__nv_bfloat16)));
        CUDA_CHECK(cudaMalloc(&g->d_b16, count * sizeof(__nv_bfloat16)));
        to_bfloat16<<<blocks_for(count), THREADS_PER_BLOCK>>>(
            g->d_a, (__nv_bfloat16 *)g->d_a16, count);
        CUDA_CHECK(cudaGetLastError());
        to_bfloat16<<<blocks_for(count), THREADS_PER_BLOCK>>>(
            g->d_b, (__nv_bfloat16 *)g->d_b16, count);
        CUDA_CHECK(cudaGetLastError());
    }
    if (set & ~GEMM_BIT(GEMM_FP64))
        CUDA_CHECK(cudaMalloc(&g->d_c32, count * sizeof(float)));
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

static cm_stats time_gemm(const gemm_study *s, const gemm_operands *g,
                          gemm_precision p)
{
    gemm_call call = {s->handle, g, p};
    return cm_time_events(gemm_region, &call, 0, s->warmup, s->repeat);
}

/* 2 n^3: n^2 results, each n multiplies and n adds. */
static double gemm_flops(size_t n) { return 2.0 * (double)n * n * n; }

/* bf16 GEMMs need compute capability 8.0; tf32 runs everywhere, in fp32
 * before 8.0 (gemm_ran_as names it so). */
static int runnable(const gemm_study *s, gemm_precision p)
{
    return (s->set & GEMM_BIT(p)) && (p != GEMM_BF16 || s->major >= 8);
}

static void say_what_runs(const gemm_study *s)
{
    if ((s->set & GEMM_BIT(GEMM_BF16)) && !runnable(s, GEMM_BF16))
        printf("  (bf16 GEMM needs compute capability 8.0+: skipped)\n");
    if ((s->set & GEMM_BIT(GEMM_TF32)) && s->major < 8)
        printf("  (no TF32 tensor cores before compute capability 8.0: "
               "the tf32 call runs\n  as fp32 on sm_%d%d)\n", s->major,
               s->minor);
}

void precision_table(const gemm_study *s, gemm_operands *g,
                     const double *h_c64)
{
    size_t n = g->n, count = n * n;
    printf("\nprecision table: the same A and B (n = %zu), each GEMM "
           "median of %d;\nmax error: the largest |C - C64| / C64 of one "
           "element, C64 the fp64 C\n", n, s->repeat);
    say_what_runs(s);
    gemm_low_alloc(g, s->set);
    float *h_c32 = (float *)cm_host_alloc(count * sizeof(float), "fp32 C");
    gemm_check checks[GEMM_PRECISIONS];
    printf("  %-5s %-31s %9s %8s %10s %9s\n", "prec", "cuBLAS call",
           "GEMM ms", "TFLOP/s", "max error", "tolerance");
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        if (!runnable(s, (gemm_precision)p))
            continue;
        const gemm_precision_info *info = gemm_info((gemm_precision)p);
        cm_stats t = time_gemm(s, g, (gemm_precision)p);
        double tol = gemm_tolerance((gemm_precision)p, n);
        /* The float64 row is the reference itself (checked above); the
         * others come back as fp32 and are compared element by element. */
        if (p != GEMM_FP64) {
            CUDA_CHECK(cudaMemcpy(h_c32, g->d_c32, count * sizeof(float),
                                  cudaMemcpyDeviceToHost));
            checks[p] = gemm_compare(h_c32, CM_FLOAT32, h_c64, count, tol);
        }
        double tflops = cm_tflops(gemm_flops(n), t.median_ms);
        int as_fp32 = p == GEMM_TF32 && s->major < 8;
        printf("  %-5s %-31s %9.4f %8.2f ", info->name,
               as_fp32 ? "cublasGemmEx, FAST_TF32 -> fp32" : info->call,
               t.median_ms, tflops);
        if (p == GEMM_FP64)
            printf("%10s %9s\n", "reference", "-");
        else
            printf("%10.2e %9.1e\n", checks[p].error, tol);
        if (s->csv) {
            int ref = p == GEMM_FP64;
            gemm_result r = {"precision", n, info->name, t.median_ms,
                             t.min_ms, tflops, ref ? -1 : checks[p].error,
                             tol, ref || checks[p].ok, -1, -1, -1, -1, -1};
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
    free(h_c32);
    gemm_low_free(g);
}

/* C of precision p, all of it, from the device into h_c64 (fp64) or
 * h_c32 (the others, which all write their result to d_c32). */
static void fetch_c(const gemm_operands *g, gemm_precision p, double *h_c64,
                    float *h_c32)
{
    size_t count = g->n * g->n;
    if (p == GEMM_FP64)
        CUDA_CHECK(cudaMemcpy(h_c64, g->d_c, count * sizeof(double),
                              cudaMemcpyDeviceToHost));
    else
        CUDA_CHECK(cudaMemcpy(h_c32, g->d_c32, count * sizeof(float),
                              cudaMemcpyDeviceToHost));
}

/* Every element of each C at one size: against cpu_gemm's product where
 * by_cpu, else fp64 C by Freivalds' test and the other precisions against
 * that fp64 C (its bound allows for a reference computed either way). */
typedef struct {
    int by_cpu;
    double *h_ref;             /* cpu_gemm's C (by_cpu) */
    cm_freivalds_ref f;        /* Freivalds' x, A (B x) (not by_cpu) */
    double *h_c64;
    float *h_c32;
} sweep_check;

static gemm_check check_one(const sweep_check *c, gemm_precision p,
                            size_t n)
{
    double tol = gemm_tolerance(p, n);
    if (p == GEMM_FP64)
        return c->by_cpu ? gemm_compare(c->h_c64, CM_FLOAT64, c->h_ref,
                                        n * n, tol)
                         : gemm_freivalds(&c->f, c->h_c64);
    return gemm_compare(c->h_c32, CM_FLOAT32,
                        c->by_cpu ? c->h_ref : c->h_c64, n * n, tol);
}

void size_sweep(const gemm_study *s, int quick)
{
    const size_t *sizes;
    size_t n_sizes = gemm_sweep_sizes(quick, &sizes);
    int all_ok = 1, results = 0, low = s->set != GEMM_BIT(GEMM_FP64);
    char first_bad[400] = "";
    size_t cpu_max = 0;
    for (size_t i = 0; i < n_sizes; i++)
        cpu_max = gemm_check_by_cpu(sizes[i], 1, quick) ? sizes[i] : cpu_max;
    printf("\nsize sweep: GEMM time and TFLOP/s (2 n^3 / median of %d) as "
           "n grows; every\nelement of each C checked: up to n = %zu "
           "against cpu_gemm (vs CPU), above\nit fp64 C by Freivalds' test "
           "(R: the worst row's share of its tolerance)\nand the others "
           "against that fp64 C (vs fp64)\n", s->repeat, cpu_max);
    say_what_runs(s);
    printf("  %6s %-5s %10s %9s %8s %10s %9s  %s\n", "n", "prec", "matrix",
           "GEMM ms", "TFLOP/s", "max error", "tolerance", "checked");
    for (size_t i = 0; i < n_sizes; i++) {
        size_t n = sizes[i], count = n * n, free_b, total_b;
        int overflow;
        size_t need = gemm_device_bytes(n, s->set, &overflow) +
                      CUBLAS_SPARE_BYTES;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (overflow || need > free_b) {
            char a[64], b[64];
            printf("  n = %zu needs %s, only %s free: the sweep stops here\n",
                   n, cm_fmt_bytes_short(need, a, sizeof a),
                   cm_fmt_bytes_short(free_b, b, sizeof b));
            break;
        }
        /* Fresh random A and B for each size, as np.random.rand would. */
        size_t bytes = count * sizeof(double);
        double *h_a = (double *)cm_host_alloc(bytes, "sweep A");
        double *h_b = (double *)cm_host_alloc(bytes, "sweep B");
        cm_fill_uniform_f64(h_a, count, SWEEP_SEED_A + n);
        cm_fill_uniform_f64(h_b, count, SWEEP_SEED_B + n);
        sweep_check c;
        c.by_cpu = gemm_check_by_cpu(n, 1, quick);
        c.h_ref = NULL;
        c.h_c64 = (double *)cm_host_alloc(bytes, "sweep C");
        c.h_c32 = low ? (float *)cm_host_alloc(count * sizeof(float),
                                               "sweep fp32 C") : NULL;
        if (c.by_cpu) {
            c.h_ref = (double *)cm_host_alloc(bytes, "sweep CPU reference");
            if (cpu_gemm(n, n, n, h_a, h_b, c.h_ref,
                         cpu_gemm_max_threads()) < 0) {
                fprintf(stderr, "out of host memory for the CPU "
                        "reference\n");
                exit(1);
            }
        } else {
            cm_freivalds_prepare(&c.f, h_a, h_b, n, SWEEP_SEED_CHECK + n);
        }

        gemm_operands g = {n, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                           NULL};
        CUDA_CHECK(cudaMalloc(&g.d_a, bytes));
        CUDA_CHECK(cudaMalloc(&g.d_b, bytes));
        CUDA_CHECK(cudaMalloc(&g.d_c, bytes));
        CUDA_CHECK(cudaMemcpy(g.d_a, h_a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(g.d_b, h_b, bytes, cudaMemcpyHostToDevice));
        gemm_low_alloc(&g, s->set);
        /* fp64 first: the lower precisions may be checked against it. */
        for (int p = 0; p < GEMM_PRECISIONS; p++) {
            if (!runnable(s, (gemm_precision)p))
                continue;
            const char *name = gemm_info((gemm_precision)p)->name;
            cm_stats t = time_gemm(s, &g, (gemm_precision)p);
            fetch_c(&g, (gemm_precision)p, c.h_c64, c.h_c32);
            gemm_check r = check_one(&c, (gemm_precision)p, n);
            double tflops = cm_tflops(gemm_flops(n), t.median_ms);
            char mat[32];
            printf("  %6zu %-5s %10s %9.4f %8.2f ", n, name,
                   cm_fmt_bytes_short(bytes, mat, sizeof mat), t.median_ms,
                   tflops);
            if (r.freivalds)
                printf("%10s %9s  Freivalds, R %.2g", "-", "-", r.error);
            else
                printf("%10.2e %9.1e  %s", r.error, r.tolerance,
                       c.by_cpu ? "vs CPU" : "vs fp64");
            printf("%s\n", r.ok ? "" : " FAILED");
            results++;
            if (!r.ok && all_ok) {
                char detail[300], ran[64];
                gemm_describe_failure(&r, n, detail, sizeof detail);
                snprintf(first_bad, sizeof first_bad, "n = %zu %s: %s", n,
                         gemm_ran_as((gemm_precision)p, s->major, s->minor,
                                     ran, sizeof ran), detail);
            }
            all_ok = all_ok && r.ok;
            if (s->csv) {
                gemm_result row = {"sweep", n, name, t.median_ms, t.min_ms,
                                   tflops, r.freivalds ? -1 : r.error,
                                   r.freivalds ? -1 : r.tolerance, r.ok,
                                   -1, -1, -1, -1, -1};
                gemm_csv_row(s->csv, &row);
            }
        }
        gemm_low_free(&g);
        CUDA_CHECK(cudaFree(g.d_a));
        CUDA_CHECK(cudaFree(g.d_b));
        CUDA_CHECK(cudaFree(g.d_c));
        if (!c.by_cpu)
            cm_freivalds_release(&c.f);
        free(h_a);
        free(h_b);
        free(c.h_ref);
        free(c.h_c64);
        free(c.h_c32);
    }
    char detail[420];
    if (results == 0)
        snprintf(detail, sizeof detail, "no size fitted in GPU memory");
    else if (all_ok)
        snprintf(detail, sizeof detail, "every element of %d of %d results "
                 "within its tolerance", results, results);
    else
        snprintf(detail, sizeof detail, "%s", first_bad);
    cm_check_true(s->verdict, "sweep", all_ok && results > 0, detail);
}
