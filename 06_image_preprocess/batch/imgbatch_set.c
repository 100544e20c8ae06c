/* imgbatch_set.c - the loader's options by name and text (imgbatch.h's
 * imgbatch_set_option, and the command line through imgbatch_set.h): one
 * table, read by both, so that "resize" means the same, and a bad value
 * is refused with the same line, from C, Python or imgbatch's command
 * line. Checks between options (a crop without its short side, mean with
 * uint8) are imgbatch_open's, made once every option is set. */
#include "imgbatch_set.h"
#include "pipeline.h"
#include "../image_io.h"
#include "../reference.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Each option's default, as the command line's --help shows it (file-
 * scope compound literals: static storage). */
#define NO_TEXT (&(const char *){NULL})
#define SIZE_0 (&(size_t){0})
#define INT_0 (&(long long){0})

/* The order is the one the command line applies them in: color before
 * mean and std. A new option of imgbatch_options joins this table under
 * its command line name, with its case in apply(): the command line and
 * imgbatch_set_option then both take it. */
static const ib_option OPTIONS[] = {
    {.on_cli = 1, .spec = {.name = "list", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "FILE",
     .help = "the images named in FILE, one a line: PATH, or PATH LABEL on "
     "every line (LABEL: the digits after the last space or tab)"}},
    {.on_cli = 1, .spec = {.name = "class-folders", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "DIR holds one folder per class, read as torchvision's "
     "ImageFolder: classes sorted by name, label k the k-th; each class's "
     "images in it and its subfolders"}},
    {.on_cli = 1, .spec = {.name = "shuffle", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "a new order each pass, from --seed and the pass (splitmix64 "
     "and Fisher-Yates: not torch's generator)"}},
    {.on_cli = 1, .spec = {.name = "seed", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "N",
     .help = "with --shuffle: 0 to 2^64 - 1 (default 0)"}},
    {.on_cli = 1, .spec = {.name = "rank", .type = CM_OPT_INT,
     .value = INT_0, .metavar = "R",
     .help = "with --world-size W: this process's shard, as "
     "DistributedSampler: images R, R + W, ... of the (shuffled) list, "
     "padded by repeating its start to ceil(N / W) each",
     .max = 1 << 20}},
    {.on_cli = 1, .spec = {.name = "world-size", .type = CM_OPT_INT,
     .value = &(long long){1}, .metavar = "W",
     .help = "processes that share the images (with --rank)", .min = 1,
     .max = 1 << 20}},
    {.on_cli = 1, .spec = {.name = "drop-last", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "as DistributedSampler's and DataLoader's drop_last: shards "
     "cut to floor(N / W) instead of padded, and a pass's short last batch "
     "left out"}},
    {.on_cli = 1, .spec = {.name = "resize", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "WxH",
     .help = "resize each image to WxH on the GPU (bilinear, pixel "
     "centres aligned as cv2.INTER_LINEAR; no antialiasing, as "
     "F.interpolate(antialias=False), unless --antialias)"}},
    {.on_cli = 1, .spec = {.name = "resize-short", .type = CM_OPT_SIZE,
     .value = SIZE_0, .metavar = "S",
     .help = "scale each image's short side to S (the other in "
     "proportion), then --crop", .min = 1, .max = (long long)TF_MAX_SIDE}},
    {.on_cli = 1, .spec = {.name = "crop", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "WxH",
     .help = "with --resize-short: the centre WxH"}},
    {.on_cli = 1, .spec = {.name = "color", .type = CM_OPT_CHOICE,
     .value = &(const char *){"gray"}, .metavar = "C",
     .help = "gray (N, H, W), or rgb planes (N, 3, H, W)",
     .choices = "gray|rgb"}},
    {.on_cli = 1, .spec = {.name = "dtype", .type = CM_OPT_CHOICE,
     .value = &(const char *){"float32"}, .metavar = "T",
     .help = "the tensor's type (uint8: the levels)",
     .choices = "float32|float16|uint8"}},
    {.on_cli = 1, .spec = {.name = "mean", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "M",
     .help = "per channel: (x / 255 - M) / S (default 0)"}},
    {.on_cli = 1, .spec = {.name = "std", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "S",
     .help = "per channel, above 0 (default 1)"}},
    {.on_cli = 1, .spec = {.name = "flip", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "mirror each image left to right, as the tutorial's cp.flip "
     "(an augmentation: not in evaluation)"}},
    {.on_cli = 1, .spec = {.name = "no-flip", .type = CM_OPT_FLAG,
     .value = &(int){0}, .help = "do not (the default)"}},
    {.on_cli = 1, .spec = {.name = "exif", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "turn each JPEG upright by its EXIF orientation before the "
     "resize (the default, as DALI's decoder; torchvision's decode_jpeg "
     "and PIL do not)"}},
    {.on_cli = 1, .spec = {.name = "no-exif", .type = CM_OPT_FLAG,
     .value = &(int){0}, .help = "take each JPEG as stored"}},
    {.on_cli = 1, .spec = {.name = "antialias", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "resize with antialiasing, exactly as Pillow's "
     "Image.resize(BILINEAR): the pixels of torchvision's Resize on PIL "
     "images (antialias=True is its default there and on tensors, where "
     "its own kernel is at most 1 level off these). The default here is "
     "the plain bilinear resize, which is faster (with --resize or "
     "--resize-short)"}},
    {.on_cli = 1, .spec = {.name = "skip-bad", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "skip (and count) files that cannot be used instead of "
     "stopping"}},
    {.on_cli = 1, .spec = {.name = "max-pixels", .type = CM_OPT_SIZE,
     .value = &(size_t){IO_DEFAULT_MAX_PIXELS}, .metavar = "N",
     .help = "refuse an image whose header claims more pixels than N",
     .min = 1}},
    {.on_cli = 1, .spec = {.name = "decoder", .type = CM_OPT_CHOICE,
     .value = &(const char *){"auto"}, .metavar = "D",
     .help = "auto: JPEGs on the GPU (nvJPEG) where it can, the rest with "
     "stb_image; gpu: the same, but stop in a build without nvJPEG; cpu: "
     "every file with stb_image", .choices = "auto|gpu|cpu"}},
    {.on_cli = 1, .spec = {.name = "nvjpeg-backend", .type = CM_OPT_CHOICE,
     .value = &(const char *){"auto"}, .metavar = "B",
     .help = "hardware decoder, GPU hybrid, or every JPEG on the hybrid "
     "path (auto's choice without the first)",
     .choices = "auto|hardware|gpu-hybrid|hybrid"}},
    {.on_cli = 1, .spec = {.name = "hybrid-share", .type = CM_OPT_STRING,
     .value = NO_TEXT, .metavar = "S",
     .help = "with the hardware decoder: send a share S (0 to 1) of each "
     "batch's JPEGs it takes to nvJPEG's hybrid path on the reader threads "
     "instead, or `auto`: a share adapted batch by batch so that both "
     "finish together (default 0: none)"}},
    {.on_cli = 1, .spec = {.name = "threads", .type = CM_OPT_INT,
     .value = INT_0, .metavar = "N",
     .help = "reader threads: read, screen and decode on the CPU (0: one "
     "per core, at most 16; with --hybrid-share one core is left to the "
     "main thread)", .max = 256}},
    {.on_cli = 1, .spec = {.name = "batch-size", .type = CM_OPT_SIZE,
     .value = SIZE_0, .metavar = "N",
     .help = "images per batch (0: by image size, 16 to 256); never "
             "more than a pass holds",
     .max = BATCH_MAX_SIZE}},
    {.on_cli = 1, .spec = {.name = "streams", .type = CM_OPT_INT,
     .value = INT_0, .metavar = "N",
     .help = "CUDA streams, batches in flight on the GPU (0: 2)",
     .max = 64}},
    {.on_cli = 1, .spec = {.name = "keep-on-gpu", .type = CM_OPT_FLAG,
     .value = &(int){0},
     .help = "keep the whole tensor on the GPU if it fits (else batch "
     "buffers in turn); nothing comes back"}},
    /* The command line's --device is every program's (common/options.c,
     * the same bounds); its folder and files are its arguments. */
    {.spec = {.name = "device", .type = CM_OPT_INT, .value = INT_0,
     .metavar = "N", .help = "CUDA device index", .max = 1023}},
    {.spec = {.name = "folder", .type = CM_OPT_STRING, .value = NO_TEXT,
     .metavar = "DIR", .help = "the image files of DIR, by name"}},
    {.spec = {.name = "file", .type = CM_OPT_STRING, .value = NO_TEXT,
     .metavar = "IMAGE", .help = "one more image file (again for each)"}},
};
enum { N_OPTIONS = sizeof OPTIONS / sizeof OPTIONS[0] };

