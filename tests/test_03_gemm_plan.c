/* test_03_gemm_plan.c - precision sets, error bounds, byte counts, sweep
 * sizes and CSV rows of chapter 03. */
#include <math.h>
#include <stdint.h>

#include "../03_matmul/gemm_plan.h"
#include "test.h"

int main(void)
{
    /* --precision choices: fp64 always runs, it is the reference. */
    unsigned all = GEMM_BIT(GEMM_FP64) | GEMM_BIT(GEMM_FP32) |
                   GEMM_BIT(GEMM_TF32) | GEMM_BIT(GEMM_BF16);
    EXPECT(gemm_precision_set("fp64") == GEMM_BIT(GEMM_FP64));
    EXPECT(gemm_precision_set("fp32") ==
           (GEMM_BIT(GEMM_FP64) | GEMM_BIT(GEMM_FP32)));
    EXPECT(gemm_precision_set("bf16") ==
           (GEMM_BIT(GEMM_FP64) | GEMM_BIT(GEMM_BF16)));
    EXPECT(gemm_precision_set("all") == all);
    EXPECT(gemm_precision_set("fp16") == 0);
    EXPECT(gemm_precision_set(NULL) == 0);
    EXPECT(strcmp(gemm_info(GEMM_TF32)->name, "tf32") == 0);
    EXPECT(gemm_info(GEMM_PRECISIONS) == NULL);

    /* Tolerances: fp64 against fp64 is its worst case, 2 k u to first
     * order. The others are GEMM_SIGMAS standard deviations of their
     * error, sigma_in = u_in sqrt(32/27) / sqrt(k) from their inputs and
     * sigma_add = u_add sqrt(k) / 3 from their sums, plus fp64's error:
     * at k = 1000, 6.3e-6, 1.8e-4 and 1.4e-3, each far below its worst
     * case, and ordered. */
    double u64 = 0x1.0p-53;
    double fp64 = gemm_tolerance(GEMM_FP64, 1000);
    EXPECT(fp64 > 2000 * u64 && fp64 < 1.001 * 2000 * u64);
    double fp32 = gemm_tolerance(GEMM_FP32, 1000);
    double sigma32 = 0x1.0p-24 * (sqrt(32.0 / 27.0) / sqrt(1000.0) +
                                  sqrt(1000.0) / 3.0);
    EXPECT(fabs(fp32 - (10 * sigma32 + fp64 / 2)) < 1e-3 * fp32);
    EXPECT(fp32 > 6.2e-6 && fp32 < 6.4e-6);
    double tf32 = gemm_tolerance(GEMM_TF32, 1000);
    EXPECT(tf32 > 1.75e-4 && tf32 < 1.85e-4);
    double bf16 = gemm_tolerance(GEMM_BF16, 1000);
    EXPECT(bf16 > 1.3e-3 && bf16 < 1.4e-3);
    EXPECT(fp64 < fp32 && fp32 < tf32 && tf32 < bf16);
    for (int p = GEMM_FP32; p < GEMM_PRECISIONS; p++)
        EXPECT(gemm_tolerance((gemm_precision)p, 1000) <
               gemm_worst_case((gemm_precision)p, 1000) / 5);
    /* The worst case: 2 u_in + k u_add to first order (TF32's inputs may
     * be truncated: 2^-10). */
    EXPECT(gemm_worst_case(GEMM_FP32, 1000) > 1002 * 0x1.0p-24 &&
           gemm_worst_case(GEMM_FP32, 1000) < 1.01 * 1002 * 0x1.0p-24);
    EXPECT(gemm_worst_case(GEMM_TF32, 1000) > 2 * 0x1.0p-10 &&
           gemm_worst_case(GEMM_TF32, 1000) < 2.2e-3);
    EXPECT(gemm_worst_case(GEMM_BF16, 1000) > 2 * 0x1.0p-8 &&
           gemm_worst_case(GEMM_BF16, 1000) < 8.0e-3);
    /* It follows the error's growth: fp32's, from its sums, grows as
     * sqrt(k); bf16's, from its inputs, shrinks as 1 / sqrt(k) until the
     * sums take over. */
    EXPECT(gemm_tolerance(GEMM_FP32, 10000) > 3 * fp32 &&
           gemm_tolerance(GEMM_FP32, 10000) < 3.3 * fp32);
    EXPECT(gemm_tolerance(GEMM_BF16, 10000) < bf16 / 2.5);
    /* For small k the worst case is the smaller, and it is used; never
     * more than the worst case, never negative. */
    for (int p = GEMM_FP32; p < GEMM_PRECISIONS; p++) {
        size_t ks[] = {0, 1, 2, 5, 63, 257, 1000, 10000, 1u << 20};
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            double ku = (double)ks[i] * u64, e_64 = ku / (1 - ku);
            double t = gemm_tolerance((gemm_precision)p, ks[i]);
            double w = (gemm_worst_case((gemm_precision)p, ks[i]) + e_64) /
                       (1 - e_64);
            EXPECT(t >= 0 && t <= w * (1 + 1e-12));
            if (ks[i] <= 2)
                EXPECT(fabs(t - w) <= 1e-12 * w);
        }
    }
    EXPECT(gemm_tolerance(GEMM_FP64, 0) == 0.0);
    EXPECT(gemm_tolerance(GEMM_FP32, (size_t)1 << 40) <= 4.0);
    EXPECT(gemm_tolerance(GEMM_PRECISIONS, 10) == 0.0);
    EXPECT(gemm_worst_case(GEMM_PRECISIONS, 10) == 0.0);
    /* The bits each input keeps, for the probe. */
    EXPECT(gemm_info(GEMM_FP64)->significand_bits == 53 &&
           gemm_info(GEMM_FP32)->significand_bits == 24 &&
           gemm_info(GEMM_TF32)->significand_bits == 11 &&
           gemm_info(GEMM_BF16)->significand_bits == 8);

    /* Device bytes: 3 float64 matrices; fp32 and tf32 share their copies;
     * bf16 adds two 2-byte inputs and the shared fp32 result. */
    int overflow = 1;
    EXPECT(gemm_device_bytes(1000, GEMM_BIT(GEMM_FP64), &overflow) ==
           24000000 && !overflow);
    EXPECT(gemm_device_bytes(1000, gemm_precision_set("fp32"), &overflow) ==
           24000000 + 12000000);
    EXPECT(gemm_device_bytes(1000, gemm_precision_set("tf32"), &overflow) ==
           24000000 + 12000000);
    EXPECT(gemm_device_bytes(1000, gemm_precision_set("bf16"), &overflow) ==
           24000000 + 4000000 + 4000000);
    EXPECT(gemm_device_bytes(1000, all, &overflow) ==
           24000000 + 12000000 + 4000000);
    EXPECT(gemm_device_bytes(1, all, &overflow) == 24 + 12 + 4);
    EXPECT(gemm_device_bytes((size_t)1 << 31, all, &overflow) == 0 &&
           overflow);
    EXPECT(gemm_device_bytes(2000000000, GEMM_BIT(GEMM_FP64), &overflow) ==
           0 && overflow);
    EXPECT(gemm_device_bytes(100000, GEMM_BIT(GEMM_FP64), &overflow) ==
           240000000000u && !overflow);
    EXPECT(gemm_host_bytes(1000, &overflow) == 36000000 && !overflow);
    EXPECT(gemm_host_bytes(SIZE_MAX / 2, &overflow) == 0 && overflow);

    /* Sweep sizes: ascending, with the benchmark's 1000, 4096 and 10000. */
    const size_t *sizes;
    size_t count = gemm_sweep_sizes(0, &sizes);
    int has_1000 = 0, has_4096 = 0, has_10000 = 0, ascending = 1;
    for (size_t i = 0; i < count; i++) {
        has_1000 |= sizes[i] == 1000;
        has_4096 |= sizes[i] == 4096;
        has_10000 |= sizes[i] == 10000;
        if (i > 0 && sizes[i] <= sizes[i - 1])
            ascending = 0;
    }
    EXPECT(has_1000 && has_4096 && has_10000 && ascending);
    count = gemm_sweep_sizes(1, &sizes);
    EXPECT(count >= 2 && sizes[count - 1] <= 257);

    /* CSV: a tutorial row has every field, a sweep row leaves the
     * tutorial-only fields empty. */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fprintf(out, "%s\n", GEMM_CSV_HEADER);
    gemm_result r = {"sweep", 4096, "bf16", 1.5, 1.25, 91.625, 1e-4, 8e-3,
                     1, -1, -1, -1, -1, -1, NULL};
    gemm_csv_row(out, &r);
    gemm_result t = {"tutorial", 1000, "fp64", 0.5, 0.25, 4, 2e-16, 2e-13,
                     1, 1, 2, 3, 400, 30, NULL};
    gemm_csv_row(out, &t);
    /* With C given: c_sum = 1 + 2 + 3 + 4, c_weighted_sum = 1 (1 + 2) +
     * 2 (3 + 4); its transpose would give 1 (1 + 3) + 2 (2 + 4) = 16. */
    const double c[4] = {1, 2, 3, 4};
    gemm_result s = {"tutorial", 2, "fp64", 0.5, 0.25, 4, 0, 2e-16,
                     1, 1, 2, 3, 400, 30, c};
    gemm_csv_row(out, &s);
    fclose(out);
    char *want = strdup(
        "part,n,precision,gemm_ms_median,gemm_ms_min,tflops,rel_error,"
        "tolerance,ok,h2d_ms,d2h_ms,end_to_end_ms,first_gemm_ms,cpu_ms,"
        "c_sum,c_weighted_sum\n"
        "sweep,4096,bf16,1.500000,1.250000,91.625,1.000e-04,8.000e-03,1,"
        ",,,,,,\n"
        "tutorial,1000,fp64,0.500000,0.250000,4.000,2.000e-16,2.000e-13,1,"
        "1.000000,2.000000,3.000000,400.000000,30.000000,,\n"
        "tutorial,2,fp64,0.500000,0.250000,4.000,0.000e+00,2.000e-16,1,"
        "1.000000,2.000000,3.000000,400.000000,30.000000,10,17\n");
    EXPECT_STR(text, want);
    free(want);
    return test_summary();
}
