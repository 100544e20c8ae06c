/* streamed.cu - the out-of-core GEMM itself, as outofcore.cu sketches it:
 * a plan's A, B and C pieces copied through the slab's buffers on three
 * streams while the GEMMs run on a fourth, events saying when a buffer is
 * full or free again.
 */
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "check.h"
#include "memory.h"
#include "streamed.h"
#include "tiling.h"

static const cudaMemcpyKind H2D = cudaMemcpyHostToDevice;

/* rows of `width` bytes, src_pitch apart, to rows dst_pitch apart. Whole
 * rows of a matrix are one block of memory, and cudaMemcpyAsync copies it
 * at full speed; narrower rows need cudaMemcpy2DAsync, whose DMA pays
 * for every row (probe.cu measures how much): here only B pieces and C
 * tiles narrower than n, whose rows are long. */
static void copy_rows(void *dst, size_t dst_pitch, const void *src,
                      size_t src_pitch, size_t width, size_t rows,
                      cudaMemcpyKind kind, cudaStream_t stream)
{
    if (width == dst_pitch && width == src_pitch)
        CUDA_CHECK(cudaMemcpyAsync(dst, src, width * rows, kind, stream));
    else
        CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width,
                                     rows, kind, stream));
}

/* The GEMM stream waits until `copy` gets here: a buffer is full. */
static void mark_full(ooc_job *j, cudaEvent_t full, cudaStream_t copy)
{
    CUDA_CHECK(cudaEventRecord(full, copy));
    CUDA_CHECK(cudaStreamWaitEvent(j->gemm, full, 0));
}

/* Slot's C is final: send rows x cols of it home, at (row0, col0). */
static void send_home(ooc_job *j, int slot, size_t row0, size_t col0,
                      size_t rows, size_t cols)
{
    size_t n = j->plan->n, e = sizeof(double);
    CUDA_CHECK(cudaEventRecord(j->done[slot], j->gemm));
    if (!j->copies)
        return;
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_out, j->done[slot], 0));
    copy_rows(j->h_c + row0 * n + col0, n * e, j->d_c[slot], cols * e,
              cols * e, rows, cudaMemcpyDeviceToHost, j->copy_out);
    CUDA_CHECK(cudaEventRecord(j->home[slot], j->copy_out));
}

/* A[row0 : row0 + rows, a0 : a0 + a_cols] into device buffer sa. As
 * rows of a_cols elements n apart, a 2D copy would pay the copy engine
 * for each row (on an H200, a 5000 x 570 piece crossed so at 23 GB/s in
 * the pipeline, not 55); so host threads pack the rows into staging buffer sa
 * first, and the piece goes over as one block. Staging buffer sa may be
 * packed again only once its last copy (piece ga - 2) is over: the host
 * waits for that, while piece ga - 1 crosses from the other buffer. At a
 * run's start the event still marks the previous run's last copy out of
 * that buffer, which is waited for too; an event never recorded counts
 * as complete. */
static void send_a_piece(ooc_job *j, int sa, size_t row0, size_t a0,
                         size_t a_cols, size_t rows)
{
    size_t n = j->plan->n, e = sizeof(double);
    const double *h_piece = j->h_a + row0 * n + a0;
    if (j->plan->staging_bytes == 0) {   /* whole rows: one block as is */
        copy_rows(j->d_a[sa], a_cols * e, h_piece, n * e, a_cols * e, rows,
                  H2D, j->copy_a);
        return;
    }
    CUDA_CHECK(cudaEventSynchronize(j->staged[sa]));
    pack_rows(j->packers, j->h_stage[sa], h_piece, n * e, a_cols * e, rows);
    CUDA_CHECK(cudaMemcpyAsync(j->d_a[sa], j->h_stage[sa], a_cols * e * rows,
                               H2D, j->copy_a));
    CUDA_CHECK(cudaEventRecord(j->staged[sa], j->copy_a));
}

/* One B piece of a tile, with the A piece it is a part of: the tile's
 * GEMMs run one such step after another. */