const ib_option *ib_option_table(size_t *n)
{
    *n = N_OPTIONS;
    return OPTIONS;
}

/* What imgbatch_options_new's object owns beside the options. */
struct ib_strings {
    char **strings;            /* every string given, copied */
    size_t n_strings, cap_strings;
    const char **files;        /* the "file" options, in order */
    size_t cap_files;
};

typedef struct {
    imgbatch_options o;        /* first: the caller's pointer is to it */
    ib_strings own;
} owned_options;

/* text, or its copy kept in own. NULL when the copy cannot be made. */
static const char *keep(ib_strings *own, const char *text)
{
    if (!own)
        return text;
    if (own->n_strings == own->cap_strings) {
        size_t cap = own->cap_strings ? 2 * own->cap_strings : 8;
        char **more = (char **)realloc(own->strings, cap * sizeof *more);
        if (!more)
            return NULL;
        own->strings = more;
        own->cap_strings = cap;
    }
    size_t len = strlen(text) + 1;
    char *copy = (char *)malloc(len);
    if (!copy)
        return NULL;
    memcpy(copy, text, len);
    own->strings[own->n_strings++] = copy;
    return copy;
}

/* "0.485,0.456,0.406" (or one value, for every channel) into out[3]. */
static imgbatch_status parse_floats(const char *name, const char *text,
                                    int channels, int positive,
                                    float out[3])
{
    float v[3];
    int n = 0;
    const char *p = text;
    while (n < 3) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno || !isfinite(d) || (positive && d <= 0))
            return ib_fail(IMGBATCH_ERR_OPTIONS, "--%s: '%s' is not %s",
                           name, text,
                           positive ? "numbers above 0, joined by commas"
                                    : "numbers joined by commas");
        v[n++] = (float)d;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    if (*p != '\0' || (n != 1 && n != channels))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--%s: '%s': give one value or "
                       "%d, one per channel", name, text, channels);
    for (int c = 0; c < 3; c++)
        out[c] = v[n == 1 ? 0 : c];
    return IMGBATCH_OK;
}

