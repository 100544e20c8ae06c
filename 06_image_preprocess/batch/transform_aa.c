/* transform_aa.c - the antialiased resize on the CPU (transform_ref.h):
 * Pillow's Image.resize(size, BILINEAR), which torchvision's
 * Resize(antialias=True) does to a PIL image, re-derived from its
 * libImaging/Resample.c and checked against Pillow's own bytes
 * (tests/test_06_antialias.c). The GPU kernel (transform_aa.cu) does the
 * same arithmetic.
 *
 * Every floating-point step below is one IEEE double operation, rounded
 * on its own: the build compiles this file with -ffp-contract=off
 * (extra.mk, tests/fuzz/fuzz.mk), because a compiler that fused
 * 1.0 - t * ss into one multiply-add (clang does by default, and so
 * would gcc outside -std=c11 on a CPU with FMA) would round once where
 * Pillow, and the GPU's __dmul_rn / __dadd_rn, round twice, and a weight
 * could move by one unit in 2^22.
 */
#include "transform_ref.h"

#include <stdlib.h>

/* Pillow's bilinear filter, support 1: the triangle 1 - |t|. */
static double triangle(double t)
{
    if (t < 0.0)
        t = -t;
    return t < 1.0 ? 1.0 - t : 0.0;
}

/* Tap i's weight before the normalization: the triangle at the distance
 * of source pixel first + i's centre from the window's centre, in units
 * of the filter's scale. */
static double raw_weight(const tf_aa_window *w, size_t i)
{
    double t = (double)(w->first + i) - w->center + 0.5;
    return triangle(t * w->ss);
}

void tf_aa_window_of(size_t d, size_t scaled, size_t src, tf_aa_window *w)
{
    /* Pillow's precompute_coeffs for the box (0, src): scale, the
     * filter's scale (at least 1: an upscale interpolates, a downscale
     * averages over scale pixels) and the support, 1 * filterscale. */
    double scale = (double)src / (double)scaled;
    double filterscale = scale < 1.0 ? 1.0 : scale;
    double support = filterscale;
    w->center = ((double)d + 0.5) * scale;
    w->ss = 1.0 / filterscale;
    /* (int) truncates, as Pillow's casts do; below 0 is clamped to 0,
     * so truncating towards zero there changes nothing. */
    double lo = w->center - support + 0.5, hi = w->center + support + 0.5;
    size_t first = lo < 1.0 ? 0 : (size_t)lo;
    size_t end = hi < 1.0 ? 0 : (size_t)hi;
    if (end > src)
        end = src;
    w->first = first;
    w->count = end > first ? end - first : 0;
    /* The normalization's sum, in Pillow's order. */
    w->sum = 0.0;
    for (size_t i = 0; i < w->count; i++)
        w->sum += raw_weight(w, i);
}

int32_t tf_aa_coeff(const tf_aa_window *w, size_t i)
{
    double k = raw_weight(w, i);
    if (w->sum != 0.0)
        k /= w->sum;
    /* normalize_coeffs_8bpc: 22 fractional bits, rounded half away from
     * zero (every bilinear weight is >= 0). */
    return (int32_t)(0.5 + k * (double)TF_AA_ONE);
}

size_t tf_aa_taps(size_t scaled, size_t src)
{
    /* Pillow's ksize, 2 ceil(support) + 1, and never more than src. */
    size_t support = (src + scaled - 1) / scaled;
    size_t taps = 2 * (support < 1 ? 1 : support) + 1;
    return taps < src ? taps : src;
}

unsigned tf_aa_clip(int32_t sum)
{
    int32_t v = sum >> TF_AA_BITS;
    return v < 0 ? 0u : v > 255 ? 255u : (unsigned)v;
}

/* Pixel (u, v) of the upright image, from the stored plane. */
static unsigned upright(const uint8_t *plane, size_t src_w, size_t src_h,
                        int orientation, size_t u, size_t v)
{
    size_t x, y;
    tf_orient(orientation, u, v, src_w, src_h, &x, &y);
    return plane[y * src_w + x];
}

enum { CACHED_TAPS = 256 };

