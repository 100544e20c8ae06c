/* batch.h - the batch tool's entry point (batch.cu), called by
 * preprocess.cu's main when the arguments name several images, a folder
 * or --list FILE.
 */
#ifndef BATCH_H
#define BATCH_H

#include "../cli.h"

/* Collects and checks the batch's files (CPU only), then selects the GPU
 * and runs the pipeline. Returns the exit status. */
int run_batch(const batch_options *b, const cm_options *opt);

#endif /* BATCH_H */
