/* replay.c - how long a plan should take (ooc_estimate_ms, tiling.h):
 * each plan replayed step by step on the measured rates, its copies and
 * GEMMs on their streams, as streamed.cu runs them.
 */
#include "tiling.h"

#include <math.h>

#include "floor.h"
#include "tiling_parts.h"

/* Milliseconds to copy `bytes` at gbps, plus row_us for each 2D row. */
static double copy_ms(double bytes, double rows_2d, double gbps,
                      double row_us)
{
    return bytes / (gbps * 1e6) + rows_2d * row_us * 1e-3;
}

/* The tiled plan, replayed as streamed.cu runs it. One clock for the
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

void copy_times(const ooc_plan *p, const ooc_rates *r, double *in,
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