typedef struct {
    size_t a0, a_cols, k0, k;  /* A piece's first column and width; the
                                  B piece's first row and rows */
    int sa, sb;                /* their buffers */
    int a_first, a_last;       /* the A piece's first, last B piece */
    int first;                 /* the tile's first: beta = 0 */
} ooc_step;

/* A C tile: where it goes in C, its buffer, its bands. */
typedef struct {
    size_t row0, col0, rows, cols, band_rows, bands;
    int cb, set;               /* C buffer; band events j->band_*[set] */
} ooc_tile;

/* Step s's pieces in, A's if s starts an A piece, each once the GEMMs
 * that read its buffer last (two pieces ago) are over; events say when
 * each is there. ga, gb: the pieces' numbers since the run's start. */
static void step_copies(ooc_job *j, const ooc_tile *t, const ooc_step *s,
                        size_t ga, size_t gb)
{
    size_t n = j->plan->n, e = sizeof(double);
    if (!j->copies)
        return;
    if (s->a_first) {
        if (ga >= 2)
            CUDA_CHECK(cudaStreamWaitEvent(j->copy_a, j->a_used[s->sa], 0));
        send_a_piece(j, s->sa, t->row0, s->a0, s->a_cols, t->rows);
        CUDA_CHECK(cudaEventRecord(j->a_in[s->sa], j->copy_a));
    }
    /* B[k0:k0 + k, cols], on the other copy stream: the copy engine takes
     * A and B copies in turn, and a B piece need not wait behind the next
     * A piece's wait for its buffer. */
    if (gb >= 2)
        CUDA_CHECK(cudaStreamWaitEvent(j->copy_b, j->b_used[s->sb], 0));
    copy_rows(j->d_b[s->sb], t->cols * e, j->h_b + s->k0 * n + t->col0,
              n * e, t->cols * e, s->k, H2D, j->copy_b);
    CUDA_CHECK(cudaEventRecord(j->b_in[s->sb], j->copy_b));
}

/* The GEMM stream waits for step s's pieces, before its first GEMM. */
static void step_inputs(ooc_job *j, const ooc_step *s)
{
    if (!j->copies)
        return;
    if (s->a_first)
        CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->a_in[s->sa], 0));
    CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->b_in[s->sb], 0));
}

/* C tile rows r0 .. r0 + rows - 1 += the same rows of A[rows, k0:k0 + k]
 * times B[k0:k0 + k, cols]. The A part is a sub-matrix pointer into the A
 * piece, its leading dimension the piece's width. beta = 0 on the tile's
 * first piece: cuBLAS then ignores what the buffer held, so C needs no
 * zeroing. */
static void step_gemm(ooc_job *j, const ooc_tile *t, const ooc_step *s,
                      size_t r0, size_t rows)
{
    dgemm_rowmajor(j->handle, rows, t->cols, s->k,
                   j->d_a[s->sa] + r0 * s->a_cols + (s->k0 - s->a0),
                   s->a_cols, j->d_b[s->sb], t->cols, s->first ? 0.0 : 1.0,
                   j->d_c[t->cb] + r0 * t->cols, t->cols);
}

/* Step s's GEMMs are issued: its buffers may be refilled after them. */
static void step_done(ooc_job *j, const ooc_step *s)
{
    CUDA_CHECK(cudaEventRecord(j->b_used[s->sb], j->gemm));
    if (s->a_last)
        CUDA_CHECK(cudaEventRecord(j->a_used[s->sa], j->gemm));
}

/* The GEMM stream waits until the previous tile in the buffer (its band
 * events in set prev) has sent home what the next `end` elements of the
 * buffer held: copy_out sends bands in order, so its band reaching `end`
 * being home means all before it are. */
static void wait_home(ooc_job *j, int prev, size_t end)
{
    if (prev < 0 || !j->copies)
        return;
    size_t h = ooc_band_to_wait(j->band_end[prev], j->band_count[prev], end);
    CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->band_home[prev][h], 0));
}

