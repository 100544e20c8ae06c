/* batch_check.c - the checks of the batch tool's tensor against the
 * bytes it was made from and against stb_image. */
#include "batch_check.h"
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int check_level(float f)
{
    long byte = lrintf(f * 255.0f);
    return byte >= 0 && byte <= 255 && f == (float)byte / 255.0f
               ? (int)byte
               : -1;
}

int check_whole_levels(const float *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (check_level(values[i]) < 0)
            return 0;
    return 1;
}

/* A reader's item: tensor image `item` on the sampled rows. */
static void sampled_item(void *ctx, size_t item, int thread)
{
    batch_run *r = ctx;
    thread_counts *t = &r->per_thread[thread];
    size_t image = r->out_index[item], width = r->src->width, worse = 0;
    char err[BATCH_ERR_LEN];
    uint8_t *ref = malloc(r->pixels);
    if (!ref || inputs_decode(r->src, image, ref, err, sizeof err) != 0) {
        t->unreadable++;
        free(ref);
        return;
    }
    for (size_t k = 0; k < r->n_sample_rows; k++) {
        const float *row = r->h_samples +
                           (item * r->n_sample_rows + k) * width;
        const uint8_t *in = ref + r->sample_y[k] * width;
        for (size_t x = 0; x < width; x++) {
            int byte = check_level(row[x]);
            if (byte < 0) {
                t->inexact++;
                continue;
            }
            int diff = abs(byte - (int)in[width - 1 - x]);
            if (diff == 1 && r->gpu_decoded[image])
                t->one_level++;
            else if (diff != 0)
                worse++;
        }
    }
    if (worse && t->worse++ == 0)
        t->first_worse = image;
    free(ref);
}

sampled_result check_sampled(batch_run *r, size_t n_out)
{
    sampled_result s;
    memset(&s, 0, sizeof s);
    for (int th = 0; th < r->threads; th++) {
        thread_counts *t = &r->per_thread[th];
        t->one_level = t->worse = t->inexact = t->unreadable = 0;
    }
    double start = cm_now_ms();
    rp_post(r->pool, sampled_item, r, n_out);
    rp_wait(r->pool);
    s.ms = cm_now_ms() - start;
    s.pixels = n_out * r->n_sample_rows * r->src->width;
    s.first_worse = "";
    for (int th = r->threads - 1; th >= 0; th--) {
        const thread_counts *t = &r->per_thread[th];
        s.one_level += t->one_level;
        s.worse += t->worse;
        s.inexact += t->inexact;
        s.unreadable += t->unreadable;
        if (t->worse)
            s.first_worse = r->src->list->paths[t->first_worse];
    }
    return s;
}

uint64_t check_samples_hash(const batch_run *r, size_t n_out)
{
    const uint8_t *p = (const uint8_t *)r->h_samples;
    size_t n = n_out * r->n_sample_rows * r->src->width * sizeof(float);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
