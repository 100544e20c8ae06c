/* corpus.c - the --make-corpus mode of the lab (see corpus.h): synthetic
 * photo-like images, encoded as JPEG on CPU threads, one file each. */
#include "corpus.h"
#include "options.h"
#include "reference.h"
#include "stb_image_write.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char PROGRAM[] = "06_image_preprocess";

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

/* ---- the command line ---- */

static const char *const KIND_NAMES[] = {
    "baseline", "progressive", "gray", "gray-progressive", "mixed"};

/* What the files are, for the summary line. */
static const char *kind_text(corpus_kind kind, long long quality)
{
    int sub420 = quality <= 90;  /* stb_image_write's choice */
    switch (kind) {
    case CORPUS_BASELINE:
        return sub420 ? "baseline YCbCr 4:2:0" : "baseline YCbCr 4:4:4";
    case CORPUS_PROGRESSIVE:
        return "progressive YCbCr 4:2:0";
    case CORPUS_GRAY:
        return "baseline gray";
    case CORPUS_GRAY_PROGRESSIVE:
        return "progressive gray";
    default:
        return sub420 ? "baseline YCbCr 4:2:0, every 4th file progressive"
                      : "baseline YCbCr 4:4:4, every 4th file progressive "
                        "4:2:0";
    }
}

static void usage(void)
{
    printf(
        "usage: %s --make-corpus DIR [options]\n"
        "Writes synthetic photo-like JPEGs DIR/img_00000.jpg, "
        "img_00001.jpg, ...\n(DIR is created if missing), for decode "
        "benchmarks and tests. Uses no GPU.\n\noptions:\n"
        "  --count N            how many files (default 100)\n"
        "  --size WxH           image size, or imagenet (500x375), 1080p "
        "(1920x1080),\n"
        "                       12mp (4000x3000) (default imagenet)\n"
        "  --kind KIND          baseline (YCbCr; 4:2:0 at quality 90 and "
        "below, 4:4:4\n"
        "                       above), progressive (YCbCr 4:2:0), gray, "
        "gray-progressive,\n"
        "                       mixed (baseline, every 4th file "
        "progressive) (default\n"
        "                       baseline)\n"
        "  --quality Q          JPEG quality, 1 to 100 (default 90)\n"
        "  --seed S             the corpus's seed (default 1): same "
        "options, same bytes\n"
        "  --threads N          encoding threads (0: one per core, at "
        "most 16; default 0)\n"
        "\nExit status: 0 done, 1 a file could not be written, 2 usage "
        "error.\n", PROGRAM);
}

/* One line on stderr; returns the usage exit status. */
static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: --make-corpus: ", PROGRAM);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see --make-corpus --help)\n");
    va_end(ap);
    return CM_EXIT_USAGE;
}

typedef struct {
    const char *dir;
    long long count, quality, seed, threads;
    int width, height;
    corpus_kind kind;
    int digits;
    /* shared by the threads */
    pthread_mutex_t lock;
    long long next;
    int failed;
    char error[2600];
    unsigned long long bytes;
} job;

static int write_file(const char *path, const char *tmp,
                      const cj_buffer *b, char *err, size_t err_len)
{
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    size_t put = fwrite(b->data, 1, b->len, f);
    int saved = errno;
    if (fclose(f) != 0 && put == b->len)
        saved = errno, put = 0;
    if (put != b->len) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(saved));
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", tmp, path,
                 strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static void *worker(void *arg)
{
    job *j = (job *)arg;
    size_t n = (size_t)j->width * j->height;
    uint8_t *rgb = (uint8_t *)malloc(n * 3);
    char path[1200], tmp[1220], err[2600];
    for (;;) {
        pthread_mutex_lock(&j->lock);
        long long i = j->failed ? j->count : j->next++;
        if (!rgb && i < j->count) {
            j->failed = 1;
            snprintf(j->error, sizeof j->error, "out of memory for a "
                     "%d x %d image", j->width, j->height);
        }
        pthread_mutex_unlock(&j->lock);
        if (!rgb || i >= j->count)
            break;
        cj_buffer b = {NULL, 0, 0};
        int rc = corpus_synth_rgb(rgb, j->width, j->height,
                                  (uint64_t)j->seed, (uint64_t)i);
        if (rc == 0)
            rc = corpus_encode(corpus_file_kind(j->kind, (uint64_t)i), rgb,
                               j->width, j->height, (int)j->quality, &b);
        snprintf(path, sizeof path, "%s/img_%0*lld.jpg", j->dir, j->digits,
                 i);
        snprintf(tmp, sizeof tmp, "%s/.img_%0*lld.jpg.tmp", j->dir,
                 j->digits, i);
        if (rc != 0)
            snprintf(err, sizeof err, "out of memory making %s", path);
        else
            rc = write_file(path, tmp, &b, err, sizeof err);
        free(b.data);
        pthread_mutex_lock(&j->lock);
        if (rc != 0 && !j->failed) {
            j->failed = 1;
            snprintf(j->error, sizeof j->error, "%s", err);
        }
        if (rc == 0)
            j->bytes += b.len;
        pthread_mutex_unlock(&j->lock);
    }
    free(rgb);
    return NULL;
}

