/* decoder.cu - the two decoders behind decoder.h: where each file goes,
 * and the calls that decode it there (nvjpeg_decoder.cu for nvJPEG,
 * batch_inputs.c for stb_image). */
#include <stdio.h>
#include <stdlib.h>

#include "decoder.h"

struct decoder {
    const batch_source *src;
    nj_engine *engine;         /* NULL: every file to stb_image */
    const char *cpu_why;       /* then, why (for the routed: line) */
    /* the hybrid path's failures (those files went to stb_image): the
     * count, and the first one's image and reason, kept by the thread
     * that counted 1 */
    size_t hybrid_failures, hybrid_failed_image;
    char hybrid_why[256];
    int failures_said;
};

/* The route of a file nvJPEG's hybrid path failed on (the CPU got it). */
static const char HYBRID_FAILED[] = "nvJPEG's hybrid path failed on it";

decoder *decoder_open(const decoder_plan *plan, const batch_source *src,
                      int max_batch, int threads, int states)
{
    decoder *d = (decoder *)calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "imgbatch: not enough memory for the decoder\n");
        exit(1);
    }
    d->src = src;
    d->cpu_why = plan->cpu_why ? plan->cpu_why : "no GPU decoder";
    if (plan->try_nvjpeg) {
        char why[256];
        d->engine = nj_open(max_batch, src->width, src->height, threads,
                            states, why, sizeof why);
        if (!d->engine) {
            printf("decoder: %s; every file decoded on the CPU\n", why);
            d->cpu_why = "no GPU decoder";
        }
    }
    return d;
}

const char *decoder_describe(const decoder *d)
{
    return d->engine ? nj_describe(d->engine) : "stb_image on the CPU";
}

route decoder_file(decoder *d, int thread, size_t image,
                   const uint8_t *bits, size_t len, uint8_t *h_plane,
                   uint8_t *d_plane, const char **why, char *err,
                   size_t err_len)
{
    *why = d->cpu_why;
    if (d->engine) {
        /* Our header walk first (it names what it refuses), then nvJPEG's
         * own verdict: one refused file would fail its whole batch. */
        *why = js_screen(bits, len, NULL);
        if (!*why)
            *why = nj_screen(d->engine, thread, bits, len);
        if (!*why)
            return ROUTE_GPU_BATCH;
        char failed[256];
        if (nj_hybrid_ready(d->engine) && js_hybrid_ok(bits, len)) {
            if (nj_hybrid_decode(d->engine, thread, bits, len, d_plane,
                                 failed, sizeof failed) == 0)
                return ROUTE_GPU_HYBRID;
            if (__atomic_add_fetch(&d->hybrid_failures, 1,
                                   __ATOMIC_RELAXED) == 1) {
                d->hybrid_failed_image = image;
                snprintf(d->hybrid_why, sizeof d->hybrid_why, "%s", failed);
            }
            *why = HYBRID_FAILED;
        }
    }
    return decoder_cpu(d, image, bits, len, h_plane, err, err_len) == 0
               ? ROUTE_CPU
               : ROUTE_BAD;
}

int decoder_batch(decoder *d, int state, cudaStream_t stream,
                  const uint8_t *const *bits, const size_t *lengths,
                  uint8_t *const *d_planes, int n, char *why,
                  size_t why_len)
{
    return nj_decode(d->engine, state, stream, bits, lengths, d_planes, n,
                     why, why_len);
}

int decoder_cpu(decoder *d, size_t image, const uint8_t *bits, size_t len,
                uint8_t *h_plane, char *err, size_t err_len)
{
    return inputs_decode_bytes(d->src, image, bits, len, h_plane, err,
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
