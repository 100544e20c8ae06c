/* test_06_jpeg_walk.c - the walk of a JPEG's codes (jpeg_walk.h), on
 * the fuzz targets' seed JPEGs (CTest gives their folder, tests/fuzz,
 * in FUZZ_INPUTS) and files made from them: every good one passes and
 * loads; each one stb_image 2.27 would shift past its bit buffer for, or
 * make pixels of memory it never wrote for, is refused by the loader
 * with the walk's reason, on one line, before stb_image decodes it.
 *
 *   test_06_jpeg_walk [DIR]
 */
#include "test.h"
#include "../06_image_preprocess/image_io.h"
#include "../06_image_preprocess/jpeg_walk.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];

static unsigned char *read_seed(const char *name, size_t *len)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/corpus/fuzz_load/%s", dir, name);
    unsigned char *data = io_read_file(path, len, err, sizeof err);
    if (!data)
        fprintf(stderr, "%s\n", err);
    EXPECT(data != NULL);
    return data;
}

/* The loader refuses bytes with a reason holding `reason`, on one line. */
static void expect_refused(const char *name, const unsigned char *data,
                           size_t len, const char *reason)
{
    io_image img;
    char err[1024] = "";
    int rc = io_decode(name, data, len, IO_DEFAULT_MAX_PIXELS, 3, &img, err,
                       sizeof err);
    if (rc == 0)
        io_image_free(&img);
    if (rc != -1 || !strstr(err, reason) || strncmp(err, name, strlen(name)))
        fprintf(stderr, "%s: got %d \"%s\", expected \"%s\"\n", name, rc,
                err, reason);
    EXPECT(rc == -1 && strstr(err, reason) && !strchr(err, '\n') &&
           strncmp(err, name, strlen(name)) == 0);
}

/* Byte offset of the n-th (from 0) marker m, walking segments. */
static size_t find_marker(const unsigned char *d, size_t len, unsigned m,
                          int n)
{
    for (size_t i = 2; i + 1 < len; i++)
        if (d[i] == 0xFF && d[i + 1] == m && n-- == 0)
            return i;
    return 0;
}

/* Where a scan's coded data, after its SOS segment at sos, ends: the
 * first marker that is not a stuffed byte or a restart marker. */
static size_t data_end(const unsigned char *d, size_t len, size_t sos)
{
    size_t i = sos + 2 + (size_t)(d[sos + 2] << 8 | d[sos + 3]);
    for (; i + 1 < len; i++)
        if (d[i] == 0xFF && d[i + 1] != 0x00 && d[i + 1] != 0xFF &&
            (d[i + 1] < 0xD0 || d[i + 1] > 0xD7))
            return i;
    return len;
}

/* Good files, sequential and progressive (by libjpeg: first scans and
 * refinements of each bit), gray and colour, with restart markers and
 * Exif: walked without a word, and loaded. */
static void test_good_files(void)
{
    static const char *const good[] = {
        "baseline.jpg", "gray.jpg", "rgb.jpg", "exif.jpg", "fill.jpg",
        "restart.jpg", "progressive.jpg", "gray_progressive.jpg",
        "progressive_refine.jpg", "gray_progressive_refine.jpg",
        "progressive_restart.jpg", "progressive_422_restart.jpg"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t len = 0;
        unsigned char *d = read_seed(good[i], &len);
        char why[256] = "";
        EXPECT(d && jpeg_walk_codes(d, len, IO_DEFAULT_MAX_PIXELS, why,
                                   sizeof why) == 0);
        if (why[0])
            fprintf(stderr, "%s: %s\n", good[i], why);
        io_image img;
        char err[1024];
        int rc = d ? io_decode(good[i], d, len, IO_DEFAULT_MAX_PIXELS, 3,
                               &img, err, sizeof err)
                   : -1;
        if (rc != 0)
            fprintf(stderr, "%s: %s\n", good[i], d ? err : "unread");
        EXPECT(rc == 0);
        if (rc == 0)
            io_image_free(&img);
        free(d);
    }
}

/* Each scan of a file cut short inside its coded data, with the
 * end-of-image marker put back (the last byte may hold only padding, so
 * cuts two or more bytes before the end of the data): refused, by the
 * walk as a scan that ends before its last code (stb_image 2.27 reads
 * on past the marker, from zeros, and its bit count can go below zero)
 * or before its last block (the marker is not the restart marker its
 * interval wants: stb_image keeps the blocks it has); or by stb_image,
 * when the zeros after the marker complete no Huffman code. */
