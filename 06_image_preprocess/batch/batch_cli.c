/* batch_cli.c - imgbatch's options and their checks, all made before the
 * GPU is touched. */
#include "batch_check.h"
#include "batch_cli.h"
#include "batch_inputs.h"
#include "imgbatch_set.h"
#include "pipeline.h"
#include "../image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PROGRAM[] = "imgbatch";

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

void batch_cli_parse(int argc, char **argv, batch_options *b)
{
    /* The loader's options come from its table (imgbatch_set.c), with
     * their help and bounds; the text of each value given is kept and set
     * below by ib_set_option, imgbatch_set_option's own code: the
     * command line and the library read a value the same way. */
    size_t n_lib;
    const ib_option *lib = ib_option_table(&n_lib);
    enum { MAX_OWN = 64 };     /* as many as cm_parse takes */
    cm_opt own[MAX_OWN];
    const char *texts[MAX_OWN] = {NULL};
    union {
        long long i;
        size_t z;
        const char *s;
        int flag;
    } slots[MAX_OWN];
    size_t n_own = 0, first_lib;
    imgbatch_options *o = &b->lib;
    memset(b, 0, sizeof *b);
    imgbatch_defaults(o);
    o->verbose = 1;
    own[n_own++] = (cm_opt){.name = "out-npy", .type = CM_OPT_STRING,
        .value = &b->out_npy, .metavar = "FILE",
        .help = "write the tensor as .npy"};
    own[n_own++] = (cm_opt){.name = "out-labels", .type = CM_OPT_STRING,
        .value = &b->out_labels, .metavar = "FILE",
        .help = "write the labels, in the tensor's order, as an int64 .npy "
        "(--class-folders, or a --list with labels)"};
    first_lib = n_own;
    if (n_lib + 5 > MAX_OWN)
        cm_fail("%zu options: more than the command line holds", n_lib);
    for (size_t k = 0; k < n_lib; k++) {
        if (!lib[k].on_cli)
            continue;
        cm_opt *x = &own[n_own];
        *x = lib[k].spec;
        memset(&slots[n_own], 0, sizeof slots[n_own]);
        memcpy(&slots[n_own], x->value,
               x->type == CM_OPT_INT ? sizeof(long long)
               : x->type == CM_OPT_SIZE ? sizeof(size_t)
               : x->type == CM_OPT_FLAG ? sizeof(int)
                                        : sizeof(const char *));
        x->value = &slots[n_own];
        x->text = &texts[n_own];
        n_own++;
    }
    size_t end_lib = n_own;
    own[n_own++] = (cm_opt){.name = "bare-decode", .type = CM_OPT_FLAG,
        .value = &b->bare_decode, .help = "time nvJPEG's batched decode "
        "alone (files read beforehand)"};
    own[n_own++] = (cm_opt){.name = "print-engine", .type = CM_OPT_FLAG,
        .value = &b->print_engine, .help = "say whether the GPU has a "
        "hardware JPEG decoder, and stop (environment: "
        "IMGBATCH_EMULATE_NO_ENGINE=1 runs everything as if it had none)"};
    b->check_images = CHECK_IMAGES_DEFAULT;
    own[n_own++] = (cm_opt){.name = "check-images", .type = CM_OPT_INT,
        .value = &b->check_images, .metavar = "N",
        .help = "after the passes, decode again with stb_image and check "
        "at most N images of the last pass, spread over it, its first and "
        "last among them (0: every image)"};
    cm_cli cli = {.program = PROGRAM,
                  .summary = "Image files into one tensor on the GPU: "
                  "decoded by nvJPEG or stb_image at their own sizes, then "
                  "resized, normalized (x / 255 or a mean and std), flipped "
                  "if asked and typed by one kernel a batch. --make-corpus DIR "
                  "writes a JPEG corpus instead (--make-corpus --help).",
                  .opts = own, .n_opts = n_own,
                  .positional = "DIR | IMAGE... | --list FILE",
                  .warmup_help = "batches decoded, untimed, before the "
                  "first timed pass",
                  .quick_help = "one pass unless --repeat is given (used "
                  "by tests)"};
    /* Passes over the files, and batches of warm-up before them. */
    b->opt = cm_options_default();
    b->opt.repeat = 3;
    b->opt.warmup = 1;
    cm_parse_or_exit(&cli, &b->opt, argc, argv);
    if (b->opt.quick && !b->opt.repeat_given)
        b->opt.repeat = 1;

    if (b->print_engine) {
        if (cm_given(&cli, &b->opt, "list") || b->opt.n_args > 0)
            cm_usage_error("--print-engine takes no images");
        o->device = (int)b->opt.device;
        return;
    }
    for (size_t k = first_lib; k < end_lib; k++)
        if (cm_given(&cli, &b->opt, own[k].name) &&
            ib_set_option(o, own[k].name, texts[k], NULL) != IMGBATCH_OK)
            cm_usage_error("%s", imgbatch_failure_reason());
    if (o->list && b->opt.n_args > 0)
        cm_usage_error("give either --list FILE or image paths, not both");
    if (!o->list && b->opt.n_args == 0)
        cm_usage_error("give a folder, image files or --list FILE");
    if (o->class_folders && (o->list || b->opt.n_args != 1))
        cm_usage_error("--class-folders takes one folder: the one that "
                       "holds a folder per class");
    if (o->class_folders) {
        o->folder = b->opt.args[0];
    } else if (!o->list) {
        o->files = (const char *const *)b->opt.args;
        o->n_files = (size_t)b->opt.n_args;
    }
    o->device = (int)b->opt.device;
    b->keep_on_gpu = o->keep_whole;
    o->copy_to_host = !b->keep_on_gpu && !b->bare_decode;

    if (cm_given(&cli, &b->opt, "flip") && cm_given(&cli, &b->opt, "no-flip"))
        cm_usage_error("--flip or --no-flip, not both");
    if (cm_given(&cli, &b->opt, "exif") && cm_given(&cli, &b->opt, "no-exif"))
        cm_usage_error("--exif or --no-exif, not both");
    int resize = cm_given(&cli, &b->opt, "resize");
    int crop = cm_given(&cli, &b->opt, "crop");
    if (resize && (o->resize_short || crop))
        cm_usage_error("--resize or --resize-short with --crop, not both");
    if (!o->resize_short != !crop)
        cm_usage_error("--resize-short S goes with --crop WxH");
    if (o->antialias && !resize && !crop)
        cm_usage_error("%s", IB_ANTIALIAS_ALONE);
    if (crop && (o->crop_width > o->resize_short ||
                 o->crop_height > o->resize_short))
        cm_usage_error("--crop %zux%zu is larger than the short side %zu",
                       o->crop_width, o->crop_height, o->resize_short);
    if ((cm_given(&cli, &b->opt, "mean") || cm_given(&cli, &b->opt, "std")) &&
        o->dtype == IMGBATCH_UINT8)
        cm_usage_error("--mean and --std do nothing with --dtype uint8 (its "
                    "values are the levels)");
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
                        "seed|rank|world-size|drop-last|check-images|"
                        "hybrid-share", "with --bare-decode");
    if (cm_given(&cli, &b->opt, "seed") && !o->shuffle)
        cm_refuse_given(&cli, &b->opt, "seed", "without --shuffle");
    if (cm_given(&cli, &b->opt, "rank") !=
        cm_given(&cli, &b->opt, "world-size"))
        cm_usage_error("--rank R and --world-size W go together");
    if (o->rank >= o->world_size)
        cm_usage_error("--rank %d must be below --world-size %d", o->rank,
                       o->world_size);
    if (b->out_labels && !o->class_folders && !o->list)
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
    if (b->out_labels && o->list)
        need_list_labels(o->list);
}
