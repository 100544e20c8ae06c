/* test_06_fixtures.c - the image files 06_image_preprocess is tested on:
 * good ones in every format stb_image reads (PNG, JPEG, BMP, GIF, TGA,
 * PSD, HDR, PIC, PGM/PPM) and several layouts (8 and 16 bits, gray, RGB,
 * RGBA, palette), and broken ones (empty, not an image, cut off in every
 * format, a header claiming 100000 x 100000 pixels or 0 x 23, headers
 * that stb_image 2.27 would read out of bounds or overflow on), plus
 * folders for batches.
 *
 *   test_06_fixtures --write DIR   write them into DIR (the CTest fixture
 *                                  that the chapter's file tests require)
 *   test_06_fixtures               write them into a temporary folder,
 *                                  check they are there, remove them
 */
#include "test.h"
#include "stb_image_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { W = 37, H = 23 };  /* odd sizes on purpose */
static const uint8_t PALETTE[4][3] = {
    {0, 0, 0}, {255, 0, 0}, {0, 200, 50}, {30, 60, 250}};
static char dir[512];
/* Each good file and its first half. */
static const char *const CUT[][2] = {
    {"gray.png", "truncated.png"},  {"rgb.jpg", "truncated.jpg"},
    {"gray.bmp", "truncated.bmp"},  {"gray.gif", "truncated.gif"},
    {"gray.tga", "truncated.tga"},  {"rgb.tga", "truncated_raw.tga"},
    {"gray.psd", "truncated.psd"},  {"gray.hdr", "truncated.hdr"},
    {"gray.pic", "truncated.pic"},  {"gray.pgm", "truncated.pgm"},
    {"rgb.ppm", "truncated.ppm"}};

static uint8_t gray_at(int x, int y) { return (uint8_t)(x * 7 + y * 11); }

