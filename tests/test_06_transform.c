/* test_06_transform.c - the batch tool's transform on the CPU
 * (batch/transform_ref.c), the reference of its GPU kernel: the
 * bilinear map with pixel centres aligned, in fixed point; where
 * --resize and --resize-short + --crop put an image (torchvision's
 * Resize + CenterCrop); the normalization, exact x / 255.0f by default;
 * float16 rounding; the flip and the gray plane repeated for RGB; the
 * sampled rows, one in every 8; reading an output back as its level.
 */
#include "test.h"
#include "tf_spec.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* The plain bilinear resize's spec (no antialias). */
static tf_spec spec(tf_mode mode, size_t w, size_t h, int channels,
                    tf_dtype dtype)
{
    return tf_test_spec(mode, w, h, channels, dtype, 0);
}

/* Bilinear resize of a one-row or one-plane image, as levels. */
static void resize(uint8_t *dst, size_t dw, size_t dh, const uint8_t *src,
                   size_t sw, size_t sh)
{
    tf_spec s = spec(TF_RESIZE, dw, dh, 1, TF_UINT8);
    tf_place p;
    EXPECT(tf_place_image(&s, sw, sh, &p) == 0);
    tf_image_ref(&s, &p, src, 1, sw, sh, dst);
}

static void test_bilinear(void)
{
    /* [0, 100] to 4 pixels: centres at -0.25, 0.25, 0.75, 1.25 of the
     * source, clamped: 0, 25, 75, 100. */
    const uint8_t two[2] = {0, 100};
    uint8_t four[4];
    resize(four, 4, 1, two, 2, 1);
    EXPECT(four[0] == 0 && four[1] == 25 && four[2] == 75 && four[3] == 100);
    /* The same size is the image itself, whatever its values. */
    uint8_t img[7 * 5], out[7 * 5];
    for (int i = 0; i < 35; i++)
        img[i] = (uint8_t)(i * 37 + 11);
    resize(out, 7, 5, img, 7, 5);
    EXPECT(memcmp(out, img, sizeof img) == 0);
    /* A constant stays constant, down or up. */
    uint8_t flat[35], small[6], big[11 * 9];
    memset(flat, 201, sizeof flat);
    resize(small, 3, 2, flat, 7, 5);
    resize(big, 11, 9, flat, 7, 5);
    int constant = 1;
    for (int i = 0; i < 6; i++)
        constant &= small[i] == 201;
    for (int i = 0; i < 99; i++)
        constant &= big[i] == 201;
    EXPECT(constant);
    /* Halving averages pairs: [10, 20, 30, 50] to 2 is [15, 40]. */
    const uint8_t ramp[4] = {10, 20, 30, 50};
    uint8_t half[2];
    resize(half, 2, 1, ramp, 4, 1);
    EXPECT(half[0] == 15 && half[1] == 40);
    /* The weights: exactly 1/4 and 3/4 for a doubling, 0 past the ends. */
    size_t lo, hi;
    unsigned w;
    tf_axis(1, 4, 2, &lo, &hi, &w);
    EXPECT(lo == 0 && hi == 1 && w == TF_WEIGHT_ONE / 4);
    tf_axis(3, 4, 2, &lo, &hi, &w);
    EXPECT(lo == 1 && hi == 1 && w == 0);
    tf_axis(0, 1, 1, &lo, &hi, &w);
    EXPECT(lo == 0 && hi == 0 && w == 0);
    /* The largest sides keep their arithmetic exact. */
    tf_axis(TF_MAX_SIDE - 1, TF_MAX_SIDE, TF_MAX_SIDE, &lo, &hi, &w);
    EXPECT(lo == TF_MAX_SIDE - 1 && w == 0);
}

