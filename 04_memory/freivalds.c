/* freivalds.c - Freivalds' check of C = A B on the CPU. */
#include "freivalds.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "alloc.h"
#include "random.h"

/* y = M v and y_abs = |M| |v| for a row-major n x n M: each row is a dot
 * product over contiguous memory, so this runs at memory speed. */
static void matvec(const double *m, const double *v, const double *v_abs,
                   size_t n, double *y, double *y_abs)
{
    for (size_t i = 0; i < n; i++) {
        const double *row = m + i * n;
        double sum = 0, sum_abs = 0;
        for (size_t j = 0; j < n; j++) {
            sum += row[j] * v[j];
            sum_abs += fabs(row[j]) * v_abs[j];
        }
        y[i] = sum;
        y_abs[i] = sum_abs;
    }
}

void freivalds_init(freivalds *f, const double *a, const double *b, size_t n,
                    uint64_t seed)
{
    size_t bytes = cm_mul_size(n, sizeof(double), "Freivalds vector");
    f->n = n;
    f->x = cm_host_alloc(bytes, "Freivalds x");
    f->abx = cm_host_alloc(bytes, "Freivalds A (B x)");
    f->scale = cm_host_alloc(bytes, "Freivalds scale");
    double *bx = cm_host_alloc(bytes, "Freivalds B x");
    double *bx_abs = cm_host_alloc(bytes, "Freivalds |B| |x|");

    /* x >= 0, so |x| = x. */
    cm_rng rng = cm_rng_seed(seed);
    for (size_t i = 0; i < n; i++)
        f->x[i] = cm_rng_uniform(&rng);
    matvec(b, f->x, f->x, n, bx, bx_abs);
    matvec(a, bx, bx_abs, n, f->abx, f->scale);
    free(bx);
    free(bx_abs);
}

double freivalds_error(const freivalds *f, const double *c,
                       size_t *worst_row)
{
    double worst = 0;
    size_t worst_i = 0;
    for (size_t i = 0; i < f->n; i++) {
        const double *row = c + i * f->n;
        double cx = 0;
        for (size_t j = 0; j < f->n; j++)
            cx += row[j] * f->x[j];
        double diff = fabs(cx - f->abx[i]);
        /* A zero scale means a zero row of A: C's row must then be 0. */
        double err = f->scale[i] > 0 ? diff / f->scale[i]
                                     : (diff == 0 ? 0 : INFINITY);
        if (isnan(err))
            err = INFINITY;
        if (err > worst || (i == 0 && err == INFINITY)) {
            worst = err;
            worst_i = i;
            if (isinf(err))
                break;
        }
    }
    if (worst_row)
        *worst_row = worst_i;
    return worst;
}

double freivalds_tolerance(size_t n)
{
    return 4.0 * (double)n * DBL_EPSILON;
}

void freivalds_free(freivalds *f)
{
    free(f->x);
    free(f->abx);
    free(f->scale);
    f->x = f->abx = f->scale = NULL;
}
