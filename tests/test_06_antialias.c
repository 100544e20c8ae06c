/* test_06_antialias.c - the batch tool's antialiased resize on the CPU
 * (batch/transform_aa.c), the reference of its GPU kernel: byte for byte
 * what Pillow's Image.resize(size, BILINEAR) makes of the same images
 * (tests/antialias_cases.h, written by gen_antialias_cases.py with
 * Pillow), down by 1.3 to 150, up, one axis alone, gray and RGB; the
 * crop's window of the whole resize; the image turned upright first for
 * every EXIF orientation; every dtype and the flip; pass by pass the same
 * as pixel by pixel; and the plain bilinear resize, which is not it.
 */
#include "test.h"
#include "tf_spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct aa_case {
    size_t w, h, out_w, out_h;
    int channels;
    const uint8_t *want;     /* Pillow's, as planes */
};
#include "antialias_cases.h"

enum { N_CASES = sizeof aa_cases / sizeof aa_cases[0] };

/* gen_antialias_cases.py's pixel(): the same image here. */
static uint8_t pixel(size_t x, size_t y, int c)
{
    uint32_t h = (uint32_t)(x * 73 + y * 151 + (size_t)c * 59 + 1) *
                 2654435761u;
    return (uint8_t)(h >> 24);
}

static uint8_t *make_planes(size_t w, size_t h, int channels)
{
    uint8_t *p = (uint8_t *)malloc(w * h * (size_t)channels);
    for (int c = 0; c < channels; c++)
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++)
                p[((size_t)c * h + y) * w + x] = pixel(x, y, c);
    return p;
}


/* Pillow's bytes, whole (tf_image_ref, pass by pass) and pixel by pixel
 * (tf_level_at, as the checks sample); the plain bilinear resize of the
 * downscales is something else. */
static void test_pillow(void)
{
    for (int k = 0; k < N_CASES; k++) {
        const struct aa_case *a = &aa_cases[k];
        uint8_t *in = make_planes(a->w, a->h, a->channels);
        size_t n = a->out_w * a->out_h * (size_t)a->channels;
        uint8_t *out = (uint8_t *)malloc(n);
        tf_spec s = tf_test_spec(TF_RESIZE, a->out_w, a->out_h,
                                 a->channels, TF_UINT8, 1);
        tf_place p;
        EXPECT(tf_place_image(&s, a->w, a->h, &p) == 0 && p.antialias);
        tf_image_ref(&s, &p, in, a->channels, a->w, a->h, out);
        size_t wrong = 0, first = n, apart = 0;
        for (size_t i = 0; i < n; i++)
            if (out[i] != a->want[i] && wrong++ == 0)
                first = i;
        if (wrong)
            fprintf(stderr, "%zux%zu to %zux%zu: %zu of %zu levels differ "
                    "from Pillow's, the first at %zu: %u, Pillow %u\n",
                    a->w, a->h, a->out_w, a->out_h, wrong, n, first,
                    out[first], a->want[first]);
        EXPECT(wrong == 0);
        for (int c = 0; c < a->channels; c++)
            for (size_t y = 0; y < a->out_h; y++)
                for (size_t x = 0; x < a->out_w; x++) {
                    size_t i = (c * a->out_h + y) * a->out_w + x;
                    apart += tf_level_at(in + c * a->w * a->h, a->w, a->h,
                                         &p, x, y) != a->want[i];
                }
        EXPECT(apart == 0);
        /* Without antialiasing: other levels wherever it shrinks. */
        s.antialias = 0;
        EXPECT(tf_place_image(&s, a->w, a->h, &p) == 0 && !p.antialias);
        tf_image_ref(&s, &p, in, a->channels, a->w, a->h, out);
        if (a->out_w < a->w && a->out_h < a->h)
            EXPECT(memcmp(out, a->want, n) != 0);
        free(in);
        free(out);
    }
}

/* Resize(S) + CenterCrop: the crop's window of Pillow's whole resize
 * (the 61 x 45 case, short side 20: 27 x 20). */
static void test_crop(void)
{
    const struct aa_case *a = NULL;
    for (int k = 0; k < N_CASES; k++)
        if (aa_cases[k].w == 61 && aa_cases[k].h == 45)
            a = &aa_cases[k];
    EXPECT(a != NULL);
    if (!a)
        return;
    tf_spec s = tf_test_spec(TF_SHORT_CROP, 16, 12, 3, TF_UINT8, 1);
    s.short_side = 20;
    tf_place p;
    EXPECT(tf_place_image(&s, 61, 45, &p) == 0 && p.scaled_w == 27 &&
           p.scaled_h == 20 && p.crop_x == 6 && p.crop_y == 4);
    uint8_t *in = make_planes(61, 45, 3), out[3 * 16 * 12];
    tf_image_ref(&s, &p, in, 3, 61, 45, out);
    size_t wrong = 0;
    for (int c = 0; c < 3; c++)
        for (size_t y = 0; y < 12; y++)
            for (size_t x = 0; x < 16; x++)
                wrong += out[(c * 12 + y) * 16 + x] !=
                         a->want[(c * 20 + y + p.crop_y) * 27 + x +
                                 p.crop_x];
    EXPECT(wrong == 0);
    free(in);
}

/* Every orientation, mode, dtype and flip: the stored image with its
 * orientation gives, bit for bit, what the image turned upright first
 * (by tf_orient, which test_06_transform checks) gives; the values are
 * tf_store's of the uint8 run's levels; TF_SAME is untouched. */