static void test_places(void)
{
    tf_place p;
    tf_spec same = spec(TF_SAME, 40, 30, 1, TF_FLOAT32);
    EXPECT(tf_place_image(&same, 40, 30, &p) == 0 && p.scaled_w == 40);
    EXPECT(tf_place_image(&same, 30, 40, &p) == -1);
    EXPECT(tf_place_image(&same, TF_MAX_SIDE + 1, 30, &p) == -1);
    /* torchvision: Resize(256) of 500 x 375 is 341 x 256 (int(256 * 500
     * / 375)), CenterCrop(224) starts at round(117 / 2) = 58 (Python
     * rounds halves to even) and round(32 / 2) = 16. */
    tf_spec crop = spec(TF_SHORT_CROP, 224, 224, 3, TF_FLOAT16);
    crop.short_side = 256;
    EXPECT(tf_place_image(&crop, 500, 375, &p) == 0);
    EXPECT(p.scaled_w == 341 && p.scaled_h == 256 && p.crop_x == 58 &&
           p.crop_y == 16);
    EXPECT(tf_place_image(&crop, 375, 500, &p) == 0);
    EXPECT(p.scaled_w == 256 && p.scaled_h == 341 && p.crop_y == 58);
    /* round(3 / 2) = 2, round(5 / 2) = 2: halves to the even neighbour. */
    crop.short_side = 227;
    EXPECT(tf_place_image(&crop, 227, 227, &p) == 0 && p.crop_x == 2);
    crop.short_side = 229;
    EXPECT(tf_place_image(&crop, 229, 229, &p) == 0 && p.crop_x == 2);
    /* A crop larger than the scaled image is refused. */
    crop.short_side = 200;
    EXPECT(tf_place_image(&crop, 500, 375, &p) == -1);
    tf_spec resize_to = spec(TF_RESIZE, 224, 224, 1, TF_FLOAT32);
    EXPECT(tf_place_image(&resize_to, 640, 333, &p) == 0 &&
           p.scaled_w == 224 && p.scaled_h == 224 && p.crop_x == 0);
}

static void test_values(void)
{
    /* Default: level / 255.0f, every level, bit for bit. */
    tf_spec s = spec(TF_RESIZE, 1, 1, 3, TF_FLOAT32);
    int exact = 1;
    for (unsigned v = 0; v < 256; v++)
        exact &= tf_normalize(&s, 2, v) == (float)v / 255.0f;
    EXPECT(exact);
    s.mean[0] = 0.485f;
    s.std[0] = 0.229f;
    EXPECT(tf_normalize(&s, 0, 255) == (1.0f - 0.485f) / 0.229f);
    /* binary16, round to nearest even. */
    EXPECT(tf_float_to_half(1.0f) == 0x3c00 &&
           tf_float_to_half(-2.0f) == 0xc000 &&
           tf_float_to_half(0.5f) == 0x3800 &&
           tf_float_to_half(65504.0f) == 0x7bff &&
           tf_float_to_half(65520.0f) == 0x7c00 &&
           tf_float_to_half(ldexpf(1, -24)) == 0x0001 &&
           tf_float_to_half(ldexpf(1, -25)) == 0x0000 &&
           tf_float_to_half(ldexpf(3, -25)) == 0x0002 &&
           tf_float_to_half(ldexpf(1, -14)) == 0x0400 &&
           tf_float_to_half(1.0f + ldexpf(1, -11)) == 0x3c00 &&
           tf_float_to_half(1.0f + ldexpf(3, -11)) == 0x3c02 &&
           tf_float_to_half(0.0f) == 0 && tf_float_to_half(-0.0f) == 0x8000);
    EXPECT(tf_float_to_half(NAN) == 0x7e00 &&
           tf_float_to_half(INFINITY) == 0x7c00);
    int round_trip = 1;
    for (unsigned h = 0; h < 0x7c00; h++)
        round_trip &= tf_float_to_half(tf_half_to_float((uint16_t)h)) == h;
    EXPECT(round_trip);
    EXPECT(tf_elem_bytes(TF_FLOAT16) == 2 &&
           strcmp(tf_dtype_name(TF_UINT8), "uint8") == 0);

    /* Back to levels: every level of every type, with ImageNet's mean
     * and std; a value between two levels is none. */
    const tf_dtype types[3] = {TF_FLOAT32, TF_FLOAT16, TF_UINT8};
    const float mean[3] = {0.485f, 0.456f, 0.406f};
    const float std[3] = {0.229f, 0.224f, 0.225f};
    for (int k = 0; k < 3; k++) {
        tf_spec t = spec(TF_RESIZE, 1, 1, 3, types[k]);
        memcpy(t.mean, mean, sizeof mean);
        memcpy(t.std, std, sizeof std);
        tf_levels table;
        tf_levels_make(&t, &table);
        int back = 1;
        uint8_t value[4];
        for (int c = 0; c < 3; c++)
            for (unsigned v = 0; v < 256; v++) {
                tf_store(&t, c, v, value);
                back &= tf_level_of(&table, c, value, (int)v) == (int)v;
            }
        EXPECT(back);
    }
    tf_spec t = spec(TF_RESIZE, 1, 1, 1, TF_FLOAT32);
    tf_levels table;
    tf_levels_make(&t, &table);
    float between = 0.5f / 255.0f, nan = NAN;
    EXPECT(tf_level_of(&table, 0, &between, 0) == -1);
    EXPECT(tf_level_of(&table, 0, &nan, 0) == -1);
    /* A huge std maps every level to nearly one value: the run of equal
     * float16 values reads back as the level nearest the one expected. */
    t = spec(TF_RESIZE, 1, 1, 1, TF_FLOAT16);
    t.std[0] = 5000.0f;
    tf_levels_make(&t, &table);
    uint8_t h[2];
    tf_store(&t, 0, 100, h);
    int level = tf_level_of(&table, 0, h, 100);
    EXPECT(level == 100);
}

