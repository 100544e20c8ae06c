/* streamed.cu - the out-of-core GEMM itself, as outofcore.cu sketches it:
 * a plan's A, B and C pieces copied through the slab's buffers on three
 * streams while the GEMMs run on a fourth, events saying when a buffer is
 * full or free again.
 */
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "check.h"
#include "gemm.h"
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

/* The run of step s's tiles that starts at tile i: the tiles after it
 * in consecutive C buffers (with `staying`, only tiles neither entering
 * nor leaving), each after a full one, so that their rows, and their
 * rows of the A piece, lie back to back. Returns the run's last tile and
 * puts its rows in *rows. */
static size_t run_end(const ooc_plan *p, const ooc_step *s, size_t i,
                      int staying, size_t *rows)
{
    *rows = s->tile[i].rows;
    while (i + 1 < s->count && s->tile[i + 1].slot == s->tile[i].slot + 1 &&
           s->tile[i].rows == p->tile_rows &&
           !(staying && (s->tile[i + 1].enter || s->tile[i + 1].leave)))
        *rows += s->tile[++i].rows;
    return i;
}

/* The A piece of step s (the step's k columns of A, the rows of each
 * tile on the GPU) into device buffer b, tile by tile at its C buffer's
 * place: the part for C buffer `slot` starts at row slot * tile_rows,
 * rows of k elements. As rows of k elements n apart, a 2D copy would pay
 * the copy engine for each row (on an H200, a 5000 x 570 piece crossed so
 * at 23 GB/s in the pipeline, not 55); so host threads pack the rows into
 * staging buffer b first, and each run of consecutive buffers goes over as
 * one block. Staging buffer b may be packed again only once its last copy
 * (step g - 2) is over: the host waits for that, while step g - 1's
 * pieces cross from the other buffer. At a run's start the event still
 * marks the previous run's last copy out of that buffer, which is waited
 * for too; an event never recorded counts as complete. */
static void send_a_piece(ooc_job *j, const ooc_step *s, int b)
{
    const ooc_plan *p = j->plan;
    size_t n = p->n, e = sizeof(double), k = s->k;
    double *d_a = j->d_a[b];
    if (p->staging_bytes == 0) {   /* whole rows: each tile's are a block */
        for (size_t i = 0; i < s->count; i++) {
            const ooc_active *t = &s->tile[i];
            CUDA_CHECK(cudaMemcpyAsync(d_a + t->slot * p->tile_rows * k,
                                       j->h_a + t->row0 * n, t->rows * k * e,
                                       H2D, j->copy_a));
        }
        return;
    }
    double *h_stage = j->h_stage[b];
    pack_block parts[OOC_MAX_SLOTS];
    for (size_t i = 0; i < s->count; i++) {
        const ooc_active *t = &s->tile[i];
        parts[i].dst = h_stage + t->slot * p->tile_rows * k;
        parts[i].src = j->h_a + t->row0 * n + s->k0;
        parts[i].rows = t->rows;
    }
    CUDA_CHECK(cudaEventSynchronize(j->staged[b]));
    pack_blocks(j->packers, parts, s->count, n * e, k * e);
    /* Each run of consecutive buffers is one block. */
    for (size_t i = 0, rows; i < s->count; i++) {
        size_t at = s->tile[i].slot * p->tile_rows * k;
        i = run_end(p, s, i, 0, &rows);
        CUDA_CHECK(cudaMemcpyAsync(d_a + at, h_stage + at, rows * k * e, H2D,
                                   j->copy_a));
    }
    CUDA_CHECK(cudaEventRecord(j->staged[b], j->copy_a));
}

/* Step g's pieces in, into buffers b = g % 2, once the GEMMs that read
 * them last (step g - 2) are over; events say when each is there. */
static void step_copies(ooc_job *j, const ooc_step *s, size_t g)
{
    size_t n = j->plan->n, e = sizeof(double);
    int b = (int)(g % 2);
    if (!j->copies)
        return;
    if (g >= 2) {
        CUDA_CHECK(cudaStreamWaitEvent(j->copy_a, j->used[b], 0));
        CUDA_CHECK(cudaStreamWaitEvent(j->copy_b, j->used[b], 0));
    }
    send_a_piece(j, s, b);
    CUDA_CHECK(cudaEventRecord(j->a_in[b], j->copy_a));
    /* B[k0:k0 + k, cols], on the other copy stream: the copy engine takes
     * A and B copies in turn, and a B piece need not wait behind the next
     * A piece's wait for its buffer. */
    copy_rows(j->d_b[b], s->cols * e, j->h_b + s->k0 * n + s->col0, n * e,
              s->cols * e, s->k, H2D, j->copy_b);
    CUDA_CHECK(cudaEventRecord(j->b_in[b], j->copy_b));
}

