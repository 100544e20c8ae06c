/* files.c - all-or-nothing output files, and paths shortened for
 * messages.
 *
 * Every temporary file still open is listed in a small table, so that a
 * program that stops early can remove it: an atexit handler does it on
 * exit(), and a signal handler on the signals that end a program from
 * outside (Ctrl-C and the like), before the signal ends it as it would
 * have. A signal can arrive at any instruction, so the table is read
 * there with atomics only, and the handler calls only unlink() and
 * raise(), which are async-signal-safe.
 */
#include "files.h"
#include "options.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_FILLING, SLOT_OPEN };

/* One temporary file not yet committed or aborted. pid: the process that
 * made it, so that a forked child's exit never removes its parent's. */
typedef struct {
    atomic_int state;
    pid_t pid;
    char tmp_path[sizeof ((cm_out_file *)0)->tmp_path];
} open_output;

static open_output open_outputs[CM_MAX_OPEN_OUTPUTS];
static atomic_int cleanup_installed;

/* Signals whose default action ends the program and that a user or the
 * system sends from outside. */
static const int CLEANUP_SIGNALS[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE,
                                      SIGTERM};

static void remove_open_outputs(void)
{
    pid_t self = getpid();
    for (int i = 0; i < CM_MAX_OPEN_OUTPUTS; i++)
        if (atomic_load(&open_outputs[i].state) == SLOT_OPEN &&
            open_outputs[i].pid == self)
            unlink(open_outputs[i].tmp_path);
}

/* Installed with SA_RESETHAND: the signal's default action is back in
 * place when we get here, so raising it again ends the program the way
 * the signal would have (as the shell reports it: 130 for Ctrl-C). */
static void on_signal(int sig)
{
    int saved = errno;
    remove_open_outputs();
    raise(sig);
    errno = saved;
}

/* Once per process: the exit handler, and the signal handlers for the
 * signals still at their default action (one the program ignores or
 * handles itself is left alone). */
static void install_cleanup(void)
{
    if (atomic_exchange(&cleanup_installed, 1))
        return;
    atexit(remove_open_outputs);
    for (size_t i = 0; i < sizeof CLEANUP_SIGNALS / sizeof(int); i++) {
        struct sigaction old, sa;
        if (sigaction(CLEANUP_SIGNALS[i], NULL, &old) != 0 ||
            old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(CLEANUP_SIGNALS[i], &sa, NULL);
    }
}

/* Lists f's temporary file. Returns 0, or -1 if the table is full. */
static int remember(const cm_out_file *f)
{
    install_cleanup();
    for (int i = 0; i < CM_MAX_OPEN_OUTPUTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&open_outputs[i].state,
                                           &expected, SLOT_FILLING)) {
            open_outputs[i].pid = getpid();
            strcpy(open_outputs[i].tmp_path, f->tmp_path);
            /* A sequentially consistent store: the path is complete
             * before a signal handler can see the slot as open. */
            atomic_store(&open_outputs[i].state, SLOT_OPEN);
            return 0;
        }
    }
    return -1;
}

static void forget(const cm_out_file *f)
{
    pid_t self = getpid();
    for (int i = 0; i < CM_MAX_OPEN_OUTPUTS; i++)
        if (atomic_load(&open_outputs[i].state) == SLOT_OPEN &&
            open_outputs[i].pid == self &&
            strcmp(open_outputs[i].tmp_path, f->tmp_path) == 0) {
            atomic_store(&open_outputs[i].state, SLOT_FREE);
            return;
        }
}

/* Whether a message shows path's two ends only. */
static int path_cut(const char *path)
{
    return strlen(path) > CM_PATH_SHOWN_MAX;
}

int cm_path_head(const char *path)
{
    return path_cut(path) ? CM_PATH_SHOWN_END : CM_PATH_SHOWN_MAX;
}

const char *cm_path_gap(const char *path)
{
    return path_cut(path) ? "..." : "";
}

const char *cm_path_tail(const char *path)
{
    return path_cut(path) ? path + strlen(path) - CM_PATH_SHOWN_END : "";
}

int cm_out_open(cm_out_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    if (strlen(path) >= sizeof f->path) {
        snprintf(f->error, sizeof f->error, "cannot write " CM_PATH_FMT
                 ": path too long", CM_PATH_ARGS(path));
        return -1;
    }
    strcpy(f->path, path);
    /* A folder would be found only at the rename, after the run: say it
     * now. */
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(f->error, sizeof f->error, "cannot write " CM_PATH_FMT
                 ": it is a folder, not a file", CM_PATH_ARGS(path));
        return -1;
    }
    snprintf(f->tmp_path, sizeof f->tmp_path, "%s.tmp.%ld", path,
             (long)getpid());
    /* Listed before it exists, so that no moment has it on disk unlisted
     * (removing a file not yet made is harmless). */
    if (remember(f) != 0) {
        snprintf(f->error, sizeof f->error, "cannot write " CM_PATH_FMT
                 ": more than %d output files open at once",
                 CM_PATH_ARGS(path), CM_MAX_OPEN_OUTPUTS);
        f->tmp_path[0] = '\0';
        return -1;
    }
    f->fp = fopen(f->tmp_path, "wb");
    if (!f->fp) {
        snprintf(f->error, sizeof f->error, "cannot write " CM_PATH_FMT
                 ": %s", CM_PATH_ARGS(path), strerror(errno));
        forget(f);
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
        snprintf(f->error, sizeof f->error, "cannot write " CM_PATH_FMT
                 ": %s", CM_PATH_ARGS(f->path), strerror(saved ? saved : EIO));
        remove(f->tmp_path);
    }
    forget(f);
    return failed ? -1 : 0;
}

void cm_out_abort(cm_out_file *f)
{
    if (!f->fp)
        return;
    fclose(f->fp);
    f->fp = NULL;
    remove(f->tmp_path);
    forget(f);
}

FILE *cm_csv_open(cm_out_file *f, const char *path, const char *header)
{
    memset(f, 0, sizeof *f);
    if (!path)
        return NULL;
    if (cm_out_open(f, path) != 0) {
        if (*cm_program_name())
            fprintf(stderr, "%s: ", cm_program_name());
        fprintf(stderr, "%s\n", f->error);
        exit(1);
    }
    fprintf(f->fp, "%s\n", header);
    return f->fp;
}

void cm_csv_finish(cm_out_file *f, const cm_verdict *verdict)
{
    if (!f->fp)
        return;
    if (verdict->checks == 0 || verdict->failures > 0) {
        cm_out_abort(f);
        fprintf(stderr, "%s not written: the run did not pass its checks\n",
                f->path);
        return;
    }
    if (cm_out_commit(f) != 0) {
        fprintf(stderr, "%s\n", f->error);
        exit(1);
    }
}
