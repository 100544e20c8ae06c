/* test_04_freivalds.c - the O(n^2) GEMM check of 04_memory passes exact
 * products and catches small wrong ones. */
#include <math.h>

#include "test.h"
#include "random.h"
#include "../04_memory/freivalds.h"

/* C = A B, the textbook loop, for reference. */
static void matmul(const double *a, const double *b, double *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
}

int main(void)
{
    const size_t sizes[] = {1, 7, 64, 129};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
        double *c = malloc(n * n * sizeof *c);
        cm_fill_uniform_f64(a, n * n, 1);
        cm_fill_uniform_f64(b, n * n, 2);
        matmul(a, b, c, n);

        freivalds f;
        freivalds_init(&f, a, b, n, 3);
        size_t row;
        double tol = freivalds_tolerance(n);
        EXPECT(freivalds_error(&f, c, &row) <= tol);

        /* One element wrong in its 7th digit is caught. */
        size_t at = n * n / 2;
        double kept = c[at];
        c[at] *= 1 + 1e-6;
        EXPECT(freivalds_error(&f, c, &row) > tol && row == at / n);
        c[at] = kept;

        /* A GEMM that forgot one term of the inner sum is caught. */
        if (n > 1) {
            c[n + 1] -= a[n + 0] * b[0 * n + 1];
            EXPECT(freivalds_error(&f, c, &row) > 1e3 * tol && row == 1);
            matmul(a, b, c, n);
        }

        /* NaN and infinity never pass. */
        c[n * n - 1] = NAN;
        EXPECT(isinf(freivalds_error(&f, c, &row)) && row == n - 1);
        c[0] = INFINITY;
        EXPECT(isinf(freivalds_error(&f, c, &row)) && row == 0);
        freivalds_free(&f);

        /* Signed data: the scale |A| (|B| |x|) keeps the test fair when
         * terms cancel. */
        for (size_t i = 0; i < n * n; i++) {
            a[i] = a[i] - 0.5;
            b[i] = 0.5 - b[i];
        }
        matmul(a, b, c, n);
        freivalds_init(&f, a, b, n, 4);
        EXPECT(freivalds_error(&f, c, NULL) <= tol);
        freivalds_free(&f);
        free(a);
        free(b);
        free(c);
    }
    EXPECT(freivalds_tolerance(10000) > 8.8e-12 &&
           freivalds_tolerance(10000) < 8.9e-12);
    return test_summary();
}
