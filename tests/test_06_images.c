/* test_06_images.c - image loading (the chapter's loader) and the batch
 * tool's inputs, on the files test_06_fixtures writes (CTest passes their
 * folder in FIXTURES_06): exact pixels for every lossless format and layout, one
 * clear message naming the file for every broken one, and every file cut
 * at every byte refused as truncated.
 */
#include "test.h"
#include "../06_image_preprocess/batch/batch_inputs.h"
#include "../06_image_preprocess/batch/reader_pool.h"
#include "../06_image_preprocess/image_io.h"
#include "../06_image_preprocess/reference.h"
#include "stb_image.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

enum { W = 37, H = 23 };  /* odd sizes on purpose */
/* As test_06_fixtures.c writes them. */
static const uint8_t PALETTE[4][3] = {
    {0, 0, 0}, {255, 0, 0}, {0, 200, 50}, {30, 60, 250}};
static char dir[512];

static uint8_t gray_at(int x, int y) { return (uint8_t)(x * 7 + y * 11); }
static uint8_t luma(int r, int g, int b)  /* stb_image's conversion */
{
    return (uint8_t)((r * 77 + g * 150 + b * 29) >> 8);
}

static const char *at(const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/* Loads name; returns 0 and fills img, or -1 with the message in err. */
static int load(const char *name, io_image *img, char *err, size_t len)
{
    return io_load_gray(at(name), IO_DEFAULT_MAX_PIXELS, img, err, len);
}

static void expect_refused(const char *name, const char *reason)
{
    io_image img;
    char err[1024] = "";
    EXPECT(load(name, &img, err, sizeof err) == -1);
    EXPECT(img.pixels == NULL);
    if (!strstr(err, at(name)) || !strstr(err, reason))
        fprintf(stderr, "%s: got \"%s\", expected \"%s\"\n", name, err,
                reason);
    EXPECT(strstr(err, at(name)) && strstr(err, reason));
    EXPECT(!strchr(err, '\n'));  /* one line */
}

/* Loads name and compares every pixel with expected(x, y). */
static void expect_pixels(const char *name, const char *described,
                          uint8_t (*expected)(int, int))
{
    io_image img;
    char err[1024] = "", text[96];
    EXPECT(load(name, &img, err, sizeof err) == 0);
    if (!img.pixels) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    EXPECT(img.width == W && img.height == H);
    io_describe(&img.info, text, sizeof text);
    if (strcmp(text, described) != 0)
        fprintf(stderr, "%s: described as \"%s\"\n", name, text);
    EXPECT(strcmp(text, described) == 0);
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            wrong += img.pixels[y * W + x] != expected(x, y);
    if (wrong)
        fprintf(stderr, "%s: %d pixels wrong\n", name, wrong);
    EXPECT(wrong == 0);
    io_image_free(&img);
}

static uint8_t rgb_at(int x, int y)
{
    return luma((uint8_t)(x * 6), (uint8_t)(y * 11), (uint8_t)(x + y));
}
static uint8_t gray16_at(int x, int y)  /* the top 8 of 16 bits */
{
    return (uint8_t)((uint16_t)(x * 1700 + y * 97) >> 8);
}
static uint8_t rgb16_at(int x, int y)  /* gray of 16 bits, its top 8 */
{
    unsigned r = (uint16_t)(x * 1700 + y * 97), g = x * 900, b = y * 2000;
    return (uint8_t)(((r * 77 + g * 150 + b * 29) >> 8) >> 8);
}
static uint8_t palette_at(int x, int y)
{
    const uint8_t *c = PALETTE[(x + y) % 4];
    return luma(c[0], c[1], c[2]);
}

static void test_loading(void)
{
    expect_pixels("gray.png", "PNG, 8-bit gray", gray_at);
    expect_pixels("rgb.png", "PNG, 8-bit RGB", rgb_at);
    expect_pixels("rgba.png", "PNG, 8-bit RGBA", rgb_at);  /* alpha dropped */
    expect_pixels("gray16.png", "PNG, 16-bit gray", gray16_at);
    expect_pixels("palette.png", "PNG, 8-bit palette", palette_at);
    expect_pixels("gray.bmp", "BMP, 8-bit RGB", gray_at);
    expect_pixels("top_down.bmp", "BMP, 8-bit RGB", gray_at);
    expect_pixels("rgba.bmp", "BMP, 8-bit RGBA", rgb_at);
    expect_pixels("gray.tga", "TGA, 8-bit gray", gray_at);
    expect_pixels("rgb.tga", "TGA, 8-bit RGB", rgb_at);
    expect_pixels("gray.pgm", "PGM, 8-bit gray", gray_at);
    expect_pixels("rgb.ppm", "PPM, 8-bit RGB", rgb_at);
    expect_pixels("gray16.pgm", "PGM, 16-bit gray", gray16_at);
    expect_pixels("rgb16.ppm", "PPM, 16-bit RGB", rgb16_at);
    expect_pixels("gray.gif", "GIF, 8-bit RGBA", gray_at);
    expect_pixels("gray.psd", "PSD, 8-bit RGBA", gray_at);
    expect_pixels("gray.pic", "PIC, 8-bit RGB", gray_at);
    io_image img;
    char err[1024];
    EXPECT(load("rgb.jpg", &img, err, sizeof err) == 0);  /* lossy */
    EXPECT(img.width == W && img.height == H && img.info.channels == 3);
    io_image_free(&img);
    EXPECT(load("gray.hdr", &img, err, sizeof err) == 0);  /* floats */
    EXPECT(img.width == W && img.height == H && img.info.channels == 3);
    io_image_free(&img);

    expect_refused("missing.png", "cannot open: No such file");
    expect_refused("folder.png", "is a folder, not an image file");
    expect_refused("empty.png", "file is empty");
    expect_refused("notimage.png", "not an image stb_image can read");
    static const char *const cut[][2] = {
        {"truncated.png", "truncated PNG: chunk IDAT"},
        {"truncated.jpg", "truncated JPEG: the file ends at byte 361"},
        {"truncated.bmp", "truncated BMP: the file ends at byte 1315"},
        {"truncated.gif", "truncated GIF: the file ends at byte 881"},
        {"truncated.tga", "truncated TGA: the file ends at byte 446"},
        {"truncated_raw.tga", "truncated TGA: the file ends at byte 1285, "
                              "the image at byte 2571 or later"},
        {"truncated.psd", "truncated PSD: the file ends at byte 1400"},
        {"truncated.hdr", "truncated HDR: the file ends at byte 1566, in "
                          "scanline 12 of 23"},
        {"truncated.pic", "truncated PIC: the file ends at byte 1330"},
        {"truncated.pgm", "truncated PGM: the file ends at byte 432, the "
                          "image at byte 864 or later"},
        {"truncated.ppm", "truncated PPM: the file ends at byte 1283, the "
                          "image at byte 2566 or later"}};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++)
        expect_refused(cut[i][0], cut[i][1]);
    expect_refused("zero_width.png", "PNG header says 0 x 23 pixels: width "
                                     "and height must be at least 1");
    expect_refused("corrupt.png", "cannot decode the PNG data: corrupt");
    expect_refused("huge.png", "header says 100000 x 100000 = 10000000000 "
                               "pixels, more than --max-pixels 268435456");
    EXPECT(io_load_gray(at("gray.png"), W * H - 1, &img, err,
                        sizeof err) == -1);
    EXPECT(strstr(err, "more than --max-pixels 850") != NULL);
    EXPECT(io_load_gray(at("gray.png"), W * H, &img, err, sizeof err) == 0);
    io_image_free(&img);

    /* Writing: complete files only, into folders that exist. */
    EXPECT(io_check_writable(at("new.png"), err, sizeof err) == 0);
    EXPECT(io_check_writable("relative.npy", err, sizeof err) == 0);
    EXPECT(io_check_writable(at("no/such/x.npy"), err, sizeof err) == -1);
    EXPECT(strstr(err, "does not exist") != NULL);
    EXPECT(io_check_writable(at("folder.png"), err, sizeof err) == -1);
    EXPECT(strstr(err, "it is a folder, not a file") != NULL);
    static uint8_t ramp[H * W];
    for (int i = 0; i < W * H; i++)
        ramp[i] = (uint8_t)i;
    EXPECT(io_write_png_gray(at("new.png"), ramp, W, H, err,
                             sizeof err) == 0);
    EXPECT(load("new.png", &img, err, sizeof err) == 0);
    EXPECT(img.pixels && memcmp(img.pixels, ramp, sizeof ramp) == 0);
    io_image_free(&img);
    EXPECT(io_write_png_gray(at("no/such/x.png"), ramp, W, H, err,
                             sizeof err) == -1);
    remove(at("new.png"));
}

