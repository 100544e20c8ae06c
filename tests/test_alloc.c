/* test_alloc.c - allocation failures end the program with one clear line
 * and exit 1, instead of a crash later. Each case runs in a child. */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "test.h"

/* Runs fn in a child with stderr captured; returns its exit status and
 * what it printed (a sanitizer may print its own warning first). */
static int in_child(void (*fn)(void), char *line, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < len &&
           (got = read(fds[0], line + used, len - 1 - used)) > 0)
        used += (size_t)got;
    line[used] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void overflow(void) { cm_mul_size(SIZE_MAX / 2, 3, "the matrix"); }
static void too_much(void) { cm_host_alloc(SIZE_MAX - 4096, "a huge buffer"); }

int main(void)
{
    EXPECT(cm_mul_size(10000, 10000, "x") == 100000000);
    EXPECT(cm_mul_size(0, SIZE_MAX, "x") == 0);
    void *p = cm_host_alloc(0, "nothing");  /* size 0 still gives memory */
    EXPECT(p != NULL);
    free(p);

    char line[2048];
    EXPECT(in_child(overflow, line, sizeof line) == 1);
    EXPECT(strstr(line, "size of the matrix overflows") != NULL);
    EXPECT(in_child(too_much, line, sizeof line) == 1);
    EXPECT(strstr(line, "out of host memory") &&
           strstr(line, "a huge buffer"));
    return test_summary();
}
