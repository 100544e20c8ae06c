/* corpus.h - the benchmark corpus: folders of synthetic photo-like JPEGs
 * that the batch tool makes itself, so a decode benchmark needs no
 * downloaded images (corpus.c draws and encodes them, corpus_main.c is
 * the command).
 *
 *   imgbatch --make-corpus DIR [--count N] [--size WxH]
 *       [--kind KIND] [--quality Q] [--seed S] [--threads N]
 *
 * writes DIR/img_00000.jpg, img_00001.jpg, ... Each image is a smooth
 * colour gradient with soft-edged shapes, texture on several scales and
 * pixel noise, all drawn from (seed, index), so the same options give
 * the same bytes whatever the number of threads. No GPU is used.
 */
#ifndef CORPUS_H
#define CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "corpus_jpeg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CORPUS_BASELINE,          /* YCbCr, stb_image_write (SOF0) */
    CORPUS_PROGRESSIVE,       /* YCbCr 4:2:0, corpus_jpeg.c (SOF2) */
    CORPUS_GRAY,              /* one component, corpus_jpeg.c (SOF0) */
    CORPUS_GRAY_PROGRESSIVE,  /* one component, corpus_jpeg.c (SOF2) */
    CORPUS_MIXED              /* file i progressive when i % 4 == 3 */
} corpus_kind;

/* Fills rgb (w * h * 3 bytes, rows packed) with image number `index` of
 * the corpus of `seed`. Deterministic. Returns 0, or -1 when out of
 * memory (for a row buffer). */
int corpus_synth_rgb(uint8_t *rgb, int w, int h, uint64_t seed,
                     uint64_t index);

/* What file `index` of a corpus of `kind` is (MIXED resolves to
 * BASELINE or PROGRESSIVE). */
corpus_kind corpus_file_kind(corpus_kind kind, uint64_t index);

/* Encodes rgb as a JPEG of `kind` (not MIXED) into out (which the caller
 * frees): BASELINE with stb_image_write, which writes 4:2:0 at quality 90
 * and below and 4:4:4 above; the others with cj_encode, the gray ones
 * from the rounded luma of rgb. Returns 0, or -1 when out of memory. */
int corpus_encode(corpus_kind kind, const uint8_t *rgb, int w, int h,
                  int quality, cj_buffer *out);

/* The rounded luma of each pixel, as a gray JPEG of it holds it. */
void corpus_rgb_to_gray(uint8_t *gray, const uint8_t *rgb, size_t n);

/* The --make-corpus mode (corpus_main.c): argv[0] is "--make-corpus".
 * Returns the exit status: 0, 1 when a file cannot be written, 2 on a
 * usage error. */
int corpus_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* CORPUS_H */
