/* test_04_tiling.c - tile counts, edge tiles and the out-of-core planner
 * of 04_memory: both plans' layouts, bytes and estimates (replayed by
 * hand), the I/O lower bound's arithmetic, the choice between plans near
 * the bound at 256 MiB, and budgets at and below the least, down to the
 * tiniest, at sizes that do and do not divide evenly. */
#include <math.h>
#include <stdlib.h>

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

/* The walk of a tiled plan, step by step: every tile of C takes every
 * piece of k exactly once, from the step it enters to the step it
 * leaves, in one C buffer; no buffer holds two tiles; at most per_step
 * enter at a step; each column takes ooc_column_steps steps; and the
 * bytes and 2D rows the steps copy are the plan's. Plans of more than
 * WALK_MOST steps are not walked (the lab's largest sizes). */
enum { WALK_MOST = 2000000 };

static void expect_walk(const ooc_plan *p)
{
    size_t n = p->n, tiles = p->row_tiles * p->col_tiles;
    if (tiles * p->k_pieces > WALK_MOST)
        return;
    size_t *taken = calloc(tiles, sizeof *taken);   /* pieces so far */
    size_t *slot = calloc(tiles, sizeof *slot);
    EXPECT(taken && slot);
    if (!taken || !slot) {
        free(taken);
        free(slot);
        return;
    }
    ooc_walk w;
    ooc_step s;
    ooc_walk_start(&w, p);
    size_t in = 0, rows_2d = 0, steps = 0, col = 0, col_steps = 0, bad = 0;
    while (ooc_walk_next(&w, &s)) {
        if (s.col != col) {
            bad += s.col != col + 1 || col_steps != ooc_column_steps(p);
            col = s.col;
            col_steps = 0;
        }
        col_steps++;
        steps++;
        bad += s.col0 != s.col * p->tile_cols;
        bad += s.cols != tile_extent(n, p->tile_cols, s.col);
        bad += s.piece != (col_steps - 1) % p->k_pieces;
        bad += s.k0 != s.piece * p->tile_k;
        bad += s.k != tile_extent(n, p->tile_k, s.piece);
        bad += s.count == 0 || s.count > p->c_buffers;
        size_t entering = 0;
        for (size_t i = 0; i < s.count; i++) {
            const ooc_active *t = &s.tile[i];
            size_t row = t->row0 / p->tile_rows;
            size_t id = row * p->col_tiles + s.col;
            bad += t->slot >= p->c_buffers;
            bad += i > 0 && t->slot <= s.tile[i - 1].slot;
            bad += t->row0 % p->tile_rows != 0 || row >= p->row_tiles;
            bad += t->rows != tile_extent(n, p->tile_rows, row);
            bad += t->enter != (taken[id] == 0);
            if (t->enter)
                slot[id] = t->slot;
            bad += slot[id] != t->slot;
            taken[id]++;
            bad += t->leave != (taken[id] == p->k_pieces);
            entering += (size_t)t->enter;
            in += t->rows * s.k * p->elem_bytes;
        }
        bad += entering > p->per_step;
        in += s.k * s.cols * p->elem_bytes;
        rows_2d += s.cols < n ? s.k : 0;
    }
    EXPECT(bad == 0);
    EXPECT(col + 1 == p->col_tiles && col_steps == ooc_column_steps(p));
    EXPECT(steps == p->col_tiles * ooc_column_steps(p));
    size_t short_tiles = 0;
    for (size_t t = 0; t < tiles; t++)
        short_tiles += taken[t] != p->k_pieces;
    EXPECT(short_tiles == 0);
    EXPECT(in == p->h2d_bytes && rows_2d == p->h2d_rows_2d);
    free(taken);
    free(slot);
}

