/* batch_inputs.h - which files a batch holds, checked before the GPU is
 * touched, and how one of them is decoded on the CPU (stb_image, through
 * the chapter's loader, image_io.h) into the batch's size.
 *
 *   path_list list;
 *   inputs_collect(args, n_args, list_file, &list, err, sizeof err);
 *   batch_source src = {&list, 0, 0, 0, max_pixels};   (0 x 0: no resize)
 *   inputs_check(&src, skip_bad, &skipped, &file_bytes, err, sizeof err);
 *   ... inputs_decode_bytes(&src, i, bits, len, dst, err, sizeof err)
 *       from any thread ...
 *   path_list_free(&list);
 */
#ifndef BATCH_INPUTS_H
#define BATCH_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char **paths;  /* malloc'd strings */
    size_t count;
} path_list;

typedef struct {
    path_list *list;
    size_t width, height;  /* the batch's image size */
    int resize;            /* 1: every image is resized to width x height */
    size_t max_pixels;     /* per file, before any resize */
} batch_source;

/* One directory (its image files, by name), the lines of list_file, or the
 * paths given (one or more files). Returns 0, or -1 with a reason naming
 * the file in err. */
int inputs_collect(char **args, int n_args, const char *list_file,
                   path_list *out, char *err, size_t err_len);
void path_list_free(path_list *list);

/* 1 if path names an existing directory. */
int inputs_is_directory(const char *path);

/* Checks every file (io_probe) and, unless src->resize, that all have the
 * size of the first good one, which becomes src->width x height. A bad
 * file is an error, or with skip_bad one "skipped: ..." line on stderr,
 * removed from the list and counted. Returns 0, or -1 with err. */
int inputs_check(batch_source *src, int skip_bad, size_t *skipped,
                 size_t *file_bytes, char *err, size_t err_len);

/* Each checked file's size in bytes[i] (list->count of them) and the
 * number that start as a JPEG does (FF D8), in *jpegs. Returns 0, or -1
 * with err if a file can no longer be read. */
int inputs_survey(const path_list *list, size_t *bytes, size_t *jpegs,
                  char *err, size_t err_len);

/* Decodes the bytes of image index (len of them, read from its file) to
 * gray, resized if src->resize, into dst, which holds src->width *
 * src->height bytes. Safe from several threads at once. Returns 0, or -1
 * with "PATH: reason" in err (a size other than the batch's, too). */
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
