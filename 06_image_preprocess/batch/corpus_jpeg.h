/* corpus_jpeg.h - a small JPEG writer for the benchmark corpus: baseline
 * (SOF0) or progressive (SOF2), one gray component or YCbCr 4:2:0, the
 * standard quantization tables scaled by quality as libjpeg and
 * stb_image_write scale them, and the standard Huffman tables. The
 * progressive files use spectral selection only (no successive
 * approximation): a DC scan of all components, then AC scans of bands
 * of coefficients, each band of a block sent whole, with end-of-band
 * runs. stb_image_write writes baseline colour JPEGs only; this writes
 * what it cannot.
 *
 *   cj_buffer out = {0};
 *   if (cj_encode(rgb, 3, w, h, 90, 1, &out) == 0) ...out.data, out.len
 *   free(out.data);
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

/* Encodes a w x h image, channels 1 (gray, one component) or 3 (RGB,
 * written as YCbCr 4:2:0), rows packed, quality 1..100, w and h from 1
 * to 65535. progressive: 0 baseline (SOF0), 1 progressive (SOF2).
 * Appends the whole file to out. Returns 0, or -1 when out of memory or
 * given a size or parameter out of range (out is then freed). */
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
