/* batch_check.c - the check of the batch tool's tensor against stb_image
 * (batch_check.h). */
#include "batch_check.h"
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A pixel's luma from its R, G, B levels, BT.601's weights in 8-bit
 * fixed point (77 + 150 + 29 = 256), the same for both sides. */
static int luma_of(const int rgb[3])
{
    return (77 * rgb[0] + 150 * rgb[1] + 29 * rgb[2] + 128) >> 8;
}

void check_compare(const tf_spec *s, const tf_levels *t, const tf_place *p,
                   const uint8_t *planes, int n_planes, size_t src_w,
                   size_t src_h, const uint8_t *samples, check_stats *st)
{
    size_t rows = tf_sample_rows(s->out_h), elem = tf_elem_bytes(s->dtype);
    size_t plane = src_w * src_h;
    for (size_t k = 0; k < rows; k++) {
        size_t y = tf_sample_row(k, s->out_h);
        for (size_t ox = 0; ox < s->out_w; ox++) {
            /* The sample at column ox came from column x: flipped. */
            size_t x = s->flip ? s->out_w - 1 - ox : ox;
            int want[3], got[3], whole = 1;
            for (int c = 0; c < s->channels; c++) {
                const uint8_t *in =
                    planes + (n_planes > 1 ? (size_t)c * plane : 0);
                const uint8_t *row =
                    samples + (((size_t)c * rows + k) * s->out_w) * elem;
                want[c] = (int)tf_level_at(in, src_w, src_h, p, x, y);
                got[c] = tf_level_of(t, c, row + ox * elem, want[c]);
                st->values++;
                if (got[c] < 0) {
                    st->inexact++;
                    whole = 0;
                    continue;
                }
                int d = got[c] - want[c];
                st->sum += d;
                st->channel_sum[c] += d;
                st->sum_abs += (unsigned)abs(d);
                st->one_level += abs(d) == 1;
                st->worse += abs(d) > 1;
            }
            if (s->channels != 3 || !whole)
                continue;
            int d = abs(luma_of(got) - luma_of(want));
            st->luma_values++;
            st->luma_far += d > 1;
            st->luma_most = d > st->luma_most ? d : st->luma_most;
        }
    }
}

/* Writes level v of channel c as the tensor's type holds it. */
static void put_level(const tf_levels *t, int c, int v, uint8_t *at)
{
    float f = t->value[c][v];
    if (t->dtype == TF_UINT8) {
        *at = (uint8_t)v;
    } else if (t->dtype == TF_FLOAT32) {
        memcpy(at, &f, sizeof f);
    } else {
        uint16_t h = tf_float_to_half(f);
        memcpy(at, &h, sizeof h);
    }
}

void check_garble(const tf_spec *s, const tf_levels *t, uint8_t *samples,
                  size_t side, int levels)
{
    size_t rows = tf_sample_rows(s->out_h), elem = tf_elem_bytes(s->dtype);
    for (size_t k = 0; k < rows; k++) {
        if (tf_sample_row(k, s->out_h) >= side)
            continue;
        for (size_t x = 0; x < side && x < s->out_w; x++) {
            uint8_t *at[3];
            int v[3] = {0, 0, 0};
            for (int c = 0; c < s->channels; c++) {
                at[c] = samples +
                        (((size_t)c * rows + k) * s->out_w + x) * elem;
                v[c] = tf_level_of(t, c, at[c], 128);
                v[c] = v[c] < 0 ? 128 : v[c];
            }
            int luma = s->channels == 3 ? luma_of(v) : v[0];
            int step = luma < 128 ? levels : -levels;
            for (int c = 0; c < s->channels; c++) {
                int w = v[c] + step;
                put_level(t, c, w < 0 ? 0 : w > 255 ? 255 : w, at[c]);
            }
        }
    }
}

static double mean_of(long long sum, size_t n)
{
    return n ? (double)sum / (double)n : 0.0;
}

/* RGB's means: each channel's, then all of them together; none judged
 * below CHECK_RGB_MEAN_VALUES values a channel. */
