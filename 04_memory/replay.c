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

/* Milliseconds for the host threads to pack `bytes` of an A piece; 0
 * when no packing rate is known. */
static double pack_ms(double bytes, const ooc_rates *r)
{
    return r->pack_gbps > 0 ? bytes / (r->pack_gbps * 1e6) : 0;
}

/* The tiled plan, replayed as streamed.cu runs it. One clock for the
 * host (it packs each narrow A piece, once the copy that last read its
 * staging buffer is over, and only then issues what follows), one for
 * the link in (A and B copies take turns on it, in the order they are
 * issued), one for the GEMMs, one for the copies out. a_free[s],
 * b_free[s]: when the GEMMs that read device buffer s last were over;
 * sent[s]: when staging buffer s was last copied from; home[s]: when C
 * buffer s last went home. */
static double tiled_estimate(const ooc_plan *p, const ooc_rates *r)
{
    double e = (double)p->elem_bytes, flop_per_ms = gemm_rate(p, r) * 1e9;
    double host = 0, link = 0, gemm = 0, out = 0;
    double a_free[2] = {0, 0}, b_free[2] = {0, 0}, home[2] = {0, 0};
    double sent[2] = {0, 0};
    size_t n = p->n, ga = 0, gb = 0;
    for (size_t ti = 0; ti < p->row_tiles; ti++)
        for (size_t tj = 0; tj < p->col_tiles; tj++) {
            size_t tile = ti * p->col_tiles + tj, cb = tile % p->c_buffers;
            size_t rows = tile_extent(n, p->tile_rows, ti);
            size_t cols = tile_extent(n, p->tile_cols, tj);
            int first = 1;
            for (size_t ap = 0; ap < p->a_pieces; ap++, ga++) {
                size_t a_cols = tile_extent(n, p->a_k, ap), sa = ga % 2;
                double bytes = e * (double)(rows * a_cols);
                /* Piece g + 1 is packed while piece g is sent; piece g + 2
                 * waits for that send, its staging buffer's. */
                if (a_cols < n)
                    host = fmax(host, sent[sa]) + pack_ms(bytes, r);
                link = fmax(fmax(link, host), ga >= 2 ? a_free[sa] : 0) +
                       copy_ms(bytes, 0, r->h2d_gbps, 0);
                sent[sa] = link;
                double a_in = link;
                size_t pieces = tile_count(a_cols, p->tile_k);
                for (size_t bp = 0; bp < pieces; bp++, gb++) {
                    size_t k = ooc_b_piece(p, ap, bp, NULL), sb = gb % 2;
                    link = fmax(link, gb >= 2 ? b_free[sb] : 0) +
                           copy_ms(e * (double)(k * cols),
                                   cols < n ? (double)k : 0, r->h2d_gbps,
                                   r->h2d_row_us);
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
                  r->h2d_gbps, r->h2d_row_us);
    *out = copy_ms((double)p->d2h_bytes, (double)p->d2h_rows_2d,
                   r->d2h_gbps, r->d2h_row_us);
}

double gemm_rate(const ooc_plan *p, const ooc_rates *r)
{
    if (p->kind == OOC_TILED && r->tiled_gemm_tflops > 0)
        return r->tiled_gemm_tflops;
    return r->gemm_tflops;
}

double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *r,
                       double *gemm_ms)
{
    double n = (double)p->n;
    double gemm = 2.0 * n * n * n / (gemm_rate(p, r) * 1e9);
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