static int parse_ll(const char *name, const char *text, long long min,
                    long long max, long long *out)
{
    char why[160];
    if (cm_parse_int(text, min, max, out, why, sizeof why) != 0) {
        usage_error("--%s: %s", name, why);
        return -1;
    }
    return 0;
}

int corpus_main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    job j;
    memset(&j, 0, sizeof j);
    j.count = 100;
    j.quality = 90;
    j.seed = 1;
    j.width = 500;
    j.height = 375;
    j.kind = CORPUS_BASELINE;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage();
            return CM_EXIT_OK;
        }
    }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (arg[0] != '-' || arg[1] == '\0') {
            if (j.dir)
                return usage_error("unexpected argument '%s'", arg);
            if (!*arg)
                return usage_error("empty folder name");
            j.dir = arg;
            continue;
        }
        const char *name = arg[1] == '-' ? arg + 2 : "";
        static const char *const with_value[] = {
            "count", "size", "kind", "quality", "seed", "threads"};
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            known |= !strcmp(name, with_value[k]);
        if (!known)
            return usage_error("unknown option '%s'", arg);
        if (a + 1 >= argc)
            return usage_error("option '%s' needs a value", arg);
        const char *value = argv[++a];
        if (!strcmp(name, "count")) {
            if (parse_ll(name, value, 1, 10000000, &j.count))
                return CM_EXIT_USAGE;
        } else if (!strcmp(name, "quality")) {
            if (parse_ll(name, value, 1, 100, &j.quality))
                return CM_EXIT_USAGE;
        } else if (!strcmp(name, "seed")) {
            if (parse_ll(name, value, 0, 4294967295LL, &j.seed))
                return CM_EXIT_USAGE;
        } else if (!strcmp(name, "threads")) {
            if (parse_ll(name, value, 0, 256, &j.threads))
                return CM_EXIT_USAGE;
        } else if (!strcmp(name, "kind")) {
            int found = -1;
            for (int k = 0; k < 5; k++)
                if (!strcmp(value, KIND_NAMES[k]))
                    found = k;
            if (found < 0)
                return usage_error("--kind: '%s' is not one of baseline, "
                                   "progressive, gray, gray-progressive, "
                                   "mixed", value);
            j.kind = (corpus_kind)found;
        } else {  /* size */
            size_t w, h;
            if (!strcmp(value, "imagenet"))
                w = 500, h = 375;
            else if (!strcmp(value, "1080p"))
                w = 1920, h = 1080;
            else if (!strcmp(value, "12mp"))
                w = 4000, h = 3000;
            else if (ref_parse_dims(value, &w, &h) != 0)
                return usage_error("--size: '%s' is not WIDTHxHEIGHT, "
                                   "imagenet, 1080p or 12mp", value);
            if (w > 65535 || h > 65535)
                return usage_error("--size: '%s': JPEG allows at most "
                                   "65535 pixels a side", value);
            if ((unsigned long long)w * h > 268435456ULL)
                return usage_error("--size: '%s' is more than 268435456 "
                                   "pixels", value);
            j.width = (int)w;
            j.height = (int)h;
        }
    }
    if (!j.dir)
        return usage_error("give the folder to write: --make-corpus "
                           "DIR");

    struct stat st;
    if (stat(j.dir, &st) != 0) {
        if (errno != ENOENT || mkdir(j.dir, 0777) != 0) {
            fprintf(stderr, "%s: cannot create %s: %s\n", PROGRAM, j.dir,
                    strerror(errno));
            return CM_EXIT_FAIL;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s exists and is not a directory\n", PROGRAM,
                j.dir);
        return CM_EXIT_FAIL;
    }

    j.digits = 5;
    for (long long last = j.count - 1; last >= 100000; last /= 10)
        j.digits++;
    int threads = (int)j.threads;
    if (threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores < 1 ? 1 : cores > 16 ? 16 : (int)cores;
    }
    if (threads > j.count)
        threads = (int)j.count;
    pthread_mutex_init(&j.lock, NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t tid[256];
    int started = 0;
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, worker, &j) != 0)
            break;
    if (started == 0)
        worker(&j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_mutex_destroy(&j.lock);
    if (j.failed) {
        fprintf(stderr, "%s: %s\n", PROGRAM, j.error);
        return CM_EXIT_FAIL;
    }
    double s = (double)(t1.tv_sec - t0.tv_sec) +
               (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double per = (double)j.bytes / (double)j.count;
    printf("corpus: %lld JPEGs in %s, %d x %d, %s, quality %lld, seed %lld"
           "\n", j.count, j.dir, j.width, j.height,
           kind_text(j.kind, j.quality), j.quality, j.seed);
    printf("  %.1f MB, %.1f kB per image (%.2f bits per pixel), made in "
           "%.2f s by %d threads\n", (double)j.bytes / 1e6, per / 1e3,
           per * 8 / ((double)j.width * j.height), s, started ? started : 1);
    return CM_EXIT_OK;
}
