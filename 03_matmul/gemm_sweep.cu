/* gemm_sweep.cu - the size sweep of chapter 03's lab (--sweep): each
 * precision's GEMM time and TFLOP/s as n grows, with fresh random A and B
 * at each size, every result checked (against cpu_gemm, or by Freivalds'
 * test and against the fp64 C) and probed, with the calls, timing and
 * probes of gemm_study.cu.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "check.h"
#include "cpu_gemm.h"
#include "freivalds.h"
#include "gemm_check.h"
#include "gemm_study.h"
#include "options.h"
#include "random.h"
#include "timing.h"
#include "units.h"

static const uint64_t SWEEP_SEED_A = 301, SWEEP_SEED_B = 302;
static const uint64_t SWEEP_SEED_CHECK = 303;

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

/* Each C at one size: every element against cpu_gemm's product where
 * by_cpu; else fp64 C by Freivalds' test, and every element of the other
 * precisions against that fp64 C (their tolerance allows for a reference
 * computed either way). */
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

/* One row of the sweep's table, printed once the size's probes ran. */
typedef struct {
    cm_stats t;
    gemm_check check;
} sweep_row;

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
           "n grows. Up to\nn = %zu every element of each C is checked "
           "against cpu_gemm (vs CPU); above,\nfp64 C by Freivalds' test "
           "(each row's sum C x against A (B x); R: the\nworst row's share "
           "of its tolerance) and every element of the others against\n"
           "that fp64 C (vs fp64). reads as: the probe, as in the precision "
           "table\n", s->repeat, cpu_max);
    say_what_runs(s);
    printf("  %6s %-5s %10s %9s %8s %10s %9s  %-8s  %s\n", "n", "prec",
           "matrix", "GEMM ms", "TFLOP/s", "max error", "tolerance",
           "reads as", "checked");
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
                fprintf(stderr, "%s: out of host memory for the CPU "
                        "reference\n", cm_program_name());
                exit(1);
            }
        } else {
            cm_freivalds_prepare(&c.f, h_a, h_b, n, SWEEP_SEED_CHECK + n);
        }

        gemm_operands g = {.n = n};
        CUDA_CHECK(cudaMalloc(&g.d_a, bytes));
        CUDA_CHECK(cudaMalloc(&g.d_b, bytes));
        CUDA_CHECK(cudaMalloc(&g.d_c, bytes));
        CUDA_CHECK(cudaMemcpy(g.d_a, h_a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(g.d_b, h_b, bytes, cudaMemcpyHostToDevice));
        gemm_low_alloc(&g, s->set);
        /* fp64 first: the lower precisions may be checked against it. */
        sweep_row rows[GEMM_PRECISIONS];
        for (int p = 0; p < GEMM_PRECISIONS; p++) {
            if (!runnable(s, (gemm_precision)p))
                continue;
            rows[p].t = time_gemm(s, &g, (gemm_precision)p);
            fetch_c(&g, (gemm_precision)p, c.h_c64, c.h_c32);
            rows[p].check = check_one(&c, (gemm_precision)p, n);
        }
        gemm_probe probes[GEMM_PRECISIONS];
        run_probes(s, &g, probes);
        for (int p = 0; p < GEMM_PRECISIONS; p++) {
            if (!runnable(s, (gemm_precision)p))
                continue;
            const char *name = gemm_info((gemm_precision)p)->name;
            const gemm_check *r = &rows[p].check;
            double tflops = cm_tflops(gemm_flops(n), rows[p].t.median_ms);
            int ok = r->ok && probes[p].ok;
            char mat[32];
            printf("  %6zu %-5s %10s %9.4f %8.2f ", n, name,
                   cm_fmt_bytes_short(bytes, mat, sizeof mat),
                   rows[p].t.median_ms, tflops);
            if (r->freivalds)
                printf("%10s %9s  %-8s  Freivalds, R %.2g", "-", "-",
                       gemm_probe_name(probes[p].read_as), r->error);
            else
                printf("%10.2e %9.1e  %-8s  %s", r->error, r->tolerance,
                       gemm_probe_name(probes[p].read_as),
                       c.by_cpu ? "vs CPU" : "vs fp64");
            printf("%s\n", ok ? "" : " FAILED");
            results++;
            if (!ok && all_ok) {
                char detail[300], ran[64];
                if (r->ok)
                    gemm_probe_describe(&probes[p], n, detail,
                                        sizeof detail);
                else
                    gemm_describe_failure(r, n, detail, sizeof detail);
                snprintf(first_bad, sizeof first_bad, "n = %zu %s: %s%s",
                         n, gemm_ran_as((gemm_precision)p, s->major,
                                        s->minor, ran, sizeof ran),
                         r->ok ? "probe: " : "", detail);
            }
            all_ok = all_ok && ok;
            if (s->csv) {
                gemm_result row = {.part = "sweep", .n = n,
                                   .precision = name,
                                   .gemm_ms = rows[p].t.median_ms,
                                   .gemm_min_ms = rows[p].t.min_ms,
                                   .tflops = tflops,
                                   .rel_error = r->freivalds ? -1 : r->error,
                                   .tolerance = r->freivalds ? -1
                                                             : r->tolerance,
                                   .ok = ok, .h2d_ms = -1, .d2h_ms = -1,
                                   .end_to_end_ms = -1, .first_gemm_ms = -1,
                                   .cpu_ms = -1, .c = NULL};
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
        snprintf(detail, sizeof detail, "%d of %d results pass their check "
                 "(vs CPU, vs fp64 or Freivalds') and their probe", results,
                 results);
    else
        snprintf(detail, sizeof detail, "%s", first_bad);
    cm_check_true(s->verdict, "sweep", all_ok && results > 0, detail);
}
