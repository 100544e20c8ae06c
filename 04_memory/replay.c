/* replay.c - how long a plan should take (ooc_estimate_ms, tiling.h):
 * each plan replayed step by step on the measured rates, its copies and
 * GEMMs on their streams, as streamed.cu runs them.
 */
#include "tiling.h"

#include <math.h>
#include <string.h>

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

/* The tiled replay's clocks: one for the host (it packs each narrow A
 * piece, once the copy that last read its staging buffer is over), one
 * for the link in (A and B copies take turns on it, in the order they
 * are issued), one for the GEMMs, one for the copies out. a_free[s],
 * b_free[s]: when the GEMMs that read device buffer s last were over;
 * a_in[s]: when A buffer s was last filled, which is also when staging
 * buffer s was last copied from; home[t][h], end[t][h], count[t]: when band h of
 * a tile of band set t was home, where it ended in its C buffer, and how
 * many bands that tile had (streamed.cu's band events). */
typedef struct {
    const ooc_plan *p;
    const ooc_rates *r;
    double flop_per_ms;
    double host, link, gemm, out;
    double a_free[2], b_free[2], a_in[2];
    double home[4][OOC_BANDS];
    size_t end[4][OOC_BANDS], count[4];
} replay;

/* A step's pieces in (streamed.cu's step_copies); returns when both are
 * there. */
static double replay_copies(replay *x, size_t rows, size_t cols,
                            size_t a_cols, size_t k, int a_first, size_t ga,
                            size_t gb)
{
    const ooc_plan *p = x->p;
    const ooc_rates *r = x->r;
    double e = (double)p->elem_bytes;
    size_t sa = ga % 2, sb = gb % 2;
    if (a_first) {
        double bytes = e * (double)(rows * a_cols);
        /* Piece g + 1 is packed while piece g is sent; piece g + 2 waits
         * for that send, its staging buffer's. */
        if (a_cols < p->n)
            x->host = fmax(x->host, x->a_in[sa]) + pack_ms(bytes, r);
        x->link = fmax(fmax(x->link, x->host), ga >= 2 ? x->a_free[sa] : 0)
                  + copy_ms(bytes, 0, r->h2d_gbps, 0);
        x->a_in[sa] = x->link;
    }
    x->link = fmax(x->link, gb >= 2 ? x->b_free[sb] : 0) +
              copy_ms(e * (double)(k * cols), cols < p->n ? (double)k : 0,
                      r->h2d_gbps, r->h2d_row_us);
    return fmax(x->a_in[sa], x->link);
}

/* When the previous tile in the buffer (band set prev, or -1) has sent
 * home what the next `end` elements of the buffer held. */
static double replay_home(const replay *x, int prev, size_t end)
{
    if (prev < 0)
        return 0;
    return x->home[prev][ooc_band_to_wait(x->end[prev], x->count[prev],
                                          end)];
}

/* One GEMM of `rows` x cols x k, once `ready`. */
static void replay_gemm(replay *x, double ready, size_t rows, size_t cols,
                        size_t k)
{
    x->gemm = fmax(x->gemm, ready) +
              2.0 * (double)rows * (double)cols * (double)k / x->flop_per_ms;
}

/* A replayed step: when its pieces were in, its rows of B, its buffers,
 * whether it is the tile's first and ends its A piece. */
typedef struct {
    double ready;
    size_t k, sa, sb;
    int first, a_last;
} replay_step;

static void replay_done(replay *x, const replay_step *s)
{
    x->b_free[s->sb] = x->gemm;
    if (s->a_last)
        x->a_free[s->sa] = x->gemm;
}

/* streamed.cu's banded(): the group's GEMMs band by band, each band of
 * the tile's first step after the previous tile's rows there are home;
 * with `send`, each band home after its GEMMs. */
static void replay_banded(replay *x, size_t rows, size_t cols, int set,
                          int prev, const replay_step *group, size_t count,
                          int send)
{
    const ooc_plan *p = x->p;
    size_t band_rows = ooc_band_rows(p, rows);
    size_t bands = tile_count(rows, band_rows);
    for (size_t h = 0; h < bands; h++) {
        size_t r0 = h * band_rows, part = tile_extent(rows, band_rows, h);
        double home = group[0].first
                          ? replay_home(x, prev, (r0 + part) * cols) : 0;
        for (size_t q = 0; q < count; q++)
            replay_gemm(x, fmax(group[q].ready, home), part, cols,
                        group[q].k);
        if (send) {
            x->out = fmax(x->out, x->gemm) +
                     copy_ms((double)p->elem_bytes * (double)(part * cols),
                             cols < p->n ? (double)part : 0,
                             x->r->d2h_gbps, x->r->d2h_row_us);
            x->home[set][h] = x->out;
            x->end[set][h] = (r0 + part) * cols;
        }
    }
    for (size_t q = 0; q < count; q++)
        replay_done(x, &group[q]);
}

/* The tiled plan, replayed step by step as streamed.cu's tiled_gemm runs
 * it. */
static double tiled_estimate(const ooc_plan *p, const ooc_rates *r)
{
    replay x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.r = r;
    x.flop_per_ms = gemm_rate(p, r) * 1e9;
    size_t n = p->n, ga = 0, gb = 0;
    for (size_t ti = 0; ti < p->row_tiles; ti++)
        for (size_t tj = 0; tj < p->col_tiles; tj++) {
            size_t tile = ti * p->col_tiles + tj;
            size_t rows = tile_extent(n, p->tile_rows, ti);
            size_t cols = tile_extent(n, p->tile_cols, tj);
            int set = (int)(tile % 4);
            int prev = tile >= p->c_buffers
                           ? (int)((tile - p->c_buffers) % 4) : -1;
            x.count[set] = tile_count(rows, ooc_band_rows(p, rows));
            size_t head = ooc_head_pieces(p, tile), step = 0, grouped = 0;
            replay_step group[2];
            for (size_t ap = 0; ap < p->a_pieces; ap++, ga++) {
                size_t a_cols = tile_extent(n, p->a_k, ap);
                size_t pieces = tile_count(a_cols, p->tile_k);
                for (size_t bp = 0; bp < pieces; bp++, gb++, step++) {
                    replay_step s;
                    s.k = ooc_b_piece(p, ap, bp, NULL);
                    s.sa = ga % 2;
                    s.sb = gb % 2;
                    s.first = step == 0;
                    s.a_last = bp + 1 == pieces;
                    s.ready = replay_copies(&x, rows, cols, a_cols, s.k,
                                            bp == 0, ga, gb);
                    int last = step + 1 == p->k_pieces;
                    if (step < head) {
                        group[grouped++] = s;
                        if (grouped == head || last)
                            replay_banded(&x, rows, cols, set, prev, group,
                                          grouped, last);
                    } else if (last) {
                        replay_banded(&x, rows, cols, set, prev, &s, 1, 1);
                    } else {
                        double home = s.first
                                          ? replay_home(&x, prev, rows * cols)
                                          : 0;
                        replay_gemm(&x, fmax(s.ready, home), rows, cols, s.k);
                        replay_done(&x, &s);
                    }
                }
            }
        }
    return fmax(x.out, x.gemm);
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