/* Every good file decodes to what stbi_load_from_memory gives, the way
 * the files were read before cut files were looked for; but 16-bit PGM
 * and PPM files, which stb_image reads with their bytes swapped (and for
 * a PPM, up to 2.27, past the end of its buffer). */
static void test_same_as_stb(void)
{
    static const char *const names[] = {
        "gray.png", "rgb.png", "rgba.png", "gray16.png", "palette.png",
        "rgb.jpg", "gray.bmp", "rgba.bmp", "gray.tga", "rgb.tga",
        "gray.pgm", "rgb.ppm", "gray.gif", "gray.psd", "gray.pic",
        "gray.hdr"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        io_image img;
        char err[1024];
        size_t len = 0;
        unsigned char *data = io_read_file(at(names[i]), &len, err,
                                           sizeof err);
        int w = 0, h = 0, c;
        uint8_t *want = data ? stbi_load_from_memory(data, (int)len, &w, &h,
                                                     &c, 1)
                             : NULL;
        EXPECT(want && load(names[i], &img, err, sizeof err) == 0);
        int same = want && img.pixels && w == W && h == H &&
                   memcmp(img.pixels, want, W * H) == 0;
        if (!same)
            fprintf(stderr, "%s: not what stb_image gives\n", names[i]);
        EXPECT(same);
        if (want && img.pixels)
            io_image_free(&img);
        stbi_image_free(want);
        free(data);
    }
}

