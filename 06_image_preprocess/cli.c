/* cli.c - options and their checks, all made before the GPU is touched. */
#include "cli.h"
#include "batch/batch_inputs.h"
#include "image_io.h"
#include "reference.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PROGRAM[] = "06_image_preprocess";

static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", PROGRAM);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see --help)\n");
    va_end(ap);
    exit(CM_EXIT_USAGE);
}

void cli_fail(const char *message)
{
    fprintf(stderr, "%s: %s\n", PROGRAM, message);
    exit(CM_EXIT_FAIL);
}

void cli_parse(int argc, char **argv, job_config *cfg)
{
    const char *synthetic = NULL, *resize = NULL;
    long long threads = 0, streams = 0;
    memset(cfg, 0, sizeof *cfg);
    cfg->max_pixels = IO_DEFAULT_MAX_PIXELS;
    batch_options *b = &cfg->b;
    b->decoder = "auto";
    cm_opt own[] = {
        {"synthetic", CM_OPT_STRING, &synthetic, "WxH", "size of the "
         "built-in image used when no IMAGE is given (10000x10000; "
         "--quick: 641x479)", NULL, 0, 0},
        {"out-png", CM_OPT_STRING, &cfg->out_png, "FILE",
         "write the flipped image as an 8-bit gray PNG", NULL, 0, 0},
        {"out-npy", CM_OPT_STRING, &cfg->out_npy, "FILE", "write the "
         "float32 tensor, (H, W) or a batch's (N, H, W), as .npy", NULL, 0,
         0},
        {"max-pixels", CM_OPT_SIZE, &cfg->max_pixels, "N", "refuse an "
         "image whose header claims more pixels than N", NULL, 1, 0},
        {"list", CM_OPT_STRING, &b->list_file, "FILE",
         "batch: the images named in FILE, one path per line", NULL, 0, 0},
        {"resize", CM_OPT_STRING, &resize, "WxH", "batch: resize each "
         "image to WxH (bilinear) instead of requiring one size", NULL, 0,
         0},
        {"skip-bad", CM_OPT_FLAG, &b->skip_bad, NULL, "batch: skip (and "
         "count) files that cannot be used instead of stopping", NULL, 0,
         0},
        {"threads", CM_OPT_INT, &threads, "N", "batch: CPU decode threads "
         "(0: one per core, at most 16)", NULL, 0, 256},
        {"streams", CM_OPT_INT, &streams, "N", "batch: CUDA streams, images "
         "in flight on the GPU (0: 3)", NULL, 0, 64},
        {"decoder", CM_OPT_CHOICE, &b->decoder, "D", "batch: decode JPEGs "
         "on the GPU (nvJPEG), the CPU, or the GPU where it can",
         "auto|gpu|cpu", 0, 0},
        {"batch-size", CM_OPT_SIZE, &b->batch_size, "N", "batch: images "
         "per GPU batch (0: by image size, at most 256)", NULL, 0, 4096},
        {"keep-on-gpu", CM_OPT_FLAG, &b->keep_on_gpu, NULL, "batch: keep "
         "the tensor on the GPU in batches, as a training loader does",
         NULL, 0, 0},
        {"bare-decode", CM_OPT_FLAG, &b->bare_decode, NULL, "batch: time "
         "nvJPEG's batched decode alone (files read beforehand)", NULL, 0,
         0},
    };
    cm_cli cli = {PROGRAM, "Normalize (x / 255) and flip gray images on "
                  "the GPU, like cv2.imread + CuPy; a folder or several "
                  "images run as a pipelined batch.", own,
                  sizeof own / sizeof own[0], "[IMAGE | DIR | IMAGE...]"};
    cfg->opt = cm_options_default();
    cm_parse_or_exit(&cli, &cfg->opt, argc, argv);
    cm_options *opt = &cfg->opt;
    if (opt->quick && !opt->repeat_given)
        opt->repeat = 3;

    /* One image (a file or the built-in one), or a batch. */
    cfg->batch = b->list_file || opt->n_args > 1 ||
                 (opt->n_args == 1 && inputs_is_directory(opt->args[0]));
    if (b->list_file && opt->n_args > 0)
        usage_error("give either --list FILE or image paths, not both");
    if (synthetic && opt->n_args > 0)
        usage_error("--synthetic makes its own image: give no IMAGE");
    if (cfg->batch && (synthetic || cfg->out_png))
        usage_error("%s applies to one image, not to a batch",
                    synthetic ? "--synthetic" : "--out-png");
    if (!cfg->batch && (resize || b->skip_bad || threads || streams))
        usage_error("--resize, --skip-bad, --threads and --streams apply "
                    "to a batch (a folder, several images or --list)");
    if (!cfg->batch && (strcmp(b->decoder, "auto") != 0 || b->batch_size ||
                        b->keep_on_gpu || b->bare_decode))
        usage_error("--decoder, --batch-size, --keep-on-gpu and "
                    "--bare-decode apply to a batch");
    /* The GPU decoder gives each file's own size; resizing is done on the
     * CPU path only, and a kept tensor is not written. */
    if (resize && (strcmp(b->decoder, "gpu") == 0 || b->keep_on_gpu ||
                   b->bare_decode))
        usage_error("--resize needs --decoder cpu or auto, without "
                    "--keep-on-gpu and --bare-decode");
    if (cfg->out_npy && (b->keep_on_gpu || b->bare_decode))
        usage_error("--%s writes no tensor: drop --out-npy",
                    b->keep_on_gpu ? "keep-on-gpu" : "bare-decode");
    if (b->bare_decode && strcmp(b->decoder, "cpu") == 0)
        usage_error("--bare-decode times the GPU decoder: not with "
                    "--decoder cpu");
    cfg->width = opt->quick ? 641 : 10000;
    cfg->height = opt->quick ? 479 : 10000;
    if (synthetic && ref_parse_dims(synthetic, &cfg->width, &cfg->height))
        usage_error("--synthetic: '%s' is not WIDTHxHEIGHT, e.g. 640x480",
                    synthetic);
    if (!cfg->batch && opt->n_args == 0 &&
        cfg->width * cfg->height > cfg->max_pixels)
        usage_error("--synthetic: %zu x %zu is more than --max-pixels %zu",
                    cfg->width, cfg->height, cfg->max_pixels);
    if (resize && ref_parse_dims(resize, &b->resize_width,
                                 &b->resize_height) != 0)
        usage_error("--resize: '%s' is not WIDTHxHEIGHT, e.g. 224x224",
                    resize);
    cfg->image = !cfg->batch && opt->n_args == 1 ? opt->args[0] : NULL;
    b->paths = opt->args;
    b->n_paths = opt->n_args;
    b->max_pixels = cfg->max_pixels;
    b->threads = (int)threads;
    b->streams = (int)streams;
    b->out_npy = cfg->out_npy;

    /* An output that cannot be created is found now, not after the work. */
    char err[1280];
    const char *outputs[3] = {cfg->out_png, cfg->out_npy, opt->csv};
    for (int k = 0; k < 3; k++)
        if (outputs[k] && io_check_writable(outputs[k], err, sizeof err))
            cli_fail(err);
}
