/* test_04_tiling.c - tile counts, edge tiles and the out-of-core planner
 * of 04_memory: both plans' layouts, bytes and estimates, the choice
 * between them, and budgets at and below the least, at sizes that do and
 * do not divide evenly. */
#include "test.h"
#include "../04_memory/tiling.h"

static const size_t sizes[] = {1, 7, 1000, 1001};
static const size_t blocks[] = {1, 3, 128, 1000, 2000};
static const size_t MIB = (size_t)1 << 20;

static size_t round_up(size_t bytes, size_t granule)
{
    return (bytes + granule - 1) / granule * granule;
}

/* Everything a tiled plan promises, for the n and budget it was made for. */
static void expect_valid_tiled(const ooc_plan *p, size_t n, size_t budget,
                               size_t granule)
{
    EXPECT(p->kind == OOC_TILED);
    EXPECT(round_up(p->device_bytes, granule) <= budget);
    EXPECT(p->row_tiles * p->tile_rows >= n);
    EXPECT((p->row_tiles - 1) * p->tile_rows < n);
    EXPECT(p->col_tiles * p->tile_cols >= n);
    EXPECT(p->k_pieces * p->tile_k >= n && p->tile_k <= n);
    EXPECT(p->tile_k >= (n < OOC_MIN_K ? n : (size_t)OOC_MIN_K));
    EXPECT(p->row_tiles <= OOC_MAX_TILES_PER_SIDE);
    EXPECT(p->c_buffers == (p->row_tiles * p->col_tiles > 1 ? 2u : 1u));
    EXPECT(p->h2d_bytes == n * n * 8 * (p->row_tiles + p->col_tiles));
    EXPECT(p->d2h_bytes == n * n * 8);
    /* 2D rows: A pieces narrower than n, B pieces and C tiles too. */
    size_t a_rows = p->tile_k < n ? n * p->k_pieces * p->col_tiles : 0;
    size_t b_rows = p->tile_cols < n ? n * p->row_tiles * p->col_tiles : 0;
    EXPECT(p->h2d_rows_2d == a_rows + b_rows);
    EXPECT(p->d2h_rows_2d == (p->tile_cols < n ? n * p->col_tiles : 0));
    /* Buffers in order, aligned, not overlapping, inside the slab. */
    EXPECT(p->c_offset[0] == 0 && p->a_offset[0] % OOC_ALIGN == 0);
    EXPECT(p->a_offset[0] >= p->c_buffers * p->tile_rows * p->tile_cols * 8);
    EXPECT(p->b_offset[0] >= p->a_offset[0] + p->tile_rows * p->tile_k * 8);
    EXPECT(p->a_offset[1] >= p->b_offset[0] + p->tile_k * p->tile_cols * 8);
    EXPECT(p->b_offset[1] >= p->a_offset[1] + p->tile_rows * p->tile_k * 8);
    EXPECT(p->device_bytes >= p->b_offset[1] + p->tile_k * p->tile_cols * 8);
}

/* Everything a resident-B plan promises. */
static void expect_valid_resident(const ooc_plan *p, size_t n,
                                  size_t budget, size_t granule)
{
    size_t panel = p->tile_rows * n * 8;
    EXPECT(p->kind == OOC_RESIDENT);
    EXPECT(round_up(p->device_bytes, granule) <= budget);
    EXPECT(p->tile_cols == n && p->col_tiles == 1);
    EXPECT(p->row_tiles * p->tile_rows >= n);
    EXPECT((p->row_tiles - 1) * p->tile_rows < n);
    EXPECT(p->row_tiles <= OOC_MAX_TILES_PER_SIDE);
    EXPECT(p->row_tiles == 1 ||
           p->tile_rows >= (n < OOC_MIN_K ? n : (size_t)OOC_MIN_K));
    EXPECT(p->k_pieces * p->tile_k >= n && p->tile_k <= OOC_FILL_ROWS);
    EXPECT(p->c_buffers == (p->row_tiles > 1 ? 2u : 1u));
    EXPECT(p->fill_panels == p->c_buffers);
    /* A and B once, C once, all whole rows. */
    EXPECT(p->h2d_bytes == 2 * n * n * 8 && p->d2h_bytes == n * n * 8);
    EXPECT(p->h2d_rows_2d == 0 && p->d2h_rows_2d == 0);
    /* B first, then the A slots, then the C slots, none overlapping. */
    EXPECT(p->b_offset[0] == 0 && p->b_offset[1] == 0);
    EXPECT(p->a_offset[0] >= n * n * 8 && p->a_offset[0] % OOC_ALIGN == 0);
    size_t last = p->c_buffers - 1;
    EXPECT(p->a_offset[last] >= p->a_offset[0] + last * panel);
    EXPECT(p->c_offset[0] >= p->a_offset[last] + panel);
    EXPECT(p->c_offset[last] >= p->c_offset[0] + last * panel);
    EXPECT(p->device_bytes >= p->c_offset[last] + panel);
}

