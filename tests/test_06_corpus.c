/* test_06_corpus.c - the benchmark corpus of 06's batch tool: every
 * kind of file it writes is a JPEG of the right kind (the markers say
 * baseline or progressive, 4:2:0, 4:2:2, 4:4:4 or gray, restart markers
 * and Exif where asked), decodes with stb_image to the right size and
 * close to the image it was made from, and comes out the same byte for
 * byte each time; a wild corpus varies its files as planned; a crop of
 * a photograph is what it should be. */
#include "test.h"
#include "../06_image_preprocess/batch/corpus.h"
#include "../06_image_preprocess/batch/corpus_jpeg.h"

#include "stb_image.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frame header of a JPEG: which SOF marker, components, and the
 * first component's sampling factors; -1 when there is none. */
typedef struct {
    int sof, width, height, ncomp, sampling0;
} frame;

static frame find_frame(const uint8_t *d, size_t len)
{
    frame f = {-1, 0, 0, 0, 0};
    size_t i = 2;
    if (len < 4 || d[0] != 0xff || d[1] != 0xd8)
        return f;
    while (i + 4 <= len && d[i] == 0xff) {
        int marker = d[i + 1];
        size_t seg = (size_t)d[i + 2] << 8 | d[i + 3];
        if (marker >= 0xc0 && marker <= 0xc2 && i + 2 + seg <= len &&
            seg >= 11) {
            f.sof = marker;
            f.height = d[i + 5] << 8 | d[i + 6];
            f.width = d[i + 7] << 8 | d[i + 8];
            f.ncomp = d[i + 9];
            f.sampling0 = d[i + 11];
            return f;
        }
        i += 2 + seg;
    }
    return f;
}

/* Mean squared difference of n bytes. */
static double mse(const uint8_t *a, const uint8_t *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - b[i];
        s += d * d;
    }
    return s / (double)n;
}

static double psnr(double m)
{
    return m > 0 ? 10 * log10(255.0 * 255.0 / m) : 99;
}

/* One image of one kind: the markers, then stb_image's decode against
 * the source (gray: the rounded luma; colour: its luma). The bound: q90
 * on this texture gives over 30 dB luma on every size here; a wrong
 * coefficient order, table or block position gives under 20. Returns the
 * PSNR of the colour decode against the source RGB (0 for gray). */
static double check_kind(corpus_kind kind, int w, int h, const uint8_t *rgb,
                         const uint8_t *gray)
{
    cj_buffer b = {NULL, 0, 0};
    EXPECT(corpus_encode(kind, rgb, w, h, 90, &b) == 0);
    if (!b.data)
        return 0;
    int progressive = kind == CORPUS_PROGRESSIVE ||
                      kind == CORPUS_GRAY_PROGRESSIVE;
    int is_gray = kind == CORPUS_GRAY || kind == CORPUS_GRAY_PROGRESSIVE;
    frame f = find_frame(b.data, b.len);
    EXPECT(f.sof == (progressive ? 0xc2 : 0xc0));
    EXPECT(f.width == w && f.height == h);
    EXPECT(f.ncomp == (is_gray ? 1 : 3));
    EXPECT(f.sampling0 == (is_gray ? 0x11 : 0x22));  /* 4:2:0 at q90 */
    EXPECT(b.len >= 2 && b.data[b.len - 2] == 0xff &&
           b.data[b.len - 1] == 0xd9);

    int dw = 0, dh = 0, dc = 0;
    uint8_t *y = stbi_load_from_memory(b.data, (int)b.len, &dw, &dh, &dc, 1);
    EXPECT(y != NULL);
    if (y) {
        EXPECT(dw == w && dh == h);
        EXPECT(dc == (is_gray ? 1 : 3));
        double p = psnr(mse(y, gray, (size_t)w * h));
        if (p < 30)
            fprintf(stderr, "kind %d, %d x %d: luma %.1f dB\n", (int)kind, w,
                    h, p);
        EXPECT(p >= 30);
        stbi_image_free(y);
    }
    double rgb_psnr = 0;
    if (!is_gray) {
        uint8_t *c = stbi_load_from_memory(b.data, (int)b.len, &dw, &dh,
                                           &dc, 3);
        EXPECT(c != NULL);
        if (c) {
            rgb_psnr = psnr(mse(c, rgb, (size_t)w * h * 3));
            stbi_image_free(c);
        }
    }
    free(b.data);
    return rgb_psnr;
}

