/* test_files.c - output files appear whole or not at all: not on a
 * commit that fails, not when the program exits or is killed by a signal
 * before the commit, not when the run's verdict is FAIL. */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files.h"
#include "test.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Files in dir (0 if it cannot be read: the checks then fail). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int count = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return d ? count : -1;
}

static char out_path[512];

/* What a child does after opening out_path and writing to it. */
typedef enum { EXIT_1, RAISE_TERM, RAISE_INT, IGNORED_HUP } child_end;

/* Runs a child that opens out_path, writes, then ends as `how` says.
 * Returns its wait status. */
static int child_run(child_end how)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* A signal the program ignores stays ignored: it must not end it
         * through our handler. */
        if (how == IGNORED_HUP)
            signal(SIGHUP, SIG_IGN);
        cm_out_file f;
        if (cm_out_open(&f, out_path) != 0)
            _exit(3);
        fputs("half", f.fp);
        fflush(f.fp);
        if (how == RAISE_TERM)
            raise(SIGTERM);
        if (how == RAISE_INT)
            raise(SIGINT);
        if (how == IGNORED_HUP) {
            raise(SIGHUP);
            _exit(cm_out_commit(&f) == 0 ? 0 : 4);
        }
        exit(1);   /* like a CUDA_CHECK that fails */
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
}

/* A child that opens out_path with cm_csv_open, records one check, and
 * finishes with a verdict that passed or failed. Returns its status; its
 * stderr goes to err_path. */
static int child_csv(int passed, const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(err_path, "w", stderr) ||
            !freopen("/dev/null", "w", stdout))
            _exit(3);
        cm_out_file f;
        FILE *csv = cm_csv_open(&f, out_path, "a,b");
        fputs("1,2\n", csv);
        cm_verdict v = {0};
        cm_check_true(&v, "a check", passed, "as the test asks");
        cm_csv_finish(&f, &v);
        exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
}

static void slurp(const char *path, char *text, size_t len)
{
    memset(text, 0, len);
    FILE *in = fopen(path, "r");
    if (in) {
        size_t got = fread(text, 1, len - 1, in);
        text[got] = '\0';
        fclose(in);
    }
}

