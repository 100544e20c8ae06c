/* corpus_jpeg.c - the corpus's own JPEG writer (see corpus_jpeg.h), after
 * ITU-T T.81: the forward DCT and quantization, the sample planes, the
 * scans (Annex G's progressive coding with spectral selection only) and
 * the file; its tables and bit writer are corpus_jpeg_bits.c. */
#include "corpus_jpeg.h"
#include "corpus_jpeg_bits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- transform ---- */

/* The 8-point DCT-II basis: c[u][x] = C(u) / 2 cos((2x + 1) u pi / 16),
 * C(0) = 1 / sqrt(2), else 1 (A.3.3). */
typedef double dct_basis[8][8];

static void init_basis(dct_basis basis)
{
    const double pi = 3.14159265358979323846;
    for (int u = 0; u < 8; u++)
        for (int x = 0; x < 8; x++)
            basis[u][x] = (u ? 0.5 : 0.5 / sqrt(2.0)) *
                          cos((2 * x + 1) * u * pi / 16.0);
}

/* One component: its plane of level-shifted samples (value - 128), the
 * blocks covering it (padded by repeating the last row and column), and
 * their quantized coefficients in zigzag order. */
typedef struct {
    int id, hs, vs;        /* component id, sampling factors */
    int table;             /* 0 luma, 1 chroma: quantization and Huffman */
    int width, height;     /* samples */
    float *plane;
    int bw, bh;            /* blocks in the padded grid (whole MCUs) */
    int16_t *coef;         /* bw * bh * 64 */
} component;

static void quantize_blocks(component *c, const uint8_t qt[64],
                            dct_basis basis)
{
    for (int by = 0; by < c->bh; by++)
        for (int bx = 0; bx < c->bw; bx++) {
            double f[8][8], t[8][8];
            for (int y = 0; y < 8; y++) {
                int sy = by * 8 + y;
                sy = sy < c->height ? sy : c->height - 1;
                for (int x = 0; x < 8; x++) {
                    int sx = bx * 8 + x;
                    sx = sx < c->width ? sx : c->width - 1;
                    f[y][x] = c->plane[(size_t)sy * c->width + sx];
                }
            }
            for (int y = 0; y < 8; y++)
                for (int u = 0; u < 8; u++) {
                    double s = 0;
                    for (int x = 0; x < 8; x++)
                        s += basis[u][x] * f[y][x];
                    t[y][u] = s;
                }
            int16_t *out = c->coef + ((size_t)by * c->bw + bx) * 64;
            for (int k = 0; k < 64; k++) {
                int v = cj_natural[k] / 8, u = cj_natural[k] % 8;
                double s = 0;
                for (int y = 0; y < 8; y++)
                    s += basis[v][y] * t[y][u];
                s /= qt[cj_natural[k]];
                out[k] = (int16_t)(s < 0 ? -(int)(0.5 - s) : (int)(s + 0.5));
            }
        }
}

float cj_luma(uint8_t r, uint8_t g, uint8_t b)
{
    return 0.29900f * r + 0.58700f * g + 0.11400f * b;
}

/* ---- scans ---- */

typedef struct {
    component comp[3];
    int ncomp;
    int hmax, vmax;                   /* the largest sampling factors */
    int mcu_w, mcu_h;                 /* MCUs across and down */
    int restart;                      /* MCUs between RST markers, or 0 */
    huff_codes dc[2], ac[2];
} image;

static void put_sos(writer *w, const image *im, const int *comps, int n,
                    int ss, int se)
{
    cj_put_byte(w, 0xff);
    cj_put_byte(w, 0xda);
    cj_put_u16(w, (unsigned)(6 + 2 * n));
    cj_put_byte(w, (unsigned)n);
    for (int i = 0; i < n; i++) {
        const component *c = &im->comp[comps[i]];
        cj_put_byte(w, (unsigned)c->id);
        cj_put_byte(w, (unsigned)(c->table << 4 | c->table));
    }
    cj_put_byte(w, (unsigned)ss);
    cj_put_byte(w, (unsigned)se);
    cj_put_byte(w, 0);  /* Ah = Al = 0: no successive approximation */
}

