/* test_03_gemm_check.c - chapter 03's checks of a product catch a wrong
 * result in every precision: one element 5% off, or one row of dot
 * products missing their last 4 to 7 terms, fail element by element
 * (where a norm over all of C passes them in bf16), and a correct result
 * passes. Each precision is also caught running as the next lower one,
 * by its tolerance at the tutorial's k = 1000 and by the probe at any
 * size. The results of each precision are made on the CPU, their inputs
 * rounded as the GPU rounds them (to nearest: fp32 and bf16 by our
 * conversions, TF32 as the H200's errors show), summed in fp32. */
#include <math.h>
#include <stdint.h>

#include "../03_matmul/cpu_gemm.h"
#include "../03_matmul/gemm_check.h"
#include "random.h"
#include "test.h"

/* A (ROWS x K) times B (K x COLS): K = 1000 terms as in the tutorial, and
 * enough rows that a norm over C dilutes a fault below bf16's tolerance;
 * few columns, to keep the test fast. */
enum { ROWS = 1000, K = 1000, COLS = 8 };

/* x rounded to `bits` significant bits, to nearest (ties to even, as
 * __double2bfloat16 and (float) do). */
static double round_bits(double x, int bits)
{
    int e;
    double m = ldexp(frexp(x, &e), bits);      /* |m| < 2^bits */
    return ldexp(nearbyint(m), e - bits);
}

/* The inputs of a GEMM that reads `bits` significant bits: 53 is fp64
 * itself, 24 fp32, 11 TF32 (from the fp32 value, as cuBLAS gets it), 8
 * bf16, and 4 a precision below bf16 (fp8's e4m3 keeps 4). */
static double input_bits(int bits, double x)
{
    switch (bits) {
    case 53: return x;
    case 24: return (float)x;
    case 11: return round_bits((float)x, 11);
    default: return round_bits(x, bits);
    }
}

/* The bits each precision reads, and the next lower one's. */
static const int BITS[GEMM_PRECISIONS + 1] = {53, 24, 11, 8, 4};

/* C = A B (rows x k times k x cols) from inputs of `bits` bits, each dot
 * product over its first k - drop terms, drop = 4 to 7 in row bad_row
 * (none when bad_row < 0); fp64 sums backwards (a different order from
 * the reference), the others in fp32 with a fused multiply-add. */
static void product(int bits, size_t rows, size_t k, size_t cols,
                    const double *a, const double *b, double *c,
                    long bad_row)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            size_t drop = (long)i == bad_row ? 4 + (i + j) % 4 : 0;
            size_t terms = k - drop;
            if (bits == 53) {
                double sum = 0;
                for (size_t q = terms; q-- > 0;)
                    sum += a[i * k + q] * b[q * cols + j];
                c[i * cols + j] = sum;
                continue;
            }
            float sum = 0;
            for (size_t q = 0; q < terms; q++)
                sum = fmaf((float)input_bits(bits, a[i * k + q]),
                           (float)input_bits(bits, b[q * cols + j]), sum);
            c[i * cols + j] = sum;
        }
}

static void reference(size_t rows, size_t k, size_t cols, const double *a,
                      const double *b, double *ref)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double sum = 0;
            for (size_t q = 0; q < k; q++)
                sum += a[i * k + q] * b[q * cols + j];
            ref[i * cols + j] = sum;
        }
}

