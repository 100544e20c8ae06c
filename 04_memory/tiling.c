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

size_t aligned_k(size_t n, size_t most)
{
    if (most >= n)
        return n;
    if (most < OOC_K_ALIGN)
        return most;
    /* The fewest pieces whose length, rounded up to OOC_K_ALIGN, fits. */
    for (size_t pieces = tile_count(n, most);; pieces++) {
        size_t k = tile_count(tile_count(n, pieces), OOC_K_ALIGN) *
                   OOC_K_ALIGN;
        if (k <= most)
            return k;
    }
}

size_t ooc_column_steps(const ooc_plan *p)
{
    /* The column's tiles enter in order: tile i's first round in buffer
     * i % c_buffers at step (i % c_buffers) / per_step, and each later
     * one a cycle after the tile that left its buffer. The last one's
     * cycle ends the column. */
    size_t s = p->c_buffers, k = p->k_pieces, last = p->row_tiles - 1;
    if (p->row_tiles == 0 || s == 0 || p->per_step == 0)
        return 0;
    return (last % s) / p->per_step + (last / s) * k + k;
}

size_t ooc_layout_tiled(ooc_plan *p, size_t n, size_t elem_bytes,
                        size_t tile_rows, size_t tile_cols, size_t tile_k,
                        size_t c_buffers)
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
    size_t most = min_size(OOC_MAX_SLOTS, p->row_tiles);
    p->c_buffers = c_buffers < 1 ? 1 : min_size(c_buffers, most ? most : 1);
    p->per_step = p->k_pieces ? tile_count(p->c_buffers, p->k_pieces) : 1;
    p->fill_panels = 0;

    /* The C buffers back to back (a run of them is one matrix for one
     * GEMM), then the two A buffers, then the two B buffers. */
    size_t c_bytes = align_up(p->c_buffers * p->tile_rows * p->tile_cols *
                              elem_bytes);
    size_t a_bytes = align_up(p->c_buffers * p->tile_rows * p->tile_k *
                              elem_bytes);
    size_t b_bytes = align_up(p->tile_k * p->tile_cols * elem_bytes);
    p->c_offset[0] = p->c_offset[1] = 0;
    p->a_offset[0] = c_bytes;
    p->a_offset[1] = c_bytes + a_bytes;
    p->b_offset[0] = c_bytes + 2 * a_bytes;
    p->b_offset[1] = p->b_offset[0] + b_bytes;
    p->device_bytes = p->b_offset[1] + b_bytes;

    /* Each tile reads its rows of all of A once: A once per column of
     * tiles. Each step brings one B piece: a column's steps are whole
     * cycles (all of B's rows, n) and then some first pieces. A tile
     * narrower than a row of B and C makes B pieces and C tiles 2D
     * copies: count their rows. An A piece narrower than a row of A is
     * packed on the host into a staging buffer and copied whole. */
    size_t steps = ooc_column_steps(p);
    size_t cycles = p->k_pieces ? steps / p->k_pieces : 0;
    size_t b_rows = cycles * n + (steps - cycles * p->k_pieces) * p->tile_k;
    p->h2d_bytes = elem_bytes * n * (n * p->col_tiles + b_rows);
    p->d2h_bytes = n * n * elem_bytes;
    p->h2d_rows_2d = 0;
    p->d2h_rows_2d = 0;
    if (p->tile_cols < n) {
        p->h2d_rows_2d = b_rows * p->col_tiles;
        p->d2h_rows_2d = n * p->col_tiles;
    }
    p->staging_bytes = p->tile_k < n ? 2 * p->c_buffers * p->tile_rows *
                                           p->tile_k * elem_bytes
                                     : 0;
    p->pack_threads = 0;
    p->estimate_ms = p->gemm_ms = 0;
    return p->device_bytes;
}

void ooc_walk_start(ooc_walk *w, const ooc_plan *p)
{
    w->p = p;
    w->col = w->step = w->next_tile = 0;
    w->queued = p->c_buffers;
    for (size_t i = 0; i < OOC_MAX_SLOTS; i++) {
        w->busy[i] = 0;
        w->tile_of[i] = w->done[i] = 0;
        w->queue[i] = i;
    }
}

