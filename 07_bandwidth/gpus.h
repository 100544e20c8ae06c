/* gpus.h - what --all-gpus and --p2p of 07_bandwidth compute and print,
 * apart from CUDA so the CPU tests can check it: where a GPU sits (its
 * PCI name and NUMA node in sysfs, the node's CPUs), the pattern every
 * copy carries, the rate of GPUs copying at once, and the tables.
 *
 *   char name[32];
 *   bw_pci_sysfs_name("0000:3B:00.0", name, sizeof name);  "0000:3b:00.0"
 *   int node = bw_pci_numa_node("/sys", name);             -1: not known
 *   bw_fill_pattern(h_src, words, gpu);   ... copy, copy back into h_got ...
 *   bw_pattern_mismatch(h_got, words, gpu) == words       every word right
 */
#ifndef BW_GPUS_H
#define BW_GPUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sysfs' name of a PCI device, "0000:3b:00.0", from the bus id that
 * cudaDeviceGetPCIBusId gives ("0000:3B:00.0", hexadecimal domain, bus,
 * device and function). Returns 0, or -1 if bus_id does not parse or the
 * name does not fit in len. */
int bw_pci_sysfs_name(const char *bus_id, char *name, size_t len);

/* The NUMA node of PCI device `name`, from
 * SYSFS/bus/pci/devices/NAME/numa_node (SYSFS is "/sys" but for tests);
 * -1 when the file is missing, does not parse or says -1 (not known). */
int bw_pci_numa_node(const char *sysfs, const char *name);

/* Marks the CPUs of a Linux CPU list ("0-15,32-47", "3", "" for none):
 * cpus[c] = 1 for each CPU c listed, 0 for the others below cap. Returns
 * how many are listed, or -1 for text that does not parse or a CPU >= cap
 * (then cpus says nothing). */
int bw_parse_cpulist(const char *text, unsigned char *cpus, size_t cap);

/* The CPUs of NUMA node `node`, from
 * SYSFS/devices/system/node/nodeN/cpulist, as bw_parse_cpulist marks
 * them; -1 when the file cannot be read whole or does not parse. */
int bw_node_cpus(const char *sysfs, int node, unsigned char *cpus,
                 size_t cap);

/* Runs the calling thread on those CPUs of NUMA node `node` (as
 * bw_node_cpus reads them) that it may use now. Returns how many, or 0,
 * the thread left as it was, when there are none: node not known (-1),
 * sysfs unreadable, or none of them ours (taskset, a container's cpuset).
 * A page is then placed on this node when the thread first touches it. */
int bw_bind_thread_to_node(const char *sysfs, int node);

/* The NUMA node of the page at addr (touched already), from the kernel
 * (get_mempolicy); -1 where it does not say (no NUMA, or the call
 * refused, as in some containers). */
int bw_page_node(const void *addr);

/* Word k of the bytes GPU `gpu` copies: gpu + 1 in the top 16 bits, k in
 * the rest, so every word differs from its neighbours, from every other
 * GPU's and from the 0xFF bytes a destination is poisoned with. */
uint64_t bw_pattern_word(int gpu, size_t k);
void bw_fill_pattern(uint64_t *words, size_t n, int gpu);

/* The index of the first of n words that is not GPU gpu's pattern, or n
 * when every word is. */
size_t bw_pattern_mismatch(const uint64_t *words, size_t n, int gpu);

/* The rate of GPUs copying at once: ms[g * runs + r] is GPU g's time in
 * round r, all GPUs starting each round together. A round lasts as long
 * as its slowest GPU, so this is n_gpus * bytes over the median of those
 * slowest times, in GB/s (1e9 bytes/s); 0 when nothing was timed. */
double bw_at_once_gbps(const double *ms, int n_gpus, int runs,
                       size_t bytes);

/* Where the thread of one GPU of --all-gpus ran and its buffers lie. */
enum { BW_PAGES_NOT_READABLE = -1, BW_PAGES_ON_SEVERAL = -2 };
typedef struct {
    int gpu;
    char pci[32];     /* sysfs' name of the GPU, "0000:3b:00.0" */
    int node;         /* the GPU's NUMA node, -1 if not known */
    int bound_cpus;   /* the CPUs its thread ran on; 0: not bound */
    int pages;        /* the node of its buffers' pages, or BW_PAGES_* */
    int registered;   /* 1: malloc + cudaHostRegister; 0: cudaMallocHost */
} bw_gpu_place;

/* One line: "   GPU 0, 0000:3b:00.0: node 1; thread on its 48 CPUs;
 * pages on node 1", with "not known", "not bound", "not readable" or
 * "on several nodes" where so. */
void bw_print_place(FILE *fp, const bw_gpu_place *place);

/* One GPU's line of the --all-gpus table, GB/s; at_once_gbps is NaN
 * where nothing ran at once (one GPU). */
typedef struct {
    int gpu;
    int node;             /* its NUMA node, -1 if not known */
    double alone_gbps;    /* median while it copies alone */
    double at_once_gbps;  /* median while every GPU copies */
} bw_gpu_share;

/* The table: each GPU alone and at once, its share of the sum of the at
 * once rates and at once / alone; with two or more GPUs, the sums, and
 * `at_once_gbps` (bw_at_once_gbps) on a line of its own. */
void bw_print_shares(FILE *fp, const bw_gpu_share *gpus, int n,
                     double at_once_gbps);

/* An n x n matrix of GB/s, rows the GPU copied from, columns the GPU
 * copied to. A NaN prints as "-" on the diagonal, "n/a" elsewhere (a
 * pair that was not measured). */
void bw_print_matrix(FILE *fp, const double *gbps, int n);

/* Which GPU can access which: can[i * n + j] from
 * cudaDeviceCanAccessPeer(&can, i, j), "yes" or "no" ("-" on the
 * diagonal: a GPU is not its own peer). */
void bw_print_access(FILE *fp, const int *can, int n);

#ifdef __cplusplus
}
#endif

#endif /* BW_GPUS_H */
