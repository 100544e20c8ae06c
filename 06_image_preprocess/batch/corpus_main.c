/* corpus_main.c - imgbatch --make-corpus DIR: the corpus's command line
 * and the CPU threads that write its files (corpus.c draws and encodes
 * each image, corpus_wild.c plans wild files and cuts photographs). No
 * GPU. */
#include "corpus.h"
#include "options.h"
#include "../reference.h"
#include "batch_inputs.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char PROGRAM[] = "imgbatch";

static const char *const KIND_NAMES[] = {
    "baseline", "progressive", "gray", "gray-progressive", "mixed", "wild"};
enum { N_KINDS = 6 };

/* What the files are, for the summary line (not wild: counted). */
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
        "Writes photo-like JPEGs DIR/img_00000.jpg, img_00001.jpg, ...\n"
        "(DIR is created if missing), for decode benchmarks and tests. "
        "Uses no GPU.\n\noptions:\n"
        "  --count N            how many files (default 100)\n"
        "  --size WxH           image size, or imagenet (500x375), 1080p "
        "(1920x1080),\n"
        "                       12mp (4000x3000) (default imagenet; wild: "
        "333 to 640\n"
        "                       a side, each its own, unless given)\n"
        "  --kind KIND          baseline (YCbCr; 4:2:0 at quality 90 and "
        "below, 4:4:4\n"
        "                       above), progressive (YCbCr 4:2:0), gray, "
        "gray-progressive,\n"
        "                       mixed (baseline, every 4th file "
        "progressive), wild (each\n"
        "                       file 333 to 640 a side, quality 80 to 95, "
        "4:2:0 mostly,\n"
        "                       some 4:2:2, 4:4:4 and gray, some with "
        "restart markers or\n"
        "                       an Exif segment) (default baseline)\n"
        "  --chroma C           wild: mixed (default) or 420 (every file "
        "YCbCr 4:2:0)\n"
        "  --quality Q          JPEG quality, 1 to 100 (default 90; not "
        "with wild)\n"
        "  --from DIR           cut the images from the photographs in DIR "
        "(any image\n"
        "                       stb_image reads), instead of drawing them\n"
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
    const char *dir, *from;
    long long count, threads;
    corpus_recipe recipe;
    corpus_photos photos;
    int digits;
    /* shared by the threads */
    pthread_mutex_t lock;
    long long next;
    int failed;
    char error[2600];
    unsigned long long bytes, pixels;
    long long gray, chroma[3], restart, exif;
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

/* Makes file i: its plan, its pixels, its bytes on disk. */
static int make_file(job *j, long long i, corpus_file *f, cj_buffer *b,
                     char *err, size_t err_len)
{
    char path[1200], tmp[1220];
    corpus_plan(&j->recipe, (uint64_t)i, f);
    snprintf(path, sizeof path, "%s/img_%0*lld.jpg", j->dir, j->digits, i);
    snprintf(tmp, sizeof tmp, "%s/.img_%0*lld.jpg.tmp", j->dir, j->digits,
             i);
    uint8_t *rgb = (uint8_t *)malloc((size_t)f->width * f->height * 3);
    int rc = rgb ? 0 : -1;
    if (rc == 0 && j->from)
        corpus_photo_crop(&j->photos, rgb, f->width, f->height,
                          j->recipe.seed, (uint64_t)i);
    else if (rc == 0)
        rc = corpus_synth_rgb(rgb, f->width, f->height, j->recipe.seed,
                              (uint64_t)i);
    if (rc == 0)
        rc = corpus_encode_file(f, rgb, b);
    free(rgb);
    if (rc != 0) {
        snprintf(err, err_len, "out of memory making %s", path);
        return -1;
    }
    return write_file(path, tmp, b, err, err_len);
}

