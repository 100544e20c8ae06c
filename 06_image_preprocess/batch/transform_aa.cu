/* transform_aa.cu - the batch tool's antialiased resize on the GPU:
 * Pillow's Image.resize(size, BILINEAR) of each upright image, then the
 * crop, normalization, flip and type as transform.cu does them, every
 * level the one transform_aa.c (the CPU reference) computes.
 *
 * Bit for bit the CPU's: the weights are computed here, in the kernel,
 * in IEEE double operations that round one by one (__dadd_rn, __dmul_rn,
 * __ddiv_rn, __double2int_rz: nvcc would otherwise fuse a multiply and
 * an add, and round once where the CPU rounds twice), in the CPU's
 * order; transform_aa.c is compiled without contraction for the same
 * reason. We compute them on the GPU rather than in tables made by the
 * host because they depend on each image's size: tables would have to
 * be made, sized and copied for every batch, beside the table of images
 * that launch_transform already reads. A block computes only its own
 * columns' and rows' weights, once, into shared memory.
 *
 * A block is a tile of TILE_W x TILE_H output pixels of one image, one
 * thread each. It runs Pillow's two passes over the source rows its rows
 * read, CHUNK_ROWS at a time: the horizontal pass writes those rows'
 * levels at its TILE_W columns into shared memory (rounded and clipped,
 * as Pillow's intermediate image holds them), then every thread adds the
 * rows of its window among them to its vertical sum, from shared memory.
 * Downscaled by s on both axes, an output level costs about 2s taps for
 * each of the s source rows of its column (Pillow's own horizontal pass;
 * (TILE_H + 1) / TILE_H of that, as neighbouring tiles read a few rows
 * twice) and 2s for the vertical pass: for 4000 x 3000 to a short side
 * of 256 (s = 11.7), some 300 multiply-adds, against the 550 of a direct
 * sum over its 2s x 2s window. An image whose windows may hold more than
 * MAX_TAPS pixels (a downscale by more than 63) is summed directly
 * instead, pixel by pixel, its weights computed as they are used:
 * slower, the same levels.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "transform_device.h"

/* From here to launch_transform_aa, tests/test_06_aa_kernel.c runs the
 * code on the CPU too (extra.mk cuts it out), a thread for each CUDA
 * thread: plain C, and of CUDA only the names that test defines. */
enum { TILE_W = 32, TILE_H = 8, THREADS = TILE_W * TILE_H };
enum { MAX_TAPS = 128, CHUNK_ROWS = 64 };
/* Blocks along one image; more tiles are covered by a block's loop. */
static const unsigned MAX_BLOCKS_PER_IMAGE = 4096;

/* tf_aa_window, for the GPU. */
typedef struct {
    unsigned first, count;
    double center, ss, sum;
} aa_window;

/* Pillow's bilinear filter, 1 - |t| under 1. */
static __device__ __forceinline__ double triangle(double t)
{
    t = fabs(t);
    return t < 1.0 ? __dadd_rn(1.0, -t) : 0.0;
}

/* transform_aa.c's raw_weight: ((first + i) - center + 0.5) * ss. */
static __device__ __forceinline__ double raw_weight(const aa_window *w,
                                                    unsigned i)
{
    double t = __dadd_rn(__dadd_rn((double)(w->first + i), -w->center),
                         0.5);
    return triangle(__dmul_rn(t, w->ss));
}

/* tf_aa_window_of, step for step. */
static __device__ void window_of(unsigned d, unsigned scaled, unsigned src,
                                 aa_window *w)
{
    double scale = __ddiv_rn((double)src, (double)scaled);
    double filterscale = scale < 1.0 ? 1.0 : scale;
    w->center = __dmul_rn(__dadd_rn((double)d, 0.5), scale);
    w->ss = __ddiv_rn(1.0, filterscale);
    double lo = __dadd_rn(__dadd_rn(w->center, -filterscale), 0.5);
    double hi = __dadd_rn(__dadd_rn(w->center, filterscale), 0.5);
    unsigned first = lo < 1.0 ? 0u : (unsigned)__double2int_rz(lo);
    unsigned end = hi < 1.0 ? 0u : (unsigned)__double2int_rz(hi);
    end = end < src ? end : src;
    w->first = first;
    w->count = end > first ? end - first : 0u;
    w->sum = 0.0;
    for (unsigned i = 0; i < w->count; i++)
        w->sum = __dadd_rn(w->sum, raw_weight(w, i));
}