static void expect_valid(const ooc_plan *p, size_t n, size_t budget,
                         size_t granule)
{
    if (p->kind == OOC_RESIDENT)
        expect_valid_resident(p, n, budget, granule);
    else
        expect_valid_tiled(p, n, budget, granule);
}

static int near(double got, double want)
{
    return got > want - 1e-9 && got < want + 1e-9;
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

    /* The tutorial's case: 10000^2 float64 in 1 GiB of 32 MiB chunks.
     * B (800 MB) fits with 4 panels of 834 rows (66.72 MB each): 12
     * panels, B in 20 pieces of 500 rows, 1.6 GB in, nothing 2D. */
    ooc_plan p, q;
    size_t gib = (size_t)1 << 30, chunk = 32 * MIB;
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, NULL, OOC_ANY, &p) == 0);
    expect_valid_resident(&p, 10000, gib, chunk);
    EXPECT(p.tile_rows == 834 && p.row_tiles == 12 && p.c_buffers == 2);
    EXPECT(p.tile_k == 500 && p.k_pieces == 20 && p.fill_panels == 2);
    EXPECT(p.device_bytes == 800000000u + 4u * 66720000u);
    EXPECT(p.h2d_bytes == 1600000000u && p.d2h_bytes == 800000000u);
    char text[640];
    EXPECT(strcmp(ooc_plan_describe(&p, text, sizeof text),
                  "B resident, uploaded in 20 pieces of 500 rows; A in and "
                  "C out in 12 row panels of 834 (edge 826), the first 2 "
                  "computed piece by piece while B arrives\n  B + 2 A + 2 C "
                  "panels = 1017.5 MiB on the GPU; moves 1.600 GB in, 0.800 "
                  "GB out, every copy whole rows; estimate 0.00 ms") == 0);

    /* Resident needs B plus 4 panels of 157 rows (n / 64), each aligned
     * to 256 bytes: 850.24 MB, 26 chunks. 256 MiB is far below: tiles,
     * with 2D copies. */
    size_t least = ooc_min_budget(10000, 8, chunk, OOC_RESIDENT);
    EXPECT(least == 26 * chunk);
    EXPECT(ooc_plan_make(10000, 8, least, chunk, NULL, OOC_RESIDENT,
                         &p) == 0);
    expect_valid_resident(&p, 10000, least, chunk);
    EXPECT(ooc_plan_make(10000, 8, least - 1, chunk, NULL, OOC_RESIDENT,
                         &p) == -1);
    EXPECT(p.kind == OOC_RESIDENT && p.tile_rows == 157);
    EXPECT(p.device_bytes == 800000000u + 4u * 12560128u);
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, NULL, OOC_ANY, &p)
           == 0);
    expect_valid_tiled(&p, 10000, 256 * MIB, chunk);
    EXPECT(p.row_tiles * p.col_tiles > 1 && p.h2d_rows_2d > 0);

    /* With H200-like rates the resident plan beats one big tile at 1 GiB
     * (same bytes in, but no 2D copies and no 800 MB C tile going home
     * after the last GEMM), and is chosen. */
    ooc_rates rates = {55.0, 55.0, 0.15, 0.15, 60.0, 2};
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, &rates, OOC_ANY, &p) == 0);
    expect_valid_resident(&p, 10000, gib, chunk);
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, &rates, OOC_TILED, &q) == 0);
    expect_valid_tiled(&q, 10000, gib, chunk);
    EXPECT(p.estimate_ms < q.estimate_ms);
    EXPECT(near(p.estimate_ms, ooc_estimate_ms(&p, &rates, NULL)));
    /* It cannot beat B's upload plus the GEMMs that need all of B. */
    double gemm_ms;
    ooc_estimate_ms(&p, &rates, &gemm_ms);
    EXPECT(gemm_ms > 33.3 && gemm_ms < 33.4);      /* 2e12 / 60e12 */
    EXPECT(p.estimate_ms > 800e6 / 55e6);
    EXPECT(p.estimate_ms > gemm_ms && p.estimate_ms < 1.6 * gemm_ms);

    /* The resident replay by hand: n = 1000, 4 panels of 250, B in 2
     * pieces of 500; 1 GB/s both ways (250 rows = 2 ms), 1 TFLOP/s. A0,
     * A1 in by 4; B pieces by 8 and 12, each followed by two GEMMs of
     * 0.25; panels 0, 1 home by 14.25, 16.25; A2 in 12.25..14.25, GEMM
     * (0.5) to 14.75, home 18.25; A3 in 14.25..16.25, GEMM to 16.75, home
     * 20.25. */
    ooc_rates slow = {1.0, 1.0, 1.0, 1.0, 1.0, 2};
    ooc_layout_resident(&p, 1000, 8, 250);
    EXPECT(p.row_tiles == 4 && p.tile_k == 500 && p.k_pieces == 2);
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 20.25));
    /* Two panels of 500: both fill; in 8 + 8, home 20.5, 24.5. */
    ooc_layout_resident(&p, 1000, 8, 500);
    EXPECT(p.row_tiles == 2 && p.fill_panels == 2);
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 24.5));

    /* The tiled formula by hand: n = 1000, 2 x 2 tiles of 500, pieces of
     * 250, 1 us per 2D row. First pieces 1.5 + 1.25 ms; in 32 MB + 12000
     * rows = 44 ms; out 8 MB + 2000 rows = 10; last tile out 2.5; GEMMs 2:
     * max(max(2.75 + 2, 44) + 2.5, 2.75 + 10) = 46.5. */
    ooc_layout_tiled(&p, 1000, 8, 500, 500, 250);
    EXPECT(p.h2d_rows_2d == 12000 && p.d2h_rows_2d == 2000);
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 46.5));
    /* Fewer copy engines: at least the floor of all copies and GEMMs.
     * One engine: in 44 + out 10 = 54; none: 54 + GEMMs 2 = 56; three
     * engines are as good as two. */
    ooc_rates one_engine = slow, no_engine = slow, three = slow;
    one_engine.copy_engines = 1;
    no_engine.copy_engines = 0;
    three.copy_engines = 3;
    EXPECT(near(ooc_estimate_ms(&p, &one_engine, NULL), 54.0));
    EXPECT(near(ooc_estimate_ms(&p, &no_engine, NULL), 56.0));
    EXPECT(near(ooc_estimate_ms(&p, &three, NULL), 46.5));
    /* The resident replay of 4 panels (20.25 above): in 16 + out 8. */
    ooc_plan r4;
    ooc_layout_resident(&r4, 1000, 8, 250);
    EXPECT(near(ooc_estimate_ms(&r4, &one_engine, NULL), 24.0));
    EXPECT(near(ooc_estimate_ms(&r4, &no_engine, NULL), 26.0));
    EXPECT(near(ooc_estimate_ms(&r4, &three, NULL), 20.25));
    /* Row strips with whole-row pieces copy nothing 2D. */
    ooc_layout_tiled(&p, 1000, 8, 500, 1000, 1000);
    EXPECT(p.h2d_rows_2d == 0 && p.d2h_rows_2d == 0);

    /* The dearer a 2D row, the wider the pieces the planner takes. */
    ooc_rates cheap_rows = rates, dear_rows = rates;
    cheap_rows.h2d_row_us = cheap_rows.d2h_row_us = 0;
    dear_rows.h2d_row_us = dear_rows.d2h_row_us = 0.3;
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &cheap_rows, OOC_ANY,
                         &p) == 0);
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &dear_rows, OOC_ANY,
                         &q) == 0);
    expect_valid_tiled(&p, 10000, 256 * MIB, chunk);
    expect_valid_tiled(&q, 10000, 256 * MIB, chunk);
    EXPECT(q.tile_k > p.tile_k);

    /* When the GEMMs dominate, tiny tiles would shorten the model's last
     * copy out for free; the planner must not fall for that. */
    ooc_rates slow_gpu = {55.0, 55.0, 0.0, 0.0, 5.0, 2};
    EXPECT(ooc_plan_make(40000, 8, gib, OOC_POOL_GRANULE, &slow_gpu,
                         OOC_ANY, &p) == 0);
    expect_valid_tiled(&p, 40000, gib, OOC_POOL_GRANULE);
    EXPECT(p.row_tiles <= 8 && p.col_tiles <= 8);

    /* --quick: n = 2001 in 64 MiB: B (32 MB) stays with several panels;
     * --plan tiled gets one tile with edge pieces. */
    EXPECT(ooc_plan_make(2001, 8, 64 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    expect_valid_resident(&p, 2001, 64 * MIB, chunk);
    EXPECT(p.row_tiles > 2 && p.k_pieces == 4 && p.tile_k == 501);
    EXPECT(ooc_plan_make(2001, 8, 64 * MIB, chunk, &rates, OOC_TILED, &p)
           == 0);
    expect_valid_tiled(&p, 2001, 64 * MIB, chunk);
    /* n = 3001: B (72 MB) does not fit in 64 MiB. */
    EXPECT(ooc_plan_make(3001, 8, 64 * MIB, chunk, &rates, OOC_RESIDENT,
                         &p) == -1);
    EXPECT(ooc_plan_make(3001, 8, 64 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    expect_valid_tiled(&p, 3001, 64 * MIB, chunk);
    EXPECT(p.row_tiles * p.col_tiles > 1);

    /* Odd sizes: n = 1 and 7 fit whole in one resident panel; n = 1001
     * in 24 MB (B is 8 MB) takes several. */
    EXPECT(ooc_plan_make(1, 8, 2 * MIB, OOC_POOL_GRANULE, &rates, OOC_ANY,
                         &p) == 0);
    expect_valid(&p, 1, 2 * MIB, OOC_POOL_GRANULE);
    ooc_layout_resident(&p, 7, 8, 7);
    EXPECT(p.row_tiles == 1 && p.c_buffers == 1 && p.fill_panels == 1);
    EXPECT(p.k_pieces == 1 && p.tile_k == 7 && p.device_bytes == 3 * 512);
    EXPECT(ooc_plan_make(1001, 8, 24000000, 1, NULL, OOC_RESIDENT, &p)
           == 0);
    expect_valid_resident(&p, 1001, 24000000, 1);
    EXPECT(p.row_tiles > 1 && p.k_pieces == 2 && p.tile_k == 501);

    /* For every size, kind, granule and budget: a plan exists exactly
     * when the budget reaches ooc_min_budget, and it keeps its promises;
     * below, p describes a plan bigger than the budget. */
    size_t budgets[] = {768, 1279, 1280, 4096, 100000, 1 << 20, 4 << 20,
                        24000000, 64 << 20, (size_t)1 << 30};
    size_t granules[] = {1, OOC_POOL_GRANULE, 32 * MIB};
    ooc_kind kinds[] = {OOC_ANY, OOC_TILED, OOC_RESIDENT};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t g = 0; g < 3; g++)
            for (size_t k = 0; k < 3; k++) {
                size_t n = sizes[s], granule = granules[g];
                size_t need = ooc_min_budget(n, 8, granule, kinds[k]);
                EXPECT(need % granule == 0 && need > 0);
                EXPECT(ooc_plan_make(n, 8, need, granule, &rates, kinds[k],
                                     &p) == 0);
                EXPECT(ooc_plan_make(n, 8, need - 1, granule, NULL,
                                     kinds[k], &p) == -1);
                EXPECT(round_up(p.device_bytes, granule) == need);
                for (size_t b = 0; b < sizeof budgets / sizeof *budgets;
                     b++) {
                    int rc = ooc_plan_make(n, 8, budgets[b], granule,
                                           b % 2 ? &rates : NULL, kinds[k],
                                           &p);
                    EXPECT((rc == 0) == (budgets[b] >= need));
                    if (rc == 0) {
                        expect_valid(&p, n, budgets[b], granule);
                        EXPECT(kinds[k] == OOC_ANY || p.kind == kinds[k]);
                    } else {
                        EXPECT(round_up(p.device_bytes, granule) >
                               budgets[b]);
                    }
                }
            }
    /* n = 1: three 256-byte buffers (B, A, C) are the least. */
    EXPECT(ooc_min_budget(1, 8, 1, OOC_ANY) == 768);
    EXPECT(ooc_min_budget(1, 8, 1, OOC_TILED) == 1280);
    /* The least in 32 MiB chunks is one chunk, for a tiny slab. */
    EXPECT(ooc_min_budget(2001, 8, chunk, OOC_ANY) == chunk);
    EXPECT(ooc_min_budget(2001, 8, 1, OOC_ANY) < 100000);
    EXPECT(ooc_plan_make(7, 8, 0, 1, NULL, OOC_ANY, &p) == -1);
    EXPECT(ooc_plan_make(0, 8, 1 << 20, 1, NULL, OOC_ANY, &p) == -1);
    return test_summary();
}
