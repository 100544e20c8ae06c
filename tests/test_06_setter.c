/* test_06_setter.c - the loader's options by name (imgbatch.h's
 * imgbatch_options_new / imgbatch_set_option / imgbatch_options_free,
 * batch/imgbatch_set.c), without a GPU: each name lands in its field,
 * with the command line's parse; a bad name or value is refused with a
 * reason naming the option and leaves the options as they were; strings
 * are the options' own copies. */
#include "test.h"
#include "../06_image_preprocess/batch/imgbatch.h"
#include "../06_image_preprocess/batch/imgbatch_set.h"
#include "../06_image_preprocess/batch/pipeline.h"

#include <string.h>

static imgbatch_options *o;

static int set(const char *name, const char *value)
{
    return imgbatch_set_option(o, name, value) == IMGBATCH_OK;
}

/* name=value is refused, with a reason that holds `reason`, and the
 * options do not change. */
static void refused(const char *name, const char *value, const char *reason)
{
    imgbatch_options before = *o;
    test_count++;
    imgbatch_status st = imgbatch_set_option(o, name, value);
    if (st != IMGBATCH_ERR_OPTIONS ||
        !strstr(imgbatch_failure_reason(), reason) ||
        memcmp(&before, o, sizeof before) != 0) {
        test_failures++;
        fprintf(stderr, "%s=%s: status %d, reason '%s', expected '%s'\n",
                name, value ? value : "(NULL)", (int)st,
                imgbatch_failure_reason(), reason);
    }
}

