/* corpus_main.c - imgbatch --make-corpus DIR: the corpus's command line
 * and the CPU threads that write its files (corpus.c draws and encodes
 * each image). No GPU. */
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
