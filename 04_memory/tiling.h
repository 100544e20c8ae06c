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
 * - OOC_TILED: C is cut into row_tiles x col_tiles tiles; c_buffers of
 *   them, from one column of tiles, are on the GPU at a time, one in each
 *   C buffer. The column's B pieces (tile_k rows of its columns) stream
 *   past in a cycle, through two buffers; at each step every tile on the
 *   GPU takes the step's B piece and its own rows of the same columns of
 *   A. A tile enters a free buffer at any step of the cycle, stays for one
 *   whole cycle (k_pieces steps: every piece once) and goes home; its
 *   buffer takes the next tile of the column at the next step. Tiles
 *   enter at most ceil(c_buffers / k_pieces) a step, so they go home
 *   spread over the cycle, not all at once, and the copies in never wait
 *   for a whole C buffer to go home. An A piece narrower than A is packed
 *   by host threads into one of two pinned staging buffers (host memory,
 *   outside the budget) and goes over as one copy per run of buffers.
 *   ooc_walk_* lists the steps; streamed.cu runs them, replay.c times them.
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
    OOC_MAX_SLOTS = 8,           /* most C tiles on the GPU at a time */
    OOC_K_ALIGN = 8              /* tile_k is a multiple of this where it
                                    is shorter than n: cuBLAS ran the
                                    5000 x 5000 x 417 DGEMM at 37
                                    TFLOP/s and x 400 at 50 on the H200
                                    (A's leading dimension is tile_k) */
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
    double d2d_gbps;               /* device memory copies, 1e9 B/s: a
                                      GEMM also reads and writes its C,
                                      which the model prices as a copy
                                      of C at this rate (0: free) */
    double tiled_gemm_tflops;      /* the tiled GEMMs' rate, measured for
                                      one plan's shape, C's reads and
                                      writes included; 0: gemm_tflops,
                                      plus C at d2d_gbps */
    int copy_engines;              /* asyncEngineCount: 2 or more lets
                                      copies in and out overlap; with 1
                                      they take turns, with 0 nothing
                                      overlaps (common/floor.h) */
} ooc_rates;

typedef struct {
    ooc_kind kind;
    size_t n, elem_bytes;
    /* Tiled: C tiles of tile_rows x tile_cols, row_tiles x col_tiles of
     * them; B pieces of tile_k rows (the GEMMs' inner size), k_pieces of
     * them in a column's cycle; an A piece is a tile's rows of the same
     * tile_k columns of A. Resident: row panels of tile_rows (tile_cols =
     * n, col_tiles = 1), B uploaded in k_pieces pieces of tile_k rows.
     * Edges are smaller. */
    size_t tile_rows, tile_cols, tile_k;
    size_t row_tiles, col_tiles, k_pieces;
    size_t c_buffers;     /* tiled: the C tiles on the GPU at a time (1 to
                             OOC_MAX_SLOTS), back to back in the slab;
                             resident: slots of an A and a C panel, 2
                             letting a panel go home while the next is
                             computed */
    size_t per_step;      /* tiled: most tiles entering at one step */
    size_t fill_panels;   /* resident: panels computed while B arrives */
    size_t c_offset[2], a_offset[2], b_offset[2];  /* bytes into one slab;
                                                      resident: B at b[0] */
    size_t device_bytes;  /* the slab: every buffer, aligned */
    size_t h2d_bytes;     /* tiled: A x col_tiles, and each column's B
                             pieces for every step of its cycles */
    size_t d2h_bytes;     /* C once */
    size_t h2d_rows_2d, d2h_rows_2d;  /* rows copied by 2D copies */
    size_t staging_bytes; /* tiled, A pieces narrower than A: two pinned
                             host buffers of one step's A pieces each, into
                             which they are packed; 0 otherwise */
    int pack_threads;     /* the threads that pack them (from the rates;
                             0: not known) */
    double estimate_ms;   /* the model's time (0 until estimated) */
    double gemm_ms;       /* the model's time for the GEMMs alone */
} ooc_plan;

/* Fill in every field of p (but estimate_ms) for a tiled plan with the
 * given full-tile shape and C buffers, clamped to n (tile_k is used as
 * given: the planner aligns it) and c_buffers to 1 .. min(OOC_MAX_SLOTS,
 * row_tiles). Returns p->device_bytes. */
size_t ooc_layout_tiled(ooc_plan *p, size_t n, size_t elem_bytes,
                        size_t tile_rows, size_t tile_cols, size_t tile_k,
                        size_t c_buffers);