static const char *at(const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/* A 37 x 23 RGB JPEG of the pattern of rgb.png, made once with
 * stbi_write_jpg(quality 50). It is stored rather than written at test
 * time because stb_image_write's JPEG encoder shifts a signed int past
 * its range, which the sanitizer build (SANITIZE=1) stops on. */
static const char RGB_JPEG[] =
    "\xff\xd8\xff\xe0\x00\x10\x4a\x46\x49\x46\x00\x01\x01\x00\x00\x01\x00\x01"
    "\x00\x00\xff\xdb\x00\x84\x00\x10\x0b\x0c\x0e\x0c\x0a\x10\x0e\x0d\x0e\x12"
    "\x11\x10\x13\x18\x28\x1a\x18\x16\x16\x18\x31\x23\x25\x1d\x28\x3a\x33\x3d"
    "\x3c\x39\x33\x38\x37\x40\x48\x5c\x4e\x40\x44\x57\x45\x37\x38\x50\x6d\x51"
    "\x57\x5f\x62\x67\x68\x67\x3e\x4d\x71\x79\x70\x64\x78\x5c\x65\x67\x63\x01"
    "\x11\x12\x12\x18\x15\x18\x2f\x1a\x1a\x2f\x63\x42\x38\x42\x63\x63\x63\x63"
    "\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63"
    "\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63"
    "\x63\x63\x63\x63\x63\x63\x63\x63\x63\x63\xff\xc0\x00\x11\x08\x00\x17\x00"
    "\x25\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xff\xc4\x01\xa2\x00\x00\x01"
    "\x05\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03"
    "\x04\x05\x06\x07\x08\x09\x0a\x0b\x10\x00\x02\x01\x03\x03\x02\x04\x03\x05"
    "\x05\x04\x04\x00\x00\x01\x7d\x01\x02\x03\x00\x04\x11\x05\x12\x21\x31\x41"
    "\x06\x13\x51\x61\x07\x22\x71\x14\x32\x81\x91\xa1\x08\x23\x42\xb1\xc1\x15"
    "\x52\xd1\xf0\x24\x33\x62\x72\x82\x09\x0a\x16\x17\x18\x19\x1a\x25\x26\x27"
    "\x28\x29\x2a\x34\x35\x36\x37\x38\x39\x3a\x43\x44\x45\x46\x47\x48\x49\x4a"
    "\x53\x54\x55\x56\x57\x58\x59\x5a\x63\x64\x65\x66\x67\x68\x69\x6a\x73\x74"
    "\x75\x76\x77\x78\x79\x7a\x83\x84\x85\x86\x87\x88\x89\x8a\x92\x93\x94\x95"
    "\x96\x97\x98\x99\x9a\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xb2\xb3\xb4\xb5"
    "\xb6\xb7\xb8\xb9\xba\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xd2\xd3\xd4\xd5"
    "\xd6\xd7\xd8\xd9\xda\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xf1\xf2\xf3"
    "\xf4\xf5\xf6\xf7\xf8\xf9\xfa\x01\x00\x03\x01\x01\x01\x01\x01\x01\x01\x01"
    "\x01\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b"
    "\x11\x00\x02\x01\x02\x04\x04\x03\x04\x07\x05\x04\x04\x00\x01\x02\x77\x00"
    "\x01\x02\x03\x11\x04\x05\x21\x31\x06\x12\x41\x51\x07\x61\x71\x13\x22\x32"
    "\x81\x08\x14\x42\x91\xa1\xb1\xc1\x09\x23\x33\x52\xf0\x15\x62\x72\xd1\x0a"
    "\x16\x24\x34\xe1\x25\xf1\x17\x18\x19\x1a\x26\x27\x28\x29\x2a\x35\x36\x37"
    "\x38\x39\x3a\x43\x44\x45\x46\x47\x48\x49\x4a\x53\x54\x55\x56\x57\x58\x59"
    "\x5a\x63\x64\x65\x66\x67\x68\x69\x6a\x73\x74\x75\x76\x77\x78\x79\x7a\x82"
    "\x83\x84\x85\x86\x87\x88\x89\x8a\x92\x93\x94\x95\x96\x97\x98\x99\x9a\xa2"
    "\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xc2"
    "\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xe2"
    "\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xff"
    "\xda\x00\x0c\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00\xe3\x92\xd7\xda\xa7"
    "\x4b\x5f\x6a\xd3\x4b\x5f\x6a\xb0\x96\xbe\xd5\xc4\xeb\x18\xd1\xc4\x99\x89"
    "\x6b\xed\x56\x12\xd7\xda\xb4\x92\xd7\xda\xac\x25\xaf\xb5\x66\xeb\x1e\xb5"
    "\x1c\x49\x98\xb6\xbc\x74\xa5\xfb\x2f\xb5\x6c\xad\xaf\x1d\x29\x7e\xcb\xed"
    "\x51\xed\x8f\x41\x62\x74\x22\x4b\x61\x56\x12\xd8\x52\xa5\x4e\x95\xc6\xe4"
    "\xcf\xcf\x28\xce\x42\x25\xb0\xab\x09\x6c\x29\x52\xac\x25\x66\xe4\xcf\x5a"
    "\x8c\xe4\x35\x6d\x86\x29\x7e\xcc\x2a\x75\xe9\x4e\xa8\xe6\x67\xa0\xa7\x2b"
    "\x1f\xff\xd9";

/* stb_image_write's deflate, public but not declared in its header. */
unsigned char *stbi_zlib_compress(unsigned char *data, int data_len,
                                  int *out_len, int quality);

static void write_bytes(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(at(name), "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", at(name));
        exit(1);
    }
}

static uint32_t crc32_of(const unsigned char *p, size_t n, uint32_t crc)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc >> 1 ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

static void put_chunk(FILE *f, const char *type, const unsigned char *data,
                      uint32_t len)
{
    unsigned char head[8] = {(unsigned char)(len >> 24),
                             (unsigned char)(len >> 16),
                             (unsigned char)(len >> 8), (unsigned char)len};
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_of(head + 4, 4, 0);
    crc = crc32_of(data, len, crc);
    unsigned char tail[4] = {(unsigned char)(crc >> 24),
                             (unsigned char)(crc >> 16),
                             (unsigned char)(crc >> 8), (unsigned char)crc};
    fwrite(head, 1, 8, f);
    if (len > 0)
        fwrite(data, 1, len, f);
    fwrite(tail, 1, 4, f);
}