static const char *rgb_means_verdict(const check_stats *st)
{
    static const char *const off[3] = {
        "red's mean difference over 1 level",
        "green's mean difference over 1 level",
        "blue's mean difference over 1 level"};
    size_t per_channel = st->values / 3;
    if (per_channel < CHECK_RGB_MEAN_VALUES)
        return NULL;
    for (int c = 0; c < 3; c++)
        if (fabs(mean_of(st->channel_sum[c], per_channel)) >
            CHECK_RGB_CHANNEL_BIAS)
            return off[c];
    return fabs(mean_of(st->sum, st->values)) > CHECK_RGB_BIAS
               ? "mean difference over 0.5 level"
               : NULL;
}

const char *check_image_verdict(const check_stats *st, int gpu,
                                int channels)
{
    if (st->inexact)
        return "a value that is the output of no level";
    if (!gpu)
        return st->one_level + st->worse ? "stb_image's own image differs "
                                           "from the reference"
                                         : NULL;
    if (channels == 3) {
        if (st->luma_most > CHECK_LUMA_MOST)
            return "a pixel's luma more than 32 levels from stb_image's";
        double far = CHECK_LUMA_FAR_SHARE * (double)st->luma_values;
        if ((double)st->luma_far >
            (far > CHECK_LUMA_FAR_FEW ? far : CHECK_LUMA_FAR_FEW))
            return "more than 2% of pixels' luma (and more than 4 "
                   "pixels') over one level apart";
        return rgb_means_verdict(st);
    }
    if (st->worse)
        return "a pixel more than one level from stb_image's";
    return fabs(mean_of(st->sum, st->values)) > CHECK_IMAGE_BIAS
               ? "mean difference over 0.5 level"
               : NULL;
}

const char *check_run_verdict(const check_stats *total, int channels)
{
    if (channels == 3)
        return rgb_means_verdict(total);
    if ((double)total->one_level >
        CHECK_ONE_LEVEL_SHARE * (double)total->values)
        return "more than 5% of pixels one level apart";
    double bias = fabs(mean_of(total->sum, total->values));
    return bias > CHECK_RUN_BIAS ? "mean difference over 0.1 level" : NULL;
}

/* Each reader thread's findings; it writes only its own. */
typedef struct {
    check_stats gpu, cpu;
    size_t checked, unreadable, corrupt, failed, first_failed, worst;
    const char *first_why;
    double worst_share;
} thread_result;

typedef struct {
    batch_run *r;
    thread_result *per_thread;
    uint8_t *corrupt;         /* by tensor image (skip_bad) */
    const char **corrupt_why; /* and why */
} check_job;

/* With --skip-bad: the reasons a file is left out by the check. */
static const char NOT_DECODABLE[] =
    "the GPU decoded it without an error, stb_image cannot";
static const char DECODED_APART[] =
    "the GPU decoded it without an error, stb_image differently (a "
    "corrupt scan both decode, each its own way)";

static void add(check_stats *to, const check_stats *s)
{
    to->values += s->values;
    to->one_level += s->one_level;
    to->worse += s->worse;
    to->inexact += s->inexact;
    to->sum += s->sum;
    to->sum_abs += s->sum_abs;
    for (int c = 0; c < 3; c++)
        to->channel_sum[c] += s->channel_sum[c];
    to->luma_values += s->luma_values;
    to->luma_far += s->luma_far;
    to->luma_most = s->luma_most > to->luma_most ? s->luma_most
                                                 : to->luma_most;
}