/* An interleaved scan of every component, MCU by MCU (A.2.3): the DC
 * scan of a progressive file (se = 0), or a baseline file's only scan
 * (se = 63). With one component, the MCU is one block, and only the
 * blocks inside the image are coded (A.2.2). A baseline scan with a
 * restart interval ends every `restart` MCUs but the last with its bits
 * padded, a marker RST0, RST1, ..., RST7, RST0, ... and the DC
 * predictions reset (F.1.2.3, E.1.4). */
static void interleaved_scan(writer *w, const image *im, int se)
{
    int comps[3] = {0, 1, 2}, pred[3] = {0, 0, 0};
    put_sos(w, im, comps, im->ncomp, 0, se);
    int one = im->ncomp == 1;
    const component *c0 = &im->comp[0];
    int mw = one ? (c0->width + 7) / 8 : im->mcu_w;
    int mh = one ? (c0->height + 7) / 8 : im->mcu_h;
    int restart = se == 63 ? im->restart : 0, marker = 0;
    long mcu = 0;
    for (int my = 0; my < mh; my++)
        for (int mx = 0; mx < mw; mx++, mcu++) {
            if (restart && mcu > 0 && mcu % restart == 0) {
                cj_flush_bits(w);
                cj_put_byte(w, 0xff);
                cj_put_byte(w, 0xd0 + (unsigned)marker);
                marker = (marker + 1) % 8;
                pred[0] = pred[1] = pred[2] = 0;
            }
            for (int i = 0; i < im->ncomp; i++) {
                const component *c = &im->comp[i];
                int hs = one ? 1 : c->hs, vs = one ? 1 : c->vs;
                for (int v = 0; v < vs; v++)
                    for (int h = 0; h < hs; h++) {
                        size_t bx = (size_t)mx * hs + h;
                        size_t by = (size_t)my * vs + v;
                        const int16_t *b =
                            c->coef + (by * c->bw + bx) * 64;
                        cj_encode_dc(w, &im->dc[c->table], b[0], &pred[i]);
                        if (se > 0)
                            cj_encode_ac(w, &im->ac[c->table], b, 1, se);
                    }
            }
        }
    cj_flush_bits(w);
}

/* A progressive AC scan of one component's coefficients ss..se, block
 * by block over the blocks inside the component only (A.2.2). */
static void ac_scan(writer *w, const image *im, int ci, int ss, int se)
{
    const component *c = &im->comp[ci];
    put_sos(w, im, &ci, 1, ss, se);
    int cw = (c->width + 7) / 8, ch = (c->height + 7) / 8;
    for (int by = 0; by < ch; by++)
        for (int bx = 0; bx < cw; bx++)
            cj_encode_ac(w, &im->ac[c->table],
                         c->coef + ((size_t)by * c->bw + bx) * 64, ss, se);
    cj_flush_bits(w);
}

/* ---- the file ---- */

static void scaled_table(const uint8_t base[64], int quality, uint8_t *zz)
{
    int scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
    for (int k = 0; k < 64; k++) {
        int q = (base[cj_natural[k]] * scale + 50) / 100;
        zz[k] = (uint8_t)(q < 1 ? 1 : q > 255 ? 255 : q);
    }
}

static void free_image(image *im)
{
    for (int i = 0; i < 3; i++) {
        free(im->comp[i].plane);
        free(im->comp[i].coef);
    }
}

/* The sample planes: gray as it is, or RGB to YCbCr (JFIF) with Cb and
 * Cr averaged over the hmax x vmax pixels each covers (the last row and
 * column repeated). */
