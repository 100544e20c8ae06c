/* tiling.c - tile counts, edge tiles and the out-of-core planner. */
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

/* Bytes of a tiled slab: c_buffers C tiles, two A and two B pieces. */
static size_t tiled_slab(size_t rows, size_t cols, size_t k, size_t elem,
                         size_t c_buffers)
{
    return c_buffers * align_up(rows * cols * elem) +
           2 * align_up(rows * k * elem) + 2 * align_up(k * cols * elem);
}

size_t ooc_layout_tiled(ooc_plan *p, size_t n, size_t elem_bytes,
                        size_t tile_rows, size_t tile_cols, size_t tile_k)
{
    p->kind = OOC_TILED;
    p->n = n;
    p->elem_bytes = elem_bytes;
    p->tile_rows = min_size(tile_rows, n);
    p->tile_cols = min_size(tile_cols, n);
    p->tile_k = min_size(tile_k, n);
    p->row_tiles = tile_count(n, p->tile_rows);
    p->col_tiles = tile_count(n, p->tile_cols);
    p->k_pieces = tile_count(n, p->tile_k);
    p->c_buffers = p->row_tiles * p->col_tiles > 1 ? 2 : 1;
    p->fill_panels = 0;

    size_t c_bytes = align_up(p->tile_rows * p->tile_cols * elem_bytes);
    size_t a_bytes = align_up(p->tile_rows * p->tile_k * elem_bytes);
    size_t b_bytes = align_up(p->tile_k * p->tile_cols * elem_bytes);
    /* With one C buffer both names point at it. */
    p->c_offset[0] = 0;
    p->c_offset[1] = p->c_buffers > 1 ? c_bytes : 0;
    size_t at = p->c_buffers * c_bytes;
    for (size_t i = 0; i < 2; i++) {
        p->a_offset[i] = at;
        at += a_bytes;
        p->b_offset[i] = at;
        at += b_bytes;
    }
    p->device_bytes = at;

    /* Tile (i, j) reads its rows of A (rows_i x n) and its columns of B
     * (n x cols_j); summed over all tiles that is all of A once per tile
     * column and all of B once per tile row, edge tiles included. A piece
     * narrower than a row of A, or a tile narrower than a row of B and C,
     * is a 2D copy: count its rows. */
    size_t matrix = n * n * elem_bytes;
    p->h2d_bytes = matrix * (p->col_tiles + p->row_tiles);
    p->d2h_bytes = matrix;
    p->h2d_rows_2d = 0;
    p->d2h_rows_2d = 0;
    if (p->tile_k < n)
        p->h2d_rows_2d += n * p->k_pieces * p->col_tiles;
    if (p->tile_cols < n) {
        p->h2d_rows_2d += n * p->row_tiles * p->col_tiles;
        p->d2h_rows_2d = n * p->col_tiles;
    }
    p->estimate_ms = 0;
    return p->device_bytes;
}

size_t ooc_layout_resident(ooc_plan *p, size_t n, size_t elem_bytes,
                           size_t panel_rows)
{
    p->kind = OOC_RESIDENT;
    p->n = n;
    p->elem_bytes = elem_bytes;
    p->tile_rows = min_size(panel_rows, n);
    p->tile_cols = n;
    p->tile_k = balanced(n, min_size(n, OOC_FILL_ROWS));
    p->row_tiles = tile_count(n, p->tile_rows);
    p->col_tiles = n ? 1 : 0;
    p->k_pieces = tile_count(n, p->tile_k);
    /* Two slots (an A and a C panel each) let panel i + 1 come in and
     * panel i - 1 go home while panel i is computed; both are filled
     * while B arrives. */
    p->c_buffers = p->row_tiles > 1 ? 2 : 1;
    p->fill_panels = p->c_buffers;

    size_t panel = align_up(p->tile_rows * n * elem_bytes);
    size_t at = align_up(n * n * elem_bytes);
    p->b_offset[0] = p->b_offset[1] = 0;
    for (size_t i = 0; i < 2; i++) {
        p->a_offset[i] = at + (i < p->c_buffers ? i : 0) * panel;
        p->c_offset[i] = at + (p->c_buffers + (i < p->c_buffers ? i : 0)) *
                              panel;
    }
    p->device_bytes = at + 2 * p->c_buffers * panel;
    /* Whole rows everywhere: A and B once, C once, no 2D copy. */
    p->h2d_bytes = 2 * n * n * elem_bytes;
    p->d2h_bytes = n * n * elem_bytes;
    p->h2d_rows_2d = p->d2h_rows_2d = 0;
    p->estimate_ms = 0;
    return p->device_bytes;
}

/* Milliseconds to copy `bytes` at gbps, plus row_us for each 2D row. */
static double copy_ms(double bytes, double rows_2d, double gbps,
                      double row_us)
{
    return bytes / (gbps * 1e6) + rows_2d * row_us * 1e-3;
}

