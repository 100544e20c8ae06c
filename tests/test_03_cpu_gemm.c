/* test_03_cpu_gemm.c - the blocked, threaded CPU GEMM of chapter 03 against
 * a naive triple loop, on sizes that cut every block (register, cache and
 * thread band) somewhere in the middle. */
#include <math.h>
#include <stdint.h>

#include "../03_matmul/cpu_gemm.h"
#include "random.h"
#include "test.h"

/* The definition: c[i][j] = sum over p of a[i][p] * b[p][j]. */
static void naive_gemm(size_t m, size_t n, size_t k, const double *a,
                       const double *b, double *c)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double sum = 0;
            for (size_t p = 0; p < k; p++)
                sum += a[i * k + p] * b[p * n + j];
            c[i * n + j] = sum;
        }
}

/* Values in [-1, 1), so cancellation happens as it does in real data. */
static double *random_matrix(size_t count, uint64_t seed)
{
    double *x = malloc((count ? count : 1) * sizeof *x);
    cm_fill_uniform_f64(x, count, seed);
    for (size_t i = 0; i < count; i++)
        x[i] = 2 * x[i] - 1;
    return x;
}

/* Both results differ from the exact one by at most k u sum|a||b| per
 * element (any summation order), so we compare against that bound. */
static int matches(size_t m, size_t n, size_t k, int threads)
{
    double *a = random_matrix(m * k, 1 + m), *b = random_matrix(k * n, 2 + n);
    size_t len = m * n > 0 ? m * n : 1;
    double *c = malloc(len * sizeof *c), *ref = malloc(len * sizeof *ref);
    for (size_t i = 0; i < m * n; i++)
        c[i] = NAN;   /* cpu_gemm must overwrite every element */
    naive_gemm(m, n, k, a, b, ref);
    int used = cpu_gemm(m, n, k, a, b, c, threads);
    int ok = used >= 1 && used <= (threads > 0 ? threads : 1);
    for (size_t i = 0; ok && i < m; i++)
        for (size_t j = 0; ok && j < n; j++) {
            double bound = 0;
            for (size_t p = 0; p < k; p++)
                bound += fabs(a[i * k + p] * b[p * n + j]);
            bound *= 2.0 * (double)(k + 1) * 0x1.0p-53;
            if (!(fabs(c[i * n + j] - ref[i * n + j]) <= bound)) {
                fprintf(stderr, "m=%zu n=%zu k=%zu threads=%d: c[%zu][%zu]"
                        " = %.17g, naive %.17g\n", m, n, k, threads, i, j,
                        c[i * n + j], ref[i * n + j]);
                ok = 0;
            }
        }
    free(a);
    free(b);
    free(c);
    free(ref);
    return ok;
}

int main(void)
{
    EXPECT(cpu_gemm_max_threads() >= 1);

    /* Square, odd sizes: 1 and 7 fit in one register block, 33 and 100 cut
     * it, 257 crosses the KC = 256 cache block by one. */
    const size_t sizes[] = {1, 7, 33, 100, 257};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        EXPECT(matches(sizes[s], sizes[s], sizes[s], 1));
        EXPECT(matches(sizes[s], sizes[s], sizes[s], 4));
    }

    /* Non-square: tall (split by rows), wide (split by columns), deep and
     * shallow k. */
    EXPECT(matches(129, 5, 17, 3));
    EXPECT(matches(3, 300, 70, 3));
    EXPECT(matches(8, 2100, 40, 7));    /* crosses NC = 2048 columns */
    EXPECT(matches(9, 11, 600, 2));     /* three KC blocks of k */
    EXPECT(matches(150, 140, 1, 5));
    EXPECT(matches(300, 20, 20, 16));   /* more threads than row bands */

    /* k = 0: the empty sum, so C must be all zeros, not left as it was. */
    double c[6] = {1, 2, 3, 4, 5, 6}, zeros[6] = {0};
    double a_dummy = 0, b_dummy = 0;
    EXPECT(cpu_gemm(2, 3, 0, &a_dummy, &b_dummy, c, 2) >= 1);
    EXPECT(memcmp(c, zeros, sizeof c) == 0);

    /* Nothing to compute: succeeds without touching anything. */
    EXPECT(cpu_gemm(0, 5, 5, NULL, NULL, NULL, 4) == 1);
    EXPECT(cpu_gemm(5, 0, 5, NULL, NULL, NULL, 4) == 1);

    /* Threads asked for <= 0 means one. */
    EXPECT(matches(20, 20, 20, 0));
    return test_summary();
}
