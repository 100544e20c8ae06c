/* batch_cli.h - imgbatch's command line: its options, and every check
 * that can be made before the GPU is touched.
 *
 *   batch_options b;
 *   batch_cli_parse(argc, argv, &b);   exits 0 after --help, 2 on a usage
 *                                      error, 1 if an output cannot be
 *                                      written; touches no GPU
 * After it, cm_fail (common/options.h) prints "imgbatch: ..." and exits 1.
 */
#ifndef BATCH_CLI_H
#define BATCH_CLI_H

#include <stddef.h>

#include "options.h"

#include "jpeg_screen.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest --batch-size. */
enum { BATCH_MAX_SIZE = 4096 };

typedef struct {
    cm_options opt;            /* the shared options */
    const char *list_file;     /* --list FILE, or NULL: the paths given */
    char **paths;              /* the positional arguments */
    int n_paths;
    size_t resize_width, resize_height;  /* 0 x 0: sizes must match */
    size_t max_pixels;
    int skip_bad;
    int threads;               /* reader threads (0: one per core) */
    int streams;               /* CUDA streams, batches in flight */
    const char *out_npy;       /* the (N, H, W) float32 tensor, or NULL */
    decoder_request decoder;   /* --decoder auto|gpu|cpu */
    size_t batch_size;         /* images a batch, 0: chosen by size */
    int keep_on_gpu;           /* the tensor stays on the GPU */
    int bare_decode;           /* time nvJPEG's batched decode alone */
} batch_options;

void batch_cli_parse(int argc, char **argv, batch_options *b);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_CLI_H */
