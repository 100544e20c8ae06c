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

/* Milliseconds for a GEMM of rows x cols x k: its multiply-adds at the
 * plan's rate, and, unless that rate was measured for the plan's shape
 * (which includes it), its C read and written once, priced as a copy of
 * C at the device memory rate. That second part is what makes GEMMs of a
 * short k slow: it does not shrink with k. */
static double one_gemm_ms(const ooc_plan *p, const ooc_rates *r, double rows,
                      double cols, double k)
{
    double ms = 2.0 * rows * cols * k / (gemm_rate(p, r) * 1e9);
    int measured = p->kind == OOC_TILED && r->tiled_gemm_tflops > 0;
    if (!measured && r->d2d_gbps > 0)
        ms += rows * cols * (double)p->elem_bytes / (r->d2d_gbps * 1e6);
    return ms;
}

/* The tiled replay's clocks: one for the host (it packs each step's A
 * pieces, once the copy that last read its staging buffer is over), one
 * for the link in (A and B copies take turns on it, in the order they are
 * issued), one for the GEMMs, one for the copies out. buf_free[b]: when
 * the GEMMs that last read A and B buffer b were over; staged[b]: when
 * staging buffer b was last copied from; home[s]: when C buffer s's last
 * tile was home. */
typedef struct {
    const ooc_plan *p;
    const ooc_rates *r;
    double host, link, gemm, out;
    double buf_free[2], staged[2], home[OOC_MAX_SLOTS];
} replay;

/* Step g's pieces in (streamed.cu's step_copies): the tiles' rows of the
 * A piece, packed first where narrower than A, then the B piece. Returns
 * when both are there. */
static double replay_copies(replay *x, const ooc_step *s, size_t g)
{
    const ooc_plan *p = x->p;
    const ooc_rates *r = x->r;
    double e = (double)p->elem_bytes, rows = 0;
    size_t b = g % 2;
    for (size_t i = 0; i < s->count; i++)
        rows += (double)s->tile[i].rows;
    double a_bytes = e * rows * (double)s->k;
    if (p->staging_bytes > 0)
        x->host = fmax(x->host, x->staged[b]) + pack_ms(a_bytes, r);
    double wait = g >= 2 ? x->buf_free[b] : 0;
    x->link = fmax(fmax(x->link, x->host), wait) +
              copy_ms(a_bytes, 0, r->h2d_gbps, 0);
    x->staged[b] = x->link;
    x->link += copy_ms(e * (double)(s->k * s->cols),
                       s->cols < p->n ? (double)s->k : 0, r->h2d_gbps,
                       r->h2d_row_us);
    return x->link;
}

/* One GEMM of `rows` x the step's columns x its k, once `ready`. */
static void replay_gemm(replay *x, const ooc_step *s, double ready,
                        double rows)
{
    x->gemm = fmax(x->gemm, ready) +
              one_gemm_ms(x->p, x->r, rows, (double)s->cols, (double)s->k);
}

/* Tile t of step s is final: home. */
static void replay_home(replay *x, const ooc_step *s, const ooc_active *t)
{
    const ooc_plan *p = x->p;
    x->out = fmax(x->out, x->gemm) +
             copy_ms((double)p->elem_bytes * (double)(t->rows * s->cols),
                     s->cols < p->n ? (double)t->rows : 0, x->r->d2h_gbps,
                     x->r->d2h_row_us);
    x->home[t->slot] = x->out;
}

/* The tiled plan, replayed step by step as streamed.cu's tiled_gemm runs
 * it: at each step the leaving tiles first (each then goes home), the
 * staying ones, then the entering ones, each once its buffer is home. */
static double tiled_estimate(const ooc_plan *p, const ooc_rates *r)
{
    replay x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.r = r;
    ooc_walk w;
    ooc_step s;
    ooc_walk_start(&w, p);
    for (size_t g = 0; ooc_walk_next(&w, &s); g++) {
        double ready = replay_copies(&x, &s, g), staying = 0;
        for (size_t i = 0; i < s.count; i++) {
            const ooc_active *t = &s.tile[i];
            if (t->leave && !t->enter) {
                replay_gemm(&x, &s, ready, (double)t->rows);
                replay_home(&x, &s, t);
            } else if (!t->enter) {
                staying += (double)t->rows;
            }
        }
        if (staying > 0)
            replay_gemm(&x, &s, ready, staying);
        for (size_t i = 0; i < s.count; i++) {
            const ooc_active *t = &s.tile[i];
            if (!t->enter)
                continue;
            replay_gemm(&x, &s, fmax(ready, x.home[t->slot]),
                        (double)t->rows);
            if (t->leave)
                replay_home(&x, &s, t);
        }
        x.buf_free[g % 2] = x.gemm;
    }
    return fmax(x.out, x.gemm);
}

/* The resident plan, replayed: each stream runs its operations in order,
 * each operation starts when its stream is free and its inputs are ready.
 * done[s] is when slot s's last GEMM ended, home[s] when its C was home. */
static double resident_estimate(const ooc_plan *p, const ooc_rates *r)
{
    double e = (double)p->elem_bytes, n = (double)p->n, row = e * n;
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
            gemm += one_gemm_ms(p, r, rows, n, inner);
            done[f] = gemm;
        }
    }
    for (size_t i = 0; i < p->row_tiles; i++) {
        size_t s = i % slots;
        double rows = (double)tile_extent(p->n, p->tile_rows, i);
        if (i >= fill) {
            in = fmax(in, done[s]) + copy_ms(row * rows, 0, r->h2d_gbps, 0);
            gemm = fmax(fmax(gemm, in), home[s]) +
                   one_gemm_ms(p, r, rows, n, n);
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

/* Elements of C the plan's GEMMs read and write, counted once per GEMM
 * that touches them: a tiled plan's tiles take one GEMM a piece; a
 * resident plan's fill panels one a piece of B, the others one. */
static double c_passes(const ooc_plan *p)
{
    double n = (double)p->n;
    if (p->kind == OOC_TILED)
        return (double)p->k_pieces * n * n;
    double fill_rows = 0;
    for (size_t f = 0; f < p->fill_panels; f++)
        fill_rows += (double)tile_extent(p->n, p->tile_rows, f);
    return fill_rows * n * (double)p->k_pieces + (n - fill_rows) * n;
}

double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *r,
                       double *gemm_ms)
{
    double n = (double)p->n;
    double gemm = 2.0 * n * n * n / (gemm_rate(p, r) * 1e9);
    if (!(p->kind == OOC_TILED && r->tiled_gemm_tflops > 0) &&
        r->d2d_gbps > 0)
        gemm += c_passes(p) * (double)p->elem_bytes / (r->d2d_gbps * 1e6);
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