/* A reader's item: pick `pick`, a tensor image, on its sampled rows. */
static void sampled_item(void *ctx, size_t pick, int thread)
{
    check_job *job = (check_job *)ctx;
    batch_run *r = job->r;
    thread_result *t = &job->per_thread[thread];
    size_t item = r->check_out[pick];
    if (item == SIZE_MAX)  /* its file was skipped in the pass */
        return;
    t->checked++;
    size_t image = r->out_index[item];
    size_t w = r->src->width[image], h = r->src->height[image];
    int gpu = r->gpu_decoded[image];
    char err[BATCH_ERR_LEN];
    const char *why = NULL;
    tf_place p;
    check_stats st;
    memset(&st, 0, sizeof st);
    uint8_t *ref = (uint8_t *)malloc((size_t)r->src->channels * w * h);
    if (!ref || tf_place_oriented(r->spec, w, h,
                                  inputs_orientation(r->src, image),
                                  &p) != 0) {
        t->unreadable++;
        why = "not enough memory to decode it again";
    } else if (inputs_decode(r->src, image, ref, err, sizeof err) != 0) {
        /* A corrupt scan the GPU decoder did not report. */
        if (r->o->skip_bad) {
            job->corrupt[item] = 1;
            job->corrupt_why[item] = NOT_DECODABLE;
            t->corrupt++;
        } else {
            t->unreadable++;
            why = gpu ? "corrupt: stb_image cannot decode it, nvJPEG did "
                        "not say so"
                      : "stb_image cannot decode it again";
        }
    } else {
        check_compare(r->spec, &r->levels, &p, ref, r->src->channels, w, h,
                      r->h_samples + pick * r->sample_bytes, &st);
        why = check_image_verdict(&st, gpu, r->spec->channels);
        /* Scan data garbled, its markers whole: nvJPEG's
         * hardware decoder reports no error, stb_image may decode it
         * too, and each makes its own pixels of the nonsense. With
         * --skip-bad the file is left out, and the sums below are of
         * the images kept. (Values of no level are no file's fault.) */
        if (why && gpu && !st.inexact && r->o->skip_bad) {
            job->corrupt[item] = 1;
            job->corrupt_why[item] = DECODED_APART;
            t->corrupt++;
            free(ref);
            return;
        }
        add(gpu ? &t->gpu : &t->cpu, &st);
        double share = st.values ? (double)st.one_level / st.values : 0;
        if (gpu && share > t->worst_share) {
            t->worst_share = share;
            t->worst = item;
        }
    }
    free(ref);
    if (why && (t->failed++ == 0 || item < t->first_failed)) {
        t->first_failed = item;
        t->first_why = why;
    }
}

sampled_result check_sampled(batch_run *r, size_t n_out)
{
    sampled_result s;
    memset(&s, 0, sizeof s);
    s.first_failed = s.worst = "";
    size_t n = n_out ? n_out : 1;
    check_job job = {r, (thread_result *)calloc((size_t)r->threads,
                                                sizeof(thread_result)),
                     (uint8_t *)calloc(n, 1),
                     (const char **)calloc(n, sizeof(const char *))};
    if (!job.per_thread || !job.corrupt || !job.corrupt_why) {
        free(job.per_thread);
        free(job.corrupt);
        free(job.corrupt_why);
        s.failed = s.unreadable = n_out;
        s.first_why = "not enough memory for the check";
        return s;
    }
    double start = cm_now_ms();
    rp_post(r->pool, sampled_item, &job, r->n_checked);
    rp_wait(r->pool);
    s.ms = cm_now_ms() - start;
    size_t first = n_out;
    for (int th = 0; th < r->threads; th++) {
        const thread_result *t = &job.per_thread[th];
        add(&s.gpu, &t->gpu);
        add(&s.cpu, &t->cpu);
        s.checked += t->checked;
        s.unreadable += t->unreadable;
        s.n_corrupt += t->corrupt;
        s.failed += t->failed;
        if (t->failed && t->first_failed < first) {
            first = t->first_failed;
            s.first_why = t->first_why;
        }
        if (t->worst_share > s.worst_share) {
            s.worst_share = t->worst_share;
            s.worst = r->src->list->paths[r->out_index[t->worst]];
        }
    }
    if (first < n_out)
        s.first_failed = r->src->list->paths[r->out_index[first]];
    s.run_why = check_run_verdict(&s.gpu, r->spec->channels);
    free(job.per_thread);
    if (s.n_corrupt) {
        s.corrupt = job.corrupt;
        s.corrupt_why = job.corrupt_why;
    } else {
        free(job.corrupt);
        free(job.corrupt_why);
    }
    return s;
}

