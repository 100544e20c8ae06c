/* streamed.h - one run of an out-of-core plan (tiling.h) on the GPU: the
 * job outofcore.cu sets up, and the region it times (streamed.cu).
 *
 *   ooc_job j;      streams, events, the handle, the slab's buffers, the plan,
 *                   the packing threads and their staging buffers
 *   j.copies = 1;
 *   cm_stats s = cm_time_events(streamed_gemm, &j, j.gemm, warmup, repeat);
 */
#ifndef STREAMED_H
#define STREAMED_H

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "pack.h"
#include "tiling.h"

typedef struct {
    const ooc_plan *plan;
    const double *h_a, *h_b;
    double *h_c;
    /* Tiled, A pieces narrower than A (plan->staging_bytes > 0): the
     * threads that pack them, and two pinned staging buffers of one A
     * piece each; staged[s]: the copy out of h_stage[s] is over, so it
     * may be packed again. */
    pack_pool *packers;
    double *h_stage[2];
    cudaEvent_t staged[2];
    double *d_c[2], *d_a[2], *d_b[2];
    int copies;  /* 0: the GEMMs alone, on whatever the buffers hold */
    cublasHandle_t handle;
    /* copy_a: A pieces in (resident: everything in); copy_b: B pieces in
     * (tiled), on a stream of their own; copy_out: C home. */
    cudaStream_t gemm, copy_a, copy_b, copy_out;
    /* a_in, b_in: a buffer is full; used: the GEMMs that read A and B
     * buffer b are over, so both may be refilled (tiled); resident: done,
     * a slot's GEMMs are over, so its C may go home and its A panel be
     * refilled; home, that C is home, so the slot may be written again. */
    cudaEvent_t start, end, a_in[2], b_in[2], used[2];
    cudaEvent_t done[2], home[2];
    /* Tiled: tile_done, a leaving tile's GEMM is over; slot_home[s], C
     * buffer s's last tile is home, for the next tile in it to wait on
     * (slot_sent[s]: one went home in this run). */
    cudaEvent_t tile_done, slot_home[OOC_MAX_SLOTS];
    int slot_sent[OOC_MAX_SLOTS];
} ooc_job;

/* One run of j's plan (ctx is an ooc_job *): every copy and GEMM on j's
 * four streams, ordered by its events. It starts and ends on j->gemm, the
 * stream cm_time_events times it on. The host takes part: it packs each
 * narrow A piece before issuing its copy, and waits for a staging
 * buffer's last copy before packing into it again. */
void streamed_gemm(void *ctx);

#endif /* STREAMED_H */
