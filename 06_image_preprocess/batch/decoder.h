/* decoder.h - the batch tool's two decoders behind one interface: nvJPEG
 * on the GPU (its hardware decoder for the files it takes in batches, its
 * hybrid path for progressive ones) and stb_image on the CPU. The
 * pipeline (pipeline.cu) calls the same functions whichever decodes.
 *
 *   decoder *d = decoder_open(&plan, &src, max_batch, threads, states);
 *   on reader thread t, for each file (its bytes read into bits):
 *       route r = decoder_file(d, t, i, bits, len, h_plane, d_plane,
 *                              &why, err, sizeof err);
 *   on the main thread, the files routed ROUTE_GPU_BATCH, together:
 *       decoder_batch(d, state, stream, bits, lengths, d_planes, n, ...);
 *   decoder_close(d);
 *
 * A run without nvJPEG (--decoder cpu, a build without it, --resize, no
 * JPEG, a GPU it cannot open) has no engine: every file goes to
 * stb_image, and decoder_batch is never needed.
 */
#ifndef DECODER_H
#define DECODER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "batch_inputs.h"
#include "jpeg_screen.h"
#include "nvjpeg_decoder.h"

typedef enum {
    ROUTE_BAD,         /* unusable: err says why */
    ROUTE_CPU,         /* decoded by stb_image into h_plane */
    ROUTE_GPU_BATCH,   /* left for decoder_batch (the hardware decoder) */
    ROUTE_GPU_HYBRID   /* decoded on the GPU into d_plane already */
} route;

typedef struct decoder decoder;

/* After the device is selected. Opens nvJPEG if plan->try_nvjpeg (for
 * batches of up to max_batch images of src's size, threads reader
 * threads, states batches in flight); if it cannot, one line on stdout
 * says why and every file goes to stb_image. Exits 1 without memory. */
decoder *decoder_open(const decoder_plan *plan, const batch_source *src,
                      int max_batch, int threads, int states);

/* "nvJPEG hardware decoder (7 engines, 1 cores each)", or "stb_image on
 * the CPU". */
const char *decoder_describe(const decoder *d);

/* One file, on reader thread `thread`: screened for nvJPEG's batched
 * decoder (ROUTE_GPU_BATCH: nothing done yet), else decoded by its hybrid
 * path into d_plane (its stream synchronized), else by stb_image into
 * h_plane, resized if the batch is. *why: why not the batched decoder
 * (ROUTE_CPU, ROUTE_GPU_HYBRID), a string constant. */
route decoder_file(decoder *d, int thread, size_t image,
                   const uint8_t *bits, size_t len, uint8_t *h_plane,
                   uint8_t *d_plane, const char **why, char *err,
                   size_t err_len);

/* The files routed ROUTE_GPU_BATCH, decoded together on stream with
 * decode state `state` (below `states`, the batch that used it last
 * finished). Returns 0, or -1 with why: decode them with decoder_file's
 * CPU path instead (decoder_cpu). */
int decoder_batch(decoder *d, int state, cudaStream_t stream,
                  const uint8_t *const *bits, const size_t *lengths,
                  uint8_t *const *d_planes, int n, char *why,
                  size_t why_len);

/* stb_image alone, for a file whose batch failed on the GPU. */
int decoder_cpu(decoder *d, size_t image, const uint8_t *bits, size_t len,
                uint8_t *h_plane, char *err, size_t err_len);

/* nvJPEG's engine (for --bare-decode), or NULL. */
nj_engine *decoder_engine(decoder *d);

/* Prints, once, a line on the files nvJPEG's hybrid path failed on (they
 * went to stb_image), if any. */
void decoder_say_failures(decoder *d);

void decoder_close(decoder *d);

#endif /* DECODER_H */
