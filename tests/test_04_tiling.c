/* test_04_tiling.c - tile counts, edge tiles and the out-of-core planner
 * of 04_memory: both plans' layouts, bytes and estimates (replayed by
 * hand), the I/O lower bound's arithmetic, the choice between plans near
 * the bound at 256 MiB, and budgets at and below the least, down to the
 * tiniest, at sizes that do and do not divide evenly. */
#include <math.h>

#include "test.h"
#include "../04_memory/tiling.h"

static const size_t sizes[] = {1, 7, 1000, 1001};
static const size_t blocks[] = {1, 3, 128, 1000, 2000};
static const size_t MIB = (size_t)1 << 20;

static size_t round_up(size_t bytes, size_t granule)
{
    return (bytes + granule - 1) / granule * granule;
}

static int near(double got, double want)
{
    return got > want - 1e-9 && got < want + 1e-9;
}

static int near_rel(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

/* Everything a tiled plan promises, for the n and budget it was made for. */
static void expect_valid_tiled(const ooc_plan *p, size_t n, size_t budget,
                               size_t granule)
{
    size_t rows = p->tile_rows, cols = p->tile_cols;
    EXPECT(p->kind == OOC_TILED);
    EXPECT(round_up(p->device_bytes, granule) <= budget);
    EXPECT(p->row_tiles * rows >= n && (p->row_tiles - 1) * rows < n);
    EXPECT(p->col_tiles * cols >= n && (p->col_tiles - 1) * cols < n);
    EXPECT(p->tile_k <= n && p->tile_k >= (n < OOC_MIN_K ? n : OOC_MIN_K));
    EXPECT(p->a_k >= p->tile_k && (p->a_k == n || p->a_k % p->tile_k == 0));
    EXPECT(p->a_pieces == tile_count(n, p->a_k));
    EXPECT(p->c_buffers == 1 || p->c_buffers == 2);
    EXPECT(p->row_tiles * p->col_tiles > 1 || p->c_buffers == 1);
    /* The B pieces of the A pieces cover k once, in order. */
    size_t k_next = 0, pieces = 0;
    for (size_t ap = 0; ap < p->a_pieces; ap++)
        for (size_t bp = 0;; bp++) {
            size_t k0, k = ooc_b_piece(p, ap, bp, &k0);
            if (k == 0)
                break;
            EXPECT(k0 == k_next && k <= p->tile_k);
            k_next += k;
            pieces++;
        }
    EXPECT(k_next == n && pieces == p->k_pieces);
    EXPECT(p->h2d_bytes == n * n * 8 * (p->row_tiles + p->col_tiles));
    EXPECT(p->d2h_bytes == n * n * 8);
    /* 2D rows: B pieces and C tiles narrower than n. A pieces never: a
     * narrow one is packed into one of two host staging buffers first. */
    size_t b_rows = cols < n ? n * p->row_tiles * p->col_tiles : 0;
    EXPECT(p->h2d_rows_2d == b_rows);
    EXPECT(p->d2h_rows_2d == (cols < n ? n * p->col_tiles : 0));
    EXPECT(p->staging_bytes == (p->a_k < n ? 2 * rows * p->a_k * 8 : 0));
    /* Buffers in order, aligned, not overlapping, inside the slab. */
    EXPECT(p->c_offset[0] == 0 && p->a_offset[0] % OOC_ALIGN == 0);
    EXPECT(p->a_offset[0] >= p->c_buffers * rows * cols * 8);
    EXPECT(p->a_offset[1] >= p->a_offset[0] + rows * p->a_k * 8);
    EXPECT(p->b_offset[0] >= p->a_offset[1] + rows * p->a_k * 8);
    EXPECT(p->b_offset[1] >= p->b_offset[0] + p->tile_k * cols * 8);
    EXPECT(p->device_bytes >= p->b_offset[1] + p->tile_k * cols * 8);
    EXPECT(p->a_offset[1] % OOC_ALIGN == 0 && p->b_offset[0] % OOC_ALIGN == 0
           && p->b_offset[1] % OOC_ALIGN == 0);
}

/* Everything a resident-B plan promises. */
static void expect_valid_resident(const ooc_plan *p, size_t n,
                                  size_t budget, size_t granule)
{
    size_t panel = p->tile_rows * n * 8;
    EXPECT(p->kind == OOC_RESIDENT);
    EXPECT(round_up(p->device_bytes, granule) <= budget);
    EXPECT(p->tile_cols == n && p->col_tiles == 1 && p->a_k == n);
    EXPECT(p->row_tiles * p->tile_rows >= n);
    EXPECT((p->row_tiles - 1) * p->tile_rows < n);
    EXPECT(p->tile_rows >= (n < OOC_MIN_K ? n : OOC_MIN_K));
    EXPECT(p->k_pieces * p->tile_k >= n && p->tile_k <= OOC_FILL_ROWS);
    EXPECT(p->c_buffers == 1 || p->c_buffers == 2);
    EXPECT(p->row_tiles > 1 || p->c_buffers == 1);
    EXPECT(p->fill_panels == p->c_buffers);
    /* A and B once, C once, all whole rows. */
    EXPECT(p->h2d_bytes == 2 * n * n * 8 && p->d2h_bytes == n * n * 8);
    EXPECT(p->h2d_rows_2d == 0 && p->d2h_rows_2d == 0);
    EXPECT(p->staging_bytes == 0);
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

/* The plan's bytes in and out over the I/O lower bound for its budget. */
static double over_bound(const ooc_plan *p, size_t budget)
{
    return (double)(p->h2d_bytes + p->d2h_bytes) /
           ooc_io_bound_bytes(p->n, p->elem_bytes, budget, NULL, NULL);
}

static void counts_and_edges(void)
{
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
}

/* max(2 n^3 / sqrt(M), 3 n^2) elements, in bytes, M = budget / 8. */
static void io_bound(void)
{
    double streaming, once;
    /* 256 MiB: M = 2^25 doubles; 2e12 / 5792.6 = 345.3e6 doubles, 2.762
     * GB, above A, B and C once (2.4 GB). */
    double bound = ooc_io_bound_bytes(10000, 8, 256 * MIB, &streaming,
                                      &once);
    EXPECT(near_rel(streaming, 2e12 / sqrt(33554432.0) * 8));
    EXPECT(streaming > 2.762e9 && streaming < 2.763e9);
    EXPECT(once == 2.4e9 && bound == streaming);
    /* 1 GiB: 1.381 GB streaming, below each matrix once: the bound is
     * 2.4 GB, what the resident plan moves. */
    bound = ooc_io_bound_bytes(10000, 8, 1024 * MIB, &streaming, &once);
    EXPECT(streaming > 1.381e9 && streaming < 1.382e9);
    EXPECT(bound == 2.4e9);
    /* By hand: M = 10^4 doubles (80000 bytes), sqrt(M) = 100. n = 1000:
     * 2e9 / 100 = 2e7 doubles = 1.6e8 bytes > 3e6 doubles. n = 100: 2e6 /
     * 100 = 2e4 doubles < 3e4: once wins, 2.4e5 bytes. */
    EXPECT(ooc_io_bound_bytes(1000, 8, 80000, NULL, NULL) == 1.6e8);
    EXPECT(ooc_io_bound_bytes(100, 8, 80000, &streaming, &once) == 2.4e5);
    EXPECT(streaming == 1.6e5 && once == 2.4e5);
    /* Half an element of memory holds nothing: no plan at all. */
    EXPECT(isinf(ooc_io_bound_bytes(10, 8, 4, NULL, NULL)));
}

/* Replays of both plans, worked by hand on round numbers: 1 GB/s both
 * ways (1 MB = 1 ms), 1 us per 2D row, packing on the host at 2 GB/s (2
 * MB = 1 ms), 1 TFLOP/s (1 GFLOP = 1 ms). */
static void estimates_by_hand(void)
{
    ooc_rates slow = {.h2d_gbps = 1.0, .d2h_gbps = 1.0, .h2d_row_us = 1.0,
                      .d2h_row_us = 1.0, .pack_gbps = 2.0, .pack_threads = 1,
                      .gemm_tflops = 1.0, .copy_engines = 2};
    ooc_plan p;
    /* Resident, n = 1000, 4 panels of 250, B in 2 pieces of 500. A0, A1
     * in by 4; B pieces by 8 and 12, each followed by two GEMMs of 0.25;
     * panels 0, 1 home by 14.25, 16.25; A2 in 12.25..14.25, GEMM (0.5) to
     * 14.75, home 18.25; A3 in 14.25..16.25, GEMM to 16.75, home 20.25. */
    ooc_layout_resident(&p, 1000, 8, 250, 2);
    EXPECT(p.row_tiles == 4 && p.tile_k == 500 && p.k_pieces == 2);
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 20.25));
    /* Two panels of 500: both fill; in 8 + 8, home 20.5, 24.5. */
    ooc_layout_resident(&p, 1000, 8, 500, 2);
    EXPECT(p.row_tiles == 2 && p.fill_panels == 2);
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 24.5));
    /* The same with one slot: A0 by 4, B by 8 and 12, panel 0's GEMMs to
     * 8.5 and 12.5, home 16.5; A1 in 12.5..16.5, GEMM (1) to 17.5, home
     * 21.5. */
    ooc_layout_resident(&p, 1000, 8, 500, 1);
    EXPECT(p.c_buffers == 1 && p.fill_panels == 1);
    EXPECT(p.device_bytes == 8000000 + 2 * 4000000);
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 21.5));

    /* Tiled, n = 1000: 2 row tiles of 500 x 1000, one C buffer; A pieces
     * of 500 x 500 (2 MB), each packed on the host (1 ms) into staging
     * buffer g % 2 once that buffer's last copy is over, then copied whole
     * (2 ms); B pieces of 250 x 1000 (whole rows, 2 MB: 2 ms), two per A
     * piece; GEMMs of 0.25; a tile home in 4. Tile 0: pack 0..1, A 1..3,
     * B ..5 (GEMM to 5.25), B ..7 (7.25); pack 1..2, A 7..9, B ..11
     * (11.25), B ..13 (13.25); home 17.25. Tile 1: pack 3..4 (staging 0
     * free at 3), A 13..15, B ..17, GEMM waits for home (17.25): 17.5; B
     * ..19 (19.25); pack 9..10, A 19..21, B ..23 (23.25), B ..25 (25.25);
     * home 29.25. (Each tile goes home whole here, bands = 1; the
     * layout cuts it in OOC_BANDS, worked below.) */
    ooc_layout_tiled(&p, 1000, 8, 500, 1000, 250, 500, 1);
    EXPECT(p.row_tiles == 2 && p.col_tiles == 1 && p.c_buffers == 1);
    EXPECT(p.a_pieces == 2 && p.k_pieces == 4 && p.a_k == 500);
    EXPECT(p.h2d_bytes == 24000000 && p.h2d_rows_2d == 0);
    EXPECT(p.d2h_rows_2d == 0 && p.staging_bytes == 4000000);
    EXPECT(p.bands == OOC_BANDS);
    p.bands = 1;
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 29.25));
    /* No per-row cost for A: its pieces are copied whole, so the price of
     * a 2D row does not move the estimate. */
    ooc_rates dear_rows = slow;
    dear_rows.h2d_row_us = 100.0;
    EXPECT(near(ooc_estimate_ms(&p, &dear_rows, NULL), 29.25));
    /* Packing enters it: free, the first A piece goes at once (A 0..2,
     * ... home 28.25); at 0.25 GB/s (8 ms a piece) the host is the
     * bottleneck: the 4 packs end at 8, 16, 24 and 32 (each after the
     * one before, its buffer free by then), the last A 32..34, its B
     * pieces ..36 and ..38, the last GEMM to 38.25, home 42.25. */
    ooc_rates free_pack = slow, slow_pack = slow;
    free_pack.pack_gbps = 0;
    slow_pack.pack_gbps = 0.25;
    EXPECT(near(ooc_estimate_ms(&p, &free_pack, NULL), 28.25));
    EXPECT(near(ooc_estimate_ms(&p, &slow_pack, NULL), 42.25));
    /* The tiled GEMMs at a rate of their own: at 0.5 TFLOP/s each takes
     * 0.5, not 0.25; the copies stay as they were, so each tile's last
     * GEMM, and its trip home, end 0.25 later: 29.5. The resident plan
     * keeps gemm_tflops. */
    ooc_rates thin = slow;
    thin.tiled_gemm_tflops = 0.5;
    double gemm_ms;
    EXPECT(near(ooc_estimate_ms(&p, &thin, &gemm_ms), 29.5));
    EXPECT(near(gemm_ms, 4.0));
    ooc_estimate_ms(&p, &slow, &gemm_ms);
    EXPECT(near(gemm_ms, 2.0));
    /* Fewer copy engines: at least the floor of all copies and GEMMs.
     * One engine: in 24 + out 8 = 32; none: + GEMMs 2 = 34; three
     * engines are as good as two. */
    ooc_rates one_engine = slow, no_engine = slow, three = slow;
    one_engine.copy_engines = 1;
    no_engine.copy_engines = 0;
    three.copy_engines = 3;
    EXPECT(near(ooc_estimate_ms(&p, &one_engine, NULL), 32.0));
    EXPECT(near(ooc_estimate_ms(&p, &no_engine, NULL), 34.0));
    EXPECT(near(ooc_estimate_ms(&p, &three, NULL), 29.25));
    /* The resident replay of 4 panels (20.25 above): in 16 + out 8; its
     * GEMMs are not tiled ones. */
    ooc_plan r4;
    ooc_layout_resident(&r4, 1000, 8, 250, 2);
    EXPECT(near(ooc_estimate_ms(&r4, &one_engine, NULL), 24.0));
    EXPECT(near(ooc_estimate_ms(&r4, &no_engine, NULL), 26.0));
    EXPECT(near(ooc_estimate_ms(&r4, &thin, NULL), 20.25));
    /* The same plan with each tile in 2 bands of 250 rows. Tile 0's last
     * B piece is in by 13; its GEMM runs a band at a time (0.125 each,
     * 13..13.125..13.25), and each band goes home once done (2 ms each):
     * by 15.125 and 17.125. Tile 1 takes its first two B pieces band by
     * band: A 13..15, B ..17, B ..19; band 0 (its rows home at 15.125)
     * of piece 0 17..17.125, of piece 1 19..19.125; band 1 (home at
     * 17.125) 19.125..19.25 and ..19.375; then pack 9..10, A 19..21, B
     * ..23 (GEMM to 23.25), B ..25; its bands 25..25.125, ..25.25, home
     * 27.125 and 29.125. */
    p.bands = 2;
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 29.125));
    p.bands = 1;
    /* Band arithmetic: rows a band, which tiles start band by band, and
     * which band of the previous tile a band waits for (the first whose
     * end reaches its own, else the last). */
    EXPECT(ooc_band_rows(&p, 500) == 500);
    p.bands = OOC_BANDS;
    EXPECT(ooc_band_rows(&p, 5000) == 625 && ooc_band_rows(&p, 1001) == 126);
    EXPECT(tile_count(1001, ooc_band_rows(&p, 1001)) == 8);
    EXPECT(ooc_head_pieces(&p, 0) == 0 && ooc_head_pieces(&p, 1) == 2);
    p.bands = 1;
    EXPECT(ooc_head_pieces(&p, 1) == 0);
    size_t ends[] = {250000, 500000};
    EXPECT(ooc_band_to_wait(ends, 2, 250000) == 0);
    EXPECT(ooc_band_to_wait(ends, 2, 250001) == 1);
    EXPECT(ooc_band_to_wait(ends, 2, 600000) == 1);
    EXPECT(ooc_band_to_wait(ends, 0, 1) == 0);
    /* A second C buffer never makes the replay slower. */
    ooc_plan two;
    ooc_layout_tiled(&two, 1000, 8, 500, 1000, 250, 500, 2);
    EXPECT(two.c_buffers == 2 && two.device_bytes > p.device_bytes);
    EXPECT(ooc_head_pieces(&two, 1) == 0 && ooc_head_pieces(&two, 2) == 2);
    EXPECT(ooc_estimate_ms(&two, &slow, NULL) <= 29.125 + 1e-9);
    /* Row strips with whole-row pieces copy nothing 2D and pack nothing:
     * the packing rate does not matter. */
    ooc_layout_tiled(&p, 1000, 8, 500, 1000, 250, 1000, 2);
    EXPECT(p.a_k == 1000 && p.a_pieces == 1 && p.k_pieces == 4);
    EXPECT(p.h2d_rows_2d == 0 && p.d2h_rows_2d == 0);
    EXPECT(p.staging_bytes == 0);
    EXPECT(near(ooc_estimate_ms(&p, &slow_pack, NULL),
                ooc_estimate_ms(&p, &free_pack, NULL)));
    /* A pieces are whole numbers of B pieces, edges included: n = 1001,
     * A pieces of 512 and 489 columns, B pieces of 256, 256 | 256, 233. */
    ooc_layout_tiled(&p, 1001, 8, 1001, 1001, 256, 700, 1);
    EXPECT(p.a_k == 512 && p.a_pieces == 2 && p.k_pieces == 4);
    size_t k0;
    EXPECT(ooc_b_piece(&p, 1, 0, &k0) == 256 && k0 == 512);
    EXPECT(ooc_b_piece(&p, 1, 1, &k0) == 233 && k0 == 768);
    EXPECT(ooc_b_piece(&p, 1, 2, &k0) == 0);
}