static int make_planes(image *im, const uint8_t *px, int channels, int w,
                       int h)
{
    for (int i = 0; i < im->ncomp; i++) {
        component *c = &im->comp[i];
        c->plane = (float *)malloc((size_t)c->width * c->height *
                                   sizeof(float));
        c->coef = (int16_t *)malloc((size_t)c->bw * c->bh * 64 *
                                    sizeof(int16_t));
        if (!c->plane || !c->coef)
            return -1;
    }
    float *y = im->comp[0].plane;
    for (size_t i = 0; i < (size_t)w * h; i++)
        y[i] = (channels == 1 ? px[i]
                              : cj_luma(px[3 * i], px[3 * i + 1],
                                        px[3 * i + 2])) - 128.0f;
    if (channels == 1)
        return 0;
    component *cb = &im->comp[1], *cr = &im->comp[2];
    for (int cy = 0; cy < cb->height; cy++)
        for (int cx = 0; cx < cb->width; cx++) {
            float sb = 0, sr = 0;
            int hm = im->hmax, vm = im->vmax;
            for (int dy = 0; dy < vm; dy++)
                for (int dx = 0; dx < hm; dx++) {
                    int sx = hm * cx + dx < w ? hm * cx + dx : w - 1;
                    int sy = vm * cy + dy < h ? vm * cy + dy : h - 1;
                    const uint8_t *p = px + 3 * ((size_t)sy * w + sx);
                    sb += -0.16874f * p[0] - 0.33126f * p[1] + 0.5f * p[2];
                    sr += 0.5f * p[0] - 0.41869f * p[1] - 0.08131f * p[2];
                }
            float share = 1.0f / (float)(hm * vm);
            cb->plane[(size_t)cy * cb->width + cx] = sb * share;
            cr->plane[(size_t)cy * cr->width + cx] = sr * share;
        }
    return 0;
}

/* The first segment after SOI: JFIF's APP0, or an Exif APP1 as a camera
 * writes it (a little-endian TIFF header and one IFD: Orientation 1,
 * Software "imgbatch corpus"), which decoders skip. */
static void put_app_segment(writer *w, int exif)
{
    static const uint8_t jfif[] = {0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0,
                                   1, 1, 0, 0, 1, 0, 1, 0, 0};
    static const uint8_t app1[] = {
        0xff, 0xe1, 0, 62, 'E', 'x', 'i', 'f', 0, 0,
        'I', 'I', 42, 0, 8, 0, 0, 0,             /* TIFF, IFD at 8 */
        2, 0,                                    /* two entries */
        0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0,  /* Orientation 1 */
        0x31, 0x01, 2, 0, 16, 0, 0, 0, 38, 0, 0, 0,  /* Software, at 38 */
        0, 0, 0, 0,                              /* no next IFD */
        'i', 'm', 'g', 'b', 'a', 't', 'c', 'h', ' ', 'c', 'o', 'r', 'p',
        'u', 's', 0};
    if (exif)
        cj_put_bytes(w, app1, sizeof app1);
    else
        cj_put_bytes(w, jfif, sizeof jfif);
}

static int refuse(cj_buffer *out)
{
    free(out->data);
    memset(out, 0, sizeof *out);
    return -1;
}

