/* transform_ref.c - the batch tool's transform of one image, on the CPU:
 * the reference the GPU kernel (transform.cu) is checked against. */
#include "transform_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Python's round(d / 2) for a whole d >= 0, halves to even: where
 * torchvision's CenterCrop puts its window (int(round(d / 2.0))). */
static size_t half_to_even(size_t d)
{
    size_t q = d / 2;
    return d % 2 == 0 || q % 2 == 0 ? q : q + 1;
}

int tf_place_image(const tf_spec *s, size_t src_w, size_t src_h,
                   tf_place *p)
{
    return tf_place_oriented(s, src_w, src_h, 1, p);
}

int tf_place_oriented(const tf_spec *s, size_t src_w, size_t src_h,
                      int orientation, tf_place *p)
{
    memset(p, 0, sizeof *p);
    p->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    p->antialias = s->antialias && s->mode != TF_SAME;
    if (p->orientation >= 5) {  /* upright, it is src_h wide */
        size_t t = src_w;
        src_w = src_h;
        src_h = t;
    }
    if (src_w == 0 || src_h == 0 || src_w > TF_MAX_SIDE ||
        src_h > TF_MAX_SIDE)
        return -1;
    if (s->mode == TF_SAME) {
        p->scaled_w = src_w;
        p->scaled_h = src_h;
        return src_w == s->out_w && src_h == s->out_h ? 0 : -1;
    }
    if (s->mode == TF_RESIZE) {
        p->scaled_w = s->out_w;
        p->scaled_h = s->out_h;
        return 0;
    }
    /* The short side becomes S, the long one int(S * long / short) as
     * torchvision computes it (in floating point there; the same whole
     * number here, without rounding error). */
    size_t shorter = src_w < src_h ? src_w : src_h;
    size_t longer = src_w < src_h ? src_h : src_w;
    size_t scaled_long = s->short_side * longer / shorter;
    p->scaled_w = src_w <= src_h ? s->short_side : scaled_long;
    p->scaled_h = src_w <= src_h ? scaled_long : s->short_side;
    if (p->scaled_w > TF_MAX_SIDE || p->scaled_h > TF_MAX_SIDE ||
        p->scaled_w < s->out_w || p->scaled_h < s->out_h)
        return -1;
    p->crop_x = half_to_even(p->scaled_w - s->out_w);
    p->crop_y = half_to_even(p->scaled_h - s->out_h);
    return 0;
}

void tf_axis(size_t d, size_t scaled, size_t src, size_t *lo, size_t *hi,
             unsigned *w)
{
    /* s = (d + 0.5) src / scaled - 0.5 = num / den, exactly: */
    long long num = (long long)(2 * d + 1) * (long long)src -
                    (long long)scaled;
    long long den = 2 * (long long)scaled;
    *lo = *hi = 0;
    *w = 0;
    if (num <= 0)
        return;  /* left of the first pixel centre: clamped */
    size_t base = (size_t)(num / den);
    if (base >= src - 1) {
        *lo = *hi = src - 1;  /* right of the last centre */
        return;
    }
    long long rem = num % den;
    *lo = base;
    *hi = base + 1;
    /* the fraction rem / den in 1/2048ths, rounded half up */
    *w = (unsigned)((rem * TF_WEIGHT_ONE + scaled) / den);
}

void tf_orient(int orientation, size_t u, size_t v, size_t sw, size_t sh,
               size_t *x, size_t *y)
{
    switch (orientation) {
    case 2: *x = sw - 1 - u; *y = v; break;
    case 3: *x = sw - 1 - u; *y = sh - 1 - v; break;
    case 4: *x = u; *y = sh - 1 - v; break;
    case 5: *x = v; *y = u; break;
    case 6: *x = v; *y = sh - 1 - u; break;
    case 7: *x = sw - 1 - v; *y = sh - 1 - u; break;
    case 8: *x = sw - 1 - v; *y = u; break;
    default: *x = u; *y = v; break;
    }
}

