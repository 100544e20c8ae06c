/* batch_inputs.c - the batch's files: collected, checked before the GPU
 * is touched, decoded on the CPU. */
#include "batch_inputs.h"
#include "dataset.h"
#include "batch_head.h"
#include "cpus.h"
#include "files.h"
#include "lib_support.h"
#include "../image_io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int inputs_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int inputs_gather(const inputs_request *q, path_list *out, char *err,
                  size_t err_len)
{
    size_t capacity = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (q->class_folders && (q->list_file || q->n_args != 1)) {
        snprintf(err, err_len, "--class-folders takes one folder: the one "
                 "that holds a folder per class");
        return -1;
    }
    int folder = !q->list_file && q->n_args == 1 &&
                 (q->class_folders || inputs_is_directory(q->args[0]));
    if (q->list_file)
        rc = ds_list_file(q->list_file, out, &capacity, err, err_len);
    else if (folder && q->class_folders)
        rc = ds_class_folders(q->args[0], out, &capacity, q->skipped, err,
                              err_len);
    else if (folder)
        rc = ds_folder(q->args[0], out, &capacity, q->skipped, err,
                       err_len);
    for (int i = 0; !q->list_file && !folder && i < q->n_args && rc == 0;
         i++)
        if (ds_add(out, &capacity, q->args[i], -1) != 0) {
            snprintf(err, err_len, "not enough memory for the file list");
            rc = -1;
        }
    if (rc != 0) {
        path_list_free(out);
        return -1;
    }
    /* Labels come from class folders and labelled lists only. */
    if (!q->class_folders && !q->list_file) {
        free(out->labels);
        out->labels = NULL;
    }
    return 0;
}

int inputs_collect(char **args, int n_args, const char *list_file,
                   path_list *out, char *err, size_t err_len)
{
    inputs_request q = {.args = args, .n_args = n_args,
                        .list_file = list_file};
    return inputs_gather(&q, out, err, err_len);
}

void path_list_free(path_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    for (size_t k = 0; k < list->classes; k++)
        free(list->class_names[k]);
    free(list->paths);
    free(list->labels);
    free(list->class_names);
    memset(list, 0, sizeof *list);
}

/* Whether the tensor can take a file of w x h; err says why not. */
static int placeable(const batch_source *src, const char *path, size_t w,
                     size_t h, const char *size_from, char *err,
                     size_t err_len)
{
    tf_place p;
    const tf_spec *s = src->spec;
    if (w > TF_MAX_SIDE || h > TF_MAX_SIDE) {
        snprintf(err, err_len, CM_PATH_FMT ": %zu x %zu: more than the %zu "
                 "pixels a side the batch tool takes", CM_PATH_ARGS(path), w,
                 h, TF_MAX_SIDE);
        return 0;
    }
    if (s->mode == TF_SAME && size_from &&
        (w != src->same_width || h != src->same_height)) {
        snprintf(err, err_len, CM_PATH_FMT ": %zu x %zu, but the batch is "
                 "%zu x %zu (set by " CM_PATH_FMT "); give --resize WxH or "
                 "--resize-short S --crop WxH", CM_PATH_ARGS(path), w, h,
                 src->same_width, src->same_height, CM_PATH_ARGS(size_from));
        return 0;
    }
    if (s->mode == TF_SHORT_CROP && tf_place_image(s, w, h, &p) != 0) {
        snprintf(err, err_len, CM_PATH_FMT ": %zu x %zu scaled to a short "
                 "side of %zu is more than %zu pixels a side",
                 CM_PATH_ARGS(path), w, h, s->short_side, TF_MAX_SIDE);
        return 0;
    }
    return 1;
}

/* What inputs_check's threads learn of each file: its header, or why
 * it cannot be used. */
typedef struct {
    head_result head;
    char *why;                 /* malloc'd "PATH: reason", or NULL */
} file_verdict;

/* A file's verdict from its first bytes, or all of them (batch_head.h):
 * its size and orientation, or why it cannot be used (in err; -1). */
static int probe_file(const batch_source *src, size_t i, file_verdict *v,
                      char *err, size_t err_len)
{
    return head_probe(src->list->paths[i], src->max_pixels, src->exif,
                      &v->head, err, err_len);
}

