/* dataset.c - a data set's files: a folder, class folders as
 * torchvision's ImageFolder finds them, a list with or without labels
 * (dataset.h). Nothing is read but folders and the list. */
#include "dataset.h"
#include "files.h"
#include "lib_support.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

const char *const DS_IMAGE_EXTENSIONS[] = {
    "png", "jpg", "jpeg", "bmp", "gif", "tga", "psd", "hdr", "pic",
    "pgm", "ppm", "pnm"};
const size_t DS_IMAGE_EXTENSION_COUNT =
    sizeof DS_IMAGE_EXTENSIONS / sizeof DS_IMAGE_EXTENSIONS[0];

/* The longest path Linux opens, with its terminating NUL (PATH_MAX). */
enum { PATH_BYTES = 4096 };
/* Folders below a class folder, at most: deeper is refused, not
 * followed for ever. */
enum { MAX_DEPTH = 64 };

static const char NO_IMAGE[] = "(.png, .jpg, .bmp, .gif, .tga, .pgm, ...)";

int ds_reads_name(const char *name)
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
    for (size_t i = 0; i < DS_IMAGE_EXTENSION_COUNT; i++)
        if (strcmp(ext, DS_IMAGE_EXTENSIONS[i]) == 0)
            return 1;
    return 0;
}

int ds_add(path_list *list, size_t *capacity, const char *path,
           int64_t label)
{
    if (list->count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 16;
        char **paths = (char **)ib_realloc(list->paths,
                                           grown * sizeof *paths);
        if (!paths)
            return -1;
        list->paths = paths;
        int64_t *labels = (int64_t *)ib_realloc(list->labels,
                                                grown * sizeof *labels);
        if (!labels)
            return -1;
        list->labels = labels;
        *capacity = grown;
    }
    list->labels[list->count] = label;
    list->paths[list->count] = ib_strdup(path);
    return list->paths[list->count++] ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The list's paths from `from` on, sorted in byte order. */
static void sort_from(path_list *list, size_t from)
{
    if (list->count - from < 2)
        return;  /* qsort's pointer may be NULL then */
    qsort(list->paths + from, list->count - from, sizeof *list->paths,
          by_name);
}

/* One "skipped:" line for a file the listing leaves out, counted. */
static void left_out(path_list *list, FILE *say, const char *path,
                     const char *why)
{
    list->unread++;
    if (say)
        fprintf(say, "skipped: %s: %s\n", path, why);
}

/* "not an image imgbatch reads (.webp)" for path. */
static void not_read(path_list *list, FILE *say, const char *path)
{
    char why[96];
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (dot && dot[1] && strlen(dot) < 24)
        snprintf(why, sizeof why, "not an image imgbatch reads (%s)", dot);
    else
        snprintf(why, sizeof why, "not an image imgbatch reads (%s)",
                 dot && dot[1] ? "its extension" : "no extension");
    left_out(list, say, path, why);
}

/* dir/name into path; 0, or -1 with err when it is too long. */
static int join(char *path, const char *dir, const char *name, char *err,
                size_t err_len)
{
    if ((size_t)snprintf(path, PATH_BYTES, "%s/%s", dir, name) <
        PATH_BYTES)
        return 0;
    snprintf(err, err_len, CM_PATH_FMT ": a name in it makes a path longer "
             "than 4095 bytes", CM_PATH_ARGS(dir));
    return -1;
}

static int cannot_list(const char *dir, char *err, size_t err_len)
{
    snprintf(err, err_len, CM_PATH_FMT ": cannot list: %s",
             CM_PATH_ARGS(dir), strerror(errno));
    return -1;
}

static int no_memory(const char *dir, char *err, size_t err_len)
{
    snprintf(err, err_len, CM_PATH_FMT ": not enough memory to list it",
             CM_PATH_ARGS(dir));
    return -1;
}

/* dir's entries, by kind, each kind sorted by path: its folders (a link
 * to one too) into folders, everything else into others (either NULL:
 * not wanted); names starting with '.' left out with skip_hidden, "."
 * and ".." always. Returns 0, or -1 with err (the lists then freed). */
static int read_folder(const char *dir, int skip_hidden, path_list *folders,
                       path_list *others, char *err, size_t err_len)
{
    path_list *lists[2] = {folders, others};
    size_t capacity[2] = {0, 0};
    DIR *d = opendir(dir);
    if (!d)
        return cannot_list(dir, err, err_len);
    struct dirent *e;
    char path[PATH_BYTES];
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            (skip_hidden && e->d_name[0] == '.'))
            continue;
        if ((rc = join(path, dir, e->d_name, err, err_len)) != 0)
            break;
        int k = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : 1;
        if (lists[k] &&
            ds_add(lists[k], &capacity[k], path, -1) != 0)
            rc = no_memory(dir, err, err_len);
    }
    closedir(d);
    for (int k = 0; k < 2; k++)
        if (lists[k] && rc != 0)
            path_list_free(lists[k]);
        else if (lists[k])
            sort_from(lists[k], 0);
    return rc;
}

