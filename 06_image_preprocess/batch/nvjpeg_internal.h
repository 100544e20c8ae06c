/* nvjpeg_internal.h - what nvjpeg_decoder.cu (the batched decode) and
 * nvjpeg_hybrid.cu (the hybrid path) share: the engine, nvJPEG's status
 * names and check, and the allocators that count what nvJPEG asks for.
 * Only in a build with nvJPEG (CM_HAVE_NVJPEG).
 */
#ifndef NVJPEG_INTERNAL_H
#define NVJPEG_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>

#include <nvjpeg.h>

#include "nvjpeg_decoder.h"

/* "NVJPEG_STATUS_BAD_JPEG" and the like. */
const char *nj_status_name(nvjpegStatus_t s);

/* For the calls that must not fail whatever the data: 0, or -1 with
 * "CALL failed: STATUS (n)" in why (CALL cut at its parenthesis). */
int nj_failed(nvjpegStatus_t st, const char *call, char *why,
              size_t why_len);
#define NJ_FAILED(call, why, why_len) nj_failed((call), #call, why, why_len)

/* nvjpegCreateExV2 with the engine's allocators, which count into its
 * counts (their context), for one backend; the status says whether the
 * backend exists. */
nvjpegStatus_t nj_create(nj_engine *e, nvjpegBackend_t backend,
                         nvjpegHandle_t *h);

/* One reader thread's hybrid decoder: everything a file needs. */
typedef struct {
    nvjpegJpegDecoder_t decoder;
    nvjpegJpegState_t state;
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t device;
    nvjpegDecodeParams_t params;
    nvjpegJpegStream_t parsed;
    cudaStream_t stream;
} nj_hybrid;

/* The decode states of one output format, one per batch in flight: a
 * batch is enqueued while those before it may still run, and each
 * state's own buffers must stay untouched until its batch is done. */
typedef struct {
    nvjpegJpegState_t *state;
    int *initialized_n;           /* its batch size, -1: to initialize */
    nvjpegOutputFormat_t format;
    nvjpegChromaSubsampling_t most;  /* the subsampling preallocated for */
} nj_states;

struct nj_engine {
    nvjpegHandle_t handle;
    /* the readers' parses and verdicts: a handle of the same backend
     * apart from the batched decode's, so that neither waits for the
     * other inside nvJPEG (the handle itself, if a second one fails) */
    nvjpegHandle_t screen_handle;
    nvjpegHandle_t hybrid_handle;  /* NULL: no hybrid path */
    nj_hybrid *hybrid;             /* one a parser thread */
    int device;                    /* the CUDA device nj_open ran on */
    nj_states main;                /* Y, or RGB */
    nj_states gray;                /* RGB engines: files of 1 component */
    nvjpegJpegStream_t *parsers;   /* one parsed-stream object a thread */
    int n_parsers, n_states, max_batch, hardware, batched, rgb;
    nvjpegImage_t *planes;
    char text[128];
    int verbose;
    /* our allocators, their context the counts: kept here, as long as
     * the handles that use them */
    nvjpegDevAllocatorV2_t dev_allocator;
    nvjpegPinnedAllocatorV2_t pinned_allocator;
    nj_memory counts;
};

/* The hybrid path's handle and one decoder set per parser thread; a
 * backend or decoder nvJPEG does not have leaves the path off, said in
 * one line if verbose (those files go to stb_image). Returns 0, or -1
 * with why when a call failed (memory included). nj_close_hybrid
 * destroys what was made, the handle too. (nvjpeg_hybrid.cu) */
int nj_open_hybrid(nj_engine *e, char *why, size_t why_len);
void nj_close_hybrid(nj_engine *e);

#endif /* NVJPEG_INTERNAL_H */
