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

/* A and B pieces alternate between two buffers each: piece g uses buffer
 * g % 2, once the GEMMs that read piece g - 2 are over. */
static void tiled_gemm(ooc_job *j)
{
    const ooc_plan *p = j->plan;
    size_t n = p->n, e = sizeof(double), ga = 0, gb = 0;
    for (size_t ti = 0; ti < p->row_tiles; ti++)
        for (size_t tj = 0; tj < p->col_tiles; tj++) {
            size_t tile = ti * p->col_tiles + tj;
            int cb = (int)(tile % p->c_buffers), first = 1;
            size_t row0 = ti * p->tile_rows, col0 = tj * p->tile_cols;
            size_t rows = tile_extent(n, p->tile_rows, ti);
            size_t cols = tile_extent(n, p->tile_cols, tj);
            for (size_t ap = 0; ap < p->a_pieces; ap++, ga++) {
                int sa = (int)(ga % 2);
                size_t a0 = ap * p->a_k, a_cols = tile_extent(n, p->a_k, ap);
                if (j->copies) {
                    if (ga >= 2)
                        CUDA_CHECK(cudaStreamWaitEvent(j->copy_a,
                                                       j->a_used[sa], 0));
                    send_a_piece(j, sa, row0, a0, a_cols, rows);
                    mark_full(j, j->a_in[sa], j->copy_a);
                }
                size_t pieces = tile_count(a_cols, p->tile_k);
                for (size_t bp = 0; bp < pieces; bp++, gb++) {
                    int sb = (int)(gb % 2);
                    size_t k0, k = ooc_b_piece(p, ap, bp, &k0);
                    if (j->copies) {
                        /* B[k0:k0 + k, cols], on the other copy stream:
                         * the copy engine takes A and B copies in turn,
                         * and a B piece need not wait behind the next A
                         * piece's wait for its buffer. */
                        if (gb >= 2)
                            CUDA_CHECK(cudaStreamWaitEvent(
                                j->copy_b, j->b_used[sb], 0));
                        copy_rows(j->d_b[sb], cols * e,
                                  j->h_b + k0 * n + col0, n * e, cols * e, k,
                                  H2D, j->copy_b);
                        mark_full(j, j->b_in[sb], j->copy_b);
                        /* This C buffer held tile - c_buffers: it must be
                         * home before the first GEMM writes it again. */
                        if (first && tile >= p->c_buffers)
                            CUDA_CHECK(cudaStreamWaitEvent(j->gemm,
                                                           j->home[cb], 0));
                    }
                    /* C tile += A[rows, k0:k0 + k] B[k0:k0 + k, cols]: the
                     * A part is a sub-matrix pointer into the A piece, its
                     * leading dimension the piece's width. beta = 0 on the
                     * tile's first piece: cuBLAS then ignores what the
                     * buffer held, so C needs no zeroing. */
                    dgemm_rowmajor(j->handle, rows, cols, k,
                                   j->d_a[sa] + (k0 - a0), a_cols,
                                   j->d_b[sb], cols, first ? 0.0 : 1.0,
                                   j->d_c[cb], cols);
                    first = 0;
                    CUDA_CHECK(cudaEventRecord(j->b_used[sb], j->gemm));
                }
                CUDA_CHECK(cudaEventRecord(j->a_used[sa], j->gemm));
            }
            send_home(j, cb, row0, col0, rows, cols);
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
