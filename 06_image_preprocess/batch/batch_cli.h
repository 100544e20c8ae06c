/* batch_cli.h - imgbatch's command line (batch_cli.c): its options, the
 * loader's options (imgbatch.h) filled from them, and every check that
 * can be made before the GPU is touched.
 *
 *   batch_options b;
 *   batch_cli_parse(argc, argv, &b);   exits 0 after --help, 2 on a usage
 *                                      error, 1 if an output cannot be
 *                                      written; touches no GPU
 *   imgbatch_open(&loader, &b.lib);
 * After it, cm_fail (common/options.h) prints "imgbatch: ..." and exits 1.
 */
#ifndef BATCH_CLI_H
#define BATCH_CLI_H

#include <stddef.h>

#include "options.h"

#include "imgbatch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    cm_options opt;            /* the shared options */
    imgbatch_options lib;      /* the loader's, from the command line */
    const char *out_npy;       /* the tensor as .npy, or NULL */
    const char *out_labels;    /* its labels as an int64 .npy, or NULL */
    int keep_on_gpu;           /* the tensor stays on the GPU */
    int bare_decode;           /* time nvJPEG's batched decode alone */
    int print_engine;          /* only say whether the GPU has a JPEG
                                  engine (no images) */
    long long check_images;    /* the most images a pass checked against
                                  stb_image (0: every one) */
} batch_options;

void batch_cli_parse(int argc, char **argv, batch_options *b);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_CLI_H */
