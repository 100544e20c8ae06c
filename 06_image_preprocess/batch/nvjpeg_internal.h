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

/* Like CUDA_CHECK, for the calls that must not fail whatever the data:
 * file:line, the call, the status; exit 1. */
#define NVJPEG_CHECK(call)                                                    \
    do {                                                                      \
        nvjpegStatus_t nj_st_ = (call);                                       \
        if (nj_st_ != NVJPEG_STATUS_SUCCESS) {                                \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__,          \
                    __LINE__, #call, nj_status_name(nj_st_), (int)nj_st_);    \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* Our allocators (they count what nvJPEG asks for: nj_allocations), and
 * nvjpegCreateEx with them for one backend; the status says whether the
 * backend exists. */
extern nvjpegDevAllocator_t nj_counted_dev;
extern nvjpegPinnedAllocator_t nj_counted_pinned;
nvjpegStatus_t nj_create(nvjpegBackend_t backend, nvjpegHandle_t *h);

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
};

/* The hybrid path's handle and one decoder set per parser thread; a
 * handle or decoder nvJPEG refuses leaves the path off, said in one line
 * (those files go to stb_image). nj_close_hybrid destroys the first
 * `made` sets and the handle h. (nvjpeg_hybrid.cu) */
void nj_open_hybrid(nj_engine *e);
void nj_close_hybrid(nj_engine *e, int made, nvjpegHandle_t h);

#endif /* NVJPEG_INTERNAL_H */
