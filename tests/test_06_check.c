/* test_06_check.c - the batch tool's check of the tensor against
 * stb_image (batch/batch_check.c), on images made here: a correct
 * decode passes; a decoder that adds 1 to every pixel fails, whatever
 * the type and the resize; one pixel two levels off fails; a few
 * percent of pixels one level off pass, a fifth of them fail over the
 * run; a value that is no level fails; stb_image's own images must
 * match exactly; RGB within its looser rules (means judged only over
 * 4096 values a channel, an image's or the run's; a few pixels' luma
 * over one level apart allowed in a small image), but an image garbled
 * in one block (the check's test hook, check_garble) fails by its luma. No
 * GPU: the "GPU" tensor is transform_ref.c's, from planes altered as a
 * decoder would. And which images the check picks (check_pick_*): all
 * of a pass no longer than the bound, else the bound's number, one in
 * each stretch, the first and last among them, the same every time,
 * at every place of a stretch. And the check that each file's sampled
 * rows are the same in every pass, kept apart by the route that decoded
 * them (check_samples_repeat). */
#include "test.h"
#include "../06_image_preprocess/batch/batch_check.h"
#include "../06_image_preprocess/batch/corpus.h"
#include "../06_image_preprocess/batch/transform_ref.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SW = 67, SH = 45 };
/* A tensor image whose sampled rows hold CHECK_RGB_MEAN_VALUES pixels
 * (16 rows of 256), so that its means are judged. */
enum { BIG_W = 256, BIG_H = 128 };

static uint8_t plane[3][SW * SH];

/* The sampled rows of a whole tensor image, packed as the GPU's
 * launch_gather_samples packs them: channel, sampled row, column. */
static void gather(const tf_spec *s, const uint8_t *image, uint8_t *out)
{
    size_t rows = tf_sample_rows(s->out_h), elem = tf_elem_bytes(s->dtype);
    for (int c = 0; c < s->channels; c++)
        for (size_t k = 0; k < rows; k++)
            memcpy(out + (((size_t)c * rows + k) * s->out_w) * elem,
                   image + (((size_t)c * s->out_h +
                             tf_sample_row(k, s->out_h)) * s->out_w) * elem,
                   s->out_w * elem);
}

/* The comparison of a tensor made from `decoded` with the reference
 * made from `plane`, its sampled rows garbled first in a block of side x
 * side pixels by `levels` levels (side 0: not). */
static check_stats compare_garbled(const tf_spec *s, const uint8_t *decoded,
                                   size_t side, int levels)
{
    static uint8_t image[3 * BIG_W * BIG_H * 4],
        samples[3 * BIG_W * BIG_H * 4];
    tf_place p;
    tf_levels t;
    EXPECT(tf_place_image(s, SW, SH, &p) == 0);
    tf_levels_make(s, &t);
    tf_image_ref(s, &p, decoded, s->channels, SW, SH, image);
    gather(s, image, samples);
    if (side)
        check_garble(s, &t, samples, side, levels);
    check_stats st;
    memset(&st, 0, sizeof st);
    check_compare(s, &t, &p, &plane[0][0], s->channels, SW, SH, samples,
                  &st);
    return st;
}

static check_stats compare(const tf_spec *s, const uint8_t *decoded)
{
    return compare_garbled(s, decoded, 0, 0);
}

/* `decoded` = the reference plus `add` on the pixels whose hash is
 * below share (per mille), clamped to 0..255. */