/* The writer's progressive file holds the same quantized coefficients
 * as its baseline file, only sent in another order, so stb_image must
 * decode both to the same pixels, exactly. */
static void check_same_coefficients(const uint8_t *px, int channels, int w,
                                    int h)
{
    cj_buffer base = {NULL, 0, 0}, prog = {NULL, 0, 0};
    EXPECT(cj_encode(px, channels, w, h, 90, 0, &base) == 0);
    EXPECT(cj_encode(px, channels, w, h, 90, 1, &prog) == 0);
    int bw, bh, bc, pw, ph, pc;
    uint8_t *a = base.data ? stbi_load_from_memory(base.data, (int)base.len,
                                                   &bw, &bh, &bc, channels)
                           : NULL;
    uint8_t *b = prog.data ? stbi_load_from_memory(prog.data, (int)prog.len,
                                                   &pw, &ph, &pc, channels)
                           : NULL;
    EXPECT(a && b);
    if (a && b) {
        EXPECT(bw == pw && bh == ph);
        EXPECT(memcmp(a, b, (size_t)w * h * channels) == 0);
    }
    stbi_image_free(a);
    stbi_image_free(b);
    free(base.data);
    free(prog.data);
}

static void check_size(int w, int h)
{
    size_t n = (size_t)w * h;
    uint8_t *rgb = malloc(n * 3), *again = malloc(n * 3), *gray = malloc(n);
    EXPECT(rgb && again && gray);
    if (!rgb || !again || !gray) {
        free(rgb);
        free(again);
        free(gray);
        return;
    }
    EXPECT(corpus_synth_rgb(rgb, w, h, 7, 3) == 0);
    EXPECT(corpus_synth_rgb(again, w, h, 7, 3) == 0);
    EXPECT(memcmp(rgb, again, n * 3) == 0);  /* deterministic */
    corpus_rgb_to_gray(gray, rgb, n);
    const corpus_kind kinds[] = {CORPUS_BASELINE, CORPUS_PROGRESSIVE,
                                 CORPUS_GRAY, CORPUS_GRAY_PROGRESSIVE};
    double rgb_psnr[4];
    for (int k = 0; k < 4; k++)
        rgb_psnr[k] = check_kind(kinds[k], w, h, rgb, gray);
    /* Colour: chroma at half resolution loses more than luma, most on
     * tiny images whose shapes' edges are sharp, so the writer's
     * progressive 4:2:0 is held to stb_image_write's baseline 4:2:0 of
     * the same pixels, an encoder written independently: chroma samples
     * in the wrong place or the wrong table would fall far below it. */
    if (rgb_psnr[1] < rgb_psnr[0] - 0.5 || (w >= 300 && rgb_psnr[0] < 25))
        fprintf(stderr, "%d x %d: RGB %.1f dB (stb_image_write) and "
                "%.1f dB (ours)\n", w, h, rgb_psnr[0], rgb_psnr[1]);
    EXPECT(rgb_psnr[1] >= rgb_psnr[0] - 0.5);
    EXPECT(w < 300 || rgb_psnr[0] >= 25);
    check_same_coefficients(rgb, 3, w, h);
    check_same_coefficients(gray, 1, w, h);
    free(rgb);
    free(again);
    free(gray);
}

/* The markers of a file: the frame's sampling byte of component 0, the
 * restart interval (DRI, 0 if none), the RST markers in the scan, and
 * whether an Exif APP1 or a JFIF APP0 segment is there. */
typedef struct {
    int sampling0, ncomp, restart, rst, exif, jfif;
} markers;

static markers find_markers(const uint8_t *d, size_t len)
{
    markers m = {0, 0, 0, 0, 0, 0};
    size_t i = 2;
    while (i + 4 <= len && d[i] == 0xff) {
        int marker = d[i + 1];
        size_t seg = (size_t)d[i + 2] << 8 | d[i + 3];
        if (marker == 0xc0 || marker == 0xc2) {
            m.ncomp = d[i + 9];
            m.sampling0 = d[i + 11];
        } else if (marker == 0xdd) {
            m.restart = d[i + 4] << 8 | d[i + 5];
        } else if (marker == 0xe1 && seg >= 8) {
            m.exif = memcmp(d + i + 4, "Exif\0\0", 6) == 0;
        } else if (marker == 0xe0 && seg >= 7) {
            m.jfif = memcmp(d + i + 4, "JFIF", 5) == 0;
        } else if (marker == 0xda) {
            for (size_t k = i + 2 + seg; k + 1 < len; k++)
                m.rst += d[k] == 0xff && d[k + 1] >= 0xd0 && d[k + 1] <= 0xd7;
            break;
        }
        i += 2 + seg;
    }
    return m;
}

