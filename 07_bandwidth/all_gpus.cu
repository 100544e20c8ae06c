/* all_gpus.cu - `07_bandwidth --all-gpus`: pinned copies between the host
 * and each GPU, on each GPU alone, then on all of them at once.
 *
 * A server's GPUs share the host's memory and, behind PCIe switches, the
 * links to it: what one GPU gets alone need not be what each gets while
 * all of them copy. So each GPU gets a host thread of its own; the GPUs
 * take turns, then all copy together, every timed round starting at a
 * barrier. Each GPU hangs off one CPU socket, one NUMA node, and memory
 * on another node is reached through the link between the sockets. Where
 * sysfs says which node a GPU is on, its thread runs on that node's CPUs
 * and touches its buffers first (Linux puts a page on the node of the CPU
 * that first touches it), then pins them where they lie with
 * cudaHostRegister, as part 2 does. The kernel is then asked where the
 * pages landed (get_mempolicy), and the run says.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "device.h"
#include "gpus.h"
#include "options.h"
#include "timing.h"
#include "units.h"

enum { ALONE_H2D, ALONE_D2H, AT_ONCE_H2D, AT_ONCE_D2H, CASES };
static const char *const CASE_NAMES[CASES] = {
    "H2D, each GPU alone", "D2H, each GPU alone", "H2D, all GPUs at once",
    "D2H, all GPUs at once"};

typedef struct {
    pthread_barrier_t barrier;   /* waited at by every GPU's thread */
    int n_gpus, warmup, repeat;
    size_t bytes;                /* of each copy */
    double *ms;   /* ms[(c * n_gpus + g) * repeat + i]: case c, GPU g,
                     timed run i (so each case as bw_at_once_gbps reads) */
} shared_run;

typedef struct {
    shared_run *run;
    int gpu;
    bw_gpu_place place;  /* where its thread ran and its buffers lie */
    uint64_t *h_src, *h_dst;   /* pinned, one allocation: the pattern;
                                  what comes back */
    void *d_buf;
    size_t bad[CASES];   /* first wrong word of each case; words: none */
} gpu_worker;

/* The node of the first and last page of both buffers, if it is one. */
static int buffers_node(const gpu_worker *w)
{
    size_t last = w->run->bytes / sizeof(uint64_t) - 1;
    const void *ends[4] = {w->h_src, w->h_src + last, w->h_dst,
                           w->h_dst + last};
    int node = bw_page_node(ends[0]);
    for (int k = 1; k < 4 && node >= 0; k++) {
        int other = bw_page_node(ends[k]);
        if (other != node)
            node = other < 0 ? BW_PAGES_NOT_READABLE : BW_PAGES_ON_SEVERAL;
    }
    return node;
}

/* Whole pages for a GPU's two buffers: cudaHostRegister pins whole pages,
 * and a range that overlaps one registered already is refused
 * (cudaErrorHostMemoryAlreadyRegistered), so we share no page. */
static uint64_t *alloc_pages(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = NULL;
    cm_require_host_bytes(bytes, "a GPU's two buffers");
    if (posix_memalign(&p, page, (bytes + page - 1) / page * page) != 0) {
        fprintf(stderr, "%s: out of host memory for a GPU's buffers\n",
                cm_program_name());
        exit(CM_EXIT_FAIL);
    }
    return (uint64_t *)p;
}

/* In the GPU's own thread: bind it to the GPU's node, then allocate its
 * buffers, fill them (the first touch of every page) and pin them. */
static void set_up(gpu_worker *w)
{
    size_t bytes = w->run->bytes;
    bw_gpu_place *p = &w->place;
    char bus_id[32];
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, w->gpu));
    p->gpu = w->gpu;
    p->node = -1;
    if (bw_pci_sysfs_name(bus_id, p->pci, sizeof p->pci) == 0)
        p->node = bw_pci_numa_node("/sys", p->pci);
    else
        snprintf(p->pci, sizeof p->pci, "%s", bus_id);
    p->bound_cpus = bw_bind_thread_to_node("/sys", p->node);
    CUDA_CHECK(cudaSetDevice(w->gpu));
    CUDA_CHECK(cudaDeviceGetAttribute(
        &p->registered, cudaDevAttrHostRegisterSupported, w->gpu));
    if (p->registered)
        w->h_src = alloc_pages(2 * bytes);
    else   /* the driver allocates these pages, where it chooses */
        CUDA_CHECK(cudaMallocHost((void **)&w->h_src, 2 * bytes));
    w->h_dst = w->h_src + bytes / sizeof(uint64_t);
    bw_fill_pattern(w->h_src, bytes / sizeof(uint64_t), w->gpu);
    bw_poison_host(w->h_dst, bytes);
    if (p->registered)
        CUDA_CHECK(cudaHostRegister(w->h_src, 2 * bytes,
                                    cudaHostRegisterDefault));
    p->pages = buffers_node(w);
    cm_require_device_bytes(bytes, "a GPU's buffer");
    CUDA_CHECK(cudaMalloc(&w->d_buf, bytes));
}

