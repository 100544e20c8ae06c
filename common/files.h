/* files.h - write a file completely or not at all.
 *
 *   cm_out_file f;
 *   if (cm_out_open(&f, "result.npy") != 0) { ...f.error says why... }
 *   fwrite(..., f.fp); ...
 *   if (cm_out_commit(&f) != 0) { ...f.error... }   (renames into place)
 *
 * Data goes to "<path>.tmp.<pid>" and is renamed over path only when every
 * write succeeded, so a failure never leaves a half-written file behind.
 */
#ifndef CM_FILES_H
#define CM_FILES_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    FILE *fp;
    char path[1024];
    char tmp_path[1100];
    char error[1200];
} cm_out_file;

/* Returns 0, or -1 with f->error set. */
int cm_out_open(cm_out_file *f, const char *path);

/* Flushes, closes and renames into place. Returns 0, or -1 with f->error
 * set and the temporary file removed. */
int cm_out_commit(cm_out_file *f);

/* Closes and removes the temporary file (after an error of the caller). */
void cm_out_abort(cm_out_file *f);

/* For --csv FILE: opens path (NULL: none asked for, returns NULL) and
 * writes the header line; on failure prints f->error and exits 1.
 * cm_csv_commit renames it into place (does nothing when f->fp is NULL),
 * or prints why not and exits 1. */
FILE *cm_csv_open(cm_out_file *f, const char *path, const char *header);
void cm_csv_commit(cm_out_file *f);

#ifdef __cplusplus
}
#endif

#endif /* CM_FILES_H */
