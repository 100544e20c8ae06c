/* corpus_jpeg.h - a small JPEG writer for the benchmark corpus: baseline
 * (SOF0) or progressive (SOF2), one gray component or YCbCr 4:2:0, 4:2:2
 * or 4:4:4, restart markers (DRI) or none, a JFIF (APP0) or an Exif
 * (APP1) segment, the standard quantization tables scaled by quality as
 * libjpeg and stb_image_write scale them, and the standard Huffman
 * tables. The
 * progressive files use spectral selection only (no successive
 * approximation): a DC scan of all components, then AC scans of bands
 * of coefficients, each band of a block sent whole, with end-of-band
 * runs. stb_image_write writes baseline colour JPEGs only; this writes
 * what it cannot.
 *
 *   cj_buffer out = {0};
 *   if (cj_encode(rgb, 3, w, h, 90, 1, &out) == 0) ...out.data, out.len
 *   free(out.data);
 *   cj_options o = {.quality = 85, .chroma = CJ_422, .restart = 8,
 *                   .exif = 1};
 *   cj_encode_with(rgb, 3, w, h, &o, &out);
 */
#ifndef CORPUS_JPEG_H
#define CORPUS_JPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint8_t *data;  /* malloc'ed; the caller frees it */
    size_t len, cap;
} cj_buffer;

/* How a colour file's chroma is sampled: Cb and Cr at half the width
 * and height (4:2:0), half the width (4:2:2), or full size (4:4:4). */
typedef enum { CJ_420, CJ_422, CJ_444 } cj_chroma;

typedef struct {
    int quality;       /* 1..100 */
    int progressive;   /* 0 baseline (SOF0), 1 progressive (SOF2) */
    cj_chroma chroma;  /* colour files */
    /* MCUs between restart markers (a DRI segment and RST0..RST7 in the
     * scan), 0: none; baseline files only */
    int restart;
    /* 1: an Exif APP1 segment (orientation 1, the software's name)
     * instead of the JFIF APP0, as cameras write */
    int exif;
} cj_options;

/* Encodes a w x h image, channels 1 (gray, one component) or 3 (RGB,
 * written as YCbCr), rows packed, w and h from 1 to 65535. Appends the
 * whole file to out. Returns 0, or -1 when out of memory or given a size
 * or parameter out of range (out is then freed). */
int cj_encode_with(const uint8_t *pixels, int channels, int w, int h,
                   const cj_options *o, cj_buffer *out);

/* cj_encode_with: 4:2:0, JFIF, no restart markers. */
int cj_encode(const uint8_t *pixels, int channels, int w, int h,
              int quality, int progressive, cj_buffer *out);

/* The gray level a JPEG decoder returns as luma for (r, g, b), before
 * the encoding's rounding: Y of JFIF's YCbCr, as this writer and
 * stb_image_write compute it. */
float cj_luma(uint8_t r, uint8_t g, uint8_t b);

#ifdef __cplusplus
}
#endif

#endif /* CORPUS_JPEG_H */