/* A PNG stb_image_write cannot make (16-bit, palette, a huge header, a
 * corrupt one): raw holds the scanlines, each led by filter byte 0, or
 * with raw_len 0 the IDAT is 8 bytes of a deflate stream that uses the
 * reserved block type: every chunk is whole, but no pixel decodes. */
static void write_raw_png(const char *name, uint32_t w, uint32_t h,
                          int bit_depth, int colour_type,
                          const unsigned char *raw, size_t raw_len)
{
    static unsigned char bad_deflate[8] = {0x78, 0x01, 0xFF, 0xFF, 0xFF,
                                           0xFF, 0xFF, 0xFF};
    FILE *f = fopen(at(name), "wb");
    unsigned char ihdr[13] = {
        (unsigned char)(w >> 24), (unsigned char)(w >> 16),
        (unsigned char)(w >> 8), (unsigned char)w, (unsigned char)(h >> 24),
        (unsigned char)(h >> 16), (unsigned char)(h >> 8), (unsigned char)h,
        (unsigned char)bit_depth, (unsigned char)colour_type, 0, 0, 0};
    int zlen = (int)sizeof bad_deflate;
    unsigned char *z = raw_len == 0 ? bad_deflate
                                    : stbi_zlib_compress((unsigned char *)raw,
                                                         (int)raw_len, &zlen,
                                                         8);
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    put_chunk(f, "IHDR", ihdr, 13);
    if (colour_type == 3)
        put_chunk(f, "PLTE", &PALETTE[0][0], sizeof PALETTE);
    put_chunk(f, "IDAT", z, (uint32_t)zlen);
    put_chunk(f, "IEND", NULL, 0);
    fclose(f);
    if (z != bad_deflate)
        free(z);
}

static void put16be(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}
static void put32be(unsigned char *p, unsigned v)
{
    put16be(p, v >> 16);
    put16be(p + 2, v & 0xFFFF);
}

/* A GIF of gray pixels (W x H) with a 256-level gray palette. Its LZW data
 * codes every pixel as a literal of 9 bits and clears the table every 200
 * pixels, before the code width would grow: larger than real LZW, decoded
 * the same way, and short enough to write by hand. */
static void write_gif(const char *name, const uint8_t *gray)
{
    static unsigned char gif[8192], lzw[4096];
    size_t n = 0, bytes = 0;
    uint32_t bits = 0;
    int held = 0;
#define CODE(c) do { bits |= (uint32_t)(c) << held; held += 9;              \
        while (held >= 8) { lzw[bytes++] = (unsigned char)bits;              \
                            bits >>= 8; held -= 8; } } while (0)
    for (int i = 0; i < W * H; i++) {
        if (i % 200 == 0)
            CODE(256);  /* clear */
        CODE(gray[i]);
    }
    CODE(257);  /* end of information */
    if (held > 0)
        lzw[bytes++] = (unsigned char)bits;
#undef CODE
    memcpy(gif, "GIF89a", 6);
    n = 6;
    unsigned char screen[7] = {W, 0, H, 0, 0xF7, 0, 0};  /* 256 colours */
    memcpy(gif + n, screen, 7);
    n += 7;
    for (int i = 0; i < 256; i++, n += 3)
        gif[n] = gif[n + 1] = gif[n + 2] = (unsigned char)i;
    unsigned char image[11] = {',', 0, 0, 0, 0, W, 0, H, 0, 0, 8};
    memcpy(gif + n, image, 11);  /* descriptor; LZW code size 8 */
    n += 11;
    for (size_t at = 0; at < bytes; at += 255) {  /* sub-blocks */
        size_t part = bytes - at < 255 ? bytes - at : 255;
        gif[n++] = (unsigned char)part;
        memcpy(gif + n, lzw + at, part);
        n += part;
    }
    gif[n++] = 0;    /* end of the image's blocks */
    gif[n++] = ';';  /* trailer */
    write_bytes(name, gif, n);
}

/* A Photoshop file: RGB, 8 bits, each channel compressed with RLE
 * (PackBits), each row as one literal run; every channel is the gray
 * image. */
