/* test_07_gpus.c - what 07_bandwidth --all-gpus and --p2p compute and
 * print without a GPU: sysfs names, NUMA nodes and CPU lists (from a fake
 * sysfs tree), the copy pattern, the at-once rate, and the tables,
 * character for character; and a thread bound to a node's CPUs. */
#define _GNU_SOURCE   /* cpu_set_t, sched_getaffinity */
#include "../07_bandwidth/gpus.h"
#include "test.h"

#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/* What fn printed into a memory stream. */
#define PRINTED(text, call)                                                \
    do {                                                                   \
        size_t len_;                                                       \
        FILE *fp = open_memstream(&(text), &len_);                         \
        if (fp) {                                                          \
            call;                                                          \
            fclose(fp);                                                    \
        }                                                                  \
    } while (0)

/* Writes `text` to root/rel, making the folders on the way. */
static void put_file(const char *root, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
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

static void test_sysfs(void)
{
    char name[32];
    EXPECT(bw_pci_sysfs_name("0000:3B:00.0", name, sizeof name) == 0);
    EXPECT(strcmp(name, "0000:3b:00.0") == 0);
    /* An eight-digit domain, as nvidia-smi prints it, and a large one. */
    EXPECT(bw_pci_sysfs_name("00000000:C1:1F.7", name, sizeof name) == 0);
    EXPECT(strcmp(name, "0000:c1:1f.7") == 0);
    EXPECT(bw_pci_sysfs_name("10000:01:00.0", name, sizeof name) == 0);
    EXPECT(strcmp(name, "10000:01:00.0") == 0);
    EXPECT(bw_pci_sysfs_name("", name, sizeof name) == -1);
    EXPECT(bw_pci_sysfs_name("0000:3B:00", name, sizeof name) == -1);
    EXPECT(bw_pci_sysfs_name("0000:3B:00.0x", name, sizeof name) == -1);
    EXPECT(bw_pci_sysfs_name("0000:3B:20.0", name, sizeof name) == -1);
    EXPECT(bw_pci_sysfs_name("0000:3B:00.0", name, 12) == -1);  /* fits? */

    char root[] = "/tmp/test_07_gpusXXXXXX";
    EXPECT(mkdtemp(root) != NULL);
    put_file(root, "bus/pci/devices/0000:3b:00.0/numa_node", "1\n");
    put_file(root, "bus/pci/devices/0000:19:00.0/numa_node", "-1\n");
    put_file(root, "bus/pci/devices/0000:1a:00.0/numa_node", "one\n");
    put_file(root, "devices/system/node/node1/cpulist", "2-3,6\n");
    put_file(root, "devices/system/node/node2/cpulist", "\n");
    EXPECT(bw_pci_numa_node(root, "0000:3b:00.0") == 1);
    EXPECT(bw_pci_numa_node(root, "0000:19:00.0") == -1);   /* not known */
    EXPECT(bw_pci_numa_node(root, "0000:1a:00.0") == -1);
    EXPECT(bw_pci_numa_node(root, "0000:99:00.0") == -1);   /* no file */
    unsigned char cpus[8];
    EXPECT(bw_node_cpus(root, 1, cpus, sizeof cpus) == 3);
    EXPECT(!cpus[0] && !cpus[1] && cpus[2] && cpus[3] && !cpus[4] &&
           !cpus[5] && cpus[6] && !cpus[7]);
    EXPECT(bw_node_cpus(root, 2, cpus, sizeof cpus) == 0);  /* no CPUs */
    EXPECT(bw_node_cpus(root, 3, cpus, sizeof cpus) == -1);
    EXPECT(bw_node_cpus(root, -1, cpus, sizeof cpus) == -1);

    /* Binding: to the first CPU we may use, listed as node 5's, then to
     * a node whose one CPU is not ours (the thread stays as it was). */
    cpu_set_t before, after;
    EXPECT(sched_getaffinity(0, sizeof before, &before) == 0);
    int ours = -1, not_ours = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &before) && ours < 0)
            ours = c;
        if (!CPU_ISSET(c, &before))
            not_ours = c;
    }
    char list[32];
    snprintf(list, sizeof list, "%d\n", ours);
    put_file(root, "devices/system/node/node5/cpulist", list);
    snprintf(list, sizeof list, "%d\n", not_ours);
    put_file(root, "devices/system/node/node6/cpulist", list);
    EXPECT(bw_bind_thread_to_node(root, 6) == 0);
    EXPECT(sched_getaffinity(0, sizeof after, &after) == 0 &&
           CPU_EQUAL(&after, &before));
    EXPECT(bw_bind_thread_to_node(root, -1) == 0);
    EXPECT(bw_bind_thread_to_node(root, 5) == 1);
    EXPECT(sched_getaffinity(0, sizeof after, &after) == 0 &&
           CPU_COUNT(&after) == 1 && CPU_ISSET(ours, &after));
    EXPECT(sched_setaffinity(0, sizeof before, &before) == 0);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -r '%s'", root);
    EXPECT(system(cmd) == 0);
}