static void test_cut_scans(const char *name)
{
    size_t len = 0;
    unsigned char *d = read_seed(name, &len);
    unsigned char *cut = d ? malloc(len + 2) : NULL;
    size_t cuts = 0, by_walk = 0;
    for (int n = 0; cut; n++) {
        size_t sos = find_marker(d, len, 0xDA, n);
        if (!sos)
            break;
        size_t start = sos + 2 + (size_t)(d[sos + 2] << 8 | d[sos + 3]);
        size_t end = data_end(d, len, sos);
        for (size_t at = start + 1; at + 2 <= end; at++) {
            memcpy(cut, d, at);
            cut[at] = 0xFF;
            cut[at + 1] = 0xD9;
            char label[64], err[1024] = "", scan[64];
            snprintf(label, sizeof label, "%s cut at %zu", name, at);
            snprintf(scan, sizeof scan, "corrupt JPEG: the scan at byte %zu ",
                     sos);
            io_image img;
            int rc = io_decode(label, cut, at + 2, IO_DEFAULT_MAX_PIXELS, 3,
                               &img, err, sizeof err);
            if (rc == 0)
                io_image_free(&img);
            const char *why = strstr(err, ": ");
            int walk = why && strncmp(why + 2, scan, strlen(scan)) == 0 &&
                       (strstr(why, "ends at a marker (byte ") ||
                        strstr(why, "stops before its last block"));
            int stb = why && strcmp(why + 2, "cannot decode the JPEG "
                                    "data: bad huffman code") == 0;
            if (rc != -1 || !(walk || stb) || strchr(err, '\n'))
                fprintf(stderr, "%s: got %d \"%s\"\n", label, rc, err);
            EXPECT(rc == -1 && (walk || stb) && !strchr(err, '\n'));
            cuts++;
            by_walk += walk;
        }
    }
    /* most of them by the walk, before stb_image reads a made-up bit */
    EXPECT(cuts > 20 && by_walk * 10 >= cuts * 9);
    free(cut);
    free(d);
}

/* gray.jpg with two more components in its frame that no scan names:
 * stb_image 2.27 decodes it, its Cb and Cr from memory it never wrote. */
static void test_component_in_no_scan(void)
{
    size_t len = 0;
    unsigned char *d = read_seed("gray.jpg", &len);
    size_t sof = d ? find_marker(d, len, 0xC0, 0) : 0;
    EXPECT(sof > 0 && d[sof + 3] == 11 && d[sof + 9] == 1);
    if (sof > 0 && d[sof + 3] == 11 && d[sof + 9] == 1) {
        unsigned char *more = malloc(len + 6);
        size_t head = sof + 13;  /* through component 1 */
        memcpy(more, d, head);
        const unsigned char extra[6] = {2, 0x11, 0, 3, 0x11, 0};
        memcpy(more + head, extra, 6);
        memcpy(more + head + 6, d + head, len - head);
        more[sof + 3] = 17;
        more[sof + 9] = 3;
        expect_refused("chroma.jpg", more, len + 6, "corrupt JPEG: no scan "
                       "decodes block (0, 0) of component 2");
        free(more);
    }
    free(d);
}

/* progressive.jpg without its first scan, the DC one that sets every
 * block: stb_image 2.27 would make pixels of coefficients never
 * written; with its next scan made a refinement (succ_high 1), it would
 * also read them to decide how many bits to read. */
static void test_progressive_unset(void)
{
    size_t len = 0;
    unsigned char *d = read_seed("progressive.jpg", &len);
    size_t dc = d ? find_marker(d, len, 0xDA, 0) : 0;
    size_t next = d ? find_marker(d, len, 0xDA, 1) : 0;
    EXPECT(dc > 0 && next > dc && d[dc + 4] == 3 && d[next + 4] == 1);
    if (dc > 0 && next > dc) {
        unsigned char *less = malloc(len);
        memcpy(less, d, dc);
        memcpy(less + dc, d + next, len - next);
        size_t n = len - (next - dc);
        expect_refused("no_dc.jpg", less, n, "corrupt JPEG: no scan decodes "
                       "block (0, 0) of component 1");
        less[dc + 9] = 0x10;  /* Ah = 1, Al = 0 */
        char want[160];
        snprintf(want, sizeof want, "corrupt JPEG: the scan at byte %zu "
                 "refines coefficients that no earlier scan set", dc);
        expect_refused("refine.jpg", less, n, want);
        free(less);
    }
    free(d);
}

int main(int argc, char **argv)
{
    const char *from = argc > 1 ? argv[1] : getenv("FUZZ_INPUTS");
    if (!from) {
        printf("no inputs: run through CTest, or give tests/fuzz\n");
        return 77;
    }
    snprintf(dir, sizeof dir, "%s", from);
    test_good_files();
    test_cut_scans("rgb.jpg");
    test_cut_scans("restart.jpg");
    test_cut_scans("progressive.jpg");
    test_cut_scans("progressive_refine.jpg");
    test_cut_scans("gray_progressive_refine.jpg");
    test_cut_scans("progressive_restart.jpg");
    test_component_in_no_scan();
    test_progressive_unset();
    return test_summary();
}
