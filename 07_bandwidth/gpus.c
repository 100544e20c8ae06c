/* gpus.c - sysfs, NUMA, the copy pattern, the at-once rate and the
 * tables of --all-gpus and --p2p. */
#define _GNU_SOURCE   /* CPU affinity: cpu_set_t, pthread_*affinity_np */
#include "gpus.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "timing.h"

int bw_pci_sysfs_name(const char *bus_id, char *name, size_t len)
{
    unsigned domain, bus, device, function;
    int used = 0;
    /* Hexadecimal digits, ':' and '.' only: sscanf alone would also take
     * signs, spaces and "0x". */
    if (bus_id[strspn(bus_id, "0123456789abcdefABCDEF:.")] != '\0')
        return -1;
    if (sscanf(bus_id, "%x:%x:%x.%x%n", &domain, &bus, &device, &function,
               &used) != 4 || bus_id[used] != '\0' || bus > 0xff ||
        device > 0x1f || function > 7)
        return -1;
    int n = snprintf(name, len, "%04x:%02x:%02x.%x", domain, bus, device,
                     function);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Reads a whole small text file into buf; 0, or -1 if it is missing,
 * empty or longer than len - 1 bytes. */
static int read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, len - 1, f);
    int whole = got > 0 && got < len - 1 && !ferror(f);
    fclose(f);
    buf[got] = '\0';
    return whole ? 0 : -1;
}

int bw_pci_numa_node(const char *sysfs, const char *name)
{
    char path[512], text[32], *end;
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/numa_node", sysfs,
             name);
    if (read_text(path, text, sizeof text) != 0)
        return -1;
    long node = strtol(text, &end, 10);
    if (end == text || (*end != '\0' && *end != '\n') || node < 0 ||
        node > 65535)
        return -1;
    return (int)node;
}

/* A CPU number at *p, advancing p; -1 if there is none. */
static long cpu_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    long v = strtol(*p, &end, 10);
    *p = end;
    return v;
}

int bw_parse_cpulist(const char *text, unsigned char *cpus, size_t cap)
{
    memset(cpus, 0, cap);
    const char *p = text;
    int count = 0;
    if (strcmp(p, "") == 0 || strcmp(p, "\n") == 0)
        return 0;   /* a node with memory and no CPUs */
    for (;;) {
        long first = cpu_number(&p), last = first;
        if (first >= 0 && *p == '-') {
            p++;
            last = cpu_number(&p);
        }
        if (first < 0 || last < first || (size_t)last >= cap)
            return -1;
        for (long c = first; c <= last; c++)
            if (!cpus[c]) {
                cpus[c] = 1;
                count++;
            }
        if (*p != ',')
            break;
        p++;
    }
    return strcmp(p, "") == 0 || strcmp(p, "\n") == 0 ? count : -1;
}

int bw_node_cpus(const char *sysfs, int node, unsigned char *cpus,
                 size_t cap)
{
    char path[512], text[8192];
    snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist",
             sysfs, node);
    if (node < 0 || read_text(path, text, sizeof text) != 0)
        return -1;
    return bw_parse_cpulist(text, cpus, cap);
}

int bw_bind_thread_to_node(const char *sysfs, int node)
{
    unsigned char on_node[CPU_SETSIZE];
    cpu_set_t allowed, chosen;
    if (bw_node_cpus(sysfs, node, on_node, CPU_SETSIZE) <= 0 ||
        pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed))
        return 0;
    CPU_ZERO(&chosen);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (on_node[c] && CPU_ISSET(c, &allowed))
            CPU_SET(c, &chosen);
    if (CPU_COUNT(&chosen) == 0 ||
        pthread_setaffinity_np(pthread_self(), sizeof chosen, &chosen))
        return 0;
    return CPU_COUNT(&chosen);
}

int bw_page_node(const void *addr)
{
    int node = -1;
    /* Flags 3: MPOL_F_NODE | MPOL_F_ADDR of <linux/mempolicy.h>, "the
     * node of the page at addr"; called by number, as glibc has no
     * wrapper (libnuma does, and we do without it). */
    if (syscall(SYS_get_mempolicy, &node, NULL, 0UL, addr, 3UL) != 0)
        return -1;
    return node;
}

uint64_t bw_pattern_word(int gpu, size_t k)
{
    return (uint64_t)(gpu + 1) << 48 | ((uint64_t)k & 0xffffffffffffu);
}

void bw_fill_pattern(uint64_t *words, size_t n, int gpu)
{
    for (size_t k = 0; k < n; k++)
        words[k] = bw_pattern_word(gpu, k);
}

size_t bw_pattern_mismatch(const uint64_t *words, size_t n, int gpu)
{
    for (size_t k = 0; k < n; k++)
        if (words[k] != bw_pattern_word(gpu, k))
            return k;
    return n;
}

