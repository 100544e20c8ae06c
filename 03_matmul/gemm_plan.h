/* gemm_plan.h - the arithmetic of chapter 03 that needs no GPU: the four
 * GEMM precisions and their error bounds, device bytes, the sweep sizes
 * and the CSV rows.
 *
 *   unsigned set = gemm_precision_set("all");      every precision
 *   double tol = gemm_tolerance(GEMM_BF16, n);     bound on relative error
 *   size_t need = gemm_device_bytes(n, set, &overflow);
 */
#ifndef GEMM_PLAN_H
#define GEMM_PLAN_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GEMM_FP64, GEMM_FP32, GEMM_TF32, GEMM_BF16,
               GEMM_PRECISIONS } gemm_precision;

#define GEMM_BIT(p) (1u << (p))

typedef struct {
    const char *name;        /* "fp64", the --precision choice */
    const char *call;        /* the cuBLAS call and how it computes */
    int significand_bits;    /* of an input as the GEMM reads it, the
                                implicit leading 1 included */
    double input_roundoff;   /* worst relative error of an fp64 input */
    double input_nearest;    /* the same, rounded to nearest (as measured) */
    double add_roundoff;     /* relative error of one accumulation step */
} gemm_precision_info;

const gemm_precision_info *gemm_info(gemm_precision p);

/* The set of precisions a --precision choice runs, as GEMM_BIT()s: fp64
 * always (the tutorial's, and the reference), plus the one named, or all
 * for "all". 0 for an unknown name. */
unsigned gemm_precision_set(const char *choice);

/* How many standard deviations of its error an element may be off
 * before a lower-precision result fails (gemm_tolerance). */
#define GEMM_SIGMAS 10.0

/* The tolerance on |c_p - c_64| / c_64 for every element of C = A B with
 * k = n, for a result computed in precision p against a float64 reference
 * C_64 computed some other way (cuBLAS or cpu_gemm), when A and B hold
 * independent uniform [0, 1) numbers (the tutorial's np.random.rand).
 * fp64: the worst-case bound. The others: the smaller of their worst case
 * and GEMM_SIGMAS standard deviations of their error, which follows the
 * error's real growth: about 1 / sqrt(k) from rounding the inputs, about
 * sqrt(k) from the sums (gemm_plan.c derives both). */
double gemm_tolerance(gemm_precision p, size_t k);

/* The worst-case bound alone, for any order of summation and any
 * rounding within the formats' unit roundoffs (A, B >= 0). */
double gemm_worst_case(gemm_precision p, size_t k);

/* Device bytes for n x n A, B, C in float64 plus the copies the precisions
 * in `set` need. Sets *overflow (and returns 0) if size_t cannot hold it. */
size_t gemm_device_bytes(size_t n, unsigned set, int *overflow);

/* Host bytes of the main run: A, B, C and the CPU reference in float64,
 * plus one float32 result for the lower precisions. */
size_t gemm_host_bytes(size_t n, int *overflow);

/* The sizes of --sweep (quick: a tiny, odd set); returns how many. */
size_t gemm_sweep_sizes(int quick, const size_t **sizes);

/* One timed GEMM, as a CSV row. Fields < 0 were not measured and are
 * left empty. */
typedef struct {
    const char *part;          /* "tutorial", "precision" or "sweep" */
    size_t n;
    const char *precision;
    double gemm_ms, gemm_min_ms, tflops;
    double rel_error, tolerance;
    int ok;
    double h2d_ms, d2h_ms, end_to_end_ms, first_gemm_ms, cpu_ms;
    /* The n x n row-major C, or NULL: its checksums c_sum (every element)
     * and c_weighted_sum (row i's sum times i + 1, so a transposed or
     * row-swapped C differs) fill the last two fields, else empty. */
    const double *c;
} gemm_result;

/* The CSV's header line, without its newline. */
#define GEMM_CSV_HEADER                                                   \
    "part,n,precision,gemm_ms_median,gemm_ms_min,tflops,rel_error,"       \
    "tolerance,ok,h2d_ms,d2h_ms,end_to_end_ms,first_gemm_ms,cpu_ms,"      \
    "c_sum,c_weighted_sum"
void gemm_csv_row(FILE *out, const gemm_result *r);

#ifdef __cplusplus
}
#endif

#endif /* GEMM_PLAN_H */
