/* test_alloc.c - allocation failures end the program with one clear line
 * and exit 1, instead of a crash later. Each case runs in a child. */
#include <stdint.h>
#include <sys/resource.h>
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
/* 1 PB: more than any host has, whatever its page cache or swap. */
static const size_t PETABYTE = (size_t)1 << 50;
static void petabyte(void) { cm_require_host_bytes(PETABYTE, "a petabyte"); }
static void petabyte_alloc(void) { cm_host_alloc(PETABYTE, "the matrices"); }
/* malloc itself failing: no more address space for this process. */
static void malloc_fails(void)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_AS, &none);
    cm_host_alloc(CM_HOST_CHECK_BYTES, "a buffer malloc refuses");
}

int main(void)
{
    EXPECT(cm_mul_size(10000, 10000, "x") == 100000000);
    EXPECT(cm_mul_size(0, SIZE_MAX, "x") == 0);
    void *p = cm_host_alloc(0, "nothing");  /* size 0 still gives memory */
    EXPECT(p != NULL);
    free(p);

    /* What the host has: known on Linux, available no more than all. */
    size_t total = 0, avail = cm_host_available_bytes(&total);
    EXPECT(avail > 0 && total > 0 && avail <= total && total != SIZE_MAX);
    cm_require_host_bytes(1 << 20, "a megabyte");   /* returns */
    p = cm_host_alloc(CM_HOST_CHECK_BYTES, "a checked buffer");
    EXPECT(p != NULL);
    free(p);

    char line[2048];
    EXPECT(in_child(overflow, line, sizeof line) == 1);
    EXPECT(strstr(line, "size of the matrix overflows") != NULL);
    /* Asked before malloc, which would promise it and let the OS kill us
     * later: one line with the bytes asked, available and in all. */
    EXPECT(in_child(petabyte, line, sizeof line) == 1);
    EXPECT(strstr(line, "not enough host memory for a petabyte: need "
                  "1125899906842624 bytes") &&
           strstr(line, "available of ") && strchr(line, '\n') ==
           line + strlen(line) - 1);
    EXPECT(in_child(petabyte_alloc, line, sizeof line) == 1);
    EXPECT(strstr(line, "not enough host memory for the matrices") != NULL);
    EXPECT(in_child(too_much, line, sizeof line) == 1);
    EXPECT(strstr(line, "not enough host memory for a huge buffer") != NULL);
    EXPECT(in_child(malloc_fails, line, sizeof line) == 1);
    EXPECT(strstr(line, "out of host memory: cannot allocate 16777216 "
                  "bytes") && strstr(line, "a buffer malloc refuses"));
    return test_summary();
}
