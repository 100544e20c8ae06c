/* batch_report.c - the batch tool's report: routes, rates, the limit. */
#include "batch_report.h"
#include "files.h"
#include "units.h"

#include <stdio.h>

/* The readers busy this share of their time: they are the limit. */
static const double READERS_BOUND_SHARE = 0.8;
/* The main thread inside nvjpegDecodeBatched this share of the time:
 * nvJPEG's host work may be the limit. */
static const double NVJPEG_HOST_SHARE = 0.5;

static void count_reason(reasons *c, const char *why)
{
    for (size_t k = 0; k < c->n; k++)
        if (c->why[k] == why) {
            c->count[k]++;
            return;
        }
    if (c->n < MAX_REASONS) {
        c->why[c->n] = why;
        c->count[c->n++] = 1;
    }
}

void count_route(pass_counts *c, route how, const char *why)
{
    if (how == ROUTE_CPU) {
        c->cpu++;
        count_reason(&c->cpu_why, why);
        return;
    }
    c->gpu++;
    if (how == ROUTE_GPU_HYBRID) {
        c->hybrid++;
        count_reason(&c->hybrid_why, why);
    }
}

void report_routes(const pass_counts *c)
{
    const reasons *hw = &c->hybrid_why, *cw = &c->cpu_why;
    printf("routed: %zu images decoded on the GPU", c->gpu);
    if (c->hybrid)
        printf(" (%zu of them by nvJPEG's hybrid path, Huffman decoding "
               "on the reader threads: ", c->hybrid);
    for (size_t k = 0; k < hw->n; k++)
        printf("%s%zu %s", k ? ", " : "", hw->count[k], hw->why[k]);
    printf("%s, %zu on the CPU", hw->n ? ")" : "", c->cpu);
    for (size_t k = 0; k < cw->n; k++)
        printf("%s%zu %s", k ? ", " : " (", cw->count[k], cw->why[k]);
    printf("%s, %zu skipped while decoding\n", cw->n ? ")" : "",
           c->skipped);
}

/* Names what limits the run: the readers if they were busy most of the
 * time; nvJPEG's host work if the main thread spent half the time in
 * nvjpegDecodeBatched and the decoder finished soon after each call
 * (events around the calls); the decoder itself if the batches finished
 * long after their calls and the main thread waited for the GPU most;
 * else the largest part of the main thread's time. */
static void print_limit(double readers_share, const pass_counts *c,
                        double wall_ms, int writing)
{
    const char *what[5] = {
        "waiting for the reader threads (reading, screening, CPU decodes)",
        "submitting batches (nvJPEG's host work, copies of CPU-decoded "
        "images)",
        "waiting for the GPU (the decoder, the kernel, the copies)",
        "writing the .npy (the disk, not the GPU)",
        "waiting for the checks of the tensors that came back"};
    double ms[5] = {c->wait_read_ms, c->submit_ms, c->wait_gpu_ms,
                    writing ? c->write_ms : 0, c->wait_check_ms};
    int most = 0;
    for (int k = 1; k < 5; k++)
        if (ms[k] > ms[most])
            most = k;
    double tail = c->nj_batches ? c->nj_tail_ms / c->nj_batches : 0;
    if (readers_share >= READERS_BOUND_SHARE) {
        printf("limited by: the reader threads' CPU time, %.0f%% busy "
               "(reading, screening, CPU decodes, checks)\n",
               100 * readers_share);
    } else if (c->nj_batches && c->nj_host_ms >= NVJPEG_HOST_SHARE * wall_ms
               && c->nj_tail_ms < c->nj_host_ms) {
        printf("limited by: nvJPEG's host work, the main thread inside "
               "nvjpegDecodeBatched %.0f%% of the wall time, each batch "
               "decoded %.2f ms after its call returned (events)\n",
               100.0 * c->nj_host_ms / wall_ms, tail);
    } else if (c->nj_batches && most == 2 &&
               c->nj_tail_ms >= c->nj_host_ms) {
        printf("limited by: the JPEG decoder on the GPU, each batch "
               "decoded %.2f ms after its nvjpegDecodeBatched returned "
               "(events), the main thread waiting for the GPU %.0f%% of "
               "the wall time\n", tail, 100.0 * ms[2] / wall_ms);
    } else {
        printf("limited by: %s, %.0f%% of the wall time on the main "
               "thread\n", what[most], 100.0 * ms[most] / wall_ms);
    }
}

