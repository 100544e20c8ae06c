/* stb_impl.c - the one place where stb_image is compiled (Debian's
 * libstb-dev ships it as a header only; stb_image_write has
 * stb_write_impl.c), and how the loader (image_io.c) calls stb_image:
 * its allocations bounded, its reads past a file's end noted, its gray
 * made where stb_image 2.27 errs (stb_impl.h).
 *
 * stb is not our code, so the warnings it has drawn from some compilers and
 * stb versions are silenced here, around its includes only; the rest of
 * the chapter keeps -Wall -Wextra -Werror. The failure reason stb_image
 * keeps is thread-local (C11), so the reader threads of the batch
 * pipeline do not overwrite each other's; so is the allocation limit.
 * This file is compiled with -fwrapv (extra.mk): stb_image 2.27
 * overflows signed ints on some hostile files, which then wrap, as
 * defined, instead of being undefined behaviour.
 */
#include "stb_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local size_t allocation_limit;  /* bytes; 0: none */

void stb_limit_allocation(size_t bytes)
{
    allocation_limit = bytes;
}

static void *limited_malloc(size_t bytes)
{
    return allocation_limit && bytes > allocation_limit ? NULL
                                                        : malloc(bytes);
}

static void *limited_realloc(void *p, size_t bytes)
{
    return allocation_limit && bytes > allocation_limit ? NULL
                                                        : realloc(p, bytes);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wtype-limits"

#define STBI_MALLOC(bytes) limited_malloc(bytes)
#define STBI_REALLOC(p, bytes) limited_realloc(p, bytes)
#define STBI_FREE(p) free(p)
#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"

#pragma GCC diagnostic pop

/* stb_image reads the file through these callbacks, which serve it from
 * memory and note whether a decoder ever needed bytes past its end: the
 * one sign of a cut-off file that every format shares, whatever stb_image
 * then makes of the missing bytes. Its first read
 * fills its own 128-byte buffer, and it refills that buffer whenever it
 * runs dry: a refill that gets fewer bytes is normal near the end, one
 * that gets none means more was needed. Its other reads and its skips ask
 * for exactly the bytes a decoder needs. We answer "end of file" only once
 * a read went past the end, so a decoder that would stop at the end of
 * the file without reading (PIC, PGM headers) reads first and is seen. */
typedef struct {
    const unsigned char *data;
    size_t len, pos;      /* pos: bytes handed to stb_image so far */
    const char *buffer;   /* stb_image's own read-ahead buffer */
    size_t past_end;      /* bytes asked for after the last: > 0, cut */
} stb_source;

static int source_read(void *user, char *out, int size)
{
    stb_source *src = user;
    if (!src->buffer)
        src->buffer = out;
    size_t want = size > 0 ? (size_t)size : 0, left = src->len - src->pos;
    size_t n = want < left ? want : left;
    if (out != src->buffer)
        src->past_end += want - n;
    else if (n == 0)
        src->past_end += 1;  /* at least one more byte */
    memcpy(out, src->data + src->pos, n);
    src->pos += n;
    return (int)n;
}

static void source_skip(void *user, int n)
{
    stb_source *src = user;
    size_t want = n > 0 ? (size_t)n : 0, left = src->len - src->pos;
    if (want > left)
        src->past_end += want - left;
    src->pos += want < left ? want : left;
}

static int source_eof(void *user)
{
    const stb_source *src = user;
    return src->past_end > 0;
}

/* stb_image (2.30 and before) copies a 16-bit PGM or PPM's samples, which
 * the file holds big-endian, into 16-bit integers as they are: swapped on
 * a little-endian CPU. Returns whether it does, by asking it. */
static int pnm16_swapped(void)
{
    static const unsigned char one_pixel[] = "P5 1 1 65535 \x01\x02";
    int w, h, channels;
    stbi_us *value = stbi_load_16_from_memory(one_pixel,
                                              sizeof one_pixel - 1, &w, &h,
                                              &channels, 1);
    int swapped = value && value[0] == 0x0201;
    stbi_image_free(value);
    return swapped;
}

/* stb_image's gray, (77 r + 150 g + 29 b) >> 8, in place, of pixels of n
 * samples (1: gray, 3: RGB, 4: RGBA) of 8 or 16 bits; 16 bits become
 * their top 8 last, as in stb_image; swapped: their bytes first. */
static void gray_in_place(void *decoded, size_t pixels, int n, int bits,
                          int swapped)
{
    uint8_t *gray = decoded;
    const uint16_t *wide = decoded;
    for (size_t i = 0; i < pixels; i++) {
        unsigned v[3];
        for (int k = 0; k < 3; k++) {
            size_t at = i * (size_t)n + (size_t)(n < 3 ? 0 : k);
            v[k] = bits == 8 ? gray[at] : wide[at];
            if (bits == 16 && swapped)
                v[k] = (v[k] >> 8 | v[k] << 8) & 0xFFFF;
        }
        unsigned y = n < 3 ? v[0]
                           : (v[0] * 77 + v[1] * 150 + v[2] * 29) >> 8;
        gray[i] = (uint8_t)(bits == 16 ? y >> 8 : y);
    }
}

/* stb_image's 16-bit samples of a PGM or PPM, in this CPU's order. */
static unsigned sample16(const uint16_t *wide, size_t at, int swapped)
{
    unsigned v = wide[at];
    return swapped ? (v >> 8 | v << 8) & 0xFFFF : v;
}

/* The pixels as 8-bit R, G, B, in a new buffer (the old one freed): from
 * n samples a pixel (1 gray, 3 RGB, 4 RGBA) of 8 or 16 bits, 16 bits cut
 * to their top 8, as stb_image does; swapped: their bytes first. */
static uint8_t *rgb_of(void *decoded, size_t pixels, int n, int bits,
                       int swapped)
{
    uint8_t *rgb = malloc(pixels > 0 ? pixels * 3 : 1);
    const uint8_t *narrow = decoded;
    const uint16_t *wide = decoded;
    for (size_t i = 0; rgb && i < pixels; i++)
        for (int k = 0; k < 3; k++) {
            size_t at = i * (size_t)n + (size_t)(n < 3 ? 0 : k);
            rgb[3 * i + (size_t)k] =
                (uint8_t)(bits == 8 ? narrow[at]
                                    : sample16(wide, at, swapped) >> 8);
        }
    stbi_image_free(decoded);
    return rgb;
}

/* Decodes data to 8-bit gray or RGB (or NULL) through the callbacks
 * above, with in *past_end how many bytes decoders asked for after the
 * last one. stb_image's own way to fewer channels errs three times, in
 * 2.27 (Debian's): a PIC that fails to decode is converted anyway, from
 * NULL (a crash); a 16-bit PPM is converted as if it had 8 bits, then
 * read past its end; and a 16-bit PGM or PPM has its bytes swapped
 * (above). Those we take in the channels they decode to and convert
 * ourselves, as stb_image does for every other format. */
uint8_t *stb_load_tracked(const char *format, int bits, int want,
                          const unsigned char *data, size_t len,
                          size_t budget, int *w, int *h, int *channels,
                          size_t *past_end)
{
    static const stbi_io_callbacks callbacks = {source_read, source_skip,
                                                source_eof};
    stb_source src = {data, len, 0, NULL, 0};
    int pnm = strcmp(format, "PGM") == 0 || strcmp(format, "PPM") == 0;
    int wide = pnm && bits == 16;
    int decoded = strcmp(format, "PIC") == 0   ? 4
                  : strcmp(format, "PPM") == 0 ? 3
                  : wide                       ? 1
                                               : want;
    void *pixels;
    stb_limit_allocation(budget);
    if (wide)
        pixels = stbi_load_16_from_callbacks(&callbacks, &src, w, h,
                                             channels, decoded);
    else
        pixels = stbi_load_from_callbacks(&callbacks, &src, w, h, channels,
                                          decoded);
    stb_limit_allocation(0);
    size_t n = pixels ? (size_t)*w * (size_t)*h : 0;
    int swapped = wide && pnm16_swapped();
    if (pixels && want == 1 && (decoded > 1 || wide))
        gray_in_place(pixels, n, decoded, wide ? 16 : 8, swapped);
    else if (pixels && want == 3 && (decoded != 3 || wide))
        pixels = rgb_of(pixels, n, decoded, wide ? 16 : 8, swapped);
    *past_end = src.past_end;
    return pixels;
}

uint8_t *stb_load_gray_tracked(const char *format, int bits,
                               const unsigned char *data, size_t len,
                               size_t budget, int *w, int *h, int *channels,
                               size_t *past_end)
{
    return stb_load_tracked(format, bits, 1, data, len, budget, w, h,
                            channels, past_end);
}

/* The reason stb_image gave, if it is the reader of this format's own:
 * it tries every format's test in turn, JPEG's first, and a later reader
 * that fails without a reason of its own leaves a test's "no SOI" or
 * "bad png sig"; a file no test accepts gets "unknown image type". */
const char *stb_own_reason(const char *format)
{
    const char *why = stbi_failure_reason();
    if (!why || strcmp(why, "unknown image type") == 0 ||
        (strcmp(why, "no SOI") == 0 && strcmp(format, "JPEG") != 0) ||
        (strcmp(why, "bad png sig") == 0 && strcmp(format, "PNG") != 0))
        return NULL;
    return why;
}
