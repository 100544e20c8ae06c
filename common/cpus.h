/* cpus.h - how many CPUs this process may use at once.
 *
 *   int threads = cm_cpu_count();            (at least 1)
 *   printf("this process may use %d CPUs\n", threads);
 *
 * sysconf(_SC_NPROCESSORS_ONLN) counts the machine's CPUs. A process may
 * use fewer: its affinity mask (taskset, a batch scheduler) and its
 * cgroup's CPU quota (docker --cpus 4, a Kubernetes CPU limit) say how
 * many. cm_cpu_count takes the smallest of them.
 */
#ifndef CM_CPUS_H
#define CM_CPUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs in this process's affinity mask (or online, if the mask cannot
 * be read), lowered to its cgroup's CPU quota where there is one (v2's
 * cpu.max, v1's cpu.cfs_quota_us, in our group or any above it). */
int cm_cpu_count(void);

/* The CPUs a quota of Q microseconds of CPU time every period of P
 * allows: Q / P rounded up, at least 1 (50000 in 100000 is half of one
 * CPU's time: 1, since more threads would only take turns). From the text
 * of cgroup v2's cpu.max ("200000 100000" -> 2, "max 100000" -> no limit)
 * or of v1's two files ("-1" -> no limit). Each returns the CPUs, 0 for
 * no limit, -1 for text it cannot read. */
int cm_cpu_quota_v2(const char *cpu_max);
int cm_cpu_quota_v1(const char *cfs_quota_us, const char *cfs_period_us);

/* The smallest quota, in CPUs, of our cgroup and those above it, 0 if
 * none has one: proc_cgroup is /proc/self/cgroup, v2_root and v1_root
 * where the v2 hierarchy and v1's cpu controller are mounted
 * (/sys/fs/cgroup, /sys/fs/cgroup/cpu). Files that are missing or
 * unreadable count as no limit. */
int cm_cgroup_cpu_limit(const char *proc_cgroup, const char *v2_root,
                        const char *v1_root);

#ifdef __cplusplus
}
#endif

#endif /* CM_CPUS_H */
