/* test_04_pack.c - 04_memory's packing threads: a block of columns of a
 * row-major matrix packed into one block, row by row, whatever the
 * thread count, with more threads than rows, and rows of odd widths; and
 * several such blocks in one job. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../04_memory/pack.h"

/* Packs columns [col0, col0 + cols) of a rows x pitch matrix of distinct
 * values with `threads` workers and checks every element, and that
 * nothing past the block was written. */
static void pack_and_check(pack_pool *pool, size_t rows, size_t pitch,
                           size_t col0, size_t cols)
{
    double *src = malloc((rows * pitch + 1) * sizeof *src);
    double *dst = malloc((rows * cols + 1) * sizeof *dst);
    EXPECT(src && dst);
    if (!src || !dst) {
        free(src);
        free(dst);
        return;
    }
    for (size_t i = 0; i < rows * pitch; i++)
        src[i] = (double)i;
    dst[rows * cols] = -1.0;   /* a guard just past the block */
    pack_rows(pool, dst, src + col0, pitch * sizeof *src,
              cols * sizeof *src, rows);
    size_t wrong = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            wrong += dst[r * cols + c] != (double)(r * pitch + col0 + c);
    EXPECT(wrong == 0);
    EXPECT(dst[rows * cols] == -1.0);
    free(src);
    free(dst);
}

/* Blocks of rows from three places of one matrix (a step's tiles), with
 * the rows split among the workers across the blocks: each block's rows
 * land at its own place in dst, and the gaps between them are untouched. */
static void blocks_and_check(pack_pool *pool)
{
    enum { ROWS = 60, PITCH = 50, COL0 = 7, COLS = 13, GAP = 3 };
    static double src[ROWS * PITCH], dst[ROWS * COLS + 3 * GAP];
    for (size_t i = 0; i < ROWS * PITCH; i++)
        src[i] = (double)i;
    for (size_t i = 0; i < ROWS * COLS + 3 * GAP; i++)
        dst[i] = -1.0;
    size_t first[] = {40, 0, 17}, rows[] = {9, 5, 0}, at[3], next = 0;
    pack_block parts[3];
    for (size_t b = 0; b < 3; b++) {
        at[b] = next;
        parts[b].dst = dst + next;
        parts[b].src = src + first[b] * PITCH + COL0;
        parts[b].rows = rows[b];
        next += rows[b] * COLS + GAP;
    }
    pack_blocks(pool, parts, 3, PITCH * sizeof *src, COLS * sizeof *src);
    size_t wrong = 0, touched = 0;
    for (size_t b = 0; b < 3; b++) {
        for (size_t r = 0; r < rows[b]; r++)
            for (size_t c = 0; c < COLS; c++)
                wrong += dst[at[b] + r * COLS + c] !=
                         (double)((first[b] + r) * PITCH + COL0 + c);
        for (size_t g = 0; g < GAP; g++)
            touched += dst[at[b] + rows[b] * COLS + g] != -1.0;
    }
    EXPECT(wrong == 0 && touched == 0);
}

int main(void)
{
    int counts[] = {1, 3, PACK_MAX_THREADS};
    for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
        pack_pool *pool = pack_pool_start(counts[t]);
        EXPECT(pack_pool_threads(pool) == counts[t]);
        pack_and_check(pool, 1000, 1000, 570, 417);  /* an A piece */
        pack_and_check(pool, 1001, 1001, 0, 1001);   /* whole rows */
        pack_and_check(pool, 2, 7, 3, 4);            /* fewer rows than
                                                        threads */
        pack_and_check(pool, 0, 7, 0, 7);            /* nothing */
        pack_and_check(pool, 5, 9, 8, 1);            /* one column */
        blocks_and_check(pool);
        pack_pool_stop(pool);
    }
    return test_summary();
}