/* A file a listing met: added with label when it is one imgbatch reads,
 * else named on a "skipped:" line. Returns 0, or -1 (no memory). */
static int take_file(path_list *list, size_t *capacity, FILE *say,
                     const char *path, int64_t label)
{
    struct stat st;
    if (stat(path, &st) != 0)
        left_out(list, say, path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        left_out(list, say, path, "not a file");
    else if (!ds_reads_name(path))
        not_read(list, say, path);
    else
        return ds_add(list, capacity, path, label);
    return 0;
}

/* The files of one folder (not its subfolders), by path. */
static int folder_files(const char *dir, int skip_hidden, int64_t label,
                        path_list *list, size_t *capacity, size_t *folders,
                        FILE *say, char *err, size_t err_len)
{
    path_list subs = {0}, files = {0};
    if (read_folder(dir, skip_hidden, &subs, &files, err, err_len) != 0)
        return -1;
    *folders = subs.count;
    path_list_free(&subs);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < files.count; i++)
        if (take_file(list, capacity, say, files.paths[i], label) != 0)
            rc = no_memory(dir, err, err_len);
    path_list_free(&files);
    return rc;
}

int ds_folder(const char *dir, path_list *list, size_t *capacity,
              FILE *say, char *err, size_t err_len)
{
    size_t start = list->count, folders = 0;
    if (folder_files(dir, 1, -1, list, capacity, &folders, say, err,
                     err_len) != 0)
        return -1;
    if (list->count == start) {
        snprintf(err, err_len, CM_PATH_FMT ": no image files in this "
                 "folder %s%s", CM_PATH_ARGS(dir), NO_IMAGE,
                 folders ? "; its subfolders are read as classes with "
                           "--class-folders" : "");
        return -1;
    }
    return 0;
}

/* The folders of a class: dir and every folder below it. A link to a
 * folder above it (stack: the folders above, depth of them) is named and
 * not followed. */
typedef struct {
    dev_t dev;
    ino_t ino;
} folder_id;

static int find_folders(const char *dir, path_list *folders,
                        size_t *capacity, folder_id *stack, int depth,
                        FILE *say, char *err, size_t err_len)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return cannot_list(dir, err, err_len);
    for (int k = 0; k < depth; k++)
        if (stack[k].dev == st.st_dev && stack[k].ino == st.st_ino) {
            if (say)
                fprintf(say, "skipped: %s: a link to a folder above it, "
                        "not followed\n", dir);
            return 0;
        }
    if (depth == MAX_DEPTH) {
        snprintf(err, err_len, CM_PATH_FMT ": folders nested more than %d "
                 "deep", CM_PATH_ARGS(dir), MAX_DEPTH);
        return -1;
    }
    stack[depth].dev = st.st_dev;
    stack[depth].ino = st.st_ino;
    if (ds_add(folders, capacity, dir, -1) != 0)
        return no_memory(dir, err, err_len);
    path_list subs = {0};
    if (read_folder(dir, 0, &subs, NULL, err, err_len) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < subs.count; i++)
        rc = find_folders(subs.paths[i], folders, capacity, stack,
                          depth + 1, say, err, err_len);
    path_list_free(&subs);
    return rc;
}

