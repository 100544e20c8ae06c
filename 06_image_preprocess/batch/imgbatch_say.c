/* imgbatch_say.c - what an open loader says about itself when verbose
 * (imgbatch_say.h): its files, classes, transform and order. */
#include "imgbatch_say.h"

#include <stdint.h>
#include <stdio.h>

/* "batch: 2000 images of 2000 files (0 skipped), 333 to 640 x 333 to
 * 640 pixels, checked in 2.6 ms" (ms: the files' check) */
void say_files(const path_list *list, const batch_source *src,
               size_t files, size_t skipped, double ms)
{
    size_t min_w = SIZE_MAX, max_w = 0, min_h = SIZE_MAX, max_h = 0;
    size_t turned = 0;
    for (size_t i = 0; i < list->count; i++) {
        size_t w = src->width[i], h = src->height[i];
        turned += inputs_orientation(src, i) != 1;
        min_w = w < min_w ? w : min_w;
        max_w = w > max_w ? w : max_w;
        min_h = h < min_h ? h : min_h;
        max_h = h > max_h ? h : max_h;
    }
    char unread[96] = "";
    if (list->unread)
        snprintf(unread, sizeof unread, ", %zu other file%s left out",
                 list->unread, list->unread == 1 ? "" : "s");
    char upright[80] = "";  /* sizes as stored; these turned after */
    if (turned)
        snprintf(upright, sizeof upright, ", %zu turned upright by EXIF",
                 turned);
    printf("batch: %zu images of %zu files (%zu skipped%s), %zu to %zu x "
           "%zu to %zu pixels%s, checked in %.1f ms\n", list->count,
           files, skipped, unread, min_w, max_w, min_h, max_h, upright,
           ms);
}

/* "transform: resized to 224 x 224 (bilinear, no antialiasing), RGB
 * planes, flipped left-right, float16, (x / 255 - mean) / std with
 * mean 0.485,0.456,0.406 and std 0.229,0.224,0.225" */
void say_transform(const tf_spec *s)
{
    char size[160], values[160];
    const char *how = s->antialias ? "bilinear, antialiased as Pillow's"
                                   : "bilinear, no antialiasing";
    if (s->mode == TF_SAME)
        snprintf(size, sizeof size, "every image as it is, %zu x %zu",
                 s->out_w, s->out_h);
    else if (s->mode == TF_RESIZE)
        snprintf(size, sizeof size, "resized to %zu x %zu (%s)", s->out_w,
                 s->out_h, how);
    else
        snprintf(size, sizeof size, "short side scaled to %zu, the centre "
                 "%zu x %zu (%s)", s->short_side, s->out_w, s->out_h, how);
    int plain = 1;
    for (int c = 0; c < s->channels; c++)
        plain &= s->mean[c] == 0.0f && s->std[c] == 1.0f;
    if (s->dtype == TF_UINT8)
        snprintf(values, sizeof values, "the levels x");
    else if (plain)
        snprintf(values, sizeof values, "x / 255");
    else if (s->channels == 1)
        snprintf(values, sizeof values, "(x / 255 - %g) / %g", s->mean[0],
                 s->std[0]);
    else
        snprintf(values, sizeof values, "(x / 255 - mean) / std with mean "
                 "%g,%g,%g and std %g,%g,%g", s->mean[0], s->mean[1],
                 s->mean[2], s->std[0], s->std[1], s->std[2]);
    printf("transform: %s, %s, %s, %s: %s\n", size,
           s->channels == 3 ? "RGB planes" : "gray",
           s->flip ? "flipped left-right" : "not flipped",
           tf_dtype_name(s->dtype), values);
}

/* "classes: 3 class folders of train: 0 cat (4 images), 1 dog (5
 * images), 2 fox (1 image)" (the first 8, then ", ..."), or the labels'
 * range of a labelled list. */
void say_classes(const path_list *list, const char *root)
{
    enum { SHOWN = 8 };
    if (!list->labels)
        return;
    if (!list->classes) {
        int64_t low = INT64_MAX, high = 0;
        for (size_t i = 0; i < list->count; i++) {
            low = list->labels[i] < low ? list->labels[i] : low;
            high = list->labels[i] > high ? list->labels[i] : high;
        }
        printf("labels: from the list, %lld to %lld\n", (long long)low,
               (long long)high);
        return;
    }
    printf("classes: %zu class folders of %s:", list->classes, root);
    for (size_t k = 0; k < list->classes && k < SHOWN; k++) {
        size_t n = 0;
        for (size_t i = 0; i < list->count; i++)
            n += list->labels[i] == (int64_t)k;
        printf("%s %zu %s (%zu image%s)", k ? "," : "", k,
               list->class_names[k], n, n == 1 ? "" : "s");
    }
    printf("%s\n", list->classes > SHOWN ? ", ..." : "");
}

/* "order: shuffled each pass from seed 7 (...); rank 1 of 3 as
 * DistributedSampler: 4 of the 10 images a pass, 2 repeated ..." */
void say_order(const sampler *s)
{
    const sampler_config *c = &s->c;
    printf("order: ");
    if (c->shuffle)
        printf("shuffled each pass from seed %llu (splitmix64 and "
               "Fisher-Yates: not torch's generator)",
               (unsigned long long)c->seed);
    else
        printf("the files in turn");
    if (c->world_size > 1) {
        printf("; rank %zu of %zu as DistributedSampler: %zu of the %zu "
               "images a pass", c->rank, c->world_size, s->per_rank, c->n);
        if (s->padded)
            printf(", the list padded with %zu from its start", s->padded);
        if (s->dropped)
            printf(", the list's last %zu cut (drop_last)", s->dropped);
    }
    if (s->count < s->per_rank)
        printf("; the last %zu, a short batch, left out (drop_last)",
               s->per_rank - s->count);
    printf("\n");
}
