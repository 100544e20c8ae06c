/* task.c - preparing a task's inputs on the CPU and checking its result. */
#include "task.h"
#include "freivalds.h"

#include <math.h>
#include <stdio.h>

static const uint64_t GOLDEN_GAMMA = 0x9e3779b97f4a7c15ULL;

/* SplitMix64's finaliser: a counter in, 64 well-mixed bits out. Hashing
 * (row key + column) instead of stepping one generator is what lets any
 * thread make any row on its own. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t task_seed(uint64_t base, int task, int which)
{
    return mix64(base + GOLDEN_GAMMA * (3 * (uint64_t)task +
                                        (uint64_t)which + 1));
}

/* One row: uniform samples in [0, 1) from xoshiro256+ (its state seeded
 * from the row's own key), shifted and scaled to mean 0 and standard
 * deviation 1. Two passes (mean, then squared deviations) are more
 * accurate than one of sum and sum of squares, and cheap: the row is
 * still in the cache. Four partial sums keep the additions independent. */
static void make_row(double *row, size_t n, uint64_t key)
{
    uint64_t s0 = mix64(key), s1 = mix64(key + GOLDEN_GAMMA);
    uint64_t s2 = mix64(key + 2 * GOLDEN_GAMMA);
    uint64_t s3 = mix64(key + 3 * GOLDEN_GAMMA);
    for (size_t j = 0; j < n; j++) {
        uint64_t bits = s0 + s3, t = s1 << 17;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 45);
        /* The top 53 bits. Converted as a signed integer it is one
         * instruction; as an unsigned one, several. */
        row[j] = (double)(int64_t)(bits >> 11) * 0x1.0p-53;
    }
    double sum[4] = {0, 0, 0, 0}, squares[4] = {0, 0, 0, 0};
    size_t j = 0, body = n - n % 4;
    for (; j < body; j += 4)
        for (int k = 0; k < 4; k++)
            sum[k] += row[j + k];
    for (; j < n; j++)
        sum[0] += row[j];
    double mean = ((sum[0] + sum[1]) + (sum[2] + sum[3])) / (double)n;
    for (j = 0; j < body; j += 4)
        for (int k = 0; k < 4; k++)
            squares[k] += (row[j + k] - mean) * (row[j + k] - mean);
    for (; j < n; j++)
        squares[0] += (row[j] - mean) * (row[j] - mean);
    double variance = ((squares[0] + squares[1]) +
                       (squares[2] + squares[3])) / (double)n;
    /* A row of one element has no spread: it normalises to 0. */
    double scale = variance > 0 ? 1.0 / sqrt(variance) : 0.0;
    for (j = 0; j < n; j++)
        row[j] = (row[j] - mean) * scale;
}

void prep_rows(double *m, size_t n, uint64_t seed, size_t row0, size_t row1,
               const double *v, const double *v_abs, double *dot,
               double *abs_dot)
{
    for (size_t i = row0; i < row1; i++) {
        double *row = m + i * n;
        make_row(row, n, mix64(seed + GOLDEN_GAMMA * (i + 1)));
        cm_freivalds_row(row, n, v, v_abs, &dot[i], &abs_dot[i]);
    }
}

/* What one slice of rows needs; pool_parallel_for passes the range. */
typedef struct {
    task_data *d;
    uint64_t seed;
    int matrix;                 /* 0: A, 1: B */
} prep_job;

static void prep_slice(void *arg, size_t row0, size_t row1)
{
    prep_job *job = arg;
    task_data *d = job->d;
    if (job->matrix == 1)       /* B, with y = B x and s = |B| 1 */
        prep_rows(d->h_b, d->n, job->seed, row0, row1, d->x, NULL, d->y,
                  d->s);
    else                        /* A, with z = A y and bound = |A| s */
        prep_rows(d->h_a, d->n, job->seed, row0, row1, d->y, d->s, d->z,
                  d->bound);
}

int task_prepare(task_data *d, uint64_t seed, int task, task_cpu on,
                 double *busy_ms, char *err, size_t err_len)
{
    double b_ms = 0, a_ms = 0;
    cm_freivalds_vector(d->x, d->n, task_seed(seed, task, 2));
    prep_job b = {.d = d, .seed = task_seed(seed, task, 1), .matrix = 1};
    prep_job a = {.d = d, .seed = task_seed(seed, task, 0), .matrix = 0};
    if (pool_parallel_for(on.cpu, on.rank, d->n, on.chunks, prep_slice, &b,
                          &b_ms) != 0 ||
        pool_parallel_for(on.cpu, on.rank, d->n, on.chunks, prep_slice, &a,
                          &a_ms) != 0) {
        snprintf(err, err_len, "the CPU pool refused the preparation");
        return -1;
    }
    *busy_ms = a_ms + b_ms;
    return 0;
}

static void check_slice(void *arg, size_t row0, size_t row1)
{
    task_data *d = arg;
    cm_freivalds_check_rows(d->h_c, d->n, d->x, d->z, d->bound, row0, row1,
                         d->ratio);
}

int task_check(task_data *d, task_cpu on, double *busy_ms,
               double *worst_ratio, char *err, size_t err_len)
{
    if (pool_parallel_for(on.cpu, on.rank, d->n, on.chunks, check_slice, d,
                          busy_ms) != 0) {
        snprintf(err, err_len, "the CPU pool refused the check");
        return 1;
    }
    size_t row, failed = 0;
    *worst_ratio = cm_freivalds_worst(d->ratio, d->n, &row);
    for (size_t i = 0; i < d->n; i++)
        failed += !(d->ratio[i] <= 1.0);
    if (failed == 0)
        return 0;
    double w;          /* the worst row once more, to show its numbers */
    cm_freivalds_row(d->h_c + row * d->n, d->n, d->x, NULL, &w, NULL);
    snprintf(err, err_len, "Freivalds check: row %zu of C x differs from "
             "A (B x) by %.3g, tolerance %.3g (%zu of %zu rows failed)", row,
             fabs(w - d->z[row]), cm_freivalds_tolerance(d->n, d->bound[row]),
             failed, d->n);
    return 1;
}
