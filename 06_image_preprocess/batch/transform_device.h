/* transform_device.h - what the batch tool's two resize kernels share
 * (transform.cu: the plain bilinear one; transform_aa.cu: the
 * antialiased one): the launch's parameters, the store of one element in
 * the tensor's type, and where a pixel of the upright image is stored.
 * For .cu files only.
 *
 *   tf_params p = params_of(&spec);
 *   store(out, at, level, c, &p);             in a kernel
 *   size_t i = stored_at(o, u, v, sw, sh);
 */
#ifndef TRANSFORM_DEVICE_H
#define TRANSFORM_DEVICE_H

#include <stdint.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "transform.h"

/* What every image of a launch shares, passed by value. */
typedef struct {
    unsigned out_w, out_h, channels, rows;
    int dtype, flip;
    float mean[3], std[3];
} tf_params;

static inline tf_params params_of(const tf_spec *s)
{
    tf_params p;
    p.out_w = (unsigned)s->out_w;
    p.out_h = (unsigned)s->out_h;
    p.channels = (unsigned)s->channels;
    p.rows = (unsigned)tf_sample_rows(s->out_h);
    p.dtype = (int)s->dtype;
    p.flip = s->flip;
    for (int c = 0; c < 3; c++) {
        p.mean[c] = c < s->channels ? s->mean[c] : 0.0f;
        p.std[c] = c < s->channels ? s->std[c] : 1.0f;
    }
    return p;
}

/* Element `at` of the tensor: a level of channel c in the dtype, in IEEE
 * single-precision operations rounded one by one (__fdiv_rn, __fsub_rn:
 * no fused multiply-add), the bits tf_store computes. */
static __device__ __forceinline__ void store(void *out, size_t at,
                                             unsigned level, unsigned c,
                                             const tf_params *p)
{
    if (p->dtype == TF_UINT8) {
        ((uint8_t *)out)[at] = (uint8_t)level;
        return;
    }
    float v = __fdiv_rn((float)level, 255.0f);
    v = __fdiv_rn(__fsub_rn(v, p->mean[c]), p->std[c]);
    if (p->dtype == TF_FLOAT32)
        ((float *)out)[at] = v;
    else
        ((unsigned short *)out)[at] = __half_as_ushort(__float2half_rn(v));
}

/* Where pixel (u, v) of the upright image is stored: tf_orient, as an
 * index of the stored plane (sw x sh). */
static __device__ __forceinline__ size_t stored_at(unsigned o, unsigned u,
                                                   unsigned v, unsigned sw,
                                                   unsigned sh)
{
    unsigned x = u, y = v;
    switch (o) {
    case 2: x = sw - 1 - u; break;
    case 3: x = sw - 1 - u; y = sh - 1 - v; break;
    case 4: y = sh - 1 - v; break;
    case 5: x = v; y = u; break;
    case 6: x = v; y = sh - 1 - u; break;
    case 7: x = sw - 1 - v; y = sh - 1 - u; break;
    case 8: x = sw - 1 - v; y = u; break;
    default: break;
    }
    return (size_t)y * sw + x;
}

/* The antialiased resize's launch (transform_aa.cu), which
 * launch_transform hands a spec with antialias to: its arguments. */
cudaError_t launch_transform_aa(void *d_out, const tf_image *d_table, int n,
                                const uint8_t *d_arena, const tf_spec *s,
                                cudaStream_t stream);

#endif /* TRANSFORM_DEVICE_H */
