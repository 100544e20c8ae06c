/* sweep.cu - `07_bandwidth --sweep`: copy rate against copy size.
 *
 * A copy of s bytes takes about t0 + s / B: a fixed cost t0 (a few
 * microseconds) plus the bytes at the link's bandwidth B. Small copies are
 * all t0, large ones all B; the sweep shows where one gives way to the
 * other, for pageable and pinned memory in both directions. `--csv FILE`
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

int bw_sweep(size_t min, size_t max, int warmup, int repeat,
             cm_out_file *csv)
{
    size_t n = bw_sweep_sizes(min, max, NULL, 0);
    size_t *sizes = (size_t *)cm_host_alloc(n * sizeof(size_t), "sizes");
    bw_sweep_sizes(min, max, sizes, n);
    bw_sweep_point *points = (bw_sweep_point *)cm_host_alloc(
        n * sizeof(bw_sweep_point), "the sweep");
    char text[64], max_text[32];
    printf("\nsweep: %zu sizes from %s to %s; each copy one direction, "
           "median of %d after %d\nwarm-up(s); GB/s = 1e9 bytes/s of the "
           "bytes copied\n", n, cm_fmt_bytes_short(min, text, sizeof text),
           cm_fmt_bytes_short(max, max_text, sizeof max_text), repeat,
           warmup);

    /* One buffer of each kind at the largest size; each size copies a
     * prefix. Pageable memory is touched (filled) before any timing. */
    unsigned char *h_page_src, *h_page_dst, *h_pin_src, *h_pin_dst, *d_buf;
    h_page_src = (unsigned char *)cm_host_alloc(max, "pageable source");
    h_page_dst = (unsigned char *)cm_host_alloc(max, "pageable target");
    CUDA_CHECK(cudaMallocHost((void **)&h_pin_src, max));
    CUDA_CHECK(cudaMallocHost((void **)&h_pin_dst, max));
    CUDA_CHECK(cudaMalloc((void **)&d_buf, max));
    fill_random_bytes(h_page_src, max);
    memcpy(h_pin_src, h_page_src, max);
    bw_poison_host(h_page_dst, max);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    /* Column order of chart.h: pageable H2D, pageable D2H, pinned H2D,
     * pinned D2H. Each D2H copies back what the H2D before it put there. */
    void *dsts[BW_SWEEP_CASES] = {d_buf, h_page_dst, d_buf, h_pin_dst};
    void *srcs[BW_SWEEP_CASES] = {h_page_src, d_buf, h_pin_src, d_buf};
    size_t copies = 0, bad = 0;
    char first_bad[160] = "";
    for (size_t i = 0; i < n; i++) {
        size_t bytes = sizes[i];
        points[i].bytes = bytes;
        for (int c = 0; c < BW_SWEEP_CASES; c++) {
            int h2d = c == BW_PAGEABLE_H2D || c == BW_PINNED_H2D;
            int pinned = c >= BW_PINNED_H2D;
            bw_copy job = {dsts[c], srcs[c], bytes,
                           h2d ? cudaMemcpyHostToDevice
                               : cudaMemcpyDeviceToHost,
                           pinned ? stream : 0, pinned};
            if (h2d)
                bw_poison_device(d_buf, bytes);
            else
                bw_poison_host(dsts[c], bytes);
            cm_stats s = cm_time_events(bw_copy_region, &job, job.stream,
                                        warmup, repeat);
            points[i].ms[c] = s.median_ms;
            /* Check quietly, one line at the end: h_pin_dst serves as
             * scratch for the H2D checks, before its own D2H case. */
            const unsigned char *got = (const unsigned char *)dsts[c];
            if (h2d) {
                bw_poison_host(h_pin_dst, bytes);
                CUDA_CHECK(cudaMemcpy(h_pin_dst, d_buf, bytes,
                                      cudaMemcpyDeviceToHost));
                got = h_pin_dst;
            }
            size_t at = cm_first_mismatch(got, h_page_src, CM_UINT8, bytes);
            copies++;
            if (at != bytes && bad++ == 0)
                snprintf(first_bad, sizeof first_bad,
                         "%s of %zu bytes differs at byte %zu",
                         bw_sweep_names[c], bytes, at);
        }
    }

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
    CUDA_CHECK(cudaFree(d_buf));
    CUDA_CHECK(cudaFreeHost(h_pin_src));
    CUDA_CHECK(cudaFreeHost(h_pin_dst));
    free(h_page_src);
    free(h_page_dst);
    free(points);
    free(sizes);
    return cm_verdict_report(&verdict);
}
