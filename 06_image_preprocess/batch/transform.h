/* transform.h - the batch tool's one kernel over a batch (transform.cu):
 * every image of it, decoded at its own size into the batch's arena,
 * resized (bilinear; antialiased if the spec asks, transform_aa.cu),
 * normalized, flipped and written as its slot of the tensor, in one
 * launch; and the copy of the rows the checks sample.
 *
 *   tf_image_entry(&table[i], &spec, offset, w, h, planes, orientation);
 *                                                            one per image
 *   (pipeline.cu)
 *   ... table copied to d_table on the stream ...
 *   launch_transform(d_tensor_slots, d_table, n, d_arena, &spec, stream);
 *   launch_gather_samples(d_samples, d_tensor_slots, n, &spec, stream);
 *
 * The arithmetic is transform_ref.c's, written again for the GPU.
 */
#ifndef TRANSFORM_H
#define TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "transform_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One image of a batch, for the kernel (40 bytes): where its decoded
 * planes lie in the arena (plane c at offset + c * plane_bytes; 0: one
 * gray plane for every channel), its size as stored (rows of src_w
 * bytes), its place (transform_ref.h) and the EXIF orientation that
 * turns it upright. Its slot is its index in the table. */
typedef struct {
    unsigned long long offset;
    unsigned plane_bytes;
    unsigned src_w, src_h;
    unsigned scaled_w, scaled_h;
    unsigned crop_x, crop_y;
    unsigned orientation;    /* 1 to 8 (tf_orient) */
} tf_image;

/* The table entry of a w x h image (as stored) whose decoded planes
 * start at `offset` in the arena: `planes` of them (3), or one gray
 * plane for every channel (1), and its place (tf_place_oriented, which
 * the caller has checked can place it). */
void tf_image_entry(tf_image *t, const tf_spec *s, size_t offset, size_t w,
                    size_t h, int planes, int orientation);

/* Writes images 0 .. n - 1 of the table as n consecutive tensor images
 * (channels x out_h x out_w elements each) from d_out on. Sides up to
 * TF_MAX_SIDE, n up to 65535. Returns the launch's error (cudaSuccess
 * once enqueued). */
cudaError_t launch_transform(void *d_out, const tf_image *d_table, int n,
                             const uint8_t *d_arena, const tf_spec *s,
                             cudaStream_t stream);

/* Copies the sampled rows (tf_sample_row) of n tensor images from d_out
 * into d_samples, packed: image, channel, sampled row, column. Returns
 * the launch's error. */
cudaError_t launch_gather_samples(void *d_samples, const void *d_out, int n,
                                  const tf_spec *s, cudaStream_t stream);

/* Bytes launch_gather_samples writes for n images. */
size_t tf_samples_bytes(const tf_spec *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* TRANSFORM_H */
