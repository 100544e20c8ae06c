/* planner.c - the out-of-core planner (ooc_plan_make, tiling.h): every
 * tile shape and piece length worth trying, laid out by tiling.c, timed
 * by replay.c, and the best kept; and the least budget any plan needs.
 */
#include "tiling.h"

#include <math.h>

#include "tiling_parts.h"

/* The smallest tile side (and resident panel) the planner tries: the
 * side of the tiling with OOC_MIN_K-element tiles, evened out. */
static size_t smallest_side(size_t n)
{
    return balanced(n, min_size(n, OOC_MIN_K));
}

/* The planner's search: every candidate goes through consider(). */
typedef struct {
    size_t n, elem, usable;
    const ooc_rates *rates;
    double limit_ms;   /* later passes: skip candidates slower than this */
    double gemm_limit; /* last pass: skip GEMMs slower than this */
    int by_time;       /* first pass: the shortest estimate wins */
    int by_gemm;       /* second pass: the fastest GEMMs win */
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

/* Is c better than best? By estimated time if by_time, or by the GEMMs'
 * time if by_gemm (ties go on), then fewer bytes in, fewer 2D rows, no
 * host packing (A pieces of whole rows, or B resident) before some,
 * fewer tiles, row strips (contiguous rows of B and C), more C buffers
 * (tiles go home while others are computed), longer pieces, and last a
 * shorter estimate. Without estimates (timed 0), more C buffers come
 * before fewer tiles: the fewest tiles would always be one big C buffer,
 * which overlaps nothing. */
static int better(const ooc_plan *c, const ooc_plan *best, const search *s)
{
    int timed = s->rates != NULL;
    if (s->by_time && fabs(c->estimate_ms - best->estimate_ms) > 1e-9)
        return c->estimate_ms < best->estimate_ms;
    if (s->by_gemm && fabs(c->gemm_ms - best->gemm_ms) > 1e-9)
        return c->gemm_ms < best->gemm_ms;
    if (c->h2d_bytes != best->h2d_bytes)
        return c->h2d_bytes < best->h2d_bytes;
    size_t c_2d = c->h2d_rows_2d + c->d2h_rows_2d;
    size_t best_2d = best->h2d_rows_2d + best->d2h_rows_2d;
    if (c_2d != best_2d)
        return c_2d < best_2d;
    if ((c->staging_bytes > 0) != (best->staging_bytes > 0))
        return c->staging_bytes == 0;
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
               (gemm_rate(c, s->rates) * 1e9);
        if (fmax(fmax(in, out), gemm) > limit + 1e-9)
            return;
        c->estimate_ms = ooc_estimate_ms(c, s->rates, &c->gemm_ms);
        if (c->estimate_ms > limit + 1e-9 ||
            c->gemm_ms > s->gemm_limit + 1e-9)
            return;
    }
    if (!s->found || better(c, &s->best, s)) {
        s->best = *c;
        s->found = 1;
    }
}

/* The longest pieces that fit beside `slots` C buffers of rows x cols
 * (A pieces of slots x rows x k, B pieces of k x cols, two buffers each),
 * aligned (aligned_k); 0 if not even k_min does. */
static size_t fit_k(const search *s, size_t rows, size_t cols,
                    size_t slots, size_t k_min)
{
    size_t n = s->n, e = s->elem;
    size_t c_bytes = align_up(slots * rows * cols * e);
    if (c_bytes >= s->usable)
        return 0;
    size_t k = min_size(n, (s->usable - c_bytes) /
                               (2 * (slots * rows + cols) * e));
    ooc_plan c;
    /* Alignment adds at most 4 x 255 bytes: step down until it fits. */
    while (k >= k_min &&
           ooc_layout_tiled(&c, n, e, rows, cols, k, slots) > s->usable)
        k--;
    return k >= k_min ? aligned_k(n, k) : 0;
}

/* Every plan tried for one tile shape and count of C buffers: B pieces
 * of OOC_GOOD_K rows and longer, up to the longest that fits, and half
 * that (shorter ones only when nothing longer fits: each GEMM reads and
 * writes its whole C tile, which short pieces do for little work). */
