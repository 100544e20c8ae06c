/* corpus.h - the benchmark corpus: folders of photo-like JPEGs that the
 * batch tool makes itself, drawn (corpus.c) or cut from photographs
 * (corpus_wild.c), so a decode benchmark needs no downloaded images;
 * corpus_main.c is the command.
 *
 *   imgbatch --make-corpus DIR [--count N] [--size WxH] [--kind KIND]
 *       [--quality Q] [--chroma mixed|420] [--from PHOTO_DIR] [--seed S]
 *       [--threads N]
 *
 * writes DIR/img_00000.jpg, img_00001.jpg, ... Each image is drawn from
 * (seed, index): a smooth colour gradient with soft-edged shapes,
 * texture on several scales and pixel noise, or with --from a crop of one
 * of the photographs, scaled; so the same options give the same bytes
 * whatever the number of threads. --kind wild varies each file as a real
 * folder does (size, chroma, quality, markers). No GPU is used.
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
    CORPUS_MIXED,             /* file i progressive when i % 4 == 3 */
    CORPUS_WILD               /* each file its own size, chroma, ... */
} corpus_kind;

/* How to make one file: BASELINE (stb_image_write), or through cj_encode
 * (jpeg says how), of channels 1 (gray) or 3. */
typedef struct {
    corpus_kind kind;
    int width, height, channels;
    cj_options jpeg;
} corpus_file;

/* What a corpus is: its kind, the size and quality of its files (but for
 * wild), its seed; all_420: a wild corpus with every file YCbCr 4:2:0;
 * one_size: a wild corpus whose files all have width x height. */
typedef struct {
    corpus_kind kind;
    int width, height, quality;
    uint64_t seed;
    int all_420, one_size;
} corpus_recipe;

/* File `index` of a corpus. A wild one's files (corpus_wild.c): each
 * side 333 to 640 pixels, quality 80 to 95; 8% gray, the rest YCbCr,
 * 70% of them 4:2:0, 15% 4:2:2, 15% 4:4:4 (all 4:2:0 and none gray with
 * all_420); a quarter with restart markers (every 4, 8 or 16 MCUs or
 * every MCU row), 40% with an Exif segment instead of JFIF's. */
void corpus_plan(const corpus_recipe *r, uint64_t index, corpus_file *f);

/* Encodes rgb (f->width x f->height) as f says into out (which the
 * caller frees). Returns 0, or -1 when out of memory. */
int corpus_encode_file(const corpus_file *f, const uint8_t *rgb,
                       cj_buffer *out);

/* Photographs to cut the images from (--from): every image file stb_image
 * reads in a folder, as 8-bit RGB. */
typedef struct {
    uint8_t **rgb;
    int *width, *height;
    size_t count;
} corpus_photos;

/* Loads them. Returns 0, or -1 with a reason naming the file or folder
 * (none readable is an error). */
int corpus_photos_load(const char *dir, corpus_photos *p, char *err,
                       size_t err_len);
void corpus_photos_free(corpus_photos *p);

/* Fills rgb (w x h) with image `index` of the corpus of `seed` cut from
 * the photographs: one of them, chosen from (seed, index); a window of
 * the image's aspect ratio, 40% to 100% of the largest that fits (but
 * at least w x h where it can be), at a place drawn from (seed, index);
 * scaled to w x h (bilinear). */
void corpus_photo_crop(const corpus_photos *p, uint8_t *rgb, int w, int h,
                       uint64_t seed, uint64_t index);

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
