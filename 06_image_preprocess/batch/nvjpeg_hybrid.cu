/* nvjpeg_hybrid.cu - nvJPEG's hybrid path, for the files its batched
 * decoder refuses (progressive JPEGs): its decoupled decode with
 * NVJPEG_BACKEND_HYBRID, one set per reader thread, all made once by
 * nj_open (nvjpeg_decoder.cu):
 *   nvjpegCreateEx(NVJPEG_BACKEND_HYBRID) (a handle of its own),
 *   nvjpegDecoderCreate, nvjpegDecoderStateCreate, nvjpegBufferPinned
 *   and nvjpegBufferDevice attached to the state, nvjpegDecodeParams,
 *   a nvjpegJpegStream, a CUDA stream
 * and for each file, on the reader thread:
 *   nvjpegDecodeParamsSetOutputFormat (NVJPEG_OUTPUT_Y for one plane,
 *   NVJPEG_OUTPUT_RGB for three), nvjpegJpegStreamParse,
 *   nvjpegDecoderJpegSupported,
 *   nvjpegDecodeJpegHost (Huffman decoding, on this CPU thread),
 *   nvjpegDecodeJpegTransferToDevice + nvjpegDecodeJpegDevice (the
 *   inverse DCT, on the GPU, the thread's stream), then a synchronize.
 * The two buffers grow to the largest file a thread has met (counted
 * in nj_allocations), then are reused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "nvjpeg_decoder.h"

#ifdef CM_HAVE_NVJPEG

#include "nvjpeg_internal.h"

/* Destroys the first `made` decoder sets (the last one may hold only
 * its decoder) and the hybrid handle h. */
void nj_close_hybrid(nj_engine *e, int made, nvjpegHandle_t h)
{
    for (int k = 0; k < made; k++) {
        nj_hybrid *t = &e->hybrid[k];
        if (t->stream)
            CUDA_CHECK(cudaStreamDestroy(t->stream));
        if (t->parsed)
            NVJPEG_CHECK(nvjpegJpegStreamDestroy(t->parsed));
        if (t->params)
            NVJPEG_CHECK(nvjpegDecodeParamsDestroy(t->params));
        if (t->state)
            NVJPEG_CHECK(nvjpegJpegStateDestroy(t->state));
        if (t->device)
            NVJPEG_CHECK(nvjpegBufferDeviceDestroy(t->device));
        if (t->pinned)
            NVJPEG_CHECK(nvjpegBufferPinnedDestroy(t->pinned));
        if (t->decoder)
            NVJPEG_CHECK(nvjpegDecoderDestroy(t->decoder));
    }
    free(e->hybrid);
    e->hybrid = NULL;
    NVJPEG_CHECK(nvjpegDestroy(h));
    e->hybrid_handle = NULL;
}

/* The hybrid path's handle and one decoder set per parser thread. A
 * handle or decoder nvJPEG refuses leaves the path off, said in one
 * line (those files go to stb_image); the rest must not fail. */
void nj_open_hybrid(nj_engine *e)
{
    nvjpegHandle_t h;
    nvjpegStatus_t st = nj_create(NVJPEG_BACKEND_HYBRID, &h);
    if (st != NVJPEG_STATUS_SUCCESS) {
        printf("decoder: nvJPEG's hybrid path is unavailable "
               "(nvjpegCreateEx: %s (%d)); progressive JPEGs decoded by "
               "stb_image\n", nj_status_name(st), (int)st);
        return;
    }
    CUDA_CHECK(cudaGetDevice(&e->device));
    e->hybrid = (nj_hybrid *)calloc((size_t)e->n_parsers,
                                    sizeof *e->hybrid);
    if (!e->hybrid) {
        fprintf(stderr, "imgbatch: not enough memory for nvJPEG's hybrid "
                "decoders\n");
        exit(1);
    }
    for (int k = 0; k < e->n_parsers; k++) {
        nj_hybrid *t = &e->hybrid[k];
        st = nvjpegDecoderCreate(h, NVJPEG_BACKEND_HYBRID, &t->decoder);
        if (st != NVJPEG_STATUS_SUCCESS) {
            printf("decoder: nvJPEG's hybrid path is unavailable "
                   "(nvjpegDecoderCreate: %s (%d)); progressive JPEGs "
                   "decoded by stb_image\n", nj_status_name(st), (int)st);
            nj_close_hybrid(e, k, h);
            return;
        }
        NVJPEG_CHECK(nvjpegDecoderStateCreate(h, t->decoder, &t->state));
        NVJPEG_CHECK(nvjpegBufferPinnedCreate(h, &nj_counted_pinned,
                                              &t->pinned));
        NVJPEG_CHECK(nvjpegBufferDeviceCreate(h, &nj_counted_dev, &t->device));
        NVJPEG_CHECK(nvjpegStateAttachPinnedBuffer(t->state, t->pinned));
        NVJPEG_CHECK(nvjpegStateAttachDeviceBuffer(t->state, t->device));
        NVJPEG_CHECK(nvjpegDecodeParamsCreate(h, &t->params));
        NVJPEG_CHECK(nvjpegJpegStreamCreate(h, &t->parsed));
        CUDA_CHECK(cudaStreamCreateWithFlags(&t->stream,
                                             cudaStreamNonBlocking));
    }
    e->hybrid_handle = h;
}

