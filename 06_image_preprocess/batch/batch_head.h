/* batch_head.h - what imgbatch_open learns of one file: its size in
 * bytes, its frame size, whether it is a JPEG and its EXIF orientation,
 * from the file's first HEAD_BYTES where they are all there, else from
 * the whole file (batch_head.c).
 *
 *   head_result h;
 *   if (head_probe(path, max_pixels, exif, &h, err, sizeof err) != 0)
 *       ...err: "PATH: reason" (the file is bad)...
 *   later, the whole file read (bits, len), before it is decoded:
 *   if (!h.whole && head_recheck(path, bits, len, max_pixels, h.width,
 *                                h.height, err, sizeof err) != 0) ...
 *
 * A JPEG is taken from its first bytes when every segment up to its
 * first scan is there (so its frame header and every Exif segment
 * before the scan, where exif_orientation looks), a PNG when its IHDR
 * chunk is; each only when its header is one stb_image reads. Anything
 * else (another format, a file no longer than HEAD_BYTES, a header in
 * doubt, a side over the pixel cap) is read whole and checked as
 * before (io_probe: the whole structure, a cut file found). What the
 * first bytes cannot show (a JPEG cut short, a bad Huffman table, a
 * PNG's chunks) head_recheck finds when the pipeline reads the file
 * whole: a bad file then, named by the same reason.
 */
#ifndef BATCH_HEAD_H
#define BATCH_HEAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first read of a file: its headers, for nearly every photograph
 * (JFIF, Exif without a large thumbnail); a longer header costs a
 * second read, of the whole file. */
enum { HEAD_BYTES = 16384 };

typedef struct {
    size_t width, height;  /* as stored (EXIF turns them after) */
    size_t bytes;          /* the file's size */
    int jpeg;              /* it starts FF D8 */
    int orientation;       /* EXIF's (with exif, a JPEG), else 1 */
    int whole;             /* 1: read and checked whole (io_probe) */
} head_result;

/* Probes path: from its first HEAD_BYTES where they hold its header,
 * else whole. Returns 0 with *h, or -1 with "PATH: reason" in err (the
 * reasons io_probe and io_read_file give). */
int head_probe(const char *path, size_t max_pixels, int exif,
               head_result *h, char *err, size_t err_len);

/* What head_probe takes from a file's first n bytes at d: 1 with *h
 * (but h->bytes, the file's size, 0), when they hold a JPEG's or PNG's
 * whole header as said above, within the pixel cap; else 0 (*h zeroed):
 * the whole file decides. Any bytes are safe. */
int head_parse(const uint8_t *d, size_t n, size_t max_pixels, int exif,
               head_result *h);

/* The whole-file check of a file that head_probe took from its first
 * bytes (len bytes at bits): io_probe's, and the frame size it had then
 * (width x height). Returns 0, or -1 with "PATH: reason" in err. */
int head_recheck(const char *path, const uint8_t *bits, size_t len,
                 size_t max_pixels, size_t width, size_t height, char *err,
                 size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_HEAD_H */
