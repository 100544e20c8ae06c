/* test_05_task.c - a task's CPU half: the prepared matrices do not depend
 * on how the rows are shared among threads, rows are normalised, and the
 * check passes a true product and names the row of a spoiled one.
 */
#include "../05_hybrid_threads/task.h"
#include "test.h"

#include <math.h>

static task_data make(size_t n)
{
    task_data d;
    d.n = n;
    double **all[9] = {&d.h_a, &d.h_b, &d.h_c, &d.x, &d.y, &d.s, &d.z,
                       &d.bound, &d.ratio};
    for (int i = 0; i < 9; i++)
        *all[i] = calloc(i < 3 ? n * n : n, sizeof(double));
    return d;
}

static void release(task_data *d)
{
    double *all[9] = {d->h_a, d->h_b, d->h_c, d->x, d->y, d->s, d->z,
                      d->bound, d->ratio};
    for (int i = 0; i < 9; i++)
        free(all[i]);
}

static void multiply(task_data *d)
{
    size_t n = d->n;
    memset(d->h_c, 0, n * n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < n; j++)
                d->h_c[i * n + j] += d->h_a[i * n + k] * d->h_b[k * n + j];
}

static int same(const task_data *p, const task_data *q)
{
    size_t nn = p->n * p->n * sizeof(double), nv = p->n * sizeof(double);
    return memcmp(p->h_a, q->h_a, nn) == 0 &&
           memcmp(p->h_b, q->h_b, nn) == 0 && memcmp(p->z, q->z, nv) == 0 &&
           memcmp(p->bound, q->bound, nv) == 0;
}

static void test_task(size_t n, pool *cpu)
{
    char err[512];
    double busy = -1, worst = -1;
    task_data alone = make(n), shared = make(n), other = make(n);
    task_cpu here = {NULL, 1, 0}, seven_slices = {cpu, 7, 0};
    EXPECT(task_prepare(&alone, 42, 3, here, &busy, err, sizeof err) == 0);
    EXPECT(busy >= 0);
    EXPECT(task_prepare(&shared, 42, 3, seven_slices, &busy, err,
                        sizeof err) == 0);
    EXPECT(same(&alone, &shared));               /* bit for bit */
    EXPECT(task_prepare(&other, 42, 4, seven_slices, &busy, err,
                        sizeof err) == 0);
    if (n > 1) {           /* (one element always normalises to 0) */
        EXPECT(memcmp(alone.h_a, other.h_a, n * n * sizeof(double)) != 0);
        EXPECT(memcmp(alone.h_a, alone.h_b, n * n * sizeof(double)) != 0);
    }

    /* every row: mean 0, standard deviation 1 */
    int normalised = 1;
    for (size_t i = 0; n > 1 && i < n; i++) {
        double sum = 0, squares = 0;
        for (size_t j = 0; j < n; j++)
            sum += alone.h_a[i * n + j];
        for (size_t j = 0; j < n; j++)
            squares += pow(alone.h_a[i * n + j] - sum / n, 2);
        normalised &= fabs(sum / n) < 1e-12 &&
                      fabs(sqrt(squares / n) - 1) < 1e-12;
    }
    EXPECT(normalised);

    multiply(&shared);
    task_cpu five_slices = {cpu, 5, 0};
    EXPECT(task_check(&shared, five_slices, &busy, &worst, err,
                      sizeof err) == 0);
    EXPECT(worst < 1.0);
    size_t at = (n / 2) * n + n / 3;
    shared.h_c[at] += 1.0;                       /* what --fail-task does */
    EXPECT(task_check(&shared, five_slices, &busy, &worst, err,
                      sizeof err) == 1);
    EXPECT(worst > 1.0);
    char row[64];
    snprintf(row, sizeof row, "Freivalds check: row %zu of C x", n / 2);
    EXPECT(strncmp(err, row, strlen(row)) == 0);
    EXPECT(strstr(err, "(1 of ") != NULL);
    release(&alone);
    release(&shared);
    release(&other);
}

int main(void)
{
    char err[128];
    pool *cpu = pool_create(3, err, sizeof err);
    test_task(1, cpu);
    test_task(5, cpu);
    test_task(64, cpu);
    test_task(131, cpu);
    EXPECT(task_seed(1, 0, 0) != task_seed(1, 0, 1));
    EXPECT(task_seed(1, 0, 2) != task_seed(1, 1, 0));
    EXPECT(task_seed(1, 2, 1) == task_seed(1, 2, 1));

    /* n = 1: one element has no spread and normalises to 0 */
    task_data one = make(1);
    double busy;
    task_cpu here = {NULL, 1, 0};
    EXPECT(task_prepare(&one, 7, 0, here, &busy, err, sizeof err) == 0);
    EXPECT(one.h_a[0] == 0 && one.h_b[0] == 0);
    release(&one);
    pool_shutdown(cpu, POOL_DRAIN);
    return test_summary();
}