/* C buffers first_slot .. (rows of them, back to back) += their rows of
 * the A piece in buffer b times the B piece: A's part is a sub-matrix
 * pointer into the piece, its leading dimension the piece's width. beta =
 * 0 on a tile's first piece: cuBLAS then ignores what the buffer held, so
 * C needs no zeroing. */
static void slots_gemm(ooc_job *j, const ooc_step *s, int b,
                       size_t first_slot, size_t rows, double beta)
{
    const ooc_plan *p = j->plan;
    const double *a = j->d_a[b] + first_slot * p->tile_rows * s->k;
    double *c = j->d_c[0] + first_slot * p->tile_rows * p->tile_cols;
    CUBLAS_CHECK(cm_gemm_rowmajor(j->handle, rows, s->cols, s->k, 1.0, a,
                                  s->k, j->d_b[b], s->cols, beta, c,
                                  p->tile_cols));
}

/* Tile t is final: home, from its C buffer, once its GEMM is over. */
static void send_tile(ooc_job *j, const ooc_step *s, const ooc_active *t)
{
    const ooc_plan *p = j->plan;
    size_t n = p->n, e = sizeof(double);
    if (!j->copies)
        return;
    CUDA_CHECK(cudaEventRecord(j->tile_done, j->gemm));
    CUDA_CHECK(cudaStreamWaitEvent(j->copy_out, j->tile_done, 0));
    copy_rows(j->h_c + t->row0 * n + s->col0, n * e,
              j->d_c[0] + t->slot * p->tile_rows * p->tile_cols,
              p->tile_cols * e, s->cols * e, t->rows, cudaMemcpyDeviceToHost,
              j->copy_out);
    CUDA_CHECK(cudaEventRecord(j->slot_home[t->slot], j->copy_out));
    j->slot_sent[t->slot] = 1;
}

/* Step s's GEMMs: the leaving tiles first, each alone, so that each
 * starts home as soon as it is final; then the staying tiles, one GEMM
 * for each run of consecutive C buffers; then the entering ones, each
 * once its buffer's last tile is home (by then the others' GEMMs have
 * given that copy time). */
static void step_gemms(ooc_job *j, const ooc_step *s, size_t g)
{
    const ooc_plan *p = j->plan;
    int b = (int)(g % 2);
    if (j->copies) {
        CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->a_in[b], 0));
        CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->b_in[b], 0));
    }
    for (size_t i = 0; i < s->count; i++) {
        const ooc_active *t = &s->tile[i];
        if (t->leave && !t->enter) {
            slots_gemm(j, s, b, t->slot, t->rows, 1.0);
            send_tile(j, s, t);
        }
    }
    for (size_t i = 0, rows; i < s->count; i++) {
        const ooc_active *t = &s->tile[i];
        if (t->enter || t->leave)
            continue;
        i = run_end(p, s, i, 1, &rows);
        slots_gemm(j, s, b, t->slot, rows, 1.0);
    }
    for (size_t i = 0; i < s->count; i++) {
        const ooc_active *t = &s->tile[i];
        if (!t->enter)
            continue;
        if (j->copies && j->slot_sent[t->slot])
            CUDA_CHECK(cudaStreamWaitEvent(j->gemm, j->slot_home[t->slot],
                                           0));
        slots_gemm(j, s, b, t->slot, t->rows, 0.0);
        if (t->leave)
            send_tile(j, s, t);
    }
    /* Buffers b may be refilled after these GEMMs. */
    CUDA_CHECK(cudaEventRecord(j->used[b], j->gemm));
}

/* The walk's steps (tiling.h), each step's pieces in and its GEMMs. */
static void tiled_gemm(ooc_job *j)
{
    ooc_walk w;
    ooc_step s;
    for (size_t i = 0; i < OOC_MAX_SLOTS; i++)
        j->slot_sent[i] = 0;
    ooc_walk_start(&w, j->plan);
    for (size_t g = 0; ooc_walk_next(&w, &s); g++) {
        step_copies(j, &s, g);
        step_gemms(j, &s, g);
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
            CUBLAS_CHECK(cm_gemm_rowmajor(j->handle,
                                          tile_extent(n, p->tile_rows, f), n,
                                          inner, 1.0, j->d_a[f] + k0, n,
                                          d_b + k0 * n, n, kp ? 1.0 : 0.0,
                                          j->d_c[f], n));
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
        CUBLAS_CHECK(cm_gemm_rowmajor(j->handle, rows, n, n, 1.0, j->d_a[s],
                                      n, d_b, n, 0.0, j->d_c[s], n));
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
