/* transform_ref.h - what the batch tool makes of one decoded image, in
 * plain C (transform_ref.c): where each output pixel comes from (the
 * resize, or the short side scaled and a centre crop), the bilinear
 * interpolation in fixed point, the normalization, the flip and the
 * element type. The GPU kernel (transform.cu) does the same arithmetic
 * on its own; the checks (batch_check.c) compare the two.
 *
 *   tf_spec s = {.mode = TF_RESIZE, .out_w = 224, .out_h = 224,
 *                .channels = 3, .dtype = TF_FLOAT16, ...};
 *   tf_place p;
 *   tf_place_image(&s, src_w, src_h, &p);
 *   tf_image_ref(&s, &p, planes, n_planes, src_w, src_h, out);  one image
 *   tf_levels t; tf_levels_make(&s, &t);
 *   int level = tf_level_of(&t, c, value_bytes, near);  back to 0..255
 */
#ifndef TRANSFORM_REF_H
#define TRANSFORM_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TF_FLOAT32, TF_FLOAT16, TF_UINT8 } tf_dtype;

/* TF_SAME: every image has the tensor's size, taken as it is;
 * TF_RESIZE: each image resized to out_w x out_h; TF_SHORT_CROP: its
 * short side scaled to short_side, the other in proportion, then the
 * centre out_w x out_h (torchvision's Resize(S) + CenterCrop). */
typedef enum { TF_SAME, TF_RESIZE, TF_SHORT_CROP } tf_mode;

/* The weights' fixed point: 11 fractional bits, as OpenCV's 8-bit
 * INTER_LINEAR (INTER_RESIZE_COEF_BITS). */
#define TF_WEIGHT_BITS 11
#define TF_WEIGHT_ONE (1u << TF_WEIGHT_BITS)

/* The largest side of any image, scaled image or tensor: the index
 * arithmetic of the axis mapping then fits in 32 bits on the GPU. */
#define TF_MAX_SIDE ((size_t)32767)

typedef struct {
    tf_mode mode;
    size_t out_w, out_h;     /* an image of the tensor */
    size_t short_side;       /* TF_SHORT_CROP: S */
    int channels;            /* 1 gray, 3 RGB (planes R, G, B) */
    tf_dtype dtype;
    /* out = (level / 255 - mean) / std, per channel, in float32 (IEEE,
     * each step rounded); mean 0 and std 1 give level / 255.0f exactly.
     * Not used for TF_UINT8, whose value is the level. */
    float mean[3], std[3];
    int flip;                /* mirror left-right after the resize */
    /* Resize with antialiasing, as Pillow's Image.resize(BILINEAR) and
     * so torchvision's Resize(antialias=True) on a PIL image (the
     * TF_AA_ functions below); 0: the plain bilinear map of tf_axis.
     * Nothing to do for TF_SAME. */
    int antialias;
} tf_spec;

/* Where an image goes: turned upright by its orientation, scaled to
 * scaled_w x scaled_h, of which the window at (crop_x, crop_y), out_w x
 * out_h, is the tensor's image. */
typedef struct {
    size_t scaled_w, scaled_h, crop_x, crop_y;
    int orientation;         /* EXIF's, 1 to 8 (tf_orient); 0 as 1 */
    int antialias;           /* the spec's, for a resize */
} tf_place;

/* The place of a src_w x src_h image, as stored (orientation 1). Returns
 * 0, or -1 when it cannot fill the window (TF_SAME and another size; a
 * side over TF_MAX_SIDE). */
int tf_place_image(const tf_spec *s, size_t src_w, size_t src_h,
                   tf_place *p);

/* The same for an image stored src_w x src_h that EXIF's orientation
 * (1 to 8; anything else: 1) turns upright: placed, scaled and cropped
 * as its upright self, src_h x src_w for orientations 5 to 8. */
int tf_place_oriented(const tf_spec *s, size_t src_w, size_t src_h,
                      int orientation, tf_place *p);

/* EXIF's orientation (TIFF tag 274) says how to turn the stored image
 * upright: 1 as it is, 2 mirrored left-right, 3 turned 180 degrees, 4
 * mirrored top-bottom, 5 transposed (rows become columns), 6 turned 90
 * degrees clockwise, 7 transposed across the other diagonal, 8 turned
 * 90 degrees counter-clockwise. Pixel (u, v) of the upright image is
 * pixel (*x, *y) of the stored one, sw x sh. */
void tf_orient(int orientation, size_t u, size_t v, size_t sw, size_t sh,
               size_t *x, size_t *y);

/* One axis of the bilinear map, pixel centres aligned (cv2.INTER_LINEAR,
 * F.interpolate(align_corners=False)): output index d of a scaled axis
 * of `scaled` pixels reads source pixels lo and hi of `src`, hi weighted
 * w / TF_WEIGHT_ONE, from s = (d + 0.5) src / scaled - 0.5 clamped to
 * [0, src - 1], computed in integers (no antialiasing: a downscale by
 * more than 2 skips pixels, as F.interpolate(antialias=False)). */