static void write_psd(const char *name, const uint8_t *gray)
{
    static unsigned char psd[8192];
    memcpy(psd, "8BPS\0\1\0\0\0\0\0\0", 12);  /* version 1, reserved */
    put16be(psd + 12, 3);                      /* channels */
    put32be(psd + 14, H);
    put32be(psd + 18, W);
    put16be(psd + 22, 8);                      /* bits per channel */
    put16be(psd + 24, 3);                      /* RGB colour mode */
    memset(psd + 26, 0, 12);  /* no mode data, resources, layers */
    put16be(psd + 38, 1);     /* RLE */
    size_t n = 40;
    for (int row = 0; row < 3 * H; row++, n += 2)
        put16be(psd + n, 1 + W);  /* each row: one literal run */
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < H; y++) {
            psd[n++] = W - 1;     /* W literal bytes follow */
            memcpy(psd + n, gray + y * W, W);
            n += W;
        }
    write_bytes(name, psd, n);
}

/* A Softimage PIC: a 104-byte header, one packet saying R, G and B come
 * uncompressed, then each pixel's three bytes (all the gray value). */
static void write_pic(const char *name, const uint8_t *gray)
{
    static unsigned char pic[104 + 4 + 3 * W * H];
    memset(pic, 0, 104);
    memcpy(pic, "\x53\x80\xF6\x34", 4);  /* magic; version and comment 0 */
    memcpy(pic + 88, "PICT", 4);
    put16be(pic + 92, W);
    put16be(pic + 94, H);  /* then ratio, fields and padding, all 0 */
    memcpy(pic + 104, "\0\x08\0\xE0", 4);  /* last packet, 8 bits, raw, RGB */
    for (int i = 0; i < W * H; i++)
        memset(pic + 108 + 3 * i, gray[i], 3);
    write_bytes(name, pic, sizeof pic);
}

/* A binary PGM (P5) or PPM (P6): a text header, then the samples, 1 or 2
 * bytes each (big-endian when the maximum value is over 255). */
static void write_pnm(const char *name, const char *magic, int maxval,
                      const unsigned char *samples, size_t sample_bytes)
{
    static unsigned char pnm[64 + 4 * 3 * W * H];
    int head = snprintf((char *)pnm, 64, "%s\n%d %d\n%d\n", magic, W, H,
                        maxval);
    memcpy(pnm + head, samples, sample_bytes);
    write_bytes(name, pnm, (size_t)head + sample_bytes);
}

/* Where the first Huffman table segment (0xFF 0xC4) of RGB_JPEG is. */
static size_t first_dht(void)
{
    size_t i = 0;
    while (RGB_JPEG[i] != '\xff' || RGB_JPEG[i + 1] != '\xc4')
        i++;
    return i;
}

/* Files that stb_image 2.27 reads out of bounds, or overflows an int on,
 * unless the loader's checks stop them first (image_format.h):
 * fill.jpg is rgb.jpg with a 0xFF fill byte before its start marker,
 * which stb_image skips as before any marker (a good file);
 * fill_huffman.jpg is that with its first Huffman table counting 255
 * codes of 16 bits more than it has; dht_tail.jpg has a Huffman segment
 * one byte longer than its one table, so stb_image reads the next
 * table's counts from the marker after it (0xFF, 0xE0: 479 codes); a
 * PGM and a PPM with 40 digits of width or of maximum value. */
static void write_hostile(void)
{
    static unsigned char jpeg[1024];
    size_t n = sizeof RGB_JPEG - 1, dht = first_dht();
    jpeg[0] = 0xFF;
    memcpy(jpeg + 1, RGB_JPEG, n);
    write_bytes("fill.jpg", jpeg, n + 1);
    jpeg[1 + dht + 4 + 16] = 255;  /* after marker, length, class/id */
    write_bytes("fill_huffman.jpg", jpeg, n + 1);
    static const unsigned char tail[] = {
        0xFF, 0xC4, 0x00, 0x15,  /* 19 bytes: a table of 18 and one more */
        0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 1 code */
        0x00,                    /* its symbol */
        0x00};                   /* the next table's class and id */
    memcpy(jpeg, RGB_JPEG, 2);
    memcpy(jpeg + 2, tail, sizeof tail);
    memcpy(jpeg + 2 + sizeof tail, RGB_JPEG + 2, n - 2);
    write_bytes("dht_tail.jpg", jpeg, n + sizeof tail);
    const char wide[] = "P5\n1234567890123456789012345678901234567890 1\n"
                        "255\n\x80";
    write_bytes("wide.pgm", wide, sizeof wide - 1);
    const char deep[] = "P6 1 1\n9999999999999999999999999999999999999999\n"
                        "\x80\x80\x80";
    write_bytes("deep.ppm", deep, sizeof deep - 1);
    /* A good PGM one side of which is more than the batch tool takes. */
    static char side[15 + 40000] = "P5 40000 1\n255\n";
    memset(side + 15, 0x80, 40000);
    write_bytes("side_40000.pgm", side, sizeof side);
}