static void test_every_way(void)
{
    enum { W = 41, H = 29 };
    uint8_t *planes = make_planes(W, H, 3);
    uint8_t up[3 * W * H];
    const tf_dtype types[3] = {TF_UINT8, TF_FLOAT32, TF_FLOAT16};
    tf_spec cases[] = {
        tf_test_spec(TF_RESIZE, 9, 5, 1, TF_UINT8, 1),
        tf_test_spec(TF_RESIZE, 50, 37, 3, TF_UINT8, 1),
        tf_test_spec(TF_SHORT_CROP, 12, 10, 3, TF_UINT8, 1),
        tf_test_spec(TF_SHORT_CROP, 7, 7, 1, TF_UINT8, 1),
        tf_test_spec(TF_SAME, W, H, 3, TF_UINT8, 1),
    };
    cases[2].short_side = 13;
    cases[3].short_side = 8;
    int same_upright = 1, typed = 1, flipped = 1;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int o = 1; o <= 8; o++) {
            tf_spec s = cases[k];
            size_t uw = o >= 5 ? H : W, uh = o >= 5 ? W : H;
            for (int c = 0; c < 3; c++)
                for (size_t v = 0; v < uh; v++)
                    for (size_t u = 0; u < uw; u++) {
                        size_t x, y;
                        tf_orient(o, u, v, W, H, &x, &y);
                        up[(c * uh + v) * uw + u] = planes[(c * H + y) * W +
                                                           x];
                    }
            tf_place po, pu;
            if (s.mode == TF_SAME) {
                s.out_w = uw;
                s.out_h = uh;
            }
            EXPECT(tf_place_oriented(&s, W, H, o, &po) == 0 &&
                   tf_place_oriented(&s, uw, uh, 1, &pu) == 0);
            EXPECT(po.antialias == (s.mode != TF_SAME));
            size_t n = (size_t)s.channels * s.out_w * s.out_h;
            uint8_t *levels = malloc(n), *b = malloc(n);
            tf_image_ref(&s, &po, planes, s.channels, W, H, levels);
            tf_image_ref(&s, &pu, up, s.channels, uw, uh, b);
            same_upright &= memcmp(levels, b, n) == 0;
            if (s.mode == TF_SAME)
                same_upright &= memcmp(levels, up, n) == 0;
            for (int t = 0; t < 3; t++)
                for (int flip = 0; flip < 2; flip++) {
                    tf_spec f = s;
                    f.dtype = types[t];
                    f.flip = flip;
                    if (t > 0)
                        for (int c = 0; c < 3; c++) {
                            f.mean[c] = 0.4f + 0.03f * (float)c;
                            f.std[c] = 0.2f + 0.01f * (float)c;
                        }
                    size_t e = tf_elem_bytes(f.dtype);
                    uint8_t *got = malloc(n * e), one[4];
                    tf_image_ref(&f, &po, planes, s.channels, W, H, got);
                    for (size_t i = 0; i < n; i++) {
                        size_t plane = s.out_w * s.out_h, x = i % s.out_w;
                        size_t from = flip ? i - x + s.out_w - 1 - x : i;
                        tf_store(&f, (int)(i / plane), levels[from], one);
                        *(flip ? &flipped : &typed) &=
                            memcmp(got + i * e, one, e) == 0;
                    }
                    free(got);
                }
            free(levels);
            free(b);
        }
    EXPECT(same_upright);
    EXPECT(typed);
    EXPECT(flipped);
    free(planes);
}

/* The weights: normalized (a flat image stays flat, up or down, at the
 * largest scale too), never more taps than tf_aa_taps says. */
static void test_weights(void)
{
    const size_t sides[][2] = {{1, 1},    {7, 3},       {3, 7},
                               {224, 4000}, {256, 3000}, {1, 32767},
                               {32767, 2}, {5, 5}};
    int fits = 1, whole = 1;
    for (size_t k = 0; k < sizeof sides / sizeof sides[0]; k++) {
        size_t scaled = sides[k][0], src = sides[k][1];
        size_t taps = tf_aa_taps(scaled, src);
        for (size_t d = 0; d < scaled; d += 1 + scaled / 300) {
            tf_aa_window w;
            tf_aa_window_of(d, scaled, src, &w);
            int64_t sum = 0;
            for (size_t i = 0; i < w.count; i++)
                sum += tf_aa_coeff(&w, i);
            fits &= w.count >= 1 && w.count <= taps &&
                    w.first + w.count <= src;
            /* rounding each of count weights moves the sum by at most
             * count / 2 units */
            whole &= llabs(sum - TF_AA_ONE) <= (long long)w.count / 2 + 1;
        }
    }
    EXPECT(fits);
    EXPECT(whole);
    /* 4000 to 256 (a photo's short side): 2 ceil(15.6) + 1 taps. */
    EXPECT(tf_aa_taps(256, 4000) == 33 && tf_aa_taps(8, 3) == 3);
    /* A flat image stays flat, through both paths, 32767 to 1 included. */
    uint8_t *flat = malloc(32767);
    memset(flat, 200, 32767);
    tf_spec s = tf_test_spec(TF_RESIZE, 1, 1, 1, TF_UINT8, 1);
    tf_place p;
    uint8_t out[64];
    EXPECT(tf_place_image(&s, 32767, 1, &p) == 0);
    tf_image_ref(&s, &p, flat, 1, 32767, 1, out);
    EXPECT(out[0] == 200 && tf_level_at(flat, 32767, 1, &p, 0, 0) == 200);
    s = tf_test_spec(TF_RESIZE, 8, 8, 1, TF_UINT8, 1);
    EXPECT(tf_place_image(&s, 3, 2, &p) == 0);
    tf_image_ref(&s, &p, flat, 1, 3, 2, out);
    int flat_up = 1;
    for (int i = 0; i < 64; i++)
        flat_up &= out[i] == 200;
    EXPECT(flat_up);
    free(flat);
}

int main(void)
{
    test_pillow();
    test_crop();
    test_every_way();
    test_weights();
    return test_summary();
}
