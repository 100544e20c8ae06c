/* kernels.h - the GPU steps of 06_image_preprocess (kernels.cu), enqueued
 * on a stream:
 *
 *   launch_naive_steps(d_out, d_float, d_in, width, height, stream);
 *   launch_normalize_flip(d_out, d_in, width, height, stream);
 *
 * Both compute out = flip(in / 255.0f, axis=1) for a width x height uint8
 * image. Device buffers come from cudaMalloc (d_out 16-byte aligned).
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

/* The tutorial's three steps as three kernels (astype, divide, flip),
 * through the float32 intermediate d_float: 21 bytes moved per pixel. */
void launch_naive_steps(float *d_out, float *d_float, const uint8_t *d_in,
                        size_t width, size_t height, cudaStream_t stream);

/* The fused kernel: 1 byte read and 4 bytes written per pixel. */
void launch_normalize_flip(float *d_out, const uint8_t *d_in, size_t width,
                           size_t height, cudaStream_t stream);

#endif /* KERNELS_H */