/* Band h of the tile (rows r0 .. r0 + rows - 1) is final: home. */
static void send_band(ooc_job *j, const ooc_tile *t, size_t h, size_t r0,
                      size_t rows)
{
    size_t n = j->plan->n, e = sizeof(double);
    j->band_end[t->set][h] = (r0 + rows) * t->cols;
    if (!j->copies)
        return;
    CUDA_CHECK(cudaEventRecord(j->band_done, j->gemm));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_out, j->band_done, 0));
    copy_rows(j->h_c + (t->row0 + r0) * n + t->col0, n * e,
              j->d_c[t->cb] + r0 * t->cols, t->cols * e, t->cols * e, rows,
              cudaMemcpyDeviceToHost, j->copy_out);
    CUDA_CHECK(cudaEventRecord(j->band_home[t->set][h], j->copy_out));
}

/* The GEMMs of `count` steps band by band: band h of each step, then band
 * h + 1. A band that the tile's first step writes first waits for the
 * previous tile's rows there to be home (prev: its band set, or -1);
 * with `send`, the group holds the tile's last step and each band goes
 * home once its GEMMs are over. So at a tile change the GEMMs of the new
 * tile's first bands run while the old tile's last bands travel. */
static void banded(ooc_job *j, const ooc_tile *t, const ooc_step *group,
                   size_t count, int prev, int send)
{
    for (size_t h = 0; h < t->bands; h++) {
        size_t r0 = h * t->band_rows;
        size_t rows = tile_extent(t->rows, t->band_rows, h);
        if (group[0].first)
            wait_home(j, prev, (r0 + rows) * t->cols);
        for (size_t q = 0; q < count; q++) {
            if (h == 0)
                step_inputs(j, &group[q]);
            step_gemm(j, t, &group[q], r0, rows);
        }
        if (send)
            send_band(j, t, h, r0, rows);
    }
    for (size_t q = 0; q < count; q++)
        step_done(j, &group[q]);
}

/* A and B pieces alternate between two buffers each: piece g uses buffer
 * g % 2, once the GEMMs that read piece g - 2 are over. A tile's first
 * steps (ooc_head_pieces) and its last run band by band (banded); the
 * others one GEMM each. */
static void tiled_gemm(ooc_job *j)
{
    const ooc_plan *p = j->plan;
    size_t n = p->n, ga = 0, gb = 0;
    for (size_t ti = 0; ti < p->row_tiles; ti++)
        for (size_t tj = 0; tj < p->col_tiles; tj++) {
            size_t tile = ti * p->col_tiles + tj;
            ooc_tile t;
            t.row0 = ti * p->tile_rows;
            t.col0 = tj * p->tile_cols;
            t.rows = tile_extent(n, p->tile_rows, ti);
            t.cols = tile_extent(n, p->tile_cols, tj);
            t.band_rows = ooc_band_rows(p, t.rows);
            t.bands = tile_count(t.rows, t.band_rows);
            t.cb = (int)(tile % p->c_buffers);
            t.set = (int)(tile % 4);
            j->band_count[t.set] = t.bands;
            /* The tile that held this C buffer before: its band events. */
            int prev = tile >= p->c_buffers
                           ? (int)((tile - p->c_buffers) % 4) : -1;
            size_t head = ooc_head_pieces(p, tile), step = 0, grouped = 0;
            ooc_step group[2];
            for (size_t ap = 0; ap < p->a_pieces; ap++, ga++) {
                size_t pieces = tile_count(tile_extent(n, p->a_k, ap),
                                           p->tile_k);
                for (size_t bp = 0; bp < pieces; bp++, gb++, step++) {
                    ooc_step s;
                    s.a0 = ap * p->a_k;
                    s.a_cols = tile_extent(n, p->a_k, ap);
                    s.k = ooc_b_piece(p, ap, bp, &s.k0);
                    s.sa = (int)(ga % 2);
                    s.sb = (int)(gb % 2);
                    s.a_first = bp == 0;
                    s.a_last = bp + 1 == pieces;
                    s.first = step == 0;
                    int last = step + 1 == p->k_pieces;
                    step_copies(j, &t, &s, ga, gb);
                    if (step < head) {
                        group[grouped++] = s;
                        if (grouped == head || last)
                            banded(j, &t, group, grouped, prev, last);
                    } else if (last) {
                        banded(j, &t, &s, 1, prev, 1);
                    } else {
                        if (s.first)
                            wait_home(j, prev, t.rows * t.cols);
                        step_inputs(j, &s);
                        step_gemm(j, &t, &s, 0, t.rows);
                        step_done(j, &s);
                    }
                }
            }
        }
}