int ds_class_folders(const char *root, path_list *list, size_t *capacity,
                     FILE *say, char *err, size_t err_len)
{
    /* "train/" and "train" give the same paths. */
    char top[PATH_BYTES];
    size_t len = strlen(root);
    while (len > 1 && root[len - 1] == '/')
        len--;
    if (len >= sizeof top) {
        snprintf(err, err_len, "--class-folders: the path is longer than "
                 "4095 bytes");
        return -1;
    }
    memcpy(top, root, len);
    top[len] = '\0';
    struct stat st;
    if (stat(top, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, CM_PATH_FMT ": not a folder: "
                 "--class-folders takes the folder that holds one "
                 "folder per class", CM_PATH_ARGS(top));
        return -1;
    }
    /* ImageFolder: every folder is a class, a link to one too; its name
     * is the class's. */
    path_list classes = {0}, loose = {0};
    if (read_folder(top, 0, &classes, &loose, err, err_len) != 0)
        return -1;
    for (size_t i = 0; i < loose.count; i++)
        left_out(list, say, loose.paths[i], "not in a class folder");
    path_list_free(&loose);
    int rc = 0;
    if (classes.count == 0) {
        snprintf(err, err_len, CM_PATH_FMT ": no class folder in it: "
                 "--class-folders takes a folder of one folder per class, "
                 "as torchvision's ImageFolder", CM_PATH_ARGS(top));
        rc = -1;
    }
    folder_id stack[MAX_DEPTH];
    for (size_t k = 0; rc == 0 && k < classes.count; k++) {
        path_list folders = {0};
        size_t folders_capacity = 0, before = list->count, subs;
        const char *name = classes.paths[k] + len + 1;
        rc = find_folders(classes.paths[k], &folders, &folders_capacity,
                          stack, 0, say, err, err_len);
        /* sorted(os.walk(...)): the folders by whole path. */
        sort_from(&folders, 0);
        for (size_t i = 0; rc == 0 && i < folders.count; i++)
            rc = folder_files(folders.paths[i], 0, (int64_t)k, list,
                              capacity, &subs, say, err, err_len);
        path_list_free(&folders);
        if (rc == 0 && list->count == before) {
            snprintf(err, err_len, CM_PATH_FMT ": class '%s' (label %zu) "
                     "holds no image imgbatch reads %s",
                     CM_PATH_ARGS(classes.paths[k]), name, k, NO_IMAGE);
            rc = -1;
        }
    }
    /* The classes' names, by label, from their paths. */
    for (size_t k = 0; rc == 0 && k < classes.count; k++)
        memmove(classes.paths[k], classes.paths[k] + len + 1,
                strlen(classes.paths[k] + len + 1) + 1);
    if (rc != 0) {
        path_list_free(&classes);
        return -1;
    }
    free(classes.labels);
    list->class_names = classes.paths;
    list->classes = classes.count;
    return 0;
}

/* A label: the text after the line's last space or tab, if it is
 * digits with at most a leading '-'. Returns 1 and cuts the line before
 * the spaces and tabs, 0 for no label, -1 with *bad for one out of
 * range. */
static int take_label(char *line, int64_t *label, const char **bad)
{
    char *sep = NULL;
    for (char *p = line; *p; p++)
        if (*p == ' ' || *p == '\t')
            sep = p;
    if (!sep)
        return 0;
    const char *text = sep + 1, *digits = text + (*text == '-');
    if (!*digits || strspn(digits, "0123456789") != strlen(digits))
        return 0;
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (*text == '-' || errno == ERANGE) {
        *bad = "is not a label from 0 to 9223372036854775807";
        return -1;
    }
    while (sep > line && (sep[-1] == ' ' || sep[-1] == '\t'))
        sep--;
    if (sep == line) {
        *bad = "holds a label but no path";
        return -1;
    }
    *sep = '\0';
    *label = (int64_t)v;
    return 1;
}

int ds_list_file(const char *list_file, path_list *out, size_t *capacity,
                 char *err, size_t err_len)
{
    struct stat st;
    if (stat(list_file, &st) == 0 && S_ISDIR(st.st_mode)) {
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
    size_t cap = 0, number = 0, first_labelled = 0, first_bare = 0;
    ssize_t got;
    const char *bad = NULL;
    int rc = 0;
    while (rc == 0 && !bad && (got = getline(&line, &cap, f)) != -1) {
        int64_t label = -1;
        number++;
        if (memchr(line, '\0', (size_t)got))
            bad = "holds a NUL byte: --list takes a text file of image "
                  "paths, one per line";
        line[strcspn(line, "\r\n")] = '\0';
        if (!bad && strlen(line) >= PATH_BYTES)
            bad = "is longer than a path can be (4095 bytes)";
        if (bad || line[0] == '\0')
            continue;
        int labelled = take_label(line, &label, &bad);
        if (labelled < 0)
            continue;
        if (labelled && !first_labelled)
            first_labelled = number;
        if (!labelled && !first_bare)
            first_bare = number;
        rc = ds_add(out, capacity, line, label);
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
    if (first_labelled && first_bare) {
        snprintf(err, err_len, "%s: line %zu has no label, but line %zu "
                 "has one: give every line a label (PATH LABEL) or none",
                 list_file, first_bare, first_labelled);
        return -1;
    }
    if (!first_labelled) {
        free(out->labels);
        out->labels = NULL;
    }
    return 0;
}