static void faults_are_caught(void)
{
    static double a[ROWS * K], b[K * COLS], ref[ROWS * COLS];
    static double c[ROWS * COLS], bad[ROWS * COLS];
    cm_fill_uniform_f64(a, ROWS * K, 11);   /* np.random.rand: [0, 1) */
    cm_fill_uniform_f64(b, K * COLS, 12);
    reference(ROWS, K, COLS, a, b, ref);
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        double tol = gemm_tolerance((gemm_precision)p, K);
        const char *name = gemm_info((gemm_precision)p)->name;

        /* A correct result passes, and by a margin. */
        product(BITS[p], ROWS, K, COLS, a, b, c, -1);
        gemm_check r = gemm_compare(c, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(r.ok && !r.freivalds && r.error < tol / 2);
        printf("%s: correct C, largest element error %.3e (tolerance "
               "%.1e)\n", name, r.error, tol);

        /* One element 5% off. */
        for (size_t i = 0; i < ROWS * COLS; i++)
            bad[i] = c[i];
        bad[500 * COLS + 3] *= 1.05;
        r = gemm_compare(bad, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(!r.ok && r.where == 500 * COLS + 3 && r.error > 0.049);
        double norm = cm_rel_error(bad, CM_FLOAT64, ref, CM_FLOAT64,
                                   ROWS * COLS, NULL);
        printf("%s: one element 5%% off: largest element error %.3e, norm "
               "%.3e\n", name, r.error, norm);
        if (p == GEMM_BF16)     /* what a norm over all of C let through */
            EXPECT(norm <= tol);

        /* One row of dot products missing their last 4 to 7 terms. */
        product(BITS[p], ROWS, K, COLS, a, b, bad, 500);
        r = gemm_compare(bad, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(!r.ok && r.where / COLS == 500 &&
               r.error > 2 * gemm_tolerance(GEMM_BF16, K));
        norm = cm_rel_error(bad, CM_FLOAT64, ref, CM_FLOAT64, ROWS * COLS,
                            NULL);
        printf("%s: a row's last 4-7 terms missing: largest element error "
               "%.3e, norm %.3e\n", name, r.error, norm);
        if (p == GEMM_BF16)
            EXPECT(norm <= tol);
    }
}

/* Each precision run as the next lower one (fp64 as fp32, fp32 as TF32,
 * TF32 as bf16, bf16 as 4-bit inputs) fails its tolerance at the
 * tutorial's k = 1000. At k = 10000 the tolerances still tell fp32 from
 * bf16 (the case the worst-case bound let through) and pass correct
 * results; there TF32 passes as fp32, which is what the probe is for. */
static void lower_precision_is_caught(void)
{
    static double a[ROWS * K], b[K * COLS], ref[ROWS * COLS];
    static double c[ROWS * COLS];
    cm_fill_uniform_f64(a, ROWS * K, 13);
    cm_fill_uniform_f64(b, K * COLS, 14);
    reference(ROWS, K, COLS, a, b, ref);
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        double tol = gemm_tolerance((gemm_precision)p, K);
        product(BITS[p + 1], ROWS, K, COLS, a, b, c, -1);
        gemm_check r = gemm_compare(c, CM_FLOAT64, ref, ROWS * COLS, tol);
        EXPECT(!r.ok);
        printf("%s run with %d-bit inputs: largest element error %.3e, "
               "tolerance %.1e: caught\n", gemm_info((gemm_precision)p)->name,
               BITS[p + 1], r.error, tol);
        /* The worst-case bound alone would have let TF32 pass as fp32. */
        if (p == GEMM_FP32)
            EXPECT(r.error < gemm_worst_case(GEMM_FP32, K));
    }

    enum { BIG_K = 10000, BIG_ROWS = 16 };
    static double a2[BIG_ROWS * BIG_K], b2[BIG_K * COLS];
    static double ref2[BIG_ROWS * COLS], c2[BIG_ROWS * COLS];
    cm_fill_uniform_f64(a2, BIG_ROWS * BIG_K, 15);
    cm_fill_uniform_f64(b2, BIG_K * COLS, 16);
    reference(BIG_ROWS, BIG_K, COLS, a2, b2, ref2);
    for (int p = GEMM_FP32; p < GEMM_PRECISIONS; p++) {
        double tol = gemm_tolerance((gemm_precision)p, BIG_K);
        product(BITS[p], BIG_ROWS, BIG_K, COLS, a2, b2, c2, -1);
        gemm_check r = gemm_compare(c2, CM_FLOAT64, ref2, BIG_ROWS * COLS,
                                    tol);
        EXPECT(r.ok && r.error < tol / 2);
    }
    product(BITS[GEMM_BF16], BIG_ROWS, BIG_K, COLS, a2, b2, c2, -1);
    gemm_check r = gemm_compare(c2, CM_FLOAT64, ref2, BIG_ROWS * COLS,
                                gemm_tolerance(GEMM_FP32, BIG_K));
    EXPECT(!r.ok);
    EXPECT(r.error < gemm_worst_case(GEMM_FP32, BIG_K));
    printf("k = %d: bf16 inputs err by %.3e: fp32's tolerance %.1e "
           "catches them, its worst case %.1e would not\n", BIG_K, r.error,
           gemm_tolerance(GEMM_FP32, BIG_K),
           gemm_worst_case(GEMM_FP32, BIG_K));
}

/* The probe: a GEMM of A = x I and B = ones, simulated with inputs of each
 * precision, reads as that precision; run as the next lower one, it fails
 * and names it; a TF32 call that ran in fp32 passes (and says fp32). C is
 * read in two pieces, as gemm_study.cu reads a large one. */
static void probe(void)
{
    enum { N = 5 };
    double a[N * N], b[N * N], c[N * N];
    for (size_t i = 0; i < N * N; i++) {
        a[i] = i / N == i % N ? GEMM_PROBE_X : 0.0;
        b[i] = 1.0;
    }
    for (int p = 0; p < GEMM_PRECISIONS; p++) {
        gemm_precision asked = (gemm_precision)p;
        product(BITS[p], N, N, N, a, b, c, -1);
        gemm_probe r = gemm_probe_start(asked);
        gemm_probe_scan(&r, c, CM_FLOAT64, 12, 0);
        gemm_probe_scan(&r, c + 12, CM_FLOAT64, N * N - 12, 12);
        EXPECT(r.ok && r.read_as == asked);

        product(BITS[p + 1], N, N, N, a, b, c, -1);
        r = gemm_probe_start(asked);
        gemm_probe_scan(&r, c, CM_FLOAT64, N * N, 0);
        EXPECT(!r.ok && r.read_as == (gemm_precision)(p + 1) &&
               r.where == 0);
        char text[300];
        gemm_probe_describe(&r, N, text, sizeof text);
        printf("probe of %s run as %d-bit inputs: %s\n",
               gemm_info(asked)->name, BITS[p + 1], text);
        EXPECT(strstr(text, "element [0][0] = ") == text);
    }
    /* One bad element among good ones is found, by its index in C. */
    product(BITS[GEMM_FP32], N, N, N, a, b, c, -1);
    c[3 * N + 2] = 1.03125;                 /* x in bf16 */
    gemm_probe r = gemm_probe_start(GEMM_FP32);
    gemm_probe_scan(&r, c, CM_FLOAT64, 10, 0);
    gemm_probe_scan(&r, c + 10, CM_FLOAT64, N * N - 10, 10);
    EXPECT(!r.ok && r.read_as == GEMM_BF16 && r.where == 3 * N + 2);
    /* Higher than asked is fine: TF32 on a GPU without TF32 cores. */
    product(BITS[GEMM_FP32], N, N, N, a, b, c, -1);
    r = gemm_probe_start(GEMM_TF32);
    gemm_probe_scan(&r, c, CM_FLOAT64, N * N, 0);
    EXPECT(r.ok && r.read_as == GEMM_FP32);
    /* Stored as float32, as the lower precisions return C. */
    float c32[2] = {(float)GEMM_PROBE_X, 1.0f + 0x1.0p-5f};
    r = gemm_probe_start(GEMM_TF32);
    gemm_probe_scan(&r, c32, CM_FLOAT32, 2, 0);
    EXPECT(!r.ok && r.read_as == GEMM_BF16 && r.where == 1);
    /* Values that are no rounding of x read as none, NaN included. */
    EXPECT(gemm_probe_reads_as(GEMM_PROBE_X) == GEMM_FP64);
    EXPECT(gemm_probe_reads_as(1.0) == GEMM_PRECISIONS);
    EXPECT(gemm_probe_reads_as(2 * GEMM_PROBE_X) == GEMM_PRECISIONS);
    EXPECT(gemm_probe_reads_as(NAN) == GEMM_PRECISIONS);
    EXPECT(strcmp(gemm_probe_name(GEMM_PRECISIONS), "none") == 0);
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
    lower_precision_is_caught();
    probe();
    element_error();
    freivalds();
    check_choice();
    labels();
    cpu_reference();
    return test_summary();
}