/* Pixel (u, v) of the upright image, from the stored plane. */
static unsigned upright_at(const uint8_t *plane, size_t src_w, size_t src_h,
                           int orientation, size_t u, size_t v)
{
    size_t x, y;
    tf_orient(orientation, u, v, src_w, src_h, &x, &y);
    return plane[y * src_w + x];
}

unsigned tf_level_at(const uint8_t *plane, size_t src_w, size_t src_h,
                     const tf_place *p, size_t x, size_t y)
{
    if (p->antialias)
        return tf_aa_level_at(plane, src_w, src_h, p, x, y);
    int o = p->orientation >= 1 && p->orientation <= 8 ? p->orientation : 1;
    size_t up_w = o >= 5 ? src_h : src_w, up_h = o >= 5 ? src_w : src_h;
    size_t x0, x1, y0, y1;
    unsigned wx, wy;
    tf_axis(x + p->crop_x, p->scaled_w, up_w, &x0, &x1, &wx);
    tf_axis(y + p->crop_y, p->scaled_h, up_h, &y0, &y1, &wy);
    /* Rows first, then between them; all in integers, at most
     * 255 * 2^22, so nothing is lost and nothing overflows 32 bits. The
     * four pixels are the upright image's, read where they are stored. */
    uint32_t upper =
        upright_at(plane, src_w, src_h, o, x0, y0) * (TF_WEIGHT_ONE - wx) +
        upright_at(plane, src_w, src_h, o, x1, y0) * wx;
    uint32_t lower =
        upright_at(plane, src_w, src_h, o, x0, y1) * (TF_WEIGHT_ONE - wx) +
        upright_at(plane, src_w, src_h, o, x1, y1) * wx;
    uint32_t v = upper * (TF_WEIGHT_ONE - wy) + lower * wy;
    return (v + (1u << (2 * TF_WEIGHT_BITS - 1))) >> (2 * TF_WEIGHT_BITS);
}

float tf_normalize(const tf_spec *s, int c, unsigned level)
{
    /* Three IEEE float operations, each rounded: the GPU does the same
     * three with __fdiv_rn and __fsub_rn (no fused multiply-add; C's
     * -std=c11 does not contract them either). */
    float v = (float)level / 255.0f;
    return (v - s->mean[c]) / s->std[c];
}

size_t tf_elem_bytes(tf_dtype t)
{
    return t == TF_FLOAT32 ? 4 : t == TF_FLOAT16 ? 2 : 1;
}

const char *tf_dtype_name(tf_dtype t)
{
    return t == TF_FLOAT32 ? "float32" : t == TF_FLOAT16 ? "float16"
                                                         : "uint8";
}

uint16_t tf_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xffu)  /* infinity, or NaN (kept quiet) */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);  /* too large: infinity */
    uint32_t r, rem, half;
    if (e <= 0) {
        /* A subnormal half: the value in units of 2^-24, rounded. */
        uint32_t shift = (uint32_t)(14 - e);
        if (exp == 0 || shift > 24)
            return (uint16_t)sign;  /* below half the smallest: zero */
        uint32_t m = mant | 0x800000u;
        r = m >> shift;
        rem = m & ((1u << shift) - 1);
        half = 1u << (shift - 1);
    } else {
        r = (uint32_t)e << 10 | mant >> 13;
        rem = mant & 0x1fffu;
        half = 0x1000u;
    }
    if (rem > half || (rem == half && (r & 1)))
        r++;  /* a carry may make the next exponent, or infinity: right */
    return (uint16_t)(sign | r);
}

