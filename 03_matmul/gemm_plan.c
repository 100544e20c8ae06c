/* gemm_plan.c - precisions, error bounds, byte counts and sizes for the
 * GEMMs of chapter 03 (plain C, unit-tested in tests/test_03_gemm_plan.c).
 */
#include "gemm_plan.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Unit roundoffs: u = 2^-p for a format with p significant bits (the
 * implicit leading 1 included), the largest relative error of rounding to
 * nearest.
 *  fp64: inputs exact, p = 53.
 *  fp32: inputs rounded once from fp64 (p = 24); cublasSgemm's fused
 *        multiply-adds round each step to nearest, 2^-24.
 *  tf32: our fp64 -> fp32 conversion, then the tensor cores use only the
 *        top 11 significant bits. The worst case allows truncation there
 *        (2^-10, twice the round-to-nearest 2^-11): cuBLAS does not
 *        promise rounding. The statistical tolerance takes rounding to
 *        nearest, which the errors measured on an H200 show: truncation
 *        would bias every input down, and the tutorial's product made on
 *        the CPU from truncated inputs errs by 7e-4, over ten times the
 *        5e-5 of rounded ones and of the H200's.
 *        A product of two 11-bit significands has at most 22 bits: exact
 *        in fp32.
 *  bf16: 16-bit storage: a sign, fp32's 8-bit exponent and 7 stored
 *        significand bits, p = 8 with the implicit 1; __double2bfloat16
 *        rounds to nearest, so 2^-8. Products of two 8-bit significands
 *        (16 bits) are exact in fp32.
 * Tensor cores (tf32, bf16) add in fp32 but are not documented to round
 * to nearest (Fasi et al., "Numerical behavior of NVIDIA tensor cores",
 * 2021, measured truncation), so one step may lose a whole ulp: 2^-23. */
static const gemm_precision_info INFO[GEMM_PRECISIONS] = {
    {.name = "fp64", .call = "cublasDgemm", .significand_bits = 53,
     .input_roundoff = 0.0, .input_nearest = 0.0, .add_roundoff = 0x1.0p-53},
    {.name = "fp32", .call = "cublasSgemm (no tensor cores)",
     .significand_bits = 24, .input_roundoff = 0x1.0p-24,
     .input_nearest = 0x1.0p-24, .add_roundoff = 0x1.0p-24},
    {.name = "tf32", .call = "cublasGemmEx, FAST_TF32",
     .significand_bits = 11,
     .input_roundoff = 0x1.0p-10 + 0x1.0p-24 + 0x1.0p-34,
     .input_nearest = 0x1.0p-11 + 0x1.0p-24 + 0x1.0p-35,
     .add_roundoff = 0x1.0p-23},
    {.name = "bf16", .call = "cublasGemmEx, bf16 in, fp32 sum",
     .significand_bits = 8, .input_roundoff = 0x1.0p-8,
     .input_nearest = 0x1.0p-8, .add_roundoff = 0x1.0p-23},
};

static const size_t SWEEP_SIZES[] = {256, 512, 1000, 1024, 2048,
                                     4096, 8192, 10000};
/* n = 1 and 63 cut every tile of every kernel; small enough for memcheck. */
static const size_t QUICK_SWEEP_SIZES[] = {1, 63, 128};

const gemm_precision_info *gemm_info(gemm_precision p)
{
    return (unsigned)p < GEMM_PRECISIONS ? &INFO[p] : NULL;
}

unsigned gemm_precision_set(const char *choice)
{
    if (!choice)
        return 0;
    if (strcmp(choice, "all") == 0)
        return (1u << GEMM_PRECISIONS) - 1;
    for (int p = 0; p < GEMM_PRECISIONS; p++)
        if (strcmp(choice, INFO[p].name) == 0)
            return GEMM_BIT(GEMM_FP64) | GEMM_BIT(p);
    return 0;
}

/* gamma_k = k u / (1 - k u) bounds the relative error of a k-term sum
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1), in
 * any order of summation, so it holds for cuBLAS's blocked sums and for
 * our CPU loop alike. */
static double gamma_k(size_t k, double u)
{
    double ku = (double)k * u;
    return ku < 0.5 ? ku / (1.0 - ku) : 1.0;  /* k u >= 1/2: no bound */
}

/* Element by element, the computed c^ = sum_p a^ b^ with a^ = a(1+e),
 * |e| <= u_in, satisfies |c^ - c| <= ((1+u_in)^2 (1+gamma_k) - 1) sum_p
 * |a||b|. For a, b >= 0 that sum is c itself, so this bounds the relative
 * error of every element, whatever the data and the order of summation.
 * Mixed-sign data would cancel and need sum |a||b| in place of c. */
double gemm_worst_case(gemm_precision p, size_t k)
{
    const gemm_precision_info *info = gemm_info(p);
    if (!info)
        return 0.0;
    double in = 1.0 + info->input_roundoff;
    return in * in * (1.0 + gamma_k(k, info->add_roundoff)) - 1.0;
}

