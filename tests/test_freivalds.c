/* test_freivalds.c - Freivalds' check passes a correct product (however
 * it was summed), catches one element off, a transposed product and a
 * single-precision one, and is deterministic.
 */
#include "freivalds.h"
#include "random.h"
#include "test.h"

#include <math.h>

/* z = A (B x), bound = |A||B| 1, as the chapter computes them. */
typedef struct {
    size_t n;
    double *a, *b, *c, *x, *y, *s, *z, *bound, *ratio;
} problem;

static problem make(size_t n, uint64_t seed)
{
    problem p;
    p.n = n;
    double **all[9] = {&p.a, &p.b, &p.c, &p.x, &p.y, &p.s, &p.z, &p.bound,
                       &p.ratio};
    for (int i = 0; i < 9; i++)
        *all[i] = calloc(i < 3 ? n * n : n, sizeof(double));
    cm_fill_uniform_f64(p.a, n * n, seed);
    cm_fill_uniform_f64(p.b, n * n, seed + 1);
    for (size_t i = 0; i < n * n; i++) {   /* centred, like the chapter's */
        p.a[i] = 2 * p.a[i] - 1;
        p.b[i] = 2 * p.b[i] - 1;
    }
    cm_freivalds_vector(p.x, n, seed + 2);
    cm_freivalds_rows(p.b, n, p.x, NULL, 0, n, p.y, p.s);
    cm_freivalds_rows(p.a, n, p.y, p.s, 0, n, p.z, p.bound);
    return p;
}

static void release(problem *p)
{
    double *all[9] = {p->a, p->b, p->c, p->x, p->y, p->s, p->z, p->bound,
                      p->ratio};
    for (int i = 0; i < 9; i++)
        free(all[i]);
}

/* C = A B, summing k upwards or downwards: two honest orders. */
static void multiply(problem *p, int downwards)
{
    size_t n = p->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double sum = 0;
            for (size_t t = 0; t < n; t++) {
                size_t k = downwards ? n - 1 - t : t;
                sum += p->a[i * n + k] * p->b[k * n + j];
            }
            p->c[i * n + j] = sum;
        }
}

static size_t check(problem *p)
{
    return cm_freivalds_check_rows(p->c, p->n, p->x, p->z, p->bound, 0, p->n,
                                p->ratio);
}

static void test_correct_and_spoiled(size_t n)
{
    problem p = make(n, 7 + n);
    multiply(&p, 0);
    EXPECT(check(&p) == 0);
    EXPECT(cm_freivalds_worst(p.ratio, n, NULL) < 1.0);
    multiply(&p, 1);
    EXPECT(check(&p) == 0);

    /* One element off, at the first, a middle and the last place. The
     * error is 4x the row's tolerance: caught, and in that row only. */
    size_t places[3] = {0, (n / 2) * n + n / 3, n * n - 1};
    for (int i = 0; i < 3; i++) {
        size_t at = places[i], row = at / n;
        double saved = p.c[at];
        p.c[at] += 4 * cm_freivalds_tolerance(n, p.bound[row]) /
                   fabs(p.x[at % n]);
        size_t worst_row = n;
        EXPECT(check(&p) == 1);
        EXPECT(cm_freivalds_worst(p.ratio, n, &worst_row) > 1.0);
        EXPECT(worst_row == row);
        p.c[at] = saved;
    }
    EXPECT(check(&p) == 0);

    p.c[n * n / 2] = NAN;                   /* NaN never passes */
    EXPECT(check(&p) == 1);
    EXPECT(isinf(cm_freivalds_worst(p.ratio, n, NULL)));
    release(&p);
}

