/* test_06_images.c - image loading and batch inputs of 06_image_preprocess,
 * on the files test_06_fixtures writes (CTest passes their folder in
 * FIXTURES_06): exact pixels for every lossless format and layout, one
 * clear message naming the file for every broken one.
 */
#include "test.h"
#include "../06_image_preprocess/batch/batch_inputs.h"
#include "../06_image_preprocess/batch/decode_pool.h"
#include "../06_image_preprocess/image_io.h"
#include "../06_image_preprocess/reference.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    expect_pixels("gray.tga", "TGA, 8-bit gray", gray_at);
    expect_pixels("gray.pgm", "PGM, 8-bit gray", gray_at);
    io_image img;
    char err[1024];
    EXPECT(load("rgb.jpg", &img, err, sizeof err) == 0);  /* lossy */
    EXPECT(img.width == W && img.height == H && img.info.channels == 3);
    io_image_free(&img);

    expect_refused("missing.png", "cannot open: No such file");
    expect_refused("folder.png", "is a directory");
    expect_refused("empty.png", "file is empty");
    expect_refused("notimage.png", "not an image stb_image can read");
    expect_refused("truncated.png", "truncated PNG");
    expect_refused("truncated.jpg", "truncated JPEG");
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
    EXPECT(strstr(err, "is a directory") != NULL);
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
    batch_source src = {&list, 0, 0, 0, IO_DEFAULT_MAX_PIXELS};
    size_t skipped = 9, bytes = 0;
    EXPECT(inputs_check(&src, 0, &skipped, &bytes, err, sizeof err) == 0);
    EXPECT(src.width == W && src.height == H && skipped == 0 && bytes > 0);
    static uint8_t dst[W * H];
    EXPECT(inputs_decode(&src, 0, dst, err, sizeof err) == 0);
    EXPECT(dst[W + 2] == gray_at(2, 1));
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

    /* Two sizes: an error that suggests --resize, or resized. */
    one[0] = (char *)at("batch_mixed");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    EXPECT(inputs_check(&src, 0, &skipped, &bytes, err, sizeof err) == -1);
    EXPECT(strstr(err, "b.png: 20 x 10, but the batch is 37 x 23") &&
           strstr(err, "--resize"));
    batch_source resized = {&list, 8, 5, 1, IO_DEFAULT_MAX_PIXELS};
    EXPECT(inputs_check(&resized, 0, &skipped, &bytes, err, sizeof err) == 0);
    EXPECT(resized.width == 8 && resized.height == 5 && list.count == 2);
    uint8_t small[8 * 5], want[8 * 5];
    EXPECT(inputs_decode(&resized, 0, small, err, sizeof err) == 0);
    static uint8_t gray[W * H];
    for (int i = 0; i < W * H; i++)
        gray[i] = gray_at(i % W, i / W);
    ref_resize_bilinear(want, 8, 5, gray, W, H);
    EXPECT(memcmp(small, want, sizeof want) == 0);
    path_list_free(&list);

    /* A cut-off file: the batch stops, or with skip_bad goes on without. */
    one[0] = (char *)at("batch_bad");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    src.list = &list;
    EXPECT(inputs_check(&src, 0, &skipped, &bytes, err, sizeof err) == -1);
    EXPECT(strstr(err, "batch_bad/b.png: truncated PNG") != NULL);
    EXPECT(inputs_check(&src, 1, &skipped, &bytes, err, sizeof err) == 0);
    EXPECT(skipped == 1 && list.count == 2 && strstr(list.paths[1], "c.png"));
    path_list_free(&list);

    /* Whole chunks but corrupt data: it passes the check, so the batch
     * finds it only when the decode threads reach it. */
    one[0] = (char *)at("batch_corrupt");
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    src.list = &list;
    EXPECT(inputs_check(&src, 0, &skipped, &bytes, err, sizeof err) == 0);
    EXPECT(inputs_decode(&src, 0, dst, err, sizeof err) == 0);
    EXPECT(inputs_decode(&src, 1, dst, err, sizeof err) == -1);
    EXPECT(strstr(err, "batch_corrupt/b.png: cannot decode") != NULL);
    path_list_free(&list);
}

/* The batch's decode threads on real files: stb_image in several threads
 * at once (run under TSan with SANITIZE=thread) gives what one thread
 * gives. */
static void test_threaded_decode(void)
{
    char err[1024];
    path_list list;
    char *one[1] = {(char *)at("batch")};
    EXPECT(inputs_collect(one, 1, NULL, &list, err, sizeof err) == 0);
    batch_source src = {&list, 0, 0, 0, IO_DEFAULT_MAX_PIXELS};
    size_t skipped, bytes;
    EXPECT(inputs_check(&src, 0, &skipped, &bytes, err, sizeof err) == 0);
    static uint8_t storage[4][W * H], alone[W * H];
    uint8_t *slots[4] = {storage[0], storage[1], storage[2], storage[3]};
    size_t rounds = 3 * list.count;  /* each file three times over */
    path_list repeated = {calloc(rounds, sizeof(char *)), rounds};
    for (size_t i = 0; repeated.paths && i < rounds; i++)
        repeated.paths[i] = list.paths[i % list.count];
    batch_source many = src;
    many.list = &repeated;
    dp_pool *pool = dp_start(rounds, slots, 4, 3, inputs_decode, &many);
    EXPECT(pool != NULL);
    for (size_t i = 0; pool && i < rounds; i++) {
        const char *why;
        uint8_t *got = dp_wait(pool, i, &why);
        EXPECT(got && inputs_decode(&src, i % list.count, alone, err,
                                    sizeof err) == 0);
        EXPECT(got && memcmp(got, alone, sizeof alone) == 0);
        dp_release(pool, i);
    }
    if (pool)
        dp_stop(pool);
    free(repeated.paths);
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
    test_batch_inputs();
    test_threaded_decode();
    return test_summary();
}