static void test_image(void)
{
    /* 3 x 2, flipped: each row reversed; one gray plane for RGB gives
     * three equal channels. */
    const uint8_t gray[6] = {1, 2, 3, 4, 5, 6};
    tf_spec s = spec(TF_SAME, 3, 2, 3, TF_UINT8);
    s.flip = 1;
    tf_place p;
    EXPECT(tf_place_image(&s, 3, 2, &p) == 0);
    uint8_t out[18];
    tf_image_ref(&s, &p, gray, 1, 3, 2, out);
    const uint8_t want[6] = {3, 2, 1, 6, 5, 4};
    EXPECT(memcmp(out, want, 6) == 0 && memcmp(out + 6, want, 6) == 0 &&
           memcmp(out + 12, want, 6) == 0);
    /* Three planes stay three channels, in NCHW order. */
    uint8_t planes[18];
    for (int i = 0; i < 18; i++)
        planes[i] = (uint8_t)(10 * (i / 6) + i % 6);
    s.flip = 0;
    tf_image_ref(&s, &p, planes, 3, 3, 2, out);
    EXPECT(memcmp(out, planes, 18) == 0);
}

static void test_sample_rows(void)
{
    /* One row in every block of 8, at every offset over 8 blocks, the
     * last clamped into the image. */
    const size_t heights[5] = {1, 7, 8, 224, 375};
    for (int k = 0; k < 5; k++) {
        size_t h = heights[k], n = tf_sample_rows(h);
        EXPECT(n == (h + 7) / 8);
        int ok = 1;
        for (size_t r = 0; r < n; r++) {
            size_t y = tf_sample_row(r, h);
            ok &= y < h && (y / 8 == r || y == h - 1);
        }
        EXPECT(ok);
    }
    int offsets[8] = {0};
    for (size_t r = 0; r < 8; r++)
        offsets[tf_sample_row(r, 1000) % 8]++;
    int all = 1;
    for (int o = 0; o < 8; o++)
        all &= offsets[o] == 1;
    EXPECT(all);
}

/* Elementary turns of a w x h plane into out (its new sides in *ow,
 * *oh): the upright image built step by step, as PIL's exif_transpose
 * composes them, apart from tf_orient's table. */
static void transpose(const uint8_t *in, size_t w, size_t h, uint8_t *out)
{
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            out[x * h + y] = in[y * w + x];
}

static void mirror_lr(uint8_t *img, size_t w, size_t h)
{
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w / 2; x++) {
            uint8_t t = img[y * w + x];
            img[y * w + x] = img[y * w + w - 1 - x];
            img[y * w + w - 1 - x] = t;
        }
}

static void mirror_tb(uint8_t *img, size_t w, size_t h)
{
    for (size_t y = 0; y < h / 2; y++)
        for (size_t x = 0; x < w; x++) {
            uint8_t t = img[y * w + x];
            img[y * w + x] = img[(h - 1 - y) * w + x];
            img[(h - 1 - y) * w + x] = t;
        }
}