static void alter(uint8_t *decoded, int channels, int add, unsigned share)
{
    for (int i = 0; i < channels * SW * SH; i++) {
        unsigned h = (unsigned)i * 2654435761u >> 22;  /* 0..1023 */
        int v = (&plane[0][0])[i] + (h % 1000 < share ? add : 0);
        decoded[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

static tf_spec spec_of(int channels, tf_dtype dtype, tf_mode mode)
{
    tf_spec s;
    memset(&s, 0, sizeof s);
    s.mode = mode;
    s.out_w = mode == TF_SAME ? SW : 40;
    s.out_h = mode == TF_SAME ? SH : 30;
    s.channels = channels;
    s.dtype = dtype;
    s.flip = 1;
    const float mean[3] = {0.485f, 0.456f, 0.406f};
    const float std[3] = {0.229f, 0.224f, 0.225f};
    for (int c = 0; c < 3; c++) {
        s.mean[c] = dtype == TF_UINT8 ? 0.0f : mean[c];
        s.std[c] = dtype == TF_UINT8 ? 1.0f : std[c];
    }
    return s;
}

static void gray_rules(tf_dtype dtype, tf_mode mode)
{
    static uint8_t decoded[SW * SH];
    tf_spec s = spec_of(1, dtype, mode);
    /* The same decode: every rule holds, exactly. */
    check_stats st = compare(&s, &plane[0][0]);
    EXPECT(st.values > 0 && st.one_level == 0 && st.worse == 0 &&
           st.inexact == 0);
    EXPECT(check_image_verdict(&st, 1, 1) == NULL &&
           check_image_verdict(&st, 0, 1) == NULL &&
           check_run_verdict(&st, 1) == NULL);
    /* +1 on every pixel: fails the image's and the run's rules. */
    alter(decoded, 1, 1, 1000);
    st = compare(&s, decoded);
    EXPECT(st.one_level > st.values * 9 / 10 && st.worse == 0);
    EXPECT(check_image_verdict(&st, 1, 1) != NULL);
    EXPECT(check_run_verdict(&st, 1) != NULL);
    /* 2% of pixels one level up or down (as two IDCTs differ): pass. */
    alter(decoded, 1, 1, 10);
    st = compare(&s, decoded);
    check_stats down = st;
    alter(decoded, 1, -1, 10);
    down = compare(&s, decoded);
    st.values += down.values;
    st.one_level += down.one_level;
    st.sum += down.sum;
    EXPECT(st.one_level > 0 && check_image_verdict(&down, 1, 1) == NULL &&
           check_run_verdict(&st, 1) == NULL);
    /* A fifth of them: each image passes, the run does not. */
    alter(decoded, 1, 1, 200);
    st = compare(&s, decoded);
    EXPECT(check_image_verdict(&st, 1, 1) == NULL &&
           check_run_verdict(&st, 1) != NULL);
    /* Two levels on some pixels: fails; for stb_image's own image, any
     * difference does. */
    alter(decoded, 1, 2, 30);
    st = compare(&s, decoded);
    EXPECT(st.worse > 0 && check_image_verdict(&st, 1, 1) != NULL);
    alter(decoded, 1, 1, 10);
    st = compare(&s, decoded);
    EXPECT(check_image_verdict(&st, 0, 1) != NULL);
}

/* Each channel's mean difference within CHECK_RGB_CHANNEL_BIAS. */
static int channels_within(const check_stats *st)
{
    for (int c = 0; c < 3; c++)
        if (fabs((double)st->channel_sum[c] / (double)(st->values / 3)) >
            CHECK_RGB_CHANNEL_BIAS)
            return 0;
    return 1;
}

/* `decoded` = the reference with red moved by r and blue by b on every
 * pixel, the signs swapped on every other 4 x 4 block (a checkerboard)
 * when `alternate`: blocks, so that a resize up keeps the differences. */
static void chroma(uint8_t *decoded, int r, int b, int alternate)
{
    for (int i = 0; i < SW * SH; i++) {
        int sign = alternate && (i % SW / 4 + i / SW / 4) % 2 ? -1 : 1;
        for (int c = 0; c < 3; c++) {
            int v = (&plane[0][0])[c * SW * SH + i] +
                    sign * (c == 0 ? r : c == 2 ? b : 0);
            decoded[c * SW * SH + i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255
                                                                   : v);
        }
    }
}

static void other_rules(void)
{
    static uint8_t decoded[3 * SW * SH];
    /* RGB: an exact decode passes, +1 everywhere fails, noise of one or
     * two levels either way (colour conversion, chroma upsampling)
     * passes. The means are judged over CHECK_RGB_MEAN_VALUES values a
     * channel: an image of 256 x 128 (16 sampled rows of 256), not one
     * of 40 x 30 (4 of 40), whose +1 passes; 25 such images summed for
     * the run are not enough (4000 values), 26 are. */
    EXPECT(tf_sample_rows(BIG_H) * BIG_W == CHECK_RGB_MEAN_VALUES);
    tf_spec s = spec_of(3, TF_FLOAT16, TF_RESIZE);
    tf_spec big = s;
    big.out_w = BIG_W;
    big.out_h = BIG_H;
    check_stats st = compare(&big, &plane[0][0]);
    EXPECT(check_image_verdict(&st, 1, 3) == NULL &&
           check_run_verdict(&st, 3) == NULL);
    alter(decoded, 3, 1, 1000);
    st = compare(&big, decoded);
    EXPECT(check_image_verdict(&st, 1, 3) != NULL &&
           check_run_verdict(&st, 3) != NULL);
    st = compare(&s, decoded);
    EXPECT(st.values / 3 < CHECK_RGB_MEAN_VALUES && st.sum > 0 &&
           check_image_verdict(&st, 1, 3) == NULL &&
           check_run_verdict(&st, 3) == NULL);
    check_stats run = st;
    for (int k = 1; k < 26; k++) {
        EXPECT(check_run_verdict(&run, 3) == NULL);
        run.values += st.values;
        run.sum += st.sum;
        for (int c = 0; c < 3; c++)
            run.channel_sum[c] += st.channel_sum[c];
    }
    EXPECT(check_run_verdict(&run, 3) != NULL);
    for (int i = 0; i < 3 * SW * SH; i++) {
        int v = (&plane[0][0])[i] + (i % 4 == 0 ? 2 : i % 4 == 1 ? -2 : 0);
        decoded[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    st = compare(&s, decoded);
    EXPECT(st.worse > 0 && check_image_verdict(&st, 1, 3) == NULL);
    EXPECT(st.luma_values > 0 && st.luma_most <= 1);
    st = compare(&big, decoded);
    EXPECT(st.worse > 0 && check_image_verdict(&st, 1, 3) == NULL &&
           check_run_verdict(&st, 3) == NULL);
    /* Luma over one level apart on 2% of an image's pixels, or on 4
     * where that is more: 40 x 30's 160 sampled pixels with 4 such (the
     * hook on the top row's first 4, by 12 levels) pass, with 5 fail. */
    tf_spec few = spec_of(3, TF_UINT8, TF_RESIZE);
    st = compare_garbled(&few, &plane[0][0], 4, 12);
    EXPECT(st.luma_far == 4 && st.luma_most <= CHECK_LUMA_MOST &&
           check_image_verdict(&st, 1, 3) == NULL);
    st = compare_garbled(&few, &plane[0][0], 5, 12);
    EXPECT(st.luma_far == 5 && check_image_verdict(&st, 1, 3) != NULL);
    /* One block garbled (the test hook imgbatch applies on the GPU),
     * every type, same size and resized: its means pass, its luma does
     * not. 16 x 16 by 50 levels, resized: the per-pixel bound and the
     * share of pixels; at its size, 4 x 4 (one sampled row, 1% of
     * pixels): the bound alone; 16 x 16 by 12 (8%): the share alone, its
     * means within theirs. And gray, by its own rules. */
    const tf_dtype types[3] = {TF_FLOAT32, TF_FLOAT16, TF_UINT8};
    for (int k = 0; k < 3; k++) {
        tf_spec same = spec_of(3, types[k], TF_SAME);
        tf_spec small = spec_of(3, types[k], TF_RESIZE);
        st = compare_garbled(&small, &plane[0][0], 16, 50);
        EXPECT(st.luma_most > CHECK_LUMA_MOST &&
               st.luma_far > CHECK_LUMA_FAR_SHARE * st.luma_values &&
               check_image_verdict(&st, 1, 3) != NULL);
        st = compare_garbled(&same, &plane[0][0], 4, 50);
        const char *why = check_image_verdict(&st, 1, 3);
        EXPECT(st.luma_most > CHECK_LUMA_MOST && st.luma_far > 0 &&
               st.luma_far < CHECK_LUMA_FAR_SHARE * st.luma_values &&
               channels_within(&st) &&
               why && strstr(why, "luma more than 32"));
        st = compare_garbled(&same, &plane[0][0], 16, 12);
        why = check_image_verdict(&st, 1, 3);
        EXPECT(st.luma_most <= CHECK_LUMA_MOST &&
               st.luma_far > CHECK_LUMA_FAR_SHARE * st.luma_values &&
               channels_within(&st) &&
               why && strstr(why, "over one level"));
        tf_spec gray = spec_of(1, types[k], TF_SAME);
        st = compare_garbled(&gray, &plane[0][0], 16, 50);
        EXPECT(st.worse > 0 && check_image_verdict(&st, 1, 1) != NULL);
    }
    /* Chroma upsampled another way: red and blue moved about their
     * means (+3 and -8 in one block, -3 and +8 in the next, luma kept):
     * a mean |difference| over 2 levels passes. Red +2 and blue -2
     * everywhere, their sum 0: red's mean fails, in an image whose
     * means are judged; in 40 x 30 it passes, as a small colourful
     * image's means move that far between two right decoders. */
    tf_spec rgb8 = big;
    rgb8.dtype = TF_UINT8;
    chroma(decoded, 3, -8, 1);
    st = compare(&rgb8, decoded);
    EXPECT((double)st.sum_abs > 2.0 * (double)st.values &&
           check_image_verdict(&st, 1, 3) == NULL &&
           check_run_verdict(&st, 3) == NULL);
    chroma(decoded, 2, -2, 0);
    st = compare(&rgb8, decoded);
    const char *red = check_image_verdict(&st, 1, 3);
    EXPECT(red && strstr(red, "red's mean difference"));
    red = check_run_verdict(&st, 3);
    EXPECT(red && strstr(red, "red's mean difference"));
    st = compare(&few, decoded);
    EXPECT(st.channel_sum[0] > 0 && check_image_verdict(&st, 1, 3) == NULL);
    /* A value that is the output of no level: inexact, whatever path. */
    tf_spec g = spec_of(1, TF_FLOAT32, TF_SAME);
    tf_levels t;
    tf_place p;
    tf_levels_make(&g, &t);
    EXPECT(tf_place_image(&g, SW, SH, &p) == 0);
    static float image[SW * SH], samples[SW * SH];
    tf_image_ref(&g, &p, &plane[0][0], 1, SW, SH, image);
    gather(&g, (const uint8_t *)image, (uint8_t *)samples);
    samples[5] += 1e-3f;
    memset(&st, 0, sizeof st);
    check_compare(&g, &t, &p, &plane[0][0], 1, SW, SH,
                  (const uint8_t *)samples, &st);
    EXPECT(st.inexact == 1 && check_image_verdict(&st, 1, 1) != NULL);
}

/* check_pick_count and check_pick_position over passes of n. */
static void picks(void)
{
    EXPECT(check_pick_count(40, CHECK_IMAGES_DEFAULT) == 40);
    EXPECT(check_pick_count(1024, 1024) == 1024);
    EXPECT(check_pick_count(100000, 1024) == 1024);
    EXPECT(check_pick_count(100000, 0) == 100000);
    EXPECT(check_pick_count(7, 1) == 1 && check_pick_position(7, 1, 0) == 0);
    for (size_t n = 1; n <= 60; n++)  /* a pass within the bound: all */
        for (size_t k = 0; k < n; k++)
            EXPECT(check_pick_position(n, n, k) == k);
    const size_t ns[] = {1025, 2000, 20000, 100000, 1234567};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        size_t n = ns[i], count = check_pick_count(n, 1024), bad = 0;
        size_t last = 0;
        EXPECT(check_pick_position(n, count, 0) == 0);
        EXPECT(check_pick_position(n, count, count - 1) == n - 1);
        for (size_t k = 0; k < count; k++) {
            size_t p = check_pick_position(n, count, k);
            bad += p < k * n / count || p >= (k + 1) * n / count ||
                   (k > 0 && p <= last) ||
                   p != check_pick_position(n, count, k);
            last = p;
        }
        EXPECT(bad == 0);
    }
    /* 51,200 images, 1024 stretches of 50: the picks' places in their
     * stretches take every value, 0 to 49 (any image may be picked). */
    uint8_t seen[50] = {0};
    size_t places = 0;
    for (size_t k = 0; k < 1024; k++)
        places += !seen[check_pick_position(51200, 1024, k) % 50]++;
    EXPECT(places == 50);
}

/* check_samples_repeat over passes of two picked files (0 and 2 of 3),
 * each pass's rows and routes given: 1 while each file's rows are those
 * it had from the same route. */
static int repeat_pass(batch_run *r, uint64_t *by_file, uint8_t *seen,
                       uint8_t rows0, route how0, uint8_t rows2,
                       route how2)
{
    memset(r->h_samples, rows0, r->sample_bytes);
    memset(r->h_samples + r->sample_bytes, rows2, r->sample_bytes);
    r->check_route[0] = (uint8_t)how0;
    r->check_route[1] = (uint8_t)how2;
    return check_samples_repeat(r, by_file, seen);
}

static void repeats(void)
{
    uint8_t samples[2 * 16], routes[2], seen[3] = {0};
    size_t out[2] = {0, 1}, files[2] = {0, 2};
    uint64_t by_file[3 * CHECK_ROUTES];
    batch_run r;
    memset(&r, 0, sizeof r);
    r.n_checked = 2;
    r.sample_bytes = 16;
    r.h_samples = samples;
    r.check_out = out;
    r.check_route = routes;
    r.out_index = files;
    route B = ROUTE_GPU_BATCH, H = ROUTE_GPU_HYBRID;
    EXPECT(repeat_pass(&r, by_file, seen, 7, B, 9, B) == 1);  /* first */
    EXPECT(repeat_pass(&r, by_file, seen, 7, B, 9, B) == 1);  /* same */
    /* file 0 by the hybrid path: other bits, its first time that way */
    EXPECT(repeat_pass(&r, by_file, seen, 8, H, 9, B) == 1);
    EXPECT(repeat_pass(&r, by_file, seen, 7, B, 9, B) == 1);
    EXPECT(repeat_pass(&r, by_file, seen, 8, H, 9, B) == 1);
    /* the same route, other bits: not repeatable, either file */
    EXPECT(repeat_pass(&r, by_file, seen, 6, H, 9, B) == 0);
    EXPECT(repeat_pass(&r, by_file, seen, 7, B, 5, B) == 0);
    /* a skipped pick is left out */
    out[1] = SIZE_MAX;
    EXPECT(repeat_pass(&r, by_file, seen, 7, B, 1, B) == 1);
    EXPECT(seen[0] == (1u << (B - ROUTE_CPU) | 1u << (H - ROUTE_CPU)));
    EXPECT(seen[1] == 0 && seen[2] == 1u << (B - ROUTE_CPU));
}

int main(void)
{
    picks();
    repeats();
    /* A photo-like image: its luma and its R, G, B planes. */
    static uint8_t rgb[SW * SH * 3];
    EXPECT(corpus_synth_rgb(rgb, SW, SH, 4, 2) == 0);
    for (int i = 0; i < SW * SH; i++)
        for (int c = 0; c < 3; c++)
            plane[c][i] = rgb[3 * i + c];
    const tf_dtype types[3] = {TF_FLOAT32, TF_FLOAT16, TF_UINT8};
    for (int k = 0; k < 3; k++) {
        gray_rules(types[k], TF_SAME);
        gray_rules(types[k], TF_RESIZE);
    }
    other_rules();
    return test_summary();
}