int nj_hybrid_ready(const nj_engine *e) { return e->hybrid != NULL; }

/* On failure: why gets "FUNCTION: STATUS", and the decode returns -1. */
#define HYBRID_TRY(name, call)                                                \
    do {                                                                      \
        nvjpegStatus_t h_st_ = (call);                                        \
        if (h_st_ != NVJPEG_STATUS_SUCCESS) {                                 \
            snprintf(why, why_len, "%s: %s (%d)", name,                      \
                     nj_status_name(h_st_), (int)h_st_);                      \
            goto done;                                                        \
        }                                                                     \
    } while (0)

int nj_hybrid_decode(nj_engine *e, int parser, const uint8_t *data,
                     size_t len, const nj_dest *dest, int planes, char *why,
                     size_t why_len)
{
    if (!e->hybrid) {
        snprintf(why, why_len, "no hybrid path");
        return -1;
    }
    nvjpegHandle_t h = e->hybrid_handle;
    nj_hybrid *t = &e->hybrid[parser];
    unsigned int w = 0, ht = 0;
    int unsupported = 1, rc = -1;
    /* A reader thread's CUDA calls go to the run's device too. */
    CUDA_CHECK(cudaSetDevice(e->device));
    nvjpegImage_t out;
    memset(&out, 0, sizeof out);
    for (int c = 0; c < planes; c++) {
        out.channel[c] = dest->plane0 + (size_t)c * dest->width *
                                            dest->height;
        out.pitch[c] = dest->width;
    }
    HYBRID_TRY("nvjpegDecodeParamsSetOutputFormat",
               nvjpegDecodeParamsSetOutputFormat(
                   t->params, planes == 3 ? NVJPEG_OUTPUT_RGB
                                          : NVJPEG_OUTPUT_Y));
    HYBRID_TRY("nvjpegJpegStreamParse",
               nvjpegJpegStreamParse(h, data, len, 0, 0, t->parsed));
    HYBRID_TRY("nvjpegJpegStreamGetFrameDimensions",
               nvjpegJpegStreamGetFrameDimensions(t->parsed, &w, &ht));
    if (w != dest->width || ht != dest->height) {
        /* stb_image then says what is wrong with the size */
        snprintf(why, why_len, "%u x %u, not the %zu x %zu its header "
                 "said", w, ht, dest->width, dest->height);
        goto done;
    }
    HYBRID_TRY("nvjpegDecoderJpegSupported",
               nvjpegDecoderJpegSupported(t->decoder, t->parsed, t->params,
                                          &unsupported));
    if (unsupported) {  /* beware the sense: 0 means supported */
        snprintf(why, why_len, "refused by nvjpegDecoderJpegSupported");
        goto done;
    }
    HYBRID_TRY("nvjpegDecodeJpegHost",
               nvjpegDecodeJpegHost(h, t->decoder, t->state, t->params,
                                    t->parsed));
    HYBRID_TRY("nvjpegDecodeJpegTransferToDevice",
               nvjpegDecodeJpegTransferToDevice(h, t->decoder, t->state,
                                                t->parsed, t->stream));
    HYBRID_TRY("nvjpegDecodeJpegDevice",
               nvjpegDecodeJpegDevice(h, t->decoder, t->state, &out,
                                      t->stream));
    rc = 0;
done:
    /* Whatever was enqueued is finished before the plane is read, or the
     * file handed to stb_image (and before the buffers are reused). */
    CUDA_CHECK(cudaStreamSynchronize(t->stream));
    return rc;
}

#endif /* CM_HAVE_NVJPEG */
