/* test_04_tiling.c - tile counts, edge tiles and the out-of-core planner
 * of 04_memory, at sizes that do and do not divide evenly. */
#include "test.h"
#include "../04_memory/tiling.h"

static const size_t sizes[] = {1, 7, 1000, 1001};
static const size_t blocks[] = {1, 3, 128, 1000, 2000};

/* Everything a plan promises, for any n and budget it was made for. */
static void expect_valid_plan(const ooc_plan *p, size_t n, size_t budget,
                              size_t granule)
{
    size_t rounded = (p->device_bytes + granule - 1) / granule * granule;
    EXPECT(rounded <= budget);
    EXPECT(p->row_tiles * p->tile_rows >= n);
    EXPECT((p->row_tiles - 1) * p->tile_rows < n);
    EXPECT(p->col_tiles * p->tile_cols >= n);
    EXPECT(p->k_pieces * p->tile_k >= n);
    EXPECT(p->tile_k >= (n < OOC_MIN_K ? n : (size_t)OOC_MIN_K));
    EXPECT(p->tile_k <= (size_t)OOC_MAX_K);
    EXPECT(p->row_tiles <= OOC_MAX_TILES_PER_SIDE);
    EXPECT(p->c_buffers == (p->row_tiles * p->col_tiles > 1 ? 2u : 1u));
    EXPECT(p->h2d_bytes == n * n * 8 * (p->row_tiles + p->col_tiles));
    EXPECT(p->d2h_bytes == n * n * 8);
    /* Buffers in order, aligned, not overlapping, inside the slab. */
    EXPECT(p->c_offset[0] == 0 && p->a_offset[0] % OOC_ALIGN == 0);
    EXPECT(p->a_offset[0] >= p->c_buffers * p->tile_rows * p->tile_cols * 8);
    EXPECT(p->b_offset[0] >= p->a_offset[0] + p->tile_rows * p->tile_k * 8);
    EXPECT(p->a_offset[1] >= p->b_offset[0] + p->tile_k * p->tile_cols * 8);
    EXPECT(p->b_offset[1] >= p->a_offset[1] + p->tile_rows * p->tile_k * 8);
    EXPECT(p->device_bytes >= p->b_offset[1] + p->tile_k * p->tile_cols * 8);
}