typedef struct {
    const batch_source *src;
    file_verdict *verdicts;
    size_t next;               /* the next file to take (under lock) */
    size_t first_bad;          /* without skip_bad: no file after it is
                                  needed (under lock) */
    int skip_bad;
    pthread_mutex_t lock;
} check_job;

static void *check_files(void *arg)
{
    check_job *job = (check_job *)arg;
    const path_list *list = job->src->list;
    char err[1280];
    for (;;) {
        pthread_mutex_lock(&job->lock);
        size_t i = job->next++;
        int needed = i < list->count && i < job->first_bad;
        pthread_mutex_unlock(&job->lock);
        if (!needed)
            return NULL;
        file_verdict *v = &job->verdicts[i];
        if (probe_file(job->src, i, v, err, sizeof err) == 0)
            continue;
        /* No memory for the reason: the file is read again in the
         * list's pass below, which says it there. */
        v->why = strdup(err);
        if (!job->skip_bad) {
            pthread_mutex_lock(&job->lock);
            if (i < job->first_bad)
                job->first_bad = i;
            pthread_mutex_unlock(&job->lock);
        }
    }
}

/* Reads and probes every file on threads; the verdicts in list order. */
static int check_all(const batch_source *src, int skip_bad,
                     file_verdict *verdicts)
{
    check_job job = {.src = src, .verdicts = verdicts,
                     .first_bad = SIZE_MAX, .skip_bad = skip_bad};
    int n = src->threads > 0 ? src->threads : inputs_default_threads();
    if ((size_t)n > src->list->count)
        n = src->list->count > 0 ? (int)src->list->count : 1;
    pthread_t *threads = ib_calloc((size_t)n, sizeof *threads);
    if (!threads || pthread_mutex_init(&job.lock, NULL) != 0) {
        free(threads);
        return -1;
    }
    int started = 0;
    while (started < n &&
           pthread_create(&threads[started], NULL, check_files, &job) == 0)
        started++;
    if (started == 0)  /* no thread to be had: this one does it */
        check_files(&job);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    pthread_mutex_destroy(&job.lock);
    free(threads);
    return 0;
}

int inputs_check(batch_source *src, int skip_bad, int verbose,
                 size_t *skipped, size_t *file_bytes, char *err,
                 size_t err_len)
{
    path_list *list = src->list;
    const char *size_from = NULL;
    size_t kept = 0, n = list->count ? list->count : 1;
    *skipped = 0;
    *file_bytes = 0;
    src->width = ib_calloc(n, sizeof *src->width);
    src->height = ib_calloc(n, sizeof *src->height);
    src->orientation = src->exif ? ib_calloc(n, 1) : NULL;
    src->bytes = ib_calloc(n, sizeof *src->bytes);
    src->whole = ib_calloc(n, 1);
    src->jpegs = 0;
    file_verdict *verdicts = ib_calloc(n, sizeof *verdicts);
    if (!src->width || !src->height || (src->exif && !src->orientation) ||
        !src->bytes || !src->whole || !verdicts ||
        check_all(src, skip_bad, verdicts) != 0) {
        free(verdicts);
        snprintf(err, err_len, "not enough memory for %zu file sizes", n);
        return -1;
    }
    int rc = 0;
    size_t i = 0;
    for (; i < list->count; i++) {
        file_verdict *v = &verdicts[i];
        int bad = v->why != NULL;
        if (bad) {
            snprintf(err, err_len, "%s", v->why);
        } else if (v->head.width == 0) {  /* its reason was not kept */
            bad = probe_file(src, i, v, err, err_len) != 0;
        }
        /* Placed as it is upright: orientations 5 to 8 swap its sides. */
        int turned = !bad && v->head.orientation >= 5;
        size_t up_w = turned ? v->head.height : v->head.width;
        size_t up_h = turned ? v->head.width : v->head.height;
        bad = bad || !placeable(src, list->paths[i], up_w, up_h, size_from,
                                err, err_len);
        if (bad && !skip_bad) {
            rc = -1;
            break;
        }
        if (bad) {
            if (verbose)
                fprintf(stderr, "skipped: %s\n", err);
            free(list->paths[i]);
            ++*skipped;
            continue;
        }
        if (!size_from) {
            src->same_width = up_w;
            src->same_height = up_h;
            size_from = list->paths[i];
        }
        *file_bytes += v->head.bytes;
        src->width[kept] = v->head.width;
        src->height[kept] = v->head.height;
        if (src->orientation)
            src->orientation[kept] = (uint8_t)v->head.orientation;
        src->bytes[kept] = v->head.bytes;
        src->whole[kept] = (uint8_t)v->head.whole;
        src->jpegs += v->head.jpeg;
        if (list->labels)
            list->labels[kept] = list->labels[i];
        list->paths[kept++] = list->paths[i];
    }
    for (size_t k = 0; k < list->count; k++)
        free(verdicts[k].why);
    free(verdicts);
    if (rc != 0)
        return -1;
    list->count = kept;
    if (kept == 0) {
        if (*skipped == 1)
            snprintf(err, err_len, "no usable image: its one file was "
                     "skipped");
        else
            snprintf(err, err_len, "no usable image: all %zu files were "
                     "skipped", *skipped);
        return -1;
    }
    return 0;
}