static void shape_candidates(search *s, size_t rows, size_t cols,
                             size_t slots)
{
    size_t n = s->n, e = s->elem, k_min = min_size(n, OOC_MIN_K);
    ooc_plan c;
    size_t k_fit = fit_k(s, rows, cols, slots, k_min);
    size_t good = min_size(n, OOC_GOOD_K);
    if (k_fit < good) {
        /* Recorded even when it does not fit: the smallest plan. */
        ooc_layout_tiled(&c, n, e, rows, cols, k_min, slots);
        consider(s, &c);
    }
    if (k_fit == 0)
        return;
    size_t ks[] = {good, 512, 1024, k_fit, aligned_k(n, k_fit / 2)};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        size_t k = ks[i];
        if (k > k_fit || (k < good && k_fit >= good) || k < k_min ||
            (i > 0 && i < 3 && k >= n))
            continue;
        ooc_layout_tiled(&c, n, e, rows, cols, k, slots);
        consider(s, &c);
    }
}

/* The side of `count` tiles over n, or 0 when a smaller count gives the
 * same side (the same tiles, with more of them). */
static size_t side_of(size_t n, size_t count)
{
    size_t side = tile_count(n, count);
    return tile_count(n, side) == count ? side : 0;
}

/* Does the smallest plan with `slots` C buffers of rows x cols fit? */
static int shape_fits(const search *s, size_t rows, size_t cols,
                      size_t slots)
{
    size_t k_min = min_size(s->n, OOC_MIN_K);
    ooc_plan c;
    return ooc_layout_tiled(&c, s->n, s->elem, rows, cols, k_min, slots) <=
           s->usable;
}

/* Tiled candidates: tiles as big as the budget allows. For each count of
 * tile rows up to OOC_MAX_TILES_PER_SIDE and each count of C buffers up
 * to OOC_MAX_SLOTS (and the tile rows), the fewest tile columns with
 * which they fit, and one more (smaller tiles leave room for longer
 * pieces); beyond that count, square tilings with one C buffer only,
 * down to tiles of the smallest side. The smallest of all is tried too,
 * so that a budget below it is known. */
static void scan_tiled(search *s)
{
    size_t n = s->n, most = tile_count(n, smallest_side(n));
    size_t grid = min_size(most, OOC_MAX_TILES_PER_SIDE);
    for (size_t row_tiles = 1; row_tiles <= grid; row_tiles++) {
        size_t rows = side_of(n, row_tiles);
        if (rows == 0)
            continue;
        size_t slots_most = min_size(OOC_MAX_SLOTS, row_tiles);
        for (size_t slots = 1; slots <= slots_most; slots++) {
            size_t col_tiles = 1, tried = 0;
            for (; col_tiles <= grid && tried < 2; col_tiles++) {
                size_t cols = side_of(n, col_tiles);
                if (cols == 0)
                    continue;
                if (tried == 0 && !shape_fits(s, rows, cols, slots))
                    continue;
                shape_candidates(s, rows, cols, slots);
                tried++;
            }
        }
    }
    for (size_t count = grid + 1, tried = 0; count <= most && tried < 2;
         count++) {
        size_t side = side_of(n, count);
        if (side && shape_fits(s, side, side, 1)) {
            shape_candidates(s, side, side, 1);
            tried++;
        }
    }
    size_t side = smallest_side(n);
    shape_candidates(s, side, side, 1);
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
                                    1);
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
                .gemm_limit = INFINITY, .by_time = rates != NULL};
    if (n == 0 || elem_bytes == 0) {
        ooc_layout_tiled(p, n, elem_bytes, 1, 1, 1, 1);
        return -1;
    }
    run_search(&s, kind);
    if (!s.found) {
        *p = s.smallest;
        return -1;
    }
    /* An estimate is only an estimate: among the plans within 5% of the
     * fastest, take one whose GEMMs are within 5% of the fastest GEMMs
     * there, and of those the one that moves the fewest bytes. Without
     * the first, a run whose copies and GEMMs are both nearly busy would
     * take pieces half as long to save a few bytes, passing over C twice
     * as often: every GEMM that runs late then holds up a buffer and the
     * copies, which a replay on steady rates does not see. Without the
     * second, a GEMM-bound run would pick ever smaller tiles, whose extra
     * copies the model thinks are free. */
    if (rates) {
        s.limit_ms = s.best.estimate_ms * 1.05;
        s.by_time = 0;
        s.by_gemm = 1;
        s.found = 0;
        run_search(&s, kind);
        s.gemm_limit = s.best.gemm_ms * 1.05;
        s.by_gemm = 0;
        s.found = 0;
        run_search(&s, kind);
    }
    *p = s.best;
    p->pack_threads = rates ? rates->pack_threads : 0;
    return 0;
}
