/* cli.h - the lab's command line: its options, and every check that can
 * be made before the GPU.
 *
 *   job_config cfg;
 *   cli_parse(argc, argv, &cfg);      exits 2 on a usage error
 *   ... cfg.image (NULL: the built-in image of cfg.width x cfg.height) ...
 *
 * Messages are one line, "06_image_preprocess: reason". Several images
 * or a folder are a batch: the batch tool's (batch/, imgbatch).
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    cm_options opt;         /* the shared options */
    const char *image;      /* one image file, or NULL for the built-in */
    size_t width, height;   /* the built-in image's size */
    size_t max_pixels;
    const char *out_png, *out_npy;
} job_config;

/* Parses and checks argv, and that every output file can be created.
 * Exits 0 after --help, 2 on a usage error, 1 if an output cannot be
 * written. Touches no GPU. */
void cli_parse(int argc, char **argv, job_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* CLI_H */
