/* decoder.h - the batch tool's two decoders behind one interface: nvJPEG
 * on the GPU (its batched decoder for the files it takes, its hybrid
 * path for progressive ones) and stb_image on the CPU. The pipeline
 * (pipeline.cu) calls the same functions whichever decodes. Every file
 * is decoded at its own size, to gray or to R, G, B planes, into its
 * slot of the batch's arena (on the GPU) or of its staging (pinned).
 *
 *   decoder_config cfg = {.plan = &plan, .src = &src, ...};
 *   decoder *d = decoder_open(&cfg, &fatal, why, sizeof why);
 *   on reader thread t, for each file (its bytes read into bits):
 *       route r = decoder_file(d, t, i, bits, len, to_hybrid, h_slot,
 *                              d_slot, &planes, &why, err, sizeof err);
 *   on the main thread, the files routed ROUTE_GPU_BATCH, together:
 *       decoder_batch(d, state, gray_files, stream, bits, lengths,
 *                     dests, n, ...);
 *   decoder_close(d);
 *
 * A run without nvJPEG (--decoder cpu, a build without it, no JPEG, a
 * GPU it cannot open) has no engine: every file goes to stb_image, and
 * decoder_batch is never needed.
 */
#ifndef DECODER_H
#define DECODER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "batch_inputs.h"
#include "jpeg_screen.h"
#include "nvjpeg_decoder.h"
#include "split.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ROUTE_BAD,         /* unusable: err says why */
    ROUTE_CPU,         /* decoded by stb_image into h_slot */
    ROUTE_GPU_BATCH,   /* left for decoder_batch (the batched decoder) */
    ROUTE_GPU_HYBRID   /* decoded on the GPU into d_slot already */
} route;

typedef struct decoder decoder;

typedef struct {
    const decoder_plan *plan;
    const batch_source *src;      /* the files, their sizes, channels */
    int max_batch, threads, states;
    size_t max_width, max_height;  /* of any file */
    nj_backend backend;           /* --nvjpeg-backend */
    int verbose;                  /* say on stdout what was not taken */
} decoder_config;

/* After the device is selected. Opens nvJPEG if plan->try_nvjpeg; if
 * this GPU has no backend for it, every file goes to stb_image (one line
 * on stdout says why, if verbose), unless the backend was forced. Returns
 * NULL with why when the forced backend is missing, memory is short or a
 * call failed (*fatal: 1 for the last two). */
decoder *decoder_open(const decoder_config *cfg, int *fatal, char *why,
                      size_t why_len);

/* "nvJPEG hardware decoder (7 engines, 1 cores each)", or "stb_image on
 * the CPU". */
const char *decoder_describe(const decoder *d);

/* 1 if files the batched decoder takes can be sent to the hybrid path
 * instead (split.h): the hardware decoder, with the hybrid path beside
 * it. */
int decoder_can_split(const decoder *d);

/* One file, on reader thread `thread`: its frame size first (a file
 * that changed since it was checked, to a size its slot cannot hold, is
 * ROUTE_BAD, named in err); screened for nvJPEG's batched decoder
 * (ROUTE_GPU_BATCH: nothing done yet; with to_hybrid, where
 * decoder_can_split, decoded by the hybrid path instead, *why
 * SPLIT_WHY, or left to the batched decoder if that fails),
 * else decoded by its hybrid path into d_slot (its stream
 * synchronized), else by stb_image into h_slot. *planes: the planes it
 * has or will have in its slot (the run's channels; 1 for a gray JPEG
 * of an RGB run on the GPU). *why: why not the batched decoder
 * (ROUTE_CPU, ROUTE_GPU_HYBRID), a string constant. */
route decoder_file(decoder *d, int thread, size_t image,
                   const uint8_t *bits, size_t len, int to_hybrid,
                   uint8_t *h_slot, uint8_t *d_slot, int *planes,
                   const char **why, char *err, size_t err_len);

/* The files routed ROUTE_GPU_BATCH (with gray_files, those of one plane
 * in an RGB run), decoded together on stream with decode state `state`
 * (below `states`; the batch that used it last finished). Returns 0, or
 * -1 with why: decode them with decoder_cpu instead. */
int decoder_batch(decoder *d, int state, int gray_files, cudaStream_t stream,
                  const uint8_t *const *bits, const size_t *lengths,
                  const nj_dest *dests, int n, char *why, size_t why_len);

/* stb_image alone, into h_slot (the run's channels), for a file whose
 * batch failed on the GPU. Returns 0 or -1 with err. */
int decoder_cpu(decoder *d, size_t image, const uint8_t *bits, size_t len,
                uint8_t *h_slot, char *err, size_t err_len);

/* nvJPEG's engine (for --bare-decode and the report), or NULL. */
nj_engine *decoder_engine(decoder *d);

/* Prints, once, a line on the files nvJPEG's hybrid path failed on (they
 * went to stb_image), if any. */
void decoder_say_failures(decoder *d);

void decoder_close(decoder *d);

#ifdef __cplusplus
}
#endif

#endif /* DECODER_H */