/* Every chroma sampling, with and without restart markers and Exif:
 * stb_image decodes it close to the source, the headers say what was
 * asked, and restart markers change no pixel (the same coefficients). */
static void check_options(int w, int h)
{
    size_t n = (size_t)w * h;
    uint8_t *rgb = malloc(n * 3), *gray = malloc(n);
    EXPECT(rgb && gray && corpus_synth_rgb(rgb, w, h, 3, 5) == 0);
    if (!rgb || !gray) {
        free(rgb);
        free(gray);
        return;
    }
    corpus_rgb_to_gray(gray, rgb, n);
    const int sampling[3] = {0x22, 0x21, 0x11};
    for (int channels = 1; channels <= 3; channels += 2)
        for (int chroma = CJ_420; chroma <= CJ_444; chroma++) {
            uint8_t *plain = NULL;
            int mcu_w = channels == 1 ? (w + 7) / 8
                        : chroma == CJ_444 ? (w + 7) / 8 : (w + 15) / 16;
            int mcu_h = channels == 1 || chroma != CJ_420 ? (h + 7) / 8
                                                          : (h + 15) / 16;
            const int restarts[4] = {0, 1, 7, mcu_w};
            for (int r = 0; r < 4; r++) {
                cj_options o = {.quality = 85, .progressive = 0,
                                .chroma = (cj_chroma)chroma,
                                .restart = restarts[r], .exif = r % 2};
                cj_buffer b = {NULL, 0, 0};
                EXPECT(cj_encode_with(channels == 3 ? rgb : gray, channels,
                                      w, h, &o, &b) == 0);
                if (!b.data)
                    continue;
                markers m = find_markers(b.data, b.len);
                EXPECT(m.ncomp == channels);
                EXPECT(m.sampling0 == (channels == 1 ? 0x11
                                                     : sampling[chroma]));
                EXPECT(m.restart == restarts[r]);
                int mcus = mcu_w * mcu_h;
                EXPECT(m.rst == (restarts[r] ? (mcus - 1) / restarts[r]
                                             : 0));
                EXPECT(m.exif == r % 2 && m.jfif == !(r % 2));
                int dw, dh, dc;
                uint8_t *y = stbi_load_from_memory(b.data, (int)b.len, &dw,
                                                   &dh, &dc, 1);
                uint8_t *c = stbi_load_from_memory(b.data, (int)b.len, &dw,
                                                   &dh, &dc, 3);
                EXPECT(y && c && dw == w && dh == h && dc == channels);
                if (y)
                    EXPECT(psnr(mse(y, gray, n)) >= 30);
                /* Chroma in the wrong place or of the wrong size would
                 * fall far below (under 20 dB here). */
                if (c && channels == 3 && w >= 64) {
                    double p = psnr(mse(c, rgb, n * 3));
                    if (p < 27)
                        fprintf(stderr, "chroma %d: RGB %.1f dB\n", chroma,
                                p);
                    EXPECT(p >= 27);
                }
                if (c && !plain)
                    plain = c;
                else if (c) {
                    EXPECT(memcmp(c, plain, n * 3) == 0);
                    stbi_image_free(c);
                }
                stbi_image_free(y);
                free(b.data);
            }
            stbi_image_free(plain);
        }
    free(rgb);
    free(gray);
}

/* A wild corpus: each file within the planned ranges, the shares near
 * what corpus.h says, the same plan every time; all_420: no other. */
