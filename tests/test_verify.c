/* test_verify.c - error norms, exact compares and verdicts. */
#include <math.h>

#include "test.h"
#include "verify.h"

int main(void)
{
    double ref[4] = {3, 0, 4, 0};  /* ||ref|| = 5 */
    double out[4] = {3, 0, 4, 0};
    size_t worst;
    EXPECT(cm_rel_error(out, CM_FLOAT64, ref, CM_FLOAT64, 4, NULL) == 0);

    out[2] = 4.5;  /* ||diff|| = 0.5 -> 0.1 */
    EXPECT(fabs(cm_rel_error(out, CM_FLOAT64, ref, CM_FLOAT64, 4, &worst) -
                0.1) < 1e-15);
    EXPECT(worst == 2);
    EXPECT(cm_max_abs_error(out, CM_FLOAT64, ref, CM_FLOAT64, 4, &worst) ==
           0.5 && worst == 2);

    /* Mixed dtypes: a float32 result against a float64 reference. */
    float out32[4] = {3, 0, 4, 0};
    EXPECT(cm_rel_error(out32, CM_FLOAT32, ref, CM_FLOAT64, 4, NULL) == 0);

    /* NaN and infinity never pass. */
    out[1] = NAN;
    EXPECT(isinf(cm_rel_error(out, CM_FLOAT64, ref, CM_FLOAT64, 4, &worst)));
    EXPECT(worst == 1);
    EXPECT(isinf(cm_max_abs_error(out, CM_FLOAT64, ref, CM_FLOAT64, 4,
                                  NULL)));
    out[1] = INFINITY;
    EXPECT(isinf(cm_rel_error(out, CM_FLOAT64, ref, CM_FLOAT64, 4, NULL)));

    /* A zero reference falls back to the absolute norm. */
    double zeros[2] = {0, 0}, small[2] = {3e-3, 4e-3};
    EXPECT(fabs(cm_rel_error(small, CM_FLOAT64, zeros, CM_FLOAT64, 2, NULL) -
                5e-3) < 1e-15);

    /* Exact compare finds the first differing element, bit for bit:
     * -0.0 == 0.0 numerically but not in bits, which is what a round trip
     * must preserve. */
    double a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 4, 5};
    EXPECT(cm_first_mismatch(a, b, CM_FLOAT64, 5) == 5);
    b[3] = 4.0000000000000009;
    EXPECT(cm_first_mismatch(a, b, CM_FLOAT64, 5) == 3);
    double pz = 0.0, nz = -0.0;
    EXPECT(cm_first_mismatch(&pz, &nz, CM_FLOAT64, 1) == 0);
    /* Across the block boundary of the fast path. */
    size_t big = 200000;
    unsigned char *x = calloc(big, 1), *y = calloc(big, 1);
    y[150001] = 9;
    EXPECT(cm_first_mismatch(x, y, CM_UINT8, big) == 150001);
    free(x);
    free(y);

    /* Verdicts: nothing checked is a FAIL. */
    cm_verdict v = {0};
    EXPECT(cm_verdict_report(&v) == 1);

    EXPECT(cm_check_rel(&v, "ok case", ref, CM_FLOAT64, ref, CM_FLOAT64, 4,
                        1e-12) == 1);
    EXPECT(cm_check_value(&v, "sum", 10.0, 10.0 + 1e-13, 1e-12) == 1);
    EXPECT(cm_check_true(&v, "flag", 1, "set") == 1);
    EXPECT(cm_check_equal(&v, "copy", a, a, CM_FLOAT64, 5) == 1);
    EXPECT(v.checks == 4 && v.failures == 0);
    EXPECT(cm_verdict_report(&v) == 0);

    EXPECT(cm_check_equal(&v, "round trip", b, a, CM_FLOAT64, 5) == 0);
    EXPECT(strcmp(v.first_failure, "FAIL: round trip element 3, got "
                  "4.0000000000000009, expected 4 (tolerance 0, exact)")
           == 0);
    double c[4] = {3, 0, 4.5, 0};
    EXPECT(cm_check_rel(&v, "C", c, CM_FLOAT64, ref, CM_FLOAT64, 4, 1e-3)
           == 0);
    EXPECT(cm_check_value(&v, "sum", 10.0, 11.0, 0.5) == 0);
    double nan_out[4] = {3, NAN, 4, 0};
    EXPECT(cm_check_rel(&v, "nan", nan_out, CM_FLOAT64, ref, CM_FLOAT64, 4,
                        1e300) == 0);
    EXPECT(v.failures == 4 && v.checks == 8);
    /* The first failure is the one reported. */
    EXPECT(strncmp(v.first_failure, "FAIL: round trip", 16) == 0);
    EXPECT(cm_verdict_report(&v) == 1);

    cm_verdict w = {0};
    cm_check_rel(&w, "C", c, CM_FLOAT64, ref, CM_FLOAT64, 4, 1e-3);
    EXPECT(strcmp(w.first_failure, "FAIL: C relative error, got 1.000e-01, "
                  "expected 0 (tolerance 1.0e-03); worst element 2: got "
                  "4.5, expected 4") == 0);
    return test_summary();
}