/* A touched page is on a node this machine has, or the kernel does not
 * say (-1: no NUMA, or get_mempolicy refused). */
static void test_page_node(void)
{
    char *page = malloc(1 << 16);
    EXPECT(page != NULL);
    if (!page)
        return;
    memset(page, 1, 1 << 16);
    int node = bw_page_node(page + 4096);
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d", node);
    EXPECT(node == -1 || access(path, F_OK) == 0);
    printf("a page of this test lies on node %d\n", node);
    free(page);
}

static void test_cpulist(void)
{
    unsigned char cpus[64];
    EXPECT(bw_parse_cpulist("0-15,32-47\n", cpus, sizeof cpus) == 32);
    EXPECT(cpus[0] && cpus[15] && !cpus[16] && !cpus[31] && cpus[32] &&
           cpus[47] && !cpus[48]);
    EXPECT(bw_parse_cpulist("5", cpus, sizeof cpus) == 1 && cpus[5]);
    EXPECT(bw_parse_cpulist("1,1,0-1", cpus, sizeof cpus) == 2);
    EXPECT(bw_parse_cpulist("", cpus, sizeof cpus) == 0);
    EXPECT(bw_parse_cpulist("63", cpus, sizeof cpus) == 1);
    EXPECT(bw_parse_cpulist("64", cpus, sizeof cpus) == -1);   /* >= cap */
    EXPECT(bw_parse_cpulist("0-64", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("3-1", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("1,", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist(",1", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("1,,2", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("1-", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("a", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("1 2", cpus, sizeof cpus) == -1);
    EXPECT(bw_parse_cpulist("99999999999999999999", cpus, sizeof cpus) ==
           -1);
}

static void test_pattern(void)
{
    uint64_t words[1000];
    bw_fill_pattern(words, 1000, 2);
    EXPECT(words[0] == (uint64_t)3 << 48 && words[999] == words[0] + 999);
    EXPECT(bw_pattern_mismatch(words, 1000, 2) == 1000);
    /* Another GPU's bytes, or a copy that never happened, fail at 0. */
    EXPECT(bw_pattern_mismatch(words, 1000, 1) == 0);
    memset(words, 0xFF, sizeof words);
    EXPECT(bw_pattern_mismatch(words, 1000, 2) == 0);
    /* A misplaced piece fails where it starts. */
    bw_fill_pattern(words, 1000, 2);
    memmove(words + 500, words + 400, 100 * sizeof *words);
    EXPECT(bw_pattern_mismatch(words, 1000, 2) == 500);
    /* The top bits are never all ones (for fewer than 65535 GPUs). */
    EXPECT(bw_pattern_word(1023, ((size_t)1 << 48) - 1) != UINT64_MAX);
}

static void test_at_once(void)
{
    /* Two GPUs, three rounds: the slowest of each round is 10, 30 and
     * 20 ms, median 20 ms: 2 x 1e9 bytes in 20 ms = 100 GB/s. */
    double ms[6] = {10, 30, 5, 8, 12, 20};
    EXPECT(fabs(bw_at_once_gbps(ms, 2, 3, 1000000000) - 100.0) < 1e-9);
    /* One GPU: its own median. */
    EXPECT(fabs(bw_at_once_gbps(ms, 1, 3, 1000000000) - 100.0) < 1e-9);
    EXPECT(bw_at_once_gbps(ms, 0, 3, 1000) == 0);
    EXPECT(bw_at_once_gbps(ms, 2, 0, 1000) == 0);
    /* The input is left as it was. */
    EXPECT(ms[0] == 10 && ms[1] == 30 && ms[2] == 5);
}

static void test_tables(void)
{
    char *text = NULL;
    bw_gpu_share two[2] = {
        {.gpu = 0, .node = 0, .alone_gbps = 55.5, .at_once_gbps = 30.0},
        {.gpu = 1, .node = -1, .alone_gbps = 54.5, .at_once_gbps = 10.0}};
    PRINTED(text, bw_print_shares(fp, two, 2, 38.5));
    EXPECT_STR(text,
        "     GPU  node  alone GB/s  at once GB/s  share of sum  "
        "at once / alone\n"
        "       0     0       55.50         30.00       75.00 %"
        "            0.54x\n"
        "       1     ?       54.50         10.00       25.00 %"
        "            0.18x\n"
        "     sum            110.00         40.00      100.00 %"
        "            0.36x\n"
        "   all at once: all GPUs' bytes / each round's slowest time, "
        "median: 38.50 GB/s\n");

    /* One GPU: nothing ran at once, so no sum and dashes, not zeros. */
    bw_gpu_share one[1] = {
        {.gpu = 0, .node = 1, .alone_gbps = 55.5, .at_once_gbps = NAN}};
    PRINTED(text, bw_print_shares(fp, one, 1, NAN));
    EXPECT_STR(text,
        "     GPU  node  alone GB/s  at once GB/s  share of sum  "
        "at once / alone\n"
        "       0     1       55.50             -             -"
        "                -\n");

    bw_gpu_place placed = {.gpu = 1, .pci = "0000:3b:00.0", .node = 1,
                           .bound_cpus = 48, .pages = 1, .registered = 1};
    PRINTED(text, bw_print_place(fp, &placed));
    EXPECT_STR(text, "   GPU 1, 0000:3b:00.0: node 1; thread on its 48 "
                     "CPUs; pages on node 1\n");
    bw_gpu_place unknown = {.gpu = 0, .pci = "0000:19:00.0", .node = -1,
                            .bound_cpus = 0,
                            .pages = BW_PAGES_NOT_READABLE,
                            .registered = 0};
    PRINTED(text, bw_print_place(fp, &unknown));
    EXPECT_STR(text, "   GPU 0, 0000:19:00.0: node not known; thread not "
                     "bound; pages' node not readable (cudaMallocHost: no "
                     "cudaHostRegister here)\n");
    unknown.pages = BW_PAGES_ON_SEVERAL;
    unknown.registered = 1;
    PRINTED(text, bw_print_place(fp, &unknown));
    EXPECT_STR(text, "   GPU 0, 0000:19:00.0: node not known; thread not "
                     "bound; pages on several nodes\n");

    double gbps[9] = {1650.25, 381, NAN, 380.04, NAN, 12.5, NAN, 12.5,
                      1649};
    PRINTED(text, bw_print_matrix(fp, gbps, 3));
    EXPECT_STR(text,
        "from\\to        0        1        2\n"
        "      0   1650.2    381.0      n/a\n"
        "      1    380.0        -     12.5\n"
        "      2      n/a     12.5   1649.0\n");

    int can[4] = {0, 1, 0, 0};
    PRINTED(text, bw_print_access(fp, can, 2));
    EXPECT_STR(text,
        "from\\to        0        1\n"
        "      0        -      yes\n"
        "      1       no        -\n");
}

int main(void)
{
    test_sysfs();
    test_cpulist();
    test_page_node();
    test_pattern();
    test_at_once();
    test_tables();
    return test_summary();
}