/* The worst case grows with k, but for the tutorial's data the real error
 * does not: its rounding errors differ in sign and size and mostly cancel.
 * Take each rounding error as independent, uniform in [-u, u] (variance
 * u^2 / 3), and a, b independent and uniform in [0, 1), so that E[ab] =
 * 1/4, E[(ab)^2] = 1/9 and c is about k/4. Then, relative to c:
 *  - rounding the inputs: c^ - c = sum ab (e_a + e_b), of variance
 *    (2 u^2 / 3) k / 9, so sigma_in = u sqrt(32 / 27) / sqrt(k): it
 *    shrinks as the k independent errors average out;
 *  - the sums, one rounding per step: partial sums s_j ~ j / 4 each err
 *    by s_j e_j, of variance (u^2 / 3) sum (j/4)^2 ~ u^2 k^3 / 144, so
 *    sigma_add = u sqrt(k) / 3: it grows, but only as sqrt(k).
 * A result computed in precision p fails when an element is more than
 * GEMM_SIGMAS of its sigma_in + sigma_add away (a Gaussian error does
 * that about once in 10^23 tries), or more than the worst case, whichever
 * is less: at k = 1000, 6.3e-6 for fp32, 1.8e-4 for tf32 and 1.4e-3 for
 * bf16, so that each one fails the next lower precision's results (the
 * tutorial's product computed on the CPU from TF32 inputs errs by up to
 * 5.0e-5, from bf16 inputs by 3.9e-4), where fp32's worst case, 6.0e-5,
 * would pass TF32's. (At k = 10000 fp32's 2.0e-5 still fails bf16's
 * 1.2e-4, but not TF32's 1.5e-5: the probe in gemm_check.h tells those
 * apart at any size.) The float64 reference
 * keeps its worst case, e_64 = gamma_k(2^-53) (2.2e-13 for fp64 against
 * fp64 at k = 1000, far below any lower precision's error): |c_p - c_64|
 * <= (e_p + e_64) c while c_64 >= (1 - e_64) c, element by element
 * (gemm_check.c checks the largest such ratio, not a norm, which one bad
 * row could hide under). */
double gemm_tolerance(gemm_precision p, size_t k)
{
    const gemm_precision_info *info = gemm_info(p);
    if (!info)
        return 0.0;
    double e_64 = gamma_k(k, INFO[GEMM_FP64].add_roundoff);
    double e_p = gemm_worst_case(p, k);
    if (p != GEMM_FP64 && k > 0) {
        double sigma_in = info->input_nearest * sqrt(32.0 / 27.0) /
                          sqrt((double)k);
        double sigma_add = info->add_roundoff * sqrt((double)k) / 3.0;
        double e_stat = GEMM_SIGMAS * (sigma_in + sigma_add);
        e_p = e_stat < e_p ? e_stat : e_p;
    }
    return (e_p + e_64) / (1.0 - e_64);
}

/* a * b + c, or sets *overflow. */
static size_t mul_add(size_t a, size_t b, size_t c, int *overflow)
{
    if ((b != 0 && a > SIZE_MAX / b) || a * b > SIZE_MAX - c) {
        *overflow = 1;
        return 0;
    }
    return a * b + c;
}

size_t gemm_device_bytes(size_t n, unsigned set, int *overflow)
{
    *overflow = 0;
    size_t elements = mul_add(n, n, 0, overflow);
    size_t bytes = mul_add(elements, 3 * sizeof(double), 0, overflow);
    if (set & (GEMM_BIT(GEMM_FP32) | GEMM_BIT(GEMM_TF32)))  /* A, B fp32 */
        bytes = mul_add(elements, 2 * sizeof(float), bytes, overflow);
    if (set & ~GEMM_BIT(GEMM_FP64))                     /* C in fp32 */
        bytes = mul_add(elements, sizeof(float), bytes, overflow);
    if (set & GEMM_BIT(GEMM_BF16))                      /* A, B in bf16 */
        bytes = mul_add(elements, 2 * sizeof(uint16_t), bytes, overflow);
    return *overflow ? 0 : bytes;
}

size_t gemm_host_bytes(size_t n, int *overflow)
{
    *overflow = 0;
    size_t elements = mul_add(n, n, 0, overflow);
    size_t bytes = mul_add(elements, 4 * sizeof(double) + sizeof(float), 0,
                           overflow);
    return *overflow ? 0 : bytes;
}

size_t gemm_sweep_sizes(int quick, const size_t **sizes)
{
    *sizes = quick ? QUICK_SWEEP_SIZES : SWEEP_SIZES;
    return quick ? sizeof QUICK_SWEEP_SIZES / sizeof QUICK_SWEEP_SIZES[0]
                 : sizeof SWEEP_SIZES / sizeof SWEEP_SIZES[0];
}

static void field(FILE *out, double value, const char *format)
{
    fputc(',', out);
    if (value >= 0)
        fprintf(out, format, value);
}

void gemm_csv_row(FILE *out, const gemm_result *r)
{
    fprintf(out, "%s,%zu,%s", r->part, r->n, r->precision);
    field(out, r->gemm_ms, "%.6f");
    field(out, r->gemm_min_ms, "%.6f");
    field(out, r->tflops, "%.3f");
    field(out, r->rel_error, "%.3e");
    field(out, r->tolerance, "%.3e");
    fprintf(out, ",%d", r->ok);
    field(out, r->h2d_ms, "%.6f");
    field(out, r->d2h_ms, "%.6f");
    field(out, r->end_to_end_ms, "%.6f");
    field(out, r->first_gemm_ms, "%.6f");
    field(out, r->cpu_ms, "%.6f");
    if (r->c) {
        /* Row by row, in order: the same sums on every run. %.17g keeps
         * every bit of a double. */
        double sum = 0, weighted = 0;
        for (size_t i = 0; i < r->n; i++) {
            double row = 0;
            for (size_t j = 0; j < r->n; j++)
                row += r->c[i * r->n + j];
            sum += row;
            weighted += (double)(i + 1) * row;
        }
        fprintf(out, ",%.17g,%.17g", sum, weighted);
    } else {
        fputs(",,", out);
    }
    fputc('\n', out);
}