/* Everything a tiled plan promises, for the n and budget it was made for. */
static void expect_valid_tiled(const ooc_plan *p, size_t n, size_t budget,
                               size_t granule)
{
    size_t rows = p->tile_rows, cols = p->tile_cols, s = p->c_buffers;
    EXPECT(p->kind == OOC_TILED);
    EXPECT(round_up(p->device_bytes, granule) <= budget);
    EXPECT(p->row_tiles * rows >= n && (p->row_tiles - 1) * rows < n);
    EXPECT(p->col_tiles * cols >= n && (p->col_tiles - 1) * cols < n);
    EXPECT(p->tile_k <= n && p->tile_k >= (n < OOC_MIN_K ? n : OOC_MIN_K));
    /* The planner's pieces: a whole number of OOC_K_ALIGN, or all of k. */
    EXPECT(p->tile_k == n || p->tile_k % OOC_K_ALIGN == 0);
    EXPECT(p->k_pieces == tile_count(n, p->tile_k));
    EXPECT(s >= 1 && s <= OOC_MAX_SLOTS && s <= p->row_tiles);
    EXPECT(p->per_step == tile_count(s, p->k_pieces));
    EXPECT(p->d2h_bytes == n * n * 8);
    /* A once per column of tiles; B at least once per c_buffers tile
     * rows. */
    EXPECT(p->h2d_bytes >=
           n * n * 8 * (tile_count(p->row_tiles, s) + p->col_tiles));
    /* 2D rows: B pieces and C tiles narrower than n. A pieces never: a
     * narrow one is packed into one of two host staging buffers first. */
    EXPECT(p->d2h_rows_2d == (cols < n ? n * p->col_tiles : 0));
    EXPECT((p->h2d_rows_2d == 0) == (cols == n));
    EXPECT(p->staging_bytes == (p->tile_k < n ? 2 * s * rows * p->tile_k * 8
                                              : 0));
    /* Buffers in order, aligned, not overlapping, inside the slab: the C
     * buffers back to back, then two A and two B. */
    EXPECT(p->c_offset[0] == 0 && p->a_offset[0] % OOC_ALIGN == 0);
    EXPECT(p->a_offset[0] >= s * rows * cols * 8);
    EXPECT(p->a_offset[1] >= p->a_offset[0] + s * rows * p->tile_k * 8);
    EXPECT(p->b_offset[0] >= p->a_offset[1] + s * rows * p->tile_k * 8);
    EXPECT(p->b_offset[1] >= p->b_offset[0] + p->tile_k * cols * 8);
    EXPECT(p->device_bytes >= p->b_offset[1] + p->tile_k * cols * 8);
    EXPECT(p->a_offset[1] % OOC_ALIGN == 0 && p->b_offset[0] % OOC_ALIGN == 0
           && p->b_offset[1] % OOC_ALIGN == 0);
    expect_walk(p);
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

/* The bound by direction (C out once, the rest in) and its time: with
 * two copy engines the slower direction, with one or none the sum. */
static void io_bound_time(void)
{
    double in, out;
    /* 1 GiB, n = 10000: the bound is each matrix once, 2.4 GB: A and B
     * in (1.6 GB), C out (0.8 GB). */
    ooc_io_bound_split(10000, 8, 1024 * MIB, &in, &out);
    EXPECT(in == 1.6e9 && out == 0.8e9);
    /* 256 MiB: the streaming bound, 2.762 GB, of which C's 0.8 GB out. */
    ooc_io_bound_split(10000, 8, 256 * MIB, &in, &out);
    EXPECT(out == 0.8e9);
    EXPECT(near_rel(in + out, ooc_io_bound_bytes(10000, 8, 256 * MIB,
                                                 NULL, NULL)));
    /* By hand, 1.6 GB in at 50 GB/s = 32 ms, 0.8 GB out at 40 GB/s = 20
     * ms: overlapped 32 ms, taking turns 52 ms. */
    EXPECT(near_rel(ooc_io_bound_ms(1.6e9, 0.8e9, 50.0, 40.0, 2), 32.0));
    EXPECT(near_rel(ooc_io_bound_ms(1.6e9, 0.8e9, 50.0, 40.0, 3), 32.0));
    EXPECT(near_rel(ooc_io_bound_ms(1.6e9, 0.8e9, 50.0, 40.0, 1), 52.0));
    EXPECT(near_rel(ooc_io_bound_ms(1.6e9, 0.8e9, 50.0, 40.0, 0), 52.0));
    /* The slower direction decides, whichever it is: 0.8 GB out at 10
     * GB/s = 80 ms against 32 ms in. */
    EXPECT(near_rel(ooc_io_bound_ms(1.6e9, 0.8e9, 50.0, 10.0, 2), 80.0));
    /* Not the old one-rate line: all 2.4 GB at the rate in (48 ms). */
    EXPECT(!near_rel(ooc_io_bound_ms(1.6e9, 0.8e9, 50.0, 40.0, 2), 48.0));
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

    /* Tiled, n = 1000: 4 row tiles of 250 x 1000 (whole rows of B and
     * C: nothing 2D), 2 C buffers, B pieces of 500 rows (2 a cycle, 4 MB,
     * 4 ms), A pieces of 250 x 500 a tile (1 MB: packed in 0.5 ms,
     * copied in 1), GEMMs of 250 x 1000 x 500 (0.25 ms), a tile home in 2.
     * The walk: tile 0 enters buffer 0 at step 0; tile 1 buffer 1 at 1,
     * when tile 0 leaves; tile 2 buffer 0 at 2, when tile 1 leaves; tile
     * 3 buffer 1 at 3; tile 3 leaves at 4. Five steps, pieces 0 1 0 1 0:
     * B 20 MB, A 8 MB (all of A once). */
    ooc_layout_tiled(&p, 1000, 8, 250, 1000, 500, 2);
    EXPECT(p.row_tiles == 4 && p.col_tiles == 1 && p.c_buffers == 2);
    EXPECT(p.k_pieces == 2 && p.per_step == 1);
    EXPECT(ooc_column_steps(&p) == 5);
    EXPECT(p.h2d_bytes == 28000000 && p.h2d_rows_2d == 0);
    EXPECT(p.d2h_rows_2d == 0 && p.staging_bytes == 4000000);
    expect_walk(&p);
    struct { size_t count, slot[2], row0[2]; int enter[2], leave[2]; }
    want[] = {{1, {0}, {0}, {1}, {0}},
              {2, {0, 1}, {0, 250}, {0, 1}, {1, 0}},
              {2, {0, 1}, {500, 250}, {1, 0}, {0, 1}},
              {2, {0, 1}, {500, 750}, {0, 1}, {1, 0}},
              {1, {1}, {750}, {0}, {1}}};
    ooc_walk w;
    ooc_step st;
    ooc_walk_start(&w, &p);
    for (size_t g = 0; g < 5; g++) {
        EXPECT(ooc_walk_next(&w, &st) == 1);
        EXPECT(st.piece == g % 2 && st.count == want[g].count);
        for (size_t i = 0; i < st.count && i < 2; i++)
            EXPECT(st.tile[i].slot == want[g].slot[i] &&
                   st.tile[i].row0 == want[g].row0[i] &&
                   st.tile[i].rows == 250 &&
                   st.tile[i].enter == want[g].enter[i] &&
                   st.tile[i].leave == want[g].leave[i]);
    }
    EXPECT(ooc_walk_next(&w, &st) == 0);
    /* The replay. Each step: pack (once its staging buffer's last copy
     * is over), A, then B on the link (once the GEMMs of two steps ago
     * are over); the leaving tile's GEMM, and home; the entering one's,
     * once its buffer is home.
     * 0: pack ..0.5, A ..1.5, B ..5.5; tile 0 5.5..5.75.
     * 1: pack ..1.5, A ..7.5, B ..11.5; tile 0 ..11.75, home ..13.75;
     *    tile 1 ..12.
     * 2: pack ..2.5, A ..13.5, B ..17.5; tile 1 ..17.75, home ..19.75;
     *    tile 2 (buffer 0 home at 13.75) ..18.
     * 3: pack 7.5..8.5, A ..19.5, B ..23.5; tile 2 ..23.75, home ..25.75;
     *    tile 3 (buffer 1 home at 19.75) ..24.
     * 4: pack 13.5..14, A 23.5..24.5, B ..28.5; tile 3 ..28.75, home
     *    ..30.75. */
    EXPECT(near(ooc_estimate_ms(&p, &slow, NULL), 30.75));
    /* No per-row cost: nothing here is 2D. */
    ooc_rates dear_rows = slow;
    dear_rows.h2d_row_us = 100.0;
    EXPECT(near(ooc_estimate_ms(&p, &dear_rows, NULL), 30.75));
    /* Packing enters it: free, the first A piece goes at once (each step
     * 0.5 earlier until step 2 ... home 30.25); at 0.25 GB/s (4 ms a
     * tile's part) the host sets the pace: packs end at 4, 12, 20, 28,
     * 32; A ..5, B ..9; ..14, ..18; ..22, ..26; ..30, ..34; ..35, ..39;
     * the last GEMM ..39.25, home ..41.25. */
    ooc_rates free_pack = slow, slow_pack = slow;
    free_pack.pack_gbps = 0;
    slow_pack.pack_gbps = 0.25;
    EXPECT(near(ooc_estimate_ms(&p, &free_pack, NULL), 30.25));
    EXPECT(near(ooc_estimate_ms(&p, &slow_pack, NULL), 41.25));
    /* The tiled GEMMs at a rate of their own: at 0.5 TFLOP/s each takes
     * 0.5; the copies stay as they were: 6.0; leave 12.0, home 14, enter
     * 12.5; leave 18, home 20, enter 18.5; leave 24, home 26, enter 24.5;
     * leave 29, home 31. The resident plan keeps gemm_tflops. */
    ooc_rates thin = slow;
    thin.tiled_gemm_tflops = 0.5;
    double gemm_ms;
    EXPECT(near(ooc_estimate_ms(&p, &thin, &gemm_ms), 31.0));
    EXPECT(near(gemm_ms, 4.0));
    ooc_estimate_ms(&p, &slow, &gemm_ms);
    EXPECT(near(gemm_ms, 2.0));
    /* C read and written by each GEMM, priced at the device copy rate:
     * each piece's GEMMs pass over all of C (8 MB) once, 2 pieces: 16
     * ms at 1 GB/s on top of the multiply-adds; a rate measured for the
     * plan's shape includes it. */
    ooc_rates c_pass = slow;
    c_pass.d2d_gbps = 1.0;
    ooc_estimate_ms(&p, &c_pass, &gemm_ms);
    EXPECT(near(gemm_ms, 18.0));
    c_pass.tiled_gemm_tflops = 0.5;
    ooc_estimate_ms(&p, &c_pass, &gemm_ms);
    EXPECT(near(gemm_ms, 4.0));
    /* Fewer copy engines: at least the floor of all copies and GEMMs.
     * One engine: in 28 + out 8 = 36; none: + GEMMs 2 = 38; three
     * engines are as good as two. */
    ooc_rates one_engine = slow, no_engine = slow, three = slow;
    one_engine.copy_engines = 1;
    no_engine.copy_engines = 0;
    three.copy_engines = 3;
    EXPECT(near(ooc_estimate_ms(&p, &one_engine, NULL), 36.0));
    EXPECT(near(ooc_estimate_ms(&p, &no_engine, NULL), 38.0));
    EXPECT(near(ooc_estimate_ms(&p, &three, NULL), 30.75));
    /* The resident replay of 4 panels (20.25 above): in 16 + out 8; its
     * GEMMs are not tiled ones. */
    ooc_plan r4;
    ooc_layout_resident(&r4, 1000, 8, 250, 2);
    EXPECT(near(ooc_estimate_ms(&r4, &one_engine, NULL), 24.0));
    EXPECT(near(ooc_estimate_ms(&r4, &no_engine, NULL), 26.0));
    EXPECT(near(ooc_estimate_ms(&r4, &thin, NULL), 20.25));
    /* One C buffer: each tile waits for the one before to go home; the
     * walk takes 8 steps (B 32 MB, each tile row's B once) and the
     * replay is slower than with two. */
    ooc_plan one;
    ooc_layout_tiled(&one, 1000, 8, 250, 1000, 500, 1);
    EXPECT(one.c_buffers == 1 && ooc_column_steps(&one) == 8);
    EXPECT(one.h2d_bytes == 40000000);
    expect_walk(&one);
    EXPECT(ooc_estimate_ms(&one, &slow, NULL) > 30.75);
    /* More C buffers than pieces: tiles enter 2 a step (4 buffers, 2
     * pieces), so none waits a whole cycle for a buffer. Buffers are
     * capped at the tile rows. */
    ooc_plan four;
    ooc_layout_tiled(&four, 1000, 8, 250, 1000, 500, 6);
    EXPECT(four.c_buffers == 4 && four.per_step == 2);
    EXPECT(ooc_column_steps(&four) == 3);
    expect_walk(&four);
    /* Whole-row pieces (tile_k = n) copy nothing 2D and pack nothing:
     * the packing rate does not matter; every tile enters and leaves at
     * the one step of its cycle. */
    ooc_layout_tiled(&p, 1000, 8, 500, 1000, 1000, 2);
    EXPECT(p.k_pieces == 1 && p.per_step == 2);
    EXPECT(p.h2d_rows_2d == 0 && p.d2h_rows_2d == 0);
    EXPECT(p.staging_bytes == 0);
    expect_walk(&p);
    EXPECT(near(ooc_estimate_ms(&p, &slow_pack, NULL),
                ooc_estimate_ms(&p, &free_pack, NULL)));
    /* Edges: n = 1001 in tiles of 300 x 600 (edges 101 rows, 401
     * columns) and pieces of 256 (edge 233), 3 C buffers: B pieces and C
     * tiles 2D. */
    ooc_layout_tiled(&p, 1001, 8, 300, 600, 256, 3);
    EXPECT(p.row_tiles == 4 && p.col_tiles == 2 && p.k_pieces == 4);
    EXPECT(p.h2d_rows_2d > 0 && p.d2h_rows_2d == 2 * 1001);
    expect_walk(&p);
}

int main(void)
{
    counts_and_edges();
    io_bound();
    io_bound_time();
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

    /* With H200-like rates the resident plan wins at 1 GiB too: the best
     * tiled plan's estimate is within 5% of it, but it moves more bytes.
     * It cannot beat B's upload plus the GEMMs that need all of B. */
    ooc_rates rates = {.h2d_gbps = 55.0, .d2h_gbps = 55.0,
                       .h2d_row_us = 0.04, .d2h_row_us = 0.04,
                       .pack_gbps = 68.0, .pack_threads = 8,
                       .gemm_tflops = 60.0, .d2d_gbps = 2500.0,
                       .copy_engines = 2};
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, &rates, OOC_ANY, &p) == 0);
    expect_valid_resident(&p, 10000, gib, chunk);
    EXPECT(ooc_plan_make(10000, 8, gib, chunk, &rates, OOC_TILED, &q) == 0);
    expect_valid_tiled(&q, 10000, gib, chunk);
    EXPECT(p.estimate_ms < 1.05 * q.estimate_ms);
    EXPECT(p.h2d_bytes < q.h2d_bytes);
    EXPECT(near(p.estimate_ms, ooc_estimate_ms(&p, &rates, NULL)));
    double gemm_ms;
    ooc_estimate_ms(&p, &rates, &gemm_ms);
    /* 2e12 / 60e12 = 33.33 ms, and C read and written once a panel, 20
     * times for the 2 x 834 rows computed piece by piece: 4.1692e8
     * elements x 8 bytes at 2.5 TB/s, 1.334 ms. */
    EXPECT(gemm_ms > 34.66 && gemm_ms < 34.68);
    EXPECT(p.estimate_ms > 800e6 / 55e6);
    EXPECT(p.estimate_ms > gemm_ms && p.estimate_ms < 1.6 * gemm_ms);

    /* 256 MiB: B does not fit. Whether A pieces are packed at the H200
     * host's rate or for free, the plan is C in tiles of 5000 columns, a
     * few of them on the GPU at once, most of the budget, with A and B
     * streamed past in pieces of at least 400: 3.2 GB in and a little more
     * for the tiles coming and going, within 1.5x of the bound (2.762
     * GB). With no rates at all, the fewest bytes: one 5000 x 5000 tile
     * at a time, 3.2 GB. The plan with 4 x 2 tiles of 2500 x 5000, one at
     * a time, moves 4.8 GB (2.03x) and is slower by its own estimate. */
    ooc_rates free_pack = rates;
    free_pack.pack_gbps = 0;
    const ooc_rates *at_256[] = {&rates, &free_pack, NULL};
    for (size_t i = 0; i < 3; i++) {
        EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, at_256[i],
                             OOC_ANY, &p) == 0);
        expect_valid_tiled(&p, 10000, 256 * MIB, chunk);
        EXPECT(p.tile_cols == 5000 && p.tile_k >= 400);
        EXPECT(over_bound(&p, 256 * MIB) <= 1.5);
        EXPECT(p.c_buffers * p.tile_rows * p.tile_cols * 8 >=
               0.7 * 256 * MIB);
        EXPECT(p.tile_k < 10000 &&
               p.staging_bytes == 2 * p.c_buffers * p.tile_rows *
                                      p.tile_k * 8);
        EXPECT(p.pack_threads == (at_256[i] ? 8 : 0));
        if (at_256[i])
            EXPECT(p.c_buffers > 1);
        else
            EXPECT(p.c_buffers == 1 && p.h2d_bytes == 3200000000u);
    }
    ooc_layout_tiled(&q, 10000, 8, 2500, 5000, 400, 1);
    EXPECT(round_up(q.device_bytes, chunk) <= 256 * MIB);
    EXPECT(q.h2d_bytes == 4800000000u && over_bound(&q, 256 * MIB) > 2.0);
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    EXPECT(p.estimate_ms < ooc_estimate_ms(&q, &rates, NULL));
    /* And faster by it than one 5000 x 5000 tile at a time, which moves
     * the least but waits for each tile to go home whole. */
    ooc_layout_tiled(&q, 10000, 8, 5000, 5000, 400, 1);
    EXPECT(round_up(q.device_bytes, chunk) <= 256 * MIB);
    EXPECT(p.estimate_ms < 0.95 * ooc_estimate_ms(&q, &rates, NULL));
    /* Within 5% of the fastest, the GEMMs' time comes before bytes:
     * pieces of 200 rows let 7 tiles of 834 x 5000 on (fewer bytes), but
     * the GEMMs pass over all of C at each piece, twice as often, and
     * take more than 5% longer than the plan's. */
    ooc_layout_tiled(&q, 10000, 8, 834, 5000, 200, 7);
    EXPECT(round_up(q.device_bytes, chunk) <= 256 * MIB);
    EXPECT(q.h2d_bytes < p.h2d_bytes);
    double q_gemm;
    ooc_estimate_ms(&q, &rates, &q_gemm);
    EXPECT(q_gemm > 1.05 * p.gemm_ms);

    /* Packed faster than the link, A's packing hides under the copies
     * but for the first piece; packed slower, it sets the pace: a plan
     * that packs cannot beat all of A's packing (A once per tile column)
     * at that rate. */
    EXPECT(ooc_plan_make(10000, 8, 256 * MIB, chunk, &rates, OOC_ANY, &p)
           == 0);
    double packed_ms = p.estimate_ms;
    EXPECT(packed_ms > ooc_estimate_ms(&p, &free_pack, NULL));
    EXPECT(packed_ms < ooc_estimate_ms(&p, &free_pack, NULL) +
                           2.0 * p.c_buffers * p.tile_rows * p.tile_k * 8 /
                               68e6);
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
    EXPECT(p.col_tiles == 1 && p.k_pieces > 1);
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
    ooc_layout_tiled(&p, big, 8, big / 64, big / 64, 256, 1);
    EXPECT(p.h2d_bytes == ((size_t)8 << 40) * 128);
    EXPECT(p.h2d_rows_2d == big * 64 * 64);
    EXPECT(ooc_min_budget(big, 8, OOC_POOL_GRANULE, OOC_ANY) == 2 * MIB);
    return test_summary();
}