/* tf_aa_coeff: tap i's weight in 1 / TF_AA_ONE. */
static __device__ __forceinline__ int coeff(const aa_window *w, unsigned i)
{
    double k = raw_weight(w, i);
    if (w->sum != 0.0)
        k = __ddiv_rn(k, w->sum);
    return __double2int_rz(__dadd_rn(0.5, __dmul_rn(k, (double)TF_AA_ONE)));
}

/* tf_aa_taps: the most pixels a window of that axis holds. */
static __device__ __forceinline__ unsigned taps_of(unsigned scaled,
                                                   unsigned src)
{
    unsigned support = (src + scaled - 1) / scaled;
    unsigned taps = 2 * (support < 1 ? 1 : support) + 1;
    return taps < src ? taps : src;
}

/* tf_aa_clip: a pass's sum as a level. */
static __device__ __forceinline__ unsigned clip(int sum)
{
    int v = sum >> TF_AA_BITS;
    return v < 0 ? 0u : v > 255 ? 255u : (unsigned)v;
}

/* What a block shares: its tile's windows and weights, and a chunk of
 * horizontal-pass levels (22,976 bytes). A warp's 32 threads read the
 * weights of 32 columns at once: each column's row of kx is one word
 * longer than MAX_TAPS so that those 32 words lie in 32 different banks
 * (MAX_TAPS words apart, they would all be in one, read one by one). */
typedef struct {
    int kx[TILE_W][MAX_TAPS + 1], ky[TILE_H][MAX_TAPS];
    unsigned x_first[TILE_W], x_count[TILE_W];
    unsigned y_first[TILE_H], y_count[TILE_H];
    uint8_t mid[CHUNK_ROWS][TILE_W];
} aa_shared;

/* One image's geometry, as every thread of its blocks needs it. */
typedef struct {
    const uint8_t *plane0;
    unsigned plane_bytes, o, sw, sh, up_w, up_h;
    unsigned scaled_w, scaled_h, crop_x, crop_y;
} aa_image;

/* Output pixel (x, y) of the crop in channel plane `in`, summed
 * directly: each tap's weight computed when it is used. */
static __device__ unsigned direct_level(const aa_image *m,
                                        const uint8_t *in, unsigned x,
                                        unsigned y)
{
    aa_window wx, wy;
    window_of(x + m->crop_x, m->scaled_w, m->up_w, &wx);
    window_of(y + m->crop_y, m->scaled_h, m->up_h, &wy);
    int sum = 1 << (TF_AA_BITS - 1);
    for (unsigned j = 0; j < wy.count; j++) {
        int row = 1 << (TF_AA_BITS - 1);
        for (unsigned i = 0; i < wx.count; i++)
            row += in[stored_at(m->o, wx.first + i, wy.first + j, m->sw,
                                m->sh)] * coeff(&wx, i);
        sum += (int)clip(row) * coeff(&wy, j);
    }
    return clip(sum);
}

/* The block's tile, whose windows and weights are in sh (tw x th of its
 * pixels inside the image), from channel plane `in`: Pillow's two
 * passes, chunk by chunk of source rows; returns this thread's level (0
 * for a thread outside the image). Every thread of the block calls it. */
static __device__ unsigned tile_level(aa_shared *sh, const aa_image *m,
                                      const uint8_t *in, unsigned tw,
                                      unsigned th)
{
    unsigned tx = threadIdx.x % TILE_W, ty = threadIdx.x / TILE_W;
    unsigned row0 = sh->y_first[0];
    unsigned row_end = sh->y_first[th - 1] + sh->y_count[th - 1];
    int sum = 1 << (TF_AA_BITS - 1);
    for (unsigned r0 = row0; r0 < row_end; r0 += CHUNK_ROWS) {
        unsigned rows = row_end - r0 < CHUNK_ROWS ? row_end - r0
                                                  : CHUNK_ROWS;
        /* The horizontal pass: a warp a source row, a thread a column. */
        for (unsigned k = threadIdx.x; k < rows * TILE_W; k += THREADS) {
            unsigned r = k / TILE_W, t = k % TILE_W;
            if (t >= tw)
                continue;
            int row = 1 << (TF_AA_BITS - 1);
            for (unsigned i = 0; i < sh->x_count[t]; i++)
                row += in[stored_at(m->o, sh->x_first[t] + i, r0 + r,
                                    m->sw, m->sh)] * sh->kx[t][i];
            sh->mid[r][t] = (uint8_t)clip(row);
        }
        __syncthreads();
        /* The vertical pass: this thread's window's rows in the chunk. */
        if (tx < tw && ty < th) {
            unsigned first = sh->y_first[ty];
            unsigned end = first + sh->y_count[ty];
            unsigned lo = first > r0 ? first : r0;
            unsigned hi = end < r0 + rows ? end : r0 + rows;
            for (unsigned j = lo; j < hi; j++)
                sum += (int)sh->mid[j - r0][tx] * sh->ky[ty][j - first];
        }
        __syncthreads();  /* before the next chunk overwrites mid */
    }
    return clip(sum);
}