void inputs_free(batch_source *src)
{
    free(src->width);
    free(src->height);
    free(src->orientation);
    free(src->bytes);
    free(src->whole);
    src->width = src->height = NULL;
    src->whole = NULL;
    src->orientation = NULL;
    src->bytes = NULL;
}

int inputs_orientation(const batch_source *src, size_t i)
{
    return src->orientation && src->orientation[i] >= 1 &&
                   src->orientation[i] <= 8
               ? src->orientation[i]
               : 1;
}

int inputs_recheck(const batch_source *src, size_t index,
                   const uint8_t *bits, size_t len, char *err,
                   size_t err_len)
{
    /* Relaxed: a padded pass may hold a file twice, on two threads; the
     * flag only saves a second check. */
    if (__atomic_load_n(&src->whole[index], __ATOMIC_RELAXED))
        return 0;
    if (head_recheck(src->list->paths[index], bits, len, src->max_pixels,
                     src->width[index], src->height[index], err,
                     err_len) != 0)
        return -1;
    __atomic_store_n(&src->whole[index], 1, __ATOMIC_RELAXED);
    return 0;
}

int inputs_decode_bytes(const batch_source *src, size_t index,
                        const uint8_t *bits, size_t len, uint8_t *dst,
                        char *err, size_t err_len)
{
    const char *path = src->list->paths[index];
    size_t w = src->width[index], h = src->height[index];
    io_image img;
    if (io_decode(path, bits, len, src->max_pixels, src->channels, &img,
                  err, err_len) != 0)
        return -1;
    if (img.width != w || img.height != h) {
        snprintf(err, err_len, CM_PATH_FMT ": %zu x %zu, but its header "
                 "said %zu x %zu", CM_PATH_ARGS(path), img.width, img.height,
                 w, h);
        io_image_free(&img);
        return -1;
    }
    /* stb_image gives R, G, B interleaved; the GPU reads planes. */
    size_t plane = w * h;
    if (src->channels == 1)
        memcpy(dst, img.pixels, plane);
    else
        for (size_t i = 0; i < plane; i++)
            for (int c = 0; c < 3; c++)
                dst[(size_t)c * plane + i] = img.pixels[3 * i + (size_t)c];
    io_image_free(&img);
    return 0;
}

int inputs_decode(const batch_source *src, size_t index, uint8_t *dst,
                  char *err, size_t err_len)
{
    size_t len = 0;
    unsigned char *bits = io_read_file(src->list->paths[index], &len, err,
                                       err_len);
    if (!bits)
        return -1;
    int rc = inputs_decode_bytes(src, index, bits, len, dst, err, err_len);
    free(bits);
    return rc;
}

int inputs_default_threads(void)
{
    const int max_threads = 16;
    int cpus = cm_cpu_count();   /* affinity and cgroup quota: at least 1 */
    return cpus > max_threads ? max_threads : cpus;
}
