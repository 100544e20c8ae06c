/* kernels.h - the GPU steps of 06_image_preprocess (kernels.cu), enqueued
 * on a stream:
 *
 *   launch_naive_steps(d_out, d_float, d_in, width, height, stream);
 *   launch_naive_step(NAIVE_FLIP, d_out, d_float, d_in, width, height,
 *                     stream);      (one of the three, for timing it)
 *   launch_normalize_flip(d_out, d_in, width, height, stream);
 *
 * The first and the last both compute out = flip(in / 255.0f, axis=1) for
 * a width x height uint8 image, in 32-bit index arithmetic (in bands of
 * whole rows beyond 2^30 pixels). Device buffers come from cudaMalloc
 * (d_out 16-byte aligned).
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

/* One of those steps alone, to time it: astype writes d_float from d_in
 * (5 bytes per pixel), the division works on d_float in place (8), the
 * flip copies d_float to d_out (8). Run in this order they are
 * launch_naive_steps. */
typedef enum { NAIVE_ASTYPE, NAIVE_DIVIDE, NAIVE_FLIP, NAIVE_STEPS } naive_step;
void launch_naive_step(naive_step step, float *d_out, float *d_float,
                       const uint8_t *d_in, size_t width, size_t height,
                       cudaStream_t stream);

/* The fused kernel: 1 byte read and 4 bytes written per pixel. */
void launch_normalize_flip(float *d_out, const uint8_t *d_in, size_t width,
                           size_t height, cudaStream_t stream);

#endif /* KERNELS_H */
