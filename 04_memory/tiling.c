/* tiling.c - tile counts, edge tiles, the out-of-core plans, their I/O
 * lower bound, their estimated time and the planner. */
#include "tiling.h"

#include <math.h>
#include <stdio.h>

#include "floor.h"
#include "units.h"

size_t tile_count(size_t n, size_t block)
{
    if (n == 0 || block == 0)
        return 0;
    return n / block + (n % block != 0);
}

size_t tile_extent(size_t n, size_t block, size_t index)
{
    if (index >= tile_count(n, block))
        return 0;
    size_t start = index * block;
    return n - start < block ? n - start : block;
}

static size_t align_up(size_t bytes)
{
    return (bytes + OOC_ALIGN - 1) / OOC_ALIGN * OOC_ALIGN;
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* The same number of blocks, made as even as they can be: 1000 in blocks
 * of at most 600 becomes two of 500 rather than 600 + 400. */
static size_t balanced(size_t n, size_t most)
{
    size_t blocks = tile_count(n, most);
    return blocks ? tile_count(n, blocks) : 0;
}

/* The smallest tile side (and resident panel) the planner tries: the
 * side of the tiling with OOC_MIN_K-element tiles, evened out. */
static size_t smallest_side(size_t n)
{
    return balanced(n, min_size(n, OOC_MIN_K));
}

/* a_k as a whole number of tile_k pieces, at least one; n when that
 * covers all of A's columns. */
static size_t whole_pieces(size_t n, size_t tile_k, size_t a_k)
{
    if (tile_k == 0 || a_k >= n)
        return n;
    size_t pieces = a_k / tile_k ? a_k / tile_k : 1;
    return min_size(pieces * tile_k, n);
}

size_t ooc_layout_tiled(ooc_plan *p, size_t n, size_t elem_bytes,
                        size_t tile_rows, size_t tile_cols, size_t tile_k,
                        size_t a_k, size_t c_buffers)
{
    p->kind = OOC_TILED;
    p->n = n;
    p->elem_bytes = elem_bytes;
    p->tile_rows = min_size(tile_rows, n);
    p->tile_cols = min_size(tile_cols, n);
    p->tile_k = min_size(tile_k, n);
    p->a_k = whole_pieces(n, p->tile_k, a_k);
    p->row_tiles = tile_count(n, p->tile_rows);
    p->col_tiles = tile_count(n, p->tile_cols);
    p->a_pieces = tile_count(n, p->a_k);
    p->k_pieces = 0;
    for (size_t ap = 0; ap < p->a_pieces; ap++)
        p->k_pieces += tile_count(tile_extent(n, p->a_k, ap), p->tile_k);
    p->c_buffers = p->row_tiles * p->col_tiles > 1 && c_buffers > 1 ? 2 : 1;
    p->fill_panels = 0;

    size_t c_bytes = align_up(p->tile_rows * p->tile_cols * elem_bytes);
    size_t a_bytes = align_up(p->tile_rows * p->a_k * elem_bytes);
    size_t b_bytes = align_up(p->tile_k * p->tile_cols * elem_bytes);
    /* C buffers, then the two A buffers, then the two B buffers; with one
     * C buffer both names point at it. */
    p->c_offset[0] = 0;
    p->c_offset[1] = p->c_buffers > 1 ? c_bytes : 0;
    size_t at = p->c_buffers * c_bytes;
    p->a_offset[0] = at;
    p->a_offset[1] = at + a_bytes;
    at += 2 * a_bytes;
    p->b_offset[0] = at;
    p->b_offset[1] = at + b_bytes;
    p->device_bytes = at + 2 * b_bytes;

    /* Tile (i, j) reads its rows of A (rows_i x n) and its columns of B
     * (n x cols_j); summed over all tiles that is all of A once per tile
     * column and all of B once per tile row, edge tiles included. An A
     * piece narrower than a row of A, or a tile narrower than a row of B
     * and C, is a 2D copy: count its rows. */
    size_t matrix = n * n * elem_bytes;
    p->h2d_bytes = matrix * (p->col_tiles + p->row_tiles);
    p->d2h_bytes = matrix;
    p->h2d_rows_2d = 0;
    p->d2h_rows_2d = 0;
    if (p->a_k < n)
        p->h2d_rows_2d += n * p->a_pieces * p->col_tiles;
    if (p->tile_cols < n) {
        p->h2d_rows_2d += n * p->row_tiles * p->col_tiles;
        p->d2h_rows_2d = n * p->col_tiles;
    }
    p->estimate_ms = 0;
    return p->device_bytes;
}

size_t ooc_layout_resident(ooc_plan *p, size_t n, size_t elem_bytes,
                           size_t panel_rows, size_t c_buffers)
{
    p->kind = OOC_RESIDENT;
    p->n = n;
    p->elem_bytes = elem_bytes;
    p->tile_rows = min_size(panel_rows, n);
    p->tile_cols = n;
    p->tile_k = balanced(n, min_size(n, OOC_FILL_ROWS));
    p->a_k = n;
    p->row_tiles = tile_count(n, p->tile_rows);
    p->col_tiles = n ? 1 : 0;
    p->k_pieces = tile_count(n, p->tile_k);
    p->a_pieces = n ? 1 : 0;
    /* Two slots (an A and a C panel each) let panel i + 1 come in and
     * panel i - 1 go home while panel i is computed; each slot's first
     * panel is computed piece by piece while B arrives. */
    p->c_buffers = p->row_tiles > 1 && c_buffers > 1 ? 2 : 1;
    p->fill_panels = p->c_buffers;

    size_t panel = align_up(p->tile_rows * n * elem_bytes);
    size_t at = align_up(n * n * elem_bytes);
    p->b_offset[0] = p->b_offset[1] = 0;
    for (size_t i = 0; i < 2; i++) {
        size_t slot = i < p->c_buffers ? i : 0;
        p->a_offset[i] = at + slot * panel;
        p->c_offset[i] = at + (p->c_buffers + slot) * panel;
    }
    p->device_bytes = at + 2 * p->c_buffers * panel;
    /* Whole rows everywhere: A and B once, C once, no 2D copy. */
    p->h2d_bytes = 2 * n * n * elem_bytes;
    p->d2h_bytes = n * n * elem_bytes;
    p->h2d_rows_2d = p->d2h_rows_2d = 0;
    p->estimate_ms = 0;
    return p->device_bytes;
}

size_t ooc_b_piece(const ooc_plan *p, size_t ap, size_t bp, size_t *k0)
{
    size_t a_cols = tile_extent(p->n, p->a_k, ap);
    if (k0)
        *k0 = ap * p->a_k + bp * p->tile_k;
    return tile_extent(a_cols, p->tile_k, bp);
}

/* Milliseconds to copy `bytes` at gbps, plus row_us for each 2D row. */
static double copy_ms(double bytes, double rows_2d, double gbps,
                      double row_us)
{
    return bytes / (gbps * 1e6) + rows_2d * row_us * 1e-3;
}

/* The tiled plan, replayed as outofcore.cu runs it. One clock for the
 * link in (the A and B copies share it, in the order they are issued),
 * one for the GEMMs, one for the copies out. a_free[s], b_free[s]: when
 * the GEMMs that read buffer s last were over; home[s]: when C buffer s
 * last went home. */
static double tiled_estimate(const ooc_plan *p, const ooc_rates *r)
{
    double e = (double)p->elem_bytes, flop_per_ms = r->gemm_tflops * 1e9;
    double link = 0, gemm = 0, out = 0;
    double a_free[2] = {0, 0}, b_free[2] = {0, 0}, home[2] = {0, 0};
    size_t n = p->n, ga = 0, gb = 0;
    for (size_t ti = 0; ti < p->row_tiles; ti++)
        for (size_t tj = 0; tj < p->col_tiles; tj++) {
            size_t tile = ti * p->col_tiles + tj, cb = tile % p->c_buffers;
            size_t rows = tile_extent(n, p->tile_rows, ti);
            size_t cols = tile_extent(n, p->tile_cols, tj);
            int first = 1;
            for (size_t ap = 0; ap < p->a_pieces; ap++, ga++) {
                size_t a_cols = tile_extent(n, p->a_k, ap), sa = ga % 2;
                link = fmax(link, ga >= 2 ? a_free[sa] : 0) +
                       copy_ms(e * (double)(rows * a_cols),
                               a_cols < n ? (double)rows : 0, r->h2d_gbps,
                               r->h2d_row_beside_us);
                double a_in = link;
                size_t pieces = tile_count(a_cols, p->tile_k);
                for (size_t bp = 0; bp < pieces; bp++, gb++) {
                    size_t k = ooc_b_piece(p, ap, bp, NULL), sb = gb % 2;
                    link = fmax(link, gb >= 2 ? b_free[sb] : 0) +
                           copy_ms(e * (double)(k * cols),
                                   cols < n ? (double)k : 0, r->h2d_gbps,
                                   r->h2d_row_beside_us);
                    double ready = fmax(a_in, link);
                    if (first && tile >= p->c_buffers)
                        ready = fmax(ready, home[cb]);
                    first = 0;
                    gemm = fmax(gemm, ready) +
                           2.0 * (double)rows * (double)cols * (double)k /
                               flop_per_ms;
                    b_free[sb] = gemm;
                }
                a_free[sa] = gemm;
            }
            out = fmax(out, gemm) +
                  copy_ms(e * (double)(rows * cols),
                          cols < n ? (double)rows : 0, r->d2h_gbps,
                          r->d2h_row_us);
            home[cb] = out;
        }
    return fmax(out, gemm);
}

/* The resident plan, replayed: each stream runs its operations in order,
 * each operation starts when its stream is free and its inputs are ready.
 * done[s] is when slot s's last GEMM ended, home[s] when its C was home. */
static double resident_estimate(const ooc_plan *p, const ooc_rates *r)
{
    double e = (double)p->elem_bytes, n = (double)p->n, row = e * n;
    double flop_per_ms = r->gemm_tflops * 1e9;
    double in = 0, gemm = 0, out = 0, done[2] = {0, 0}, home[2] = {0, 0};
    size_t fill = p->fill_panels, slots = p->c_buffers;
    for (size_t f = 0; f < fill; f++)
        in += copy_ms(row * (double)tile_extent(p->n, p->tile_rows, f), 0,
                      r->h2d_gbps, 0);
    for (size_t kp = 0; kp < p->k_pieces; kp++) {
        double inner = (double)tile_extent(p->n, p->tile_k, kp);
        in += copy_ms(row * inner, 0, r->h2d_gbps, 0);
        gemm = fmax(gemm, in);
        for (size_t f = 0; f < fill; f++) {
            double rows = (double)tile_extent(p->n, p->tile_rows, f);
            gemm += 2.0 * rows * inner * n / flop_per_ms;
            done[f] = gemm;
        }
    }
    for (size_t i = 0; i < p->row_tiles; i++) {
        size_t s = i % slots;
        double rows = (double)tile_extent(p->n, p->tile_rows, i);
        if (i >= fill) {
            in = fmax(in, done[s]) + copy_ms(row * rows, 0, r->h2d_gbps, 0);
            gemm = fmax(fmax(gemm, in), home[s]) +
                   2.0 * rows * n * n / flop_per_ms;
            done[s] = gemm;
        }
        out = fmax(out, done[s]) + copy_ms(row * rows, 0, r->d2h_gbps, 0);
        home[s] = out;
    }
    return out;
}

/* The copies in and out of p at the measured rates, 2D rows included:
 * no schedule of p can take less than either, nor than its GEMMs. */
static void copy_times(const ooc_plan *p, const ooc_rates *r, double *in,
                       double *out)
{
    *in = copy_ms((double)p->h2d_bytes, (double)p->h2d_rows_2d,
                  r->h2d_gbps, r->h2d_row_beside_us);
    *out = copy_ms((double)p->d2h_bytes, (double)p->d2h_rows_2d,
                   r->d2h_gbps, r->d2h_row_us);
}

double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *r,
                       double *gemm_ms)
{
    double n = (double)p->n;
    double gemm = 2.0 * n * n * n / (r->gemm_tflops * 1e9);
    if (gemm_ms)
        *gemm_ms = gemm;
    double ms = p->kind == OOC_RESIDENT ? resident_estimate(p, r)
                                        : tiled_estimate(p, r);
    if (r->copy_engines >= 2)
        return ms;
    double in, out;
    copy_times(p, r, &in, &out);
    return fmax(ms, cm_overlap_floor_ms(gemm, in, out, r->copy_engines));
}