static void check_wild(void)
{
    corpus_recipe r = {.kind = CORPUS_WILD, .width = 1, .height = 1,
                       .quality = 1, .seed = 9, .all_420 = 0};
    enum { N = 4000 };
    int gray = 0, c420 = 0, c422 = 0, c444 = 0, restart = 0, exif = 0;
    int in_range = 1, same = 1;
    for (uint64_t i = 0; i < N; i++) {
        corpus_file f, again;
        corpus_plan(&r, i, &f);
        corpus_plan(&r, i, &again);
        same &= memcmp(&f, &again, sizeof f) == 0;
        in_range &= f.width >= 333 && f.width <= 640 && f.height >= 333 &&
                    f.height <= 640 && f.jpeg.quality >= 80 &&
                    f.jpeg.quality <= 95 && !f.jpeg.progressive &&
                    f.kind == CORPUS_WILD;
        gray += f.channels == 1;
        c420 += f.channels == 3 && f.jpeg.chroma == CJ_420;
        c422 += f.channels == 3 && f.jpeg.chroma == CJ_422;
        c444 += f.channels == 3 && f.jpeg.chroma == CJ_444;
        restart += f.jpeg.restart > 0;
        exif += f.jpeg.exif;
    }
    EXPECT(in_range && same);
    EXPECT(gray > N * 5 / 100 && gray < N * 11 / 100);
    EXPECT(c420 > (N - gray) * 64 / 100 && c420 < (N - gray) * 76 / 100);
    EXPECT(c422 > N / 10 && c444 > N / 10);
    EXPECT(restart > N / 5 && restart < N * 3 / 10);
    EXPECT(exif > N * 35 / 100 && exif < N * 45 / 100);
    r.all_420 = 1;
    int other = 0;
    for (uint64_t i = 0; i < 500; i++) {
        corpus_file f;
        corpus_plan(&r, i, &f);
        other += f.channels != 3 || f.jpeg.chroma != CJ_420;
    }
    EXPECT(other == 0);
    /* one_size: every wild file the recipe's size, the rest as before. */
    r.one_size = 1;
    r.width = 500;
    r.height = 375;
    corpus_file f0, f1;
    corpus_plan(&r, 7, &f0);
    r.one_size = 0;
    corpus_plan(&r, 7, &f1);
    EXPECT(f0.width == 500 && f0.height == 375 &&
           f0.jpeg.chroma == f1.jpeg.chroma &&
           f0.jpeg.quality == f1.jpeg.quality);
    /* Other kinds keep their one size and quality. */
    corpus_recipe m = {.kind = CORPUS_MIXED, .width = 64, .height = 48,
                       .quality = 77, .seed = 1, .all_420 = 0};
    corpus_file f;
    corpus_plan(&m, 3, &f);
    EXPECT(f.kind == CORPUS_PROGRESSIVE && f.jpeg.progressive &&
           f.width == 64 && f.jpeg.quality == 77 && f.channels == 3);
}

/* A crop of a photograph: a flat photograph gives a flat image; a
 * left-to-right ramp stays one (the crop keeps its orientation); the
 * same (seed, index) the same crop. */
static void check_photo_crop(void)
{
    enum { PW = 90, PH = 60, W = 40, H = 30 };
    uint8_t *flat = malloc(PW * PH * 3), *ramp = malloc(PW * PH * 3);
    uint8_t a[W * H * 3], b[W * H * 3];
    EXPECT(flat && ramp);
    if (!flat || !ramp) {
        free(flat);
        free(ramp);
        return;
    }
    memset(flat, 123, PW * PH * 3);
    for (int i = 0; i < PW * PH; i++)
        for (int k = 0; k < 3; k++)
            ramp[3 * i + k] = (uint8_t)(i % PW * 2);
    uint8_t *rgb[2] = {flat, ramp};
    int width[2] = {PW, PW}, height[2] = {PH, PH};
    corpus_photos one = {rgb, width, height, 1};
    corpus_photo_crop(&one, a, W, H, 1, 0);
    int all = 1;
    for (int i = 0; i < W * H * 3; i++)
        all &= a[i] == 123;
    EXPECT(all);
    corpus_photos other = {rgb + 1, width, height, 1};
    corpus_photo_crop(&other, a, W, H, 1, 5);
    corpus_photo_crop(&other, b, W, H, 1, 5);
    EXPECT(memcmp(a, b, sizeof a) == 0);
    int rising = 1;
    for (int y = 0; y < H; y++)
        for (int x = 1; x < W; x++)
            rising &= a[3 * (y * W + x)] >= a[3 * (y * W + x - 1)];
    EXPECT(rising && a[3 * (W - 1)] > a[0]);
    free(flat);
    free(ramp);
}

