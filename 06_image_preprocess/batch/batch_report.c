/* batch_report.c - the batch tool's report: routes, rates, the limit,
 * the checks after the passes. */
#include "batch_report.h"
#include "batch_check.h"
#include "files.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>

/* The readers busy this share of their time: they are the limit. */
static const double READERS_BOUND_SHARE = 0.8;
/* The main thread inside nvjpegDecodeBatched this share of the time:
 * nvJPEG's host work may be the limit. */
static const double NVJPEG_HOST_SHARE = 0.5;
/* With the split: the readers busy this share of their time as well,
 * and the pair is the limit. */
static const double READERS_PAIR_SHARE = 0.6;
/* With the split, the main thread inside nvjpegDecodeBatched less than
 * this share, and the readers less than READERS_BOUND_SHARE busy:
 * neither side alone is the limit. */
static const double SPLIT_HOST_BOUND_SHARE = 0.8;

/* Files the split sent to the hybrid path (counted by their reason). */
static size_t split_moved(const pass_counts *c)
{
    for (size_t k = 0; k < c->hybrid_why.n; k++)
        if (c->hybrid_why.why[k] == SPLIT_WHY)
            return c->hybrid_why.count[k];
    return 0;
}

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

/* The main thread's parts of the pass (ms), in report_limit's *most
 * order; writing counts only when the tensor went to a .npy. */
static void main_parts(const pass_counts *c, int writing, double ms[5])
{
    ms[0] = c->wait_read_ms;
    ms[1] = c->submit_ms;
    ms[2] = c->wait_gpu_ms;
    ms[3] = writing ? c->write_ms : 0;
    ms[4] = c->wait_check_ms;
}

limit_kind report_limit(double readers_share, const pass_counts *c,
                        double wall_ms, int writing, int *most)
{
    double ms[5];
    main_parts(c, writing, ms);
    *most = 0;
    for (int k = 1; k < 5; k++)
        if (ms[k] > ms[*most])
            *most = k;
    int split = split_moved(c) > 0;
    double host = wall_ms > 0 ? c->nj_host_ms / wall_ms : 0;
    if (split && readers_share >= READERS_PAIR_SHARE &&
        host >= NVJPEG_HOST_SHARE)
        return LIMIT_SPLIT_BOTH;
    if (readers_share >= READERS_BOUND_SHARE)
        return LIMIT_READERS;
    if (split && host < SPLIT_HOST_BOUND_SHARE)
        return LIMIT_SPLIT_NEITHER;
    if (c->nj_batches && host >= NVJPEG_HOST_SHARE &&
        c->nj_tail_ms < c->nj_host_ms)
        return LIMIT_NVJPEG_HOST;
    if (c->nj_batches && *most == 2 && c->nj_tail_ms >= c->nj_host_ms)
        return LIMIT_DECODER;
    return LIMIT_MAIN_PART;
}

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
    double ms[5];
    main_parts(c, writing, ms);
    int most = 0;
    double tail = c->nj_batches ? c->nj_tail_ms / c->nj_batches : 0;
    switch (report_limit(readers_share, c, wall_ms, writing, &most)) {
    case LIMIT_SPLIT_BOTH:
        printf("limited by: both sides of the split, the main thread inside "
               "nvjpegDecodeBatched %.0f%% of the wall time and the reader "
               "threads %.0f%% busy (reading, screening, the hybrid path's "
               "decodes, checks)\n", 100.0 * c->nj_host_ms / wall_ms,
               100 * readers_share);
        break;
    case LIMIT_READERS:
        printf("limited by: the reader threads' CPU time, %.0f%% busy "
               "(reading, screening, CPU decodes, checks)\n",
               100 * readers_share);
        break;
    case LIMIT_SPLIT_NEITHER:
        printf("limited by: neither side of the split alone: the main "
               "thread inside nvjpegDecodeBatched %.0f%% of the wall time "
               "and waiting for the reader threads %.0f%%, the reader "
               "threads %.0f%% busy (reading, screening, the hybrid path's "
               "decodes, checks)\n", 100.0 * c->nj_host_ms / wall_ms,
               100.0 * c->wait_read_ms / wall_ms, 100 * readers_share);
        break;
    case LIMIT_NVJPEG_HOST:
        printf("limited by: nvJPEG's host work, the main thread inside "
               "nvjpegDecodeBatched %.0f%% of the wall time, each batch "
               "decoded %.2f ms after its call returned (events)\n",
               100.0 * c->nj_host_ms / wall_ms, tail);
        break;
    case LIMIT_DECODER:
        printf("limited by: the JPEG decoder on the GPU, each batch "
               "decoded %.2f ms after its nvjpegDecodeBatched returned "
               "(events), the main thread waiting for the GPU %.0f%% of "
               "the wall time\n", tail, 100.0 * ms[2] / wall_ms);
        break;
    case LIMIT_MAIN_PART:
        printf("limited by: %s, %.0f%% of the wall time on the main "
               "thread\n", what[most], 100.0 * ms[most] / wall_ms);
        break;
    }
}