void report_pass(const batch_run *r, const pass_counts *c,
                 const cm_stats *s, int passes, size_t file_bytes,
                 double wall_ms, int writing)
{
    int back = r->o->copy_to_host;
    double read = 0, check = 0;
    for (int th = 0; th < r->threads; th++) {
        read += r->per_thread[th].read_ms;
        check += r->per_thread[th].check_ms;
    }
    double share = (read + check) / (r->threads * wall_ms);
    double tensor_bytes = (double)c->n_out * r->image_bytes;
    printf("processed: %zu images, %d pass%s: %.2f ms median (min %.2f, "
           "max %.2f)\n", c->n_out, passes, passes > 1 ? "es" : "",
           s->median_ms, s->min_ms, s->max_ms);
    printf("throughput: %.0f images/s (min %.0f, max %.0f), %.1f MB/s of "
           "files read, %.1f MB/s of %s tensor (%s)\n",
           c->n_out / (s->median_ms * 1e-3), c->n_out / (s->max_ms * 1e-3),
           c->n_out / (s->min_ms * 1e-3),
           cm_gbps((double)file_bytes, s->median_ms) * 1e3,
           cm_gbps(tensor_bytes, s->median_ms) * 1e3,
           tf_dtype_name(r->spec->dtype),
           writing ? "written to the .npy"
           : back  ? "back in host memory"
           : r->d_tensor ? "kept whole on the GPU"
                         : "on the GPU, batch buffers reused");
    printf("reader threads (last pass): read and decoded for %.1f ms, "
           "checked for %.1f ms, %.0f%% of %d threads x wall time\n", read,
           check, 100 * share, r->threads);
    printf("main thread (last pass): waited %.1f ms for readers, "
           "submitted for %.1f ms, waited %.1f ms for the GPU",
           c->wait_read_ms, c->submit_ms, c->wait_gpu_ms);
    if (back)
        printf(", %.1f ms for checks", c->wait_check_ms);
    if (writing)
        printf("; wrote the .npy for %.1f ms", c->write_ms);
    printf("\n");
    if (c->nj_batches)
        printf("nvJPEG batched decode (last pass, events around each "
               "nvjpegDecodeBatched): %zu batches, the main thread inside "
               "the calls %.1f ms (%.0f%% of the wall time), on the GPU "
               "from each call to its batch decoded %.1f ms, %.2f ms a "
               "batch after the call returned\n", c->nj_batches,
               c->nj_host_ms, 100.0 * c->nj_host_ms / wall_ms,
               c->nj_span_ms, c->nj_tail_ms / c->nj_batches);
    print_limit(share, c, wall_ms, writing);
}

void report_csv(const char *path, const pass_counts *c, const cm_stats *s,
                size_t skipped, size_t file_bytes, const cm_verdict *v)
{
    cm_out_file f;
    FILE *csv = cm_csv_open(&f, path, "images,skipped,decoded_gpu,"
                            "decoded_cpu,ms_median,images_per_s,"
                            "file_mb_per_s");
    if (csv)
        fprintf(csv, "%zu,%zu,%zu,%zu,%.3f,%.3f,%.3f\n", c->n_out,
                skipped + c->skipped, c->gpu, c->cpu, s->median_ms,
                c->n_out / (s->median_ms * 1e-3),
                cm_gbps((double)file_bytes, s->median_ms) * 1e3);
    cm_csv_finish(&f, v);
}
