/* test_06_fuzz.c - the fuzz targets' inputs replayed in the normal build:
 * every file of tests/fuzz/corpus/NAME/ (the seed corpus) and
 * tests/fuzz/crashes/NAME/ (each input that ever crashed fuzz target
 * NAME) goes through the function that target calls, the code path of
 * the programs (tests/fuzz/NAME.c, included here without its libFuzzer
 * entry point). A target aborts on what it finds wrong; the inputs that
 * crashed the loader, all in stb_image 2.27, must also be refused by the
 * checks before it, which is what stops them without a sanitizer too.
 *
 *   test_06_fuzz [DIR]   DIR: tests/fuzz (CTest gives it in FUZZ_INPUTS)
 */
#define FUZZ_REPLAY
#include "fuzz/fuzz_format.c"
#include "fuzz/fuzz_head.c"
#include "fuzz/fuzz_list.c"
#include "fuzz/fuzz_load.c"
#include "fuzz/fuzz_screen.c"

#include "test.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

static char root[512];
static char current[2048];  /* the input being replayed */

/* A target that finds something wrong aborts: say on which input. */
static void name_input(int sig)
{
    static const char says[] = "test_06_fuzz: aborted on ";
    (void)sig;
    if (write(2, says, sizeof says - 1) < 0 ||
        write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
        _exit(134);
    signal(SIGABRT, SIG_DFL);
    abort();
}

/* Runs every file of root/kind/target through run; returns how many.
 * refused: each must also be refused by the loader. */
static size_t replay(const char *kind, const char *target,
                     int (*run)(const uint8_t *, size_t), int refused)
{
    char dir[1024], err[1024];
    char *path = current;
    snprintf(dir, sizeof dir, "%s/%s/%s", root, kind, target);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof current, "%s/%s", dir, e->d_name);
        size_t len = 0;
        unsigned char *data = io_read_file(path, &len, err, sizeof err);
        if (!data) {  /* an empty file is an input too */
            data = malloc(1);
            len = 0;
        }
        run(data, len);
        count++;
        if (refused) {
            io_image img;
            int rc = io_decode(path, data, len, IO_DEFAULT_MAX_PIXELS, 1,
                               &img, err, sizeof err);
            if (rc == 0) {
                fprintf(stderr, "%s: accepted, expected refused\n", path);
                io_image_free(&img);
            }
            EXPECT(rc == -1);
        }
        free(data);
    }
    closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    const char *from = argc > 1 ? argv[1] : getenv("FUZZ_INPUTS");
    if (!from) {
        printf("no inputs: run through CTest, or give tests/fuzz\n");
        return 77;
    }
    snprintf(root, sizeof root, "%s", from);
    signal(SIGABRT, name_input);
    static const struct {
        const char *name;
        int (*run)(const uint8_t *, size_t);
    } targets[] = {{"fuzz_format", fuzz_format}, {"fuzz_list", fuzz_list},
                   {"fuzz_load", fuzz_load}, {"fuzz_screen", fuzz_screen},
                   {"fuzz_head", fuzz_head}};
    size_t seeds = 0, crashes = 0;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        size_t n = replay("corpus", targets[i].name, targets[i].run, 0);
        if (n == 0)
            fprintf(stderr, "%s/corpus/%s: no seed inputs\n", root,
                    targets[i].name);
        EXPECT(n > 0);
        seeds += n;
        crashes += replay("crashes", targets[i].name, targets[i].run,
                          strcmp(targets[i].name, "fuzz_load") == 0);
    }
    printf("replayed %zu seed inputs and %zu that once crashed\n", seeds,
           crashes);
    return test_summary();
}
