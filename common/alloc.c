/* alloc.c - allocation with clear failure messages. */
#include "alloc.h"
#include "check.h"
#include "units.h"

#include <stdint.h>

void *cm_host_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        char need[64];
        fprintf(stderr, "out of host memory: cannot allocate %s for %s\n",
                cm_fmt_bytes(bytes, need, sizeof need), what);
        exit(1);
    }
    return p;
}

void cm_require_device_bytes(size_t bytes, const char *what)
{
    size_t free_bytes, total_bytes;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes) {
        char need[64], have[64], total[64];
        fprintf(stderr,
                "not enough GPU memory for %s: need %s, %s free of %s\n",
                what, cm_fmt_bytes(bytes, need, sizeof need),
                cm_fmt_bytes(free_bytes, have, sizeof have),
                cm_fmt_bytes(total_bytes, total, sizeof total));
        exit(1);
    }
}

size_t cm_mul_size(size_t a, size_t b, const char *what)
{
    if (b != 0 && a > SIZE_MAX / b) {
        fprintf(stderr, "size of %s overflows: %zu x %zu\n", what, a, b);
        exit(1);
    }
    return a * b;
}
