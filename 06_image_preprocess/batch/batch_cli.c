/* batch_cli.c - imgbatch's options and their checks, all made before the
 * GPU is touched. */
#include "batch_cli.h"
#include "batch_inputs.h"
#include "pipeline.h"
#include "../image_io.h"
#include "../reference.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PROGRAM[] = "imgbatch";

/* "0.485,0.456,0.406" (or one value, for every channel) into out[3]. */
static void parse_floats(const char *name, const char *text, int channels,
                         int positive, float out[3])
{
    float v[3];
    int n = 0;
    const char *p = text;
    while (n < 3) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno || !isfinite(d) || (positive && d <= 0))
            cm_usage_error("--%s: '%s' is not %s", name, text,
                        positive ? "numbers above 0, joined by commas"
                                 : "numbers joined by commas");
        v[n++] = (float)d;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    if (*p != '\0' || (n != 1 && n != channels))
        cm_usage_error("--%s: '%s': give one value or %d, one per channel",
                    name, text, channels);
    for (int c = 0; c < 3; c++)
        out[c] = v[n == 1 ? 0 : c];
}

/* --seed: decimal digits, 0 to 2^64 - 1. */
static uint64_t parse_seed(const char *text)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (!*text || strspn(text, "0123456789") != strlen(text) || errno)
        cm_usage_error("--seed: '%s' is not a whole number from 0 to "
                       "18446744073709551615", text);
    (void)end;
    return (uint64_t)v;
}

/* --out-labels with --list: the list must have labels; found now, not
 * after the GPU has opened (a list that cannot be read stops here too,
 * as it would in the loader). */
static void need_list_labels(const char *list)
{
    char err[1280];
    path_list l;
    if (inputs_collect(NULL, 0, list, &l, err, sizeof err) != 0)
        cm_fail("%s", err);
    int labelled = l.labels != NULL;
    path_list_free(&l);
    if (!labelled)
        cm_fail("--out-labels: %s has no labels: its lines are PATH, not "
                "PATH LABEL", list);
}

static int choice(const char *value, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(value, names[k]) == 0)
            return k;
    return 0;
}

