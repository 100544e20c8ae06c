/* preprocess.h - the batch entry point of 06_image_preprocess, called by
 * preprocess.cu's main when the arguments name several images or a
 * folder (batch.cu).
 */
#ifndef PREPROCESS_H
#define PREPROCESS_H

#include "cli.h"

/* Collects and checks the batch's files (CPU only), then selects the GPU
 * and runs the pipeline. Returns the exit status. */
int run_batch(const batch_options *b, const cm_options *opt);

#endif /* PREPROCESS_H */
