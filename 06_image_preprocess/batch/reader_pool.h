/* reader_pool.h - CPU threads that run jobs cut into items: the batch
 * tool's reader threads (pipeline.cu), which read, decode and check.
 *
 *   reader_pool *pool = rp_start(n_threads);      NULL: no threads
 *   size_t a = rp_post(pool, read_item, &ctx_a, n_a);   returns at once
 *   size_t b = rp_post(pool, read_item, &ctx_b, n_b);   queued behind a
 *   ... the caller works meanwhile ...
 *   rp_wait_job(pool, a);       every item of job a has returned
 *   rp_wait(pool);              every item of every job has returned
 *   rp_stop(pool);
 *
 * Jobs are queued in the order posted (up to RP_MAX_JOBS not yet done;
 * rp_post waits for the oldest beyond that). Items are taken in turn by
 * whichever thread is free, every item of a job before any of the next
 * one, so the threads go on to the next job without a pause while the
 * last items of the previous one finish. fn(ctx, item, thread) gets the
 * thread's index (0 .. n_threads - 1), so per-thread state needs no lock.
 */
#ifndef READER_POOL_H
#define READER_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { RP_MAX_JOBS = 4 };

typedef void (*rp_item_fn)(void *ctx, size_t item, int thread);

typedef struct reader_pool reader_pool;

/* Starts n_threads threads (at least 1). Returns NULL if they or memory
 * are lacking. */
reader_pool *rp_start(int n_threads);

/* Queues a job: the threads run fn(ctx, item, thread) for item 0 ..
 * count - 1. Returns its number, for rp_wait_job. */
size_t rp_post(reader_pool *pool, rp_item_fn fn, void *ctx, size_t count);

/* Returns when every item of job `job` has returned. */
void rp_wait_job(reader_pool *pool, size_t job);

/* Returns when every item of every posted job has returned. */
void rp_wait(reader_pool *pool);

int rp_threads(const reader_pool *pool);

/* Joins the threads (posted jobs must be waited for first). */
void rp_stop(reader_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* READER_POOL_H */
