/* pack.h - blocks of columns of a row-major matrix copied into one
 * contiguous buffer by a few host threads: how the tiled out-of-core plan
 * sends its A pieces (pack.c; streamed.cu uses it, probe.cu times it).
 *
 *   pack_pool *pool = pack_pool_start(threads);
 *   pack_rows(pool, h_stage, h_a + a0, n * sizeof(double),
 *             cols * sizeof(double), rows);    returns when all are there
 *   pack_block parts[2] = {{h_stage, h_a + r0 * n + a0, rows0}, ...};
 *   pack_blocks(pool, parts, 2, n * sizeof(double), cols * sizeof(double));
 *   pack_pool_stop(pool);
 */
#ifndef PACK_H
#define PACK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PACK_MAX_THREADS 8   /* more did not pack faster on the H200 host */

typedef struct pack_pool pack_pool;

/* Starts `threads` workers (1 to PACK_MAX_THREADS) that wait for work;
 * exits 1 with one line when the system will not start them. */
pack_pool *pack_pool_start(int threads);

int pack_pool_threads(const pack_pool *pool);

/* rows rows of width bytes, src_pitch bytes apart in src, to dst one after
 * the other (dst_pitch = width): the rows are split evenly among the
 * workers, each copying its share with memcpy. Returns when every row is
 * copied. */
void pack_rows(pack_pool *pool, void *dst, const void *src,
               size_t src_pitch, size_t width, size_t rows);

/* Several such blocks, all with the same pitch and width, in one job: the
 * rows of all of them are split evenly among the workers. */
typedef struct {
    void *dst;
    const void *src;
    size_t rows;
} pack_block;

void pack_blocks(pack_pool *pool, const pack_block *blocks, size_t count,
                 size_t src_pitch, size_t width);

/* Ends the workers and frees the pool. */
void pack_pool_stop(pack_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* PACK_H */