double ooc_io_bound_bytes(size_t n, size_t elem_bytes, size_t budget,
                          double *streaming, double *once)
{
    double m = elem_bytes ? (double)(budget / elem_bytes) : 0;
    double side = (double)n, e = (double)elem_bytes;
    /* 2 n^3 / sqrt(M) elements: with M elements of fast memory, each
     * element brought in takes part in at most about sqrt(M) of the n^3
     * multiply-adds (Smith, Lowery, Langou, van de Geijn 2019). */
    double stream = m >= 1 ? 2.0 * side * side * side / sqrt(m) * e
                           : INFINITY;
    double whole = 3.0 * side * side * e;  /* A, B in once, C out once */
    if (streaming)
        *streaming = stream;
    if (once)
        *once = whole;
    return fmax(stream, whole);
}

/* The planner's search: every candidate goes through consider(). */
typedef struct {
    size_t n, elem, usable;
    const ooc_rates *rates;
    double limit_ms;   /* second pass: skip candidates slower than this */
    int by_time;       /* first pass: the shortest estimate wins */
    int found, seen;
    ooc_plan best, smallest;  /* best that fits; smallest seen at all */
} search;

/* No candidate estimated above this can win (or be in the 5% window). */
static double search_limit(const search *s)
{
    if (s->by_time)
        return s->found ? s->best.estimate_ms : INFINITY;
    return s->limit_ms;
}

