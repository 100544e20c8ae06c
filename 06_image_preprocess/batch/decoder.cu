/* decoder.cu - the two decoders behind decoder.h: where each file goes,
 * and the calls that decode it there (nvjpeg_decoder.cu for nvJPEG,
 * batch_inputs.c for stb_image). */
#include <stdio.h>
#include <stdlib.h>

#include "decoder.h"
#include "lib_support.h"

struct decoder {
    const batch_source *src;
    nj_engine *engine;         /* NULL: every file to stb_image */
    const char *cpu_why;       /* then, why (for the routed: line) */
    const char *batchless_why; /* why no batched decoder, if none */
    /* the hybrid path's failures (those files went to stb_image): the
     * count, and the first one's image and reason, kept by the thread
     * that counted 1 */
    size_t hybrid_failures, hybrid_failed_image;
    char hybrid_why[256];
    int failures_said;
};

/* The routes of files the batched decoder did not take. */
static const char HYBRID_FAILED[] = "nvJPEG's hybrid path failed on it";
static const char HYBRID_BACKEND[] = "--nvjpeg-backend hybrid";
static const char NO_ENGINE[] = "no hardware JPEG decoder";
static const char NO_ENGINE_EMULATED[] =
    "IMGBATCH_EMULATE_NO_ENGINE=1: no hardware JPEG decoder";

decoder *decoder_open(const decoder_config *cfg, int *fatal, char *why,
                      size_t why_len)
{
    *fatal = 1;
    decoder *d = (decoder *)ib_calloc(1, sizeof *d);
    if (!d) {
        snprintf(why, why_len, "not enough memory for the decoder");
        return NULL;
    }
    *fatal = 0;
    d->src = cfg->src;
    d->cpu_why = cfg->plan->cpu_why ? cfg->plan->cpu_why : "no GPU decoder";
    if (!cfg->plan->try_nvjpeg)
        return d;
    nj_config nc = {.max_batch = cfg->max_batch,
                    .max_width = cfg->max_width,
                    .max_height = cfg->max_height,
                    .n_parsers = cfg->threads, .n_states = cfg->states,
                    .rgb = cfg->src->channels == 3,
                    .backend = cfg->backend, .verbose = cfg->verbose};
    char reason[256];
    reason[0] = '\0';
    d->engine = nj_open(&nc, fatal, reason, sizeof reason);
    if (!d->engine && (*fatal || cfg->backend != NJ_BACKEND_AUTO)) {
        snprintf(why, why_len, "%s", reason);
        free(d);
        return NULL;
    }
    if (!d->engine) {
        if (cfg->verbose)
            printf("decoder: %s; every file decoded on the CPU\n", reason);
        d->cpu_why = "no GPU decoder";
    }
    /* No batched decoder: asked for, or auto on a GPU without an engine */
    d->batchless_why = cfg->backend == NJ_BACKEND_HYBRID ? HYBRID_BACKEND
                       : nj_emulate_no_engine()          ? NO_ENGINE_EMULATED
                                                         : NO_ENGINE;
    return d;
}

const char *decoder_describe(const decoder *d)
{
    return d->engine ? nj_describe(d->engine) : "stb_image on the CPU";
}

/* nvJPEG's hybrid path on a file; 0 done, -1 (counted) not. */
static int hybrid(decoder *d, int thread, size_t image, const uint8_t *bits,
                  size_t len, uint8_t *d_slot, int planes)
{
    nj_dest dest = {d_slot, d->src->width[image], d->src->height[image]};
    char failed[256];
    if (nj_hybrid_decode(d->engine, thread, bits, len, &dest, planes,
                         failed, sizeof failed) == 0)
        return 0;
    if (__atomic_add_fetch(&d->hybrid_failures, 1, __ATOMIC_RELAXED) == 1) {
        d->hybrid_failed_image = image;
        snprintf(d->hybrid_why, sizeof d->hybrid_why, "%s", failed);
    }
    return -1;
}

/* ROUTE_BAD with err if a decoder found a frame of w x h in image's
 * bytes, not the size it was checked at: the file changed since, and
 * its planes would not fit their slot. */
