/* reader_pool.h - CPU threads that run one job at a time, cut into
 * items: the batched pipeline's readers (gpu_batch.cu) and its check.
 *
 *   reader_pool *pool = rp_start(n_threads);      NULL: no threads
 *   rp_post(pool, read_item, &ctx, n_items);      returns at once
 *   ... the caller works meanwhile ...
 *   rp_wait(pool);              every item has returned
 *   rp_stop(pool);
 *
 * Items are taken in turn by whichever thread is free; fn(ctx, item,
 * thread) gets the thread's index (0 .. n_threads - 1), so per-thread
 * state needs no lock. One job at a time: rp_wait before the next post.
 */
#ifndef READER_POOL_H
#define READER_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*rp_item_fn)(void *ctx, size_t item, int thread);

typedef struct reader_pool reader_pool;

/* Starts n_threads threads (at least 1). Returns NULL if they or memory
 * are lacking. */
reader_pool *rp_start(int n_threads);

/* Has the threads run fn(ctx, item, thread) for item 0 .. count - 1. */
void rp_post(reader_pool *pool, rp_item_fn fn, void *ctx, size_t count);

/* Returns when every item of the posted job has returned. */
void rp_wait(reader_pool *pool);

int rp_threads(const reader_pool *pool);

/* Joins the threads (a posted job must be waited for first). */
void rp_stop(reader_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* READER_POOL_H */