int main(void)
{
    counts_and_edges();
    io_bound();
    estimates_by_hand();

    /* The tutorial's case: 10000^2 float64 in 1 GiB of 32 MiB chunks.
     * B (800 MB) fits with 4 panels of 834 rows (66.72 MB each): 12
     * panels, B in 20 pieces of 500 rows, 1.6 GB in, nothing 2D: each
     * matrix once, the I/O bound itself. */
    ooc_plan p, q;
    size_t gib = (size_t)1 << 30, chunk = 32 * MIB;
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, NULL, OOC_ANY, &p) == 0);
    expect_valid_resident(&p, 10000, gib, chunk);
    EXPECT(p.tile_rows == 834 && p.row_tiles == 12 && p.c_buffers == 2);
    EXPECT(p.tile_k == 500 && p.k_pieces == 20 && p.fill_panels == 2);
    EXPECT(p.device_bytes == 800000000u + 4u * 66720000u);
    EXPECT(p.h2d_bytes == 1600000000u && p.d2h_bytes == 800000000u);
    EXPECT(over_bound(&p, gib) == 1.0);
    char text[640];
    EXPECT(strcmp(ooc_plan_describe(&p, text, sizeof text),
                  "B resident, uploaded in 20 pieces of 500 rows; A in and "
                  "C out in 12 row panels of 834 (edge 826), the first 2 "
                  "computed piece by piece while B arrives\n  B + 2 A + 2 C "
                  "panels = 1017.5 MiB on the GPU; moves 1.600 GB in, 0.800 "
                  "GB out, every copy whole rows; estimate 0.00 ms") == 0);

    /* With H200-like rates the resident plan wins at 1 GiB too (same
     * bytes as one big tile, but no 2D copies), and cannot beat B's
     * upload plus the GEMMs that need all of B. */
    ooc_rates rates = {.h2d_gbps = 55.0, .d2h_gbps = 55.0,
                       .h2d_row_us = 0.04, .d2h_row_us = 0.04,
                       .pack_gbps = 68.0, .pack_threads = 8,
                       .gemm_tflops = 60.0, .copy_engines = 2};
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, &rates, OOC_ANY, &p) == 0);
    expect_valid_resident(&p, 10000, gib, chunk);
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, &rates, OOC_TILED, &q) == 0);
    expect_valid_tiled(&q, 10000, gib, chunk);
    EXPECT(p.estimate_ms < q.estimate_ms);
    EXPECT(near(p.estimate_ms, ooc_estimate_ms(&p, &rates, NULL)));
    double gemm_ms;
    ooc_estimate_ms(&p, &rates, &gemm_ms);
    EXPECT(gemm_ms > 33.3 && gemm_ms < 33.4);      /* 2e12 / 60e12 */
    EXPECT(p.estimate_ms > 800e6 / 55e6);
    EXPECT(p.estimate_ms > gemm_ms && p.estimate_ms < 1.6 * gemm_ms);

    /* 256 MiB: B does not fit. Whether A pieces are packed at the H200
     * host's rate or for free, and with no rates at all, the plan is C in
     * square
     * tiles of 5000 (one C buffer, most of the budget) with A and B
     * streamed past: 3.2 GB in, 0.8 GB out, within 1.5x of the bound
     * (2.762 GB), where the plan this replaced (4 x 2 tiles, two C
     * buffers: 4.8 GB in) was at 2.03x and slower by its own estimate. */
    ooc_rates free_pack = rates;
    free_pack.pack_gbps = 0;
    const ooc_rates *at_256[] = {&rates, &free_pack, NULL};
    for (size_t i = 0; i < 3; i++) {
        EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, at_256[i],
                             OOC_ANY, &p) == 0);
        expect_valid_tiled(&p, 10000, 256 * MIB, chunk);
        EXPECT(p.tile_rows == 5000 && p.tile_cols == 5000);
        EXPECT(p.c_buffers == 1 && p.h2d_bytes == 3200000000u);
        EXPECT(over_bound(&p, 256 * MIB) <= 1.5);
        EXPECT(p.tile_rows * p.tile_cols * 8 >= 0.7 * 256 * MIB);
        EXPECT(p.a_k < 10000 && p.staging_bytes == 2 * 5000 * p.a_k * 8);
        EXPECT(p.pack_threads == (at_256[i] ? 8 : 0));
    }
    ooc_layout_tiled(&q, 10000, 8, 2500, 5000, 556, 556, 2);
    EXPECT(round_up(q.device_bytes, chunk) <= 256 * MIB);
    EXPECT(over_bound(&q, 256 * MIB) > 2.0);
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    EXPECT(p.estimate_ms < ooc_estimate_ms(&q, &rates, NULL));

    /* Packed faster than the link, A's packing hides under the copies
     * but for the first piece; packed slower, it sets the pace: a plan
     * that packs cannot beat all of A's packing (A once per tile column)
     * at that rate. */
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    double packed_ms = p.estimate_ms;
    EXPECT(packed_ms > ooc_estimate_ms(&p, &free_pack, NULL));
    EXPECT(packed_ms < ooc_estimate_ms(&p, &free_pack, NULL) +
                           2.0 * 5000 * p.a_k * 8 / 68e6);
    ooc_rates slow_pack = rates;
    slow_pack.pack_gbps = 5.0;
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &slow_pack, OOC_ANY,
                         &q) == 0);
    expect_valid_tiled(&q, 10000, 256 * MIB, chunk);
    EXPECT(q.estimate_ms > packed_ms);
    EXPECT(q.staging_bytes == 0 ||
           q.estimate_ms >= 8e8 * (double)q.col_tiles / 5e6);

    /* Resident needs B plus one slot of 64-row panels, each aligned to
     * 256 bytes: 810.24 MB, 25 chunks. Below that, no resident plan. */
    size_t least = ooc_min_budget(10000, 8, chunk, OOC_RESIDENT);
    EXPECT(least == 25 * chunk);
    EXPECT(ooc_plan_make(10000, 8, least, chunk, NULL, OOC_RESIDENT,
                         &p) == 0);
    expect_valid_resident(&p, 10000, least, chunk);
    EXPECT(ooc_plan_make(10000, 8, least - 1, chunk, NULL, OOC_RESIDENT,
                         &p) == -1);
    EXPECT(p.kind == OOC_RESIDENT && p.tile_rows == 64);
    EXPECT(p.device_bytes == 800000000u + 2u * 5120000u);

    /* When the GEMMs dominate, tiny tiles would shorten the model's last
     * copy out for free; the planner must not fall for that. */
    ooc_rates slow_gpu = {.h2d_gbps = 55.0, .d2h_gbps = 55.0,
                          .gemm_tflops = 5.0, .copy_engines = 2};
    EXPECT(ooc_plan_make(20000, 8, gib, OOC_POOL_GRANULE, &slow_gpu,
                         OOC_ANY, &p) == 0);
    expect_valid_tiled(&p, 20000, gib, OOC_POOL_GRANULE);
    EXPECT(p.row_tiles <= 4 && p.col_tiles <= 4);

    /* --quick: n = 2001 in 64 MiB: B (32 MB) stays with several panels;
     * --plan tiled gets one tile with edge pieces. */
    EXPECT(ooc_plan_make(2001, 8, 64 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    expect_valid_resident(&p, 2001, 64 * MIB, chunk);
    EXPECT(p.row_tiles > 2 && p.k_pieces == 4 && p.tile_k == 501);
    EXPECT(ooc_plan_make(2001, 8, 64 * MIB, chunk, &rates, OOC_TILED, &p)
           == 0);
    expect_valid_tiled(&p, 2001, 64 * MIB, chunk);
    EXPECT(p.row_tiles * p.col_tiles == 1 && p.k_pieces > 1);
    /* n = 3001: B (72 MB) does not fit in 64 MiB: row strips. n = 4001
     * in 32 MiB: tiles in both directions. */
    EXPECT(ooc_plan_make(3001, 8, 64 * MIB, chunk, &rates, OOC_RESIDENT,
                         &p) == -1);
    EXPECT(ooc_plan_make(3001, 8, 64 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    expect_valid_tiled(&p, 3001, 64 * MIB, chunk);
    EXPECT(p.row_tiles > 1 && p.col_tiles == 1);
    EXPECT(ooc_plan_make(4001, 8, 32 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    expect_valid_tiled(&p, 4001, 32 * MIB, chunk);
    EXPECT(p.row_tiles > 1 && p.col_tiles > 1);

    /* Odd sizes: n = 1 and 7 fit whole in one resident panel; n = 1001
     * in 24 MB (B is 8 MB) takes several. */
    EXPECT(ooc_plan_make(1, 8, 2 * MIB, OOC_POOL_GRANULE, &rates, OOC_ANY,
                         &p) == 0);
    expect_valid(&p, 1, 2 * MIB, OOC_POOL_GRANULE);
    ooc_layout_resident(&p, 7, 8, 7, 2);
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
                        EXPECT(over_bound(&p, budgets[b]) >= 1.0);
                    } else {
                        EXPECT(round_up(p.device_bytes, granule) >
                               budgets[b]);
                    }
                }
            }
    /* n = 1: three 256-byte buffers (B, A, C) are the least; a tile
     * needs five (C, two A, two B). */
    EXPECT(ooc_min_budget(1, 8, 1, OOC_ANY) == 768);
    EXPECT(ooc_min_budget(1, 8, 1, OOC_TILED) == 1280);
    /* The smallest budget that can work, n = 10000: one 64 x 64 tile and
     * four 64 x 64 pieces, 160 KiB, which one 2 MiB page holds; a plan at
     * 2 MiB moves far more, but works. */
    EXPECT(ooc_min_budget(10000, 8, 1, OOC_TILED) == 5 * 32768);
    EXPECT(ooc_min_budget(10000, 8, OOC_POOL_GRANULE, OOC_ANY) == 2 * MIB);
    EXPECT(ooc_plan_make(10000, 8, 2 * MIB, OOC_POOL_GRANULE, &rates,
                         OOC_ANY, &p) == 0);
    expect_valid_tiled(&p, 10000, 2 * MIB, OOC_POOL_GRANULE);
    EXPECT(ooc_plan_make(10000, 8, 5 * 32768, 1, NULL, OOC_ANY, &p) == 0);
    expect_valid_tiled(&p, 10000, 5 * 32768, 1);
    EXPECT(p.tile_rows == 64 && p.tile_k == 64 && p.c_buffers == 1);
    EXPECT(ooc_plan_make(10000, 8, 5 * 32768 - 1, 1, NULL, OOC_ANY, &p)
           == -1);
    /* n = 2001: the smallest side is 63 (32 tiles), one C tile of 31752
     * bytes (32000 aligned) and four pieces of 63 x 64 (32256 each); in
     * 32 MiB chunks, one chunk. */
    EXPECT(ooc_min_budget(2001, 8, 1, OOC_ANY) == 32000 + 4 * 32256);
    EXPECT(ooc_min_budget(2001, 8, chunk, OOC_ANY) == chunk);
    EXPECT(ooc_plan_make(7, 8, 0, 1, NULL, OOC_ANY, &p) == -1);
    EXPECT(ooc_plan_make(0, 8, 1 << 20, 1, NULL, OOC_ANY, &p) == -1);
    /* The lab's largest n (2^20) in byte counts: 8 TiB a matrix, 64 x 64
     * tiles read A and B 64 times each: 2^50 bytes, no overflow. */
    size_t big = (size_t)1 << 20;
    ooc_layout_tiled(&p, big, 8, big / 64, big / 64, 256, 256, 2);
    EXPECT(p.h2d_bytes == ((size_t)8 << 40) * 128);
    EXPECT(p.h2d_rows_2d == big * 64 * 64);
    EXPECT(ooc_min_budget(big, 8, OOC_POOL_GRANULE, OOC_ANY) == 2 * MIB);
    return test_summary();
}