static void upright(int o, const uint8_t *in, size_t w, size_t h,
                    uint8_t *out, size_t *ow, size_t *oh)
{
    int swap = o >= 5;
    if (swap)
        transpose(in, w, h, out);
    else
        memcpy(out, in, w * h);
    *ow = swap ? h : w;
    *oh = swap ? w : h;
    /* after the transpose: 5 nothing more, 6 mirror, 7 both, 8 top-bottom;
     * without: 2 mirror, 3 both, 4 top-bottom */
    if (o == 2 || o == 3 || o == 6 || o == 7)
        mirror_lr(out, *ow, *oh);
    if (o == 3 || o == 4 || o == 7 || o == 8)
        mirror_tb(out, *ow, *oh);
}

/* EXIF's orientations: the transform of a stored image with its
 * orientation is, bit for bit, the transform of the image turned
 * upright first, in every mode, with and without the flip, gray and
 * RGB; orientations 5 to 8 swap the sides it is placed by. */
static void test_orientation(void)
{
    /* 3 x 2, turned 90 degrees clockwise (6): 2 x 3, by hand. */
    const uint8_t stored[6] = {1, 2, 3, 4, 5, 6};
    const uint8_t turned[6] = {4, 1, 5, 2, 6, 3};
    tf_spec same = spec(TF_SAME, 2, 3, 1, TF_UINT8);
    tf_place p;
    uint8_t out[6];
    EXPECT(tf_place_oriented(&same, 3, 2, 6, &p) == 0 &&
           p.scaled_w == 2 && p.scaled_h == 3 && p.orientation == 6);
    tf_image_ref(&same, &p, stored, 1, 3, 2, out);
    EXPECT(memcmp(out, turned, 6) == 0);
    EXPECT(tf_place_oriented(&same, 3, 2, 1, &p) == -1);  /* 3 x 2 */
    EXPECT(tf_place_oriented(&same, 3, 2, 9, &p) == -1 &&
           p.orientation == 1);  /* out of range: as stored */

    enum { W = 13, H = 7 };
    uint8_t planes[3 * W * H], up[3 * W * H];
    for (size_t i = 0; i < sizeof planes; i++)
        planes[i] = (uint8_t)(i * 89 + (i / W) * 7 + 3);
    tf_spec cases[] = {
        spec(TF_RESIZE, 9, 5, 1, TF_UINT8),
        spec(TF_RESIZE, 29, 17, 3, TF_FLOAT32),
        spec(TF_SHORT_CROP, 6, 5, 3, TF_FLOAT16),
        spec(TF_SHORT_CROP, 11, 11, 1, TF_UINT8),
        spec(TF_SAME, W, H, 1, TF_UINT8),
        spec(TF_SAME, H, W, 3, TF_UINT8),
    };
    cases[2].short_side = 6;
    cases[3].short_side = 12;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int flip = 0; flip < 2; flip++)
            for (int o = 1; o <= 8; o++) {
                tf_spec s = cases[k];
                s.flip = flip;
                size_t uw = 0, uh = 0;
                for (int c = 0; c < 3; c++)
                    upright(o, planes + c * W * H, W, H, up + c * W * H,
                            &uw, &uh);
                tf_place po, pu;
                int placed = tf_place_oriented(&s, W, H, o, &po);
                EXPECT(placed == tf_place_oriented(&s, uw, uh, 1, &pu));
                if (placed != 0)
                    continue;
                EXPECT(po.scaled_w == pu.scaled_w &&
                       po.scaled_h == pu.scaled_h &&
                       po.crop_x == pu.crop_x && po.crop_y == pu.crop_y);
                size_t bytes = 3 * s.out_w * s.out_h * 4;
                uint8_t *a = calloc(1, bytes), *b = calloc(1, bytes);
                tf_image_ref(&s, &po, planes, s.channels, W, H, a);
                tf_image_ref(&s, &pu, up, s.channels, uw, uh, b);
                int equal = memcmp(a, b, bytes) == 0;
                if (!equal)
                    fprintf(stderr, "case %zu, flip %d, orientation %d: "
                            "differs from the image turned first\n", k,
                            flip, o);
                EXPECT(equal);
                free(a);
                free(b);
            }
}

int main(void)
{
    test_bilinear();
    test_orientation();
    test_places();
    test_values();
    test_image();
    test_sample_rows();
    return test_summary();
}
