/* verify.h - compare results with a reference and end with one verdict line.
 *
 *   cm_verdict v = {0};
 *   cm_check_rel(&v, "C vs CPU GEMM", h_c, CM_FLOAT64, h_ref, CM_FLOAT64,
 *                n * n, 1e-12);      prints "check C vs CPU GEMM: ... ok"
 *   cm_check_equal(&v, "round trip", h_back, h_src, CM_FLOAT64, n);
 *   return cm_verdict_report(&v);    prints "PASS (2 checks)" or "FAIL: ..."
 *
 * A verdict with no checks is a FAIL: nothing prints PASS unchecked.
 */
#ifndef CM_VERIFY_H
#define CM_VERIFY_H

#include <stddef.h>
#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int checks;
    int failures;
    char first_failure[512];  /* the verdict line of the first failure */
} cm_verdict;

/* ||out - ref||_2 / ||ref||_2 over n elements of any float or int dtype,
 * accumulated in double. If ref is all zeros, ||out||_2. Any NaN or
 * infinity in out gives INFINITY. *worst (may be NULL) receives the index
 * of the largest absolute difference. */
double cm_rel_error(const void *out, cm_dtype out_type, const void *ref,
                    cm_dtype ref_type, size_t n, size_t *worst);

/* max |out - ref| (INFINITY if any element is NaN or infinite). */
double cm_max_abs_error(const void *out, cm_dtype out_type, const void *ref,
                        cm_dtype ref_type, size_t n, size_t *worst);

/* Index of the first element whose bytes differ, or n if all are equal. */
size_t cm_first_mismatch(const void *a, const void *b, cm_dtype dtype,
                         size_t n);

/* Checks: each prints one "check ..." line and records a failure. All
 * return 1 when the check passed, 0 when it failed. */
int cm_check_rel(cm_verdict *v, const char *what, const void *out,
                 cm_dtype out_type, const void *ref, cm_dtype ref_type,
                 size_t n, double tolerance);
int cm_check_equal(cm_verdict *v, const char *what, const void *out,
                   const void *ref, cm_dtype dtype, size_t n);
int cm_check_value(cm_verdict *v, const char *what, double got,
                   double expected, double tolerance);
/* A condition the caller evaluated; detail says what was seen. */
int cm_check_true(cm_verdict *v, const char *what, int ok,
                  const char *detail);

/* Prints "PASS (N checks)" or the first failure's "FAIL: ..." line (and how
 * many failed) and returns the exit status: 0 for PASS, 1 for FAIL. */
int cm_verdict_report(const cm_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* CM_VERIFY_H */
