/* nvjpeg_decoder.h - nvJPEG's batched decode of JPEG files of any sizes
 * to their luma plane or their R, G, B planes, straight into device
 * memory (nvjpeg_decoder.cu), and its hybrid path for the files the
 * batched decoder refuses (nvjpeg_hybrid.cu).
 *
 *   nj_config cfg = {.max_batch = 256, .max_width = 640, ...};
 *   char why[256];
 *   int fatal;
 *   nj_engine *e = nj_open(&cfg, &fatal, why, sizeof why);  NULL: why
 *   ... on parser thread t: reason = nj_screen(e, t, data, len) ...
 *   nj_decode(e, state, 0, stream, data, lengths, dests, n, why,
 *             sizeof why);
 *   nj_close(e);
 *
 * Backends (--nvjpeg-backend): the hardware decoder (A100, H100, H200,
 * ...); nvJPEG's GPU hybrid backend (Huffman decoding on the GPU for
 * batches of more than 50 baseline files); or no batched decoder at all,
 * every JPEG through the hybrid path on the reader threads (`hybrid`),
 * which `auto` takes on a GPU without the hardware decoder. In a build
 * without nvJPEG (CM_HAVE_NVJPEG undefined) nvjpeg_none.c stands in:
 * nj_built is 0 and nj_open fails with DECODER_NOT_BUILT (jpeg_screen.h).
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

typedef enum {
    NJ_BACKEND_AUTO,        /* hardware, else the hybrid path */
    NJ_BACKEND_HARDWARE,
    NJ_BACKEND_GPU_HYBRID,
    NJ_BACKEND_HYBRID       /* no batched decoder: the hybrid path */
} nj_backend;

typedef struct {
    int max_batch;               /* files in one nvjpegDecodeBatched */
    size_t max_width, max_height;  /* of any file (buffers made for it) */
    int n_parsers;               /* threads that call nj_screen */
    int n_states;                /* batches in flight, each its state */
    int rgb;                     /* 1: R, G, B planes; 0: the Y plane */
    nj_backend backend;
    int verbose;                 /* 1: say on stdout what was not taken */
} nj_config;

/* Where one file goes: `planes` planes (1: Y, 3: R, G, B) of width x
 * height bytes, one after another from plane0, rows of width bytes. */
typedef struct {
    uint8_t *plane0;
    size_t width, height;
} nj_dest;

/* 1 if this program was built with nvJPEG. */
int nj_built(void);

/* The start of the reason nj_open gives when --nvjpeg-backend hardware
 * meets a GPU without a JPEG engine (a GPU this run cannot use). */
extern const char NJ_NO_ENGINE[];

/* 1 if the environment says IMGBATCH_EMULATE_NO_ENGINE=1: nvJPEG's
 * hardware backend is then taken for unavailable, as on a GPU without a
 * JPEG engine (T4, V100), so that those paths run on one that has it. */
int nj_emulate_no_engine(void);

/* On the current device: 1 if nvJPEG's hardware backend opens (why: how
 * many engines), 0 if not (why: its status, the switch above, or a build
 * without nvJPEG), -1 if it opened but could not be asked (why: the
 * call that failed). */
int nj_engine_present(char *why, size_t why_len);

/* Opens nvJPEG on the current device. Returns NULL with a one-line
 * reason in why: no backend that cfg allows (a forced one this GPU
 * lacks; *fatal 0), or a call that failed, memory included (*fatal 1).
 * With cfg->verbose, a line on stdout says which backend an `auto` took
 * when it is not the hardware decoder. Its allocations are counted for
 * this engine alone (nj_allocations). */
nj_engine *nj_open(const nj_config *cfg, int *fatal, char *why,
                   size_t why_len);

/* "nvJPEG hardware decoder (7 engines, 1 cores each)" or the like. */
const char *nj_describe(const nj_engine *e);

/* 0 when there is no batched decoder (--nvjpeg-backend hybrid). */
int nj_batched(const nj_engine *e);

/* 1 when the batched decoder is the GPU's hardware decoder. */
int nj_hardware(const nj_engine *e);

/* nvJPEG's own verdict on one file, on parser thread `parser` (each
 * thread its own index below n_parsers): the whole stream parsed
 * (nvjpegJpegStreamParse, which finds corruption the header alone does
 * not show), then nvjpegDecodeBatchedSupported. Returns NULL if the
 * batched decoder takes it, else a reason, a string constant. */
const char *nj_screen(nj_engine *e, int parser, const uint8_t *data,
                      size_t len);

/* Decodes n screened files (pinned host bytes) into dests, enqueued on
 * stream with decode state `state` (below n_states; the batch that used
 * it last must be finished). gray_files: an RGB engine's files of one
 * component, decoded to their Y plane by a second state of their own
 * (0: the engine's format). Returns 0, or -1 with the failing call and
 * status in why: the batch is then decoded elsewhere (the state is
 * reset for its next batch). */
int nj_decode(nj_engine *e, int state, int gray_files, cudaStream_t stream,
              const uint8_t *const *data, const size_t *lengths,
              const nj_dest *dests, int n, char *why, size_t why_len);

/* The frame size nvJPEG found in the file nj_screen last parsed on
 * thread `parser` (what its batched decode will write). Returns 0, or -1
 * if it cannot tell. */
int nj_parsed_size(nj_engine *e, int parser, size_t *width,
                   size_t *height);

/* nvJPEG's hybrid path, for files the batched decoder refuses but
 * js_hybrid_ok takes (progressive JPEGs): its decoupled decode with
 * NVJPEG_BACKEND_HYBRID, one decoder, state, pair of buffers and CUDA
 * stream per parser thread, made by nj_open. On parser thread `parser`:
 * the Huffman decoding runs on the calling thread
 * (nvjpegDecodeJpegHost), the inverse DCT on the GPU
 * (nvjpegDecodeJpegTransferToDevice + nvjpegDecodeJpegDevice on the
 * thread's stream), into dest as `planes` planes (1: Y, 3: RGB); returns
 * once they are written (the stream synchronized). Returns 0, or -1 with
 * a one-line reason in why: the file is then decoded elsewhere. */
int nj_hybrid_decode(nj_engine *e, int parser, const uint8_t *data,
                     size_t len, const nj_dest *dest, int planes, char *why,
                     size_t why_len);

/* 1 if nj_open made the hybrid path (else nj_hybrid_decode fails). */
int nj_hybrid_ready(const nj_engine *e);

/* What nvJPEG asked of our allocators for this engine since nj_open:
 * device and pinned allocations and their bytes. */
typedef struct {
    size_t device_allocs, device_bytes, pinned_allocs, pinned_bytes;
} nj_memory;
void nj_allocations(const nj_engine *e, nj_memory *m);

void nj_close(nj_engine *e);

#ifdef __cplusplus
}
#endif

#endif /* NVJPEG_DECODER_H */