/* A 24-bit BMP of gray, rows stored top first, which its header says with
 * a negative height (stb_image_write stores them bottom first); or with
 * a height of -2^31, the one stb_image 2.27 overflows an int on. */
static void write_bmp_top_down(const char *name, const uint8_t *gray,
                               int lowest)
{
    enum { ROW = (3 * W + 3) / 4 * 4 };
    static unsigned char bmp[54 + ROW * H];
    memset(bmp, 0, sizeof bmp);
    uint32_t fields[13] = {sizeof bmp, 0, 54, 40, W,
                           lowest ? 0x80000000u : (uint32_t)-H,
                           1 | 24 << 16, 0, ROW * H, 0, 0, 0, 0};
    bmp[0] = 'B';
    bmp[1] = 'M';
    for (int i = 0; i < 13; i++)  /* little-endian, from byte 2 */
        for (int k = 0; k < 4; k++)
            bmp[2 + 4 * i + k] = (unsigned char)(fields[i] >> 8 * k);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            memset(bmp + 54 + y * ROW + 3 * x, gray[y * W + x], 3);
    write_bytes(name, bmp, sizeof bmp);
}

/* The first half of a file, as an interrupted download leaves it. */
static void write_first_half(const char *from, const char *to)
{
    static unsigned char buf[1 << 16];
    FILE *f = fopen(at(from), "rb");
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    write_bytes(to, buf, n / 2);
}

