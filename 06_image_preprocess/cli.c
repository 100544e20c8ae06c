/* cli.c - the lab's options and their checks, all made before the GPU is
 * touched. */
#include "cli.h"
#include "files.h"
#include "image_io.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char PROGRAM[] = "06_image_preprocess";

void cli_parse(int argc, char **argv, job_config *cfg)
{
    const char *synthetic = NULL;
    memset(cfg, 0, sizeof *cfg);
    cfg->max_pixels = IO_DEFAULT_MAX_PIXELS;
    cm_opt own[] = {
        {.name = "synthetic", .type = CM_OPT_STRING, .value = &synthetic,
         .metavar = "WxH", .help = "size of the built-in image used when "
         "no IMAGE is given (10000x10000; --quick: 641x479)"},
        {.name = "out-png", .type = CM_OPT_STRING, .value = &cfg->out_png,
         .metavar = "FILE", .help = "write the flipped image as an 8-bit "
         "gray PNG"},
        {.name = "out-npy", .type = CM_OPT_STRING, .value = &cfg->out_npy,
         .metavar = "FILE", .help = "write the (H, W) float32 tensor as "
         ".npy"},
        {.name = "max-pixels", .type = CM_OPT_SIZE, .value = &cfg->max_pixels,
         .metavar = "N", .help = "refuse an image whose header claims more "
         "pixels than N", .min = 1},
    };
    cm_cli cli = {.program = PROGRAM,
                  .summary = "Normalize (x / 255) and flip a gray image on "
                  "the GPU, like cv2.imread + CuPy, in three kernels and in "
                  "one, timed and checked. (Many images: imgbatch.)",
                  .opts = own, .n_opts = sizeof own / sizeof own[0],
                  .positional = "[IMAGE]"};
    cfg->opt = cm_options_default();
    cm_parse_or_exit(&cli, &cfg->opt, argc, argv);
    cm_options *opt = &cfg->opt;
    if (opt->quick && !opt->repeat_given)
        opt->repeat = 3;

    /* One image, a file or the built-in one; a batch is imgbatch's. */
    struct stat st;
    if (opt->n_args > 1)
        cm_usage_error("give one IMAGE: several images are a batch, for "
                    "imgbatch (make run-06-batch)");
    if (opt->n_args == 1 && stat(opt->args[0], &st) == 0 &&
        S_ISDIR(st.st_mode))
        cm_fail(CM_PATH_FMT ": is a folder, not an image file (a folder is "
                "a batch, for imgbatch: make run-06-batch)",
                CM_PATH_ARGS(opt->args[0]));
    if (synthetic && opt->n_args > 0)
        cm_usage_error("--synthetic makes its own image: give no IMAGE");
    cfg->width = opt->quick ? 641 : 10000;
    cfg->height = opt->quick ? 479 : 10000;
    if (synthetic && ref_parse_dims(synthetic, &cfg->width, &cfg->height))
        cm_usage_error("--synthetic: '%s' is not WIDTHxHEIGHT, e.g. 640x480",
                    synthetic);
    /* Named as the user set it: --synthetic, or the default size. */
    if (opt->n_args == 0 && cfg->width * cfg->height > cfg->max_pixels)
        cm_usage_error("%s%zu x %zu is more than --max-pixels %zu%s",
                       synthetic ? "--synthetic: " : "the built-in image of ",
                       cfg->width, cfg->height, cfg->max_pixels,
                       synthetic ? "" : " (--synthetic WxH sets its size)");
    cfg->image = opt->n_args == 1 ? opt->args[0] : NULL;

    /* An output that cannot be created is found now, not after the work. */
    char err[1280];
    const char *outputs[3] = {cfg->out_png, cfg->out_npy, opt->csv};
    for (int k = 0; k < 3; k++)
        if (outputs[k] && io_check_writable(outputs[k], err, sizeof err))
            cm_fail("%s", err);
}
