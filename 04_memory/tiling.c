/* tiling.c - tile counts, edge tiles and the out-of-core planner. */
#include "tiling.h"

#include <math.h>
#include <stdio.h>

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

size_t ooc_plan_layout(ooc_plan *p, size_t n, size_t elem_bytes,
                       size_t tile_rows, size_t tile_cols, size_t tile_k)
{
    p->n = n;
    p->elem_bytes = elem_bytes;
    p->tile_rows = min_size(tile_rows, n);
    p->tile_cols = min_size(tile_cols, n);
    p->tile_k = min_size(tile_k, n);
    p->row_tiles = tile_count(n, p->tile_rows);
    p->col_tiles = tile_count(n, p->tile_cols);
    p->k_pieces = tile_count(n, p->tile_k);
    p->c_buffers = p->row_tiles * p->col_tiles > 1 ? 2 : 1;

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
     * column and all of B once per tile row, edge tiles included. */
    size_t matrix = n * n * elem_bytes;
    p->h2d_bytes = matrix * (p->col_tiles + p->row_tiles);
    p->d2h_bytes = matrix;
    p->estimate_ms = 0;
    return p->device_bytes;
}

double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *r)
{
    double per_ms_in = r->h2d_gbps * 1e6, per_ms_out = r->d2h_gbps * 1e6;
    double e = (double)p->elem_bytes, n = (double)p->n;
    double first_in = e * (double)p->tile_k *
                      (double)(p->tile_rows + p->tile_cols) / per_ms_in;
    double gemm = 2.0 * n * n * n / (r->gemm_tflops * 1e9);
    double all_in = (double)p->h2d_bytes / per_ms_in;
    double last_out = e *
        (double)tile_extent(p->n, p->tile_rows, p->row_tiles - 1) *
        (double)tile_extent(p->n, p->tile_cols, p->col_tiles - 1) /
        per_ms_out;
    return fmax(first_in + gemm, all_in) + last_out;
}

/* Bytes of the slab: c_buffers C tiles and two A and two B pieces. */
static size_t slab_bytes(size_t rows, size_t cols, size_t k, size_t elem,
                         size_t c_buffers)
{
    return c_buffers * align_up(rows * cols * elem) +
           2 * align_up(rows * k * elem) + 2 * align_up(k * cols * elem);
}

/* The longest piece (at most OOC_MAX_K, evened out over n) whose double
 * buffers fit next to the C buffers of a rows x cols tile; 0 if none. */
static size_t fit_k(size_t n, size_t elem_bytes, size_t usable, size_t rows,
                    size_t cols)
{
    size_t c_buffers = tile_count(n, rows) * tile_count(n, cols) > 1 ? 2 : 1;
    size_t c_bytes = c_buffers * align_up(rows * cols * elem_bytes);
    if (c_bytes >= usable)
        return 0;
    size_t k = (usable - c_bytes) / (2 * (rows + cols) * elem_bytes);
    k = min_size(k, min_size(n, OOC_MAX_K));
    /* Alignment adds at most 4 x 255 bytes: step down until it fits. */
    while (k > 0 && slab_bytes(rows, cols, k, elem_bytes, c_buffers) > usable)
        k--;
    size_t k_min = min_size(n, OOC_MIN_K);
    if (k == 0 || k < k_min)
        return 0;
    return balanced(n, k) >= k_min ? balanced(n, k) : k;
}

/* Is candidate c better than best? By estimated time if by_time (ties go
 * on), then fewer bytes in, fewer tiles, row strips (their copies are
 * contiguous), longer pieces. */
static int better(const ooc_plan *c, const ooc_plan *best, int by_time)
{
    if (by_time && fabs(c->estimate_ms - best->estimate_ms) > 1e-9)
        return c->estimate_ms < best->estimate_ms;
    if (c->h2d_bytes != best->h2d_bytes)
        return c->h2d_bytes < best->h2d_bytes;
    size_t c_tiles = c->row_tiles * c->col_tiles;
    size_t best_tiles = best->row_tiles * best->col_tiles;
    if (c_tiles != best_tiles)
        return c_tiles < best_tiles;
    if (c->col_tiles != best->col_tiles)
        return c->col_tiles < best->col_tiles;
    return c->tile_k > best->tile_k;
}