/* The place of value among a choice's '|'-separated names (it is one:
 * cm_parse_value checked). */
static int choice_index(const char *choices, const char *value)
{
    size_t len = strlen(value);
    for (int k = 0; choices; k++) {
        const char *bar = strchr(choices, '|');
        size_t n = bar ? (size_t)(bar - choices) : strlen(choices);
        if (n == len && strncmp(choices, value, len) == 0)
            return k;
        choices = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* A typed value, as cm_parse_value writes it. */
typedef union {
    long long i;
    size_t z;
    const char *s;
    int flag;
} option_value;

static imgbatch_status apply(imgbatch_options *o, const cm_opt *spec,
                             const option_value *v, ib_strings *own)
{
    const char *name = spec->name;
    if (spec->type == CM_OPT_STRING) {
        const char *text = v->s;
        if (strcmp(name, "resize") == 0 || strcmp(name, "crop") == 0) {
            size_t w, h;
            if (ref_parse_dims(text, &w, &h) != 0)
                return ib_fail(IMGBATCH_ERR_OPTIONS, "--%s: '%s' is not "
                               "WIDTHxHEIGHT, e.g. 224x224", name, text);
            if (name[0] == 'c') {
                o->crop_width = w;
                o->crop_height = h;
                return IMGBATCH_OK;
            }
            if (w > TF_MAX_SIDE || h > TF_MAX_SIDE)
                return ib_fail(IMGBATCH_ERR_OPTIONS, "--resize: at most %zu "
                               "pixels a side", TF_MAX_SIDE);
            o->resize_width = w;
            o->resize_height = h;
            return IMGBATCH_OK;
        }
        if (strcmp(name, "mean") == 0)
            return parse_floats(name, text, (int)o->color, 0, o->mean);
        if (strcmp(name, "seed") == 0) {  /* decimal, 0 to 2^64 - 1 */
            errno = 0;
            unsigned long long seed = strtoull(text, NULL, 10);
            if (!*text || strspn(text, "0123456789") != strlen(text) || errno)
                return ib_fail(IMGBATCH_ERR_OPTIONS, "--seed: '%s' is not a "
                               "whole number from 0 to "
                               "18446744073709551615", text);
            o->seed = (uint64_t)seed;
            return IMGBATCH_OK;
        }
        if (strcmp(name, "std") == 0)
            return parse_floats(name, text, (int)o->color, 1, o->std);
        if (strcmp(name, "hybrid-share") == 0) {
            char *end = NULL;
            errno = 0;
            double share = strcmp(text, "auto") == 0 ? IMGBATCH_SHARE_AUTO
                                                     : strtod(text, &end);
            if (strcmp(text, "auto") != 0 &&
                (end == text || *end || errno || !(share >= 0 && share <= 1)))
                return ib_fail(IMGBATCH_ERR_OPTIONS, "--hybrid-share: '%s' "
                               "is not auto or a share from 0 to 1", text);
            o->hybrid_share = (float)share;
            return IMGBATCH_OK;
        }
        int list = strcmp(name, "list") == 0;
        int folder = strcmp(name, "folder") == 0;
        int file = strcmp(name, "file") == 0;
        if (file && !own)
            return ib_fail(IMGBATCH_ERR_OPTIONS, "--file: options from "
                           "imgbatch_options_new only");
        const char *copy = list || folder || file ? keep(own, text) : NULL;
        if ((list || folder || file) && !copy)
            return ib_fail(IMGBATCH_ERR_MEMORY, "not enough memory for "
                           "--%s", name);
        if (list) {
            o->list = copy;
            return IMGBATCH_OK;
        }
        if (folder) {
            o->folder = copy;
            return IMGBATCH_OK;
        }
        if (file) {
            if (o->n_files == own->cap_files) {
                size_t cap = own->cap_files ? 2 * own->cap_files : 16;
                const char **more = (const char **)realloc(
                    own->files, cap * sizeof *more);
                if (!more)
                    return ib_fail(IMGBATCH_ERR_MEMORY, "not enough memory "
                                   "for --file");
                own->files = more;
                own->cap_files = cap;
            }
            own->files[o->n_files++] = copy;
            o->files = own->files;
            return IMGBATCH_OK;
        }
    }
    int k = spec->type == CM_OPT_CHOICE ? choice_index(spec->choices, v->s)
                                         : 0;
    if (strcmp(name, "color") == 0)
        o->color = k ? IMGBATCH_RGB : IMGBATCH_GRAY;
    else if (strcmp(name, "dtype") == 0)
        o->dtype = (imgbatch_dtype)k;
    else if (strcmp(name, "decoder") == 0)
        o->decoder = (imgbatch_decoder)k;
    else if (strcmp(name, "nvjpeg-backend") == 0)
        o->backend = (imgbatch_backend)k;
    else if (strcmp(name, "flip") == 0 || strcmp(name, "no-flip") == 0)
        o->flip = name[0] == 'f';
    else if (strcmp(name, "exif") == 0 || strcmp(name, "no-exif") == 0)
        o->exif = name[0] == 'e';
    else if (strcmp(name, "antialias") == 0)
        o->antialias = 1;
    else if (strcmp(name, "skip-bad") == 0)
        o->skip_bad = 1;
    else if (strcmp(name, "class-folders") == 0)
        o->class_folders = 1;
    else if (strcmp(name, "shuffle") == 0)
        o->shuffle = 1;
    else if (strcmp(name, "drop-last") == 0)
        o->drop_last = 1;
    else if (strcmp(name, "rank") == 0)
        o->rank = (int)v->i;
    else if (strcmp(name, "world-size") == 0)
        o->world_size = (int)v->i;
    else if (strcmp(name, "keep-on-gpu") == 0)
        o->keep_whole = 1;
    else if (strcmp(name, "resize-short") == 0)
        o->resize_short = v->z;
    else if (strcmp(name, "max-pixels") == 0)
        o->max_pixels = v->z;
    else if (strcmp(name, "batch-size") == 0)
        o->batch_size = v->z;
    else if (strcmp(name, "threads") == 0)
        o->threads = (int)v->i;
    else if (strcmp(name, "streams") == 0)
        o->streams = (int)v->i;
    else if (strcmp(name, "device") == 0)
        o->device = (int)v->i;
    else  /* a name of the table without its field here */
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--%s: not set by this "
                       "library", name);
    return IMGBATCH_OK;
}

imgbatch_status ib_set_option(imgbatch_options *o, const char *name,
                              const char *value, ib_strings *own)
{
    if (!o || !name)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_set_option: %s is "
                       "NULL", o ? "the name" : "the options");
    const cm_opt *spec = NULL;
    for (size_t k = 0; k < N_OPTIONS && !spec; k++)
        if (strcmp(OPTIONS[k].spec.name, name) == 0)
            spec = &OPTIONS[k].spec;
    if (!spec)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "unknown option '%s'", name);
    if (spec->type == CM_OPT_FLAG && value)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--%s takes no value, got '%s'",
                       name, value);
    if (spec->type != CM_OPT_FLAG && !value)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "option '--%s' needs a value",
                       name);
    /* The command line's own parse: the same bounds, the same words. */
    option_value v;
    memset(&v, 0, sizeof v);
    cm_opt typed = *spec;
    typed.value = &v;
    char err[BATCH_ERR_LEN];
    if (cm_parse_value(&typed, value, err, sizeof err) != 0)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "%s", err);
    return apply(o, spec, &v, own);
}

imgbatch_options *imgbatch_options_new(void)
{
    owned_options *w = (owned_options *)calloc(1, sizeof *w);
    if (!w) {
        ib_fail(IMGBATCH_ERR_MEMORY, "not enough memory for the options");
        return NULL;
    }
    imgbatch_defaults(&w->o);
    return &w->o;
}

imgbatch_status imgbatch_set_option(imgbatch_options *o, const char *name,
                                    const char *value)
{
    return ib_set_option(o, name, value, o ? &((owned_options *)o)->own
                                           : NULL);
}

void imgbatch_options_free(imgbatch_options *o)
{
    if (!o)
        return;
    owned_options *w = (owned_options *)o;
    for (size_t k = 0; k < w->own.n_strings; k++)
        free(w->own.strings[k]);
    free(w->own.strings);
    free(w->own.files);
    free(w);
}

size_t imgbatch_sizeof(const char *type)
{
    if (!type)
        return 0;
    if (strcmp(type, "imgbatch_options") == 0)
        return sizeof(imgbatch_options);
    if (strcmp(type, "imgbatch_batch") == 0)
        return sizeof(imgbatch_batch);
    if (strcmp(type, "imgbatch_info") == 0)
        return sizeof(imgbatch_info);
    return 0;
}
