/* image_format.h - what an image file is, and whether it is complete,
 * found from its bytes without decoding a pixel.
 *
 *   const char *format = fmt_sniff(data, len);          "PNG", "JPEG", ...
 *   if (fmt_check_png(data, len, &info, why, sizeof why) != 0) ...cut off...
 *
 * A cut-off PNG or JPEG is common (an interrupted copy) and stb_image does
 * not always say so; walking the file's own structure always does. A cut
 * file of any other format is found when decoded (image_io.c); an HDR's
 * scanlines are walked too, because stb_image 2.27 hangs on a cut one.
 */
#ifndef IMAGE_FORMAT_H
#define IMAGE_FORMAT_H

#include <stddef.h>

#include "image_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format its magic bytes name, or whose magic the whole file is the
 * start of (a file cut inside it); "TGA" when none matches (the one
 * format stb_image reads that has no magic). */
const char *fmt_sniff(const unsigned char *data, size_t len);

/* Walks a PNG's chunks up to IEND, reading IHDR's size and colour type
 * into info. Returns 0, or -1 with "truncated PNG: ..." in why, or with
 * "PNG header says 0 x H pixels: ..." for a size no image can have. */
int fmt_check_png(const unsigned char *data, size_t len, io_info *info,
                  char *why, size_t why_len);

/* Walks a JPEG's segments and compressed data up to the end-of-image
 * marker, reading the frame size into info and checking that no Huffman
 * table counts more than 256 codes (stb_image 2.27 writes the rest past
 * its table). Returns 0, or -1 with "truncated JPEG: ..." or "corrupt
 * JPEG: ..." in why. */
int fmt_check_jpeg(const unsigned char *data, size_t len, io_info *info,
                   char *why, size_t why_len);

/* Walks a Radiance HDR's run-length coded scanlines as stb_image reads
 * them, which loops forever on a cut one or a run of length 0 up to
 * stb_image 2.27. Returns 0 (also for what it leaves to stb_image), or -1
 * with "truncated HDR: ..." or "corrupt HDR: ..." in why. */
int fmt_check_hdr(const unsigned char *data, size_t len, char *why,
                  size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* IMAGE_FORMAT_H */