static double tiled_estimate(const ooc_plan *p, const ooc_rates *r,
                             double gemm)
{
    double e = (double)p->elem_bytes;
    double rows = (double)p->tile_rows, cols = (double)p->tile_cols;
    double k = (double)p->tile_k;
    int a_2d = p->tile_k < p->n, bc_2d = p->tile_cols < p->n;
    double first_in =
        copy_ms(e * rows * k, a_2d ? rows : 0, r->h2d_gbps, r->h2d_row_us) +
        copy_ms(e * k * cols, bc_2d ? k : 0, r->h2d_gbps, r->h2d_row_us);
    double all_in = copy_ms((double)p->h2d_bytes, (double)p->h2d_rows_2d,
                            r->h2d_gbps, r->h2d_row_us);
    double all_out = copy_ms((double)p->d2h_bytes, (double)p->d2h_rows_2d,
                             r->d2h_gbps, r->d2h_row_us);
    double last_rows =
        (double)tile_extent(p->n, p->tile_rows, p->row_tiles - 1);
    double last_cols =
        (double)tile_extent(p->n, p->tile_cols, p->col_tiles - 1);
    double last_out = copy_ms(e * last_rows * last_cols,
                              bc_2d ? last_rows : 0, r->d2h_gbps,
                              r->d2h_row_us);
    return fmax(fmax(first_in + gemm, all_in) + last_out,
                first_in + all_out);
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

double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *r,
                       double *gemm_ms)
{
    double n = (double)p->n;
    double gemm = 2.0 * n * n * n / (r->gemm_tflops * 1e9);
    if (gemm_ms)
        *gemm_ms = gemm;
    double ms = p->kind == OOC_RESIDENT ? resident_estimate(p, r)
                                        : tiled_estimate(p, r, gemm);
    if (r->copy_engines >= 2)
        return ms;
    double in = copy_ms((double)p->h2d_bytes, (double)p->h2d_rows_2d,
                        r->h2d_gbps, r->h2d_row_us);
    double out = copy_ms((double)p->d2h_bytes, (double)p->d2h_rows_2d,
                         r->d2h_gbps, r->d2h_row_us);
    return fmax(ms, cm_overlap_floor_ms(gemm, in, out, r->copy_engines));
}

/* The planner's search: every candidate goes through consider(). */
typedef struct {
    size_t n, elem, usable;
    const ooc_rates *rates;
    double limit_ms;   /* skip candidates estimated slower than this */
    int by_time;
    int found, seen;
    ooc_plan best, smallest;  /* best that fits; smallest seen at all */
} search;

/* Is c better than best? By estimated time if by_time (ties go on), then
 * fewer bytes in, fewer 2D rows, fewer tiles, row strips (contiguous
 * rows of B and C), longer pieces. */
static int better(const ooc_plan *c, const ooc_plan *best, int by_time)
{
    if (by_time && fabs(c->estimate_ms - best->estimate_ms) > 1e-9)
        return c->estimate_ms < best->estimate_ms;
    if (c->h2d_bytes != best->h2d_bytes)
        return c->h2d_bytes < best->h2d_bytes;
    size_t c_2d = c->h2d_rows_2d + c->d2h_rows_2d;
    size_t best_2d = best->h2d_rows_2d + best->d2h_rows_2d;
    if (c_2d != best_2d)
        return c_2d < best_2d;
    size_t c_tiles = c->row_tiles * c->col_tiles;
    size_t best_tiles = best->row_tiles * best->col_tiles;
    if (c_tiles != best_tiles)
        return c_tiles < best_tiles;
    if (c->col_tiles != best->col_tiles)
        return c->col_tiles < best->col_tiles;
    return c->tile_k > best->tile_k;
}

static void consider(search *s, ooc_plan *c)
{
    if (!s->seen || c->device_bytes < s->smallest.device_bytes)
        s->smallest = *c;
    s->seen = 1;
    if (c->device_bytes > s->usable)
        return;
    if (s->rates) {
        c->estimate_ms = ooc_estimate_ms(c, s->rates, NULL);
        if (c->estimate_ms > s->limit_ms)
            return;
    }
    if (!s->found || better(c, &s->best, s->by_time)) {
        s->best = *c;
        s->found = 1;
    }
}

/* The longest piece (at most n) whose double buffers fit next to the C
 * buffers of a rows x cols tile; 0 if not even k_min fits. */
static size_t fit_k(size_t n, size_t elem, size_t usable, size_t rows,
                    size_t cols, size_t k_min)
{
    size_t c_buffers = tile_count(n, rows) * tile_count(n, cols) > 1 ? 2 : 1;
    size_t c_bytes = c_buffers * align_up(rows * cols * elem);
    if (c_bytes >= usable)
        return 0;
    size_t k = min_size(n, (usable - c_bytes) / (2 * (rows + cols) * elem));
    /* Alignment adds at most 4 x 255 bytes: step down until it fits. */
    while (k >= k_min && tiled_slab(rows, cols, k, elem, c_buffers) > usable)
        k--;
    return k >= k_min ? k : 0;
}