int main(void)
{
    char dir[] = "/tmp/test_files_XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    snprintf(out_path, sizeof out_path, "%s/out.csv", dir);

    /* Children first, while this process has opened nothing: each sets
     * up its handlers itself, as a program does. exit(1) after the open,
     * SIGTERM and Ctrl-C's SIGINT leave no file; the signals still end
     * the child, as they would have. */
    int status = child_run(EXIT_1);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    EXPECT(entries(dir) == 0);
    status = child_run(RAISE_TERM);
    EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    EXPECT(entries(dir) == 0);
    status = child_run(RAISE_INT);
    EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    EXPECT(entries(dir) == 0);
    status = child_run(IGNORED_HUP);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT(exists(out_path) && entries(dir) == 1);
    remove(out_path);

    /* A FAIL verdict: no CSV, and a line that says so. A PASS: the CSV. */
    char err_path[600], text[256];
    snprintf(err_path, sizeof err_path, "%s.err", dir);
    status = child_csv(0, err_path);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT(entries(dir) == 0);
    slurp(err_path, text, sizeof text);
    EXPECT(strstr(text, "out.csv not written: the run did not pass") != NULL);
    status = child_csv(1, err_path);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    slurp(out_path, text, sizeof text);
    EXPECT(strcmp(text, "a,b\n1,2\n") == 0 && entries(dir) == 1);
    remove(err_path);
    remove(out_path);

    /* While writing, only the temporary file exists. */
    cm_out_file f;
    char tmp_seen[1100];
    EXPECT(cm_out_open(&f, out_path) == 0);
    fputs("a,b\n1,2\n", f.fp);
    EXPECT(!exists(out_path) && exists(f.tmp_path));
    strcpy(tmp_seen, f.tmp_path);

    /* A forked child that exits leaves its parent's file alone. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        exit(0);
    waitpid(pid, &status, 0);
    EXPECT(exists(tmp_seen));

    EXPECT(cm_out_commit(&f) == 0);
    EXPECT(exists(out_path) && !exists(tmp_seen));
    slurp(out_path, text, sizeof text);
    EXPECT(strcmp(text, "a,b\n1,2\n") == 0);

    /* An aborted write leaves the old file as it was, and no temporary. */
    EXPECT(cm_out_open(&f, out_path) == 0);
    fputs("half", f.fp);
    strcpy(tmp_seen, f.tmp_path);
    cm_out_abort(&f);
    EXPECT(!exists(tmp_seen));
    slurp(out_path, text, sizeof text);
    EXPECT(strcmp(text, "a,b\n1,2\n") == 0);
    cm_out_abort(&f);   /* twice, or on a file never opened: nothing */
    cm_out_file never;
    memset(&never, 0, sizeof never);
    cm_out_abort(&never);

    /* No CSV asked for: nothing opened, and finishing it does nothing. */
    cm_verdict failed = {1, 1, "FAIL: x"};
    EXPECT(cm_csv_open(&f, NULL, "a,b") == NULL);
    cm_csv_finish(&f, &failed);

    /* At most CM_MAX_OPEN_OUTPUTS at once; closing one frees its place. */
    cm_out_file many[CM_MAX_OPEN_OUTPUTS + 1];
    char path[600];
    for (int i = 0; i < CM_MAX_OPEN_OUTPUTS; i++) {
        snprintf(path, sizeof path, "%s/many%d", dir, i);
        EXPECT(cm_out_open(&many[i], path) == 0);
    }
    snprintf(path, sizeof path, "%s/one_too_many", dir);
    EXPECT(cm_out_open(&many[CM_MAX_OPEN_OUTPUTS], path) == -1);
    snprintf(text, sizeof text, "more than %d output files open at once",
             CM_MAX_OPEN_OUTPUTS);
    EXPECT(strstr(many[CM_MAX_OPEN_OUTPUTS].error, text) != NULL);
    cm_out_abort(&many[0]);
    EXPECT(cm_out_open(&many[CM_MAX_OPEN_OUTPUTS], path) == 0);
    cm_out_abort(&many[CM_MAX_OPEN_OUTPUTS]);
    for (int i = 1; i < CM_MAX_OPEN_OUTPUTS; i++)
        cm_out_abort(&many[i]);
    EXPECT(entries(dir) == 1);   /* out.csv */

    /* A folder that does not exist: a reason, no crash. */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.csv", dir);
    EXPECT(cm_out_open(&f, bad) == -1);
    EXPECT(strstr(f.error, "cannot write") && strstr(f.error, "x.csv"));

    /* A folder where the file should go: refused at the open, leaving
     * nothing behind. */
    EXPECT(cm_out_open(&f, dir) == -1);
    EXPECT(strstr(f.error, "is a folder, not a file") != NULL);
    EXPECT(entries(dir) == 1);

    /* A path too long for the buffer is refused, not truncated. */
    char longpath[2000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    EXPECT(cm_out_open(&f, longpath) == -1);
    EXPECT(strstr(f.error, "path too long") != NULL);

    /* A path in a message: whole up to CM_PATH_SHOWN_MAX characters, else
     * its two ends, so that the reason after it is always there. */
    char shown[4200], long_path[4096];
    snprintf(shown, sizeof shown, CM_PATH_FMT ": why", CM_PATH_ARGS("a/b"));
    EXPECT(strcmp(shown, "a/b: why") == 0);
    memset(long_path, 'p', CM_PATH_SHOWN_MAX);
    long_path[CM_PATH_SHOWN_MAX] = '\0';
    snprintf(shown, sizeof shown, CM_PATH_FMT ": why",
             CM_PATH_ARGS(long_path));
    EXPECT(strlen(shown) == CM_PATH_SHOWN_MAX + 5);
    memset(long_path, 'p', sizeof long_path - 1);
    long_path[0] = 'A';
    long_path[sizeof long_path - 2] = 'Z';
    long_path[sizeof long_path - 1] = '\0';
    snprintf(shown, sizeof shown, CM_PATH_FMT ": why",
             CM_PATH_ARGS(long_path));
    EXPECT(strlen(shown) == 2 * CM_PATH_SHOWN_END + 3 + 5);
    EXPECT(shown[0] == 'A' && strstr(shown, "p...p") != NULL &&
           strstr(shown, "pZ: why") != NULL);
    EXPECT(cm_out_open(&f, long_path) == -1);
    EXPECT(strlen(f.error) < 200 &&
           strstr(f.error, "pZ: path too long") != NULL);

    remove(out_path);
    rmdir(dir);
    return test_summary();
}