/* The split's share in the last pass, and (adapted) the times a file
 * it came from. */
static void print_split(const batch_run *r, const pass_counts *c)
{
    const split_ctl *s = &r->split;
    size_t moved = split_moved(c), batched = c->gpu - c->hybrid;
    printf("split (last pass): %zu of the %zu JPEGs the hardware decoder "
           "takes went to nvJPEG's hybrid path (%.1f%%", moved,
           moved + batched,
           moved + batched ? 100.0 * moved / (moved + batched) : 0.0);
    if (s->fixed >= 0)
        printf(", --hybrid-share %.3g)\n", s->fixed);
    else
        printf("; adapted, %.1f%% at the end, from a file's %.3f ms of the "
               "main thread inside nvjpegDecodeBatched and a reader's %.3f "
               "ms to read and screen it, %.3f ms to decode it too)\n",
               100 * s->share, s->e, s->r, s->h);
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
    if (r->split_on)
        print_split(r, c);
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

/* The sampled rows against stb_image (batch_check.h), first of the
 * checks: the corrupt files it finds are named here on "skipped:" lines,
 * and the checks after it count only the images kept. */
sampled_result report_check_first(batch_run *r, size_t n_out)
{
    sampled_result s = check_sampled(r, n_out);
    for (size_t i = 0; s.corrupt && i < n_out; i++)
        if (s.corrupt[i])
            fprintf(stderr, "skipped: %s: corrupt: %s; left out\n",
                    r->src->list->paths[r->out_index[i]],
                    s.corrupt_why[i]);
    return s;
}

/* The checks after the passes: what came back, every value; the sampled
 * rows (s, from check_first) against stb_image; the same bits every
 * pass; every image there. */
void report_checks(batch_run *r, int passes, size_t n_out,
                   int repeatable, const sampled_result *checked,
                   cm_verdict *v)
{
    const sampled_result s = *checked;
    char text[1536];
    if (r->o->copy_to_host) {
        size_t checked = 0, bad = 0, first = 0;
        for (int th = r->threads - 1; th >= 0; th--) {
            const thread_counts *t = &r->per_thread[th];
            checked += t->back_images;
            bad += t->back_bad;
            first = t->back_bad ? t->back_first_bad : first;
        }
        snprintf(text, sizeof text, "%zu images in %d pass%s, %zu differ%s%s",
                 checked, passes, passes > 1 ? "es" : "", bad,
                 bad ? ", the first is " : "",
                 bad ? r->src->list->paths[first] : "");
        cm_check_true(v, "every image back on the host vs its planes "
                      "(every value)", bad == 0 && checked > 0, text);
    }
    const check_stats *g = &s.gpu;
    double n = g->values ? (double)g->values : 1;
    char bound[64] = "every image";
    if (r->check_bound)
        snprintf(bound, sizeof bound, "at most %zu, spread over the pass",
                 r->check_bound);
    printf("check: %zu of %zu images (--check-images: %s), rows 8k + 3k "
           "mod 8 (one in every 8), %zu values, vs stb_image decoding each "
           "file again (%.0f ms)\n", s.checked, n_out, bound,
           s.gpu.values + s.cpu.values, s.ms);
    if (g->values)
        printf("check: GPU-decoded: %.3f%% of values one level apart, %zu "
               "further, mean difference %+.4f level, mean |difference| "
               "%.3f; most one-level differences: %s (%.2f%%)\n",
               100.0 * g->one_level / n, g->worse, (double)g->sum / n,
               (double)g->sum_abs / n, s.worst, 100 * s.worst_share);
    snprintf(text, sizeof text, "%zu of %zu images broke a rule (%zu "
             "unreadable)%s" CM_PATH_FMT "%s%s", s.failed,
             s.checked - s.n_corrupt, s.unreadable,
             s.failed ? ", the first " : "",
             CM_PATH_ARGS(s.failed ? s.first_failed : ""),
             s.failed ? ": " : "", s.failed ? s.first_why : "");
    cm_check_true(v, "picked images vs stb_image (sampled rows, the rules "
                  "of batch_check.h)",
                  s.failed == 0 && n_out > s.n_corrupt, text);
    snprintf(text, sizeof text, "%s (%zu values; most one-level "
             "differences: %s)", s.run_why ? s.run_why : "within the rules",
             g->values, s.worst);
    cm_check_true(v, "GPU-decoded images together vs stb_image",
                  s.run_why == NULL, text);
    snprintf(text, sizeof text, "%d pass%s", passes, passes > 1 ? "es" : "");
    cm_check_true(v, "sampled rows bit-exact in every pass", repeatable,
                  text);
    size_t kept = n_out - s.n_corrupt;
    size_t usable = r->n_images - r->counts.skipped - s.n_corrupt;
    snprintf(text, sizeof text, "%zu of %zu", kept, usable);
    cm_check_true(v, "every usable image in the tensor",
                  kept == usable && kept > 0, text);
}
