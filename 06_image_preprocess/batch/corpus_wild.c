/* corpus_wild.c - what each file of a benchmark corpus is (corpus_plan:
 * a wild corpus varies them as a folder of real photographs varies), and
 * images cut from photographs (--from): the photographs loaded, and a
 * crop of one of them scaled to a file's size. See corpus.h. */
#include "corpus.h"
#include "batch_inputs.h"
#include "../image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sides of a wild file, in pixels: ImageNet's are mostly 333 to
 * 500 (its short side) and up to 500 or more (the long one). */
enum { WILD_MIN_SIDE = 333, WILD_MAX_SIDE = 640 };

/* splitmix64: a stream of numbers drawn from (seed, index, salt). */
static uint64_t next64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t stream_of(uint64_t seed, uint64_t index, uint64_t salt)
{
    uint64_t st = seed * 0x9e3779b97f4a7c15ull ^ index * 0xd1b54a32d192ed03ull
                  ^ salt;
    next64(&st);
    return st;
}

static unsigned below(uint64_t *st, unsigned n)
{
    return (unsigned)(next64(st) % n);
}

void corpus_plan(const corpus_recipe *r, uint64_t index, corpus_file *f)
{
    memset(f, 0, sizeof *f);
    f->width = r->width;
    f->height = r->height;
    f->channels = 3;
    f->jpeg.quality = r->quality;
    f->jpeg.chroma = CJ_420;
    corpus_kind k = corpus_file_kind(r->kind, index);
    f->kind = k;
    if (k != CORPUS_WILD) {
        f->jpeg.progressive = k == CORPUS_PROGRESSIVE ||
                              k == CORPUS_GRAY_PROGRESSIVE;
        f->channels = k == CORPUS_GRAY || k == CORPUS_GRAY_PROGRESSIVE ? 1
                                                                        : 3;
        return;
    }
    uint64_t st = stream_of(r->seed, index, 0x77696c64);  /* "wild" */
    unsigned span = WILD_MAX_SIDE - WILD_MIN_SIDE + 1;
    int w = WILD_MIN_SIDE + (int)below(&st, span);
    int h = WILD_MIN_SIDE + (int)below(&st, span);
    f->width = r->one_size ? r->width : w;
    f->height = r->one_size ? r->height : h;
    f->jpeg.quality = 80 + (int)below(&st, 16);
    unsigned gray = below(&st, 100), chroma = below(&st, 100);
    if (!r->all_420 && gray < 8) {
        f->channels = 1;
    } else if (!r->all_420) {
        f->jpeg.chroma = chroma < 70 ? CJ_420 : chroma < 85 ? CJ_422
                                                             : CJ_444;
    }
    /* Cameras write a restart marker every MCU row, or every few MCUs. */
    unsigned restart = below(&st, 16);
    int mcu_px = f->channels == 3 && f->jpeg.chroma != CJ_444 ? 16 : 8;
    const int every[4] = {4, 8, 16, (f->width + mcu_px - 1) / mcu_px};
    f->jpeg.restart = restart < 4 ? every[restart] : 0;
    f->jpeg.exif = below(&st, 10) < 4;
}

void corpus_photos_free(corpus_photos *p)
{
    for (size_t i = 0; i < p->count; i++)
        free(p->rgb[i]);
    free(p->rgb);
    free(p->width);
    free(p->height);
    memset(p, 0, sizeof *p);
}