void tf_axis(size_t d, size_t scaled, size_t src, size_t *lo, size_t *hi,
             unsigned *w);

/* The level (0..255) of output pixel (x, y), before the flip, from one
 * plane of src_w x src_h bytes as stored (p turns it upright), by the
 * plain bilinear map or, with p->antialias, tf_aa_level_at. */
unsigned tf_level_at(const uint8_t *plane, size_t src_w, size_t src_h,
                     const tf_place *p, size_t x, size_t y);

/* The antialiased resize (transform_aa.c): Pillow's Image.resize(size,
 * BILINEAR) of the upright image, then the crop's window of it. Per
 * axis, output index d of `scaled` from `src` pixels averages source
 * pixels first .. first + count - 1 under the triangle 1 - |t| stretched
 * to the scale (src / scaled, at least 1), the weights normalized and
 * held in TF_AA_BITS fractional bits. The horizontal pass runs first,
 * its sums rounded and clipped to levels, then the vertical pass over
 * those. */
#define TF_AA_BITS 22
#define TF_AA_ONE (1 << TF_AA_BITS)

typedef struct {
    size_t first, count;     /* the source pixels the window reads */
    double center, ss, sum;  /* its centre, 1 / filter scale, the sum of
                                its weights before normalizing */
} tf_aa_window;

void tf_aa_window_of(size_t d, size_t scaled, size_t src, tf_aa_window *w);

/* Tap i's (0 .. count - 1) weight in 1 / TF_AA_ONE. */
int32_t tf_aa_coeff(const tf_aa_window *w, size_t i);

/* The most taps any window of that axis has (Pillow's ksize, 2
 * ceil(src / scaled) + 1, or 3 for an upscale; at most src). */
size_t tf_aa_taps(size_t scaled, size_t src);

/* A pass's sum (2^21 + levels times weights) as a level: >> 22, 0..255. */
unsigned tf_aa_clip(int32_t sum);

/* tf_level_at's antialiased case, one pixel alone. */
unsigned tf_aa_level_at(const uint8_t *plane, size_t src_w, size_t src_h,
                        const tf_place *p, size_t x, size_t y);

/* Every level of the window, out_h x out_w, into levels (before the
 * flip): the same values as tf_aa_level_at, computed pass by pass.
 * Returns 0, or -1 when memory for the passes is short. */
int tf_aa_plane_ref(const tf_spec *s, const tf_place *p,
                    const uint8_t *plane, size_t src_w, size_t src_h,
                    uint8_t *levels);

/* The float a level becomes in channel c (float32 before the dtype). */
float tf_normalize(const tf_spec *s, int c, unsigned level);

/* Bytes of one element: 4, 2 or 1. "float32", "float16", "uint8". */
size_t tf_elem_bytes(tf_dtype t);
const char *tf_dtype_name(tf_dtype t);

/* Level `level` of channel c as one element of the dtype, at out. */
void tf_store(const tf_spec *s, int c, unsigned level, void *out);

/* IEEE binary16, rounded to nearest, ties to even (as __float2half_rn),
 * and back. */
uint16_t tf_float_to_half(float f);
float tf_half_to_float(uint16_t h);

/* A whole tensor image: planes holds `n_planes` planes of src_w x src_h
 * bytes, one after another (1 plane for 3 channels: gray repeated);
 * out gets channels x out_h x out_w elements, NCHW, flipped if asked. */
void tf_image_ref(const tf_spec *s, const tf_place *p, const uint8_t *planes,
                  int n_planes, size_t src_w, size_t src_h, void *out);

/* The output rows the checks sample: one in every 8 rows (an MCU row of
 * an image at its own size), at a position that moves within the 8 so
 * that every row of an MCU is met: row k is 8k + 3k mod 8, the last
 * clamped to out_h - 1. There are (out_h + 7) / 8 of them. */
size_t tf_sample_rows(size_t out_h);
size_t tf_sample_row(size_t k, size_t out_h);

/* The 256 outputs of each channel, to read a value back as a level. */
typedef struct {
    float value[3][256];     /* each as a float (float16 widened) */
    float mean[3], std[3];   /* to guess the level before looking */
    tf_dtype dtype;
    int channels;
} tf_levels;

void tf_levels_make(const tf_spec *s, tf_levels *t);

/* The level whose output in channel c is exactly the element at value
 * (its dtype's bytes), the one nearest `near` when several give the same
 * value; -1 if none does (then the value is no level at all). */
int tf_level_of(const tf_levels *t, int c, const void *value, int near);

#ifdef __cplusplus
}
#endif

#endif /* TRANSFORM_REF_H */