/* The best candidate tiling into *best: fastest estimate (by_time) or
 * fewest bytes, skipping any whose estimate is above limit_ms. Returns 1 if
 * any fitted in usable bytes. */
static int scan(size_t n, size_t elem_bytes, size_t usable,
                const ooc_rates *rates, double limit_ms, int by_time,
                ooc_plan *best)
{
    size_t side_max = min_size(n, OOC_MAX_TILES_PER_SIDE), last_rows = 0;
    int found = 0;
    ooc_plan c;
    for (size_t row_tiles = 1; row_tiles <= side_max; row_tiles++) {
        size_t rows = tile_count(n, row_tiles);
        if (rows == last_rows)  /* the same tile height as before */
            continue;
        last_rows = rows;
        size_t last_cols = 0;
        for (size_t col_tiles = 1; col_tiles <= side_max; col_tiles++) {
            size_t cols = tile_count(n, col_tiles);
            if (cols == last_cols)
                continue;
            last_cols = cols;
            size_t k = fit_k(n, elem_bytes, usable, rows, cols);
            if (k == 0)
                continue;
            ooc_plan_layout(&c, n, elem_bytes, rows, cols, k);
            if (rates) {
                c.estimate_ms = ooc_estimate_ms(&c, rates);
                if (c.estimate_ms > limit_ms)
                    continue;
            }
            if (!found || better(&c, best, by_time)) {
                *best = c;
                found = 1;
            }
        }
    }
    return found;
}

int ooc_plan_make(size_t n, size_t elem_bytes, size_t budget,
                  size_t granule, const ooc_rates *rates, ooc_plan *p)
{
    size_t side_max = min_size(n, OOC_MAX_TILES_PER_SIDE);
    /* The smallest tiling we consider, reported when nothing fits. */
    ooc_plan_layout(p, n, elem_bytes, tile_count(n, side_max),
                    tile_count(n, side_max), min_size(n, OOC_MIN_K));
    if (n == 0 || elem_bytes == 0)
        return -1;
    size_t usable = granule > 1 ? budget / granule * granule : budget;
    ooc_plan best;
    if (!scan(n, elem_bytes, usable, rates, INFINITY, rates != NULL, &best))
        return -1;
    /* An estimate is only an estimate: among the plans within 5% of the
     * fastest, take the one that moves the fewest bytes. Without that,
     * a GEMM-bound run would pick ever smaller tiles, whose extra copies
     * the model thinks are free. */
    if (rates)
        scan(n, elem_bytes, usable, rates, best.estimate_ms * 1.05, 0,
             &best);
    *p = best;
    return 0;
}

char *ooc_plan_describe(const ooc_plan *p, char *buf, size_t len)
{
    size_t n = p->n;
    char slab[32];
    snprintf(buf, len, "C in %zu x %zu tiles of %zu x %zu (edge %zu x %zu), "
             "the inner dimension in %zu pieces of %zu (edge %zu)\n  %zu C "
             "buffer%s + 2 A + 2 B pieces = %s on the GPU; moves %.3f GB in; "
             "estimate %.2f ms", p->row_tiles, p->col_tiles, p->tile_rows,
             p->tile_cols, tile_extent(n, p->tile_rows, p->row_tiles - 1),
             tile_extent(n, p->tile_cols, p->col_tiles - 1), p->k_pieces,
             p->tile_k, tile_extent(n, p->tile_k, p->k_pieces - 1),
             p->c_buffers, p->c_buffers > 1 ? "s" : "",
             cm_fmt_bytes_short(p->device_bytes, slab, sizeof slab),
             (double)p->h2d_bytes / 1e9, p->estimate_ms);
    return buf;
}