int corpus_photos_load(const char *dir, corpus_photos *p, char *err,
                       size_t err_len)
{
    memset(p, 0, sizeof *p);
    char *args[1] = {(char *)dir};
    path_list list;
    if (!inputs_is_directory(dir)) {
        snprintf(err, err_len, "--from %s: not a folder", dir);
        return -1;
    }
    if (inputs_collect(args, 1, NULL, &list, err, err_len) != 0)
        return -1;
    p->rgb = calloc(list.count, sizeof *p->rgb);
    p->width = calloc(list.count, sizeof *p->width);
    p->height = calloc(list.count, sizeof *p->height);
    if (!p->rgb || !p->width || !p->height) {
        snprintf(err, err_len, "--from %s: not enough memory", dir);
        path_list_free(&list);
        corpus_photos_free(p);
        return -1;
    }
    char why[1280];
    for (size_t i = 0; i < list.count; i++) {
        io_image img;
        size_t len = 0;
        unsigned char *bytes = io_read_file(list.paths[i], &len, why,
                                            sizeof why);
        int rc = bytes ? io_decode(list.paths[i], bytes, len,
                                   IO_DEFAULT_MAX_PIXELS, 3, &img, why,
                                   sizeof why)
                       : -1;
        free(bytes);
        if (rc != 0) {  /* not an image after all: said, and left out */
            fprintf(stderr, "imgbatch: --from: skipped %s\n", why);
            continue;
        }
        p->rgb[p->count] = img.pixels;  /* malloc'd by stb_impl.c */
        p->width[p->count] = (int)img.width;
        p->height[p->count++] = (int)img.height;
    }
    path_list_free(&list);
    if (p->count == 0) {
        snprintf(err, err_len, "--from %s: no image stb_image can read",
                 dir);
        corpus_photos_free(p);
        return -1;
    }
    return 0;
}

/* Where output index d of n samples a span of `len` source pixels that
 * starts at `from`: pixel centres aligned, clamped to [0, size - 1]. */
static void source_of(int d, int n, double from, double len, int size,
                      int *lo, int *hi, double *t)
{
    double s = from + ((double)d + 0.5) * len / n - 0.5;
    s = s < 0 ? 0 : s > size - 1 ? size - 1 : s;
    *lo = (int)s;
    *hi = *lo + 1 < size ? *lo + 1 : *lo;
    *t = s - *lo;
}

void corpus_photo_crop(const corpus_photos *p, uint8_t *rgb, int w, int h,
                       uint64_t seed, uint64_t index)
{
    uint64_t st = stream_of(seed, index, 0x70686f74);  /* "phot" */
    size_t k = (size_t)(next64(&st) % p->count);
    const uint8_t *photo = p->rgb[k];
    int pw = p->width[k], ph = p->height[k];
    /* The largest window of the file's aspect ratio, then 40% to 100%
     * of it, but not less than the file's size where the photograph
     * allows (a window scaled up would be smoother than a photograph),
     * somewhere in the photograph. */
    double aspect = (double)w / h, cw = pw, ch = pw / aspect;
    if (ch > ph) {
        ch = ph;
        cw = ph * aspect;
    }
    double least = (double)w / cw > 0.4 ? (double)w / cw : 0.4;
    least = least < 1 ? least : 1;
    double scale = least + (1 - least) * (double)(next64(&st) >> 11) *
                               0x1p-53;
    cw *= scale;
    ch *= scale;
    double x0 = (pw - cw) * (double)(next64(&st) >> 11) * 0x1p-53;
    double y0 = (ph - ch) * (double)(next64(&st) >> 11) * 0x1p-53;
    for (int y = 0; y < h; y++) {
        int ya, yb, xa, xb;
        double ty, tx;
        source_of(y, h, y0, ch, ph, &ya, &yb, &ty);
        for (int x = 0; x < w; x++) {
            source_of(x, w, x0, cw, pw, &xa, &xb, &tx);
            const uint8_t *a = photo + 3 * ((size_t)ya * pw + xa);
            const uint8_t *b = photo + 3 * ((size_t)ya * pw + xb);
            const uint8_t *c = photo + 3 * ((size_t)yb * pw + xa);
            const uint8_t *d = photo + 3 * ((size_t)yb * pw + xb);
            uint8_t *out = rgb + 3 * ((size_t)y * w + x);
            for (int ch3 = 0; ch3 < 3; ch3++) {
                double top = a[ch3] + tx * (b[ch3] - a[ch3]);
                double bottom = c[ch3] + tx * (d[ch3] - c[ch3]);
                out[ch3] = (uint8_t)(top + ty * (bottom - top) + 0.5);
            }
        }
    }
}