static void tear_down(gpu_worker *w)
{
    CUDA_CHECK(cudaFree(w->d_buf));
    if (w->place.registered) {
        CUDA_CHECK(cudaHostUnregister(w->h_src));
        free(w->h_src);
    } else {
        CUDA_CHECK(cudaFreeHost(w->h_src));
    }
}

static void wait_for_all(shared_run *run)
{
    int rc = pthread_barrier_wait(&run->barrier);
    if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD) {
        fprintf(stderr, "%s: pthread_barrier_wait failed\n",
                cm_program_name());
        exit(CM_EXIT_FAIL);
    }
}

/* One case on this thread's GPU: poison the destination, warm-up and
 * timed runs (at once: each run starts at the barrier, with every other
 * GPU's), then one check of what arrived (on the host, for an H2D, after
 * copying it back into the poisoned h_dst). */
static void time_case(gpu_worker *w, int c, cudaStream_t stream,
                      cm_event_timer *timer)
{
    shared_run *run = w->run;
    int h2d = c == ALONE_H2D || c == AT_ONCE_H2D;
    bw_copy copy = {.dst = h2d ? w->d_buf : (void *)w->h_dst,
                    .src = h2d ? (const void *)w->h_src : w->d_buf,
                    .bytes = run->bytes,
                    .kind = h2d ? cudaMemcpyHostToDevice
                                : cudaMemcpyDeviceToHost,
                    .stream = stream, .async = 1};
    if (h2d)
        bw_poison_device(w->d_buf, run->bytes);
    else
        bw_poison_host(w->h_dst, run->bytes);
    for (int i = 0; i < run->warmup + run->repeat; i++) {
        if (c >= AT_ONCE_H2D)
            wait_for_all(run);
        cm_timer_start(timer);
        bw_copy_region(&copy);
        float ms = cm_timer_stop(timer);   /* waits for the copy */
        if (i >= run->warmup)
            run->ms[(c * run->n_gpus + w->gpu) * run->repeat + i -
                    run->warmup] = ms;
    }
    if (h2d) {
        bw_poison_host(w->h_dst, run->bytes);
        CUDA_CHECK(cudaMemcpy(w->h_dst, w->d_buf, run->bytes,
                              cudaMemcpyDeviceToHost));
    }
    w->bad[c] = bw_pattern_mismatch(w->h_dst, run->bytes / sizeof(uint64_t),
                                    w->gpu);
}

static void *worker_main(void *arg)
{
    gpu_worker *w = (gpu_worker *)arg;
    shared_run *run = w->run;
    set_up(w);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cm_event_timer timer = cm_timer_create(stream);
    wait_for_all(run);
    /* Alone: the GPUs take turns, the others waiting at the barrier. Each
     * GPU's H2D comes before its D2H, which copies those bytes back. */
    for (int c = ALONE_H2D; c <= ALONE_D2H; c++)
        for (int g = 0; g < run->n_gpus; g++) {
            if (g == w->gpu)
                time_case(w, c, stream, &timer);
            wait_for_all(run);
        }
    if (run->n_gpus > 1)
        for (int c = AT_ONCE_H2D; c <= AT_ONCE_D2H; c++)
            time_case(w, c, stream, &timer);
    cm_timer_destroy(&timer);
    CUDA_CHECK(cudaStreamDestroy(stream));
    tear_down(w);
    return NULL;
}