/* Is c better than best? By estimated time if by_time (ties go on), then
 * fewer bytes in, fewer 2D rows, fewer tiles, row strips (contiguous rows
 * of B and C), two C buffers (one goes home while the other is computed),
 * longer pieces, wider A pieces, and last a shorter estimate. Without
 * estimates (timed 0), two C buffers come before fewer tiles: the fewest
 * tiles would always be one big C buffer, which overlaps nothing. */
static int better(const ooc_plan *c, const ooc_plan *best, int by_time,
                  int timed)
{
    if (by_time && fabs(c->estimate_ms - best->estimate_ms) > 1e-9)
        return c->estimate_ms < best->estimate_ms;
    if (c->h2d_bytes != best->h2d_bytes)
        return c->h2d_bytes < best->h2d_bytes;
    size_t c_2d = c->h2d_rows_2d + c->d2h_rows_2d;
    size_t best_2d = best->h2d_rows_2d + best->d2h_rows_2d;
    if (c_2d != best_2d)
        return c_2d < best_2d;
    if (!timed && c->c_buffers != best->c_buffers)
        return c->c_buffers > best->c_buffers;
    size_t c_tiles = c->row_tiles * c->col_tiles;
    size_t best_tiles = best->row_tiles * best->col_tiles;
    if (c_tiles != best_tiles)
        return c_tiles < best_tiles;
    if (c->col_tiles != best->col_tiles)
        return c->col_tiles < best->col_tiles;
    if (c->c_buffers != best->c_buffers)
        return c->c_buffers > best->c_buffers;
    if (c->tile_k != best->tile_k)
        return c->tile_k > best->tile_k;
    if (c->a_k != best->a_k)
        return c->a_k > best->a_k;
    return c->estimate_ms < best->estimate_ms;
}