double bw_at_once_gbps(const double *ms, int n_gpus, int runs,
                       size_t bytes)
{
    if (n_gpus < 1 || runs < 1)
        return 0;
    double *slowest = (double *)malloc((size_t)runs * sizeof(double));
    if (!slowest)
        return 0;
    for (int r = 0; r < runs; r++) {
        slowest[r] = ms[r];
        for (int g = 1; g < n_gpus; g++)
            if (ms[g * runs + r] > slowest[r])
                slowest[r] = ms[g * runs + r];
    }
    cm_stats s = cm_stats_of(slowest, runs);
    free(slowest);
    return s.median_ms > 0 ? (double)n_gpus * (double)bytes /
                                 (s.median_ms * 1e6)
                           : 0;
}

void bw_print_place(FILE *fp, const bw_gpu_place *place)
{
    fprintf(fp, "   GPU %d, %s: ", place->gpu, place->pci);
    if (place->node >= 0)
        fprintf(fp, "node %d; ", place->node);
    else
        fprintf(fp, "node not known; ");
    if (place->bound_cpus > 0)
        fprintf(fp, "thread on its %d CPUs; ", place->bound_cpus);
    else
        fprintf(fp, "thread not bound; ");
    if (place->pages >= 0)
        fprintf(fp, "pages on node %d", place->pages);
    else if (place->pages == BW_PAGES_ON_SEVERAL)
        fprintf(fp, "pages on several nodes");
    else
        fprintf(fp, "pages' node not readable");
    fprintf(fp, "%s\n", place->registered ? "" : " (cudaMallocHost: no "
                                                  "cudaHostRegister here)");
}

/* A rate in a column of `width`, or "-" when there is none (NaN). */
static void print_rate(FILE *fp, int width, double gbps, const char *unit)
{
    if (isnan(gbps))
        fprintf(fp, "  %*s", width + (int)strlen(unit), "-");
    else
        fprintf(fp, "  %*.2f%s", width, gbps, unit);
}

void bw_print_shares(FILE *fp, const bw_gpu_share *gpus, int n,
                     double at_once_gbps)
{
    double alone_sum = 0, at_once_sum = 0;
    for (int g = 0; g < n; g++) {
        alone_sum += gpus[g].alone_gbps;
        at_once_sum += gpus[g].at_once_gbps;
    }
    fprintf(fp, "     GPU  node  alone GB/s  at once GB/s  share of sum  "
                "at once / alone\n");
    for (int g = 0; g < n; g++) {
        char node[16] = "?";
        if (gpus[g].node >= 0)
            snprintf(node, sizeof node, "%d", gpus[g].node);
        fprintf(fp, "   %5d  %4s", gpus[g].gpu, node);
        print_rate(fp, 10, gpus[g].alone_gbps, "");
        print_rate(fp, 12, gpus[g].at_once_gbps, "");
        print_rate(fp, 10, 100.0 * gpus[g].at_once_gbps / at_once_sum,
                   " %");
        print_rate(fp, 14, gpus[g].at_once_gbps / gpus[g].alone_gbps, "x");
        fprintf(fp, "\n");
    }
    if (n < 2)
        return;
    fprintf(fp, "     sum      ");
    print_rate(fp, 10, alone_sum, "");
    print_rate(fp, 12, at_once_sum, "");
    print_rate(fp, 10, isnan(at_once_sum) ? NAN : 100.0, " %");
    print_rate(fp, 14, at_once_sum / alone_sum, "x");
    fprintf(fp, "\n   all at once: all GPUs' bytes / each round's slowest "
                "time, median: %.2f GB/s\n", at_once_gbps);
}

void bw_print_matrix(FILE *fp, const double *gbps, int n)
{
    fprintf(fp, "from\\to");
    for (int j = 0; j < n; j++)
        fprintf(fp, " %8d", j);
    fprintf(fp, "\n");
    for (int i = 0; i < n; i++) {
        fprintf(fp, "%7d", i);
        for (int j = 0; j < n; j++) {
            double v = gbps[i * n + j];
            if (isnan(v))
                fprintf(fp, " %8s", i == j ? "-" : "n/a");
            else
                fprintf(fp, " %8.1f", v);
        }
        fprintf(fp, "\n");
    }
}

void bw_print_access(FILE *fp, const int *can, int n)
{
    fprintf(fp, "from\\to");
    for (int j = 0; j < n; j++)
        fprintf(fp, " %8d", j);
    fprintf(fp, "\n");
    for (int i = 0; i < n; i++) {
        fprintf(fp, "%7d", i);
        for (int j = 0; j < n; j++)
            fprintf(fp, " %8s", i == j ? "-" : can[i * n + j] ? "yes" : "no");
        fprintf(fp, "\n");
    }
}
