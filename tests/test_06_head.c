/* test_06_head.c - what imgbatch_open reads of a file (batch/batch_head.c):
 * a JPEG or PNG longer than HEAD_BYTES from its first bytes alone, its
 * frame size and EXIF orientation as the whole file gives them; a file
 * whose header does not fit there, a short file, and a file over the
 * pixel cap read whole; a file cut after its header taken, then refused
 * by head_recheck when read whole, as is one whose size changed; and
 * through inputs_check and inputs_recheck, the whole-file check made
 * once a file, the first time its bytes pass it.
 *
 *   test_06_head
 */
#include "test.h"
#include "../06_image_preprocess/batch/batch_head.h"
#include "../06_image_preprocess/batch/batch_inputs.h"
#include "../06_image_preprocess/batch/corpus.h"
#include "../06_image_preprocess/batch/corpus_jpeg.h"
#include "../06_image_preprocess/image_io.h"
#include "stb_image_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/test_06_head_XXXXXX";

static const char *path_of(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void write_file(const char *name, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path_of(name), "wb");
    EXPECT(f && fwrite(d, 1, n, f) == n);
    if (f)
        fclose(f);
}

/* head_probe's verdict on name: rc, and *h. */
static int probe(const char *name, size_t max_pixels, head_result *h,
                 char *err, size_t err_len)
{
    err[0] = 0;
    return head_probe(path_of(name), max_pixels, 1, h, err, err_len);
}

