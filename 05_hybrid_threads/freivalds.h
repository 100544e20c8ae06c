/* freivalds.h - check a product C = A B in O(n^2) work instead of O(n^3)
 * (Freivalds, 1977): for a random vector x, C x must equal A (B x).
 *
 *   freivalds_vector(x, n, seed);                  x_j = +-[0.5, 1)
 *   freivalds_rows(b, n, x, NULL, 0, n, y, s);     y = B x,  s = |B| 1
 *   freivalds_rows(a, n, y, s, 0, n, z, bound);    z = A B x, bound = |A||B| 1
 *   freivalds_check_rows(c, n, x, z, bound, 0, n, ratio);   0 rows failed?
 *
 * Matrices are n x n, row-major. Every function works on a range of rows,
 * so threads can share the rows of one matrix.
 */
#ifndef FREIVALDS_H
#define FREIVALDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Row i of the check may differ by FREIVALDS_SAFETY * n * u * bound_i
 * (u = 2^-53, the unit roundoff); freivalds.c derives it. */
#define FREIVALDS_SAFETY 5.0

/* x_j = +-(0.5 + 0.5 U), U uniform in [0, 1): every |x_j| >= 0.5, so a
 * wrong element moves its row of C x by at least half its error. */
void freivalds_vector(double *x, size_t n, uint64_t seed);

/* dot = row . v and abs_dot = |row| . |v| (|v_j| taken as 1 when v_abs is
 * NULL); abs_dot may be NULL. */
void freivalds_row(const double *row, size_t n, const double *v,
                   const double *v_abs, double *dot, double *abs_dot);

/* freivalds_row for rows [row0, row1) of m, into dot[i] and abs_dot[i]. */
void freivalds_rows(const double *m, size_t n, const double *v,
                    const double *v_abs, size_t row0, size_t row1,
                    double *dot, double *abs_dot);

/* For rows [row0, row1): ratio[i] = |(C x)_i - z_i| / tolerance_i, where
 * z = A (B x) and bound = |A| |B| 1 from freivalds_rows. Returns how many
 * rows have ratio > 1 (or NaN): 0 means C passed on these rows. */
size_t freivalds_check_rows(const double *c, size_t n, const double *x,
                            const double *z, const double *bound,
                            size_t row0, size_t row1, double *ratio);

/* The tolerance of a row with the given bound (n * u * safety * bound). */
double freivalds_tolerance(size_t n, double bound);

/* Largest ratio[i] (NaN counts as infinity); its index in *row. */
double freivalds_worst(const double *ratio, size_t n, size_t *row);

#ifdef __cplusplus
}
#endif

#endif /* FREIVALDS_H */
