/* tiling.h - the arithmetic of blocked and out-of-core GEMM: how many
 * tiles cover a side, how big the edge tile is, how a device-memory budget
 * becomes a tile shape, and how many bytes then cross the bus.
 *
 *   tile_count(1001, 128) -> 8       tile_extent(1001, 128, 7) -> 105
 *   ooc_plan plan;
 *   if (ooc_plan_make(n, sizeof(double), budget, OOC_POOL_GRANULE, &rates,
 *                     &plan) != 0) ...plan.device_bytes is the least needed
 *
 * Out-of-core C = A B (n x n, row-major, on the host): C is cut into
 * row_tiles x col_tiles tiles; each tile stays on the GPU while its inner
 * dimension streams through in k_pieces pieces: an A piece (tile rows x
 * tile_k) and a B piece (tile_k x tile cols), each double-buffered.
 */
#ifndef TILING_H
#define TILING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of `block` elements that cover n: ceil(n / block); 0 if n or
 * block is 0. */
size_t tile_count(size_t n, size_t block);

/* Elements in block `index` (0-based): `block`, except the last block,
 * which holds what is left; 0 past the end. */
size_t tile_extent(size_t n, size_t block, size_t index);

enum {
    OOC_MAX_TILES_PER_SIDE = 64, /* smallest tile considered: n / 64 */
    OOC_MIN_K = 64,              /* shorter pieces make GEMMs inefficient */
    OOC_MAX_K = 512,             /* longer pieces only delay the first GEMM */
    OOC_ALIGN = 256              /* byte alignment of each buffer */
};
/* Device memory pools map memory in 2 MiB pages: a buffer of B bytes
 * occupies B rounded up to this. */
#define OOC_POOL_GRANULE ((size_t)2 << 20)

/* Measured speeds the planner weighs against each other. */
typedef struct {
    double h2d_gbps, d2h_gbps;  /* pinned copies, 1e9 bytes/s */
    double gemm_tflops;         /* GEMM rate, 1e12 flop/s */
} ooc_rates;

typedef struct {
    size_t n, elem_bytes;
    size_t tile_rows, tile_cols, tile_k;  /* full tiles; edge ones smaller */
    size_t row_tiles, col_tiles, k_pieces;
    size_t c_buffers;     /* 2 lets a tile's copy-out overlap the next tile */
    size_t c_offset[2], a_offset[2], b_offset[2];  /* bytes into one slab */
    size_t device_bytes;  /* the slab: every buffer, aligned */
    size_t h2d_bytes;     /* A once per tile column, B once per tile row */
    size_t d2h_bytes;     /* C once */
    double estimate_ms;   /* the model's time (0 when planned by bytes) */
} ooc_plan;

/* Fills in every field of p for the given full-tile shape (clamped to n)
 * and returns p->device_bytes. */
size_t ooc_plan_layout(ooc_plan *p, size_t n, size_t elem_bytes,
                       size_t tile_rows, size_t tile_cols, size_t tile_k);

/* The model's time for p: the GEMMs cannot start before the first pieces
 * arrive, the copies in cannot beat the bus, and the last tile's copy out
 * cannot start before its last GEMM:
 *   max(first pieces in + all GEMMs, all copies in) + last tile out. */
double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *rates);

/* The best plan whose slab, rounded up to granule, fits in budget bytes:
 * with rates NULL the one moving the fewest bytes, else the one with the
 * shortest estimate. Returns 0, or -1 if even the smallest tiling does not
 * fit; p then describes that smallest tiling (p->device_bytes). */
int ooc_plan_make(size_t n, size_t elem_bytes, size_t budget,
                  size_t granule, const ooc_rates *rates, ooc_plan *p);

/* Two lines for people: "C in 2 x 1 tiles of 5000 x 10000 (edge ...), the
 * inner dimension in 20 pieces of 500 (edge 500)\n  2 C buffers + 2 A + 2 B
 * pieces = 877.4 MiB on the GPU; moves 2.400 GB in; estimate 50.91 ms".
 * Returns buf. */
char *ooc_plan_describe(const ooc_plan *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TILING_H */