int main(void)
{
    /* ImageNet's typical size, odd sizes (partial MCUs and, for 4:2:0,
     * chroma planes of odd size), smaller than one MCU, one pixel. */
    const int sizes[][2] = {{500, 375}, {333, 251}, {17, 9}, {8, 8},
                            {1, 1},     {31, 2},    {2, 47}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_size(sizes[i][0], sizes[i][1]);
    check_options(67, 45);
    check_options(8, 8);
    check_options(1, 1);
    check_wild();
    check_photo_crop();

    /* Same options, same bytes; another index or seed, another image. */
    int w = 64, h = 48;
    uint8_t *a = malloc((size_t)w * h * 3), *b = malloc((size_t)w * h * 3);
    EXPECT(a && b);
    if (a && b) {
        corpus_synth_rgb(a, w, h, 1, 0);
        corpus_synth_rgb(b, w, h, 1, 1);
        EXPECT(memcmp(a, b, (size_t)w * h * 3) != 0);
        corpus_synth_rgb(b, w, h, 2, 0);
        EXPECT(memcmp(a, b, (size_t)w * h * 3) != 0);
        for (int k = 0; k < 4; k++) {
            cj_buffer x = {NULL, 0, 0}, y = {NULL, 0, 0};
            EXPECT(corpus_encode((corpus_kind)k, a, w, h, 90, &x) == 0);
            EXPECT(corpus_encode((corpus_kind)k, a, w, h, 90, &y) == 0);
            EXPECT(x.len == y.len && x.data && y.data &&
                   memcmp(x.data, y.data, x.len) == 0);
            free(x.data);
            free(y.data);
        }
        /* stb_image_write: 4:2:0 up to quality 90, 4:4:4 above. */
        cj_buffer q = {NULL, 0, 0};
        EXPECT(corpus_encode(CORPUS_BASELINE, a, w, h, 91, &q) == 0);
        EXPECT(q.data && find_frame(q.data, q.len).sampling0 == 0x11);
        free(q.data);
    }
    free(a);
    free(b);

    /* Photo-like at q90: a few bits per pixel, as camera JPEGs have
     * (this texture gives about 2.6), not the fraction of a bit of a
     * smooth synthetic image. */
    w = 500;
    h = 375;
    a = malloc((size_t)w * h * 3);
    EXPECT(a != NULL);
    if (a) {
        double bits = 0;
        for (int i = 0; i < 4; i++) {
            cj_buffer x = {NULL, 0, 0};
            corpus_synth_rgb(a, w, h, 1, (uint64_t)i);
            EXPECT(corpus_encode(CORPUS_BASELINE, a, w, h, 90, &x) == 0);
            bits += 8.0 * (double)x.len / ((double)w * h) / 4;
            free(x.data);
        }
        EXPECT(bits > 1.5 && bits < 4.5);
        free(a);
    }

    /* The mixed corpus: every 4th file progressive. */
    EXPECT(corpus_file_kind(CORPUS_MIXED, 0) == CORPUS_BASELINE);
    EXPECT(corpus_file_kind(CORPUS_MIXED, 2) == CORPUS_BASELINE);
    EXPECT(corpus_file_kind(CORPUS_MIXED, 3) == CORPUS_PROGRESSIVE);
    EXPECT(corpus_file_kind(CORPUS_MIXED, 7) == CORPUS_PROGRESSIVE);
    EXPECT(corpus_file_kind(CORPUS_GRAY, 3) == CORPUS_GRAY);

    /* The writer refuses what JPEG cannot hold. */
    uint8_t px[3] = {1, 2, 3};
    cj_buffer z = {NULL, 0, 0};
    EXPECT(cj_encode(px, 2, 1, 1, 90, 0, &z) == -1);
    EXPECT(cj_encode(px, 3, 0, 1, 90, 0, &z) == -1);
    EXPECT(cj_encode(px, 3, 65536, 1, 90, 0, &z) == -1);
    EXPECT(cj_encode(px, 3, 1, 1, 0, 0, &z) == -1);
    EXPECT(cj_encode(px, 3, 1, 1, 101, 0, &z) == -1);
    EXPECT(cj_encode(NULL, 3, 1, 1, 90, 0, &z) == -1);
    EXPECT(z.data == NULL && z.len == 0);
    return test_summary();
}
