/* pool.h - a fixed set of worker threads that run submitted tasks, like
 * Python's ThreadPoolExecutor: submit returns a future, wait gives the
 * task's status, and a failing task's message reaches the caller.
 *
 *   pool *p = pool_create(4, err, sizeof err);      (NULL: err says why)
 *   pool_future *f = pool_submit(p, my_task, &args);
 *   if (pool_wait(f) != 0) printf("failed: %s\n", pool_error(f));
 *   pool_future_free(f);
 *   pool_shutdown(p, POOL_DRAIN);                   (joins the threads)
 */
#ifndef POOL_H
#define POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pool pool;
typedef struct pool_future pool_future;

/* A task runs on worker `worker` (0 .. workers-1, so it can use that
 * worker's own resources). It returns 0, or non-zero after writing a
 * one-line reason into err (err_len bytes). */
typedef int (*pool_task_fn)(void *arg, int worker, char *err,
                            size_t err_len);

/* One slice [begin, end) of a pool_parallel_for. */
typedef void (*pool_range_fn)(void *arg, size_t begin, size_t end);

enum { POOL_CANCELLED = -1 };             /* status of a task never run */
typedef enum { POOL_DRAIN, POOL_CANCEL } pool_stop;

/* Starts `workers` threads. Returns NULL with a reason in err if workers
 * < 1 or a thread cannot be started. */
pool *pool_create(int workers, char *err, size_t err_len);

/* Queues fn(arg) behind every queued task of rank 0 or lower (it is
 * pool_submit_ranked with rank 0). Returns its future, or NULL if the pool
 * is shutting down or memory ran out. */
pool_future *pool_submit(pool *p, pool_task_fn fn, void *arg);

/* The same, but queued tasks run in order of rank (lowest first) and in
 * submission order within a rank. */
pool_future *pool_submit_ranked(pool *p, pool_task_fn fn, void *arg,
                                long rank);

/* Blocks until the task has finished or was cancelled; returns its status
 * (0, the task's non-zero return, or POOL_CANCELLED). */
int pool_wait(pool_future *f);

/* The failed task's message ("" after success); call after pool_wait. The
 * text lives until pool_future_free. */
const char *pool_error(const pool_future *f);

/* Milliseconds the task ran on its worker (0 if it never ran). */
double pool_run_ms(const pool_future *f);

/* Waits for the task, then frees the future. NULL is ignored. */
void pool_future_free(pool_future *f);

/* Stops the pool and frees it. POOL_DRAIN runs every queued task first;
 * POOL_CANCEL completes queued tasks as POOL_CANCELLED without running
 * them. Either way running tasks finish and every thread is joined, so
 * nothing runs after this returns. Futures stay valid until freed. */
void pool_shutdown(pool *p, pool_stop how);

int pool_workers(const pool *p);

/* Splits [0, count) into `chunks` nearly equal slices, runs fn on each on
 * the pool (queued with `rank`) and waits for all of them. p == NULL runs
 * fn(arg, 0, count) on the calling thread instead. *busy_ms (may be NULL)
 * receives the summed run time of the slices. Returns 0, or -1 if the pool
 * refused a slice (it is shutting down, or memory ran out). */
int pool_parallel_for(pool *p, long rank, size_t count, int chunks,
                      pool_range_fn fn, void *arg, double *busy_ms);

/* CPUs this process may run on: cm_cpu_count, its affinity mask and its
 * cgroup's CPU quota (at least 1). */
int pool_cpu_count(void);

#ifdef __cplusplus
}
#endif

#endif /* POOL_H */
