/* batch_cli.c - imgbatch's options and their checks, all made before the
 * GPU is touched. */
#include "batch_cli.h"
#include "../image_io.h"
#include "../reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PROGRAM[] = "imgbatch";
static const int DEFAULT_STREAMS = 2;

void batch_cli_parse(int argc, char **argv, batch_options *b)
{
    const char *resize = NULL, *decoder = "auto";
    long long threads = 0, streams = 0;
    memset(b, 0, sizeof *b);
    b->max_pixels = IO_DEFAULT_MAX_PIXELS;
    cm_opt own[] = {
        {.name = "out-npy", .type = CM_OPT_STRING, .value = &b->out_npy,
         .metavar = "FILE", .help = "write the (N, H, W) float32 tensor "
         "as .npy"},
        {.name = "list", .type = CM_OPT_STRING, .value = &b->list_file,
         .metavar = "FILE", .help = "the images named in FILE, one path "
         "per line"},
        {.name = "resize", .type = CM_OPT_STRING, .value = &resize,
         .metavar = "WxH", .help = "resize each image to WxH (bilinear, "
         "on the CPU) instead of requiring one size"},
        {.name = "skip-bad", .type = CM_OPT_FLAG, .value = &b->skip_bad,
         .help = "skip (and count) files that cannot be used instead of "
         "stopping"},
        {.name = "max-pixels", .type = CM_OPT_SIZE, .value = &b->max_pixels,
         .metavar = "N", .help = "refuse an image whose header claims "
         "more pixels than N", .min = 1},
        {.name = "decoder", .type = CM_OPT_CHOICE, .value = &decoder,
         .metavar = "D", .help = "decode JPEGs on the GPU (nvJPEG), the "
         "CPU (stb_image), or the GPU where it can",
         .choices = "auto|gpu|cpu"},
        {.name = "threads", .type = CM_OPT_INT, .value = &threads,
         .metavar = "N", .help = "reader threads: read, screen and decode "
         "on the CPU (0: one per core, at most 16)", .max = 256},
        {.name = "batch-size", .type = CM_OPT_SIZE, .value = &b->batch_size,
         .metavar = "N", .help = "images per batch (0: by image size, 16 "
         "to 256)", .max = BATCH_MAX_SIZE},
        {.name = "streams", .type = CM_OPT_INT, .value = &streams,
         .metavar = "N", .help = "CUDA streams, batches in flight on the "
         "GPU (0: 2)", .max = 64},
        {.name = "keep-on-gpu", .type = CM_OPT_FLAG, .value = &b->keep_on_gpu,
         .help = "keep the tensor on the GPU, batch by batch, as a "
         "training loader does"},
        {.name = "bare-decode", .type = CM_OPT_FLAG, .value = &b->bare_decode,
         .help = "time nvJPEG's batched decode alone (files read "
         "beforehand)"},
    };
    cm_cli cli = {.program = PROGRAM,
                  .summary = "Image files into one (N, H, W) float32 tensor "
                  "on the GPU: decoded by nvJPEG or stb_image, normalized "
                  "(x / 255) and flipped in batches. --make-corpus DIR "
                  "writes a JPEG corpus instead (--make-corpus --help).",
                  .opts = own, .n_opts = sizeof own / sizeof own[0],
                  .positional = "DIR | IMAGE... | --list FILE"};
    /* Passes over the files, and batches of warm-up before them. */
    b->opt = cm_options_default();
    b->opt.repeat = 3;
    b->opt.warmup = 1;
    cm_parse_or_exit(&cli, &b->opt, argc, argv);
    if (b->opt.quick && !b->opt.repeat_given)
        b->opt.repeat = 1;
    b->paths = b->opt.args;
    b->n_paths = b->opt.n_args;
    b->decoder = strcmp(decoder, "gpu") == 0   ? DECODER_GPU
                 : strcmp(decoder, "cpu") == 0 ? DECODER_CPU
                                               : DECODER_AUTO;
    b->threads = (int)threads;
    b->streams = streams ? (int)streams : DEFAULT_STREAMS;

    if (b->list_file && b->n_paths > 0)
        cm_usage_error("give either --list FILE or image paths, not both");
    if (!b->list_file && b->n_paths == 0)
        cm_usage_error("give a folder, image files or --list FILE");
    /* The GPU decoder gives each file's own size: resizing is done on
     * the CPU. A kept tensor is not written. */
    if (resize && (b->decoder == DECODER_GPU || b->bare_decode))
        cm_usage_error("--resize needs --decoder cpu or auto, without "
                    "--bare-decode (the GPU decoder keeps each file's "
                    "size)");
    if (b->out_npy && (b->keep_on_gpu || b->bare_decode))
        cm_usage_error("--%s writes no tensor: drop --out-npy",
                    b->keep_on_gpu ? "keep-on-gpu" : "bare-decode");
    if (b->bare_decode && b->decoder == DECODER_CPU)
        cm_usage_error("--bare-decode times the GPU decoder: not with "
                    "--decoder cpu");
    if (b->bare_decode)
        cm_refuse_given(&cli, &b->opt, "keep-on-gpu", "with --bare-decode");
    if (resize && ref_parse_dims(resize, &b->resize_width,
                                 &b->resize_height) != 0)
        cm_usage_error("--resize: '%s' is not WIDTHxHEIGHT, e.g. 224x224",
                    resize);

    /* An output that cannot be created is found now, not after the work. */
    char err[1280];
    const char *outputs[2] = {b->out_npy, b->opt.csv};
    for (int k = 0; k < 2; k++)
        if (outputs[k] && io_check_writable(outputs[k], err, sizeof err))
            cm_fail("%s", err);
}
