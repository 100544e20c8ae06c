/* sweep.cu - `07_bandwidth --sweep`: copy rate against copy size.
 *
 * A copy of s bytes takes about t0 + s / B: a fixed cost t0 (a few
 * microseconds) plus the bytes at the link's bandwidth B. Small copies are
 * all t0, large ones all B; the sweep shows where one gives way to the
 * other, for pageable and pinned memory in both directions. The four
 * copies of a size take turns in every round (bw_sweep_order), so a drift
 * in the host's speed from second to second hits all four alike, and the
 * table shows how far the pageable runs stray (their spread). `--csv FILE`
 * keeps the numbers and `make plot-07` draws them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "chart.h"
#include "files.h"
#include "options.h"
#include "plan.h"
#include "random.h"
#include "timing.h"
#include "units.h"

static const uint64_t SWEEP_SEED = 11;

/* Fills bytes of memory with random bits (any length, not just whole
 * float64s). */
static void fill_random_bytes(unsigned char *h_buf, size_t bytes)
{
    cm_rng rng = cm_rng_seed(SWEEP_SEED);
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t bits = cm_rng_next(&rng);
        memcpy(h_buf + i, &bits, bytes - i < 8 ? bytes - i : 8);
    }
}

/* Compares `bytes` at got with expect; returns the first byte that
 * differs, or bytes when all are equal. */
static size_t first_bad_byte(const void *got, const void *expect,
                             size_t bytes)
{
    return cm_first_mismatch(got, expect, CM_UINT8, bytes);
}

/* The same for device memory, copied back into h_scratch (poisoned
 * first, so a copy back that never happened cannot pass). */
static size_t first_bad_device_byte(const void *d_got, const void *expect,
                                    size_t bytes, unsigned char *h_scratch)
{
    bw_poison_host(h_scratch, bytes);
    CUDA_CHECK(cudaMemcpy(h_scratch, d_got, bytes, cudaMemcpyDeviceToHost));
    return first_bad_byte(h_scratch, expect, bytes);
}