static void *worker(void *arg)
{
    job *j = (job *)arg;
    char err[2600];
    for (;;) {
        pthread_mutex_lock(&j->lock);
        long long i = j->failed ? j->count : j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->count)
            break;
        cj_buffer b = {NULL, 0, 0};
        corpus_file f;
        int rc = make_file(j, i, &f, &b, err, sizeof err);
        free(b.data);
        pthread_mutex_lock(&j->lock);
        if (rc != 0 && !j->failed) {
            j->failed = 1;
            snprintf(j->error, sizeof j->error, "%s", err);
        }
        if (rc == 0) {
            j->bytes += b.len;
            j->pixels += (unsigned long long)f.width * f.height;
            j->gray += f.channels == 1;
            j->chroma[f.jpeg.chroma] += f.channels == 3;
            j->restart += f.jpeg.restart > 0;
            j->exif += f.jpeg.exif;
        }
        pthread_mutex_unlock(&j->lock);
    }
    return NULL;
}

/* The option at argv[a] with its value; returns 0, or the exit status of
 * a usage error. */
static int parse_option(job *j, const char *name, const char *value,
                        int *size_given, int *quality_given,
                        const char **chroma)
{
    char why[160];
    long long v;
    if (!strcmp(name, "count") || !strcmp(name, "quality") ||
        !strcmp(name, "seed") || !strcmp(name, "threads")) {
        long long max = !strcmp(name, "count")     ? 10000000
                        : !strcmp(name, "quality") ? 100
                        : !strcmp(name, "seed")    ? 4294967295LL
                                                   : 256;
        long long min = !strcmp(name, "count") || !strcmp(name, "quality");
        if (cm_parse_int(value, min, max, &v, why, sizeof why) != 0)
            return usage_error("--%s: %s", name, why);
        if (!strcmp(name, "count"))
            j->count = v;
        else if (!strcmp(name, "quality"))
            j->recipe.quality = (int)v, *quality_given = 1;
        else if (!strcmp(name, "seed"))
            j->recipe.seed = (uint64_t)v;
        else
            j->threads = v;
    } else if (!strcmp(name, "kind")) {
        int found = -1;
        for (int k = 0; k < N_KINDS; k++)
            if (!strcmp(value, KIND_NAMES[k]))
                found = k;
        if (found < 0)
            return usage_error("--kind: '%s' is not one of baseline, "
                               "progressive, gray, gray-progressive, "
                               "mixed, wild", value);
        j->recipe.kind = (corpus_kind)found;
    } else if (!strcmp(name, "chroma")) {
        if (strcmp(value, "mixed") && strcmp(value, "420"))
            return usage_error("--chroma: '%s' is not mixed or 420", value);
        *chroma = value;
    } else if (!strcmp(name, "from")) {
        j->from = value;
    } else {  /* size */
        size_t w, h;
        *size_given = 1;
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
            return usage_error("--size: '%s': JPEG allows at most 65535 "
                               "pixels a side", value);
        if ((unsigned long long)w * h > 268435456ULL)
            return usage_error("--size: '%s' is more than 268435456 "
                               "pixels", value);
        j->recipe.width = (int)w;
        j->recipe.height = (int)h;
    }
    return 0;
}

/* Parses argv into j. Returns 0, or an exit status (help: 0 after the
 * usage text, as *done says; a usage error: 2). */
