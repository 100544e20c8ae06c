/* freivalds.h - check a GEMM result on the CPU in O(n^2), not O(n^3).
 *
 *   freivalds f;
 *   freivalds_init(&f, h_a, h_b, n, 7);      x random, A (B x) computed
 *   double err = freivalds_error(&f, h_c, &row);
 *   ok = err <= freivalds_tolerance(n);
 *   freivalds_free(&f);
 *
 * Freivalds' idea: if C = A B then C x = A (B x) for every vector x, and
 * the right side costs two matrix-vector products. A wrong C passes only
 * if its error happens to be orthogonal to a random x. All n x n row-major.
 */
#ifndef FREIVALDS_H
#define FREIVALDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t n;
    double *x;      /* random, uniform in [0, 1) */
    double *abx;    /* A (B x) */
    double *scale;  /* |A| (|B| |x|): what each row's rounding scales with */
} freivalds;

/* Draws x from seed and computes A (B x): 2 n^2 multiply-adds. */
void freivalds_init(freivalds *f, const double *a, const double *b, size_t n,
                    uint64_t seed);

/* max over rows i of |(C x)_i - (A (B x))_i| / scale_i, INFINITY for a NaN
 * or infinity; *worst_row (may be NULL) gets that row. n^2 multiply-adds. */
double freivalds_error(const freivalds *f, const double *c,
                       size_t *worst_row);

/* Rounding allows each row an error of about 4 n u scale_i (u = 2^-53):
 * n u each from the GEMM, C x, B x and A (B x). We allow twice that,
 * 4 n DBL_EPSILON, so no rounding pattern can fail a correct C. */
double freivalds_tolerance(size_t n);

void freivalds_free(freivalds *f);

#ifdef __cplusplus
}
#endif

#endif /* FREIVALDS_H */
