/* gemm_check.h - how chapter 03 checks a product C = A B (gemm_check.c,
 * plain C, unit-tested in tests/test_03_gemm_check.c): every element
 * against a float64 reference where one is at hand, each row's weighted
 * sum by Freivalds' O(n^2) test where the CPU cannot afford one, and the
 * probe that says which precision a GEMM ran in.
 *
 *   gemm_check r = gemm_compare(h_c32, CM_FLOAT32, h_ref, n * n,
 *                               gemm_tolerance(GEMM_BF16, n));
 *   gemm_report(&verdict, "bf16 C vs fp64 C", &r, n);
 *                      prints "check ...: ... ok", records a failure
 */
#ifndef GEMM_CHECK_H
#define GEMM_CHECK_H

#include <stddef.h>

#include "array.h"
#include "freivalds.h"
#include "gemm_plan.h"
#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Up to this n, the main run recomputes all of C on the CPU (2 n^3 flops:
 * 1.4e11 at 4096, about 2 s on a 16-thread host); above it, Freivalds. */
#define GEMM_CPU_CHECK_MAX_N ((size_t)4096)
/* The same limit in --sweep, which recomputes every size: the sizes up to
 * 1024 cost the CPU less than one 2048 would. */
#define GEMM_SWEEP_CPU_CHECK_MAX_N ((size_t)1024)

/* Whether the result at side n is checked against a full CPU reference
 * (1) or by Freivalds' test (0): in the main run (sweep 0) or the sweep
 * (sweep 1). --quick (quick 1) keeps its tiny sweep's largest size for
 * Freivalds, so that the quick run takes both paths. */
int gemm_check_by_cpu(size_t n, int sweep, int quick);

typedef struct {
    int freivalds;      /* 0: element by element; 1: Freivalds' test */
    double error;       /* largest element error, or worst row's ratio */
    double tolerance;   /* the element bound, or 1 for Freivalds */
    size_t where;       /* index of that element, or that row */
    double got, expected;   /* that element and its reference value */
    int ok;             /* error <= tolerance (never for NaN) */
} gemm_check;

/* The largest relative error of one element, |c_i - ref_i| / |ref_i|, over
 * count elements of c (any float dtype) against a float64 reference; its
 * index in *worst (may be NULL). For A, B >= 0 the reference is (|A||B|)_ij
 * to within the float64 error, so this is the elementwise bound's measure.
 * NaN or infinity in c, or c_i != 0 where ref_i = 0: INFINITY. */
double gemm_element_error(const void *c, cm_dtype type, const double *ref,
                          size_t count, size_t *worst);

/* Every element of c against ref, with an elementwise tolerance (from
 * gemm_tolerance: the same bound for every element). */
gemm_check gemm_compare(const void *c, cm_dtype type, const double *ref,
                        size_t count, double tolerance);

/* Freivalds' test of a float64 C (f prepared from A and B by
 * cm_freivalds_prepare): each row's weighted sum C x against A (B x), to
 * cm_freivalds_tolerance. A wrong element moves its row's sum by at least
 * half its error, unless other wrong elements of the row cancel it. */
gemm_check gemm_freivalds(const cm_freivalds_ref *f, const double *c);

/* Prints one "check WHAT, ..." line saying what was checked and records a
 * failure in v; cols is the row length of C, to name a bad element [i][j].
 * Returns r->ok. */
int gemm_report(cm_verdict *v, const char *what, const gemm_check *r,
                size_t cols);

/* One line on a check that failed, for a caller's own verdict line:
 * "element [i][j]: got x, expected y (relative error e, tolerance t)" or
 * "Freivalds' test, row i: |(C x)_i - (A (B x))_i| got r times its
 * tolerance, expected <= 1". */
void gemm_describe_failure(const gemm_check *r, size_t cols, char *text,
                           size_t size);

/* What precision p runs as on a GPU of compute capability major.minor:
 * its name, or "tf32 (runs as fp32 on sm_75)" on a GPU without TF32
 * tensor cores (before 8.0), where cuBLAS quietly computes in fp32. */
const char *gemm_ran_as(gemm_precision p, int major, int minor, char *text,
                        size_t size);

/* The precision probe: with A = x I (x on the diagonal, 0 elsewhere) and
 * B all ones, every element of C = A B is x as the GEMM read it: the
 * products are x * 1 and 0 * 1, the sums x + 0, all exact. x carries one
 * bit that each precision drops: fp32 (24 significant bits) keeps all but
 * 2^-30, TF32 (11) loses 2^-20 too, bf16 (8) 2^-9 too, and 4 bits would
 * lose 2^-5. Each bit lost is below half the last one kept, so rounding
 * to nearest and truncation read the same: C says which precision ran. */
#define GEMM_PROBE_X (1.0 + 0x1.0p-5 + 0x1.0p-9 + 0x1.0p-20 + 0x1.0p-30)
#define GEMM_PROBE_TEXT "1 + 2^-5 + 2^-9 + 2^-20 + 2^-30"

/* The precision whose inputs keep exactly what c holds of GEMM_PROBE_X,
 * the highest such; GEMM_PRECISIONS when c is no such rounding of it
 * (fewer bits than bf16, or a wrong value). */
gemm_precision gemm_probe_reads_as(double c);

/* What a probe C says: the lowest precision (the highest gemm_precision)
 * any element reads as, the first element that reads so, and ok when it
 * is `asked` or higher (a TF32 call that runs in fp32 is no fault). */
typedef struct {
    gemm_precision asked, read_as;
    size_t where;       /* that element's index in C */
    double got;         /* and its value */
    int ok;
} gemm_probe;

/* Starts a probe of a call in precision `asked` (nothing read yet). */
gemm_probe gemm_probe_start(gemm_precision asked);

/* Reads count elements of C (any float dtype), the first of them at index
 * first in C, into r: C may be read in pieces. */
void gemm_probe_scan(gemm_probe *r, const void *c, cm_dtype type,
                     size_t count, size_t first);

/* "element [i][j] = v reads x = 1 + 2^-5 + ... as P, expected Q or
 * higher", for a FAIL line; cols is the row length of C. */
void gemm_probe_describe(const gemm_probe *r, size_t cols, char *text,
                         size_t size);

/* The name of what a probe read as: "fp64" ... "bf16", or "none". */
const char *gemm_probe_name(gemm_precision read_as);

/* C = A B (n x n) on every CPU this process may use into ref, as the
 * reference of all of C: a first run, then more up to repeat and about
 * budget_ms in all (one at least) for a warm median. Returns the threads
 * used, -1 if host memory ran out. */
typedef struct {
    int threads, warm_runs;
    double first_ms, warm_ms;   /* first run; median of the warm runs */
} gemm_cpu_times;
int gemm_cpu_reference(size_t n, const double *a, const double *b,
                       double *ref, int repeat, double budget_ms,
                       gemm_cpu_times *times);

#ifdef __cplusplus
}
#endif

#endif /* GEMM_CHECK_H */
