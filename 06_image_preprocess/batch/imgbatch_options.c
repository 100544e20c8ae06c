/* imgbatch_options.c - the loader's options (imgbatch.h): their
 * defaults, their checks and the tensor they ask for (no GPU, so the
 * CPU tests reach them), and the reason of the last failure. */
#include "pipeline.h"
#include "../image_io.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char failure[1536];

const char *imgbatch_failure_reason(void) { return failure; }

imgbatch_status ib_fail(imgbatch_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
    return st;
}

void imgbatch_defaults(imgbatch_options *o)
{
    memset(o, 0, sizeof *o);
    o->color = IMGBATCH_GRAY;
    o->dtype = IMGBATCH_FLOAT32;
    for (int c = 0; c < 3; c++)
        o->std[c] = 1.0f;
    o->flip = 0;
    o->exif = 1;
    o->max_pixels = IO_DEFAULT_MAX_PIXELS;
    o->world_size = 1;
}

imgbatch_status ib_check_options(const imgbatch_options *o, tf_spec *s)
{
    int sources = !!o->folder + !!o->files + !!o->list;
    int resize = o->resize_width || o->resize_height;
    int crop = o->resize_short || o->crop_width || o->crop_height;
    memset(s, 0, sizeof *s);
    if (sources != 1)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "give one of a folder, files or "
                    "a list of them");
    if (o->class_folders && !o->folder)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "class_folders takes folder: "
                    "the folder that holds one folder per class");
    if (o->rank < 0 || o->world_size < 0 ||
        o->rank >= (o->world_size ? o->world_size : 1))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "rank %d is not in 0 .. "
                    "world_size - 1 (world_size %d)", o->rank,
                    o->world_size);
    if (o->color != IMGBATCH_GRAY && o->color != IMGBATCH_RGB)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "color is gray or rgb");
    if ((unsigned)o->dtype > IMGBATCH_UINT8 ||
        (unsigned)o->decoder > IMGBATCH_DECODER_CPU ||
        (unsigned)o->backend > IMGBATCH_BACKEND_HYBRID)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "unknown dtype, decoder or "
                    "backend");
    if (resize && (!o->resize_width || !o->resize_height))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "a resize needs a width and a "
                    "height");
    if (crop && (!o->resize_short || !o->crop_width || !o->crop_height))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--resize-short S goes with "
                    "--crop WxH");
    if (resize && crop)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--resize or --resize-short "
                    "with --crop, not both");
    if (o->antialias && !resize && !crop)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "%s", IB_ANTIALIAS_ALONE);
    if (crop && (o->crop_width > o->resize_short ||
                 o->crop_height > o->resize_short))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--crop %zux%zu is larger than "
                    "the short side %zu", o->crop_width, o->crop_height,
                    o->resize_short);
    size_t sides[4] = {o->resize_width, o->resize_height, o->resize_short,
                       0};
    for (int k = 0; k < 3; k++)
        if (sides[k] > TF_MAX_SIDE)
            return ib_fail(IMGBATCH_ERR_OPTIONS, "%zu: more than the %zu "
                        "pixels a side the batch tool takes", sides[k],
                        TF_MAX_SIDE);
    int plain = 1;
    for (int c = 0; c < 3; c++) {
        if (!isfinite(o->mean[c]) || !isfinite(o->std[c]) || o->std[c] <= 0)
            return ib_fail(IMGBATCH_ERR_OPTIONS, "mean must be finite and std "
                        "finite and above 0");
        plain &= o->mean[c] == 0.0f && o->std[c] == 1.0f;
    }
    if (o->dtype == IMGBATCH_UINT8 && !plain)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--mean and --std do nothing with "
                    "--dtype uint8 (its values are the levels)");
    if (o->batch_size > BATCH_MAX_SIZE || o->streams < 0 ||
        o->streams > 64 || o->threads < 0 || o->threads > 256)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "batch size at most %d, streams "
                    "0 to 64, threads 0 to 256", BATCH_MAX_SIZE);
    if (o->backend != IMGBATCH_BACKEND_AUTO &&
        o->decoder == IMGBATCH_DECODER_CPU)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "an nvJPEG backend does nothing "
                    "with --decoder cpu");
    if (!(o->hybrid_share <= 1.0f) || !isfinite(o->hybrid_share))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "hybrid_share is a share from 0 "
                    "to 1, or below 0 for an adapted one");
    if (o->hybrid_share != 0.0f && o->decoder == IMGBATCH_DECODER_CPU)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--hybrid-share does nothing "
                    "with --decoder cpu");
    if (o->hybrid_share != 0.0f &&
        (o->backend == IMGBATCH_BACKEND_GPU_HYBRID ||
         o->backend == IMGBATCH_BACKEND_HYBRID))
        return ib_fail(IMGBATCH_ERR_OPTIONS, "--hybrid-share shares the "
                    "hardware decoder's files: not with --nvjpeg-backend %s",
                    o->backend == IMGBATCH_BACKEND_HYBRID ? "hybrid"
                                                          : "gpu-hybrid");
    s->mode = crop ? TF_SHORT_CROP : resize ? TF_RESIZE : TF_SAME;
    s->out_w = crop ? o->crop_width : o->resize_width;
    s->out_h = crop ? o->crop_height : o->resize_height;
    s->short_side = o->resize_short;
    s->channels = (int)o->color;
    s->dtype = (tf_dtype)o->dtype;
    memcpy(s->mean, o->mean, sizeof s->mean);
    memcpy(s->std, o->std, sizeof s->std);
    s->flip = o->flip;
    s->antialias = o->antialias;
    return IMGBATCH_OK;
}

