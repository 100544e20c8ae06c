/* jpeg_walk.h - a JPEG's Huffman codes read exactly as stb_image 2.27
 * reads them, without computing a pixel, to refuse what it would get
 * wrong before it decodes.
 *
 *   if (jpeg_walk_codes(data, len, max_pixels, why, sizeof why) != 0)
 *       ...refused...
 *
 * fmt_check_jpeg (image_format.h) checks a JPEG's segments; this walks
 * its compressed data too, which costs about what its Huffman decoding
 * costs, so the loader (image_io.c) runs it only before stb_image
 * decodes, never to screen a file. It finds what only a decode finds:
 *   - codes that run past the end of their scan's data (a marker): stb_image
 *     2.27 goes on with a negative bit count, and its next read shifts by
 *     32 bits or more, which C leaves undefined (2.28 stops there);
 *   - blocks that no scan decodes (a component no scan names, a scan that
 *     ends at a marker that is not its restart marker, a progressive
 *     refinement of coefficients no first scan set): stb_image 2.27 turns
 *     whatever its memory held there into pixels.
 * Whatever else stb_image refuses (a Huffman code no table has, a bad
 * segment) is left to it: the walk stops there and says nothing.
 */
#ifndef JPEG_WALK_H
#define JPEG_WALK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 0 (nothing found, or left to stb_image), or -1 with "corrupt
 * JPEG: ..." in why, or with "the JPEG frame of W x H pixels is more than
 * max_pixels" (the walk keeps a few bytes a block), or "not enough memory
 * to walk the JPEG's scans". */
int jpeg_walk_codes(const unsigned char *data, size_t len,
                    size_t max_pixels, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* JPEG_WALK_H */