/* 1 if every element of a tensor image is the output of some level. */
static int whole_levels(const batch_run *r, const uint8_t *image)
{
    size_t plane = r->spec->out_w * r->spec->out_h;
    size_t elem = tf_elem_bytes(r->spec->dtype);
    for (int c = 0; c < r->spec->channels; c++)
        for (size_t i = 0; i < plane; i++)
            if (tf_level_of(&r->levels, c,
                            image + ((size_t)c * plane + i) * elem, 0) < 0)
                return 0;
    return 1;
}

/* A reader's item: tensor image `pos` of a batch that came back, every
 * element. One the CPU decoded must be exactly what transform_ref.c makes
 * of the planes it was made from, still in the batch's staging; one a
 * GPU path decoded (its planes never came back) must hold outputs of
 * whole levels. What the GPU decoders made is checked against stb_image
 * afterwards (batch_check.c). */
void check_back_item(void *ctx, size_t pos, int thread)
{
    batch_buf *x = (batch_buf *)ctx;
    batch_run *r = x->run;
    thread_counts *t = &r->per_thread[thread];
    double start = cm_now_ms();
    size_t j = x->item_of[pos], image = x->image[j];
    const uint8_t *out = (const uint8_t *)x->h_out + pos * r->image_bytes;
    int bad;
    if (x->how[j] == ROUTE_CPU) {
        uint8_t *ref = (uint8_t *)malloc(r->image_bytes);
        tf_place p;
        size_t w = r->src->width[image], h = r->src->height[image];
        bad = !ref || tf_place_oriented(r->spec, w, h,
                                        inputs_orientation(r->src, image),
                                        &p) != 0;
        if (!bad) {
            tf_image_ref(r->spec, &p, x->h_staging + x->slot[j],
                         x->planes[j], w, h, ref);
            bad = memcmp(ref, out, r->image_bytes) != 0;
        }
        free(ref);
    } else {
        bad = !whole_levels(r, out);
    }
    t->back_images++;
    if (bad && t->back_bad++ == 0)
        t->back_first_bad = image;
    t->check_ms += cm_now_ms() - start;
}

int check_samples_repeat(const batch_run *r, uint64_t *by_file,
                         uint8_t *seen)
{
    int same = 1;
    for (size_t k = 0; k < r->n_checked; k++) {
        if (r->check_out[k] == SIZE_MAX)
            continue;
        const uint8_t *p = r->h_samples + k * r->sample_bytes;
        size_t file = r->out_index[r->check_out[k]];
        /* by the route that decoded it: the two GPU paths need not give
         * the same bits, and the split may send a file either way */
        int route = r->check_route[k] - ROUTE_CPU;
        if (route < 0 || route >= CHECK_ROUTES)
            continue;
        size_t at = file * CHECK_ROUTES + (size_t)route;
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < r->sample_bytes; i++)
            h = (h ^ p[i]) * 1099511628211ull;
        int kept = (seen[file] >> route) & 1;
        same &= !kept || by_file[at] == h;
        by_file[at] = h;
        seen[file] = (uint8_t)(seen[file] | 1u << route);
    }
    return same;
}

uint8_t *check_samples_of(const batch_run *r, size_t image)
{
    for (size_t k = 0; k < r->n_checked; k++)
        if (r->check_out[k] == image)
            return r->h_samples + k * r->sample_bytes;
    return NULL;
}

size_t check_pick_count(size_t n, size_t bound)
{
    return bound == 0 || n <= bound ? n : bound;
}

/* splitmix64's finaliser: a well-mixed hash of x. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

size_t check_pick_position(size_t n, size_t count, size_t k)
{
    /* Stretch k: [k n / count, (k + 1) n / count), without k n (which
     * could overflow): k q + k rem / count, rem < count. */
    size_t q = n / count, rem = n % count;
    size_t start = k * q + k * rem / count;
    size_t end = (k + 1) * q + (k + 1) * rem / count;
    if (k == 0)
        return 0;
    if (k + 1 == count)
        return n - 1;
    return start + (size_t)(mix64(mix64(n) ^ k) % (end - start));
}