static void consider(search *s, ooc_plan *c)
{
    if (!s->seen || c->device_bytes < s->smallest.device_bytes)
        s->smallest = *c;
    s->seen = 1;
    if (c->device_bytes > s->usable)
        return;
    if (s->rates) {
        /* The copies and the GEMMs bound the replay from below: a plan
         * that cannot win is not replayed. */
        double in, out, gemm, limit = search_limit(s);
        copy_times(c, s->rates, &in, &out);
        gemm = 2.0 * (double)c->n * (double)c->n * (double)c->n /
               (s->rates->gemm_tflops * 1e9);
        if (fmax(fmax(in, out), gemm) > limit + 1e-9)
            return;
        c->estimate_ms = ooc_estimate_ms(c, s->rates, NULL);
        if (c->estimate_ms > limit + 1e-9)
            return;
    }
    if (!s->found || better(c, &s->best, s->by_time, s->rates != NULL)) {
        s->best = *c;
        s->found = 1;
    }
}

/* The widest A pieces (a whole number of tile_k, at most n) whose two
 * buffers fit beside the C buffers and two B pieces; 0 if none does. */
static size_t fit_a(const search *s, size_t rows, size_t cols,
                    size_t c_buffers, size_t tile_k)
{
    size_t n = s->n, e = s->elem;
    size_t fixed = c_buffers * align_up(rows * cols * e) +
                   2 * align_up(tile_k * cols * e);
    if (fixed >= s->usable)
        return 0;
    size_t a_k = (s->usable - fixed) / (2 * rows * e);
    a_k = whole_pieces(n, tile_k, a_k);
    ooc_plan c;
    /* Alignment adds at most 2 x 255 bytes: step down until it fits. */
    while (a_k >= tile_k &&
           ooc_layout_tiled(&c, n, e, rows, cols, tile_k, a_k,
                            c_buffers) > s->usable)
        a_k = a_k == n ? (n - 1) / tile_k * tile_k : a_k - tile_k;
    return a_k >= tile_k ? a_k : 0;
}

