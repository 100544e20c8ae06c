/* test_files.c - output files appear whole or not at all. */
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "test.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int main(void)
{
    char dir[] = "/tmp/test_files_XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    char path[256], tmp_seen[1100];
    snprintf(path, sizeof path, "%s/out.csv", dir);

    /* While writing, only the temporary file exists. */
    cm_out_file f;
    EXPECT(cm_out_open(&f, path) == 0);
    fputs("a,b\n1,2\n", f.fp);
    EXPECT(!exists(path) && exists(f.tmp_path));
    strcpy(tmp_seen, f.tmp_path);
    EXPECT(cm_out_commit(&f) == 0);
    EXPECT(exists(path) && !exists(tmp_seen));
    FILE *in = fopen(path, "r");
    char text[32] = "";
    EXPECT(in && fread(text, 1, sizeof text - 1, in) == 8);
    EXPECT(strcmp(text, "a,b\n1,2\n") == 0);
    if (in)
        fclose(in);

    /* An aborted write leaves the old file as it was, and no temporary. */
    EXPECT(cm_out_open(&f, path) == 0);
    fputs("half", f.fp);
    strcpy(tmp_seen, f.tmp_path);
    cm_out_abort(&f);
    EXPECT(!exists(tmp_seen));
    in = fopen(path, "r");
    memset(text, 0, sizeof text);
    EXPECT(in && fread(text, 1, sizeof text - 1, in) == 8);
    if (in)
        fclose(in);

    /* A folder that does not exist: a reason, no crash. */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.csv", dir);
    EXPECT(cm_out_open(&f, bad) == -1);
    EXPECT(strstr(f.error, "cannot write") && strstr(f.error, "x.csv"));

    /* A path too long for the buffer is refused, not truncated. */
    char longpath[2000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    EXPECT(cm_out_open(&f, longpath) == -1);
    EXPECT(strstr(f.error, "path too long") != NULL);

    remove(path);
    rmdir(dir);
    return test_summary();
}
