/* nvjpeg_decoder.h - nvJPEG's batched decode of JPEG files to their luma
 * plane, straight into device memory (nvjpeg_decoder.cu).
 *
 *   char why[256];
 *   nj_engine *e = nj_open(max_batch, width, height, n_parsers, n_states,
 *                          why, sizeof why);   NULL: why says why
 *   ... on parser thread t: reason = nj_screen(e, t, data, len) ...
 *   nj_decode(e, state, stream, data, lengths, d_planes, n, why,
 *             sizeof why);
 *   nj_close(e);
 *
 * It prefers the hardware decoder (NVJPEG_BACKEND_HARDWARE: A100, H100,
 * H200, ...); on a GPU without one it says so in one line on stdout and
 * opens nvJPEG's GPU hybrid backend instead. In a build without nvJPEG
 * (CM_HAVE_NVJPEG undefined) nvjpeg_none.c stands in: nj_built is 0 and
 * nj_open fails with DECODER_NOT_BUILT (jpeg_screen.h).
 */
#ifndef NVJPEG_DECODER_H
#define NVJPEG_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nj_engine nj_engine;

/* 1 if this program was built with nvJPEG. */
int nj_built(void);

/* Opens nvJPEG on the current device for batches of up to max_batch
 * images of width x height, screened by up to n_parsers threads at once,
 * with n_states decode states: a batch keeps its state until it is done
 * on the GPU, so each batch in flight needs its own. Returns NULL with a
 * one-line reason in why. */
nj_engine *nj_open(int max_batch, size_t width, size_t height,
                   int n_parsers, int n_states, char *why, size_t why_len);

/* "nvJPEG hardware decoder (7 engines)" or the like. */
const char *nj_describe(const nj_engine *e);

/* nvJPEG's own verdict on one file (nvjpegJpegStreamParseHeader, then
 * nvjpegDecodeBatchedSupported), on parser thread `parser` (each thread
 * its own index below n_parsers). Returns NULL if the batched decode
 * takes it, else a reason, a string constant. */
const char *nj_screen(nj_engine *e, int parser, const uint8_t *data,
                      size_t len);

/* Decodes n screened files (pinned host bytes) to their luma planes,
 * d_planes[i] with a pitch of width bytes, enqueued on stream with decode
 * state `state` (below n_states; the batch that used it last must be
 * finished). Returns 0, or -1 with the failing call and status in why:
 * the batch is then decoded elsewhere (the state is reset for its next
 * batch). */
int nj_decode(nj_engine *e, int state, cudaStream_t stream,
              const uint8_t *const *data, const size_t *lengths,
              uint8_t *const *d_planes, int n, char *why, size_t why_len);

/* nvJPEG's hybrid path, for files the batched decoder refuses but
 * js_hybrid_ok takes (progressive JPEGs): its decoupled decode with
 * NVJPEG_BACKEND_HYBRID, one decoder, state, pair of buffers and CUDA
 * stream per parser thread, made by nj_open. On parser thread `parser`:
 * the Huffman decoding runs on the calling thread
 * (nvjpegDecodeJpegHost), the inverse DCT on the GPU
 * (nvjpegDecodeJpegTransferToDevice + nvjpegDecodeJpegDevice on the
 * thread's stream), into d_plane (width x height, pitch width); returns
 * once the plane is written (the stream synchronized). Returns 0, or -1
 * with a one-line reason in why: the file is then decoded elsewhere. */
int nj_hybrid_decode(nj_engine *e, int parser, const uint8_t *data,
                     size_t len, uint8_t *d_plane, char *why,
                     size_t why_len);

/* 1 if nj_open made the hybrid path (else nj_hybrid_decode fails). */
int nj_hybrid_ready(const nj_engine *e);

/* Allocations nvJPEG asked of us (device, pinned) since nj_open. */
void nj_allocations(const nj_engine *e, size_t *device, size_t *pinned);

void nj_close(nj_engine *e);

#ifdef __cplusplus
}
#endif

#endif /* NVJPEG_DECODER_H */