int main(void)
{
    /* Counts and edges: the last block holds the remainder. */
    EXPECT(tile_count(1, 1) == 1 && tile_count(7, 3) == 3);
    EXPECT(tile_count(1000, 1000) == 1 && tile_count(1001, 1000) == 2);
    EXPECT(tile_count(10000, 1000) == 10 && tile_count(1001, 128) == 8);
    EXPECT(tile_count(1, 1000) == 1);
    EXPECT(tile_count(0, 5) == 0 && tile_count(5, 0) == 0);
    EXPECT(tile_extent(7, 3, 2) == 1 && tile_extent(1001, 1000, 1) == 1);
    EXPECT(tile_extent(1001, 128, 7) == 105);
    EXPECT(tile_extent(1000, 128, 7) == 104);
    EXPECT(tile_extent(1, 1000, 0) == 1 && tile_extent(7, 3, 3) == 0);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
            size_t n = sizes[s], block = blocks[b], sum = 0;
            size_t count = tile_count(n, block);
            for (size_t i = 0; i < count; i++) {
                EXPECT(tile_extent(n, block, i) >= 1);
                sum += tile_extent(n, block, i);
            }
            EXPECT(sum == n);
        }

    /* The tutorial's case: 10000^2 float64 in 1 GiB. By bytes alone, one
     * 800 MB C tile fits and moves A and B once each. */
    ooc_plan p;
    size_t gib = (size_t)1 << 30;
    EXPECT(ooc_plan_make(10000, 8, gib, OOC_POOL_GRANULE, NULL, &p) == 0);
    expect_valid_plan(&p, 10000, gib, OOC_POOL_GRANULE);
    EXPECT(p.row_tiles == 1 && p.col_tiles == 1 && p.c_buffers == 1);
    EXPECT(p.h2d_bytes == 1600000000u && p.tile_k == 500);

    /* With an H200-like PCIe and DGEMM rate the model prefers two row
     * strips: B moves twice, but the first strip's copy out overlaps the
     * second strip's work, where one big tile's 800 MB copy out overlaps
     * nothing. */
    ooc_rates rates = {55.0, 55.0, 50.0};
    ooc_plan fast;
    EXPECT(ooc_plan_make(10000, 8, gib, OOC_POOL_GRANULE, &rates, &fast) == 0);
    expect_valid_plan(&fast, 10000, gib, OOC_POOL_GRANULE);
    EXPECT(fast.row_tiles == 2 && fast.col_tiles == 1);
    EXPECT(fast.estimate_ms < ooc_estimate_ms(&p, &rates));
    /* 1.6 GB in at 55 GB/s (29 ms) hides under 40 ms of GEMMs; 800 MB out
     * (14.5 ms) comes after: 1.6 + 40 + 14.5. */
    double one_tile = ooc_estimate_ms(&p, &rates);
    EXPECT(one_tile > 55.9 && one_tile < 56.1);

    /* When the GEMMs dominate, tiny tiles would shorten the model's last
     * copy out for free; the planner must not fall for that. */
    ooc_rates slow_gpu = {55.0, 55.0, 5.0};
    EXPECT(ooc_plan_make(40000, 8, gib, OOC_POOL_GRANULE, &slow_gpu, &p)
           == 0);
    expect_valid_plan(&p, 40000, gib, OOC_POOL_GRANULE);
    EXPECT(p.row_tiles <= 8 && p.col_tiles <= 8);
    /* ...and at 60 TFLOP/s one tile is within 5% of two strips: fewer
     * bytes win. */
    rates.gemm_tflops = 60.0;
    EXPECT(ooc_plan_make(10000, 8, gib, OOC_POOL_GRANULE, &rates, &p) == 0);
    EXPECT(p.row_tiles == 1 && p.col_tiles == 1);
    rates.gemm_tflops = 50.0;

    char text[512];
    EXPECT(strcmp(ooc_plan_describe(&fast, text, sizeof text),
                  "C in 2 x 1 tiles of 5000 x 10000 (edge 5000 x 10000), the "
                  "inner dimension in 20 pieces of 500 (edge 500)\n  2 C "
                  "buffers + 2 A + 2 B pieces = 877.4 MiB on the GPU; moves "
                  "2.400 GB in; estimate 50.91 ms") == 0);

    /* n = 1000, 24 MB: one 8 MB C tile and pieces of 500. */
    EXPECT(ooc_plan_make(1000, 8, 24000000, 1, NULL, &p) == 0);
    EXPECT(p.row_tiles == 1 && p.tile_k == 500 && p.k_pieces == 2);

    /* Every size with budgets from generous to tight. */
    size_t budgets[] = {1280, 4096, 100000, 1 << 20, 4 << 20, 24000000,
                        (size_t)1 << 30};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++) {
            size_t n = sizes[s];
            if (ooc_plan_make(n, 8, budgets[b], 1, NULL, &p) == 0)
                expect_valid_plan(&p, n, budgets[b], 1);
            else
                EXPECT(p.device_bytes > budgets[b]);
            if (ooc_plan_make(n, 8, budgets[b], 1, &rates, &p) == 0)
                expect_valid_plan(&p, n, budgets[b], 1);
        }
    /* n = 1: five 256-byte buffers are the least, and exactly enough. */
    EXPECT(ooc_plan_make(1, 8, 1280, 1, NULL, &p) == 0);
    EXPECT(ooc_plan_make(1, 8, 1279, 1, NULL, &p) == -1);
    EXPECT(p.device_bytes == 1280);
    /* 4 MiB forces n = 1001 into several tiles, with edge tiles. */
    EXPECT(ooc_plan_make(1001, 8, 4 << 20, OOC_POOL_GRANULE, NULL, &p) == 0);
    expect_valid_plan(&p, 1001, 4 << 20, OOC_POOL_GRANULE);
    EXPECT(p.row_tiles * p.col_tiles > 1);

    /* Budgets that are too small: below one pool page, or zero. */
    EXPECT(ooc_plan_make(1001, 8, 1 << 20, OOC_POOL_GRANULE, NULL, &p) == -1);
    EXPECT(p.device_bytes > 0 && p.row_tiles == 63);
    EXPECT(ooc_plan_make(7, 8, 0, 1, NULL, &p) == -1);
    EXPECT(ooc_plan_make(1000, 8, 1000, 1, NULL, &p) == -1);
    EXPECT(p.device_bytes > 1000);
    EXPECT(ooc_plan_make(0, 8, 1 << 20, 1, NULL, &p) == -1);
    return test_summary();
}