void batch_cli_parse(int argc, char **argv, batch_options *b)
{
    static const char *const decoders[] = {"auto", "gpu", "cpu"};
    static const char *const backends[] = {"auto", "hardware", "gpu-hybrid",
                                           "hybrid"};
    static const char *const dtypes[] = {"float32", "float16", "uint8"};
    const char *resize = NULL, *crop = NULL, *decoder = "auto";
    const char *backend = "auto", *color = "gray", *dtype = "float32";
    const char *mean = NULL, *std = NULL, *list = NULL, *seed = NULL;
    long long threads = 0, streams = 0, rank = 0, world_size = 1;
    int flip = 0, no_flip = 0;
    size_t resize_short = 0;
    imgbatch_options *o = &b->lib;
    memset(b, 0, sizeof *b);
    imgbatch_defaults(o);
    o->verbose = 1;
    cm_opt own[] = {
        {.name = "out-npy", .type = CM_OPT_STRING, .value = &b->out_npy,
         .metavar = "FILE", .help = "write the tensor as .npy"},
        {.name = "list", .type = CM_OPT_STRING, .value = &list,
         .metavar = "FILE", .help = "the images named in FILE, one a "
         "line: PATH, or PATH LABEL on every line (LABEL: the digits after "
         "the last space or tab)"},
        {.name = "class-folders", .type = CM_OPT_FLAG,
         .value = &o->class_folders, .help = "DIR holds one folder per "
         "class, read as torchvision's ImageFolder: classes sorted by "
         "name, label k the k-th; each class's images in it and its "
         "subfolders"},
        {.name = "out-labels", .type = CM_OPT_STRING, .value = &b->out_labels,
         .metavar = "FILE", .help = "write the labels, in the tensor's "
         "order, as an int64 .npy (--class-folders, or a --list with "
         "labels)"},
        {.name = "shuffle", .type = CM_OPT_FLAG, .value = &o->shuffle,
         .help = "a new order each pass, from --seed and the pass "
         "(splitmix64 and Fisher-Yates: not torch's generator)"},
        {.name = "seed", .type = CM_OPT_STRING, .value = &seed,
         .metavar = "N", .help = "with --shuffle: 0 to 2^64 - 1 (default "
         "0)"},
        {.name = "rank", .type = CM_OPT_INT, .value = &rank, .metavar = "R",
         .help = "with --world-size W: this process's shard, as "
         "DistributedSampler: images R, R + W, ... of the (shuffled) list, "
         "padded by repeating its start to ceil(N / W) each",
         .max = 1 << 20},
        {.name = "world-size", .type = CM_OPT_INT, .value = &world_size,
         .metavar = "W", .help = "processes that share the images (with "
         "--rank)", .min = 1, .max = 1 << 20},
        {.name = "drop-last", .type = CM_OPT_FLAG, .value = &o->drop_last,
         .help = "as DistributedSampler's and DataLoader's drop_last: "
         "shards cut to floor(N / W) instead of padded, and a pass's short "
         "last batch left out"},
        {.name = "resize", .type = CM_OPT_STRING, .value = &resize,
         .metavar = "WxH", .help = "resize each image to WxH on the GPU "
         "(bilinear, pixel centres aligned as cv2.INTER_LINEAR; no "
         "antialiasing, as F.interpolate(antialias=False))"},
        {.name = "resize-short", .type = CM_OPT_SIZE, .value = &resize_short,
         .metavar = "S", .help = "scale each image's short side to S (the "
         "other in proportion), then --crop", .min = 1,
         .max = (long long)TF_MAX_SIDE},
        {.name = "crop", .type = CM_OPT_STRING, .value = &crop,
         .metavar = "WxH", .help = "with --resize-short: the centre WxH"},
        {.name = "color", .type = CM_OPT_CHOICE, .value = &color,
         .metavar = "C", .help = "gray (N, H, W), or rgb planes "
         "(N, 3, H, W)", .choices = "gray|rgb"},
        {.name = "dtype", .type = CM_OPT_CHOICE, .value = &dtype,
         .metavar = "T", .help = "the tensor's type (uint8: the levels)",
         .choices = "float32|float16|uint8"},
        {.name = "mean", .type = CM_OPT_STRING, .value = &mean,
         .metavar = "M", .help = "per channel: (x / 255 - M) / S "
         "(default 0)"},
        {.name = "std", .type = CM_OPT_STRING, .value = &std,
         .metavar = "S", .help = "per channel, above 0 (default 1)"},
        {.name = "flip", .type = CM_OPT_FLAG, .value = &flip,
         .help = "mirror each image left to right (the default, as the "
         "tutorial)"},
        {.name = "no-flip", .type = CM_OPT_FLAG, .value = &no_flip,
         .help = "do not"},
        {.name = "skip-bad", .type = CM_OPT_FLAG, .value = &o->skip_bad,
         .help = "skip (and count) files that cannot be used instead of "
         "stopping"},
        {.name = "max-pixels", .type = CM_OPT_SIZE, .value = &o->max_pixels,
         .metavar = "N", .help = "refuse an image whose header claims "
         "more pixels than N", .min = 1},
        {.name = "decoder", .type = CM_OPT_CHOICE, .value = &decoder,
         .metavar = "D", .help = "decode JPEGs on the GPU (nvJPEG), the "
         "CPU (stb_image), or the GPU where it can",
         .choices = "auto|gpu|cpu"},
        {.name = "nvjpeg-backend", .type = CM_OPT_CHOICE, .value = &backend,
         .metavar = "B", .help = "hardware decoder, GPU hybrid, or every "
         "JPEG on the hybrid path (auto's choice without the first)",
         .choices = "auto|hardware|gpu-hybrid|hybrid"},
        {.name = "threads", .type = CM_OPT_INT, .value = &threads,
         .metavar = "N", .help = "reader threads: read, screen and decode "
         "on the CPU (0: one per core, at most 16)", .max = 256},
        {.name = "batch-size", .type = CM_OPT_SIZE, .value = &o->batch_size,
         .metavar = "N", .help = "images per batch (0: by image size, 16 "
         "to 256)", .max = BATCH_MAX_SIZE},
        {.name = "streams", .type = CM_OPT_INT, .value = &streams,
         .metavar = "N", .help = "CUDA streams, batches in flight on the "
         "GPU (0: 2)", .max = 64},
        {.name = "keep-on-gpu", .type = CM_OPT_FLAG, .value = &b->keep_on_gpu,
         .help = "keep the whole tensor on the GPU if it fits (else batch "
         "buffers in turn); nothing comes back"},
        {.name = "bare-decode", .type = CM_OPT_FLAG, .value = &b->bare_decode,
         .help = "time nvJPEG's batched decode alone (files read "
         "beforehand)"},
        {.name = "print-engine", .type = CM_OPT_FLAG,
         .value = &b->print_engine, .help = "say whether the GPU has a "
         "hardware JPEG decoder, and stop (environment: "
         "IMGBATCH_EMULATE_NO_ENGINE=1 runs everything as if it had none)"},
    };
    cm_cli cli = {.program = PROGRAM,
                  .summary = "Image files into one tensor on the GPU: "
                  "decoded by nvJPEG or stb_image at their own sizes, then "
                  "resized, normalized (x / 255 or a mean and std), flipped "
                  "and typed by one kernel a batch. --make-corpus DIR "
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

    if (b->print_engine) {
        if (list || b->opt.n_args > 0)
            cm_usage_error("--print-engine takes no images");
        o->device = (int)b->opt.device;
        return;
    }
    if (list && b->opt.n_args > 0)
        cm_usage_error("give either --list FILE or image paths, not both");
    if (!list && b->opt.n_args == 0)
        cm_usage_error("give a folder, image files or --list FILE");
    if (o->class_folders && (list || b->opt.n_args != 1))
        cm_usage_error("--class-folders takes one folder: the one that "
                       "holds a folder per class");
    o->list = list;
    o->files = (const char *const *)b->opt.args;
    o->n_files = list ? 0 : (size_t)b->opt.n_args;
    if (list || o->class_folders)
        o->files = NULL;
    if (o->class_folders) {
        o->folder = b->opt.args[0];
        o->n_files = 0;
    }
    o->decoder = (imgbatch_decoder)choice(decoder, decoders, 3);
    o->backend = (imgbatch_backend)choice(backend, backends, 4);
    o->dtype = (imgbatch_dtype)choice(dtype, dtypes, 3);
    o->color = strcmp(color, "rgb") == 0 ? IMGBATCH_RGB : IMGBATCH_GRAY;
    o->threads = (int)threads;
    o->streams = (int)streams;
    o->device = (int)b->opt.device;
    o->flip = !no_flip;
    o->keep_whole = b->keep_on_gpu;
    o->copy_to_host = !b->keep_on_gpu && !b->bare_decode;

    if (flip && no_flip)
        cm_usage_error("--flip or --no-flip, not both");
    if (resize && (resize_short || crop))
        cm_usage_error("--resize or --resize-short with --crop, not both");
    if (!resize_short != !crop)
        cm_usage_error("--resize-short S goes with --crop WxH");
    if (resize && ref_parse_dims(resize, &o->resize_width,
                                 &o->resize_height) != 0)
        cm_usage_error("--resize: '%s' is not WIDTHxHEIGHT, e.g. 224x224",
                    resize);
    if (crop && ref_parse_dims(crop, &o->crop_width, &o->crop_height) != 0)
        cm_usage_error("--crop: '%s' is not WIDTHxHEIGHT, e.g. 224x224", crop);
    if (o->resize_width > TF_MAX_SIDE || o->resize_height > TF_MAX_SIDE)
        cm_usage_error("--resize: at most %zu pixels a side", TF_MAX_SIDE);
    if (crop && (o->crop_width > resize_short ||
                 o->crop_height > resize_short))
        cm_usage_error("--crop %s is larger than the short side %zu", crop,
                    resize_short);
    o->resize_short = resize_short;
    if ((mean || std) && o->dtype == IMGBATCH_UINT8)
        cm_usage_error("--mean and --std do nothing with --dtype uint8 (its "
                    "values are the levels)");
    if (mean)
        parse_floats("mean", mean, (int)o->color, 0, o->mean);
    if (std)
        parse_floats("std", std, (int)o->color, 1, o->std);
    if (b->out_npy && (b->keep_on_gpu || b->bare_decode))
        cm_usage_error("--%s writes no tensor: drop --out-npy",
                    b->keep_on_gpu ? "keep-on-gpu" : "bare-decode");
    if (b->bare_decode && o->decoder == IMGBATCH_DECODER_CPU)
        cm_usage_error("--bare-decode times the GPU decoder: not with "
                    "--decoder cpu");
    if (cm_given(&cli, &b->opt, "nvjpeg-backend") &&
        o->decoder == IMGBATCH_DECODER_CPU)
        cm_refuse_given(&cli, &b->opt, "nvjpeg-backend",
                        "with --decoder cpu");
    if (b->bare_decode)
        cm_refuse_given(&cli, &b->opt, "keep-on-gpu|out-labels|shuffle|"
                        "seed|rank|world-size|drop-last",
                        "with --bare-decode");
    if (seed && !o->shuffle)
        cm_refuse_given(&cli, &b->opt, "seed", "without --shuffle");
    if (seed)
        o->seed = parse_seed(seed);
    if (cm_given(&cli, &b->opt, "rank") !=
        cm_given(&cli, &b->opt, "world-size"))
        cm_usage_error("--rank R and --world-size W go together");
    if (rank >= world_size)
        cm_usage_error("--rank %lld must be below --world-size %lld", rank,
                       world_size);
    o->rank = (int)rank;
    o->world_size = (int)world_size;
    if (b->out_labels && !o->class_folders && !list)
        cm_usage_error("--out-labels needs labels: give --class-folders DIR "
                       "or a --list of PATH LABEL lines");
    if (b->out_labels && b->out_npy && strcmp(b->out_labels, b->out_npy) == 0)
        cm_usage_error("--out-npy and --out-labels name the same file");

    /* An output that cannot be created is found now, not after the work. */
    char err[1280];
    const char *outputs[3] = {b->out_npy, b->out_labels, b->opt.csv};
    for (int k = 0; k < 3; k++)
        if (outputs[k] && io_check_writable(outputs[k], err, sizeof err))
            cm_fail("%s", err);
    if (b->out_labels && list)
        need_list_labels(list);
}
