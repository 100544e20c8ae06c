/* cpus.c - the CPUs this process may use: affinity, then cgroup quotas. */
#define _GNU_SOURCE  /* sched_getaffinity and the CPU_*_S macros */
#include "cpus.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A whole number at *p (after blanks), *p moved past it. 0 or -1. */
static int parse_number(const char **p, long long *out)
{
    char *end;
    errno = 0;
    long long value = strtoll(*p, &end, 10);
    if (end == *p || errno != 0)
        return -1;
    *out = value;
    *p = end;
    return 0;
}

static int only_blanks(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return *p == '\0';
}

/* quota / period rounded up; -1 unless both are positive. */
static int quota_cpus(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return -1;
    long long cpus = quota / period + (quota % period != 0);
    return cpus > INT_MAX ? INT_MAX : (int)cpus;
}

int cm_cpu_quota_v2(const char *cpu_max)
{
    if (!cpu_max)
        return -1;
    const char *p = cpu_max;
    while (isspace((unsigned char)*p))
        p++;
    long long quota = 0, period;
    int unlimited = strncmp(p, "max", 3) == 0;
    if (unlimited)
        p += 3;
    else if (parse_number(&p, &quota) != 0)
        return -1;
    /* Two fields, blank between them, nothing after the second. */
    if (!isspace((unsigned char)*p) || parse_number(&p, &period) != 0 ||
        !only_blanks(p) || period <= 0)
        return -1;
    return unlimited ? 0 : quota_cpus(quota, period);
}

int cm_cpu_quota_v1(const char *cfs_quota_us, const char *cfs_period_us)
{
    const char *q = cfs_quota_us, *p = cfs_period_us;
    long long quota, period;
    if (!q || !p || parse_number(&q, &quota) != 0 || !only_blanks(q) ||
        parse_number(&p, &period) != 0 || !only_blanks(p))
        return -1;
    return quota == -1 ? 0 : quota_cpus(quota, period);
}

/* The file's text (at most len - 1 bytes), or -1 if it cannot be read. */
static int read_text(const char *path, char *text, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t got = fread(text, 1, len - 1, f);
    int failed = ferror(f);
    fclose(f);
    text[got] = '\0';
    return failed ? -1 : 0;
}

/* Our group's path in /proc/self/cgroup's text, whose lines read
 * "id:controllers:path": v2's line is "0::path", v1's cpu controller's
 * lists "cpu" among its controllers ("cpu,cpuacct"). Trailing slashes are
 * dropped ("/" becomes ""). 0, or -1 if there is no such line. */
static int group_path(const char *text, int v2, char *path, size_t len)
{
    for (const char *line = text; *line;) {
        size_t line_len = strcspn(line, "\n");
        const char *c1 = memchr(line, ':', line_len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', line_len -
                                     (size_t)(c1 + 1 - line)) : NULL;
        int match = 0;
        if (c2 && v2)
            match = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
        for (const char *w = c2 ? c1 + 1 : line; c2 && !v2 && w < c2;) {
            size_t w_len = strcspn(w, ",:");
            match |= w_len == 3 && strncmp(w, "cpu", 3) == 0;
            w += w_len + 1;
        }
        if (match) {
            size_t p_len = (size_t)(line + line_len - (c2 + 1));
            while (p_len > 0 && c2[p_len] == '/')
                p_len--;
            if (p_len >= len)
                return -1;
            memcpy(path, c2 + 1, p_len);
            path[p_len] = '\0';
            return 0;
        }
        line += line_len + (line[line_len] == '\n');
    }
    return -1;
}

/* The quota of the group in folder dir, in CPUs; 0 for none. */
static int level_limit(const char *dir, int v2)
{
    char file[4200], quota[128], period[128];
    if (v2) {
        snprintf(file, sizeof file, "%s/cpu.max", dir);
        return read_text(file, quota, sizeof quota) == 0
                   ? cm_cpu_quota_v2(quota) : 0;
    }
    snprintf(file, sizeof file, "%s/cpu.cfs_quota_us", dir);
    if (read_text(file, quota, sizeof quota) != 0)
        return 0;
    snprintf(file, sizeof file, "%s/cpu.cfs_period_us", dir);
    if (read_text(file, period, sizeof period) != 0)
        return 0;
    return cm_cpu_quota_v1(quota, period);
}

/* The smallest quota from our group up to the root of one hierarchy (a
 * container sees its own group as the root, and without a cgroup
 * namespace /proc/self/cgroup names a path that only the root holds). */
static int hierarchy_limit(const char *text, const char *root, int v2)
{
    char path[2048], dir[4096];
    if (!root || group_path(text, v2, path, sizeof path) != 0)
        return 0;
    size_t root_len = strlen(root);
    if (root_len + strlen(path) >= sizeof dir)
        return 0;
    memcpy(dir, root, root_len);
    strcpy(dir + root_len, path);
    int best = 0;
    for (;;) {
        int cpus = level_limit(dir, v2);
        if (cpus > 0 && (best == 0 || cpus < best))
            best = cpus;
        if (strlen(dir) <= root_len)
            return best;
        char *slash = strrchr(dir + root_len, '/');
        *(slash ? slash : dir + root_len) = '\0';
    }
}

int cm_cgroup_cpu_limit(const char *proc_cgroup, const char *v2_root,
                        const char *v1_root)
{
    char text[8192];
    if (!proc_cgroup || read_text(proc_cgroup, text, sizeof text) != 0)
        return 0;
    int v2 = hierarchy_limit(text, v2_root, 1);
    int v1 = hierarchy_limit(text, v1_root, 0);
    if (v2 == 0 || (v1 > 0 && v1 < v2))
        return v1;
    return v2;
}

/* The CPUs in our affinity mask, sized for every CPU the system has
 * configured (cpu_set_t alone holds 1024); the online count if the mask
 * cannot be had. */
static int affinity_count(void)
{
    long configured = sysconf(_SC_NPROCESSORS_CONF);
    int max = configured > CPU_SETSIZE && configured < INT_MAX
                  ? (int)configured : CPU_SETSIZE;
    cpu_set_t *set = CPU_ALLOC(max);
    size_t size = CPU_ALLOC_SIZE(max);
    int count = 0;
    if (set && sched_getaffinity(0, size, set) == 0)
        count = CPU_COUNT_S(size, set);
    if (set)
        CPU_FREE(set);
    if (count > 0)
        return count;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (online < INT_MAX ? (int)online : INT_MAX) : 1;
}

int cm_cpu_count(void)
{
    int cpus = affinity_count();
    int quota = cm_cgroup_cpu_limit("/proc/self/cgroup", "/sys/fs/cgroup",
                                    "/sys/fs/cgroup/cpu");
    return quota > 0 && quota < cpus ? quota : cpus;
}