/* Each good file cut at every length from 1 byte to all but its last:
 * every cut is refused as truncated, whatever the format. Two cuts are
 * not: a TGA (no magic number) of 1 to 3 bytes is not an image we can
 * name, and a GIF without its last byte, the trailer, which stb_image
 * never reads, still gives every pixel of the whole file. */
static void test_every_cut(void)
{
    static const char *const names[][2] = {
        {"gray.png", "PNG"}, {"palette.png", "PNG"}, {"rgb.jpg", "JPEG"},
        {"gray.bmp", "BMP"}, {"rgba.bmp", "BMP"},    {"gray.gif", "GIF"},
        {"gray.tga", "TGA"}, {"rgb.tga", "TGA"},     {"gray.psd", "PSD"},
        {"gray.hdr", "HDR"}, {"gray.pic", "PIC"},    {"gray.pgm", "PGM"},
        {"rgb.ppm", "PPM"},  {"gray16.pgm", "PGM"},  {"rgb16.ppm", "PPM"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *name = names[i][0], *format = names[i][1];
        char err[1024], want[32];
        snprintf(want, sizeof want, "truncated %s: ", format);
        size_t len = 0;
        unsigned char *data = io_read_file(at(name), &len, err, sizeof err);
        io_image whole, img;
        EXPECT(data && io_decode_gray(name, data, len, IO_DEFAULT_MAX_PIXELS,
                                      &whole, err, sizeof err) == 0);
        size_t wrong = 0;
        for (size_t cut = 1; whole.pixels && cut < len; cut++) {
            int rc = io_decode_gray(name, data, cut, IO_DEFAULT_MAX_PIXELS,
                                    &img, err, sizeof err);
            int ok;
            if (strcmp(format, "GIF") == 0 && cut == len - 1)
                ok = rc == 0 && memcmp(img.pixels, whole.pixels, W * H) == 0;
            else if (strcmp(format, "TGA") == 0 && cut < 4)
                ok = rc == -1 && strstr(err, "not an image stb_image can");
            else  /* "P" starts PGM's magic and PPM's alike */
                ok = rc == -1 && (strstr(err, want) ||
                                  (cut == 1 && strstr(err, "truncated ")));
            if (rc == 0)
                io_image_free(&img);
            if (!ok && wrong++ < 3)
                fprintf(stderr, "%s cut to %zu bytes: %s\n", name, cut,
                        rc == 0 ? "accepted" : err);
        }
        EXPECT(wrong == 0);
        if (whole.pixels)
            io_image_free(&whole);
        free(data);
    }
}

/* stb_image 2.27 would loop forever on an HDR holding a run of length 0
 * (or cut inside its runs): the scanlines are walked first, also when the
 * header ends with a line that starts with a NUL byte, as stb_image
 * allows. */
static void test_hdr_zero_run(void)
{
    char err[1024];
    size_t len = 0;
    unsigned char *data = io_read_file(at("gray.hdr"), &len, err,
                                       sizeof err);
    EXPECT(data != NULL);
    for (int nul_line = 0; data && nul_line < 2; nul_line++) {
        /* The empty line that ends the header, then the size line, then
         * the first scanline: 4 bytes (2, 2, width) and a count. */
        size_t blank = 0;
        for (size_t i = 1; i < len && !blank; i++)
            if (data[i] == '\n' && data[i - 1] == '\n')
                blank = i;
        EXPECT(blank > 0);
        if (!blank)
            break;
        static unsigned char copy[8192];
        const char ender[] = "\0 also ends the header";
        size_t extra = nul_line ? sizeof ender - 1 : 0;
        memcpy(copy, data, blank);
        memcpy(copy + blank, ender, extra);
        memcpy(copy + blank + extra, data + blank, len - blank);
        unsigned char *size_end = memchr(copy + blank + extra + 1, '\n',
                                         len - blank - 1);
        EXPECT(size_end && size_end + 5 < copy + len + extra);
        if (!size_end)
            break;
        size_end[5] = 0;
        io_image img;
        EXPECT(io_decode_gray("zero.hdr", copy, len + extra,
                              IO_DEFAULT_MAX_PIXELS, &img, err,
                              sizeof err) == -1);
        EXPECT(strstr(err, "zero.hdr: corrupt HDR: a run of length 0 at "
                           "byte") != NULL);
    }
    free(data);
}

/* HDR pixels stored flat, four bytes each (a width under 8, or a
 * scanline that does not start as a run-length coded one, from which
 * stb_image 2.27 reads the whole image flat): a file that ends before its
 * last pixel, or in its size line, is refused before stb_image makes a
 * pixel of bytes it never wrote; a whole one loads. */
static void test_hdr_flat(void)
{
    static const char head[] = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n";
    unsigned char file[256];
    char err[1024];
    io_image img;
    size_t n = strlen(head);
    memcpy(file, head, n);
    n += (size_t)sprintf((char *)file + n, "-Y 2 +X 3\n");
    for (int i = 0; i < 24; i++)  /* 6 pixels: rgb 64 64 64, exponent */
        file[n + (size_t)i] = i % 4 == 3 ? 129 : 64;
    EXPECT(io_decode_gray("flat.hdr", file, n + 24, IO_DEFAULT_MAX_PIXELS,
                          &img, err, sizeof err) == 0);
    if (img.pixels) {
        EXPECT(img.width == 3 && img.height == 2);
        io_image_free(&img);
    }
    char want[128];
    snprintf(want, sizeof want, "flat.hdr: truncated HDR: the file ends at "
             "byte %zu, in scanline 2 of 2", n + 23);
    EXPECT(io_decode_gray("flat.hdr", file, n + 23, IO_DEFAULT_MAX_PIXELS,
                          &img, err, sizeof err) == -1 &&
           strcmp(err, want) == 0);
    snprintf(want, sizeof want, "flat.hdr: truncated HDR: the file ends at "
             "byte %zu, in its size line", n - 1);
    EXPECT(io_decode_gray("flat.hdr", file, n - 1, IO_DEFAULT_MAX_PIXELS,
                          &img, err, sizeof err) == -1 &&
           strcmp(err, want) == 0);
    /* 8 wide, so run-length coded, but its first scanline is not: 64
     * bytes of flat pixels are read, and 63 are there. */
    n = strlen(head);
    n += (size_t)sprintf((char *)file + n, "-Y 2 +X 8\n");
    for (int i = 0; i < 63; i++)
        file[n + (size_t)i] = i % 4 == 3 ? 129 : 64;
    snprintf(want, sizeof want, "flat8.hdr: truncated HDR: the file ends at "
             "byte %zu, in scanline 2 of 2", n + 63);
    EXPECT(io_decode_gray("flat8.hdr", file, n + 63, IO_DEFAULT_MAX_PIXELS,
                          &img, err, sizeof err) == -1 &&
           strcmp(err, want) == 0);
    if (strcmp(err, want) != 0)
        fprintf(stderr, "got \"%s\"\n", err);
}

/* A JPEG whose first Huffman table counts 255 more codes than it has:
 * refused before stb_image 2.27 writes the extra ones past its table. */
static void test_jpeg_huffman_overflow(void)
{
    char err[1024];
    size_t len = 0;
    unsigned char *data = io_read_file(at("rgb.jpg"), &len, err,
                                       sizeof err);
    size_t dht = 0;
    for (size_t i = 0; data && i + 21 < len && !dht; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xC4)
            dht = i;
    EXPECT(dht > 0);
    if (dht > 0) {
        data[dht + 4 + 16] = 255;  /* codes 16 bits long, after class/id */
        io_image img;
        EXPECT(io_decode_gray("huffman.jpg", data, len,
                              IO_DEFAULT_MAX_PIXELS, &img, err,
                              sizeof err) == -1);
        EXPECT(strstr(err, "huffman.jpg: corrupt JPEG: the Huffman table "
                           "at byte") && strstr(err, "more than 256"));
    }
    free(data);
}

/* The walks that keep hostile headers from stb_image 2.27 see what it
 * sees: a JPEG whose start marker follows 0xFF fill bytes is a JPEG, and
 * is walked (a good one loads as rgb.jpg does; one with a Huffman table
 * of 267 codes is refused); a Huffman segment that its tables do not
 * fill, by 1 to 16 bytes (stb_image reads the next table's counts past
 * it: here from the marker after it, 0xFF 0xE0, or zeros then that), is
 * refused; so are a DC table's difference of more than 15 bits, PGM
 * and PPM header numbers too large for its int, a scan that names a
 * Huffman table never defined, and a PNG chunk it would name with a
 * newline. */
static void test_hostile_headers(void)
{
    io_image fill, plain;
    char err[1024];
    EXPECT(load("fill.jpg", &fill, err, sizeof err) == 0);
    EXPECT(load("rgb.jpg", &plain, err, sizeof err) == 0);
    EXPECT(fill.pixels && plain.pixels &&
           strcmp(fill.info.format, "JPEG") == 0 &&
           memcmp(fill.pixels, plain.pixels, W * H) == 0);
    if (fill.pixels)
        io_image_free(&fill);
    if (plain.pixels)
        io_image_free(&plain);
    expect_refused("fill_huffman.jpg", "corrupt JPEG: the Huffman table at "
                                       "byte 178 has 267 codes, more than "
                                       "256");
    expect_refused("dht_tail.jpg", "corrupt JPEG: the Huffman tables at "
                                   "byte 6 do not fill their segment (19 "
                                   "bytes) exactly");
    expect_refused("wide.pgm", "PGM header's width at byte 3 is more than "
                               "16777216: too large to read");
    expect_refused("deep.ppm", "PPM header's maximum value at byte 7 is "
                               "more than 65535: too large to read");
    expect_refused("lowest.bmp", "BMP header says a height of -2147483648 "
                                 "pixels: too large to read");
    /* Its last number running to the file's end, which stbi_info reads
     * as 88 (8 bits) and the decode as 882 (16 bits). */
    EXPECT(io_decode_gray("end.pgm", (const unsigned char *)"P52\n3\t882",
                          9, IO_DEFAULT_MAX_PIXELS, &fill, err,
                          sizeof err) == -1);
    EXPECT(strstr(err, "end.pgm: truncated PGM: the file ends at byte 9, "
                       "in its header") != NULL);
    size_t len = 0;
    unsigned char *data = io_read_file(at("rgb.jpg"), &len, err, sizeof err);
    static unsigned char tail[1024];
    for (size_t extra = 1; data && extra <= 16; extra++) {
        /* SOI, a segment of one table of one code and `extra` zeros,
         * then the rest of rgb.jpg */
        size_t seg = 2 + 18 + extra, n = 0;
        memcpy(tail, data, 2);
        n = 2;
        tail[n++] = 0xFF;
        tail[n++] = 0xC4;
        tail[n++] = 0;
        tail[n++] = (unsigned char)seg;
        memset(tail + n, 0, seg - 2);
        tail[n + 1] = 1;  /* one code of 1 bit */
        n += seg - 2;
        memcpy(tail + n, data + 2, len - 2);
        io_image img;
        char want[128];
        snprintf(want, sizeof want, "tail.jpg: corrupt JPEG: the Huffman "
                 "tables at byte 6 do not fill their segment (%zu bytes) "
                 "exactly", seg - 2);
        EXPECT(io_decode_gray("tail.jpg", tail, n + len - 2,
                              IO_DEFAULT_MAX_PIXELS, &img, err,
                              sizeof err) == -1);
        if (!strstr(err, want))
            fprintf(stderr, "%zu bytes after the table: %s\n", extra, err);
        EXPECT(strstr(err, want) != NULL);
    }
    /* rgb.jpg's first table codes DC differences of 0 to 11 bits; one of
     * 16 made stb_image 2.26 read past its tables of 16 entries (2.27
     * refuses it as it decodes; the walk refuses it before). */
    size_t dht = 0;
    for (size_t i = 0; data && i + 40 < len && !dht; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xC4)
            dht = i;
    EXPECT(dht > 0 && data[dht + 4] == 0x00 && data[dht + 4 + 17 + 11] == 11);
    if (dht > 0) {
        data[dht + 4 + 17 + 11] = 16;
        io_image img;
        EXPECT(io_decode_gray("dc.jpg", data, len, IO_DEFAULT_MAX_PIXELS,
                              &img, err, sizeof err) == -1);
        EXPECT(strstr(err, "dc.jpg: corrupt JPEG: the DC Huffman table at "
                           "byte 177 codes a difference of 16 bits, more "
                           "than 15") != NULL);
    }
    free(data);

    /* A scan naming a DC table no DHT segment defined (rgb.jpg's tables
     * are 0 and 1): stb_image 2.27 would decode with whatever its memory
     * held there. */
    data = io_read_file(at("rgb.jpg"), &len, err, sizeof err);
    size_t sos = 0;
    for (size_t i = 0; data && i + 6 < len && !sos; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xDA)
            sos = i;
    EXPECT(sos > 0 && data[sos + 6] == 0x00);  /* component 1: DC 0, AC 0 */
    if (sos > 0) {
        data[sos + 6] = 0x20;
        io_image img;
        char want[160];
        snprintf(want, sizeof want, "scan.jpg: corrupt JPEG: the scan at "
                 "byte %zu uses DC Huffman table 2, which no segment before "
                 "it defines", sos);
        EXPECT(io_decode_gray("scan.jpg", data, len, IO_DEFAULT_MAX_PIXELS,
                              &img, err, sizeof err) == -1);
        if (!strstr(err, want))
            fprintf(stderr, "got \"%s\"\n", err);
        EXPECT(strstr(err, want) != NULL);
    }
    free(data);

    /* A critical chunk stb_image does not know, its type holding a
     * newline: refused by the chunk walk, on one line. */
    data = io_read_file(at("gray.png"), &len, err, sizeof err);
    EXPECT(data && len > 41 && memcmp(data + 37, "IDAT", 4) == 0);
    if (data && len > 41) {
        memcpy(data + 37, "I\nAT", 4);
        io_image img;
        EXPECT(io_decode_gray("chunk.png", data, len, IO_DEFAULT_MAX_PIXELS,
                              &img, err, sizeof err) == -1);
        EXPECT(strstr(err, "chunk.png: unsupported PNG: critical chunk I?AT "
                           "at byte 33 is not one stb_image knows") &&
               !strchr(err, '\n'));
    }
    free(data);
}

/* A 104-byte PIC header claiming 20000 x 20000 pixels, with no packets
 * (so stbi_info refuses it): refused without stb_image taking the 1.6 GB
 * its reader would allocate for the pixels before finding the file cut. */
static void test_hostile_header(void)
{
    static unsigned char pic[104] = {0x53, 0x80, 0xF6, 0x34};
    memcpy(pic + 88, "PICT", 4);
    pic[92] = pic[94] = 20000 >> 8;  /* width and height, big-endian */
    pic[93] = pic[95] = 20000 & 0xFF;
    io_image img;
    char err[1024];
    EXPECT(io_decode_gray("big.pic", pic, sizeof pic, IO_DEFAULT_MAX_PIXELS,
                          &img, err, sizeof err) == -1);
    EXPECT(strstr(err, "big.pic: cannot read the PIC header") != NULL);
    struct rusage usage;
    EXPECT(getrusage(RUSAGE_SELF, &usage) == 0);
    if (usage.ru_maxrss > 512 * 1024)
        fprintf(stderr, "peak memory %ld KiB\n", usage.ru_maxrss);
    EXPECT(usage.ru_maxrss < 512 * 1024);  /* KiB */
}

/* A batch's source of the given mode, channels 1. */
static batch_source source(path_list *list, const tf_spec *spec)
{
    batch_source src;
    memset(&src, 0, sizeof src);
    src.list = list;
    src.channels = spec->channels;
    src.spec = spec;
    src.max_pixels = IO_DEFAULT_MAX_PIXELS;
    return src;
}

/* The files are checked on several threads: the kept files, their
 * sizes, what is skipped and the first bad file (the reason a run stops)
 * are those of one thread, in the list's order, whatever the number. */
static void test_check_threads(void)
{
    enum { N = 61 };
    static const char *const names[] = {"gray.png", "rgb.jpg", "rgb.png",
                                        "gray.bmp"};
    tf_spec spec = {.mode = TF_RESIZE, .out_w = 8, .out_h = 5,
                    .channels = 1};
    size_t width[2][N], kept[2], skipped[2][2], bytes;
    char first_err[2][1024];
    for (int run = 0; run < 2; run++) {
        for (int skip_bad = 1; skip_bad >= 0; skip_bad--) {
            path_list list = {.paths = calloc(N, sizeof(char *)),
                              .count = N};
            for (size_t i = 0; i < N; i++)
                list.paths[i] = strdup(
                    i == 7 ? at("truncated.png") : i == 23 ? at("missing.png")
                    : i == 41 ? at("empty.png") : at(names[i % 4]));
            batch_source src = source(&list, &spec);
            src.threads = run == 0 ? 1 : 5;
            char err[1024] = "";
            int rc = inputs_check(&src, skip_bad, 0, &skipped[run][skip_bad],
                                  &bytes, err, sizeof err);
            if (skip_bad) {
                EXPECT(rc == 0 && list.count == N - 3);
                /* each kept file's size as read, and the JPEGs among them
                 * (rgb.jpg: the indices 1 mod 4 but 41, now empty.png) */
                size_t jpegs = 0, sizes_ok = 1;
                for (size_t i = 0; i < list.count && i < N; i++) {
                    struct stat st;
                    sizes_ok &= stat(list.paths[i], &st) == 0 &&
                                (size_t)st.st_size == src.bytes[i];
                    jpegs += strstr(list.paths[i], "rgb.jpg") != NULL;
                }
                EXPECT(sizes_ok && jpegs == 14 && src.jpegs == jpegs);
                kept[run] = list.count;
                for (size_t i = 0; i < list.count && i < N; i++)
                    width[run][i] = src.width[i];
                /* the files after a skipped one moved up, in order */
                EXPECT(strstr(list.paths[7], names[8 % 4]) &&
                       strstr(list.paths[N - 4], names[(N - 1) % 4]));
            } else {
                EXPECT(rc == -1 && strstr(err, "truncated.png: truncated "
                                                "PNG"));
                snprintf(first_err[run], sizeof first_err[run], "%s", err);
            }
            inputs_free(&src);
            path_list_free(&list);
        }
    }
    EXPECT(kept[0] == kept[1] && skipped[0][1] == 3 && skipped[1][1] == 3 &&
           memcmp(width[0], width[1], kept[0] * sizeof width[0][0]) == 0 &&
           strcmp(first_err[0], first_err[1]) == 0);
}

static void test_batch_inputs(void)
{
    char err[1024];
    path_list list;
    char *one[1] = {(char *)at("batch")};
    EXPECT(inputs_is_directory(one[0]) && !inputs_is_directory(at("list.txt")));
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    EXPECT(list.count == 4);  /* notes.txt is not an image file */
    EXPECT(list.count == 4 && strstr(list.paths[0], "/a.png") &&
           strstr(list.paths[2], "/c.jpg") && strstr(list.paths[3], "/d.bmp"));
    tf_spec same = {.mode = TF_SAME, .channels = 1};
    batch_source src = source(&list, &same);
    size_t skipped = 9, bytes = 0;
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) == 0);
    EXPECT(src.same_width == W && src.same_height == H && skipped == 0 &&
           bytes > 0 && src.width[3] == W && src.height[3] == H);
    static uint8_t dst[W * H], rgb[3 * W * H];
    EXPECT(inputs_decode(&src, 0, dst, err, sizeof err) == 0);
    EXPECT(dst[W + 2] == gray_at(2, 1));
    /* RGB planes: a gray file's level in each of R, G, B. */
    tf_spec color = {.mode = TF_SAME, .channels = 3};
    batch_source src3 = src;
    src3.channels = 3;
    src3.spec = &color;
    EXPECT(inputs_decode(&src3, 0, rgb, err, sizeof err) == 0);
    EXPECT(rgb[W + 2] == gray_at(2, 1) &&
           rgb[W * H + W + 2] == gray_at(2, 1) &&
           rgb[2 * W * H + W + 2] == gray_at(2, 1));
    inputs_free(&src);
    path_list_free(&list);

    /* One file is a batch of one. */
    one[0] = (char *)at("gray.png");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    EXPECT(list.count == 1 && strstr(list.paths[0], "gray.png"));
    path_list_free(&list);

    one[0] = (char *)at("emptydir");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == -1);
    EXPECT(strstr(err, "emptydir: no image files") != NULL);
    EXPECT(inputs_collect(NULL, 0, at("list.txt"), &list, err,
                          sizeof err) == 0);
    EXPECT(list.count == 4 && strstr(list.paths[2], "gray16.png") &&
           !strchr(list.paths[2], '\r'));
    path_list_free(&list);
    EXPECT(inputs_collect(NULL, 0, at("nolist.txt"), &list, err,
                          sizeof err) == -1);
    /* Not one path per line: refused, not cut at the NUL or split. */
    EXPECT(inputs_collect(NULL, 0, at("list_nul.txt"), &list, err,
                          sizeof err) == -1);
    EXPECT(strstr(err, "list_nul.txt: line 2 holds a NUL byte") != NULL);
    EXPECT(inputs_collect(NULL, 0, at("list_long.txt"), &list, err,
                          sizeof err) == -1);
    EXPECT(strstr(err, "list_long.txt: line 1 is longer than a path can "
                       "be (4095 bytes)") != NULL);

    /* Two sizes: an error that suggests a resize, or each its own size
     * (the GPU resizes them). */
    one[0] = (char *)at("batch_mixed");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    src = source(&list, &same);
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           -1);
    EXPECT(strstr(err, "b.png: 20 x 10, but the batch is 37 x 23") &&
           strstr(err, "--resize"));
    inputs_free(&src);
    tf_spec resized = {.mode = TF_RESIZE, .out_w = 8, .out_h = 5,
                       .channels = 1};
    src = source(&list, &resized);
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    EXPECT(list.count == 2 && src.width[1] == 20 && src.height[1] == 10);
    uint8_t small[20 * 10];
    EXPECT(inputs_decode(&src, 1, small, err, sizeof err) == 0);
    EXPECT(small[2 * 20 + 3] == gray_at(3, 2));
    inputs_free(&src);
    /* The short side scaled to 8, the centre 8 x 8: both placed. */
    tf_spec crop = {.mode = TF_SHORT_CROP, .out_w = 8, .out_h = 8,
                    .short_side = 8, .channels = 1};
    src = source(&list, &crop);
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    inputs_free(&src);
    path_list_free(&list);

    /* A cut-off file: the batch stops, or with skip_bad goes on without. */
    one[0] = (char *)at("batch_bad");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    src = source(&list, &same);
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           -1);
    EXPECT(strstr(err, "batch_bad/b.png: truncated PNG") != NULL);
    inputs_free(&src);
    EXPECT(inputs_check(&src, 1, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    EXPECT(skipped == 1 && list.count == 2 && strstr(list.paths[1], "c.png"));
    inputs_free(&src);
    path_list_free(&list);

    /* A BMP cut short has a whole header: it passes the check, and the
     * batch finds it when the decode threads reach it. */
    one[0] = (char *)at("batch_cut");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    src = source(&list, &same);
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    EXPECT(list.count == 3);
    EXPECT(inputs_decode(&src, 0, dst, err, sizeof err) == 0);
    EXPECT(inputs_decode(&src, 1, dst, err, sizeof err) == -1);
    EXPECT(strstr(err, "batch_cut/b.bmp: truncated BMP") != NULL);
    inputs_free(&src);
    path_list_free(&list);

    /* Whole chunks but corrupt data: it passes the check, so the batch
     * finds it only when the decode threads reach it. */
    one[0] = (char *)at("batch_corrupt");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    src = source(&list, &same);
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    EXPECT(inputs_decode(&src, 0, dst, err, sizeof err) == 0);
    EXPECT(inputs_decode(&src, 1, dst, err, sizeof err) == -1);
    EXPECT(strstr(err, "batch_corrupt/b.png: cannot decode") != NULL);
    inputs_free(&src);
    path_list_free(&list);
}

/* The batch's reader threads decoding real files (each file `times` over,
 * each item into its own buffer, stb_image in several threads at once:
 * run under TSan with SANITIZE=thread): every one gives what one thread
 * gives, and a file cut short is refused each time with its reason, each
 * thread's decodes bounded by its own allocation limit. */
typedef struct {
    const batch_source *src;
    size_t files;
    uint8_t (*out)[W * H];
    int rc[64];
    char why[64][256];
} threaded;

static void decode_item(void *ctx, size_t item, int thread)
{
    threaded *t = ctx;
    (void)thread;
    t->rc[item] = inputs_decode(t->src, item % t->files, t->out[item],
                                t->why[item], sizeof t->why[item]);
}

static void threaded_decode(const char *folder, int times)
{
    char err[1024];
    path_list list;
    char *one[1] = {(char *)at(folder)};
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    tf_spec same = {.mode = TF_SAME, .channels = 1};
    batch_source src = source(&list, &same);
    size_t skipped, bytes;
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err, sizeof err) ==
           0);
    static uint8_t out[64][W * H], alone[W * H];
    static threaded t;
    size_t items = (size_t)times * list.count;
    EXPECT(items <= 64);
    memset(&t, 0, sizeof t);
    t.src = &src;
    t.files = list.count;
    t.out = out;
    reader_pool *pool = rp_start(3);
    EXPECT(pool != NULL);
    if (pool && items <= 64) {
        rp_post(pool, decode_item, &t, items);
        rp_wait(pool);
        for (size_t i = 0; i < items; i++) {
            int cut = strstr(list.paths[i % list.count], "/b.bmp") != NULL;
            if (cut)
                EXPECT(t.rc[i] == -1 &&
                       strstr(t.why[i], "b.bmp: truncated BMP"));
            else
                EXPECT(t.rc[i] == 0 &&
                       inputs_decode(&src, i % list.count, alone, err,
                                     sizeof err) == 0 &&
                       memcmp(out[i], alone, sizeof alone) == 0);
        }
    }
    if (pool)
        rp_stop(pool);
    inputs_free(&src);
    path_list_free(&list);
}

int main(int argc, char **argv)
{
    const char *from = argc > 1 ? argv[1] : getenv("FIXTURES_06");
    if (!from) {
        printf("no fixtures: run through CTest, or give the folder "
               "test_06_fixtures --write made\n");
        return 77;
    }
    snprintf(dir, sizeof dir, "%s", from);
    test_loading();
    test_same_as_stb();
    test_every_cut();
    test_hdr_zero_run();
    test_hdr_flat();
    test_hostile_header();
    test_jpeg_huffman_overflow();
    test_hostile_headers();
    test_batch_inputs();
    test_check_threads();
    threaded_decode("batch", 3);
    threaded_decode("batch_cut", 4);
    return test_summary();
}
