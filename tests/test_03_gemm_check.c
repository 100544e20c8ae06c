/* test_03_gemm_check.c - chapter 03's checks of a product catch a wrong
 * result in every precision: one row of C 20% off, or every dot product
 * missing its last 4 to 7 terms, fail element by element (where a norm
 * over all of C passes them in bf16), and a correct result passes. The
 * results of each precision are made on the CPU, rounded as the GPU
 * rounds them (the fp32 and bf16 inputs to nearest, TF32's by truncation,
 * the worst case the bound allows), summed in fp32. */
#include <math.h>
#include <stdint.h>

#include "../03_matmul/cpu_gemm.h"
#include "../03_matmul/gemm_check.h"
#include "random.h"
#include "test.h"

/* A (ROWS x K) times B (K x COLS): K = 1000 terms as in the tutorial, and
 * enough rows that a norm over C dilutes one bad row below bf16's bound;
 * few columns, to keep the test fast. */
enum { ROWS = 1000, K = 1000, COLS = 8 };

/* x rounded to `bits` significant bits: to nearest (ties to even, as
 * __double2bfloat16 and (float) do) or toward zero. */
static double round_bits(double x, int bits, int truncate)
{
    int e;
    double m = ldexp(frexp(x, &e), bits);      /* |m| < 2^bits */
    return ldexp(truncate ? trunc(m) : nearbyint(m), e - bits);
}

/* What each precision's GEMM is given: fp64 unchanged, fp32 rounded to 24
 * bits, TF32 that fp32 value cut to 11, bf16 rounded to 8. */
static double input_as(gemm_precision p, double x)
{
    switch (p) {
    case GEMM_FP32: return (float)x;
    case GEMM_TF32: return round_bits((float)x, 11, 1);
    case GEMM_BF16: return round_bits(x, 8, 0);
    default:        return x;
    }
}

/* C in precision p, each dot product over its first k - drop(i, j) terms;
 * fp64 sums backwards (a different order from the reference), the others
 * in fp32 with a fused multiply-add. The result is stored as double. */
static void product(gemm_precision p, const double *a, const double *b,
                    double *c, int drop_last_terms)
{
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = 0; j < COLS; j++) {
            size_t drop = drop_last_terms ? 4 + (i + j) % 4 : 0;  /* 4-7 */
            size_t terms = K - drop;
            if (p == GEMM_FP64) {
                double sum = 0;
                for (size_t q = terms; q-- > 0;)
                    sum += a[i * K + q] * b[q * COLS + j];
                c[i * COLS + j] = sum;
                continue;
            }
            float sum = 0;
            for (size_t q = 0; q < terms; q++)
                sum = fmaf((float)input_as(p, a[i * K + q]),
                           (float)input_as(p, b[q * COLS + j]), sum);
            c[i * COLS + j] = sum;
        }
}

static void reference(const double *a, const double *b, double *ref)
{
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = 0; j < COLS; j++) {
            double sum = 0;
            for (size_t q = 0; q < K; q++)
                sum += a[i * K + q] * b[q * COLS + j];
            ref[i * COLS + j] = sum;
        }
}

