/* report.cu - what the parts of 07_bandwidth share: summary rows, the
 * copy region they time, the poison-then-check of every copied buffer,
 * part 5, the summary (see bandwidth.cu), and the end of the --csv file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bandwidth.h"
#include "check.h"
#include "files.h"
#include "options.h"
#include "units.h"

static const int BAR_WIDTH = 32;

static double add_row(bw_report *r, const char *label, size_t bytes,
                      const char *what, double ms, int at_once)
{
    double gbps = cm_gbps((double)bytes, ms);
    if (r->n_rows < BW_MAX_ROWS) {
        bw_row *row = &r->rows[r->n_rows++];
        snprintf(row->label, sizeof row->label, "%s", label);
        snprintf(row->counted, sizeof row->counted, "%zu B %s", bytes, what);
        row->ms = ms;
        row->gbps = gbps;
        row->at_once = at_once;
    }
    return gbps;
}

double bw_add_row(bw_report *r, const char *label, size_t bytes,
                  const char *what, double ms)
{
    return add_row(r, label, bytes, what, ms, 0);
}

double bw_add_at_once_row(bw_report *r, const char *label, size_t bytes,
                          double ms)
{
    return add_row(r, label, bytes, "H2D+D2H", ms, 1);
}

void bw_add_unmeasured_row(bw_report *r, const char *label,
                           const char *why)
{
    if (r->n_rows < BW_MAX_ROWS) {
        bw_row *row = &r->rows[r->n_rows++];
        snprintf(row->label, sizeof row->label, "%s", label);
        snprintf(row->counted, sizeof row->counted, "%s", why);
        row->ms = NAN;
        row->gbps = NAN;
    }
}

void bw_copy_region(void *ctx)
{
    bw_copy *c = (bw_copy *)ctx;
    if (c->async)
        CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, c->kind,
                                   c->stream));
    else
        CUDA_CHECK(cudaMemcpy(c->dst, c->src, c->bytes, c->kind));
}

void bw_poison_device(void *d_buf, size_t bytes)
{
    CUDA_CHECK(cudaMemset(d_buf, 0xFF, bytes));
}

void bw_poison_host(void *h_buf, size_t bytes)
{
    memset(h_buf, 0xFF, bytes);
}

void bw_check_host(cm_verdict *v, const char *what, const void *h_got,
                   const void *h_expect, size_t bytes)
{
    if (bytes % sizeof(double) == 0)
        cm_check_equal(v, what, h_got, h_expect, CM_FLOAT64,
                       bytes / sizeof(double));
    else
        cm_check_equal(v, what, h_got, h_expect, CM_UINT8, bytes);
}

void bw_check_device(cm_verdict *v, const char *what, const void *d_buf,
                     const void *h_expect, size_t bytes, void *h_scratch)
{
    bw_poison_host(h_scratch, bytes);
    CUDA_CHECK(cudaMemcpy(h_scratch, d_buf, bytes, cudaMemcpyDeviceToHost));
    bw_check_host(v, what, h_scratch, h_expect, bytes);
}

/* Part 5. The ratios first, each beside the limit this machine sets it
 * (the link measured in part 2, the copy engines of part 4), then the
 * table and the chart, so the last thing on screen before the verdict is
 * the picture. */
void bw_summary(bw_report *r, const bw_buffers *b)
{
    printf("\n5. Summary: median of %d after %d warm-up(s); GB/s = 1e9 "
           "bytes/s of the bytes\n   counted\n", r->repeat, r->warmup);
    printf("   benchmarks (not checks), each beside the limit this machine "
           "sets it:\n");
    printf("     pinned vs the link's practical maximum: H2D %.1f%%, D2H "
           "%.1f%% (a large copy\n       should reach >= 97%%)\n",
           100.0 * b->pinned_h2d_gbps / b->link_h2d_gbps,
           100.0 * b->pinned_d2h_gbps / b->link_d2h_gbps);
    int engines = r->copy_engines;
    printf("     both directions at once vs the faster alone: %.2fx (%s: "
           "%d copy engine%s)\n", r->both_ways_ratio,
           engines >= 2 ? "2x at most" : "1x at most", engines,
           engines == 1 ? "" : "s");
    /* The packed copy can move its bytes no faster than the link: one by
     * one's time over that is the most packing can gain here. */
    double packed_floor_ms = (double)r->small_bytes /
                             (b->link_h2d_gbps * 1e6);
    printf("     small arrays packed into one copy vs one by one: %.1fx "
           "(%.1fx at most: the\n       packed bytes at the link's "
           "practical maximum)\n       (already packed in pinned memory; "
           "packing them on the CPU first: %.1fx)\n\n",
           r->batched_speedup, r->one_by_one_ms / packed_floor_ms,
           r->pack_speedup);
    char *summary = bw_format_summary(r->rows, r->n_rows, BAR_WIDTH);
    if (!summary) {
        fprintf(stderr, "07_bandwidth: out of host memory for the "
                "summary\n");
        exit(CM_EXIT_FAIL);
    }
    printf("%s\n", summary);
    free(summary);
}

void bw_finish_csv(cm_out_file *csv, const cm_verdict *v)
{
    /* What cm_csv_finish keeps: a run with checks, none of them failed. */
    int kept = v->checks > 0 && v->failures == 0;
    if (!csv->fp)
        return;
    cm_csv_finish(csv, v);
    if (kept)
        printf("wrote %s\n", csv->path);
}
