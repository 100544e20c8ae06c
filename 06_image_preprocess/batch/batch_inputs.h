/* batch_inputs.h - which files a batch holds, checked before the GPU is
 * touched (each one's size read from its header), and how one of them
 * is decoded on the CPU (stb_image, through the chapter's loader,
 * image_io.h) to gray or to R, G, B planes at its own size.
 *
 *   path_list list;
 *   inputs_collect(args, n_args, list_file, &list, err, sizeof err);
 *   batch_source src = {.list = &list, .channels = 1, .spec = &spec,
 *                       .max_pixels = max_pixels};
 *   inputs_check(&src, skip_bad, 1, &skipped, &file_bytes, err,
 *                sizeof err);                 fills src.width, src.height
 *   ... inputs_decode_bytes(&src, i, bits, len, planes, err, sizeof err)
 *       from any thread ...
 *   inputs_free(&src); path_list_free(&list);
 */
#ifndef BATCH_INPUTS_H
#define BATCH_INPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "transform_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char **paths;          /* malloc'd strings */
    size_t count;
    int64_t *labels;       /* one per path, or NULL: no labels */
    char **class_names;    /* class folders: classes of them, by label */
    size_t classes;
    size_t unread;         /* files a folder's listing left out */
} path_list;

typedef struct {
    path_list *list;
    size_t *width, *height;  /* each file's, from its header */
    int channels;            /* planes a decode gives: 1 gray, 3 R, G, B */
    const tf_spec *spec;     /* the tensor: TF_SAME wants one size */
    size_t max_pixels;       /* per file */
    int threads;             /* inputs_check's; 0: inputs_default_threads */
    int exif;                /* turn each JPEG upright by its EXIF
                                orientation (inputs_check reads it) */
    uint8_t *orientation;    /* each kept file's, 1 to 8; NULL: all 1 */
    size_t *bytes;           /* each kept file's size, as read */
    uint8_t *whole;          /* each kept file's: 1 once checked whole
                                (io_probe), 0 while only its header
                                has been (inputs_recheck) */
    size_t jpegs;            /* kept files that start as a JPEG (FF D8) */
    /* TF_SAME: the size of every file, and the file that set it */
    size_t same_width, same_height;
} batch_source;

/* What to collect: a folder (args[0] alone, a directory), the lines of
 * list_file, or the paths given; with class_folders, args[0] is the
 * folder of class folders (dataset.h says how each is read). skipped:
 * where each file a listing leaves out is named, or NULL. */
typedef struct {
    char **args;
    int n_args;
    const char *list_file;
    int class_folders;
    FILE *skipped;
} inputs_request;

/* Collects q's paths (and labels, class names, the count of files left
 * out) into out. Returns 0, or -1 with a reason naming the file or
 * folder in err (out then holds nothing). */
int inputs_gather(const inputs_request *q, path_list *out, char *err,
                  size_t err_len);

/* The same without class folders, naming nothing: one directory (its
 * image files, by name), the lines of list_file, or the paths given. */
int inputs_collect(char **args, int n_args, const char *list_file,
                   path_list *out, char *err, size_t err_len);
void path_list_free(path_list *list);

/* 1 if path names an existing directory. */
int inputs_is_directory(const char *path);

/* Checks every file's header (batch_head.h: from its first bytes where
 * they hold it, else the whole file, io_probe) and that the tensor can
 * take it: with TF_SAME all must have the size of the first good one
 * (then src->same_width x same_height), else tf_place_image must place
 * it. Fills src->width and src->height (freed by inputs_free). A bad
 * file is an error (the first in the list's order), or with skip_bad
 * one "skipped: ..." line on stderr (if verbose, in the list's order),
 * removed from the list (its label with it) and counted. Fills
 * src->bytes, src->whole and src->jpegs too. The files are probed on
 * src->threads threads, one file at a time each. A file taken from its
 * header gets the rest of its check from inputs_recheck, when it is
 * read whole. Returns 0, or -1 with err. */
int inputs_check(batch_source *src, int skip_bad, int verbose,
                 size_t *skipped, size_t *file_bytes, char *err,
                 size_t err_len);
void inputs_free(batch_source *src);

/* The EXIF orientation (1 to 8) that turns kept file i upright: its
 * own with src->exif, else 1. */
int inputs_orientation(const batch_source *src, size_t i);


/* The whole-file check of image index (len bytes at bits, read whole),
 * once a file: io_probe's, and the frame size its header gave. Safe
 * from several threads at once. Returns 0, or -1 with "PATH: reason"
 * in err (a file cut short, one changed since it was checked). */
int inputs_recheck(const batch_source *src, size_t index,
                   const uint8_t *bits, size_t len, char *err,
                   size_t err_len);

/* Decodes the bytes of image index (len of them, read from its file)
 * into dst: src->channels planes of its width x height (gray, or R, G,
 * B one after another). Safe from several threads at once. Returns 0,
 * or -1 with "PATH: reason" in err (a size other than its header's,
 * too). */
int inputs_decode_bytes(const batch_source *src, size_t index,
                        const uint8_t *bits, size_t len, uint8_t *dst,
                        char *err, size_t err_len);

/* The same, reading the file first. */
int inputs_decode(const batch_source *src, size_t index, uint8_t *dst,
                  char *err, size_t err_len);

/* Reader threads when --threads is not given: one per CPU this process
 * may use (cm_cpu_count: its affinity and cgroup quota), at most 16 (past
 * that, the files and the GPU are the limit). */
int inputs_default_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_INPUTS_H */
