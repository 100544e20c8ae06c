/* preprocess.h - what preprocess.cu (one image) and batch.cu (many)
 * share: the fused kernel's launcher and the batch entry point.
 */
#ifndef PREPROCESS_H
#define PREPROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "cli.h"

/* out = flip(in / 255.0f, axis=1) for a width x height image, enqueued on
 * stream (one pass: 1 byte read, 4 bytes written per pixel). */
void launch_normalize_flip(float *d_out, const uint8_t *d_in, size_t width,
                           size_t height, cudaStream_t stream);

/* Collects and checks the batch's files (CPU only), then selects the GPU
 * and runs the pipeline. Returns the exit status. */
int run_batch(const batch_options *b, const cm_options *opt);

#endif /* PREPROCESS_H */
