/* tiling_parts.h - what tiling.c, replay.c and planner.c share, and
 * nothing else needs: the slab's alignment, blocks evened out, and the
 * copy times of a plan.
 *
 *   size_t c_bytes = align_up(rows * cols * elem_bytes);
 *   size_t rows = balanced(n, min_size(n, OOC_FILL_ROWS));
 *   copy_times(plan, rates, &in_ms, &out_ms);
 *   double flop_per_ms = gemm_rate(plan, rates) * 1e9;
 */
#ifndef TILING_PARTS_H
#define TILING_PARTS_H

#include <stddef.h>

#include "tiling.h"

/* bytes rounded up to a multiple of OOC_ALIGN. */
size_t align_up(size_t bytes);

size_t min_size(size_t a, size_t b);

/* The same number of blocks, made as even as they can be: 1000 in blocks
 * of at most 600 becomes two of 500 rather than 600 + 400. */
size_t balanced(size_t n, size_t most);

/* The longest piece length of at most `most` that is a multiple of
 * OOC_K_ALIGN and cuts n as evenly as such lengths can (1000 with at
 * most 417 becomes 336 x 2 + 328, not 416 x 2 + 168); n when most >= n;
 * most itself below OOC_K_ALIGN. */
size_t aligned_k(size_t n, size_t most);

/* The rate p's GEMMs run at, 1e12 flop/s: tiled_gemm_tflops for a tiled
 * plan where it is set, else gemm_tflops. */
double gemm_rate(const ooc_plan *p, const ooc_rates *r);

/* The copies in and out of p at the measured rates, 2D rows included:
 * no schedule of p can take less than either, nor than its GEMMs
 * (replay.c). */
void copy_times(const ooc_plan *p, const ooc_rates *r, double *in,
                double *out);

#endif /* TILING_PARTS_H */
