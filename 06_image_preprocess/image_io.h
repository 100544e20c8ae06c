/* image_io.h - load any image stb_image reads as 8-bit gray, like
 * cv2.imread(path, cv2.IMREAD_GRAYSCALE), with every failure explained.
 *
 *   io_image img;
 *   if (io_load_gray("photo.jpg", IO_DEFAULT_MAX_PIXELS, &img, err,
 *                    sizeof err) != 0) { ...err is "photo.jpg: reason"... }
 *   ... img.pixels[y * img.width + x] ...
 *   io_image_free(&img);
 *
 * Missing, empty, non-image and oversized files, PNG, JPEG and HDR files
 * cut short, and files cut inside their header are refused before any
 * pixel is decoded; a file of any other format cut short, at the latest
 * when decoding needs the bytes it lacks; a JPEG whose codes stb_image
 * would read past their data, or that leaves blocks undecoded, before
 * stb_image decodes it (jpeg_walk.h). 16-bit, RGB(A), gray+alpha and
 * palette images are converted to 8-bit gray. Every message names the
 * file.
 */
#ifndef IMAGE_IO_H
#define IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 16384 x 16384: room for the lab's built-in 10000 x 10000 with a margin,
 * and a stop before a corrupt or hostile header makes us allocate
 * gigabytes. */
#define IO_DEFAULT_MAX_PIXELS ((size_t)1 << 28)

typedef struct {
    const char *format;  /* "PNG", "JPEG", "BMP", ... */
    size_t width, height;
    int channels;        /* in the file: 1 gray, 2 gray+alpha, 3, 4 */
    int bits;            /* per channel in the file: 8 or 16 */
    int palette;         /* 1 for a palette (indexed-colour) PNG */
    size_t file_bytes;
} io_info;

typedef struct {
    uint8_t *pixels;     /* width * height * channels bytes, row by row */
    size_t width, height;
    int channels;        /* 1 gray; 3 R, G, B interleaved (io_decode) */
    io_info info;
} io_image;

/* Reads a regular file whole. Returns a malloc'd buffer (*len bytes), or
 * NULL with "PATH: reason" in err (missing, a folder or another file that
 * is not a regular one, empty, 2 GiB or more: stb_image counts in int). */
unsigned char *io_read_file(const char *path, size_t *len, char *err,
                            size_t err_len);

/* Checks file bytes without decoding pixels: a format stb_image reads, a
 * PNG, JPEG or HDR that is complete, a header stb_image accepts, of at
 * least 1 x 1 and at most max_pixels. Returns 0 and fills info, or -1
 * with "PATH: reason" in err. */
int io_probe(const char *path, const unsigned char *data, size_t len,
             size_t max_pixels, io_info *info, char *err, size_t err_len);

/* io_probe + decode the file bytes data to 8-bit gray, refusing a file
 * that ends before its image does ("truncated BMP: ..."). Returns 0, or
 * -1 with "PATH: reason" in err and img zeroed; path names the file in
 * messages only. */
int io_decode_gray(const char *path, const unsigned char *data, size_t len,
                   size_t max_pixels, io_image *img, char *err,
                   size_t err_len);

/* io_decode_gray, or with channels 3 to 8-bit R, G, B interleaved (a
 * gray file's level three times, alpha dropped, a JPEG converted from
 * YCbCr as stb_image converts it). */
int io_decode(const char *path, const unsigned char *data, size_t len,
              size_t max_pixels, int channels, io_image *img, char *err,
              size_t err_len);

/* io_read_file + io_decode_gray. */
int io_load_gray(const char *path, size_t max_pixels, io_image *img,
                 char *err, size_t err_len);
void io_image_free(io_image *img);

/* "PNG, 16-bit gray+alpha" and the like, for the report. */
void io_describe(const io_info *info, char *buf, size_t len);

/* Checks, before any work, that path could be written: its folder exists
 * and is writable, and path is not a folder. Returns 0 or -1 with err. */
int io_check_writable(const char *path, char *err, size_t err_len);

/* Writes an 8-bit gray PNG, complete or not at all. Returns 0 or -1. */
int io_write_png_gray(const char *path, const uint8_t *pixels, size_t width,
                      size_t height, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* IMAGE_IO_H */
