/* gpu_batch.h - the batched pipeline (gpu_batch.cu): JPEGs decoded by
 * nvJPEG on the GPU, the rest on CPU threads, the tensor made and kept on
 * the GPU batch by batch, as a training loader hands it on.
 *
 *   run_gpu_batch(&b, &opt, &src, bytes, files, skipped, file_bytes,
 *                 check_ms, &plan);      returns the exit status
 */
#ifndef GPU_BATCH_H
#define GPU_BATCH_H

#include <stddef.h>

#include "../cli.h"
#include "batch_inputs.h"
#include "jpeg_screen.h"

/* src holds the checked files (inputs_check), bytes their sizes
 * (inputs_survey); files, skipped, file_bytes and check_ms are what that
 * check found and took. Selects the GPU. */
int run_gpu_batch(const batch_options *b, const cm_options *opt,
                  batch_source *src, const size_t *bytes, size_t files,
                  size_t skipped, size_t file_bytes, double check_ms,
                  const decoder_plan *plan);

#endif /* GPU_BATCH_H */