/* The same for a resident-B plan with row panels of panel_rows and 1 or 2
 * slots of an A and a C panel (1 for a single panel). */
size_t ooc_layout_resident(ooc_plan *p, size_t n, size_t elem_bytes,
                           size_t panel_rows, size_t c_buffers);

/* One tile on the GPU during a step of a tiled plan: its C buffer, its
 * place in C, and whether the step is its first (beta = 0, once its
 * buffer's last tile is home) or its last (it goes home after). */
typedef struct {
    size_t slot, row0, rows;
    int enter, leave;
} ooc_active;

/* One step: the column of tiles, the B piece (rows k0 .. k0 + k - 1 of B,
 * piece `piece` of the cycle) and the tiles on the GPU, in buffer
 * order. */
typedef struct {
    size_t col, col0, cols;
    size_t piece, k0, k;
    size_t count;
    ooc_active tile[OOC_MAX_SLOTS];
} ooc_step;

/* The steps of a tiled plan, in order: columns of tiles left to right;
 * in each, the tiles top to bottom, each entering the buffer freed
 * first (per_step at most at one step), at the step after its last
 * tile left, or at the column's first steps. */
typedef struct {
    const ooc_plan *p;
    size_t col, step, next_tile;
    size_t tile_of[OOC_MAX_SLOTS], done[OOC_MAX_SLOTS];
    int busy[OOC_MAX_SLOTS];
    size_t queue[OOC_MAX_SLOTS], queued;   /* free buffers, first freed
                                              first */
} ooc_walk;

void ooc_walk_start(ooc_walk *w, const ooc_plan *p);

/* The next step into *s; 0 when there is none. */
int ooc_walk_next(ooc_walk *w, ooc_step *s);

/* The steps the walk gives each column of a tiled plan: the last tile's
 * entry and its cycle. */
size_t ooc_column_steps(const ooc_plan *p);

/* The model's time for p, in ms, from the measured rates; *gemm_ms (may
 * be NULL) gets its GEMMs' share: their multiply-adds, and, unless the
 * tiled rate was measured for p's shape, C read and written by each GEMM
 * at d2d_gbps. Both plans are replayed step by step on
 * their streams: each copy or GEMM starts when its stream is free and its
 * inputs are there, a buffer is refilled once the GEMMs that read it are
 * over, a C buffer written again once its last contents are home. Tiled:
 * the walk's steps, the copies of A and B pieces taking turns on the link
 * in, in the order they are issued (one copy engine a direction runs them
 * one after the other), B's 2D rows costing h2d_row_us each; an A piece
 * narrower than A is first packed on the host at pack_gbps, once its
 * staging buffer's last copy is over. At each step the leaving tiles'
 * GEMMs run first (then they go home), then the staying ones', then the
 * entering ones' (each once its buffer's last tile is home). The tiled
 * GEMMs run at tiled_gemm_tflops where it is set. Both assume a copy
 * engine each way; with fewer (rates->copy_engines) the time is at least
 * the floor of common/floor.h for the GEMMs and all copies: with one
 * engine the copies in and out add up, with none the GEMMs too. */
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

/* The bound's bytes by direction: every plan sends each element of C home
 * once, n^2 elements out (*out_bytes); the rest of the bound comes in
 * (*in_bytes, never less than A and B once). */
void ooc_io_bound_split(size_t n, size_t elem_bytes, size_t budget,
                        double *in_bytes, double *out_bytes);

/* The least time those bytes take on the link, in ms (GB/s: 10^9 bytes
 * a second). With two copy engines or more in and out run at once, each
 * on its own engine and direction: max(in / h2d, out / d2h). With fewer
 * they take turns: in / h2d + out / d2h. */
double ooc_io_bound_ms(double in_bytes, double out_bytes, double h2d_gbps,
                       double d2h_gbps, int copy_engines);

/* The least budget with which ooc_plan_make can plan `kind` (OOC_ANY:
 * any plan): the smallest plan's slab rounded up to whole granules. */
size_t ooc_min_budget(size_t n, size_t elem_bytes, size_t granule,
                      ooc_kind kind);

/* The best plan of `kind` (OOC_ANY: either) whose slab, rounded up to
 * granule, fits in budget: with rates NULL the one moving the fewest
 * bytes; else, among those whose estimate is within 5% of the shortest,
 * those whose GEMMs take within 5% of the least GEMM time (the fewest
 * passes over C), then the one moving the fewest bytes. Returns 0, or -1
 * when budget <
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