/* The longest pieces, A as wide as B is long, that fit beside the C
 * buffers of a rows x cols tile; 0 if not even k_min does. */
static size_t fit_k(const search *s, size_t rows, size_t cols,
                    size_t c_buffers, size_t k_min)
{
    size_t n = s->n, e = s->elem;
    size_t c_bytes = c_buffers * align_up(rows * cols * e);
    if (c_bytes >= s->usable)
        return 0;
    size_t k = min_size(n, (s->usable - c_bytes) / (2 * (rows + cols) * e));
    ooc_plan c;
    while (k >= k_min &&
           ooc_layout_tiled(&c, n, e, rows, cols, k, k, c_buffers) >
               s->usable)
        k--;
    return k >= k_min ? k : 0;
}

/* Every plan tried for one tile shape: one or two C buffers; B pieces
 * of OOC_GOOD_K rows and longer, up to the longest that fits (shorter ones
 * only when nothing longer fits: each GEMM reads and writes its whole C
 * tile, which short pieces do for little work); A pieces as long as the
 * B pieces, as wide as fits, half way between, and 2 to 4 B pieces wide
 * with both as long as fits. */
static void shape_candidates(search *s, size_t rows, size_t cols)
{
    size_t n = s->n, e = s->elem, k_min = min_size(n, OOC_MIN_K);
    ooc_plan c;
    for (size_t c_buffers = 1; c_buffers <= 2; c_buffers++) {
        if (c_buffers == 2 && tile_count(n, rows) * tile_count(n, cols) < 2)
            break;
        size_t k_fit = fit_k(s, rows, cols, c_buffers, k_min);
        size_t good = min_size(n, OOC_GOOD_K);
        if (k_fit < good) {
            /* Recorded even when it does not fit: the smallest plan. */
            ooc_layout_tiled(&c, n, e, rows, cols, k_min, k_min, c_buffers);
            consider(s, &c);
        }
        if (k_fit == 0)
            continue;
        size_t ks[] = {good, 512, 1024, balanced(n, k_fit),
                       balanced(n, k_fit / 2)};
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            size_t k = ks[i];
            if (k > k_fit || (k < good && k_fit >= good) || k < k_min ||
                (i > 0 && i < 3 && k >= n))
                continue;
            size_t a_fit = fit_a(s, rows, cols, c_buffers, k);
            size_t widths[] = {k, a_fit, (k + a_fit) / 2};
            for (size_t w = 0; w < 3; w++) {
                if (widths[w] < k || (w > 0 && widths[w] == k))
                    continue;
                ooc_layout_tiled(&c, n, e, rows, cols, k, widths[w],
                                 c_buffers);
                consider(s, &c);
            }
        }
        /* A pieces of 2 to 4 B pieces, both as long as then fits. */
        size_t c_bytes = c_buffers * align_up(rows * cols * e);
        for (size_t m = 2; m <= 4 && c_bytes < s->usable; m++) {
            size_t k = (s->usable - c_bytes) / (2 * e * (m * rows + cols));
            while (k >= k_min &&
                   ooc_layout_tiled(&c, n, e, rows, cols, k, m * k,
                                    c_buffers) > s->usable)
                k--;
            if (k < k_min || (k < good && k_fit >= good) || m * k >= n)
                continue;
            ooc_layout_tiled(&c, n, e, rows, cols, k, m * k, c_buffers);
            consider(s, &c);
        }
    }
}

