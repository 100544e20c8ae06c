/* tiling.c - tile counts, edge tiles, the two out-of-core plans laid out
 * in one slab, their I/O lower bound and their description. replay.c
 * estimates a plan's time, planner.c picks the plan (tiling.h). */
#include "tiling.h"

#include <math.h>
#include <stdio.h>

#include "tiling_parts.h"
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

size_t align_up(size_t bytes)
{
    return (bytes + OOC_ALIGN - 1) / OOC_ALIGN * OOC_ALIGN;
}

size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

size_t balanced(size_t n, size_t most)
{
    size_t blocks = tile_count(n, most);
    return blocks ? tile_count(n, blocks) : 0;
}

size_t whole_pieces(size_t n, size_t tile_k, size_t a_k)
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
    p->bands = min_size(OOC_BANDS, p->tile_rows ? p->tile_rows : 1);

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
     * column and all of B once per tile row, edge tiles included. A tile
     * narrower than a row of B and C makes B pieces and C tiles 2D
     * copies: count their rows. An A piece narrower than a row of A is
     * packed on the host into a staging buffer and copied whole. */
    size_t matrix = n * n * elem_bytes;
    p->h2d_bytes = matrix * (p->col_tiles + p->row_tiles);
    p->d2h_bytes = matrix;
    p->h2d_rows_2d = 0;
    p->d2h_rows_2d = 0;
    if (p->tile_cols < n) {
        p->h2d_rows_2d = n * p->row_tiles * p->col_tiles;
        p->d2h_rows_2d = n * p->col_tiles;
    }
    p->staging_bytes = p->a_k < n ? 2 * p->tile_rows * p->a_k * elem_bytes
                                  : 0;
    p->pack_threads = 0;
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
    p->bands = 1;

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
    p->staging_bytes = 0;
    p->pack_threads = 0;
    p->estimate_ms = 0;
    return p->device_bytes;
}

size_t ooc_band_rows(const ooc_plan *p, size_t rows)
{
    return tile_count(rows, p->bands > 1 ? p->bands : 1);
}

size_t ooc_head_pieces(const ooc_plan *p, size_t tile)
{
    if (p->bands <= 1 || tile < p->c_buffers)
        return 0;
    return min_size(2, p->k_pieces);
}

size_t ooc_band_to_wait(const size_t *prev_end, size_t prev_bands,
                        size_t end)
{
    for (size_t j = 0; j < prev_bands; j++)
        if (prev_end[j] >= end)
            return j;
    return prev_bands ? prev_bands - 1 : 0;
}

size_t ooc_b_piece(const ooc_plan *p, size_t ap, size_t bp, size_t *k0)
{
    size_t a_cols = tile_extent(p->n, p->a_k, ap);
    if (k0)
        *k0 = ap * p->a_k + bp * p->tile_k;
    return tile_extent(a_cols, p->tile_k, bp);
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

char *ooc_plan_describe(const ooc_plan *p, char *buf, size_t len)
{
    size_t n = p->n, e = p->elem_bytes;
    char slab[32], copies[160], staging[200], host[32];
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
    if (p->tile_cols < n)
        snprintf(copies, sizeof copies, "B pieces and C tiles in rows of "
                 "%zu bytes", p->tile_cols * e);
    else
        snprintf(copies, sizeof copies, "none");
    /* A pieces of whole rows are one block of A already; narrower ones
     * are packed into host staging first. */
    if (p->staging_bytes == 0)
        snprintf(staging, sizeof staging, "A pieces whole rows, sent as "
                 "they are");
    else if (p->pack_threads > 0)
        snprintf(staging, sizeof staging, "A pieces packed by %d host "
                 "thread%s into 2 pinned staging buffers, %s on the host "
                 "(outside the budget), then sent whole", p->pack_threads,
                 p->pack_threads > 1 ? "s" : "",
                 cm_fmt_bytes_short(p->staging_bytes, host, sizeof host));
    else
        snprintf(staging, sizeof staging, "A pieces packed into 2 pinned "
                 "staging buffers, %s on the host (outside the budget), "
                 "then sent whole",
                 cm_fmt_bytes_short(p->staging_bytes, host, sizeof host));
    char bands[64] = "";
    if (p->bands > 1)
        snprintf(bands, sizeof bands, "; a tile goes home in %zu row bands",
                 p->bands);
    snprintf(buf, len, "C in %zu x %zu tiles of %zu x %zu (edge %zu x %zu), "
             "%zu C buffer%s; per tile, A in %zu pieces of %zu columns, B "
             "in %zu pieces of %zu rows, two buffers each%s\n  %zu C + 2 A "
             "+ 2 B = %s on the GPU; %s; moves %.3f GB in, %.3f GB out; 2D "
             "copies: %s; estimate %.2f ms", p->row_tiles, p->col_tiles,
             p->tile_rows, p->tile_cols,
             tile_extent(n, p->tile_rows, p->row_tiles - 1),
             tile_extent(n, p->tile_cols, p->col_tiles - 1), p->c_buffers,
             p->c_buffers > 1 ? "s" : "", p->a_pieces, p->a_k, p->k_pieces,
             p->tile_k, bands, p->c_buffers, slab, staging,
             (double)p->h2d_bytes / 1e9, (double)p->d2h_bytes / 1e9, copies,
             p->estimate_ms);
    return buf;
}