static void test_wrong_products(size_t n)
{
    problem p = make(n, 99);
    /* B A instead of A B: the classic transposition slip */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += p.b[i * n + k] * p.a[k * n + j];
            p.c[i * n + j] = sum;
        }
    EXPECT(check(&p) > 0);
    /* summed in float: ~1e-7 relative, far outside a float64 tolerance */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            float sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += (float)p.a[i * n + k] * (float)p.b[k * n + j];
            p.c[i * n + j] = sum;
        }
    EXPECT(check(&p) > 0);
    release(&p);
}

int main(void)
{
    /* x: |x_j| in [0.5, 1], both signs, the same for the same seed */
    double x1[64], x2[64], x3[64];
    cm_freivalds_vector(x1, 64, 5);
    cm_freivalds_vector(x2, 64, 5);
    cm_freivalds_vector(x3, 64, 6);
    int in_range = 1, negatives = 0;
    for (int j = 0; j < 64; j++) {
        in_range &= fabs(x1[j]) >= 0.5 && fabs(x1[j]) <= 1.0;
        negatives += x1[j] < 0;
    }
    EXPECT(in_range);
    EXPECT(negatives > 0 && negatives < 64);
    EXPECT(memcmp(x1, x2, sizeof x1) == 0);
    EXPECT(memcmp(x1, x3, sizeof x1) != 0);

    /* dot and abs_dot of one row, by hand */
    double row[5] = {1, -2, 3, -4, 5}, v[5] = {1, 1, -1, 0.5, 2};
    double v_abs[5] = {1, 1, 1, 0.5, 2}, dot, abs_dot;
    cm_freivalds_row(row, 5, v, v_abs, &dot, &abs_dot);
    EXPECT(dot == 1 - 2 - 3 - 2 + 10);
    EXPECT(abs_dot == 1 + 2 + 3 + 2 + 10);
    cm_freivalds_row(row, 5, v, NULL, &dot, &abs_dot);
    EXPECT(abs_dot == 15);

    test_correct_and_spoiled(1);
    test_correct_and_spoiled(7);       /* not a multiple of 4 */
    test_correct_and_spoiled(64);
    test_correct_and_spoiled(203);
    test_wrong_products(50);

    /* a zero row of A gives a zero row of C: tolerance 0, still passes */
    problem p = make(8, 3);
    memset(p.a, 0, 8 * sizeof(double));
    cm_freivalds_rows(p.a, 8, p.y, p.s, 0, 8, p.z, p.bound);
    multiply(&p, 0);
    EXPECT(p.bound[0] == 0);
    EXPECT(check(&p) == 0);
    p.c[3] = 1e-300;                   /* anything at all there is wrong */
    EXPECT(check(&p) == 1);
    release(&p);

    /* The one-call form gives the same verdicts: a correct C passes, one
     * element off by a little more than its row allows fails there. */
    problem w = make(37, 21);
    multiply(&w, 1);
    cm_freivalds_ref ref;
    cm_freivalds_prepare(&ref, w.a, w.b, 37, 21 + 2);
    size_t worst_row = 99;
    EXPECT(cm_freivalds_check(&ref, w.c, &worst_row) <= 1.0);
    EXPECT(memcmp(ref.x, w.x, 37 * sizeof(double)) == 0);
    w.c[5 * 37 + 9] += 4 * cm_freivalds_tolerance(37, ref.bound[5]);
    EXPECT(cm_freivalds_check(&ref, w.c, &worst_row) > 1.0);
    EXPECT(worst_row == 5);
    w.c[5 * 37 + 9] = NAN;
    EXPECT(isinf(cm_freivalds_check(&ref, w.c, NULL)));
    cm_freivalds_release(&ref);
    release(&w);

    /* deterministic: the same inputs give the same ratios, bit for bit */
    problem q1 = make(40, 11), q2 = make(40, 11);
    multiply(&q1, 0);
    multiply(&q2, 0);
    check(&q1);
    check(&q2);
    EXPECT(memcmp(q1.ratio, q2.ratio, 40 * sizeof(double)) == 0);
    release(&q1);
    release(&q2);
    return test_summary();
}