static int parse(job *j, int argc, char **argv, int *done)
{
    static const char *const with_value[] = {
        "count", "size", "kind", "quality", "seed", "threads", "chroma",
        "from"};
    int size_given = 0, quality_given = 0, rc;
    const char *chroma = NULL;
    *done = 0;
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage();
            *done = 1;
            return CM_EXIT_OK;
        }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (arg[0] != '-' || arg[1] == '\0') {
            if (j->dir)
                return usage_error("unexpected argument '%s'", arg);
            if (!*arg)
                return usage_error("empty folder name");
            j->dir = arg;
            continue;
        }
        const char *name = arg[1] == '-' ? arg + 2 : "";
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            known |= !strcmp(name, with_value[k]);
        if (!known)
            return usage_error("unknown option '%s'", arg);
        if (a + 1 >= argc)
            return usage_error("option '%s' needs a value", arg);
        if ((rc = parse_option(j, name, argv[++a], &size_given,
                               &quality_given, &chroma)) != 0)
            return rc;
    }
    if (!j->dir)
        return usage_error("give the folder to write: --make-corpus DIR");
    int wild = j->recipe.kind == CORPUS_WILD;
    if (wild && quality_given)
        return usage_error("--quality does nothing with --kind wild (each "
                           "file has its own)");
    j->recipe.one_size = wild && size_given;
    if (chroma && !wild)
        return usage_error("--chroma is for --kind wild");
    j->recipe.all_420 = chroma && !strcmp(chroma, "420");
    return 0;
}

/* DIR made if missing; returns 0, or 1 after one line. */
static int make_folder(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0) {
            fprintf(stderr, "%s: cannot create %s: %s\n", PROGRAM, dir,
                    strerror(errno));
            return CM_EXIT_FAIL;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s exists and is not a folder\n", PROGRAM,
                dir);
        return CM_EXIT_FAIL;
    }
    return 0;
}

static void summary(const job *j, double seconds, int threads)
{
    const corpus_recipe *r = &j->recipe;
    char sides[64] = "333 to 640 pixels a side";
    if (r->one_size)
        snprintf(sides, sizeof sides, "%d x %d", r->width, r->height);
    if (r->kind == CORPUS_WILD)
        printf("corpus: %lld JPEGs in %s, wild: %s, quality 80 to 95, "
               "%lld gray, %lld YCbCr 4:2:0, %lld 4:2:2, %lld 4:4:4; %lld "
               "with restart markers, %lld with Exif, seed %llu\n",
               j->count, j->dir, sides, j->gray,
               j->chroma[CJ_420], j->chroma[CJ_422], j->chroma[CJ_444],
               j->restart, j->exif, (unsigned long long)r->seed);
    else
        printf("corpus: %lld JPEGs in %s, %d x %d, %s, quality %d, seed "
               "%llu\n", j->count, j->dir, r->width, r->height,
               kind_text(r->kind, r->quality), r->quality,
               (unsigned long long)r->seed);
    double per = (double)j->bytes / (double)j->count;
    printf("  %.1f MB, %.1f kB per image (%.2f bits per pixel), %s, made "
           "in %.2f s by %d threads\n", (double)j->bytes / 1e6, per / 1e3,
           8.0 * (double)j->bytes / (double)j->pixels,
           j->from ? "cut from photographs" : "drawn", seconds, threads);
}

int corpus_main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    static job j;
    memset(&j, 0, sizeof j);
    j.count = 100;
    j.recipe = (corpus_recipe){.kind = CORPUS_BASELINE, .width = 500,
                               .height = 375, .quality = 90, .seed = 1};
    int done, rc = parse(&j, argc, argv, &done);
    if (rc != 0 || done)
        return rc;
    if ((rc = make_folder(j.dir)) != 0)
        return rc;
    char err[1400];
    if (j.from && corpus_photos_load(j.from, &j.photos, err,
                                     sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROGRAM, err);
        return CM_EXIT_FAIL;
    }
    if (j.from)
        printf("photographs: %zu from %s\n", j.photos.count, j.from);
    j.digits = 5;
    for (long long last = j.count - 1; last >= 100000; last /= 10)
        j.digits++;
    int threads = j.threads ? (int)j.threads : inputs_default_threads();
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
    corpus_photos_free(&j.photos);
    if (j.failed) {
        fprintf(stderr, "%s: %s\n", PROGRAM, j.error);
        return CM_EXIT_FAIL;
    }
    summary(&j, (double)(t1.tv_sec - t0.tv_sec) +
                    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
            started ? started : 1);
    return CM_EXIT_OK;
}
