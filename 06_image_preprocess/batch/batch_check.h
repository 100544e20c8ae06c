/* batch_check.h - the batch tool's checks of the tensor (batch_check.c):
 * the test the readers apply to each value while the pipeline runs
 * (pipeline.cu), and, after the timed passes, every image's sampled rows
 * against stb_image decoding its file again.
 *
 *   if (!check_whole_levels(tensor_image, pixels)) ...not k / 255...
 *   sampled_result s = check_sampled(&run, n_out);   on the readers
 *   uint64_t h = check_samples_hash(&run, n_out);    the same every pass?
 */
#ifndef BATCH_CHECK_H
#define BATCH_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The byte b for which f is exactly b / 255.0f, or -1 if there is none:
 * every value the kernel writes is one of those 256. */
int check_level(float f);

/* 1 if every one of the n values is such a level. */
int check_whole_levels(const float *values, size_t n);

/* What the sampled check found, summed over the reader threads. */
typedef struct {
    size_t pixels;      /* compared */
    size_t one_level;   /* of GPU-decoded images, one level from stb's */
    size_t worse;       /* images further apart (a CPU-decoded one: any) */
    size_t inexact;     /* values that are no level */
    size_t unreadable;  /* images stb_image could not decode again */
    const char *first_worse;  /* a path, or "" */
    double ms;
} sampled_result;

/* Tensor images 0 .. n_out - 1 (r->out_index says which file each is),
 * on the sampled rows, against stb_image decoding the file again (and
 * resizing it as the batch is): each value must be a level (above), and
 * its byte equal to stb_image's, or within one level where a GPU path
 * decoded the image (two JPEG decoders round their inverse DCT
 * differently). What is compared: asked for one channel, stb_image
 * decodes only the Y component of a YCbCr JPEG and returns that plane as
 * it is (it computes gray from R, G, B, stbi__compute_y, only for
 * RGB-coded files, which the screen sends to the CPU); NVJPEG_OUTPUT_Y
 * is the same Y plane, and the screen and js_hybrid_ok take only files
 * whose Y is not resampled. On the reader threads; untimed. */
sampled_result check_sampled(batch_run *r, size_t n_out);

/* FNV-1a over the sampled rows of n_out images: equal in every pass, or
 * the decode is not repeatable. */
uint64_t check_samples_hash(const batch_run *r, size_t n_out);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_CHECK_H */
