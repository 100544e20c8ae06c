/* outputs.h - the files a person opens after a single-image run.
 *
 *   save_outputs("flipped.png", "x.npy", h_out, h_gray, width, height,
 *                &verdict);
 *   save_csv("times.csv", rows, n_rows, &verdict);
 *
 * Either path of save_outputs may be NULL. Each file is written whole or
 * not at all, and only when every check passed.
 */
#ifndef OUTPUTS_H
#define OUTPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "timing.h"
#include "verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The flipped image back in 8 bits as a PNG (checked first: it must equal
 * the flipped input exactly) and the float32 tensor as .npy, shape
 * (height, width). Writes nothing if v already holds a failure. Prints
 * one line per file; exits 1 naming the file if a write fails. */
void save_outputs(const char *png_path, const char *npy_path,
                  const float *h_out, const uint8_t *h_gray, size_t width,
                  size_t height, cm_verdict *v);

/* One timed step of the report. */
typedef struct {
    const char *step;
    double bytes;     /* bytes the step moves, for its GB/s */
    cm_stats stats;
} timing_row;

/* Writes the rows as CSV (step,bytes,ms_median,ms_min,ms_max,gb_per_s),
 * kept only if v passed (cm_csv_finish: else removed, and stderr says
 * so); exits 1 naming the file if it cannot be written. Call it after the
 * last check. */
void save_csv(const char *path, const timing_row *rows, int n_rows,
              const cm_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* OUTPUTS_H */