/* The side of `count` tiles over n, or 0 when a smaller count gives the
 * same side (the same tiles, with more of them). */
static size_t side_of(size_t n, size_t count)
{
    size_t side = tile_count(n, count);
    return tile_count(n, side) == count ? side : 0;
}

/* Does the smallest plan with rows x cols tiles fit? */
static int shape_fits(const search *s, size_t rows, size_t cols,
                      size_t c_buffers)
{
    size_t k_min = min_size(s->n, OOC_MIN_K);
    ooc_plan c;
    return ooc_layout_tiled(&c, s->n, s->elem, rows, cols, k_min, k_min,
                            c_buffers) <= s->usable;
}

/* Tiled candidates: tiles as big as the budget allows. For each count of
 * tile rows up to OOC_MAX_TILES_PER_SIDE, the fewest tile columns with
 * which one C buffer fits, and with which two do, and one more of each
 * (smaller tiles leave room for wider pieces); beyond that count, square
 * tilings only, down to tiles of the smallest side. The smallest of all
 * is tried too, so that a budget below it is known. */
static void scan_tiled(search *s)
{
    size_t n = s->n, most = tile_count(n, smallest_side(n));
    size_t grid = min_size(most, OOC_MAX_TILES_PER_SIDE);
    for (size_t row_tiles = 1; row_tiles <= grid; row_tiles++) {
        size_t rows = side_of(n, row_tiles);
        if (rows == 0)
            continue;
        for (size_t c_buffers = 1; c_buffers <= 2; c_buffers++) {
            size_t col_tiles = 1, tried = 0;
            for (; col_tiles <= grid && tried < 2; col_tiles++) {
                size_t cols = side_of(n, col_tiles);
                if (cols == 0)
                    continue;
                if (tried == 0 && !shape_fits(s, rows, cols, c_buffers))
                    continue;
                shape_candidates(s, rows, cols);
                tried++;
            }
        }
    }
    for (size_t count = grid + 1, tried = 0; count <= most && tried < 2;
         count++) {
        size_t side = side_of(n, count);
        if (side && shape_fits(s, side, side, 1)) {
            shape_candidates(s, side, side);
            tried++;
        }
    }
    size_t side = smallest_side(n);
    shape_candidates(s, side, side);
}

/* Resident candidates: every distinct panel height from 1 to
 * OOC_MAX_TILES_PER_SIDE panels, the tallest panels that fit with one
 * and with two slots, and the smallest panels; one or two slots each. */
static void scan_resident(search *s)
{
    size_t n = s->n, e = s->elem, side = smallest_side(n);
    size_t b_bytes = align_up(n * n * e);
    ooc_plan c;
    for (size_t panels = 1; panels <= min_size(n, OOC_MAX_TILES_PER_SIDE);
         panels++) {
        size_t rows = tile_count(n, panels);
        if (tile_count(n, rows) != panels || rows < side)
            continue;
        for (size_t slots = 1; slots <= 2; slots++) {
            ooc_layout_resident(&c, n, e, rows, slots);
            consider(s, &c);
        }
    }
    for (size_t slots = 1; slots <= 2; slots++) {
        size_t rows = s->usable > b_bytes
                          ? (s->usable - b_bytes) / (2 * slots * n * e)
                          : 0;
        rows = balanced(n, rows < side ? side : min_size(rows, n));
        while (rows > side &&
               ooc_layout_resident(&c, n, e, rows, slots) > s->usable)
            rows = balanced(n, rows - 1);
        ooc_layout_resident(&c, n, e, rows, slots);
        consider(s, &c);
    }
}

static void run_search(search *s, ooc_kind kind)
{
    if (kind != OOC_TILED)
        scan_resident(s);
    if (kind != OOC_RESIDENT)
        scan_tiled(s);
}

size_t ooc_min_budget(size_t n, size_t elem_bytes, size_t granule,
                      ooc_kind kind)
{
    if (n == 0 || elem_bytes == 0)
        return 0;
    /* The smallest plans the search tries: one slot of the smallest
     * panels beside B, or one C tile of the smallest side with the
     * shortest pieces. */
    size_t side = smallest_side(n), k_min = min_size(n, OOC_MIN_K);
    ooc_plan p;
    size_t resident = ooc_layout_resident(&p, n, elem_bytes, side, 1);
    size_t tiled = ooc_layout_tiled(&p, n, elem_bytes, side, side, k_min,
                                    k_min, 1);
    size_t least = kind == OOC_RESIDENT ? resident
                   : kind == OOC_TILED  ? tiled
                                        : min_size(resident, tiled);
    size_t g = granule > 1 ? granule : 1;
    return tile_count(least, g) * g;
}