static void write_fixtures(void)
{
    static uint8_t gray[H][W], rgb[H][W][3], rgba[H][W][4];
    static unsigned char raw16[H * (1 + 2 * W)], raw_palette[H * (1 + W)];
    static unsigned char gray16be[H][W][2], rgb16be[H][W][3][2];
    static float linear[H][W];
    for (int y = 0; y < H; y++) {
        raw16[y * (1 + 2 * W)] = 0;
        raw_palette[y * (1 + W)] = 0;
        for (int x = 0; x < W; x++) {
            gray[y][x] = gray_at(x, y);
            uint8_t c[4] = {(uint8_t)(x * 6), (uint8_t)(y * 11),
                            (uint8_t)(x + y), (uint8_t)(x * 5)};
            memcpy(rgb[y][x], c, 3);
            memcpy(rgba[y][x], c, 4);
            uint16_t v16 = (uint16_t)(x * 1700 + y * 97);
            raw16[y * (1 + 2 * W) + 1 + 2 * x] = (unsigned char)(v16 >> 8);
            raw16[y * (1 + 2 * W) + 2 + 2 * x] = (unsigned char)v16;
            gray16be[y][x][0] = (unsigned char)(v16 >> 8);
            gray16be[y][x][1] = (unsigned char)v16;
            uint16_t c16[3] = {v16, (uint16_t)(x * 900), (uint16_t)(y * 2000)};
            for (int k = 0; k < 3; k++) {
                rgb16be[y][x][k][0] = (unsigned char)(c16[k] >> 8);
                rgb16be[y][x][k][1] = (unsigned char)c16[k];
            }
            linear[y][x] = gray[y][x] / 255.0f;
            raw_palette[y * (1 + W) + 1 + x] = (unsigned char)((x + y) % 4);
        }
    }
    stbi_write_png(at("gray.png"), W, H, 1, gray, W);
    stbi_write_png(at("rgb.png"), W, H, 3, rgb, 3 * W);
    stbi_write_png(at("rgba.png"), W, H, 4, rgba, 4 * W);
    write_bytes("rgb.jpg", RGB_JPEG, sizeof RGB_JPEG - 1);
    stbi_write_bmp(at("gray.bmp"), W, H, 1, gray);
    stbi_write_bmp(at("rgba.bmp"), W, H, 4, rgba);  /* a V4 header */
    stbi_write_tga(at("gray.tga"), W, H, 1, gray);   /* RLE */
    stbi_write_tga_with_rle = 0;
    stbi_write_tga(at("rgb.tga"), W, H, 3, rgb);
    stbi_write_tga_with_rle = 1;
    write_pnm("gray.pgm", "P5", 255, &gray[0][0], sizeof gray);
    write_pnm("rgb.ppm", "P6", 255, &rgb[0][0][0], sizeof rgb);
    write_pnm("gray16.pgm", "P5", 65535, &gray16be[0][0][0], sizeof gray16be);
    write_pnm("rgb16.ppm", "P6", 65535, &rgb16be[0][0][0][0], sizeof rgb16be);
    write_gif("gray.gif", &gray[0][0]);
    write_psd("gray.psd", &gray[0][0]);
    write_pic("gray.pic", &gray[0][0]);
    stbi_write_hdr(at("gray.hdr"), W, H, 1, &linear[0][0]);
    write_raw_png("gray16.png", W, H, 16, 0, raw16, sizeof raw16);
    write_raw_png("palette.png", W, H, 8, 3, raw_palette, sizeof raw_palette);
    write_raw_png("huge.png", 100000, 100000, 8, 0, raw_palette, 64);
    write_raw_png("corrupt.png", W, H, 8, 0, NULL, 0);
    write_raw_png("zero_width.png", 0, H, 8, 0, raw_palette, 64);

    /* Every format cut in half; test_06_images cuts them everywhere. */
    for (size_t i = 0; i < sizeof CUT / sizeof CUT[0]; i++)
        write_first_half(CUT[i][0], CUT[i][1]);
    write_hostile();
    write_bmp_top_down("top_down.bmp", &gray[0][0], 0);
    write_bmp_top_down("lowest.bmp", &gray[0][0], 1);
    write_bytes("empty.png", "", 0);
    const char text[] = "this is a text file, not an image\n";
    write_bytes("notimage.png", text, sizeof text - 1);
    mkdir(at("folder.png"), 0755);
    mkdir(at("emptydir"), 0755);

    /* Batches: four formats of one size (and a file that is ignored),
     * one with a second size, one with a cut-off file in the middle. */
    mkdir(at("batch"), 0755);
    stbi_write_png(at("batch/a.png"), W, H, 1, gray, W);
    stbi_write_png(at("batch/b.png"), W, H, 3, rgb, 3 * W);
    write_bytes("batch/c.jpg", RGB_JPEG, sizeof RGB_JPEG - 1);
    stbi_write_bmp(at("batch/d.bmp"), W, H, 1, gray);
    write_bytes("batch/notes.txt", text, sizeof text - 1);
    mkdir(at("batch_mixed"), 0755);
    stbi_write_png(at("batch_mixed/a.png"), W, H, 1, gray, W);
    stbi_write_png(at("batch_mixed/b.png"), 20, 10, 1, gray, W);
    mkdir(at("batch_bad"), 0755);
    stbi_write_png(at("batch_bad/a.png"), W, H, 1, gray, W);
    write_first_half("gray.png", "batch_bad/b.png");
    stbi_write_png(at("batch_bad/c.png"), W, H, 1, gray, W);
    /* A BMP cut short is found when decoded: in a batch, inside the
     * pipeline on the GPU side. */
    mkdir(at("batch_cut"), 0755);
    stbi_write_bmp(at("batch_cut/a.bmp"), W, H, 1, gray);
    write_first_half("gray.bmp", "batch_cut/b.bmp");
    stbi_write_bmp(at("batch_cut/c.bmp"), W, H, 1, gray);
    /* Found only when decoding, inside the pipeline on the GPU side. */
    mkdir(at("batch_corrupt"), 0755);
    stbi_write_png(at("batch_corrupt/a.png"), W, H, 1, gray, W);
    write_raw_png("batch_corrupt/b.png", W, H, 8, 0, NULL, 0);
    stbi_write_png(at("batch_corrupt/c.png"), W, H, 1, gray, W);
    /* Every file bad: refused by the probe before the GPU (all_bad),
     * or each found only when decoded (undecodable). */
    mkdir(at("batch_all_bad"), 0755);
    write_bytes("batch_all_bad/a.png", "", 0);
    write_bytes("batch_all_bad/b.png", text, sizeof text - 1);
    write_first_half("gray.png", "batch_all_bad/c.png");
    mkdir(at("batch_undecodable"), 0755);
    write_raw_png("batch_undecodable/a.png", W, H, 8, 0, NULL, 0);
    write_first_half("gray.bmp", "batch_undecodable/b.bmp");
    char list[4096];
    int len = snprintf(list, sizeof list, "%s\n%s\n\n%s\r\n%s\n",
                       at("gray.png"), at("rgb.jpg"), at("gray16.png"),
                       at("palette.png"));
    write_bytes("list.txt", list, (size_t)len);
    /* Lists that are not one path per line: a NUL byte in the second
     * line, and a first line longer than any path. */
    write_bytes("list_nul.txt", "gray.png\nrgb\0.jpg\n", 18);
    static char long_line[5002];
    memset(long_line, 'a', 5000);
    long_line[5000] = '\n';
    write_bytes("list_long.txt", long_line, 5001);
}

