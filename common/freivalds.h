/* freivalds.h - check a product C = A B in O(n^2) work instead of O(n^3)
 * (Freivalds, 1977): for a random vector x, C x must equal A (B x).
 *
 *   cm_freivalds_ref f;                    one thread, whole matrices:
 *   cm_freivalds_prepare(&f, h_a, h_b, n, seed);      x, A (B x), bounds
 *   double worst = cm_freivalds_check(&f, h_c, &row); <= 1 passes
 *   cm_freivalds_release(&f);
 *
 * Matrices are n x n, row-major. The row-range functions below let threads
 * share one matrix (chapter 05): y = B x and s = |B| 1 by cm_freivalds_rows
 * (b, n, x, NULL, ...), z = A y and bound = |A| s by cm_freivalds_rows(a, n,
 * y, s, ...), then cm_freivalds_check_rows(c, ...) counts failed rows.
 */
#ifndef CM_FREIVALDS_H
#define CM_FREIVALDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Row i of the check may differ by CM_FREIVALDS_SAFETY * n * u * bound_i
 * (u = 2^-53, the unit roundoff); freivalds.c derives it. */
#define CM_FREIVALDS_SAFETY 5.0

/* x_j = +-(0.5 + 0.5 U), U uniform in [0, 1): every |x_j| >= 0.5, so a
 * wrong element moves its row of C x by at least half its error. */
void cm_freivalds_vector(double *x, size_t n, uint64_t seed);

/* dot = row . v and abs_dot = |row| . |v| (|v_j| taken as 1 when v_abs is
 * NULL); abs_dot may be NULL. */
void cm_freivalds_row(const double *row, size_t n, const double *v,
                   const double *v_abs, double *dot, double *abs_dot);

/* cm_freivalds_row for rows [row0, row1) of m, into dot[i] and abs_dot[i]. */
void cm_freivalds_rows(const double *m, size_t n, const double *v,
                    const double *v_abs, size_t row0, size_t row1,
                    double *dot, double *abs_dot);

/* For rows [row0, row1): ratio[i] = |(C x)_i - z_i| / tolerance_i, where
 * z = A (B x) and bound = |A| |B| 1 from cm_freivalds_rows. Returns how many
 * rows have ratio > 1 (or NaN): 0 means C passed on these rows. */
size_t cm_freivalds_check_rows(const double *c, size_t n, const double *x,
                            const double *z, const double *bound,
                            size_t row0, size_t row1, double *ratio);

/* The tolerance of a row with the given bound (n * u * safety * bound). */
double cm_freivalds_tolerance(size_t n, double bound);

/* Largest ratio[i] (NaN counts as infinity); its index in *row. */
double cm_freivalds_worst(const double *ratio, size_t n, size_t *row);

/* The whole check on one thread, for callers that need no row ranges. */
typedef struct {
    size_t n;
    double *x, *z, *bound, *ratio;   /* each n doubles */
} cm_freivalds_ref;

/* Draws x, computes z = A (B x) and the per-row bounds: 2 n^2
 * multiply-adds. Exits 1 if the host memory is not there. */
void cm_freivalds_prepare(cm_freivalds_ref *f, const double *a,
                          const double *b, size_t n, uint64_t seed);

/* The largest |(C x)_i - z_i| / tolerance_i (NaN and infinity count as
 * infinite); C passes when it is <= 1. *worst_row (may be NULL) gets the
 * row. n^2 multiply-adds. */
double cm_freivalds_check(const cm_freivalds_ref *f, const double *c,
                          size_t *worst_row);

void cm_freivalds_release(cm_freivalds_ref *f);

#ifdef __cplusplus
}
#endif

#endif /* CM_FREIVALDS_H */
