/* files.h - write a file completely or not at all; show a path in a
 * message.
 *
 *   cm_out_file f;
 *   if (cm_out_open(&f, "result.npy") != 0) { ...f.error says why... }
 *   fwrite(..., f.fp); ...
 *   if (cm_out_commit(&f) != 0) { ...f.error... }   (renames into place)
 *
 * Data goes to "<path>.tmp.<pid>" and is renamed over path only when every
 * write succeeded, so a failure never leaves a half-written file behind.
 * A program that stops before the commit removes the temporary file too:
 * on exit() (any CUDA_CHECK, any "exit 1" line) and on SIGINT (Ctrl-C),
 * SIGTERM, SIGHUP, SIGQUIT or SIGPIPE. Only _exit(), SIGKILL (the OOM
 * killer's) and a crash leave it, named as temporary.
 */
#ifndef CM_FILES_H
#define CM_FILES_H

#include <stdio.h>

#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    FILE *fp;
    char path[1024];
    char tmp_path[1100];
    char error[1200];
} cm_out_file;

/* At most this many output files may be open at once in a process. */
enum { CM_MAX_OPEN_OUTPUTS = 16 };

/* Returns 0, or -1 with f->error set. */
int cm_out_open(cm_out_file *f, const char *path);

/* Flushes, closes and renames into place. Returns 0, or -1 with f->error
 * set and the temporary file removed. */
int cm_out_commit(cm_out_file *f);

/* Closes and removes the temporary file (after an error of the caller).
 * Does nothing for a file that is not open. */
void cm_out_abort(cm_out_file *f);

/* For --csv FILE: opens path (NULL: none asked for, returns NULL) and
 * writes the header line; on failure prints f->error and exits 1.
 * cm_csv_finish keeps the CSV only if the run passed: with a verdict that
 * passes it renames the file into place (or prints why not and exits 1);
 * with a failing one it removes it and says so on stderr, so that a FAIL
 * run leaves no CSV that looks like a good one. Call it after the last
 * check and before cm_verdict_report. Does nothing when f->fp is NULL. */
FILE *cm_csv_open(cm_out_file *f, const char *path, const char *header);
void cm_csv_finish(cm_out_file *f, const cm_verdict *verdict);

/* A path in a message: whole up to CM_PATH_SHOWN_MAX characters, else
 * its first and last CM_PATH_SHOWN_END with "..." between, so that the
 * reason after it always fits the message (a path may be 4095 long):
 *   snprintf(err, len, CM_PATH_FMT ": cannot open", CM_PATH_ARGS(path));
 * The three functions are what CM_PATH_ARGS passes. */
enum { CM_PATH_SHOWN_MAX = 200, CM_PATH_SHOWN_END = 80 };
#define CM_PATH_FMT "%.*s%s%s"
#define CM_PATH_ARGS(path) cm_path_head(path), (path), cm_path_gap(path), \
    cm_path_tail(path)
int cm_path_head(const char *path);
const char *cm_path_gap(const char *path);
const char *cm_path_tail(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* CM_FILES_H */