static int remove_fixtures(void)
{
    int ok = 1;
    const char *files[] = {
        "gray.png", "rgb.png", "rgba.png", "rgb.jpg", "gray.bmp",
        "rgba.bmp", "gray.tga", "rgb.tga", "gray.pgm", "rgb.ppm",
        "gray16.pgm", "rgb16.ppm", "gray.gif", "gray.psd", "gray.pic",
        "gray.hdr", "gray16.png", "palette.png", "huge.png", "corrupt.png",
        "zero_width.png", "fill.jpg", "fill_huffman.jpg", "dht_tail.jpg",
        "wide.pgm", "deep.ppm", "side_40000.pgm", "top_down.bmp",
        "lowest.bmp",
        "batch_corrupt/a.png", "batch_corrupt/b.png",
        "batch_corrupt/c.png", "batch_cut/a.bmp", "batch_cut/b.bmp",
        "batch_cut/c.bmp", "empty.png", "notimage.png",
        "list.txt", "list_nul.txt", "list_long.txt", "batch/a.png", "batch/b.png", "batch/c.jpg",
        "batch/d.bmp", "batch/notes.txt", "batch_mixed/a.png",
        "batch_mixed/b.png", "batch_bad/a.png", "batch_bad/b.png",
        "batch_bad/c.png", "batch_all_bad/a.png", "batch_all_bad/b.png",
        "batch_all_bad/c.png", "batch_undecodable/a.png",
        "batch_undecodable/b.bmp"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        ok &= remove(at(files[i])) == 0;
    for (size_t i = 0; i < sizeof CUT / sizeof CUT[0]; i++)
        ok &= remove(at(CUT[i][1])) == 0;
    const char *dirs[] = {"folder.png", "emptydir", "batch", "batch_mixed",
                          "batch_bad", "batch_corrupt", "batch_cut",
                          "batch_all_bad", "batch_undecodable", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        ok &= rmdir(at(dirs[i])) == 0;
    return ok;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        snprintf(dir, sizeof dir, "%s", argv[2]);
        mkdir(dir, 0755);
        write_fixtures();
        return 0;
    }
    snprintf(dir, sizeof dir, "/tmp/test_06_fixtures_XXXXXX");
    EXPECT(mkdtemp(dir) != NULL);
    write_fixtures();
    struct stat st;
    EXPECT(stat(at("rgb.jpg"), &st) == 0 && st.st_size == 723);
    EXPECT(stat(at("truncated.jpg"), &st) == 0 && st.st_size == 361);
    EXPECT(stat(at("empty.png"), &st) == 0 && st.st_size == 0);
    EXPECT(remove_fixtures());  /* every file listed there exists */
    return test_summary();
}