int main(void)
{
    /* The defaults, as imgbatch_defaults gives them. */
    imgbatch_options defaults;
    imgbatch_defaults(&defaults);
    o = imgbatch_options_new();
    EXPECT(o && memcmp(o, &defaults, sizeof defaults) == 0);

    /* Each option into its field, from the command line's texts. */
    EXPECT(set("resize", "224x160") && o->resize_width == 224 &&
           o->resize_height == 160);
    EXPECT(set("resize-short", "256") && o->resize_short == 256);
    EXPECT(set("crop", "200x100") && o->crop_width == 200 &&
           o->crop_height == 100);
    EXPECT(set("color", "rgb") && o->color == IMGBATCH_RGB);
    EXPECT(set("dtype", "float16") && o->dtype == IMGBATCH_FLOAT16);
    EXPECT(set("mean", "0.485,0.456,0.406") && o->mean[0] == 0.485f &&
           o->mean[2] == 0.406f);
    EXPECT(set("std", "0.5") && o->std[0] == 0.5f && o->std[2] == 0.5f);
    EXPECT(set("no-flip", NULL) && o->flip == 0);
    EXPECT(set("flip", NULL) && o->flip == 1);
    EXPECT(set("skip-bad", NULL) && o->skip_bad == 1);
    EXPECT(set("keep-on-gpu", NULL) && o->keep_whole == 1);
    EXPECT(set("max-pixels", "4M") && o->max_pixels == 4u << 20);
    EXPECT(set("decoder", "cpu") && o->decoder == IMGBATCH_DECODER_CPU);
    EXPECT(set("nvjpeg-backend", "gpu-hybrid") &&
           o->backend == IMGBATCH_BACKEND_GPU_HYBRID);
    EXPECT(o->hybrid_share == 0.0f);
    EXPECT(set("hybrid-share", "0.25") && o->hybrid_share == 0.25f);
    EXPECT(set("hybrid-share", "auto") &&
           o->hybrid_share == IMGBATCH_SHARE_AUTO);
    EXPECT(set("hybrid-share", "1") && o->hybrid_share == 1.0f);
    EXPECT(set("threads", "4") && o->threads == 4);
    EXPECT(set("batch-size", "32") && o->batch_size == 32);
    EXPECT(set("streams", "3") && o->streams == 3);
    EXPECT(set("device", "1") && o->device == 1);

    /* Strings are copied: the caller's buffer may change or go. */
    char path[32] = "photos/a.png";
    EXPECT(set("file", path) && set("file", "photos/b.jpg"));
    strcpy(path, "changed");
    EXPECT(o->n_files == 2 && strcmp(o->files[0], "photos/a.png") == 0 &&
           strcmp(o->files[1], "photos/b.jpg") == 0);
    char dir[16] = "photos";
    EXPECT(set("folder", dir) && o->folder != dir &&
           strcmp(o->folder, "photos") == 0);
    EXPECT(set("list", "files.txt") && strcmp(o->list, "files.txt") == 0);

    /* Bad names and values: the command line's words, the option named. */
    refused("resize_short", "256", "unknown option 'resize_short'");
    /* The tool's own options are not the loader's (imgbatch.h). */
    refused("out-npy", "x.npy", "unknown option 'out-npy'");
    refused("check-images", "8", "unknown option 'check-images'");
    refused(NULL, "1", "the name is NULL");
    refused("resize", "224", "--resize: '224' is not WIDTHxHEIGHT");
    refused("resize", "40000x10", "--resize: at most 32767 pixels a side");
    refused("crop", "8", "--crop: '8' is not WIDTHxHEIGHT");
    refused("resize-short", "0", "--resize-short: '0' must be at least 1");
    refused("color", "cmyk", "--color: 'cmyk' is not one of gray|rgb");
    refused("dtype", "int8", "--dtype: 'int8' is not one of");
    refused("mean", "1,2", "--mean: '1,2': give one value or 3, one per "
            "channel");
    refused("mean", "x", "--mean: 'x' is not numbers joined by commas");
    refused("std", "0", "--std: '0' is not numbers above 0");
    refused("decoder", "fast", "--decoder: 'fast' is not one of "
            "auto|gpu|cpu");
    refused("nvjpeg-backend", "npu", "--nvjpeg-backend: 'npu' is not one");
    refused("hybrid-share", "1.5", "--hybrid-share: '1.5' is not auto or "
            "a share from 0 to 1");
    refused("hybrid-share", "-0.5", "--hybrid-share: '-0.5' is not auto");
    refused("hybrid-share", "half", "--hybrid-share: 'half' is not auto");
    refused("hybrid-share", "0.5x", "--hybrid-share: '0.5x' is not auto");
    refused("threads", "257", "--threads: '257' must be at most 256");
    refused("threads", "four", "--threads: 'four' is not a whole number");
    refused("streams", "-1", "--streams: '-1' must be at least 0");
    refused("batch-size", "5000", "--batch-size: '5000' must be at most "
            "4096");
    refused("max-pixels", "0", "--max-pixels: '0' must be at least 1");
    refused("max-pixels", "1Q", "--max-pixels: size '1Q' has an unknown");
    refused("device", "-1", "--device: '-1' must be at least 0");
    refused("flip", "1", "--flip takes no value, got '1'");
    refused("resize", NULL, "option '--resize' needs a value");
    refused("list", "", "--list: empty value");
    /* mean and std count their values against the color set: gray takes
     * one, as the command line's --mean does without --color rgb. */
    EXPECT(set("color", "gray"));
    refused("mean", "0.1,0.2,0.3", "--mean: '0.1,0.2,0.3': give one value "
            "or 1, one per channel");
    EXPECT(imgbatch_set_option(NULL, "resize", "8x8") ==
           IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "the options is NULL"));
    imgbatch_options_free(o);
    imgbatch_options_free(NULL);

    /* Set by name, the options pass imgbatch_open's checks and make the
     * tensor asked for; options that do not go together are still
     * refused there. */
    o = imgbatch_options_new();
    tf_spec s;
    EXPECT(set("folder", "photos") && set("color", "rgb") &&
           set("dtype", "float16") && set("resize-short", "256") &&
           set("crop", "224x224") && set("mean", "0.485,0.456,0.406") &&
           set("std", "0.229,0.224,0.225"));
    EXPECT(ib_check_options(o, &s) == IMGBATCH_OK &&
           s.mode == TF_SHORT_CROP && s.channels == 3 && s.out_w == 224 &&
           s.short_side == 256 && s.dtype == TF_FLOAT16 &&
           s.std[2] == 0.225f && !s.flip);
    EXPECT(set("dtype", "uint8"));
    EXPECT(ib_check_options(o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "uint8"));
    imgbatch_options_free(o);

    /* EXIF orientation: on by default, off and on again by name. */
    o = imgbatch_options_new();
    EXPECT(o->exif == 1 && set("no-exif", NULL) && o->exif == 0 &&
           set("exif", NULL) && o->exif == 1);
    imgbatch_options_free(o);

    /* The antialiased resize: off by default, on by name, into the
     * spec with a resize; refused without one. */
    o = imgbatch_options_new();
    EXPECT(o->antialias == 0 && set("folder", "photos") &&
           set("antialias", NULL) && o->antialias == 1);
    refused("antialias", "1", "--antialias takes no value, got '1'");
    EXPECT(ib_check_options(o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "--antialias needs a resize"));
    EXPECT(set("resize", "64x48") && ib_check_options(o, &s) ==
           IMGBATCH_OK && s.antialias == 1 && s.mode == TF_RESIZE);
    imgbatch_options_free(o);
    o = imgbatch_options_new();
    EXPECT(set("folder", "photos") && set("resize", "64x48") &&
           ib_check_options(o, &s) == IMGBATCH_OK && s.antialias == 0);
    imgbatch_options_free(o);

    /* A data set's options: class folders, each pass's order. */
    o = imgbatch_options_new();
    EXPECT(set("folder", "classes") && set("class-folders", NULL) &&
           set("shuffle", NULL) && set("seed", "18446744073709551615") &&
           set("rank", "2") && set("world-size", "3") &&
           set("drop-last", NULL));
    EXPECT(o->class_folders == 1 && o->shuffle == 1 &&
           o->seed == UINT64_MAX && o->rank == 2 && o->world_size == 3 &&
           o->drop_last == 1 && ib_check_options(o, &s) == IMGBATCH_OK);
    static const char *const bad_seeds[] = {"18446744073709551616", "-1",
                                            "0x10", "", "7 "};
    for (size_t k = 0; k < sizeof bad_seeds / sizeof bad_seeds[0]; k++)
        EXPECT(imgbatch_set_option(o, "seed", bad_seeds[k]) ==
                   IMGBATCH_ERR_OPTIONS &&
               strstr(imgbatch_failure_reason(), "--seed: ") &&
               o->seed == UINT64_MAX);
    EXPECT(imgbatch_set_option(o, "world-size", "0") == IMGBATCH_ERR_OPTIONS &&
           o->world_size == 3);
    EXPECT(set("rank", "3"));  /* not below world_size: open refuses it */
    EXPECT(ib_check_options(o, &s) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "rank 3"));
    imgbatch_options_free(o);

    /* Every name of the table is taken, and the command line's options
     * are the loader's table's less device, folder and file. */
    size_t n;
    const ib_option *t = ib_option_table(&n);
    size_t on_cli = 0;
    for (size_t k = 0; k < n; k++)
        on_cli += t[k].on_cli;
    EXPECT(n == on_cli + 3);
    /* ... and each sets a field (a name without one is refused). */
    o = imgbatch_options_new();
    for (size_t k = 0; k < n; k++) {
        const cm_opt *spec = &t[k].spec;
        char value[32] = "1";
        if (spec->type == CM_OPT_CHOICE)
            snprintf(value, sizeof value, "%.*s",
                     (int)strcspn(spec->choices, "|"), spec->choices);
        if (spec->type == CM_OPT_STRING)
            strcpy(value, strcmp(spec->name, "seed") == 0 ? "7"
                          : strcmp(spec->name, "hybrid-share") == 0 ? "auto"
                          : strchr("rc", spec->name[0]) ? "8x8"
                          : strchr("ms", spec->name[0]) ? "0.5" : "x");
        imgbatch_status st = imgbatch_set_option(
            o, spec->name, spec->type == CM_OPT_FLAG ? NULL : value);
        EXPECT(st == IMGBATCH_OK);
        if (st != IMGBATCH_OK)
            fprintf(stderr, "%s: %s\n", spec->name,
                    imgbatch_failure_reason());
    }
    imgbatch_options_free(o);

    /* The sizes a binding checks its mirrored structs against. */
    EXPECT(imgbatch_sizeof("imgbatch_batch") == sizeof(imgbatch_batch));
    EXPECT(imgbatch_sizeof("imgbatch_info") == sizeof(imgbatch_info));
    EXPECT(imgbatch_sizeof("imgbatch_options") == sizeof(imgbatch_options));
    EXPECT(imgbatch_sizeof("imgbatch") == 0 && imgbatch_sizeof(NULL) == 0);
    return test_summary();
}
