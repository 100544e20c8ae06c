/* corpus_jpeg.c - the corpus's own JPEG writer (see corpus_jpeg.h), after
 * ITU-T T.81: Annex K's tables, Annex C's Huffman codes, Annex G's
 * progressive coding with spectral selection only. */
#include "corpus_jpeg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Coefficient k of a block in zigzag order is natural[k] in row-major. */
static const uint8_t natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/* Annex K.1: the example quantization tables, row-major. */
static const uint8_t luma_q[64] = {
    16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
    14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
    18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
static const uint8_t chroma_q[64] = {
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

/* Annex K.3: the example Huffman tables, as code counts per length 1..16
 * and symbols in code order. */
typedef struct {
    uint8_t bits[16];
    uint8_t vals[162];
    int nvals;
} huff_spec;

static const huff_spec dc_luma = {
    {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 12};
static const huff_spec dc_chroma = {
    {0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 12};
static const huff_spec ac_luma = {
    {0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125},
    {0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06,
     0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08,
     0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
     0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
     0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45,
     0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
     0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
     0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
     0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
     0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
     0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
     0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
     0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4,
     0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa}, 162};
static const huff_spec ac_chroma = {
    {0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119},
    {0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41,
     0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91,
     0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
     0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
     0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44,
     0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
     0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74,
     0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
     0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
     0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
     0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
     0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
     0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4,
     0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa}, 162};

/* A symbol's code and length (0: the table has no such symbol). */
typedef struct {
    uint16_t code[256];
    uint8_t len[256];
} huff_codes;

/* Annex C: codes of each length are consecutive, and a length's first
 * code is the previous length's next one, shifted left by one. */
static void make_codes(const huff_spec *spec, huff_codes *hc)
{
    memset(hc, 0, sizeof *hc);
    unsigned code = 0;
    int k = 0;
    for (int len = 1; len <= 16; len++) {
        for (int i = 0; i < spec->bits[len - 1]; i++, k++) {
            hc->code[spec->vals[k]] = (uint16_t)code++;
            hc->len[spec->vals[k]] = (uint8_t)len;
        }
        code <<= 1;
    }
}

/* ---- output ---- */

typedef struct {
    cj_buffer *out;
    uint32_t acc;  /* the bits not yet written, the last `n` of acc */
    int n;
    int failed;
} writer;

static void put_bytes(writer *w, const void *bytes, size_t n)
{
    cj_buffer *b = w->out;
    if (w->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *data = (uint8_t *)realloc(b->data, cap);
        if (!data) {
            w->failed = 1;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
}

static void put_byte(writer *w, unsigned byte)
{
    uint8_t c = (uint8_t)byte;
    put_bytes(w, &c, 1);
}

static void put_u16(writer *w, unsigned v)
{
    put_byte(w, v >> 8);
    put_byte(w, v & 0xff);
}

/* Entropy-coded data: bits MSB first; a 0xff byte is followed by 0x00 so
 * that it cannot be read as a marker (F.1.2.3). */
static void put_bits(writer *w, unsigned bits, int len)
{
    w->acc = (w->acc << len) | (bits & ((1u << len) - 1));
    w->n += len;
    while (w->n >= 8) {
        unsigned byte = (w->acc >> (w->n - 8)) & 0xff;
        put_byte(w, byte);
        if (byte == 0xff)
            put_byte(w, 0);
        w->n -= 8;
    }
    w->acc &= (1u << w->n) - 1;
}

/* The end of a scan: the last byte is filled with 1 bits (F.1.2.3). */
static void flush_bits(writer *w)
{
    if (w->n > 0)
        put_bits(w, (1u << (8 - w->n)) - 1, 8 - w->n);
}

static void put_symbol(writer *w, const huff_codes *hc, int symbol)
{
    put_bits(w, hc->code[symbol], hc->len[symbol]);
}

/* F.1.2.1: a value is sent as its size category (the number of bits of
 * its magnitude) and then that many bits: the value itself when
 * positive, value - 1 in two's complement when negative. */
static int category(int v)
{
    unsigned m = (unsigned)(v < 0 ? -v : v);
    int n = 0;
    while (m) {
        n++;
        m >>= 1;
    }
    return n;
}

static void put_value(writer *w, int v, int size)
{
    if (size)
        put_bits(w, (unsigned)(v < 0 ? v - 1 : v), size);
}

static void put_dht(writer *w, int class_id, const huff_spec *spec)
{
    put_byte(w, 0xff);
    put_byte(w, 0xc4);
    put_u16(w, (unsigned)(2 + 1 + 16 + spec->nvals));
    put_byte(w, (unsigned)class_id);
    put_bytes(w, spec->bits, 16);
    put_bytes(w, spec->vals, (size_t)spec->nvals);
}

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
                int v = natural[k] / 8, u = natural[k] % 8;
                double s = 0;
                for (int y = 0; y < 8; y++)
                    s += basis[v][y] * t[y][u];
                s /= qt[natural[k]];
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
    int mcu_w, mcu_h;                 /* MCUs across and down */
    huff_codes dc[2], ac[2];
} image;

static void encode_dc(writer *w, const huff_codes *hc, int dc, int *pred)
{
    int diff = dc - *pred;
    *pred = dc;
    int size = category(diff);
    put_symbol(w, hc, size);
    put_value(w, diff, size);
}

/* Coefficients ss..se of one block (F.1.2.2 for baseline, G.1.2.2 for a
 * progressive first AC scan): runs of zeros before each non-zero value,
 * 0xf0 for sixteen zeros, and 0x00 (end of band; in a progressive scan an
 * end-of-band run of one block) when only zeros remain. */
static void encode_ac(writer *w, const huff_codes *hc, const int16_t *b,
                      int ss, int se)
{
    int run = 0;
    for (int k = ss; k <= se; k++) {
        if (b[k] == 0) {
            run++;
            continue;
        }
        while (run > 15) {
            put_symbol(w, hc, 0xf0);
            run -= 16;
        }
        int size = category(b[k]);
        put_symbol(w, hc, (run << 4) | size);
        put_value(w, b[k], size);
        run = 0;
    }
    if (run > 0)
        put_symbol(w, hc, 0x00);
}

static void put_sos(writer *w, const image *im, const int *comps, int n,
                    int ss, int se)
{
    put_byte(w, 0xff);
    put_byte(w, 0xda);
    put_u16(w, (unsigned)(6 + 2 * n));
    put_byte(w, (unsigned)n);
    for (int i = 0; i < n; i++) {
        const component *c = &im->comp[comps[i]];
        put_byte(w, (unsigned)c->id);
        put_byte(w, (unsigned)(c->table << 4 | c->table));
    }
    put_byte(w, (unsigned)ss);
    put_byte(w, (unsigned)se);
    put_byte(w, 0);  /* Ah = Al = 0: no successive approximation */
}

/* An interleaved scan of every component, MCU by MCU (A.2.3): the DC
 * scan of a progressive file (se = 0), or a baseline file's only scan
 * (se = 63). With one component, the MCU is one block, and only the
 * blocks inside the image are coded (A.2.2). */
static void interleaved_scan(writer *w, const image *im, int se)
{
    int comps[3] = {0, 1, 2}, pred[3] = {0, 0, 0};
    put_sos(w, im, comps, im->ncomp, 0, se);
    int one = im->ncomp == 1;
    const component *c0 = &im->comp[0];
    int mw = one ? (c0->width + 7) / 8 : im->mcu_w;
    int mh = one ? (c0->height + 7) / 8 : im->mcu_h;
    for (int my = 0; my < mh; my++)
        for (int mx = 0; mx < mw; mx++)
            for (int i = 0; i < im->ncomp; i++) {
                const component *c = &im->comp[i];
                int hs = one ? 1 : c->hs, vs = one ? 1 : c->vs;
                for (int v = 0; v < vs; v++)
                    for (int h = 0; h < hs; h++) {
                        size_t bx = (size_t)mx * hs + h;
                        size_t by = (size_t)my * vs + v;
                        const int16_t *b =
                            c->coef + (by * c->bw + bx) * 64;
                        encode_dc(w, &im->dc[c->table], b[0], &pred[i]);
                        if (se > 0)
                            encode_ac(w, &im->ac[c->table], b, 1, se);
                    }
            }
    flush_bits(w);
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
            encode_ac(w, &im->ac[c->table],
                      c->coef + ((size_t)by * c->bw + bx) * 64, ss, se);
    flush_bits(w);
}

/* ---- the file ---- */

static void scaled_table(const uint8_t base[64], int quality, uint8_t *zz)
{
    int scale = quality < 50 ? 5000 / quality : 200 - quality * 2;
    for (int k = 0; k < 64; k++) {
        int q = (base[natural[k]] * scale + 50) / 100;
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
 * Cr averaged over 2 x 2 pixels (the last row and column repeated). */
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
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    int sx = 2 * cx + dx < w ? 2 * cx + dx : w - 1;
                    int sy = 2 * cy + dy < h ? 2 * cy + dy : h - 1;
                    const uint8_t *p = px + 3 * ((size_t)sy * w + sx);
                    sb += -0.16874f * p[0] - 0.33126f * p[1] + 0.5f * p[2];
                    sr += 0.5f * p[0] - 0.41869f * p[1] - 0.08131f * p[2];
                }
            cb->plane[(size_t)cy * cb->width + cx] = sb * 0.25f;
            cr->plane[(size_t)cy * cr->width + cx] = sr * 0.25f;
        }
    return 0;
}

int cj_encode(const uint8_t *pixels, int channels, int w, int h,
              int quality, int progressive, cj_buffer *out)
{
    if (!pixels || (channels != 1 && channels != 3) || w < 1 || h < 1 ||
        w > 65535 || h > 65535 || quality < 1 || quality > 100 ||
        (progressive != 0 && progressive != 1)) {
        free(out->data);
        memset(out, 0, sizeof *out);
        return -1;
    }
    dct_basis basis;
    init_basis(basis);
    image im;
    memset(&im, 0, sizeof im);
    im.ncomp = channels;
    int hmax = channels == 3 ? 2 : 1;
    im.mcu_w = (w + 8 * hmax - 1) / (8 * hmax);
    im.mcu_h = (h + 8 * hmax - 1) / (8 * hmax);
    for (int i = 0; i < im.ncomp; i++) {
        component *c = &im.comp[i];
        c->id = i + 1;
        c->hs = c->vs = i == 0 ? hmax : 1;
        c->table = i == 0 ? 0 : 1;
        c->width = (w * c->hs + hmax - 1) / hmax;   /* A.1.1 */
        c->height = (h * c->vs + hmax - 1) / hmax;
        c->bw = im.mcu_w * c->hs;
        c->bh = im.mcu_h * c->vs;
    }
    if (make_planes(&im, pixels, channels, w, h) != 0) {
        free_image(&im);
        free(out->data);
        memset(out, 0, sizeof *out);
        return -1;
    }
    uint8_t qt[2][64];
    scaled_table(luma_q, quality, qt[0]);
    scaled_table(chroma_q, quality, qt[1]);
    for (int i = 0; i < im.ncomp; i++) {
        /* The quantizer divides the natural-order coefficient by its
         * natural-order table entry; qt[] is written in zigzag order. */
        uint8_t nat[64];
        for (int k = 0; k < 64; k++)
            nat[natural[k]] = qt[im.comp[i].table][k];
        quantize_blocks(&im.comp[i], nat, basis);
    }
    make_codes(&dc_luma, &im.dc[0]);
    make_codes(&ac_luma, &im.ac[0]);
    make_codes(&dc_chroma, &im.dc[1]);
    make_codes(&ac_chroma, &im.ac[1]);

    writer wr = {out, 0, 0, 0};
    static const uint8_t jfif[] = {0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F',
                                   'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0};
    put_bytes(&wr, jfif, sizeof jfif);
    int ntables = im.ncomp == 3 ? 2 : 1;
    for (int t = 0; t < ntables; t++) {
        put_byte(&wr, 0xff);
        put_byte(&wr, 0xdb);
        put_u16(&wr, 2 + 65);
        put_byte(&wr, (unsigned)t);  /* 8-bit entries, table t */
        put_bytes(&wr, qt[t], 64);
    }
    put_byte(&wr, 0xff);
    put_byte(&wr, progressive ? 0xc2 : 0xc0);
    put_u16(&wr, (unsigned)(8 + 3 * im.ncomp));
    put_byte(&wr, 8);
    put_u16(&wr, (unsigned)h);
    put_u16(&wr, (unsigned)w);
    put_byte(&wr, (unsigned)im.ncomp);
    for (int i = 0; i < im.ncomp; i++) {
        put_byte(&wr, (unsigned)im.comp[i].id);
        put_byte(&wr, (unsigned)(im.comp[i].hs << 4 | im.comp[i].vs));
        put_byte(&wr, (unsigned)im.comp[i].table);
    }
    put_dht(&wr, 0x00, &dc_luma);
    put_dht(&wr, 0x10, &ac_luma);
    if (ntables == 2) {
        put_dht(&wr, 0x01, &dc_chroma);
        put_dht(&wr, 0x11, &ac_chroma);
    }
    if (!progressive) {
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
    put_byte(&wr, 0xff);
    put_byte(&wr, 0xd9);
    free_image(&im);
    if (wr.failed) {
        free(out->data);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}
