/* batch_check.c - the check of the batch tool's tensor against stb_image
 * (batch_check.h). */
#include "batch_check.h"
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void check_compare(const tf_spec *s, const tf_levels *t, const tf_place *p,
                   const uint8_t *planes, int n_planes, size_t src_w,
                   size_t src_h, const uint8_t *samples, check_stats *st)
{
    size_t rows = tf_sample_rows(s->out_h), elem = tf_elem_bytes(s->dtype);
    size_t plane = src_w * src_h;
    for (int c = 0; c < s->channels; c++) {
        const uint8_t *in = planes + (n_planes > 1 ? (size_t)c * plane : 0);
        for (size_t k = 0; k < rows; k++) {
            size_t y = tf_sample_row(k, s->out_h);
            const uint8_t *row =
                samples + (((size_t)c * rows + k) * s->out_w) * elem;
            for (size_t ox = 0; ox < s->out_w; ox++) {
                /* The sample at column ox came from column x: flipped. */
                size_t x = s->flip ? s->out_w - 1 - ox : ox;
                int want = (int)tf_level_at(in, src_w, src_h, p, x, y);
                int got = tf_level_of(t, c, row + ox * elem, want);
                st->values++;
                if (got < 0) {
                    st->inexact++;
                    continue;
                }
                int d = got - want;
                st->sum += d;
                st->sum_abs += (unsigned)abs(d);
                st->one_level += abs(d) == 1;
                st->worse += abs(d) > 1;
            }
        }
    }
}

static double mean_of(long long sum, size_t n)
{
    return n ? (double)sum / (double)n : 0.0;
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
        if ((double)st->sum_abs > CHECK_RGB_MEAN_ABS * (double)st->values)
            return "mean absolute difference over 2 levels";
        return fabs(mean_of(st->sum, st->values)) > CHECK_RGB_BIAS
                   ? "mean difference over 0.5 level"
                   : NULL;
    }
    if (st->worse)
        return "a pixel more than one level from stb_image's";
    return fabs(mean_of(st->sum, st->values)) > CHECK_IMAGE_BIAS
               ? "mean difference over 0.5 level"
               : NULL;
}

const char *check_run_verdict(const check_stats *total, int channels)
{
    double bias = fabs(mean_of(total->sum, total->values));
    if (channels == 3)
        return bias > CHECK_RGB_BIAS ? "mean difference over 0.5 level"
                                     : NULL;
    if ((double)total->one_level >
        CHECK_ONE_LEVEL_SHARE * (double)total->values)
        return "more than 5% of pixels one level apart";
    return bias > CHECK_RUN_BIAS ? "mean difference over 0.1 level" : NULL;
}

/* Each reader thread's findings; it writes only its own. */
typedef struct {
    check_stats gpu, cpu;
    size_t unreadable, corrupt, failed, first_failed, worst;
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
}

/* A reader's item: tensor image `item` on its sampled rows. */
static void sampled_item(void *ctx, size_t item, int thread)
{
    check_job *job = (check_job *)ctx;
    batch_run *r = job->r;
    thread_result *t = &job->per_thread[thread];
    size_t image = r->out_index[item];
    size_t w = r->src->width[image], h = r->src->height[image];
    int gpu = r->gpu_decoded[image];
    char err[BATCH_ERR_LEN];
    const char *why = NULL;
    tf_place p;
    check_stats st;
    memset(&st, 0, sizeof st);
    uint8_t *ref = (uint8_t *)malloc((size_t)r->src->channels * w * h);
    if (!ref || tf_place_image(r->spec, w, h, &p) != 0) {
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
                      r->h_samples + item * r->sample_bytes, &st);
        why = check_image_verdict(&st, gpu, r->spec->channels);
        /* Scan data zeroed or garbled, its markers whole: nvJPEG's
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
    rp_post(r->pool, sampled_item, &job, n_out);
    rp_wait(r->pool);
    s.ms = cm_now_ms() - start;
    size_t first = n_out;
    for (int th = 0; th < r->threads; th++) {
        const thread_result *t = &job.per_thread[th];
        add(&s.gpu, &t->gpu);
        add(&s.cpu, &t->cpu);
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
    size_t j = x->item_of[pos], image = x->first + j;
    const uint8_t *out = (const uint8_t *)x->h_out + pos * r->image_bytes;
    int bad;
    if (x->how[j] == ROUTE_CPU) {
        uint8_t *ref = (uint8_t *)malloc(r->image_bytes);
        tf_place p;
        size_t w = r->src->width[image], h = r->src->height[image];
        bad = !ref || tf_place_image(r->spec, w, h, &p) != 0;
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

uint64_t check_samples_hash(const batch_run *r, size_t n_out)
{
    const uint8_t *p = r->h_samples;
    size_t n = n_out * r->sample_bytes;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