int ooc_walk_next(ooc_walk *w, ooc_step *s)
{
    const ooc_plan *p = w->p;
    size_t n = p->n;
    if (p->kind != OOC_TILED || w->col >= p->col_tiles || n == 0)
        return 0;
    /* Tiles in: into the buffers freed first, per_step at most. */
    for (size_t in = 0; in < p->per_step && w->queued > 0 &&
                        w->next_tile < p->row_tiles; in++) {
        size_t slot = w->queue[0];
        for (size_t i = 1; i < w->queued; i++)
            w->queue[i - 1] = w->queue[i];
        w->queued--;
        w->busy[slot] = 1;
        w->tile_of[slot] = w->next_tile++;
        w->done[slot] = 0;
    }
    s->col = w->col;
    s->col0 = w->col * p->tile_cols;
    s->cols = tile_extent(n, p->tile_cols, w->col);
    s->piece = w->step % p->k_pieces;
    s->k0 = s->piece * p->tile_k;
    s->k = tile_extent(n, p->tile_k, s->piece);
    s->count = 0;
    for (size_t slot = 0; slot < p->c_buffers; slot++) {
        if (!w->busy[slot])
            continue;
        ooc_active *t = &s->tile[s->count++];
        t->slot = slot;
        t->row0 = w->tile_of[slot] * p->tile_rows;
        t->rows = tile_extent(n, p->tile_rows, w->tile_of[slot]);
        t->enter = w->done[slot] == 0;
        t->leave = w->done[slot] + 1 == p->k_pieces;
    }
    /* Each tile has taken this piece; those that took all go home, and
     * their buffers queue up in that order. */
    size_t busy = 0;
    for (size_t slot = 0; slot < p->c_buffers; slot++) {
        if (!w->busy[slot])
            continue;
        if (++w->done[slot] == p->k_pieces) {
            w->busy[slot] = 0;
            w->queue[w->queued++] = slot;
        } else {
            busy++;
        }
    }
    w->step++;
    if (busy == 0 && w->next_tile == p->row_tiles) {
        w->col++;
        w->step = 0;
        w->next_tile = 0;
    }
    return 1;
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
    p->row_tiles = tile_count(n, p->tile_rows);
    p->col_tiles = n ? 1 : 0;
    p->k_pieces = tile_count(n, p->tile_k);
    /* Two slots (an A and a C panel each) let panel i + 1 come in and
     * panel i - 1 go home while panel i is computed; each slot's first
     * panel is computed piece by piece while B arrives. */
    p->c_buffers = p->row_tiles > 1 && c_buffers > 1 ? 2 : 1;
    p->fill_panels = p->c_buffers;
    p->per_step = 0;

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
    p->estimate_ms = p->gemm_ms = 0;
    return p->device_bytes;
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

void ooc_io_bound_split(size_t n, size_t elem_bytes, size_t budget,
                        double *in_bytes, double *out_bytes)
{
    double out = (double)n * (double)n * (double)elem_bytes;
    *out_bytes = out;
    *in_bytes = ooc_io_bound_bytes(n, elem_bytes, budget, NULL, NULL) - out;
}

double ooc_io_bound_ms(double in_bytes, double out_bytes, double h2d_gbps,
                       double d2h_gbps, int copy_engines)
{
    double in_ms = in_bytes / (h2d_gbps * 1e6);
    double out_ms = out_bytes / (d2h_gbps * 1e6);
    return copy_engines >= 2 ? fmax(in_ms, out_ms) : in_ms + out_ms;
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
                 "(outside the budget)", p->pack_threads,
                 p->pack_threads > 1 ? "s" : "",
                 cm_fmt_bytes_short(p->staging_bytes, host, sizeof host));
    else
        snprintf(staging, sizeof staging, "A pieces packed into 2 pinned "
                 "staging buffers, %s on the host (outside the budget)",
                 cm_fmt_bytes_short(p->staging_bytes, host, sizeof host));
    size_t steps = ooc_column_steps(p);
    snprintf(buf, len, "C in %zu x %zu tiles of %zu x %zu (edge %zu x %zu), "
             "%zu on the GPU at a time, all from one column of tiles; B in "
             "pieces of %zu rows, %zu to a cycle; each tile stays for one "
             "cycle, at most %zu entering per step; %zu steps per column\n  "
             "%zu C + 2 A + 2 B = %s on the GPU; %s; moves %.3f GB in, "
             "%.3f GB out; 2D copies: %s; estimate %.2f ms", p->row_tiles,
             p->col_tiles, p->tile_rows, p->tile_cols,
             tile_extent(n, p->tile_rows, p->row_tiles - 1),
             tile_extent(n, p->tile_cols, p->col_tiles - 1), p->c_buffers,
             p->tile_k, p->k_pieces, p->per_step, steps, p->c_buffers, slab,
             staging, (double)p->h2d_bytes / 1e9, (double)p->d2h_bytes / 1e9,
             copies, p->estimate_ms);
    return buf;
}
