/* batch_report.h - what the batch tool prints about a run
 * (batch_report.c): where the files went, the rates, where the time
 * went (nvJPEG's batched decode measured from both sides) and what
 * limited it, and the CSV row.
 *
 *   count_route(&counts, ROUTE_CPU, "progressive JPEG");  (pipeline.cu)
 *   report_routes(&counts);                       the routed: line
 *   report_pass(&run, &counts, &stats, passes, file_bytes, wall_ms, 0);
 *   report_csv(path, &counts, &stats, skipped, file_bytes, &verdict);
 */
#ifndef BATCH_REPORT_H
#define BATCH_REPORT_H

#include <stddef.h>

#include "timing.h"
#include "verify.h"

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

/* --csv FILE (NULL: none): one row, kept only if v passed. */
void report_csv(const char *path, const pass_counts *c, const cm_stats *s,
                size_t skipped, size_t file_bytes, const cm_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_REPORT_H */