int ooc_plan_make(size_t n, size_t elem_bytes, size_t budget,
                  size_t granule, const ooc_rates *rates, ooc_kind kind,
                  ooc_plan *p)
{
    size_t usable = granule > 1 ? budget / granule * granule : budget;
    search s = {.n = n, .elem = elem_bytes, .usable = usable,
                .rates = rates, .limit_ms = INFINITY,
                .by_time = rates != NULL};
    if (n == 0 || elem_bytes == 0) {
        ooc_layout_tiled(p, n, elem_bytes, 1, 1, 1, 1, 1);
        return -1;
    }
    run_search(&s, kind);
    if (!s.found) {
        *p = s.smallest;
        return -1;
    }
    /* An estimate is only an estimate: among the plans within 5% of the
     * fastest, take the one that moves the fewest bytes. Without that,
     * a GEMM-bound run would pick ever smaller tiles, whose extra copies
     * the model thinks are free. */
    if (rates) {
        s.limit_ms = s.best.estimate_ms * 1.05;
        s.by_time = 0;
        s.found = 0;
        run_search(&s, kind);
    }
    *p = s.best;
    return 0;
}

char *ooc_plan_describe(const ooc_plan *p, char *buf, size_t len)
{
    size_t n = p->n, e = p->elem_bytes;
    char slab[32], copies[160];
    cm_fmt_bytes_short(p->device_bytes, slab, sizeof slab);
    if (p->kind == OOC_RESIDENT) {
        snprintf(buf, len, "B resident, uploaded in %zu pieces of %zu rows; "
                 "A in and C out in %zu row panels of %zu (edge %zu), the "
                 "first %zu computed piece by piece while B arrives\n  B + "
                 "%zu A + %zu C panels = %s on the GPU; moves %.3f GB in, "
                 "%.3f GB out, every copy whole rows; estimate %.2f ms",
                 p->k_pieces, p->tile_k, p->row_tiles, p->tile_rows,
                 tile_extent(n, p->tile_rows, p->row_tiles - 1),
                 p->fill_panels, p->c_buffers, p->c_buffers, slab,
                 (double)p->h2d_bytes / 1e9, (double)p->d2h_bytes / 1e9,
                 p->estimate_ms);
        return buf;
    }
    if (p->a_k < n && p->tile_cols < n)
        snprintf(copies, sizeof copies, "A pieces in rows of %zu bytes, B "
                 "pieces and C tiles in rows of %zu", p->a_k * e,
                 p->tile_cols * e);
    else if (p->a_k < n)
        snprintf(copies, sizeof copies, "A pieces in rows of %zu bytes",
                 p->a_k * e);
    else if (p->tile_cols < n)
        snprintf(copies, sizeof copies, "B pieces and C tiles in rows of "
                 "%zu bytes", p->tile_cols * e);
    else
        snprintf(copies, sizeof copies, "none");
    snprintf(buf, len, "C in %zu x %zu tiles of %zu x %zu (edge %zu x %zu), "
             "%zu C buffer%s; per tile, A in %zu pieces of %zu columns, B "
             "in %zu pieces of %zu rows, two buffers each\n  %zu C + 2 A + "
             "2 B = %s on the GPU; moves %.3f GB in, %.3f GB out; 2D "
             "copies: %s; estimate %.2f ms", p->row_tiles, p->col_tiles,
             p->tile_rows, p->tile_cols,
             tile_extent(n, p->tile_rows, p->row_tiles - 1),
             tile_extent(n, p->tile_cols, p->col_tiles - 1), p->c_buffers,
             p->c_buffers > 1 ? "s" : "", p->a_pieces, p->a_k, p->k_pieces,
             p->tile_k, p->c_buffers, slab, (double)p->h2d_bytes / 1e9,
             (double)p->d2h_bytes / 1e9, copies, p->estimate_ms);
    return buf;
}
