/* cli.h - the chapter's command line: options, the choice between one
 * image and a batch, and every check that can be made before the GPU.
 *
 *   job_config cfg;
 *   cli_parse(argc, argv, &cfg);      exits 2 on a usage error
 *   if (cfg.batch) ... else ... cfg.image (NULL: the built-in image) ...
 *
 * Messages are one line, "06_image_preprocess: reason".
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *list_file;  /* --list FILE, or NULL: the paths given */
    char **paths;           /* the positional arguments */
    int n_paths;
    size_t resize_width, resize_height;  /* 0 x 0: sizes must match */
    size_t max_pixels;
    int skip_bad;
    int threads, streams;   /* decode threads, CUDA streams in flight */
    const char *out_npy;    /* the (N, H, W) float32 tensor, or NULL */
    const char *decoder;    /* --decoder auto|gpu|cpu */
    size_t batch_size;      /* images a GPU batch, 0: chosen by size */
    int keep_on_gpu;        /* the tensor stays on the GPU, in batches */
    int bare_decode;        /* time nvJPEG's batched decode alone */
} batch_options;

typedef struct {
    cm_options opt;         /* the shared options */
    int batch;              /* 1: a folder, several images or --list */
    const char *image;      /* one image file, or NULL for the built-in */
    size_t width, height;   /* the built-in image's size */
    size_t max_pixels;
    const char *out_png, *out_npy;
    batch_options b;
} job_config;

/* Parses and checks argv, and that every output file can be created.
 * Exits 0 after --help, 2 on a usage error, 1 if an output cannot be
 * written. Touches no GPU. */
void cli_parse(int argc, char **argv, job_config *cfg);

/* Prints "06_image_preprocess: message" on stderr and exits 1. */
void cli_fail(const char *message);

#ifdef __cplusplus
}
#endif

#endif /* CLI_H */
