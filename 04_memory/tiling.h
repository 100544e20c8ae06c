/* tiling.h - the arithmetic of blocked and out-of-core GEMM: how many
 * tiles cover a side, how big the edge tile is, how a device-memory budget
 * becomes a plan, how many bytes it moves against the least any plan can
 * move, and how long it should take (tiling.c; replay.c estimates the
 * time, planner.c makes the plan).
 *
 *   tile_count(1001, 128) -> 8       tile_extent(1001, 128, 7) -> 105
 *   ooc_plan plan;
 *   if (ooc_plan_make(n, sizeof(double), budget, chunk, &rates, OOC_ANY,
 *                     &plan) != 0) ...ooc_min_budget() says what would do
 *   double bound = ooc_io_bound_bytes(n, sizeof(double), budget, NULL, NULL);
 *
 * Out-of-core C = A B (n x n, row-major, on the host) has two plans:
 * - OOC_RESIDENT: all of B stays on the GPU; A comes in and C goes home in
 *   row panels (whole rows: contiguous copies). B is uploaded in pieces of
 *   rows, and the first panels are computed piece by piece while it
 *   arrives, so the GPU starts before B is all there.
 * - OOC_TILED: C is cut into row_tiles x col_tiles tiles, each as big as
 *   the budget allows; a tile stays on the GPU while its inner dimension
 *   streams past: A pieces (tile rows x a_k) and B pieces (tile_k x tile
 *   cols), each through two buffers, on two copy streams. An A piece is a
 *   block of columns of A: host threads pack its rows into one of two
 *   pinned staging buffers (host memory, outside the budget), and it goes
 *   over as one contiguous copy. It may be wider than a B piece is long:
 *   each A piece serves a_k / tile_k B pieces.
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
    OOC_MAX_TILES_PER_SIDE = 64, /* every tile count up to this is tried;
                                    beyond it, square tiles only */
    OOC_MIN_K = 64,              /* the shortest piece and the smallest
                                    tile side: less makes GEMMs crawl */
    OOC_GOOD_K = 256,            /* pieces are at least this long where
                                    they fit */
    OOC_FILL_ROWS = 512,         /* most rows of B per upload piece
                                    (resident), evened out: 500 at 10000 */
    OOC_ALIGN = 256,             /* byte alignment of each buffer */
    OOC_BANDS = 8                /* a tiled plan's C tile goes home in
                                    this many row bands (tiling.h's
                                    ooc_plan.bands) */
};
/* Device memory pools map memory in 2 MiB pages at least: a buffer of B
 * bytes occupies B rounded up to this, or to the pool's chunk. */
#define OOC_POOL_GRANULE ((size_t)2 << 20)

typedef enum { OOC_ANY = -1, OOC_TILED = 0, OOC_RESIDENT = 1 } ooc_kind;

/* Measured speeds the planner weighs against each other. */
typedef struct {
    double h2d_gbps, d2h_gbps;     /* contiguous pinned copies, 1e9 B/s */
    double h2d_row_us, d2h_row_us; /* each row of a 2D copy costs this on
                                      top of its bytes, microseconds */
    double pack_gbps;              /* host threads packing an A piece's
                                      rows into staging, 1e9 B/s */
    int pack_threads;              /* the threads that measured it */
    double gemm_tflops;            /* GEMM rate, 1e12 flop/s */
    double tiled_gemm_tflops;      /* the tiled GEMMs' rate, measured for
                                      one plan's shape; 0: gemm_tflops */
    int copy_engines;              /* asyncEngineCount: 2 or more lets
                                      copies in and out overlap; with 1
                                      they take turns, with 0 nothing
                                      overlaps (common/floor.h) */
} ooc_rates;

typedef struct {
    ooc_kind kind;
    size_t n, elem_bytes;
    /* Tiled: C tiles of tile_rows x tile_cols; B pieces of tile_k rows
     * (the GEMMs' inner size), k_pieces of them per tile; A pieces of a_k
     * columns (a whole number of tile_k, or n), a_pieces per tile.
     * Resident: row panels of tile_rows (tile_cols = n, col_tiles = 1), B
     * uploaded in k_pieces pieces of tile_k rows; a_k = n, a_pieces = 1.
     * Edges are smaller. */
    size_t tile_rows, tile_cols, tile_k, a_k;
    size_t row_tiles, col_tiles, k_pieces, a_pieces;
    size_t c_buffers;     /* 2 lets a C tile or panel go home while the
                             next one is computed (resident: A panels
                             too); 1 leaves more memory for bigger tiles */
    size_t fill_panels;   /* resident: panels computed while B arrives */
    size_t bands;         /* tiled: a C tile's last GEMMs run in this many
                             row bands, each band going home once done,
                             and the next tile in its buffer starts band
                             by band as the rows it needs are home (its
                             first two B pieces' GEMMs taken band after
                             band); 1: a tile goes home whole, and the
                             next one waits for all of it */
    size_t c_offset[2], a_offset[2], b_offset[2];  /* bytes into one slab;
                                                      resident: B at b[0] */
    size_t device_bytes;  /* the slab: every buffer, aligned */
    size_t h2d_bytes;     /* tiled: A x col_tiles + B x row_tiles */
    size_t d2h_bytes;     /* C once */
    size_t h2d_rows_2d, d2h_rows_2d;  /* rows copied by 2D copies */
    size_t staging_bytes; /* tiled, A pieces narrower than A: two pinned
                             host buffers of one A piece each, into which
                             they are packed; 0 otherwise */
    int pack_threads;     /* the threads that pack them (from the rates;
                             0: not known) */
    double estimate_ms;   /* the model's time (0 until estimated) */
} ooc_plan;

