/* reference.c - CPU reference and image helpers. */
#include "reference.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

/* The largest side stb_image accepts (STBI_MAX_DIMENSIONS). */
static const size_t MAX_SIDE_PIXELS = (size_t)1 << 24;

void ref_normalize_flip(float *out, const uint8_t *in, size_t width,
                        size_t height)
{
    /* A plain C division: GCC and Clang keep it an IEEE division unless
     * -ffast-math (or -freciprocal-math) is given, which we never do. */
    for (size_t y = 0; y < height; y++) {
        const uint8_t *row = in + y * width;
        for (size_t x = 0; x < width; x++)
            out[y * width + x] = (float)row[width - 1 - x] / 255.0f;
    }
}

size_t ref_first_mismatch(const float *out, const uint8_t *in, size_t width,
                          size_t height)
{
    /* Only 256 results are possible: divide once for each, then look
     * them up. The batch tool checks every image on the CPU, and a
     * division per pixel would cost far more than the GPU's work. */
    float quotient[256];
    for (int v = 0; v < 256; v++)
        quotient[v] = (float)v / 255.0f;
    for (size_t y = 0; y < height; y++) {
        const uint8_t *row = in + y * width;
        for (size_t x = 0; x < width; x++)
            if (out[y * width + x] != quotient[row[width - 1 - x]])
                return y * width + x;
    }
    return width * height;
}

void ref_to_u8(uint8_t *out, const float *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = in[i] * 255.0f;
        out[i] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)lrintf(v);
    }
}

void ref_flip_u8(uint8_t *out, const uint8_t *in, size_t width,
                 size_t height)
{
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++)
            out[y * width + x] = in[y * width + width - 1 - x];
}

void ref_synthetic(uint8_t *img, size_t width, size_t height)
{
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++)
            img[y * width + x] = (uint8_t)((x * 256 / width + y / 8) & 255);
}

/* Source coordinate of a destination pixel centre, and its two
 * neighbours and weight, clamped at the edges. */
static void bilinear_axis(size_t dst, size_t dst_len, size_t src_len,
                          size_t *lo, size_t *hi, double *weight_hi)
{
    double s = ((double)dst + 0.5) * (double)src_len / (double)dst_len - 0.5;
    if (s < 0)
        s = 0;
    *lo = (size_t)s;
    if (*lo >= src_len - 1) {
        *lo = *hi = src_len - 1;
        *weight_hi = 0;
        return;
    }
    *hi = *lo + 1;
    *weight_hi = s - (double)*lo;
}

void ref_resize_bilinear(uint8_t *dst, size_t dst_width, size_t dst_height,
                         const uint8_t *src, size_t src_width,
                         size_t src_height)
{
    for (size_t y = 0; y < dst_height; y++) {
        size_t y0, y1, x0, x1;
        double fy, fx;
        bilinear_axis(y, dst_height, src_height, &y0, &y1, &fy);
        const uint8_t *top = src + y0 * src_width;
        const uint8_t *bottom = src + y1 * src_width;
        for (size_t x = 0; x < dst_width; x++) {
            bilinear_axis(x, dst_width, src_width, &x0, &x1, &fx);
            double upper = top[x0] + fx * (top[x1] - top[x0]);
            double lower = bottom[x0] + fx * (bottom[x1] - bottom[x0]);
            dst[y * dst_width + x] =
                (uint8_t)(upper + fy * (lower - upper) + 0.5);
        }
    }
}

static int parse_side(const char *text, char **end, size_t *out)
{
    if (!isdigit((unsigned char)*text))
        return -1;
    unsigned long long v = strtoull(text, end, 10);
    if (v < 1 || v > MAX_SIDE_PIXELS)
        return -1;
    *out = (size_t)v;
    return 0;
}

int ref_parse_dims(const char *text, size_t *width, size_t *height)
{
    char *end;
    size_t w, h;
    if (parse_side(text, &end, &w) != 0 || (*end != 'x' && *end != 'X') ||
        parse_side(end + 1, &end, &h) != 0 || *end != '\0')
        return -1;
    *width = w;
    *height = h;
    return 0;
}
