/* batch_check.h - the batch tool's checks of the tensor (batch_check.c):
 * while the passes run, every value of every batch that comes back;
 * after them, the sampled rows (one in every 8, tf_sample_row) of a
 * bounded set of images spread over the pass (check_pick_*: at most
 * --check-images of them, every one in a smaller pass) against
 * stb_image decoding their files again and transform_ref.c making them
 * into tensor images, with rules that a decoder off by one level
 * everywhere cannot pass. The library checks nothing of this: the CLI
 * asks for it (pipeline_check_start).
 *
 *   check_stats st = {0};
 *   check_compare(&spec, &levels, &place, planes, n_planes, w, h,
 *                 samples, &st);                       one image
 *   const char *why = check_image_verdict(&st, gpu, channels);
 *   sampled_result s = check_sampled(&run, n_out);     the picked ones
 *   check_samples_repeat(&run, by_file, seen);         same every pass?
 */
#ifndef BATCH_CHECK_H
#define BATCH_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rules for an image a GPU path decoded (stb_image's own images must
 * match exactly: the same decoder, the same arithmetic).
 *
 * Gray: two JPEG decoders round their inverse DCTs differently, so a
 * pixel may be one level apart, never more (the bilinear weights sum to
 * one and both sides round the same way, so a resize keeps that). How
 * many may be: the IEEE 1180 accuracy test that JPEG's IDCTs follow
 * bounds each decoder's mean square error to 0.02 a pixel, at most 2% of
 * pixels one level off; two decoders, 4%; we allow 5% over the run
 * (CHECK_ONE_LEVEL_SHARE). Their errors have no sign (IEEE 1180: a mean
 * error under 0.0015), so the mean signed difference must stay within
 * 0.1 level over the run and 0.5 in any one image. A decoder that adds 1
 * to every pixel breaks all three.
 *
 * RGB: the two also convert YCbCr to RGB and upsample the chroma their
 * own ways (stb_image interpolates the chroma, nvJPEG's default not),
 * so a value may be far off at colour edges: how far on average depends
 * on how many edges an image has for its size (a 37 x 23 fixture full of
 * them, decoded by libjpeg without interpolation and by stb_image: a
 * mean |difference| of 2.50 levels, each channel's mean difference
 * within 0.21, no pixel's luma more than 1 apart). Upsampling moves a
 * value about its neighbours' mean, not the channel's, so chroma gets
 * only means: each channel's mean signed difference within 1 level, all
 * of them together within 0.5. A mean of few values says little: the
 * same two decoders on the tests' JPEGs and 300 wild ones, at seven
 * tensor sizes, put a channel's mean up to 4.8 levels off over 9 values
 * (9 x 7's one sampled row), 2.9 over 32, 1.9 over 128, 1.04 over 960
 * and 0.51 over 6272 (224 x 224's sampled rows). So the means are judged
 * over at least 4096 values a channel (CHECK_RGB_MEAN_VALUES): an
 * image's when its sampled rows hold that many, and the run's sums of
 * the GPU-decoded images checked, when they do. Local damage hides under
 * those means, so each pixel's luma, computed alike from both sides'
 * levels, is held closer: the colour conversion cancels in it (0.299 x
 * 1.402 and 0.587 x 0.71414 for Cr, 0.114 x 1.772 and 0.587 x 0.34414
 * for Cb agree to 5 decimals), leaving the IDCTs' level and the
 * roundings of R, G and B, except where one side clamps a channel the
 * other does not (saturated colour at an edge). Modelled by stb_image
 * against itself with chroma repeated and its IDCT rounding shifted, on
 * 99 of the tests' JPEGs at their own size: unclamped pixels' luma
 * within 2 levels, clamping's worst 18; at most 0.42% of an image's
 * pixels more than one level apart (1.9% with an IDCT off by one level
 * on 15% of pixels, several times what IEEE 1180 allows). So no pixel's
 * luma more than 32 levels apart, and at most 2% of an image's pixels
 * more than one level apart, or 4 where that is more (a small image's
 * few sampled pixels: libjpeg and stb_image as above had 2 of 32 and 1
 * of 9). A decoder that garbles 3% of an image by 50 levels breaks both;
 * one 16 x 16 block of a large image, the first. */
#define CHECK_ONE_LEVEL_SHARE 0.05
#define CHECK_RUN_BIAS 0.1
#define CHECK_IMAGE_BIAS 0.5
#define CHECK_RGB_CHANNEL_BIAS 1.0
#define CHECK_RGB_BIAS 0.5
#define CHECK_RGB_MEAN_VALUES 4096
#define CHECK_LUMA_MOST 32
#define CHECK_LUMA_FAR_SHARE 0.02
#define CHECK_LUMA_FAR_FEW 4

/* The images the CLI decodes again by default (--check-images): a
 * decoder that spoils one image in 200 escapes 1024 picks with odds of
 * 0.6%, and one off everywhere fails on every image; the check then
 * costs 1024 stb_image decodes (3.7 ms each for the wild corpus in RGB
 * on one core of a Xeon: about 0.24 s on 16 threads, where 100,000
 * files took 23 s) and 1024 images' sampled rows of pinned memory (39
 * MB for 3 x 224 x 224 float16), whatever the number of files. */
#define CHECK_IMAGES_DEFAULT 1024

/* How many of a pass's n images the check takes with a bound of
 * `bound` (0: no bound): all n when n <= bound, else bound. */
size_t check_pick_count(size_t n, size_t bound);

/* The pass position of pick k (0 <= k < count, count from
 * check_pick_count): the pass cut into count stretches as equal as can
 * be, one image from each, at a place in it that a hash of n and k
 * picks (any image of a pass may be picked, and a run picks the same
 * ones again); the first stretch's first image and the last one's last,
 * so that the pass's ends are always checked. Increasing in k; k itself
 * when count == n. */
size_t check_pick_position(size_t n, size_t count, size_t k);

/* What a comparison found: differences in levels, tensor minus
 * reference. */
typedef struct {
    size_t values;            /* compared */
    size_t one_level;         /* |difference| 1 */
    size_t worse;             /* |difference| over 1 */
    size_t inexact;           /* values that are no level's output */
    long long sum;            /* of the differences */
    long long channel_sum[3]; /* of each channel's (RGB) */
    unsigned long long sum_abs;
    /* RGB: each pixel's luma from its levels, both sides alike */
    size_t luma_values;       /* pixels compared (every channel a level) */
    size_t luma_far;          /* luma more than one level apart */
    int luma_most;            /* the largest luma difference */
} check_stats;

/* The check's test hook: tensor image samples (one image's sampled
 * rows, as check_compare takes them) garbled as a decoder that spoils one
 * MCU would: in the block of side x side pixels at its top left corner,
 * every channel of a pixel moved `levels` levels towards the far end of
 * the range (up where the pixel's luma is below 128, else down; clamped
 * to 0..255). imgbatch applies it to one image when IMGBATCH_TEST_GARBLE
 * names it (tests only). */
void check_garble(const tf_spec *s, const tf_levels *t, uint8_t *samples,
                  size_t side, int levels);

/* Adds to st the comparison of one tensor image's sampled rows (samples:
 * channels x rows x out_w elements, as launch_gather_samples packs them)
 * with what transform_ref.c makes of planes (n_planes planes of src_w x
 * src_h, placed by p). */
void check_compare(const tf_spec *s, const tf_levels *t, const tf_place *p,
                   const uint8_t *planes, int n_planes, size_t src_w,
                   size_t src_h, const uint8_t *samples, check_stats *st);

/* NULL if one image's comparison keeps the rules (gpu: a GPU path
 * decoded it; channels: 1 or 3), else the rule it broke. */
const char *check_image_verdict(const check_stats *st, int gpu,
                                int channels);

/* NULL if the run's GPU-decoded images, summed, keep the rules. */
const char *check_run_verdict(const check_stats *total, int channels);

/* What the check found over the images it took. */
typedef struct {
    size_t checked;           /* images compared (or found unreadable) */
    check_stats gpu, cpu;     /* summed over the images of each path */
    size_t unreadable;        /* images stb_image could not decode again */
    /* With skip_bad, such a file is corrupt (nvJPEG's hardware decoder
     * does not report every corrupt scan): not a failure but skipped;
     * so is a GPU-decoded image that breaks a rule of its own (a corrupt
     * scan that stb_image decodes too, each decoder its own way). Those
     * images count in no sum here. corrupt[i] is 1 for tensor image i,
     * corrupt_why[i] the reason (a string constant); both NULL if none;
     * free() them. */
    uint8_t *corrupt;
    const char **corrupt_why;
    size_t n_corrupt;
    size_t failed;            /* images that broke a rule (or unreadable) */
    const char *first_failed; /* the first of those in the tensor: path */
    const char *first_why;    /* and its rule */
    const char *worst;        /* the GPU image with the largest share of */
    double worst_share;       /* one-level differences, and that share */
    const char *run_why;      /* the rule the run's sums broke, or NULL */
    double ms;
} sampled_result;

/* The picked tensor images (r->check_out: the tensor index of each pick
 * that the tensor got; r->out_index says which file each is, n_out in
 * the tensor), on their sampled rows, against stb_image decoding the
 * file again (as
 * gray: a YCbCr JPEG's Y plane as it is, which NVJPEG_OUTPUT_Y also is;
 * as RGB: its conversion). On the reader threads; untimed. A file it
 * cannot decode is a failure, or with r->o->skip_bad one in corrupt. */
sampled_result check_sampled(batch_run *r, size_t n_out);

/* A reader's item (pipeline.cu posts it when a batch that came back is
 * finished): tensor image pos of the batch buffer ctx, every value. One
 * the CPU decoded must be exactly what transform_ref.c makes of the
 * planes it was made from, still in the batch's staging; one a GPU path
 * decoded (its planes never came back) must hold outputs of whole
 * levels. Counted in the thread's thread_counts. */
void check_back_item(void *ctx, size_t pos, int thread);

/* The routes a file's rows are kept for: stb_image, nvJPEG's batched
 * decoder, its hybrid path (ROUTE_CPU on, in decoder.h's order). */
enum { CHECK_ROUTES = 3 };

/* FNV-1a over each picked tensor image's sampled rows, kept by file and
 * the route that decoded it in by_file (list->count * CHECK_ROUTES of
 * them; seen[file], list->count of them zeroed before the first pass:
 * bit k set once route k's are kept): 1 if every file's rows are those
 * it had before from the same route, in this pass and earlier ones,
 * whatever its place in the order; 0 if not, and the decode is not
 * repeatable. */
int check_samples_repeat(const batch_run *r, uint64_t *by_file,
                         uint8_t *seen);

/* The sampled rows of tensor image `image` if the check picked it in
 * this pass, else NULL. */
uint8_t *check_samples_of(const batch_run *r, size_t image);

#ifdef __cplusplus
}
#endif

#endif /* BATCH_CHECK_H */