static void faults_are_caught(void)
{
    static double a[ROWS * K], b[K * COLS], ref[ROWS * COLS];
    static double c[ROWS * COLS], bad[ROWS * COLS];
    cm_fill_uniform_f64(a, ROWS * K, 11);   /* np.random.rand: [0, 1) */
    cm_fill_uniform_f64(b, K * COLS, 12);
    reference(a, b, ref);
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        double tol = gemm_tolerance((gemm_precision)p, K);
        const char *name = gemm_info((gemm_precision)p)->name;

        /* A correct result passes, and by a margin. */
        product((gemm_precision)p, a, b, c, 0);
        gemm_check r = gemm_compare(c, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(r.ok && !r.freivalds && r.error < tol / 2);
        printf("%s: correct C, largest element error %.3e (tolerance "
               "%.1e)\n", name, r.error, tol);

        /* One row of C 20% off. */
        for (size_t i = 0; i < ROWS * COLS; i++)
            bad[i] = c[i];
        for (size_t j = 0; j < COLS; j++)
            bad[500 * COLS + j] *= 1.2;
        r = gemm_compare(bad, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(!r.ok && r.where / COLS == 500 && r.error > 0.19);
        double norm = cm_rel_error(bad, CM_FLOAT64, ref, CM_FLOAT64,
                                   ROWS * COLS, NULL);
        printf("%s: one row 20%% off: largest element error %.3e, norm "
               "%.3e\n", name, r.error, norm);
        if (p == GEMM_BF16)     /* what a norm over all of C let through */
            EXPECT(norm <= tol);

        /* Every dot product missing its last 4 to 7 terms. */
        product((gemm_precision)p, a, b, bad, 1);
        r = gemm_compare(bad, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(!r.ok && r.error > 1.5 * gemm_tolerance(GEMM_BF16, K));
        norm = cm_rel_error(bad, CM_FLOAT64, ref, CM_FLOAT64, ROWS * COLS,
                            NULL);
        printf("%s: last 4-7 terms missing: largest element error %.3e, "
               "norm %.3e\n", name, r.error, norm);
        if (p == GEMM_BF16)
            EXPECT(norm <= tol);
    }
}

/* The element error itself: relative to each reference element, NaN and
 * infinity fail, a zero reference allows only zero, float32 input read. */
static void element_error(void)
{
    double ref[4] = {1, 2, 4, 0};
    double c[4] = {1, 2.002, 4, 0};
    size_t at = 9;
    EXPECT(fabs(gemm_element_error(c, CM_FLOAT64, ref, 4, &at) - 1e-3) <
           1e-12 && at == 1);
    c[3] = 1e-300;
    EXPECT(isinf(gemm_element_error(c, CM_FLOAT64, ref, 4, &at)) && at == 3);
    c[3] = 0;
    c[2] = NAN;
    EXPECT(isinf(gemm_element_error(c, CM_FLOAT64, ref, 4, &at)) && at == 2);
    gemm_check r = gemm_compare(c, CM_FLOAT64, ref, 4, 1e30);
    EXPECT(!r.ok);
    float c32[4] = {1, 2, 4.5f, 0};
    EXPECT(gemm_element_error(c32, CM_FLOAT32, ref, 4, &at) == 0.125 &&
           at == 2);
    EXPECT(gemm_element_error(c32, CM_FLOAT32, ref, 0, NULL) == 0);
}

/* Freivalds' test of a float64 C: a correct product passes, and each
 * fault fails, down to one element off by a millionth. The report names
 * the row, or the element [i][j] of an elementwise check. */
static void freivalds(void)
{
    enum { N = 200 };
    static double a[N * N], b[N * N], c[N * N], bad[N * N];
    cm_fill_uniform_f64(a, N * N, 21);
    cm_fill_uniform_f64(b, N * N, 22);
    EXPECT(cpu_gemm(N, N, N, a, b, c, 2) >= 1);
    cm_freivalds_ref f;
    cm_freivalds_prepare(&f, a, b, N, 23);
    cm_verdict v = {0};
    gemm_check r = gemm_freivalds(&f, c);
    EXPECT(r.ok && r.freivalds && r.error < 1);
    EXPECT(gemm_report(&v, "C", &r, N) == 1 &&
           v.checks == 1 && v.failures == 0);

    for (size_t i = 0; i < N * N; i++)
        bad[i] = c[i];
    bad[77 * N + 5] *= 1 + 1e-6;
    r = gemm_freivalds(&f, bad);
    EXPECT(!r.ok && r.where == 77);
    EXPECT(gemm_report(&v, "C", &r, N) == 0 &&
           v.failures == 1 && strstr(v.first_failure, "row 77") != NULL);

    for (size_t j = 0; j < N; j++)
        bad[77 * N + j] = c[77 * N + j] * 1.2;
    EXPECT(!gemm_freivalds(&f, bad).ok);
    for (size_t i = 0; i < N; i++)        /* each sum short of 4-7 terms */
        for (size_t j = 0; j < N; j++) {
            size_t drop = 4 + (i + j) % 4;
            bad[i * N + j] = c[i * N + j];
            for (size_t q = N - drop; q < N; q++)
                bad[i * N + j] -= a[i * N + q] * b[q * N + j];
        }
    EXPECT(!gemm_freivalds(&f, bad).ok);
    bad[0] = NAN;
    EXPECT(isinf(gemm_freivalds(&f, bad).error));
    cm_freivalds_release(&f);

    /* An elementwise failure names the element and both values. */
    cm_verdict w = {0};
    r = gemm_compare(bad, CM_FLOAT64, c, N * N, 1e-3);
    EXPECT(gemm_report(&w, "bf16 C vs fp64 C", &r, N) == 0);
    EXPECT(strstr(w.first_failure, "FAIL: bf16 C vs fp64 C, element [0][0]")
           == w.first_failure);
    bad[0] = c[0];
    bad[3 * N + 7] = 2 * c[3 * N + 7];
    r = gemm_compare(bad, CM_FLOAT64, c, N * N, 0.5);
    EXPECT(!r.ok && r.where == 3 * N + 7 && r.got == bad[3 * N + 7] &&
           r.expected == c[3 * N + 7]);
    char text[300];
    gemm_describe_failure(&r, N, text, sizeof text);
    EXPECT(strstr(text, "element [3][7]: got ") == text);
}

/* Which check each size gets: the main run recomputes C on the CPU up to
 * 4096; the sweep up to 1024, and its quick sizes take both paths. */
static void check_choice(void)
{
    EXPECT(gemm_check_by_cpu(1, 0, 0) && gemm_check_by_cpu(4096, 0, 0) &&
           !gemm_check_by_cpu(4097, 0, 0) && !gemm_check_by_cpu(10000, 0, 1));
    EXPECT(gemm_check_by_cpu(257, 0, 1));
    const size_t *sizes;
    size_t count = gemm_sweep_sizes(0, &sizes);
    int cpu = 0, freivalds = 0;
    for (size_t i = 0; i < count; i++) {
        int by_cpu = gemm_check_by_cpu(sizes[i], 1, 0);
        EXPECT(by_cpu == (sizes[i] <= 1024));
        cpu += by_cpu;
        freivalds += !by_cpu;
    }
    EXPECT(cpu >= 2 && freivalds >= 2);
    count = gemm_sweep_sizes(1, &sizes);
    EXPECT(gemm_check_by_cpu(sizes[0], 1, 1) &&
           !gemm_check_by_cpu(sizes[count - 1], 1, 1));
}

static void labels(void)
{
    char text[64];
    EXPECT(strcmp(gemm_ran_as(GEMM_TF32, 7, 5, text, sizeof text),
                  "tf32 (runs as fp32 on sm_75)") == 0);
    EXPECT(strcmp(gemm_ran_as(GEMM_TF32, 8, 0, text, sizeof text),
                  "tf32") == 0);
    EXPECT(strcmp(gemm_ran_as(GEMM_TF32, 9, 0, text, sizeof text),
                  "tf32") == 0);
    EXPECT(strcmp(gemm_ran_as(GEMM_FP32, 7, 5, text, sizeof text),
                  "fp32") == 0);
    EXPECT(strcmp(gemm_ran_as(GEMM_PRECISIONS, 9, 0, text, sizeof text),
                  "?") == 0);
}

static void cpu_reference(void)
{
    enum { N = 33 };
    static double a[N * N], b[N * N], ref[N * N], naive[N * N];
    cm_fill_uniform_f64(a, N * N, 31);
    cm_fill_uniform_f64(b, N * N, 32);
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            double sum = 0;
            for (size_t q = 0; q < N; q++)
                sum += a[i * N + q] * b[q * N + j];
            naive[i * N + j] = sum;
        }
    gemm_cpu_times t;
    EXPECT(gemm_cpu_reference(N, a, b, ref, 3, 1000.0, &t) >= 1);
    EXPECT(t.warm_runs >= 1 && t.warm_runs <= 3 && t.first_ms >= 0 &&
           t.warm_ms >= 0);
    EXPECT(gemm_compare(ref, CM_FLOAT64, naive, N * N,
                        gemm_tolerance(GEMM_FP64, N)).ok);
    /* A budget already spent still leaves one warm run. */
    EXPECT(gemm_cpu_reference(N, a, b, ref, 5, 0.0, &t) >= 1 &&
           t.warm_runs == 1);
}

int main(void)
{
    faults_are_caught();
    element_error();
    freivalds();
    check_choice();
    labels();
    cpu_reference();
    return test_summary();
}
