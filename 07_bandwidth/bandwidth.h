/* bandwidth.h - what the parts of chapter 07 share: the copy helpers, the
 * buffers of the tutorial's array and the summary the parts add rows to.
 *
 *   bw_copy c = {.dst = d_x, .src = h_x, .bytes = bytes,
 *                .kind = cudaMemcpyHostToDevice};      (cudaMemcpy, stream 0)
 *   cm_stats s = cm_time_events(bw_copy_region, &c, 0, warmup, repeat);
 *   bw_add_row(&report, "pageable H2D", bytes, "H2D", s.median_ms);
 */
#ifndef BW_BANDWIDTH_H
#define BW_BANDWIDTH_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "chart.h"
#include "files.h"
#include "verify.h"

enum { BW_MAX_ROWS = 24 };

/* The summary of a run and its verdict. */
typedef struct {
    int warmup, repeat;            /* --warmup, --repeat */
    bw_row rows[BW_MAX_ROWS];
    size_t n_rows;
    cm_verdict verdict;
    /* Benchmark ratios the parts measure (0 when not measured), and
     * what bounds them on this machine. */
    double batched_speedup;   /* packed copy vs one by one, pageable */
    double pack_speedup;      /* CPU packing + one copy vs the same */
    double one_by_one_ms;     /* the small arrays one by one, pageable */
    size_t small_bytes;       /* all the small arrays' bytes */
    double both_ways_ratio;   /* H2D+D2H at once vs the faster alone */
    int copy_engines;         /* the GPU's asyncEngineCount */
} bw_report;

/* Adds a summary row: `bytes` copied in one direction in `ms`; `what`
 * says which ("H2D", "D2H"). Returns its GB/s (1e9 bytes/s). */
double bw_add_row(bw_report *r, const char *label, size_t bytes,
                  const char *what, double ms);

/* The same for a case with both directions, or copies and compute, at
 * once: `bytes` counts in and out ("... B H2D+D2H"), and the summary shows
 * the row apart from the one-direction rates (bw_row.at_once). */
double bw_add_at_once_row(bw_report *r, const char *label, size_t bytes,
                          double ms);

/* Adds a summary row for a case that could not run here, saying why
 * ("needs CUDA 12.8") in place of its numbers. */
void bw_add_unmeasured_row(bw_report *r, const char *label,
                           const char *why);

/* One copy as a timed region: cudaMemcpy when async is 0 (the plain call,
 * on the legacy default stream), else cudaMemcpyAsync on stream. */
typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind kind;
    cudaStream_t stream;
    int async;
} bw_copy;
void bw_copy_region(void *ctx);

/* Fills device or host memory with 0xFF bytes (NaN as float64), so that a
 * copy that never happened cannot pass the check after it. */
void bw_poison_device(void *d_buf, size_t bytes);
void bw_poison_host(void *h_buf, size_t bytes);

/* Checks that `bytes` at d_buf (copied back into h_scratch) or at h_got
 * equal h_expect, as float64 when bytes allow, else byte by byte. */
void bw_check_device(cm_verdict *v, const char *what, const void *d_buf,
                     const void *h_expect, size_t bytes, void *h_scratch);
void bw_check_host(cm_verdict *v, const char *what, const void *h_got,
                   const void *h_expect, size_t bytes);

/* The tutorial's array and the buffers around it, owned by main. */
typedef struct {
    size_t bytes;            /* rows x cols x 8 */
    const double *h_x;       /* pageable source, the reference (part 2
                                pins it in place for a while) */
    double *h_scratch;       /* pageable, for copying results back */
    double *h_pinned;        /* pinned copy of h_x (cudaMallocHost) */
    double *h_pinned_back;   /* pinned destination (cudaHostAlloc) */
    double *d_x, *d_y;       /* two device arrays of `bytes` */
    /* Medians measured by parts 1 and 2, GB/s (1e9 bytes/s). */
    double pageable_h2d_gbps, pageable_d2h_gbps;
    double pinned_h2d_gbps, pinned_d2h_gbps;
    double link_h2d_gbps, link_d2h_gbps;   /* practical maximum */
} bw_buffers;

/* The sizes of part 2's pinned copies that find the link's practical
 * maximum, and those of --quick (pinned.cu). */
extern const size_t CEILING_BYTES[3];
extern const size_t QUICK_CEILING_BYTES[3];

/* Part 1: the tutorial's timing of x_np's copy (first call, host clock)
 * beside the right one, for pageable memory both ways; it selects
 * `device` and allocates b->d_x itself (pageable.cu). */
void part1_tutorial(bw_report *r, bw_buffers *b, int device,
                    size_t device_bytes, size_t side);

/* Part 2: pinned memory, allocated pinned or pinned in place, against
 * pageable, and the link's practical maximum; allocates b->h_pinned and
 * b->h_pinned_back (pinned.cu). */
void part2_pinned(bw_report *r, bw_buffers *b, int quick);

/* Part 5: benchmark ratios, the summary table and a bar chart. */
void bw_summary(bw_report *r, const bw_buffers *b);

/* --csv, opened (cm_out_open) before the GPU was touched and written
 * since: kept only if v passed, then "wrote FILE" on stdout; else removed
 * and stderr says so (cm_csv_finish). Does nothing when csv->fp is NULL. */
void bw_finish_csv(cm_out_file *csv, const cm_verdict *v);

/* Part 3: `arrays` small arrays of `array_bytes` each, one by one and
 * batched (small_copies.cu). */
void bw_small_copies(bw_report *r, size_t arrays, size_t array_bytes);

/* Part 4: both directions at once, and a chunked copy-compute pipeline
 * with `work` sqrt steps per element (overlap.cu). */
void bw_overlap(bw_report *r, bw_buffers *b, size_t chunks, size_t streams,
                int work);

/* --sweep: pageable and pinned, both directions, for each size of
 * bw_sweep_sizes(min, max); its table goes to csv if csv->fp is open
 * (bw_finish_csv). Returns the exit status (sweep.cu). */
int bw_sweep(size_t min, size_t max, int warmup, int repeat,
             cm_out_file *csv);

/* Makes every visible GPU current in turn (cm_select_device: a line each,
 * exit 77 without a usable one) and returns how many there are
 * (all_gpus.cu). */
int bw_select_every_gpu(void);

/* --all-gpus: pinned copies of `bytes`, H2D and D2H, on each GPU alone,
 * then on all at once, one host thread per GPU. Returns the exit status
 * (all_gpus.cu). */
int bw_all_gpus(size_t bytes, int warmup, int repeat);

/* --p2p: copies of `bytes` between every pair of GPUs, one way and both
 * ways at once, without peer access, then with it where a pair can have
 * it. Returns the exit status (p2p.cu). */
int bw_p2p(size_t bytes, int warmup, int repeat);

#endif /* BW_BANDWIDTH_H */
