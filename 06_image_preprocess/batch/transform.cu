/* transform.cu - the batch tool's kernel: a whole batch of images of
 * any sizes into their slots of the tensor, in one launch, each output
 * element written once (the resize, the normalization, the flip, the
 * layout and the type fused), and the copy of the sampled rows.
 *
 * The grid is two-dimensional: blockIdx.y is the image (its entry of the
 * table says where its planes are and how it maps), blockIdx.x and the
 * thread cover its output pixels, each thread one pixel position in
 * every channel. Each thread maps its column and row to the source with
 * the integer arithmetic of transform_ref.c (tf_axis), interpolates in
 * fixed point, and normalizes with IEEE single-precision operations that
 * are rounded one by one (__fdiv_rn, __fsub_rn: no fused multiply-add),
 * so that it writes the very bits the CPU reference computes. A spec
 * with antialias goes to transform_aa.cu's kernel instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "transform_device.h"

static const int THREADS = 256;
/* Blocks along one image; a larger image is covered by the grid-stride
 * loop. */
static const unsigned MAX_BLOCKS_PER_IMAGE = 4096;

/* tf_axis in 32-bit integers: sides are at most TF_MAX_SIDE (32767), so
 * (2d + 1) src < 2^31 and rem * 2048 < 2^28. */
__device__ __forceinline__ void axis(unsigned d, unsigned scaled,
                                     unsigned src, unsigned *lo,
                                     unsigned *hi, unsigned *w)
{
    int num = (int)(2 * d + 1) * (int)src - (int)scaled;
    *lo = *hi = 0;
    *w = 0;
    if (num <= 0)
        return;
    unsigned den = 2 * scaled, base = (unsigned)num / den;
    if (base >= src - 1) {
        *lo = *hi = src - 1;
        return;
    }
    unsigned rem = (unsigned)num - base * den;
    *lo = base;
    *hi = base + 1;
    *w = (rem * TF_WEIGHT_ONE + scaled) / den;
}

__global__ void transform_kernel(void *out, const tf_image *table,
                                 const uint8_t *arena, tf_params p)
{
    const tf_image d = table[blockIdx.y];
    unsigned n = p.out_w * p.out_h;
    size_t base = (size_t)blockIdx.y * p.channels * n;
    /* Its upright size (EXIF's orientations 5 to 8 swap the sides). */
    unsigned o = d.orientation;
    unsigned up_w = o >= 5 ? d.src_h : d.src_w;
    unsigned up_h = o >= 5 ? d.src_w : d.src_h;
    /* Taken as it is (every image the tensor's size): one load. */
    bool same = d.scaled_w == up_w && d.scaled_h == up_h &&
                d.crop_x == 0 && d.crop_y == 0;
    const uint8_t *plane0 = arena + d.offset;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        unsigned y = i / p.out_w, x = i - y * p.out_w;
        size_t at = base + (size_t)y * p.out_w +
                    (p.flip ? p.out_w - 1 - x : x);
        if (same) {
            size_t from = stored_at(o, x, y, d.src_w, d.src_h);
            for (unsigned c = 0; c < p.channels; c++)
                store(out, at + (size_t)c * n,
                      plane0[(size_t)c * d.plane_bytes + from], c, &p);
            continue;
        }
        unsigned x0, x1, wx, y0, y1, wy;
        axis(x + d.crop_x, d.scaled_w, up_w, &x0, &x1, &wx);
        axis(y + d.crop_y, d.scaled_h, up_h, &y0, &y1, &wy);
        /* The four pixels of the upright image, where they are stored. */
        size_t a00 = stored_at(o, x0, y0, d.src_w, d.src_h);
        size_t a10 = stored_at(o, x1, y0, d.src_w, d.src_h);
        size_t a01 = stored_at(o, x0, y1, d.src_w, d.src_h);
        size_t a11 = stored_at(o, x1, y1, d.src_w, d.src_h);
        for (unsigned c = 0; c < p.channels; c++) {
            const uint8_t *in = plane0 + (size_t)c * d.plane_bytes;
            unsigned upper = in[a00] * (TF_WEIGHT_ONE - wx) +
                             in[a10] * wx;
            unsigned lower = in[a01] * (TF_WEIGHT_ONE - wx) +
                             in[a11] * wx;
            unsigned v = upper * (TF_WEIGHT_ONE - wy) + lower * wy;
            store(out, at + (size_t)c * n,
                  (v + (1u << (2 * TF_WEIGHT_BITS - 1))) >>
                      (2 * TF_WEIGHT_BITS),
                  c, &p);
        }
    }
}

