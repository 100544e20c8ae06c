/* image_format.h - what an image file is, and whether it is complete,
 * found from its bytes without decoding a pixel.
 *
 *   const char *format = fmt_sniff(data, len);          "PNG", "JPEG", ...
 *   if (fmt_check_png(data, len, &info, why, sizeof why) != 0) ...cut off...
 *
 * A cut-off PNG or JPEG is common (an interrupted copy) and stb_image does
 * not always say so; walking the file's own structure always does.
 */
#ifndef IMAGE_FORMAT_H
#define IMAGE_FORMAT_H

#include <stddef.h>

#include "image_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format its magic bytes name; "TGA" when none matches (the one
 * format stb_image reads that has no magic). */
const char *fmt_sniff(const unsigned char *data, size_t len);

/* Walks a PNG's chunks up to IEND, reading IHDR's size and colour type
 * into info. Returns 0, or -1 with "truncated PNG: ..." in why. */
int fmt_check_png(const unsigned char *data, size_t len, io_info *info,
                  char *why, size_t why_len);

/* Walks a JPEG's segments and compressed data up to the end-of-image
 * marker, reading the frame size into info. Returns 0, or -1 with
 * "truncated JPEG: ..." or "corrupt JPEG: ..." in why. */
int fmt_check_jpeg(const unsigned char *data, size_t len, io_info *info,
                   char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* IMAGE_FORMAT_H */
