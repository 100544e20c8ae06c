/* dataset.h - the files of a data set, found before anything is read
 * (batch_inputs.c's inputs_gather calls these): a folder's images; class
 * folders as torchvision's ImageFolder finds them, each file labelled
 * with its class; a list file of "PATH" or "PATH LABEL" lines. Every
 * file a listing leaves out is counted in path_list.unread and, given a
 * stream, named on one "skipped: PATH: why" line.
 *
 *   path_list list = {0};
 *   size_t capacity = 0;
 *   if (ds_class_folders("train/", &list, &capacity, stderr, err,
 *                        sizeof err) != 0) ...err names the problem...
 *   list.paths[i], list.labels[i], list.class_names[list.labels[i]]
 *   path_list_free(&list);
 */
#ifndef DATASET_H
#define DATASET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "batch_inputs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The extensions imgbatch reads (stb_image's formats), lower case,
 * without the dot, and how many. */
extern const char *const DS_IMAGE_EXTENSIONS[];
extern const size_t DS_IMAGE_EXTENSION_COUNT;

/* 1 if name ends in one of them (any case). */
int ds_reads_name(const char *name);

/* Appends a copy of path with its label (-1: none). Returns 0, or -1
 * when memory runs out. */
int ds_add(path_list *list, size_t *capacity, const char *path,
           int64_t label);

/* One folder, not its subfolders: its image files sorted by name (byte
 * order). Names starting with '.' are not looked at; every other file
 * is named on `say` (NULL: not named) and counted in list->unread.
 * Returns 0, or -1 with err (no image file: the reason says whether
 * the folder holds subfolders, which --class-folders would read). */
int ds_folder(const char *dir, path_list *list, size_t *capacity,
              FILE *say, char *err, size_t err_len);

/* ImageFolder's layout: root's subfolders are the classes, sorted by
 * name in byte order (Python's sorted() on UTF-8 names), label k the
 * k-th; each class's files are found in it and every folder below it
 * (links followed, one that leads back to a folder above is not), in
 * the order of torchvision's sorted(os.walk()): the folders by their
 * whole path in byte order, each one's files by name. Names starting
 * with '.' count, as in ImageFolder. Fills list->labels and
 * list->class_names. Files of types not read, and files beside the
 * class folders, are named on `say` and counted in list->unread.
 * Returns 0, or -1 with err: root unreadable, no class folder, or a
 * class without an image imgbatch reads. */
int ds_class_folders(const char *root, path_list *list, size_t *capacity,
                     FILE *say, char *err, size_t err_len);

/* The lines of list_file: "PATH", or "PATH LABEL" where LABEL, the text
 * after the line's last space or tab, is decimal digits (a leading '-'
 * makes it a label to refuse); the spaces and tabs before it end the
 * path. A path that itself ends in a space and digits must therefore
 * be given a label. Either every line has a label (list->labels) or
 * none does. Blank lines are skipped. Returns 0, or -1 with err naming
 * the line: a NUL byte, longer than a path, a label below 0 or above
 * INT64_MAX, a line without a label among labelled ones. */
int ds_list_file(const char *list_file, path_list *list, size_t *capacity,
                 char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* DATASET_H */