/* Fill in every field of p (but estimate_ms) for a tiled plan with the
 * given full-tile shape, clamped to n; a_k is rounded down to a whole
 * number of tile_k (at least one), or n; c_buffers to 1 or 2, and to 1
 * for a single tile. Returns p->device_bytes. */
size_t ooc_layout_tiled(ooc_plan *p, size_t n, size_t elem_bytes,
                        size_t tile_rows, size_t tile_cols, size_t tile_k,
                        size_t a_k, size_t c_buffers);

/* The same for a resident-B plan with row panels of panel_rows and 1 or 2
 * slots of an A and a C panel (1 for a single panel). */
size_t ooc_layout_resident(ooc_plan *p, size_t n, size_t elem_bytes,
                           size_t panel_rows, size_t c_buffers);

/* Rows of each of a tiled plan's C bands in a tile of `rows` rows (the
 * last band holds what is left). */
size_t ooc_band_rows(const ooc_plan *p, size_t rows);

/* The B pieces at the start of tile `tile` whose GEMMs run band by band
 * (each band once the previous tile in the buffer has sent home what the
 * band overwrites): the first two, where the buffer held a tile before
 * and p->bands > 1; else 0. */
size_t ooc_head_pieces(const ooc_plan *p, size_t tile);

/* The band of the previous tile in a C buffer that a band of the next
 * one must wait for: the first whose end (an offset into the buffer)
 * reaches `end`, or the last. prev_end[] holds the previous tile's band
 * ends, in order. */
size_t ooc_band_to_wait(const size_t *prev_end, size_t prev_bands,
                        size_t end);

/* B piece `bp` of A piece `ap` of a tiled plan: its first row of B (k0)
 * and its rows (the return); 0 past the end. A piece ap starts at column
 * ap * a_k of A and holds tile_extent(n, a_k, ap) columns. */
size_t ooc_b_piece(const ooc_plan *p, size_t ap, size_t bp, size_t *k0);

/* The model's time for p, in ms, from the measured rates; *gemm_ms (may
 * be NULL) gets its GEMMs' share. Both plans are replayed step by step on
 * their streams: each copy or GEMM starts when its stream is free and its
 * inputs are there, a buffer is refilled once the GEMMs that read it are
 * over, a C buffer written again once its last contents are home. Tiled:
 * the copies of A and B pieces take turns on the link in, in the order
 * they are issued (one copy engine a direction runs them one after the
 * other), B's 2D rows costing h2d_row_us each; an A piece narrower than A
 * is first packed on the host at pack_gbps, once its staging buffer's
 * last copy is over, and then copied whole. The tiled GEMMs run at
 * tiled_gemm_tflops where it is set. Both assume a copy engine each way;
 * with fewer
 * (rates->copy_engines) the time is at least the floor of common/floor.h
 * for the GEMMs and all copies: with one engine the copies in and out add
 * up, with none the GEMMs too. */
double ooc_estimate_ms(const ooc_plan *p, const ooc_rates *rates,
                       double *gemm_ms);

/* The least bytes any plan can move for C = A B (n x n) with `budget`
 * bytes of device memory, M = budget / elem_bytes elements: the I/O lower
 * bound of Smith, Lowery, Langou and van de Geijn (2019), about
 * 2 n^3 / sqrt(M) elements (*streaming), and never less than A and B in
 * once and C out once, 3 n^2 elements (*once): the larger, in bytes.
 * Either pointer may be NULL. */
double ooc_io_bound_bytes(size_t n, size_t elem_bytes, size_t budget,
                          double *streaming, double *once);

/* The least budget with which ooc_plan_make can plan `kind` (OOC_ANY:
 * any plan): the smallest plan's slab rounded up to whole granules. */
size_t ooc_min_budget(size_t n, size_t elem_bytes, size_t granule,
                      ooc_kind kind);

/* The best plan of `kind` (OOC_ANY: either) whose slab, rounded up to
 * granule, fits in budget: with rates NULL the one moving the fewest
 * bytes; else, among those whose estimate is within 5% of the shortest,
 * the one moving the fewest bytes. Returns 0, or -1 when budget <
 * ooc_min_budget(); p then describes that smallest plan. */
int ooc_plan_make(size_t n, size_t elem_bytes, size_t budget,
                  size_t granule, const ooc_rates *rates, ooc_kind kind,
                  ooc_plan *p);

/* Two lines for people: the shape, the slab, the host staging and its
 * threads, the bytes in, which copies are 2D and the estimate. Returns
 * buf. */
char *ooc_plan_describe(const ooc_plan *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TILING_H */
