/* reference.h - the CPU side of the chapter: the reference result the GPU
 * is checked against, a built-in test image, and small image helpers.
 *
 *   ref_normalize_flip(h_ref, h_gray, width, height);
 *   cm_check_equal(&v, "fused vs CPU", h_out, h_ref, CM_FLOAT32, n);
 *
 * Images are row-major, width pixels per row, one byte per pixel.
 */
#ifndef REFERENCE_H
#define REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[y][x] = in[y][width - 1 - x] / 255.0f: astype(float32) / 255.0 and
 * flip(axis=1). float32 division is correctly rounded (IEEE 754), so a GPU
 * that divides the same way gives exactly these bits. */
void ref_normalize_flip(float *out, const uint8_t *in, size_t width,
                        size_t height);

/* Back to 8 bits for a PNG: round(x * 255), clamped to 0..255. For
 * x = v / 255.0f this gives v back exactly. */
void ref_to_u8(uint8_t *out, const float *in, size_t n);

/* out[y][x] = in[y][width - 1 - x]. */
void ref_flip_u8(uint8_t *out, const uint8_t *in, size_t width,
                 size_t height);

/* The built-in test image: a horizontal ramp over all 256 gray levels
 * whose bands slant downwards, so a flip is easy to see. Deterministic. */
void ref_synthetic(uint8_t *img, size_t width, size_t height);

/* "640x480" -> 640, 480. Returns 0, or -1 unless it is two whole numbers
 * from 1 to 16777216 (stb_image's limit) joined by 'x'. */
int ref_parse_dims(const char *text, size_t *width, size_t *height);

#ifdef __cplusplus
}
#endif

#endif /* REFERENCE_H */
