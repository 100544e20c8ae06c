/* freivalds.c - Freivalds' O(n^2) check of a matrix product, with a
 * tolerance that rounding can never exceed.
 *
 * Why the tolerance holds. Any sum of n products computed in floating
 * point, in any order and with or without FMA, is within gamma_n = n u /
 * (1 - n u) of the exact sum, relative to the sum of the products' absolute
 * values (Higham, "Accuracy and Stability", 3.1). Applied four times:
 *   GEMM:      |C - AB|          <= gamma_n |A||B|
 *   w = C x:   |w - Cx|          <= gamma_n |C||x|  ~ gamma_n |A||B||x|
 *   y = B x:   |A(y - Bx)|       <= gamma_n |A||B||x|
 *   z = A y:   |z - Ay|          <= gamma_n |A||y|  ~ gamma_n |A||B||x|
 * so |w - z| <= 4 gamma_n |A||B||x| <= 4 gamma_n |A||B| 1 (as |x_j| <= 1),
 * up to terms of order gamma_n^2. We allow CM_FREIVALDS_SAFETY = 5 for those
 * and for the rounding of the bound itself: a correct C never fails, and a
 * wrong element fails as soon as its error passes ~10 n u |A||B| 1, far
 * below the size of the elements themselves.
 */
#include "freivalds.h"
#include "alloc.h"
#include "random.h"

#include <stdlib.h>

#include <float.h>
#include <math.h>

void cm_freivalds_vector(double *x, size_t n, uint64_t seed)
{
    cm_rng rng = cm_rng_seed(seed);
    for (size_t j = 0; j < n; j++) {
        uint64_t bits = cm_rng_next(&rng);
        double magnitude = 0.5 + 0.5 * (double)(bits >> 11) * 0x1.0p-53;
        x[j] = (bits & 1) ? -magnitude : magnitude;
    }
}

/* Four partial sums instead of one: the additions of a single running sum
 * wait on each other, four independent ones keep the FPU busy. The order
 * of summation is fixed, so the result is the same on every run. Both
 * sums are taken in one pass over the row. */
void cm_freivalds_row(const double *row, size_t n, const double *v,
                   const double *v_abs, double *dot, double *abs_dot)
{
    double d[4] = {0, 0, 0, 0}, a[4] = {0, 0, 0, 0};
    size_t j, body = n - n % 4;
    if (v_abs) {
        for (j = 0; j < body; j += 4)
            for (int k = 0; k < 4; k++) {
                d[k] += row[j + k] * v[j + k];
                a[k] += fabs(row[j + k]) * v_abs[j + k];
            }
    } else {                            /* |v_j| <= 1: the sum of |row| */
        for (j = 0; j < body; j += 4)
            for (int k = 0; k < 4; k++) {
                d[k] += row[j + k] * v[j + k];
                a[k] += fabs(row[j + k]);
            }
    }
    for (j = body; j < n; j++) {
        d[0] += row[j] * v[j];
        a[0] += fabs(row[j]) * (v_abs ? v_abs[j] : 1.0);
    }
    *dot = (d[0] + d[1]) + (d[2] + d[3]);
    if (abs_dot)
        *abs_dot = (a[0] + a[1]) + (a[2] + a[3]);
}

void cm_freivalds_rows(const double *m, size_t n, const double *v,
                    const double *v_abs, size_t row0, size_t row1,
                    double *dot, double *abs_dot)
{
    for (size_t i = row0; i < row1; i++)
        cm_freivalds_row(m + i * n, n, v, v_abs, &dot[i],
                      abs_dot ? &abs_dot[i] : NULL);
}

double cm_freivalds_tolerance(size_t n, double bound)
{
    const double unit_roundoff = DBL_EPSILON / 2;     /* 2^-53 */
    return CM_FREIVALDS_SAFETY * (double)n * unit_roundoff * bound;
}

size_t cm_freivalds_check_rows(const double *c, size_t n, const double *x,
                            const double *z, const double *bound,
                            size_t row0, size_t row1, double *ratio)
{
    size_t failed = 0;
    for (size_t i = row0; i < row1; i++) {
        double w;
        cm_freivalds_row(c + i * n, n, x, NULL, &w, NULL);
        double diff = fabs(w - z[i]);
        double tolerance = cm_freivalds_tolerance(n, bound[i]);
        /* A zero row of A gives an exactly zero row of C: tolerance 0. */
        ratio[i] = tolerance > 0 ? diff / tolerance
                                 : (diff == 0 ? 0 : INFINITY);
        if (!(ratio[i] <= 1.0))             /* also true for NaN */
            failed++;
    }
    return failed;
}

double cm_freivalds_worst(const double *ratio, size_t n, size_t *row)
{
    double worst = 0;
    size_t worst_row = 0;
    for (size_t i = 0; i < n; i++) {
        double r = isnan(ratio[i]) ? INFINITY : ratio[i];
        if (r > worst) {
            worst = r;
            worst_row = i;
        }
    }
    if (row)
        *row = worst_row;
    return worst;
}

void cm_freivalds_prepare(cm_freivalds_ref *f, const double *a,
                          const double *b, size_t n, uint64_t seed)
{
    size_t bytes = cm_mul_size(n, sizeof(double), "Freivalds vectors");
    double *y = cm_host_alloc(bytes, "Freivalds' B x");
    double *s = cm_host_alloc(bytes, "Freivalds' |B| 1");
    f->n = n;
    f->x = cm_host_alloc(bytes, "Freivalds' x");
    f->z = cm_host_alloc(bytes, "Freivalds' A (B x)");
    f->bound = cm_host_alloc(bytes, "Freivalds' bounds");
    f->ratio = cm_host_alloc(bytes, "Freivalds' ratios");
    cm_freivalds_vector(f->x, n, seed);
    cm_freivalds_rows(b, n, f->x, NULL, 0, n, y, s);
    cm_freivalds_rows(a, n, y, s, 0, n, f->z, f->bound);
    free(y);
    free(s);
}

double cm_freivalds_check(const cm_freivalds_ref *f, const double *c,
                          size_t *worst_row)
{
    cm_freivalds_check_rows(c, f->n, f->x, f->z, f->bound, 0, f->n,
                            f->ratio);
    return cm_freivalds_worst(f->ratio, f->n, worst_row);
}

void cm_freivalds_release(cm_freivalds_ref *f)
{
    free(f->x);
    free(f->z);
    free(f->bound);
    free(f->ratio);
    f->x = f->z = f->bound = f->ratio = NULL;
}
