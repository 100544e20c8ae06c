/* task.h - the CPU half of one task: prepare the inputs A and B the way a
 * data pipeline would, and check the product C that comes back, sharing
 * the rows of each step among the threads of a pool.
 *
 *   task_cpu on = {.cpu = cpu, .chunks = chunks, .rank = k};
 *                 (or {.cpu = NULL, .chunks = 1}: all on this thread)
 *   if (task_prepare(&d, seed, k, on, &ms, err, sizeof err) != 0) ...
 *   ... the GPU computes d.h_c = d.h_a * d.h_b ...
 *   if (task_check(&d, on, &ms, &worst, err, sizeof err) != 0) ...
 */
#ifndef TASK_H
#define TASK_H

#include <stddef.h>
#include <stdint.h>
#include "pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t n;                   /* matrices are n x n, row-major */
    double *h_a, *h_b, *h_c;    /* inputs A, B and the product C */
    /* Freivalds' vectors, n each: x random, y = B x, s = |B| 1,
     * z = A y = A B x, bound = |A| s, ratio = error / tolerance per row */
    double *x, *y, *s, *z, *bound, *ratio;
} task_data;

/* Fills rows [row0, row1) of m with uniform samples, each row normalised
 * to mean 0 and standard deviation 1 (as a layer norm does), then takes
 * dot[i] = row . v and abs_dot[i] = |row| . v_abs (all ones when v_abs is
 * NULL; cm_freivalds_row) while the row is in the cache. A value depends
 * only on (seed, row, column), so any split of the rows among threads gives
 * the same matrix, bit for bit. */
void prep_rows(double *m, size_t n, uint64_t seed, size_t row0, size_t row1,
               const double *v, const double *v_abs, double *dot,
               double *abs_dot);

/* The seed of part `which` (0: A, 1: B, 2: x) of task `task`. */
uint64_t task_seed(uint64_t base, int task, int which);

/* Where a task's CPU work runs: split into `chunks` slices on the threads
 * of `cpu`, queued there with `rank` (lower ranks run first), or all of it
 * on the calling thread when cpu is NULL. */
typedef struct {
    pool *cpu;
    int chunks;
    long rank;
} task_cpu;

/* Makes x, then B (with y, s), then A (with z, bound): A's products need
 * all of y. A value depends only on (seed, task, row, column). Returns 0
 * with the CPU time of all threads in *busy_ms, or -1 with a reason in
 * err (the pool refused a slice: it is shutting down). */
int task_prepare(task_data *d, uint64_t seed, int task, task_cpu on,
                 double *busy_ms, char *err, size_t err_len);

/* Freivalds' check of h_c. Returns 0 if every row passed, else 1 with
 * the worst row, its error and tolerance in err. *worst_ratio gets the
 * largest error / tolerance (<= 1 passes); *busy_ms the CPU time. */
int task_check(task_data *d, task_cpu on, double *busy_ms,
               double *worst_ratio, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TASK_H */
