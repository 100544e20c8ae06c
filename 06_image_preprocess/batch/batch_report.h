/* batch_report.h - what the batch tool prints about a run
 * (batch_report.c): where the files went, the rates, where the time
 * went (nvJPEG's batched decode measured from both sides) and what
 * limited it, and the CSV row.
 *
 *   count_route(&counts, ROUTE_CPU, "progressive JPEG");  (pipeline.cu)
 *   report_routes(&counts);                       the routed: line
 *   report_pass(&run, &counts, &stats, passes, file_bytes, wall_ms, 0);
 *   report_csv(path, &counts, &stats, skipped, file_bytes, &verdict);
 *   sampled_result s = report_check_first(&run, n_out);
 *   report_checks(&run, passes, n_out, repeatable, &s, &verdict);
 */
#ifndef BATCH_REPORT_H
#define BATCH_REPORT_H

#include <stddef.h>

#include "timing.h"
#include "verify.h"

#include "batch_check.h"
#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "routed: 2000 images decoded on the GPU (500 of them by nvJPEG's
 * hybrid path, ...: 500 progressive JPEG), 0 on the CPU, 0 skipped
 * while decoding" */
void report_routes(const pass_counts *c);

/* The processed:, throughput:, reader threads:, main thread:, nvJPEG
 * batched decode: and limited by: lines: s holds the passes' times, c
 * and the threads' times are the last pass's (wall_ms long), file_bytes
 * the files read in a pass; writing: the tensor went to a .npy. */
void report_pass(const batch_run *r, const pass_counts *c,
                 const cm_stats *s, int passes, size_t file_bytes,
                 double wall_ms, int writing);

/* What the limited by: line names, in this order: both sides of the
 * split (files shared out, the readers 60% busy or more and the main
 * thread half the wall time or more inside nvjpegDecodeBatched); the
 * readers (80% busy or more); neither side of the split alone (files
 * shared out, the main thread under 80% of the time inside those
 * calls); nvJPEG's host work (half the time or more inside them, the
 * decoder finishing each batch sooner after its call than the call
 * took); the decoder (the main thread waiting most for the GPU, the
 * decoder finishing later); else the largest part of the main thread's
 * time, *most (0 waiting for the readers, 1 submitting, 2 waiting for
 * the GPU, 3 writing, 4 waiting for the checks). */
typedef enum {
    LIMIT_SPLIT_BOTH,
    LIMIT_READERS,
    LIMIT_SPLIT_NEITHER,
    LIMIT_NVJPEG_HOST,
    LIMIT_DECODER,
    LIMIT_MAIN_PART
} limit_kind;
limit_kind report_limit(double readers_share, const pass_counts *c,
                        double wall_ms, int writing, int *most);

/* --csv FILE (NULL: none): one row, kept only if v passed. */
void report_csv(const char *path, const pass_counts *c, const cm_stats *s,
                size_t skipped, size_t file_bytes, const cm_verdict *v);

/* The picked images' sampled rows against stb_image (check_sampled),
 * first of the checks: the corrupt files it finds are named on
 * "skipped:" lines, and the checks after it count only those kept. */
sampled_result report_check_first(batch_run *r, size_t n_out);

/* The checks after the passes, as verdict lines in v: what came back,
 * every value (copy_to_host); the picks (s, from report_check_first)
 * against stb_image; the same bits every pass; every image there. */
void report_checks(batch_run *r, int passes, size_t n_out, int repeatable,
                   const sampled_result *s, cm_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_REPORT_H */