float tf_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, x;
    if (exp == 0x1fu) {
        x = sign | 0x7f800000u | mant << 13;
    } else if (exp != 0) {
        x = sign | (exp - 15 + 127) << 23 | mant << 13;
    } else {
        /* zero or subnormal: mant * 2^-24, exact in float */
        float v = (float)mant * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

void tf_store(const tf_spec *s, int c, unsigned level, void *out)
{
    if (s->dtype == TF_UINT8) {
        *(uint8_t *)out = (uint8_t)level;
        return;
    }
    float v = tf_normalize(s, c, level);
    if (s->dtype == TF_FLOAT32) {
        memcpy(out, &v, sizeof v);
    } else {
        uint16_t h = tf_float_to_half(v);
        memcpy(out, &h, sizeof h);
    }
}

void tf_image_ref(const tf_spec *s, const tf_place *p, const uint8_t *planes,
                  int n_planes, size_t src_w, size_t src_h, void *out)
{
    size_t elem = tf_elem_bytes(s->dtype), plane = src_w * src_h;
    uint8_t *o = (uint8_t *)out;
    /* The antialiased resize pass by pass (Pillow's order, and much
     * faster than pixel by pixel); pixel by pixel if that cannot have
     * its memory: the same levels. */
    uint8_t *levels = p->antialias ? (uint8_t *)malloc(s->out_w * s->out_h)
                                   : NULL;
    for (int c = 0; c < s->channels; c++) {
        const uint8_t *in = planes + (n_planes > 1 ? (size_t)c * plane : 0);
        int whole = levels && tf_aa_plane_ref(s, p, in, src_w, src_h,
                                              levels) == 0;
        for (size_t y = 0; y < s->out_h; y++)
            for (size_t x = 0; x < s->out_w; x++) {
                size_t ox = s->flip ? s->out_w - 1 - x : x;
                size_t at = ((size_t)c * s->out_h + y) * s->out_w + ox;
                unsigned level = whole ? levels[y * s->out_w + x]
                                       : tf_level_at(in, src_w, src_h, p,
                                                     x, y);
                tf_store(s, c, level, o + at * elem);
            }
    }
    free(levels);
}

size_t tf_sample_rows(size_t out_h)
{
    return (out_h + 7) / 8;
}

size_t tf_sample_row(size_t k, size_t out_h)
{
    size_t y = 8 * k + (3 * k) % 8;
    return y < out_h ? y : out_h - 1;
}

void tf_levels_make(const tf_spec *s, tf_levels *t)
{
    memset(t, 0, sizeof *t);
    t->dtype = s->dtype;
    t->channels = s->channels;
    memcpy(t->mean, s->mean, sizeof t->mean);
    memcpy(t->std, s->std, sizeof t->std);
    for (int c = 0; c < s->channels; c++)
        for (unsigned v = 0; v < 256; v++) {
            if (s->dtype == TF_UINT8)
                t->value[c][v] = (float)v;
            else if (s->dtype == TF_FLOAT32)
                t->value[c][v] = tf_normalize(s, c, v);
            else
                t->value[c][v] =
                    tf_half_to_float(tf_float_to_half(tf_normalize(s, c, v)));
        }
}

int tf_level_of(const tf_levels *t, int c, const void *value, int near)
{
    float v;
    if (t->dtype == TF_UINT8) {
        v = (float)*(const uint8_t *)value;
    } else if (t->dtype == TF_FLOAT32) {
        memcpy(&v, value, sizeof v);
    } else {
        uint16_t h;
        memcpy(&h, value, sizeof h);
        v = tf_half_to_float(h);
    }
    if (isnan(v))
        return -1;
    const float *row = t->value[c];
    /* Most values are looked up where the arithmetic puts them: one
     * level, if no neighbour gives the same value. */
    double guess = t->dtype == TF_UINT8
                       ? v
                       : ((double)v * t->std[c] + t->mean[c]) * 255.0;
    if (guess >= 0.5 && guess < 254.5) {
        int g = (int)(guess + 0.5);
        if (row[g] == v && row[g - 1] != v && row[g + 1] != v)
            return g;
    }
    /* Else: the outputs grow with the level (each step of tf_normalize
     * is monotone, std > 0): the first level not below v, by halving. */
    int lo = 0, hi = 256;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (row[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 256 || row[lo] != v)
        return -1;
    /* Several levels may give one value (float16, a large std): the
     * nearest to `near` of the run. */
    int best = lo;
    for (int k = lo + 1; k < 256 && row[k] == v; k++)
        if (abs(k - near) < abs(best - near))
            best = k;
    return best;
}