/* Slot s holds an A panel and a C panel; B (d_b[0]) is whole n x n. The
 * A panels' rows are whole rows of A, and a piece of B is whole rows of
 * B, so every copy here is one contiguous block. */
static void resident_gemm(ooc_job *j)
{
    const ooc_plan *p = j->plan;
    size_t n = p->n, e = sizeof(double), fill = p->fill_panels;
    double *d_b = j->d_b[0];
    for (size_t f = 0; f < fill && j->copies; f++) {
        copy_rows(j->d_a[f], n * e, j->h_a + f * p->tile_rows * n, n * e,
                  n * e, tile_extent(n, p->tile_rows, f), H2D, j->copy_a);
        mark_full(j, j->a_in[f], j->copy_a);
    }
    /* While B arrives: each piece of B's rows goes straight to its place
     * in B, and the fill panels take their GEMM share of it at once. The
     * matching columns of an A panel need no copy: a sub-matrix pointer
     * with leading dimension n, as in blocked.cu. */
    for (size_t kp = 0; kp < p->k_pieces; kp++) {
        size_t k0 = kp * p->tile_k, inner = tile_extent(n, p->tile_k, kp);
        if (j->copies) {
            copy_rows(d_b + k0 * n, n * e, j->h_b + k0 * n, n * e, n * e,
                      inner, H2D, j->copy_a);
            mark_full(j, j->b_in[0], j->copy_a);
        }
        for (size_t f = 0; f < fill; f++) {
            dgemm_rowmajor(j->handle, tile_extent(n, p->tile_rows, f), n,
                           inner, j->d_a[f] + k0, n, d_b + k0 * n, n,
                           kp ? 1.0 : 0.0, j->d_c[f], n);
            if (kp + 1 == p->k_pieces)
                send_home(j, (int)f, f * p->tile_rows, 0,
                          tile_extent(n, p->tile_rows, f), n);
        }
    }
    /* The other panels, with all of B there: one GEMM each. Panel i uses
     * slot i % c_buffers, once the slot's last panel's GEMM is done (its A
     * may then be overwritten) and its C is home. */
    for (size_t i = fill; i < p->row_tiles; i++) {
        int s = (int)(i % p->c_buffers);
        size_t row0 = i * p->tile_rows;
        size_t rows = tile_extent(n, p->tile_rows, i);
        if (j->copies) {
            CUDA_CHECK(cudaStreamWaitEvent(j->copy_a, j->done[s], 0));
            copy_rows(j->d_a[s], n * e, j->h_a + row0 * n, n * e, n * e,
                      rows, H2D, j->copy_a);
            mark_full(j, j->a_in[s], j->copy_a);
            CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->home[s], 0));
        }
        dgemm_rowmajor(j->handle, rows, n, n, j->d_a[s], n, d_b, n, 0.0,
                       j->d_c[s], n);
        send_home(j, s, row0, 0, rows, n);
    }
}

void streamed_gemm(void *ctx)
{
    ooc_job *j = (ooc_job *)ctx;
    /* Nothing of this run may start before the previous run ended. */
    CUDA_CHECK(cudaEventRecord(j->start, j->gemm));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_a, j->start, 0));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_b, j->start, 0));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_out, j->start, 0));
    if (j->plan->kind == OOC_RESIDENT)
        resident_gemm(j);
    else
        tiled_gemm(j);
    /* The run ends when the last C is home (every copy in was waited for
     * by a GEMM before it); the timing events are on the GEMM stream, so
     * it waits for that. */
    CUDA_CHECK(cudaEventRecord(j->end, j->copy_out));
    CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->end, 0));
}