/* The table of one direction (d: 0 H2D, 1 D2H) and its checks. */
static void report(const gpu_worker *w, int n, int d, cm_verdict *v)
{
    const shared_run *run = w[0].run;
    size_t words = run->bytes / sizeof(uint64_t);
    double *alone = run->ms + (ALONE_H2D + d) * n * run->repeat;
    double *at_once = run->ms + (AT_ONCE_H2D + d) * n * run->repeat;
    /* First the rounds of all GPUs side by side: the medians below sort
     * each GPU's times in place. */
    double at_once_gbps = n > 1 ? bw_at_once_gbps(at_once, n, run->repeat,
                                                  run->bytes)
                                : NAN;
    bw_gpu_share *shares = (bw_gpu_share *)cm_host_alloc(
        (size_t)n * sizeof *shares, "the table");
    for (int g = 0; g < n; g++) {
        double bytes = (double)run->bytes;
        cm_stats a = cm_stats_of(alone + g * run->repeat, run->repeat);
        cm_stats b = cm_stats_of(at_once + g * run->repeat, run->repeat);
        bw_gpu_share s = {.gpu = g, .node = w[g].place.node,
                          .alone_gbps = cm_gbps(bytes, a.median_ms),
                          .at_once_gbps = n > 1 ? cm_gbps(bytes, b.median_ms)
                                                : NAN};
        shares[g] = s;
    }
    printf("\n%s: median of %d after %d warm-up(s); GB/s = 1e9 "
           "bytes/s\n", d ? "D2H, device to host" : "H2D, host to device",
           run->repeat, run->warmup);
    bw_print_shares(stdout, shares, n, at_once_gbps);
    for (int c = ALONE_H2D + d; c < (n > 1 ? CASES : AT_ONCE_H2D); c += 2) {
        int good = 0;
        char detail[160] = "";
        for (int g = 0; g < n; g++)
            if (w[g].bad[c] == words)
                good++;
            else if (!detail[0])
                snprintf(detail, sizeof detail, "GPU %d: word %zu of %zu "
                         "differs; ", g, w[g].bad[c], words);
        size_t used = strlen(detail);
        snprintf(detail + used, sizeof detail - used, "%d of %d GPUs' "
                 "copies identical", good, n);
        cm_check_true(v, CASE_NAMES[c], good == n, detail);
    }
    free(shares);
}

int bw_select_every_gpu(void)
{
    cm_select_device(0, NULL);   /* exits 77 without a usable GPU */
    int n = 0;
    CUDA_CHECK(cudaGetDeviceCount(&n));
    for (int g = 1; g < n; g++)
        cm_select_device(g, NULL);
    return n;
}

int bw_all_gpus(size_t bytes, int warmup, int repeat)
{
    int n = bw_select_every_gpu();
    char text[64], gpus[64] = "on the one GPU";
    if (n > 1)
        snprintf(gpus, sizeof gpus, "on each of the %d GPUs alone, then "
                 "all at once", n);
    printf("\n--all-gpus: pinned copies of %s\n(H2D: host to GPU, D2H: "
           "back), %s.\nOne host thread per GPU, on the CPUs of the GPU's "
           "NUMA node where sysfs says\nwhich: it allocates its buffers, "
           "touches them first (a page lands on the node\nof the CPU that "
           "first touches it), then pins them (cudaHostRegister)\n",
           cm_fmt_bytes(bytes, text, sizeof text), gpus);
    if (n == 1)
        printf("only one GPU: nothing to run at once\n");
    cm_require_host_bytes(cm_mul_size(2 * (size_t)n, bytes, "--all-gpus"),
                          "two pinned buffers per GPU");
    size_t samples = (size_t)CASES * n * repeat;
    shared_run run = {.n_gpus = n, .warmup = warmup, .repeat = repeat,
                      .bytes = bytes,
                      .ms = (double *)cm_host_alloc(
                          samples * sizeof(double), "the timings")};
    memset(run.ms, 0, samples * sizeof(double));
    if (pthread_barrier_init(&run.barrier, NULL, (unsigned)n) != 0) {
        fprintf(stderr, "%s: pthread_barrier_init failed\n",
                cm_program_name());
        return CM_EXIT_FAIL;
    }
    gpu_worker *workers = (gpu_worker *)cm_host_alloc(
        (size_t)n * sizeof *workers, "the GPUs' threads");
    pthread_t *threads = (pthread_t *)cm_host_alloc(
        (size_t)n * sizeof *threads, "the GPUs' threads");
    for (int g = 0; g < n; g++) {
        gpu_worker w = {.run = &run, .gpu = g};
        workers[g] = w;
        if (pthread_create(&threads[g], NULL, worker_main, &workers[g])) {
            fprintf(stderr, "%s: cannot start a thread for GPU %d\n",
                    cm_program_name(), g);
            exit(CM_EXIT_FAIL);
        }
    }
    for (int g = 0; g < n; g++)
        pthread_join(threads[g], NULL);
    pthread_barrier_destroy(&run.barrier);

    printf("where each GPU's thread ran and its buffers lie:\n");
    for (int g = 0; g < n; g++)
        bw_print_place(stdout, &workers[g].place);
    cm_verdict verdict = {0};
    report(workers, n, 0, &verdict);
    report(workers, n, 1, &verdict);
    free(threads);
    free(run.ms);
    free(workers);
    return cm_verdict_report(&verdict);
}
