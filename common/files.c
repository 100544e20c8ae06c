/* files.c - all-or-nothing output files. */
#include "files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cm_out_open(cm_out_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    if (strlen(path) >= sizeof f->path) {
        snprintf(f->error, sizeof f->error, "%.60s...: path too long", path);
        return -1;
    }
    strcpy(f->path, path);
    snprintf(f->tmp_path, sizeof f->tmp_path, "%s.tmp.%ld", path,
             (long)getpid());
    f->fp = fopen(f->tmp_path, "wb");
    if (!f->fp) {
        snprintf(f->error, sizeof f->error, "cannot write %s: %s", path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int cm_out_commit(cm_out_file *f)
{
    int failed = ferror(f->fp);
    int saved = errno;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    f->fp = NULL;
    if (!failed && rename(f->tmp_path, f->path) != 0) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        snprintf(f->error, sizeof f->error, "cannot write %s: %s", f->path,
                 strerror(saved ? saved : EIO));
        remove(f->tmp_path);
        return -1;
    }
    return 0;
}

void cm_out_abort(cm_out_file *f)
{
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    remove(f->tmp_path);
}

FILE *cm_csv_open(cm_out_file *f, const char *path, const char *header)
{
    memset(f, 0, sizeof *f);
    if (!path)
        return NULL;
    if (cm_out_open(f, path) != 0) {
        fprintf(stderr, "%s\n", f->error);
        exit(1);
    }
    fprintf(f->fp, "%s\n", header);
    return f->fp;
}

void cm_csv_commit(cm_out_file *f)
{
    if (f->fp && cm_out_commit(f) != 0) {
        fprintf(stderr, "%s\n", f->error);
        exit(1);
    }
}