unsigned tf_aa_level_at(const uint8_t *plane, size_t src_w, size_t src_h,
                        const tf_place *p, size_t x, size_t y)
{
    int o = p->orientation >= 1 && p->orientation <= 8 ? p->orientation : 1;
    size_t up_w = o >= 5 ? src_h : src_w, up_h = o >= 5 ? src_w : src_h;
    tf_aa_window wx, wy;
    tf_aa_window_of(x + p->crop_x, p->scaled_w, up_w, &wx);
    tf_aa_window_of(y + p->crop_y, p->scaled_h, up_h, &wy);
    /* The row's weights once, when they fit on the stack (a downscale by
     * up to 127); else each again for every row: slower, the same. */
    int32_t kx[CACHED_TAPS];
    int cached = wx.count <= CACHED_TAPS;
    for (size_t i = 0; cached && i < wx.count; i++)
        kx[i] = tf_aa_coeff(&wx, i);
    /* The horizontal pass first, each of its values rounded and clipped
     * to a level as Pillow's intermediate image holds it, then the
     * vertical pass over those. */
    int32_t sum = 1 << (TF_AA_BITS - 1);
    for (size_t j = 0; j < wy.count; j++) {
        int32_t row = 1 << (TF_AA_BITS - 1);
        for (size_t i = 0; i < wx.count; i++)
            row += (int32_t)upright(plane, src_w, src_h, o, wx.first + i,
                                    wy.first + j) *
                   (cached ? kx[i] : tf_aa_coeff(&wx, i));
        sum += (int32_t)tf_aa_clip(row) * tf_aa_coeff(&wy, j);
    }
    return tf_aa_clip(sum);
}

int tf_aa_plane_ref(const tf_spec *s, const tf_place *p,
                    const uint8_t *plane, size_t src_w, size_t src_h,
                    uint8_t *levels)
{
    /* Pillow's order over the whole window: the x windows' weights once
     * (at most 2 src + 3 out_w of them), the horizontal pass over every
     * source row the window's rows read, then the vertical pass. */
    int o = p->orientation >= 1 && p->orientation <= 8 ? p->orientation : 1;
    size_t up_w = o >= 5 ? src_h : src_w, up_h = o >= 5 ? src_w : src_h;
    size_t taps = tf_aa_taps(p->scaled_w, up_w), w = s->out_w;
    tf_aa_window first, last;
    tf_aa_window_of(p->crop_y, p->scaled_h, up_h, &first);
    tf_aa_window_of(p->crop_y + s->out_h - 1, p->scaled_h, up_h, &last);
    size_t row0 = first.first, rows = last.first + last.count - row0;
    tf_aa_window *wx = (tf_aa_window *)malloc(w * sizeof *wx);
    int32_t *kx = (int32_t *)malloc(w * taps * sizeof *kx);
    int32_t *ky = (int32_t *)malloc(tf_aa_taps(p->scaled_h, up_h) *
                                    sizeof *ky);
    uint8_t *mid = (uint8_t *)malloc(rows * w);
    if (!wx || !kx || !ky || !mid) {
        free(wx);
        free(kx);
        free(ky);
        free(mid);
        return -1;
    }
    for (size_t x = 0; x < w; x++) {
        tf_aa_window_of(x + p->crop_x, p->scaled_w, up_w, &wx[x]);
        for (size_t i = 0; i < wx[x].count; i++)
            kx[x * taps + i] = tf_aa_coeff(&wx[x], i);
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t x = 0; x < w; x++) {
            /* An image stored upright is read along its row; the
             * others pixel by pixel where tf_orient puts them. */
            const uint8_t *in =
                o == 1 ? plane + (row0 + r) * src_w + wx[x].first : NULL;
            const int32_t *k = kx + x * taps;
            int32_t sum = 1 << (TF_AA_BITS - 1);
            for (size_t i = 0; i < wx[x].count; i++)
                sum += (int32_t)(o == 1 ? in[i]
                                        : upright(plane, src_w, src_h, o,
                                                  wx[x].first + i,
                                                  row0 + r)) * k[i];
            mid[r * w + x] = (uint8_t)tf_aa_clip(sum);
        }
    for (size_t y = 0; y < s->out_h; y++) {
        tf_aa_window wy;
        tf_aa_window_of(y + p->crop_y, p->scaled_h, up_h, &wy);
        for (size_t j = 0; j < wy.count; j++)
            ky[j] = tf_aa_coeff(&wy, j);
        for (size_t x = 0; x < w; x++) {
            int32_t sum = 1 << (TF_AA_BITS - 1);
            for (size_t j = 0; j < wy.count; j++)
                sum += (int32_t)mid[(wy.first - row0 + j) * w + x] * ky[j];
            levels[y * w + x] = (uint8_t)tf_aa_clip(sum);
        }
    }
    free(wx);
    free(kx);
    free(ky);
    free(mid);
    return 0;
}
