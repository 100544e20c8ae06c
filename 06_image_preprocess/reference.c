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
