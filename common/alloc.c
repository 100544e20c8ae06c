/* alloc.c - allocation with clear failure messages. */
#include "alloc.h"
#include "options.h"
#include "check.h"
#include "units.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The program's name before a one-line error, as its usage errors have. */
static void prefix(void)
{
    if (*cm_program_name())
        fprintf(stderr, "%s: ", cm_program_name());
}

/* The number after `key` at the start of a line of the file (key NULL:
 * the file's first number), times unit. Returns 0, or -1 when the file,
 * the key or the number is missing (a cgroup's "max" is no number). */
static int read_number(const char *path, const char *key, size_t unit,
                       size_t *out)
{
    char text[16384];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[got] = '\0';
    const char *p = text;
    size_t len = key ? strlen(key) : 0;
    while (key && !(strncmp(p, key, len) == 0 &&
                    (p[len] == ':' || p[len] == ' '))) {
        p = strchr(p, '\n');
        if (!p)
            return -1;
        p++;
    }
    p += len + (key ? 1 : 0);
    char *end;
    errno = 0;
    unsigned long long value = strtoull(p, &end, 10);
    if (end == p || errno != 0)
        return -1;
    *out = value > SIZE_MAX / unit ? SIZE_MAX : (size_t)value * unit;
    return 0;
}

/* A memory cgroup's files: cgroup v2 has one hierarchy, v1 a memory
 * controller of its own, with other names. /proc/self/cgroup names our
 * group on the line "0::/path" (v2) or "N:memory:/path" (v1). */
typedef struct {
    const char *root, *self_tag, *limit, *usage, *inactive, *active;
} cgroup_kind;

static const cgroup_kind CGROUP_KINDS[2] = {
    {"/sys/fs/cgroup", "\n0::", "memory.max", "memory.current",
     "inactive_file", "active_file"},
    {"/sys/fs/cgroup/memory", ":memory:", "memory.limit_in_bytes",
     "memory.usage_in_bytes", "total_inactive_file", "total_active_file"},
};

/* What the group in folder dir leaves us, if it has a limit: the limit
 * less what the group uses, except the page cache it can drop (its file
 * LRU lists), as MemAvailable counts it. Lowers *avail and *total. */
static void cgroup_level(const char *dir, const cgroup_kind *k,
                         size_t *avail, size_t *total)
{
    char file[4200];
    size_t limit, usage, inactive = 0, active = 0;
    snprintf(file, sizeof file, "%s/%s", dir, k->limit);
    if (read_number(file, NULL, 1, &limit) != 0)
        return;
    snprintf(file, sizeof file, "%s/%s", dir, k->usage);
    if (read_number(file, NULL, 1, &usage) != 0)
        return;
    snprintf(file, sizeof file, "%s/memory.stat", dir);
    read_number(file, k->inactive, 1, &inactive);
    read_number(file, k->active, 1, &active);
    size_t cache = inactive + active < usage ? inactive + active : usage;
    size_t held = usage - cache;
    size_t left = limit > held ? limit - held : 0;
    *avail = left < *avail ? left : *avail;
    *total = limit < *total ? limit : *total;
}

/* Our own group, from /proc/self/cgroup, and each group above it up to
 * the root of the hierarchy we see (a container sees its own group as
 * the root): any of them may hold the limit. */
static void cgroup_memory(const cgroup_kind *k, size_t *avail,
                          size_t *total)
{
    char text[4096] = "\n", dir[4096];   /* each line after a newline */
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return;
    size_t got = fread(text + 1, 1, sizeof text - 2, f);
    fclose(f);
    text[got + 1] = '\0';
    const char *tag = strstr(text, k->self_tag);
    if (!tag)
        return;
    const char *path = tag + strlen(k->self_tag);
    size_t path_len = strcspn(path, "\n");
    size_t root_len = strlen(k->root);
    if (root_len + path_len >= sizeof dir)
        return;
    snprintf(dir, sizeof dir, "%s%.*s", k->root, (int)path_len, path);
    for (;;) {
        cgroup_level(dir, k, avail, total);
        if (strlen(dir) <= root_len)
            break;
        char *slash = strrchr(dir + root_len, '/');
        if (slash)
            *slash = '\0';
        else
            dir[root_len] = '\0';
    }
}

size_t cm_host_available_bytes(size_t *total)
{
    size_t avail = SIZE_MAX, all = SIZE_MAX;
    long page = sysconf(_SC_PAGESIZE);
    if (read_number("/proc/meminfo", "MemAvailable", 1024, &avail) != 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES);
        if (pages > 0 && page > 0)
            avail = (size_t)pages * (size_t)page;
    }
    if (read_number("/proc/meminfo", "MemTotal", 1024, &all) != 0) {
        long pages = sysconf(_SC_PHYS_PAGES);
        if (pages > 0 && page > 0)
            all = (size_t)pages * (size_t)page;
    }
    for (int i = 0; i < 2; i++)
        cgroup_memory(&CGROUP_KINDS[i], &avail, &all);
    if (total)
        *total = all;
    return avail;
}

void cm_require_host_bytes(size_t bytes, const char *what)
{
    size_t total;
    size_t avail = cm_host_available_bytes(&total);
    if (bytes <= avail)
        return;
    char need[64], have[64], all[64];
    prefix();
    fprintf(stderr, "not enough host memory for %s: need %s, %s available",
            what, cm_fmt_bytes(bytes, need, sizeof need),
            cm_fmt_bytes(avail, have, sizeof have));
    if (total != SIZE_MAX)
        fprintf(stderr, " of %s", cm_fmt_bytes(total, all, sizeof all));
    fprintf(stderr, "\n");
    exit(1);
}

void *cm_host_alloc(size_t bytes, const char *what)
{
    if (bytes >= CM_HOST_CHECK_BYTES)
        cm_require_host_bytes(bytes, what);
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        char need[64];
        prefix();
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
        prefix();
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
        prefix();
        fprintf(stderr, "size of %s overflows: %zu x %zu\n", what, a, b);
        exit(1);
    }
    return a * b;
}
