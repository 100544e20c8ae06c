/* test_06_exif.c - EXIF orientation (batch/exif.c), read from JPEG bytes
 * made here: every value 1 to 8 in both byte orders, found after other
 * segments and tags, and 1 for everything that is not a valid one; then
 * the batch's check (inputs_check) on rgb.jpg (37 x 23, CTest gives the
 * fixtures' folder in FIXTURES_06) with an orientation of 6 put in: its
 * stored size kept for the decode, its upright size (23 x 37) for the
 * tensor, and neither turned without exif.
 *
 *   test_06_exif [FIXTURES_DIR]
 */
#include "test.h"
#include "../06_image_preprocess/batch/batch_inputs.h"
#include "../06_image_preprocess/batch/exif.h"
#include "../06_image_preprocess/image_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SOI, a JFIF APP0, an Exif APP1 whose first directory holds a tag 271
 * then tag 274 (type, count, value as given), then an SOS and EOI, in
 * little-endian ("II") or big-endian ("MM") TIFF. Returns the length. */
static size_t make_jpeg(unsigned char *d, int big, unsigned type,
                        unsigned long count, unsigned value)
{
    size_t n = 0;
    const unsigned char head[] = {0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F',
                                  'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0};
    memcpy(d, head, sizeof head);
    n = sizeof head;
    unsigned char t[64];
    size_t k = 0;
#define PUT16(v) (big ? (t[k++] = (unsigned char)((v) >> 8), \
                          t[k++] = (unsigned char)(v))       \
                      : (t[k++] = (unsigned char)(v),        \
                         t[k++] = (unsigned char)((v) >> 8)))
#define PUT32(v) (big ? (PUT16((v) >> 16), PUT16((v) & 0xFFFF)) \
                      : (PUT16((v) & 0xFFFF), PUT16((v) >> 16)))
    t[k++] = big ? 'M' : 'I';
    t[k++] = big ? 'M' : 'I';
    PUT16(42);
    PUT32(8UL);
    PUT16(2);                          /* two entries */
    PUT16(271); PUT16(2); PUT32(4UL); PUT32(0UL);   /* Make, ASCII */
    PUT16(274); PUT16(type); PUT32(count);
    PUT16(value); PUT16(0);
    PUT32(0UL);                        /* no next directory */
    size_t seg = 2 + 6 + k;
    d[n++] = 0xFF;
    d[n++] = 0xE1;
    d[n++] = (unsigned char)(seg >> 8);
    d[n++] = (unsigned char)seg;
    memcpy(d + n, "Exif\0\0", 6);
    n += 6;
    memcpy(d + n, t, k);
    n += k;
    const unsigned char tail[] = {0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0,
                                  0x12, 0x34, 0xFF, 0xD9};
    memcpy(d + n, tail, sizeof tail);
    return n + sizeof tail;
#undef PUT16
#undef PUT32
}

static void test_parse(void)
{
    unsigned char d[256];
    for (int big = 0; big < 2; big++) {
        for (unsigned o = 1; o <= 8; o++)
            EXPECT(exif_orientation(d, make_jpeg(d, big, 3, 1, o)) ==
                   (int)o);
        EXPECT(exif_orientation(d, make_jpeg(d, big, 3, 1, 0)) == 1);
        EXPECT(exif_orientation(d, make_jpeg(d, big, 3, 1, 9)) == 1);
        EXPECT(exif_orientation(d, make_jpeg(d, big, 4, 1, 6)) == 1);
        EXPECT(exif_orientation(d, make_jpeg(d, big, 3, 2, 6)) == 1);
    }
    size_t n = make_jpeg(d, 0, 3, 1, 6);
    /* Cut anywhere before the tag's value: 1, never a read past it. */
    size_t value_at = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (d[i] == 0x12 && d[i + 1] == 0x01)
            value_at = i + 8;
    EXPECT(value_at > 0);
    for (size_t cut = 0; cut <= value_at; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, d, cut);
        EXPECT(exif_orientation(copy, cut) == 1);
        free(copy);
    }
    /* Fill bytes before SOI, as stb_image reads them: still found. */
    unsigned char filled[260] = {0xFF, 0xFF};
    memcpy(filled + 2, d, n);
    EXPECT(exif_orientation(filled, n + 2) == 6);
    /* Not a JPEG, or the Exif after the scan: none. */
    EXPECT(exif_orientation((const unsigned char *)"\x89PNG", 4) == 1);
    unsigned char late[300];
    const unsigned char sos[] = {0xFF, 0xD8, 0xFF, 0xDA, 0, 8, 1, 1, 0, 0,
                                 63, 0};
    memcpy(late, sos, sizeof sos);
    memcpy(late + sizeof sos, d + 2, n - 2);
    EXPECT(exif_orientation(late, sizeof sos + n - 2) == 1);
    /* Tag 274 given a directory offset past the segment's end: 1. */
    n = make_jpeg(d, 0, 3, 1, 6);
    d[20 + 10 + 4] = 0xF0;  /* the TIFF header's directory offset */
    EXPECT(exif_orientation(d, n) == 1);
}

/* rgb.jpg with an Exif APP1 of orientation 6 after its SOI. */
static void test_check(const char *fixtures)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/rgb.jpg", fixtures);
    size_t len = 0;
    unsigned char *rgb = io_read_file(path, &len, err, sizeof err);
    EXPECT(rgb != NULL);
    if (!rgb)
        return;
    unsigned char app[256];
    size_t n = make_jpeg(app, 1, 3, 1, 6);
    size_t exif_len = (size_t)(app[22] << 8 | app[23]) + 2;  /* APP1 */
    char dir[] = "/tmp/test_06_exif.XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/turned.jpg", dir);
    FILE *f = fopen(path, "wb");
    EXPECT(f && fwrite(rgb, 1, 2, f) == 2 &&
           fwrite(app + 20, 1, exif_len, f) == exif_len &&
           fwrite(rgb + 2, 1, len - 2, f) == len - 2 && fclose(f) == 0);
    (void)n;
    for (int exif = 0; exif < 2; exif++) {
        path_list list = {.paths = calloc(1, sizeof(char *)), .count = 1};
        list.paths[0] = strdup(path);
        tf_spec same = {.mode = TF_SAME, .channels = 1};
        batch_source src = {.list = &list, .channels = 1, .spec = &same,
                            .max_pixels = IO_DEFAULT_MAX_PIXELS,
                            .exif = exif};
        size_t skipped, bytes;
        EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err,
                            sizeof err) == 0);
        EXPECT(src.width[0] == 37 && src.height[0] == 23);  /* stored */
        EXPECT(inputs_orientation(&src, 0) == (exif ? 6 : 1));
        EXPECT(exif ? src.same_width == 23 && src.same_height == 37
                    : src.same_width == 37 && src.same_height == 23);
        uint8_t planes[37 * 23];
        EXPECT(inputs_decode(&src, 0, planes, err, sizeof err) == 0);
        inputs_free(&src);
        path_list_free(&list);
    }
    unlink(path);
    rmdir(dir);
    free(rgb);
}

int main(int argc, char **argv)
{
    test_parse();
    const char *fixtures = argc > 1 ? argv[1] : getenv("FIXTURES_06");
    if (fixtures)
        test_check(fixtures);
    else
        printf("no fixtures: the check's part skipped (run through "
               "CTest)\n");
    return test_summary();
}