int bw_sweep(size_t min, size_t max, int warmup, int repeat,
             cm_out_file *csv)
{
    size_t n = bw_sweep_sizes(min, max, NULL, 0);
    size_t *sizes = (size_t *)cm_host_alloc(n * sizeof(size_t), "sizes");
    bw_sweep_sizes(min, max, sizes, n);
    bw_sweep_point *points = (bw_sweep_point *)cm_host_alloc(
        n * sizeof(bw_sweep_point), "the sweep");
    int runs = repeat > 0 ? repeat : 1;
    /* samples[c * runs + i]: case c's time in timed round i. */
    double *samples = (double *)cm_host_alloc(
        BW_SWEEP_CASES * (size_t)runs * sizeof(double), "the timings");
    char text[64], max_text[32];
    printf("\nsweep: %zu sizes from %s to %s, each copy one direction and "
           "timed alone\n(events). Per size, %d warm-up round(s), then %d "
           "timed rounds, each making the\nfour copies in turn. GB/s = 1e9 "
           "bytes/s of the bytes copied, median of %d;\nspread = slowest / "
           "fastest of the %d runs of a pageable copy.\n", n,
           cm_fmt_bytes_short(min, text, sizeof text),
           cm_fmt_bytes_short(max, max_text, sizeof max_text), warmup,
           runs, runs, runs);

    /* One buffer of each kind at the largest size; each size copies a
     * prefix. Pageable and pinned copies have a device buffer each, so
     * each D2H copies back what its own H2D put there, and each H2D is
     * checked on its own. Pageable memory is touched (filled) before any
     * timing. */
    unsigned char *h_page_src, *h_page_dst, *h_pin_src, *h_pin_dst;
    unsigned char *d_page, *d_pin;
    h_page_src = (unsigned char *)cm_host_alloc(max, "pageable source");
    h_page_dst = (unsigned char *)cm_host_alloc(max, "pageable target");
    CUDA_CHECK(cudaMallocHost((void **)&h_pin_src, max));
    CUDA_CHECK(cudaMallocHost((void **)&h_pin_dst, max));
    CUDA_CHECK(cudaMalloc((void **)&d_page, max));
    CUDA_CHECK(cudaMalloc((void **)&d_pin, max));
    fill_random_bytes(h_page_src, max);
    memcpy(h_pin_src, h_page_src, max);
    bw_poison_host(h_page_dst, max);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    /* Pageable copies: cudaMemcpy on the legacy default stream; pinned:
     * cudaMemcpyAsync on a stream of their own. Each copy between its
     * stream's two events, waited for before the next copy starts. */
    cm_event_timer page_timer = cm_timer_create(0);
    cm_event_timer pin_timer = cm_timer_create(stream);

    /* Column order of chart.h: pageable H2D, pageable D2H, pinned H2D,
     * pinned D2H. */
    void *dsts[BW_SWEEP_CASES] = {d_page, h_page_dst, d_pin, h_pin_dst};
    void *srcs[BW_SWEEP_CASES] = {h_page_src, d_page, h_pin_src, d_pin};
    size_t copies = 0, bad = 0;
    char first_bad[160] = "";
    for (size_t i = 0; i < n; i++) {
        size_t bytes = sizes[i];
        bw_copy jobs[BW_SWEEP_CASES];
        for (int c = 0; c < BW_SWEEP_CASES; c++) {
            int h2d = c == BW_PAGEABLE_H2D || c == BW_PINNED_H2D;
            int pinned = c >= BW_PINNED_H2D;
            bw_copy job = {.dst = dsts[c], .src = srcs[c], .bytes = bytes,
                           .kind = h2d ? cudaMemcpyHostToDevice
                                       : cudaMemcpyDeviceToHost,
                           .stream = pinned ? stream : 0, .async = pinned};
            jobs[c] = job;
        }
        /* One poison before the first round and one check after the last
         * serve all runs of a case, as in part 1. */
        bw_poison_device(d_page, bytes);
        bw_poison_device(d_pin, bytes);
        bw_poison_host(h_page_dst, bytes);
        bw_poison_host(h_pin_dst, bytes);
        for (int round = 0; round < warmup + runs; round++) {
            int order[BW_SWEEP_CASES];
            bw_sweep_order(round, order);
            for (int k = 0; k < BW_SWEEP_CASES; k++) {
                int c = order[k];
                cm_event_timer *timer =
                    jobs[c].async ? &pin_timer : &page_timer;
                cm_timer_start(timer);
                bw_copy_region(&jobs[c]);
                float ms = cm_timer_stop(timer);
                if (round >= warmup)
                    samples[c * runs + (round - warmup)] = ms;
            }
        }
        points[i].bytes = bytes;
        for (int c = 0; c < BW_SWEEP_CASES; c++) {
            cm_stats s = cm_stats_of(samples + c * runs, runs);
            points[i].ms[c] = s.median_ms;
            points[i].min_ms[c] = s.min_ms;
            points[i].max_ms[c] = s.max_ms;
        }

        /* Check quietly, one line at the end. The host targets first;
         * then h_pin_dst, checked, serves as scratch for the device ones. */
        size_t at[BW_SWEEP_CASES];
        at[BW_PAGEABLE_D2H] = first_bad_byte(h_page_dst, h_page_src, bytes);
        at[BW_PINNED_D2H] = first_bad_byte(h_pin_dst, h_page_src, bytes);
        at[BW_PAGEABLE_H2D] = first_bad_device_byte(d_page, h_page_src,
                                                    bytes, h_pin_dst);
        at[BW_PINNED_H2D] = first_bad_device_byte(d_pin, h_page_src, bytes,
                                                  h_pin_dst);
        for (int c = 0; c < BW_SWEEP_CASES; c++) {
            copies++;
            if (at[c] != bytes && bad++ == 0)
                snprintf(first_bad, sizeof first_bad,
                         "%s of %zu bytes differs at byte %zu",
                         bw_sweep_names[c], bytes, at[c]);
        }
    }
    cm_timer_destroy(&page_timer);
    cm_timer_destroy(&pin_timer);

    char *table = bw_format_sweep(points, n);
    if (!table) {
        fprintf(stderr, "07_bandwidth: out of host memory\n");
        exit(CM_EXIT_FAIL);
    }
    printf("%s", table);
    free(table);
    /* One copy between two events: its whole latency, with nothing of
     * another copy overlapping it (more than part 3's cost per extra copy
     * queued back to back). */
    printf("one copy alone: a %s copy takes %.1f us pinned H2D, %.1f us "
           "pageable H2D\nhalf of the best rate is reached at:",
           cm_fmt_bytes_short(sizes[0], text, sizeof text),
           points[0].ms[BW_PINNED_H2D] * 1e3,
           points[0].ms[BW_PAGEABLE_H2D] * 1e3);
    for (int c = 0; c < BW_SWEEP_CASES; c++)
        printf("%s %s %s", c ? "," : "", bw_sweep_names[c],
               cm_fmt_bytes_short(bw_half_peak_bytes(points, n, c), text,
                                  sizeof text));
    printf("\n   (below that size, the fixed cost per copy dominates)\n");

    cm_verdict verdict = {0};
    snprintf(text, sizeof text, "%zu of %zu identical", copies - bad,
             copies);
    cm_check_true(&verdict, "every sweep copy", bad == 0,
                  bad ? first_bad : text);
    if (csv->fp)
        bw_write_sweep_csv(csv->fp, points, n);
    bw_finish_csv(csv, &verdict);   /* kept only if every copy was right */

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_page));
    CUDA_CHECK(cudaFree(d_pin));
    CUDA_CHECK(cudaFreeHost(h_pin_src));
    CUDA_CHECK(cudaFreeHost(h_pin_dst));
    free(h_page_src);
    free(h_page_dst);
    free(samples);
    free(points);
    free(sizes);
    return cm_verdict_report(&verdict);
}
