/* test_cpus.c - the CPU count follows affinity and cgroup quotas: the
 * quota files' text, and a fake /proc/self/cgroup and cgroup tree. */
#define _GNU_SOURCE  /* sched_getaffinity, CPU_COUNT */
#include "test.h"
#include "cpus.h"

#include <limits.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

/* Writes text to root/name, making the folders on the way. */
static void put(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, name);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    EXPECT(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int limit(void)
{
    char proc[300], v2[300], v1[300];
    snprintf(proc, sizeof proc, "%s/proc_cgroup", root);
    snprintf(v2, sizeof v2, "%s/v2", root);
    snprintf(v1, sizeof v1, "%s/v1cpu", root);
    return cm_cgroup_cpu_limit(proc, v2, v1);
}

static void remove_tree(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    EXPECT(system(cmd) == 0);
}

int main(void)
{
    /* cgroup v2's cpu.max: "QUOTA PERIOD" or "max PERIOD". */
    EXPECT(cm_cpu_quota_v2("max 100000") == 0);
    EXPECT(cm_cpu_quota_v2("max 100000\n") == 0);
    EXPECT(cm_cpu_quota_v2("200000 100000") == 2);
    EXPECT(cm_cpu_quota_v2("200000 100000\n") == 2);
    EXPECT(cm_cpu_quota_v2("50000 100000") == 1);    /* half a CPU: 1 */
    EXPECT(cm_cpu_quota_v2("150000 100000") == 2);   /* rounded up */
    EXPECT(cm_cpu_quota_v2("400000 100000") == 4);
    EXPECT(cm_cpu_quota_v2("1 1000000") == 1);
    EXPECT(cm_cpu_quota_v2("9223372036854775807 1") == INT_MAX);
    /* Garbage: -1, never a count. */
    EXPECT(cm_cpu_quota_v2("") == -1);
    EXPECT(cm_cpu_quota_v2("garbage") == -1);
    EXPECT(cm_cpu_quota_v2("200000") == -1);
    EXPECT(cm_cpu_quota_v2("max") == -1);
    EXPECT(cm_cpu_quota_v2("200000 100000 7") == -1);
    EXPECT(cm_cpu_quota_v2("200000x 100000") == -1);
    EXPECT(cm_cpu_quota_v2("maxi 100000") == -1);
    EXPECT(cm_cpu_quota_v2("0 100000") == -1);
    EXPECT(cm_cpu_quota_v2("-200000 100000") == -1);
    EXPECT(cm_cpu_quota_v2("200000 0") == -1);
    EXPECT(cm_cpu_quota_v2("99999999999999999999 100000") == -1);
    EXPECT(cm_cpu_quota_v2(NULL) == -1);

    /* cgroup v1: cpu.cfs_quota_us ("-1": none) and cpu.cfs_period_us. */
    EXPECT(cm_cpu_quota_v1("-1\n", "100000\n") == 0);
    EXPECT(cm_cpu_quota_v1("300000\n", "100000\n") == 3);
    EXPECT(cm_cpu_quota_v1("50000", "100000") == 1);
    EXPECT(cm_cpu_quota_v1("250000", "100000") == 3);
    EXPECT(cm_cpu_quota_v1("garbage", "100000") == -1);
    EXPECT(cm_cpu_quota_v1("300000", "") == -1);
    EXPECT(cm_cpu_quota_v1("300000", "0") == -1);
    EXPECT(cm_cpu_quota_v1("-2", "100000") == -1);
    EXPECT(cm_cpu_quota_v1("300000 1", "100000") == -1);
    EXPECT(cm_cpu_quota_v1(NULL, "100000") == -1);

    /* A fake /proc/self/cgroup and cgroup tree. */
    snprintf(root, sizeof root, "/tmp/test_cpus.%ld", (long)getpid());
    EXPECT(mkdir(root, 0700) == 0);

    /* No files at all: no limit. */
    EXPECT(limit() == 0);

    /* v2: our group /a/b has none, /a above it 3 CPUs, the root 8. */
    put("proc_cgroup", "0::/a/b\n");
    put("v2/a/b/cpu.max", "max 100000\n");
    EXPECT(limit() == 0);
    put("v2/a/cpu.max", "250000 100000\n");
    EXPECT(limit() == 3);
    put("v2/cpu.max", "800000 100000\n");
    EXPECT(limit() == 3);
    put("v2/a/b/cpu.max", "50000 100000\n");   /* our own: the smallest */
    EXPECT(limit() == 1);
    put("v2/a/b/cpu.max", "garbage\n");        /* unreadable: ignored */
    EXPECT(limit() == 3);

    /* v1, as a hybrid system lists it: the cpu controller with cpuacct
     * (cpuacct alone, or "name=", must not be taken for it). A container
     * without a cgroup namespace names a path that only the mount's
     * root holds: /docker/x is not there, its root is. */
    put("proc_cgroup", "12:cpuacct:/other\n11:name=systemd:/\n"
                       "4:cpu,cpuacct:/docker/x\n0::/a/b\n");
    put("v1cpu/cpu.cfs_quota_us", "200000\n");
    put("v1cpu/cpu.cfs_period_us", "100000\n");
    EXPECT(limit() == 2);                       /* v1's 2 < v2's 3 */
    put("v1cpu/cpu.cfs_quota_us", "-1\n");
    EXPECT(limit() == 3);                       /* v1 none: v2's 3 */
    put("v1cpu/other/cpu.cfs_quota_us", "100000\n");
    put("v1cpu/other/cpu.cfs_period_us", "100000\n");
    EXPECT(limit() == 3);                       /* cpuacct's path: not us */

    /* A process in the root group ("0::/"): the root's own file. */
    put("proc_cgroup", "0::/\n");
    EXPECT(limit() == 8);
    put("proc_cgroup", "garbage without colons\n");
    EXPECT(limit() == 0);
    remove_tree();

    /* The real count: at least 1 and never above the affinity mask. */
    cpu_set_t set;
    int n = cm_cpu_count();
    EXPECT(n >= 1);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        EXPECT(n <= CPU_COUNT(&set));
    printf("this process may use %d CPUs\n", n);
    return test_summary();
}