void tf_image_entry(tf_image *t, const tf_spec *s, size_t offset, size_t w,
                    size_t h, int planes, int orientation)
{
    tf_place p;
    tf_place_oriented(s, w, h, orientation, &p);
    memset(t, 0, sizeof *t);
    t->offset = offset;
    t->plane_bytes = planes == 3 ? (unsigned)(w * h) : 0;
    t->src_w = (unsigned)w;
    t->src_h = (unsigned)h;
    t->scaled_w = (unsigned)p.scaled_w;
    t->scaled_h = (unsigned)p.scaled_h;
    t->crop_x = (unsigned)p.crop_x;
    t->crop_y = (unsigned)p.crop_y;
    t->orientation = (unsigned)p.orientation;
}

cudaError_t launch_transform(void *d_out, const tf_image *d_table, int n,
                             const uint8_t *d_arena, const tf_spec *s,
                             cudaStream_t stream)
{
    if (n <= 0)
        return cudaSuccess;
    if (s->antialias && s->mode != TF_SAME)
        return launch_transform_aa(d_out, d_table, n, d_arena, s, stream);
    tf_params p = params_of(s);
    size_t pixels = s->out_w * s->out_h;
    size_t blocks = (pixels + THREADS - 1) / THREADS;
    dim3 grid(blocks < MAX_BLOCKS_PER_IMAGE ? (unsigned)blocks
                                            : MAX_BLOCKS_PER_IMAGE,
              (unsigned)n);
    transform_kernel<<<grid, THREADS, 0, stream>>>(d_out, d_table, d_arena,
                                                   p);
    return cudaGetLastError();
}

/* blockIdx.y: the image, blockIdx.z: the channel; the threads cover its
 * sampled rows (tf_sample_row, written again here). */
__global__ void gather_kernel(uint8_t *samples, const uint8_t *out,
                              tf_params p, unsigned elem)
{
    unsigned n = p.rows * p.out_w;
    size_t image = (size_t)blockIdx.y * p.channels + blockIdx.z;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        unsigned k = i / p.out_w, x = i - k * p.out_w;
        unsigned y = 8 * k + (3 * k) % 8;
        y = y < p.out_h ? y : p.out_h - 1;
        const uint8_t *from =
            out + ((image * p.out_h + y) * p.out_w + x) * elem;
        uint8_t *to = samples + ((image * p.rows + k) * p.out_w + x) * elem;
        for (unsigned b = 0; b < elem; b++)
            to[b] = from[b];
    }
}

size_t tf_samples_bytes(const tf_spec *s, size_t n)
{
    return n * (size_t)s->channels * tf_sample_rows(s->out_h) * s->out_w *
           tf_elem_bytes(s->dtype);
}

cudaError_t launch_gather_samples(void *d_samples, const void *d_out, int n,
                                  const tf_spec *s, cudaStream_t stream)
{
    if (n <= 0)
        return cudaSuccess;
    tf_params p = params_of(s);
    size_t per = (size_t)p.rows * p.out_w;
    size_t blocks = (per + THREADS - 1) / THREADS;
    dim3 grid(blocks < MAX_BLOCKS_PER_IMAGE ? (unsigned)blocks
                                            : MAX_BLOCKS_PER_IMAGE,
              (unsigned)n, p.channels);
    gather_kernel<<<grid, THREADS, 0, stream>>>(
        (uint8_t *)d_samples, (const uint8_t *)d_out, p,
        (unsigned)tf_elem_bytes(s->dtype));
    return cudaGetLastError();
}
