/* corpus.c - the images of the benchmark corpus (corpus.h): synthetic,
 * photo-like, drawn from (seed, index), and their JPEG encodings. The
 * --make-corpus command that writes them is corpus_main.c. */
#include "corpus.h"
#include "stb_image_write.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the image ---- */

/* A well-mixed 32-bit hash of three numbers (a murmur-style finalizer
 * after each), so that lattice and noise values need no tables. */
static uint32_t mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
    return mix32(mix32(mix32(a) ^ b) ^ c);
}

/* Uniform in [0, 1). */
static float unit(uint32_t h)
{
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* splitmix64: the per-image stream of random shape parameters. */
static uint64_t next64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float rand01(uint64_t *state)
{
    return (float)(next64(state) >> 40) * (1.0f / 16777216.0f);
}

/* Value noise: random values on a lattice of `cell` pixels, blended
 * with a smooth step, in [0, 1). A row at a time: noise_row() blends the
 * two lattice rows around y once per lattice column, then each pixel
 * blends two neighbours of that row. */
typedef struct {
    float cell;
    uint32_t salt;
    float *col;  /* w / cell + 2 values: the lattice blended down to y */
} noise_octave;

static float smooth(float t)
{
    return t * t * (3 - 2 * t);
}

static void noise_row(noise_octave *o, int w, int y)
{
    float fy = y / o->cell, iy = floorf(fy);
    float ty = smooth(fy - iy);
    uint32_t y0 = (uint32_t)(int32_t)iy;
    int n = (int)(w / o->cell) + 2;
    for (int i = 0; i < n; i++) {
        float a = unit(hash3((uint32_t)i, y0, o->salt));
        float b = unit(hash3((uint32_t)i, y0 + 1, o->salt));
        o->col[i] = a + (b - a) * ty;
    }
}

static float noise_at(const noise_octave *o, int x)
{
    float fx = x / o->cell;
    int ix = (int)fx;
    float tx = smooth(fx - ix);
    return o->col[ix] + (o->col[ix + 1] - o->col[ix]) * tx;
}

enum { SHAPES = 10 };
/* Amplitudes in gray levels: shading, texture (scaled by the busy-ness
 * mask, up to TEXTURE_GAIN), and per-pixel noise (peak to peak). */
#define SHADE 26.0f
#define TEXTURE_GAIN 2.0f
#define MID 60.0f
#define FINE 90.0f
#define NOISE 10.0f

typedef struct {
    float cx, cy, rx, ry, cos_a, sin_a, soft;
    float reach;  /* beyond this distance in x or y, no effect */
    float color[3];
} shape;

typedef struct {
    float top[3], bottom[3];   /* the gradient's two colours */
    float horizon, horizon_soft;
    shape shapes[SHAPES];
    uint32_t salt;
} scene;

static void random_color(uint64_t *st, float *c)
{
    for (int k = 0; k < 3; k++)
        c[k] = 20 + 215 * rand01(st);
}

static void make_scene(scene *s, int w, int h, uint64_t seed,
                       uint64_t index)
{
    uint64_t st = seed * 0x2545f4914f6cdd1dull + index;
    next64(&st);
    random_color(&st, s->top);
    random_color(&st, s->bottom);
    s->horizon = h * (0.3f + 0.4f * rand01(&st));
    s->horizon_soft = h * (0.01f + 0.05f * rand01(&st));
    float size = (float)(w < h ? w : h);
    for (int i = 0; i < SHAPES; i++) {
        shape *p = &s->shapes[i];
        p->cx = w * rand01(&st);
        p->cy = h * rand01(&st);
        p->rx = size * (0.04f + 0.3f * rand01(&st));
        p->ry = size * (0.04f + 0.3f * rand01(&st));
        float a = 3.14159265f * rand01(&st);
        p->cos_a = cosf(a);
        p->sin_a = sinf(a);
        p->soft = 0.5f + 3.0f * rand01(&st);  /* edge width, pixels */
        p->reach = (p->rx > p->ry ? p->rx : p->ry) + p->soft + 1;
        random_color(&st, p->color);
    }
    s->salt = (uint32_t)next64(&st);
}

enum { OCTAVES = 4 };

int corpus_synth_rgb(uint8_t *rgb, int w, int h, uint64_t seed,
                     uint64_t index)
{
    scene s;
    make_scene(&s, w, h, seed, index);
    /* Large structures scale with the image; texture and noise are in
     * pixels, as a camera's are. Octave 0 says how busy each region is
     * (smooth sky, busy foliage), octave 1 shades, 2 and 3 are texture. */
    float big = (float)(w > h ? w : h) / 5.0f;
    const float cells[OCTAVES] = {big, big / 4, 6, 2};
    noise_octave oct[OCTAVES];
    float *cols = (float *)malloc(sizeof(float) * OCTAVES * (w + 4));
    if (!cols)
        return -1;
    for (int o = 0; o < OCTAVES; o++) {
        oct[o].cell = cells[o] < 2 ? 2 : cells[o];
        oct[o].salt = s.salt + (uint32_t)o;
        oct[o].col = cols + (size_t)o * (w + 4);
    }
    for (int y = 0; y < h; y++) {
        for (int o = 0; o < OCTAVES; o++)
            noise_row(&oct[o], w, y);
        float t = 1.0f / (1.0f + expf(-(y - s.horizon) / s.horizon_soft));
        float row_color[3];
        for (int k = 0; k < 3; k++)
            row_color[k] = s.top[k] + (s.bottom[k] - s.top[k]) * t;
        for (int x = 0; x < w; x++) {
            float c[3] = {row_color[0], row_color[1], row_color[2]};
            for (int i = 0; i < SHAPES; i++) {
                const shape *p = &s.shapes[i];
                float dx = x - p->cx, dy = y - p->cy;
                if (fabsf(dx) > p->reach || fabsf(dy) > p->reach)
                    continue;
                float u = (dx * p->cos_a + dy * p->sin_a) / p->rx;
                float v = (-dx * p->sin_a + dy * p->cos_a) / p->ry;
                float r = sqrtf(u * u + v * v);
                /* Distance to the edge in pixels, roughly. */
                float edge = (1.0f - r) * (p->rx < p->ry ? p->rx : p->ry);
                float alpha = edge / p->soft + 0.5f;
                if (alpha <= 0)
                    continue;
                alpha = alpha > 1 ? 1 : alpha;
                for (int k = 0; k < 3; k++)
                    c[k] += (p->color[k] - c[k]) * alpha;
            }
            float mask = noise_at(&oct[0], x);
            mask = mask * mask * TEXTURE_GAIN;
            float tex = SHADE * (noise_at(&oct[1], x) - 0.5f) +
                        mask * (MID * (noise_at(&oct[2], x) - 0.5f) +
                                FINE * (noise_at(&oct[3], x) - 0.5f));
            uint32_t hn = hash3((uint32_t)x, (uint32_t)y, s.salt + 99);
            uint8_t *out = rgb + 3 * ((size_t)y * w + x);
            for (int k = 0; k < 3; k++) {
                /* Sensor noise, per channel. */
                float noise = (((hn >> (8 * k)) & 0xff) * (1.0f / 255.0f) -
                               0.5f) * NOISE;
                float v = c[k] + tex + noise;
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                out[k] = (uint8_t)(v + 0.5f);
            }
        }
    }
    free(cols);
    return 0;
}

corpus_kind corpus_file_kind(corpus_kind kind, uint64_t index)
{
    if (kind != CORPUS_MIXED)
        return kind;
    return index % 4 == 3 ? CORPUS_PROGRESSIVE : CORPUS_BASELINE;
}

void corpus_rgb_to_gray(uint8_t *gray, const uint8_t *rgb, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = cj_luma(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
        gray[i] = (uint8_t)(v > 255 ? 255 : v + 0.5f);
    }
}

typedef struct {
    cj_buffer *out;
    int failed;
} stb_sink;

static void stb_append(void *context, void *data, int size)
{
    stb_sink *sink = (stb_sink *)context;
    cj_buffer *b = sink->out;
    if (sink->failed || size <= 0)
        return;
    if (b->len + (size_t)size > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + (size_t)size)
            cap *= 2;
        uint8_t *p = (uint8_t *)realloc(b->data, cap);
        if (!p) {
            sink->failed = 1;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, (size_t)size);
    b->len += (size_t)size;
}

int corpus_encode(corpus_kind kind, const uint8_t *rgb, int w, int h,
                  int quality, cj_buffer *out)
{
    if (kind == CORPUS_BASELINE) {
        stb_sink sink = {out, 0};
        if (!stbi_write_jpg_to_func(stb_append, &sink, w, h, 3, rgb,
                                    quality) || sink.failed) {
            free(out->data);
            memset(out, 0, sizeof *out);
            return -1;
        }
        return 0;
    }
    if (kind == CORPUS_PROGRESSIVE)
        return cj_encode(rgb, 3, w, h, quality, 1, out);
    if (kind != CORPUS_GRAY && kind != CORPUS_GRAY_PROGRESSIVE)
        return -1;
    uint8_t *gray = (uint8_t *)malloc((size_t)w * h);
    if (!gray)
        return -1;
    corpus_rgb_to_gray(gray, rgb, (size_t)w * h);
    int rc = cj_encode(gray, 1, w, h, quality,
                       kind == CORPUS_GRAY_PROGRESSIVE, out);
    free(gray);
    return rc;
}

int corpus_encode_file(const corpus_file *f, const uint8_t *rgb,
                       cj_buffer *out)
{
    if (f->kind == CORPUS_BASELINE)
        return corpus_encode(CORPUS_BASELINE, rgb, f->width, f->height,
                             f->jpeg.quality, out);
    if (f->channels == 3)
        return cj_encode_with(rgb, 3, f->width, f->height, &f->jpeg, out);
    size_t n = (size_t)f->width * (size_t)f->height;
    uint8_t *gray = (uint8_t *)malloc(n ? n : 1);
    if (!gray)
        return -1;
    corpus_rgb_to_gray(gray, rgb, n);
    int rc = cj_encode_with(gray, 1, f->width, f->height, &f->jpeg, out);
    free(gray);
    return rc;
}
