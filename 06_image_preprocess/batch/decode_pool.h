/* decode_pool.h - CPU threads that decode a batch of images, in order,
 * into a ring of staging buffers the GPU side copies from.
 *
 *   dp_pool *pool = dp_start(n_images, slot_buffers, n_slots, n_threads,
 *                            decode_one, &ctx);
 *   for (i = 0; i < n_images; i++) {
 *       const char *why; uint8_t *pixels = dp_wait(pool, i, &why);
 *       ... copy pixels to the GPU; once that copy is done: ...
 *       dp_release(pool, i);
 *   }
 *   dp_stop(pool);
 *
 * Image i is decoded into buffer i % n_slots, so at most n_slots images
 * are decoded or in use at once. The consumer may hold up to n_slots - 1
 * buffers while it waits for the next image; more would deadlock.
 *
 * The same threads take other work, ahead of decoding, cut into parts:
 *   dp_post(pool, check_part, &job, n_parts);   ... write a file ...
 *   dp_join(pool);      (runs the parts nobody started, waits for all)
 */
#ifndef DECODE_POOL_H
#define DECODE_POOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes item index into dst. Returns 0, or -1 with a reason in err.
 * Called from several threads at once, each with its own index. */
typedef int (*dp_decode_fn)(void *ctx, size_t index, uint8_t *dst,
                            char *err, size_t err_len);

typedef struct dp_pool dp_pool;

/* Starts n_threads workers. slots[0..n_slots) are the caller's buffers
 * (pinned memory, for instance), each big enough for one image; n_slots
 * must be at least 2. Returns NULL if threads or memory are lacking. */
dp_pool *dp_start(size_t n_items, uint8_t *const *slots, size_t n_slots,
                  int n_threads, dp_decode_fn decode, void *ctx);

/* Blocks until item index has been decoded. Returns its buffer, or NULL
 * with *why set to the decoder's reason (valid until dp_release). */
uint8_t *dp_wait(dp_pool *pool, size_t index, const char **why);

/* Hands item index's buffer back for reuse by item index + n_slots. */
void dp_release(dp_pool *pool, size_t index);

/* Milliseconds the workers spent decoding so far, summed over threads. */
double dp_busy_ms(dp_pool *pool);

/* One part of a posted job; called from several threads at once, each
 * with its own part. */
typedef void (*dp_job_fn)(void *ctx, size_t part);

/* Has the workers run job(ctx, part) for part = 0 .. n_parts - 1, each
 * before they start another decode, and returns at once. One job at a
 * time: the caller must dp_join it before posting the next. */
void dp_post(dp_pool *pool, dp_job_fn job, void *ctx, size_t n_parts);

/* Runs the posted job's parts that no worker has started on the calling
 * thread, then waits until every part has returned. */
void dp_join(dp_pool *pool);

/* Milliseconds the workers (not the caller of dp_join) spent on posted
 * jobs so far, summed over threads. */
double dp_job_ms(dp_pool *pool);

/* Lets the workers finish the item in hand, joins them, frees the pool.
 * Items not yet started are abandoned. A posted job must be joined
 * first. */
void dp_stop(dp_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* DECODE_POOL_H */
