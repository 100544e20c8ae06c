/* image_format.h - what an image file is, and whether it is complete,
 * found from its bytes without decoding a pixel.
 *
 *   const char *format = fmt_sniff(data, len);          "PNG", "JPEG", ...
 *   if (fmt_check_png(data, len, &info, why, sizeof why) != 0) ...cut off...
 *
 * A cut-off PNG or JPEG is common (an interrupted copy) and stb_image does
 * not always say so; walking the file's own structure always does. A cut
 * file of any other format is found when decoded (image_io.c); an HDR's
 * scanlines are walked too, because stb_image 2.27 hangs on a cut one,
 * and a JPEG's Huffman tables and a PGM/PPM header's numbers are checked
 * because it reads past its tables or overflows an int on some.
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
 * format stb_image reads that has no magic). A JPEG's start marker may
 * follow 0xFF fill bytes, as stb_image reads it. */
const char *fmt_sniff(const unsigned char *data, size_t len);

/* Walks a PNG's chunks up to IEND, reading IHDR's size and colour type
 * into info. Returns 0, or -1 with "truncated PNG: ..." in why, with
 * "PNG header says 0 x H pixels: ..." for a size no image can have, or
 * with "unsupported PNG: critical chunk ..." for a critical chunk that
 * stb_image does not know. */
int fmt_check_png(const unsigned char *data, size_t len, io_info *info,
                  char *why, size_t why_len);

/* Walks a JPEG's segments and compressed data up to the end-of-image
 * marker, reading the frame size into info and checking each Huffman
 * table segment as stb_image 2.27 would read it wrongly: a table of more
 * than 256 codes (it writes the rest past its table), tables that do not
 * fill their segment exactly (it reads the next table's counts past the
 * segment), a DC table with a symbol over 15 (2.26 read past a table
 * of 16; 2.27 refuses it only as it decodes), and a scan that uses a
 * table no earlier segment defined (it decodes with what its memory
 * held). Returns 0, or -1 with "truncated JPEG: ..." or "corrupt JPEG:
 * ..." in why. */
int fmt_check_jpeg(const unsigned char *data, size_t len, io_info *info,
                   char *why, size_t why_len);

/* Reads a binary PGM or PPM header's three numbers (width, height,
 * maximum value) as stb_image 2.27 does, which keeps each in an int with
 * no bound. Returns 0, or -1 with "PGM header's width at byte 3 is more
 * than 16777216: too large to read" (format names the format) or the
 * like in why, for a side over 2^24 or a maximum over 65535, or with
 * "truncated PGM: ..., in its header" for a header that runs to the
 * file's end (its reads of the last number then disagree). */
int fmt_check_pnm(const unsigned char *data, size_t len, const char *format,
                  char *why, size_t why_len);

/* Walks a Radiance HDR's run-length coded scanlines as stb_image reads
 * them, which loops forever on a cut one or a run of length 0 up to
 * stb_image 2.27, and makes sure its flat ones (4 bytes a pixel) are all
 * there, since stb_image 2.27 makes a pixel of bytes it never wrote where
 * they run out. Returns 0 (also for what it leaves to stb_image), or -1
 * with "truncated HDR: ..." or "corrupt HDR: ..." in why. */
int fmt_check_hdr(const unsigned char *data, size_t len, char *why,
                  size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* IMAGE_FORMAT_H */