static int changed(const decoder *d, size_t image, size_t w, size_t h,
                   char *err, size_t err_len)
{
    size_t was_w = d->src->width[image], was_h = d->src->height[image];
    if (w == was_w && h == was_h)
        return 0;
    snprintf(err, err_len, "%s: %zu x %zu, but %zu x %zu when it was "
             "checked: changed since", d->src->list->paths[image], w, h,
             was_w, was_h);
    return 1;
}

int decoder_can_split(const decoder *d)
{
    return d->engine && nj_batched(d->engine) && nj_hardware(d->engine) &&
           nj_hybrid_ready(d->engine);
}

route decoder_file(decoder *d, int thread, size_t image,
                   const uint8_t *bits, size_t len, int to_hybrid,
                   uint8_t *h_slot, uint8_t *d_slot, int *planes,
                   const char **why, char *err, size_t err_len)
{
    int channels = d->src->channels;
    *why = d->cpu_why;
    *planes = channels;
    if (d->engine) {
        /* Our header walk first (it names what it refuses), then nvJPEG's
         * own verdict: one refused file would fail its whole batch. The
         * frame's size, in our walk and in nvJPEG's parse, must be the
         * one its slot was made for. */
        js_header h;
        *why = js_screen(bits, len, &h);
        size_t w, ht;
        if (h.sof && changed(d, image, h.width, h.height, err, err_len))
            return ROUTE_BAD;
        /* A gray JPEG of an RGB run: its Y plane, repeated by the
         * kernel. */
        int gpu_planes = channels == 3 && h.components == 1 ? 1 : channels;
        if (!*why && !nj_batched(d->engine))
            *why = d->batchless_why;
        else if (!*why)
            *why = nj_screen(d->engine, thread, bits, len);
        if (!*why && nj_parsed_size(d->engine, thread, &w, &ht) != 0)
            *why = "nvJPEG gives no frame size for it";
        if (!*why && changed(d, image, w, ht, err, err_len))
            return ROUTE_BAD;
        if (!*why) {
            *planes = gpu_planes;
            /* Shared out: the hybrid path where it can, else back to the
             * batched decoder, which takes the file (and writes the whole
             * slot over whatever a failed decode left there). */
            char failed[256];
            nj_dest dest = {d_slot, w, ht};
            if (to_hybrid && decoder_can_split(d) &&
                nj_hybrid_decode(d->engine, thread, bits, len, &dest,
                                 gpu_planes, failed, sizeof failed) == 0) {
                *why = SPLIT_WHY;
                return ROUTE_GPU_HYBRID;
            }
            return ROUTE_GPU_BATCH;
        }
        if (nj_hybrid_ready(d->engine) && js_hybrid_ok(bits, len)) {
            if (hybrid(d, thread, image, bits, len, d_slot,
                       gpu_planes) == 0) {
                *planes = gpu_planes;
                return ROUTE_GPU_HYBRID;
            }
            *why = HYBRID_FAILED;
        }
    }
    return decoder_cpu(d, image, bits, len, h_slot, err, err_len) == 0
               ? ROUTE_CPU
               : ROUTE_BAD;
}

int decoder_batch(decoder *d, int state, int gray_files, cudaStream_t stream,
                  const uint8_t *const *bits, const size_t *lengths,
                  const nj_dest *dests, int n, char *why, size_t why_len)
{
    return nj_decode(d->engine, state, gray_files, stream, bits, lengths,
                     dests, n, why, why_len);
}

int decoder_cpu(decoder *d, size_t image, const uint8_t *bits, size_t len,
                uint8_t *h_slot, char *err, size_t err_len)
{
    return inputs_decode_bytes(d->src, image, bits, len, h_slot, err,
                               err_len);
}

nj_engine *decoder_engine(decoder *d) { return d->engine; }

void decoder_say_failures(decoder *d)
{
    if (!d->hybrid_failures || d->failures_said)
        return;
    d->failures_said = 1;
    printf("decoder: nvJPEG's hybrid path failed %zu times (every pass "
           "counted), first on %s: %s; stb_image decoded those files\n",
           d->hybrid_failures, d->src->list->paths[d->hybrid_failed_image],
           d->hybrid_why);
}

void decoder_close(decoder *d)
{
    if (!d)
        return;
    nj_close(d->engine);
    free(d);
}
