/* batch_inputs.c - the batch's files: collected, checked before the GPU
 * is touched, decoded on the CPU. */
#include "batch_inputs.h"
#include "cpus.h"
#include "files.h"
#include "lib_support.h"
#include "../image_io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The extensions taken from a folder; other files there are ignored. */
static const char *const IMAGE_EXTENSIONS[] = {
    "png", "jpg", "jpeg", "bmp", "gif", "tga", "psd", "hdr", "pic",
    "pgm", "ppm", "pnm"};

static int has_image_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return 0;
    char ext[8];
    size_t n = strlen(dot + 1);
    if (n == 0 || n >= sizeof ext)
        return 0;
    for (size_t i = 0; i <= n; i++)
        ext[i] = (char)tolower((unsigned char)dot[1 + i]);
    for (size_t i = 0; i < sizeof IMAGE_EXTENSIONS / sizeof(char *); i++)
        if (strcmp(ext, IMAGE_EXTENSIONS[i]) == 0)
            return 1;
    return 0;
}

/* Appends a copy of path. Returns 0, or -1 when memory runs out. */
static int add_path(path_list *list, const char *path, size_t *capacity)
{
    if (list->count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 16;
        char **paths = ib_realloc(list->paths, grown * sizeof *paths);
        if (!paths)
            return -1;
        list->paths = paths;
        *capacity = grown;
    }
    list->paths[list->count] = ib_strdup(path);
    return list->paths[list->count++] ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect_directory(const char *dir, path_list *out,
                             size_t *capacity, char *err, size_t err_len)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, CM_PATH_FMT ": cannot list: %s",
                 CM_PATH_ARGS(dir), strerror(errno));
        return -1;
    }
    struct dirent *e;
    char path[4096];
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.' || !has_image_extension(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc = add_path(out, path, capacity);
    }
    closedir(d);
    if (rc != 0) {
        snprintf(err, err_len, CM_PATH_FMT ": not enough memory to list it",
                 CM_PATH_ARGS(dir));
        return -1;
    }
    if (out->count == 0) {
        snprintf(err, err_len, CM_PATH_FMT ": no image files in this "
                 "folder (.png, .jpg, .bmp, .gif, .tga, .pgm, ...)",
                 CM_PATH_ARGS(dir));
        return -1;
    }
    qsort(out->paths, out->count, sizeof *out->paths, by_name);
    return 0;
}

/* The longest path Linux opens, with its terminating NUL (PATH_MAX). */
#define PATH_BYTES 4096

static int collect_list_file(const char *list_file, path_list *out,
                             size_t *capacity, char *err, size_t err_len)
{
    if (inputs_is_directory(list_file)) {
        snprintf(err, err_len, CM_PATH_FMT ": is a folder: --list takes a "
                 "file of image paths, one per line (give a folder without "
                 "--list)", CM_PATH_ARGS(list_file));
        return -1;
    }
    FILE *f = fopen(list_file, "r");
    if (!f) {
        snprintf(err, err_len, CM_PATH_FMT ": cannot open: %s",
                 CM_PATH_ARGS(list_file), strerror(errno));
        return -1;
    }
    /* One path per line, whole: a line holding a NUL byte (a binary file)
     * or longer than a path can be is refused, not cut short. */
    char *line = NULL;
    size_t cap = 0, number = 0;
    ssize_t got;
    const char *bad = NULL;
    int rc = 0;
    while (rc == 0 && !bad && (got = getline(&line, &cap, f)) != -1) {
        number++;
        if (memchr(line, '\0', (size_t)got))
            bad = "holds a NUL byte: --list takes a text file of image "
                  "paths, one per line";
        line[strcspn(line, "\r\n")] = '\0';
        if (!bad && strlen(line) >= PATH_BYTES)
            bad = "is longer than a path can be (4095 bytes)";
        if (!bad && line[0] != '\0')
            rc = add_path(out, line, capacity);
    }
    int read_error = ferror(f);
    free(line);
    fclose(f);
    if (bad) {
        snprintf(err, err_len, "%s: line %zu %s", list_file, number, bad);
        return -1;
    }
    if (rc != 0 || read_error || out->count == 0) {
        snprintf(err, err_len, CM_PATH_FMT ": %s", CM_PATH_ARGS(list_file),
                 rc ? "not enough memory" : read_error ? "read error"
                                                       : "lists no files");
        return -1;
    }
    return 0;
}

int inputs_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int inputs_collect(char **args, int n_args, const char *list_file,
                   path_list *out, char *err, size_t err_len)
{
    size_t capacity = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    int folder = !list_file && n_args == 1 && inputs_is_directory(args[0]);
    if (list_file)
        rc = collect_list_file(list_file, out, &capacity, err, err_len);
    else if (folder)
        rc = collect_directory(args[0], out, &capacity, err, err_len);
    for (int i = 0; !list_file && !folder && i < n_args && rc == 0; i++)
        if (add_path(out, args[i], &capacity) != 0) {
            snprintf(err, err_len, "not enough memory for the file list");
            rc = -1;
        }
    if (rc != 0)
        path_list_free(out);
    return rc;
}

void path_list_free(path_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    free(list->paths);
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
    if (!src->width || !src->height) {
        snprintf(err, err_len, "not enough memory for %zu file sizes", n);
        return -1;
    }
    for (size_t i = 0; i < list->count; i++) {
        size_t len = 0;
        io_info info;
        unsigned char *data = io_read_file(list->paths[i], &len, err,
                                           err_len);
        int bad = !data || io_probe(list->paths[i], data, len,
                                    src->max_pixels, &info, err,
                                    err_len) != 0;
        free(data);
        bad = bad || !placeable(src, list->paths[i], info.width,
                                info.height, size_from, err, err_len);
        if (bad && !skip_bad)
            return -1;
        if (bad) {
            if (verbose)
                fprintf(stderr, "skipped: %s\n", err);
            free(list->paths[i]);
            ++*skipped;
            continue;
        }
        if (!size_from) {
            src->same_width = info.width;
            src->same_height = info.height;
            size_from = list->paths[i];
        }
        *file_bytes += info.file_bytes;
        src->width[kept] = info.width;
        src->height[kept] = info.height;
        list->paths[kept++] = list->paths[i];
    }
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
    src->width = src->height = NULL;
}

int inputs_survey(const path_list *list, size_t *bytes, size_t *jpegs,
                  char *err, size_t err_len)
{
    *jpegs = 0;
    for (size_t i = 0; i < list->count; i++) {
        unsigned char magic[2] = {0, 0};
        struct stat st;
        FILE *f = fopen(list->paths[i], "rb");
        if (!f || fstat(fileno(f), &st) != 0) {
            snprintf(err, err_len, CM_PATH_FMT ": cannot open: %s",
                     CM_PATH_ARGS(list->paths[i]), strerror(errno));
            if (f)
                fclose(f);
            return -1;
        }
        bytes[i] = (size_t)st.st_size;
        *jpegs += fread(magic, 1, 2, f) == 2 && magic[0] == 0xFF &&
                  magic[1] == 0xD8;
        fclose(f);
    }
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