__global__ void transform_aa_kernel(void *out, const tf_image *table,
                                    const uint8_t *arena, tf_params p)
{
    __shared__ aa_shared sh;
    const tf_image d = table[blockIdx.y];
    aa_image m;
    m.plane0 = arena + d.offset;
    m.plane_bytes = d.plane_bytes;
    m.o = d.orientation;
    m.sw = d.src_w;
    m.sh = d.src_h;
    m.up_w = m.o >= 5 ? d.src_h : d.src_w;
    m.up_h = m.o >= 5 ? d.src_w : d.src_h;
    m.scaled_w = d.scaled_w;
    m.scaled_h = d.scaled_h;
    m.crop_x = d.crop_x;
    m.crop_y = d.crop_y;
    /* The same for every block of the image: tiles, or the direct sum. */
    int tiled = taps_of(m.scaled_w, m.up_w) <= MAX_TAPS &&
                taps_of(m.scaled_h, m.up_h) <= MAX_TAPS;
    unsigned tiles_x = (p.out_w + TILE_W - 1) / TILE_W;
    unsigned tiles = tiles_x * ((p.out_h + TILE_H - 1) / TILE_H);
    size_t n = (size_t)p.out_w * p.out_h;
    size_t base = (size_t)blockIdx.y * p.channels * n;
    unsigned tx = threadIdx.x % TILE_W, ty = threadIdx.x / TILE_W;
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        unsigned x0 = tile % tiles_x * TILE_W, y0 = tile / tiles_x * TILE_H;
        unsigned tw = p.out_w - x0 < TILE_W ? p.out_w - x0 : TILE_W;
        unsigned th = p.out_h - y0 < TILE_H ? p.out_h - y0 : TILE_H;
        unsigned x = x0 + tx, y = y0 + ty;
        if (tiled) {
            __syncthreads();  /* the last tile is done with sh */
            /* The tile's windows and weights: warp 0 its columns, warp 1
             * its rows, each window's weights in turn. */
            aa_window w;
            if (threadIdx.x < tw) {
                window_of(x0 + threadIdx.x + m.crop_x, m.scaled_w, m.up_w,
                          &w);
                sh.x_first[threadIdx.x] = w.first;
                sh.x_count[threadIdx.x] = w.count;
                for (unsigned i = 0; i < w.count; i++)
                    sh.kx[threadIdx.x][i] = coeff(&w, i);
            } else if (threadIdx.x >= TILE_W && threadIdx.x < TILE_W + th) {
                unsigned r = threadIdx.x - TILE_W;
                window_of(y0 + r + m.crop_y, m.scaled_h, m.up_h, &w);
                sh.y_first[r] = w.first;
                sh.y_count[r] = w.count;
                for (unsigned i = 0; i < w.count; i++)
                    sh.ky[r][i] = coeff(&w, i);
            }
            __syncthreads();
        }
        int inside = tx < tw && ty < th;
        size_t at = base + (size_t)y * p.out_w +
                    (p.flip ? p.out_w - 1 - x : x);
        /* One gray plane for every channel: resized once. */
        unsigned planes = m.plane_bytes ? p.channels : 1;
        for (unsigned c = 0; c < planes; c++) {
            const uint8_t *in = m.plane0 + (size_t)c * m.plane_bytes;
            unsigned level = tiled ? tile_level(&sh, &m, in, tw, th)
                             : inside ? direct_level(&m, in, x, y) : 0;
            if (!inside)
                continue;
            if (m.plane_bytes) {
                store(out, at + (size_t)c * n, level, c, &p);
            } else {
                for (unsigned k = 0; k < p.channels; k++)
                    store(out, at + (size_t)k * n, level, k, &p);
            }
        }
    }
}

cudaError_t launch_transform_aa(void *d_out, const tf_image *d_table, int n,
                                const uint8_t *d_arena, const tf_spec *s,
                                cudaStream_t stream)
{
    tf_params p = params_of(s);
    size_t tiles = ((s->out_w + TILE_W - 1) / TILE_W) *
                   ((s->out_h + TILE_H - 1) / TILE_H);
    dim3 grid(tiles < MAX_BLOCKS_PER_IMAGE ? (unsigned)tiles
                                           : MAX_BLOCKS_PER_IMAGE,
              (unsigned)n);
    transform_aa_kernel<<<grid, THREADS, 0, stream>>>(d_out, d_table,
                                                      d_arena, p);
    return cudaGetLastError();
}
