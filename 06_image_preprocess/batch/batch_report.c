/* batch_report.c - the batch tool's report: routes, rates, the limit. */
#include "batch_report.h"
#include "files.h"
#include "units.h"

#include <stdio.h>

/* The readers busy this share of their time: they are the limit. */
static const double READERS_BOUND_SHARE = 0.8;

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
 * time, else the largest part of the main thread's time. */
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
    if (readers_share >= READERS_BOUND_SHARE) {
        printf("limited by: the reader threads' CPU time, %.0f%% busy "
               "(reading, screening, CPU decodes, checks)\n",
               100 * readers_share);
        return;
    }
    int most = 0;
    for (int k = 1; k < 5; k++)
        if (ms[k] > ms[most])
            most = k;
    printf("limited by: %s, %.0f%% of the wall time on the main thread\n",
           what[most], 100.0 * ms[most] / wall_ms);
}

void report_pass(const batch_run *r, const pass_counts *c,
                 const cm_stats *s, int passes, size_t file_bytes,
                 double wall_ms)
{
    int writing = r->out != NULL, back = !r->b->keep_on_gpu;
    double read = 0, check = 0;
    for (int th = 0; th < r->threads; th++) {
        read += r->per_thread[th].read_ms;
        check += r->per_thread[th].check_ms;
    }
    double share = (read + check) / (r->threads * wall_ms);
    double tensor_bytes = (double)c->n_out * r->pixels * sizeof(float);
    printf("processed: %zu images, %d pass%s: %.1f ms median (min %.1f, "
           "max %.1f)\n", c->n_out, passes, passes > 1 ? "es" : "",
           s->median_ms, s->min_ms, s->max_ms);
    printf("throughput: %.1f images/s, %.1f MB/s of files read, %.1f MB/s "
           "of float32 tensor (%s)\n", c->n_out / (s->median_ms * 1e-3),
           cm_gbps((double)file_bytes, s->median_ms) * 1e3,
           cm_gbps(tensor_bytes, s->median_ms) * 1e3,
           writing ? "written to the .npy"
           : back  ? "back in host memory"
                   : "kept on the GPU");
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