/* Tiled candidates: every distinct tile shape, each with the shortest
 * piece, the longest that fits and halvings of it: longer pieces mean
 * wider 2D rows of A, shorter ones an earlier first GEMM. */
static void scan_tiled(search *s)
{
    size_t n = s->n, side_max = min_size(n, OOC_MAX_TILES_PER_SIDE);
    size_t k_min = min_size(n, OOC_MIN_K), last_rows = 0;
    ooc_plan c;
    for (size_t row_tiles = 1; row_tiles <= side_max; row_tiles++) {
        size_t rows = tile_count(n, row_tiles), last_cols = 0;
        if (rows == last_rows)  /* the same tile height as before */
            continue;
        last_rows = rows;
        for (size_t col_tiles = 1; col_tiles <= side_max; col_tiles++) {
            size_t cols = tile_count(n, col_tiles);
            if (cols == last_cols)
                continue;
            last_cols = cols;
            ooc_layout_tiled(&c, n, s->elem, rows, cols, k_min);
            consider(s, &c);
            size_t k = fit_k(n, s->elem, s->usable, rows, cols, k_min);
            for (; k > k_min; k /= 2) {
                size_t even = balanced(n, k);
                ooc_layout_tiled(&c, n, s->elem, rows, cols,
                                 even >= k_min ? even : k);
                consider(s, &c);
            }
        }
    }
}

/* Resident candidates: every distinct panel height, down to n / 64 rows
 * or OOC_MIN_K rows, whichever is more (one panel of n is always one). */
static void scan_resident(search *s)
{
    size_t n = s->n, side_max = min_size(n, OOC_MAX_TILES_PER_SIDE);
    size_t rows_min = min_size(n, OOC_MIN_K), last_rows = 0;
    ooc_plan c;
    for (size_t panels = 1; panels <= side_max; panels++) {
        size_t rows = tile_count(n, panels);
        if (rows == last_rows || (panels > 1 && rows < rows_min))
            continue;
        last_rows = rows;
        ooc_layout_resident(&c, n, s->elem, rows);
        consider(s, &c);
    }
}

static void run_search(search *s, ooc_kind kind)
{
    if (kind != OOC_RESIDENT)
        scan_tiled(s);
    if (kind != OOC_TILED)
        scan_resident(s);
}

size_t ooc_min_budget(size_t n, size_t elem_bytes, size_t granule,
                      ooc_kind kind)
{
    search s = {n, elem_bytes, 0, NULL, INFINITY, 0, 0, 0, {0}, {0}};
    if (n == 0 || elem_bytes == 0)
        return 0;
    run_search(&s, kind);
    size_t g = granule > 1 ? granule : 1;
    return tile_count(s.smallest.device_bytes, g) * g;
}

int ooc_plan_make(size_t n, size_t elem_bytes, size_t budget,
                  size_t granule, const ooc_rates *rates, ooc_kind kind,
                  ooc_plan *p)
{
    size_t usable = granule > 1 ? budget / granule * granule : budget;
    search s = {n, elem_bytes, usable, rates, INFINITY, rates != NULL, 0, 0,
                {0}, {0}};
    if (n == 0 || elem_bytes == 0) {
        ooc_layout_tiled(p, n, elem_bytes, 1, 1, 1);
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
    if (p->tile_k < n && p->tile_cols < n)
        snprintf(copies, sizeof copies, "A pieces in rows of %zu bytes, B "
                 "pieces and C tiles in rows of %zu", p->tile_k * e,
                 p->tile_cols * e);
    else if (p->tile_k < n)
        snprintf(copies, sizeof copies, "A pieces in rows of %zu bytes",
                 p->tile_k * e);
    else if (p->tile_cols < n)
        snprintf(copies, sizeof copies, "B pieces and C tiles in rows of "
                 "%zu bytes", p->tile_cols * e);
    else
        snprintf(copies, sizeof copies, "none");
    snprintf(buf, len, "C in %zu x %zu tiles of %zu x %zu (edge %zu x %zu), "
             "the inner dimension in %zu pieces of %zu (edge %zu)\n  %zu C "
             "buffer%s + 2 A + 2 B pieces = %s on the GPU; moves %.3f GB in, "
             "%.3f GB out; 2D copies: %s; estimate %.2f ms", p->row_tiles,
             p->col_tiles, p->tile_rows, p->tile_cols,
             tile_extent(n, p->tile_rows, p->row_tiles - 1),
             tile_extent(n, p->tile_cols, p->col_tiles - 1), p->k_pieces,
             p->tile_k, tile_extent(n, p->tile_k, p->k_pieces - 1),
             p->c_buffers, p->c_buffers > 1 ? "s" : "", slab,
             (double)p->h2d_bytes / 1e9, (double)p->d2h_bytes / 1e9, copies,
             p->estimate_ms);
    return buf;
}