int main(void)
{
    enum { W = 400, H = 300 };
    char err[1300];
    head_result h;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    uint8_t *rgb = malloc((size_t)W * H * 3);
    EXPECT(rgb && corpus_synth_rgb(rgb, W, H, 7, 1) == 0);
    cj_buffer jpg = {NULL, 0, 0};
    EXPECT(cj_encode(rgb, 3, W, H, 95, 0, &jpg) == 0);
    EXPECT(jpg.len > 2 * HEAD_BYTES);

    /* Whole: from its first bytes; its size and byte count right. */
    write_file("a.jpg", jpg.data, jpg.len);
    EXPECT(probe("a.jpg", IO_DEFAULT_MAX_PIXELS, &h, err, sizeof err) == 0);
    EXPECT(!h.whole && h.jpeg && h.width == W && h.height == H &&
           h.bytes == jpg.len && h.orientation == 1);
    EXPECT(head_recheck(path_of("a.jpg"), jpg.data, jpg.len,
                        IO_DEFAULT_MAX_PIXELS, W, H, err, sizeof err) == 0);
    /* The same bytes, but the open saw another size: changed. */
    EXPECT(head_recheck(path_of("a.jpg"), jpg.data, jpg.len,
                        IO_DEFAULT_MAX_PIXELS, W + 1, H, err,
                        sizeof err) == -1 &&
           strstr(err, "400 x 300, but 401 x 300 when it was checked"));

    /* Through the batch's check: taken from its header, checked whole
     * once: cut bytes refused while it is unchecked, never after. */
    path_list list = {.paths = calloc(1, sizeof(char *)), .count = 1};
    list.paths[0] = strdup(path_of("a.jpg"));
    tf_spec same = {.mode = TF_SAME, .channels = 1};
    batch_source src = {.list = &list, .channels = 1, .spec = &same,
                        .max_pixels = IO_DEFAULT_MAX_PIXELS};
    size_t skipped, bytes;
    EXPECT(inputs_check(&src, 0, 0, &skipped, &bytes, err,
                        sizeof err) == 0);
    EXPECT(src.whole[0] == 0 && src.width[0] == W && bytes == jpg.len);
    EXPECT(inputs_recheck(&src, 0, jpg.data, jpg.len / 2, err,
                          sizeof err) == -1 && src.whole[0] == 0);
    EXPECT(inputs_recheck(&src, 0, jpg.data, jpg.len, err,
                          sizeof err) == 0 && src.whole[0] == 1);
    EXPECT(inputs_recheck(&src, 0, jpg.data, jpg.len / 2, err,
                          sizeof err) == 0);
    inputs_free(&src);
    path_list_free(&list);

    /* Cut after its header: taken, then refused read whole. */
    write_file("cut.jpg", jpg.data, jpg.len / 2);
    EXPECT(probe("cut.jpg", IO_DEFAULT_MAX_PIXELS, &h, err, sizeof err) == 0);
    EXPECT(!h.whole && h.width == W && h.bytes == jpg.len / 2);
    EXPECT(head_recheck(path_of("cut.jpg"), jpg.data, jpg.len / 2,
                        IO_DEFAULT_MAX_PIXELS, W, H, err, sizeof err) == -1 &&
           strstr(err, "cut.jpg: truncated JPEG"));

    /* A comment of 20,000 bytes before the frame: read whole. */
    size_t com = 20000, n = jpg.len + 2 + com;
    uint8_t *big = calloc(n, 1);
    EXPECT(big != NULL);
    if (big) {
        memcpy(big, jpg.data, 2);
        big[2] = 0xFF;
        big[3] = 0xFE;
        big[4] = (uint8_t)(com >> 8);
        big[5] = (uint8_t)com;
        memcpy(big + 4 + com, jpg.data + 2, jpg.len - 2);
        write_file("long_header.jpg", big, n);
        EXPECT(probe("long_header.jpg", IO_DEFAULT_MAX_PIXELS, &h, err,
                     sizeof err) == 0);
        EXPECT(h.whole && h.width == W && h.height == H && h.bytes == n);
        /* Cut: the whole-file read finds it at once. */
        write_file("long_cut.jpg", big, n - 1000);
        EXPECT(probe("long_cut.jpg", IO_DEFAULT_MAX_PIXELS, &h, err,
                     sizeof err) == -1 &&
               strstr(err, "truncated JPEG"));
        free(big);
    }

    /* Over the pixel cap: read whole, io_probe's reason. */
    EXPECT(probe("a.jpg", 1000, &h, err, sizeof err) == -1 &&
           strstr(err, "more than --max-pixels 1000"));

    /* Short: read whole. */
    cj_buffer small = {NULL, 0, 0};
    EXPECT(cj_encode(rgb, 3, 16, 16, 90, 0, &small) == 0);
    EXPECT(small.len < HEAD_BYTES);
    write_file("small.jpg", small.data, small.len);
    EXPECT(probe("small.jpg", IO_DEFAULT_MAX_PIXELS, &h, err,
                 sizeof err) == 0);
    EXPECT(h.whole && h.width == 16 && h.height == 16);

    /* A PNG: its IHDR; cut, refused read whole. */
    size_t png_len = 0;
    EXPECT(stbi_write_png(path_of("a.png"), W, H, 3, rgb, W * 3) != 0);
    unsigned char *png = io_read_file(path_of("a.png"), &png_len, err,
                                      sizeof err);
    EXPECT(png && png_len > 2 * HEAD_BYTES);
    if (png) {
        EXPECT(probe("a.png", IO_DEFAULT_MAX_PIXELS, &h, err,
                     sizeof err) == 0);
        EXPECT(!h.whole && !h.jpeg && h.width == W && h.height == H &&
               h.bytes == png_len);
        EXPECT(head_recheck(path_of("a.png"), png, png_len / 2,
                            IO_DEFAULT_MAX_PIXELS, W, H, err,
                            sizeof err) == -1 &&
               strstr(err, "truncated PNG"));
        free(png);
    }

    /* Missing: io_read_file's reason. */
    EXPECT(probe("none.jpg", IO_DEFAULT_MAX_PIXELS, &h, err,
                 sizeof err) == -1 &&
           strstr(err, "none.jpg: cannot open"));

    const char *names[] = {"a.jpg", "cut.jpg", "long_header.jpg",
                           "long_cut.jpg", "small.jpg", "a.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(path_of(names[i]));
    rmdir(dir);
    free(jpg.data);
    free(small.data);
    free(rgb);
    return test_summary();
}