int cj_encode_with(const uint8_t *pixels, int channels, int w, int h,
                   const cj_options *o, cj_buffer *out)
{
    if (!pixels || !o || (channels != 1 && channels != 3) || w < 1 ||
        h < 1 || w > 65535 || h > 65535 || o->quality < 1 ||
        o->quality > 100 || (o->progressive != 0 && o->progressive != 1) ||
        o->chroma < CJ_420 || o->chroma > CJ_444 || o->restart < 0 ||
        o->restart > 65535 || (o->restart && o->progressive))
        return refuse(out);
    dct_basis basis;
    init_basis(basis);
    image im;
    memset(&im, 0, sizeof im);
    im.ncomp = channels;
    im.hmax = channels == 3 && o->chroma != CJ_444 ? 2 : 1;
    im.vmax = channels == 3 && o->chroma == CJ_420 ? 2 : 1;
    im.restart = o->restart;
    im.mcu_w = (w + 8 * im.hmax - 1) / (8 * im.hmax);
    im.mcu_h = (h + 8 * im.vmax - 1) / (8 * im.vmax);
    for (int i = 0; i < im.ncomp; i++) {
        component *c = &im.comp[i];
        c->id = i + 1;
        c->hs = i == 0 ? im.hmax : 1;
        c->vs = i == 0 ? im.vmax : 1;
        c->table = i == 0 ? 0 : 1;
        c->width = (w * c->hs + im.hmax - 1) / im.hmax;   /* A.1.1 */
        c->height = (h * c->vs + im.vmax - 1) / im.vmax;
        c->bw = im.mcu_w * c->hs;
        c->bh = im.mcu_h * c->vs;
    }
    if (make_planes(&im, pixels, channels, w, h) != 0) {
        free_image(&im);
        return refuse(out);
    }
    uint8_t qt[2][64];
    scaled_table(cj_luma_q, o->quality, qt[0]);
    scaled_table(cj_chroma_q, o->quality, qt[1]);
    for (int i = 0; i < im.ncomp; i++) {
        /* The quantizer divides the cj_natural-order coefficient by its
         * cj_natural-order table entry; qt[] is written in zigzag order. */
        uint8_t nat[64];
        for (int k = 0; k < 64; k++)
            nat[cj_natural[k]] = qt[im.comp[i].table][k];
        quantize_blocks(&im.comp[i], nat, basis);
    }
    cj_make_codes(&cj_dc_luma, &im.dc[0]);
    cj_make_codes(&cj_ac_luma, &im.ac[0]);
    cj_make_codes(&cj_dc_chroma, &im.dc[1]);
    cj_make_codes(&cj_ac_chroma, &im.ac[1]);

    writer wr = {out, 0, 0, 0};
    cj_put_byte(&wr, 0xff);
    cj_put_byte(&wr, 0xd8);
    put_app_segment(&wr, o->exif);
    int ntables = im.ncomp == 3 ? 2 : 1;
    for (int t = 0; t < ntables; t++) {
        cj_put_byte(&wr, 0xff);
        cj_put_byte(&wr, 0xdb);
        cj_put_u16(&wr, 2 + 65);
        cj_put_byte(&wr, (unsigned)t);  /* 8-bit entries, table t */
        cj_put_bytes(&wr, qt[t], 64);
    }
    cj_put_byte(&wr, 0xff);
    cj_put_byte(&wr, o->progressive ? 0xc2 : 0xc0);
    cj_put_u16(&wr, (unsigned)(8 + 3 * im.ncomp));
    cj_put_byte(&wr, 8);
    cj_put_u16(&wr, (unsigned)h);
    cj_put_u16(&wr, (unsigned)w);
    cj_put_byte(&wr, (unsigned)im.ncomp);
    for (int i = 0; i < im.ncomp; i++) {
        cj_put_byte(&wr, (unsigned)im.comp[i].id);
        cj_put_byte(&wr, (unsigned)(im.comp[i].hs << 4 | im.comp[i].vs));
        cj_put_byte(&wr, (unsigned)im.comp[i].table);
    }
    cj_put_dht(&wr, 0x00, &cj_dc_luma);
    cj_put_dht(&wr, 0x10, &cj_ac_luma);
    if (ntables == 2) {
        cj_put_dht(&wr, 0x01, &cj_dc_chroma);
        cj_put_dht(&wr, 0x11, &cj_ac_chroma);
    }
    if (im.restart) {  /* DRI: the restart interval, in MCUs */
        cj_put_byte(&wr, 0xff);
        cj_put_byte(&wr, 0xdd);
        cj_put_u16(&wr, 4);
        cj_put_u16(&wr, (unsigned)im.restart);
    }
    if (!o->progressive) {
        interleaved_scan(&wr, &im, 63);
    } else {
        /* The DC of every component, then the low luma band, the chroma,
         * and the rest of the luma. */
        interleaved_scan(&wr, &im, 0);
        ac_scan(&wr, &im, 0, 1, 5);
        for (int i = 1; i < im.ncomp; i++)
            ac_scan(&wr, &im, i, 1, 63);
        ac_scan(&wr, &im, 0, 6, 63);
    }
    cj_put_byte(&wr, 0xff);
    cj_put_byte(&wr, 0xd9);
    free_image(&im);
    return wr.failed ? refuse(out) : 0;
}

int cj_encode(const uint8_t *pixels, int channels, int w, int h,
              int quality, int progressive, cj_buffer *out)
{
    cj_options o = {.quality = quality, .progressive = progressive,
                    .chroma = CJ_420, .restart = 0, .exif = 0};
    return cj_encode_with(pixels, channels, w, h, &o, out);
}
