/* nvjpeg_hybrid.cu - nvJPEG's hybrid path, for the files its batched
 * decoder refuses (progressive JPEGs): its decoupled decode with
 * NVJPEG_BACKEND_HYBRID, one set per reader thread, all made once by
 * nj_open (nvjpeg_decoder.cu), on a thread of its own:
 *   nvjpegCreateExV2(NVJPEG_BACKEND_HYBRID) (a handle of its own),
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

#include "lib_support.h"
#include "nvjpeg_decoder.h"

#ifdef CM_HAVE_NVJPEG

#include "nvjpeg_internal.h"

void nj_close_hybrid(nj_engine *e)
{
    for (int k = 0; e->hybrid && k < e->n_parsers; k++) {
        nj_hybrid *t = &e->hybrid[k];
        if (t->stream)
            (void)cudaStreamDestroy(t->stream);
        if (t->parsed)
            (void)nvjpegJpegStreamDestroy(t->parsed);
        if (t->params)
            (void)nvjpegDecodeParamsDestroy(t->params);
        if (t->state)
            (void)nvjpegJpegStateDestroy(t->state);
        if (t->device)
            (void)nvjpegBufferDeviceDestroy(t->device);
        if (t->pinned)
            (void)nvjpegBufferPinnedDestroy(t->pinned);
        if (t->decoder)
            (void)nvjpegDecoderDestroy(t->decoder);
    }
    free(e->hybrid);
    e->hybrid = NULL;
    if (e->hybrid_handle)
        (void)nvjpegDestroy(e->hybrid_handle);
    e->hybrid_handle = NULL;
}

/* A status that says nvJPEG lacks the path here, rather than failed. */
static int absent(nvjpegStatus_t st)
{
    return st == NVJPEG_STATUS_ARCH_MISMATCH ||
           st == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
           st == NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
}

/* The path left off (its files go to stb_image), said if verbose. */
static int path_off(nj_engine *e, const char *call, nvjpegStatus_t st)
{
    if (e->verbose)
        printf("decoder: nvJPEG's hybrid path is unavailable (%s: %s "
               "(%d)); progressive JPEGs decoded by stb_image\n", call,
               nj_status_name(st), (int)st);
    nj_close_hybrid(e);
    return 0;
}

/* One call of the set: on failure, why says which. */
#define SET_TRY(call)                                                     \
    do {                                                                  \
        if (NJ_FAILED(call, why, why_len))                                \
            return -1;                                                    \
    } while (0)

/* The hybrid path's handle and one decoder set per parser thread. A
 * backend or decoder nvJPEG lacks leaves the path off, said in one line
 * if verbose (those files go to stb_image); any other failure is one. */
int nj_open_hybrid(nj_engine *e, char *why, size_t why_len)
{
    nvjpegStatus_t st = nj_create(e, NVJPEG_BACKEND_HYBRID,
                                  &e->hybrid_handle);
    if (st != NVJPEG_STATUS_SUCCESS) {
        e->hybrid_handle = NULL;
        if (absent(st))
            return path_off(e, "nvjpegCreateExV2", st);
        return nj_failed(st, "nvjpegCreateExV2(NVJPEG_BACKEND_HYBRID)", why,
                         why_len);
    }
    nvjpegHandle_t h = e->hybrid_handle;
    if (IB_CUDA(cudaGetDevice(&e->device), why, why_len))
        return -1;
    e->hybrid = (nj_hybrid *)ib_calloc((size_t)e->n_parsers,
                                       sizeof *e->hybrid);
    if (!e->hybrid) {
        snprintf(why, why_len, "not enough memory for nvJPEG's hybrid "
                 "decoders");
        return -1;
    }
    for (int k = 0; k < e->n_parsers; k++) {
        nj_hybrid *t = &e->hybrid[k];
        st = nvjpegDecoderCreate(h, NVJPEG_BACKEND_HYBRID, &t->decoder);
        if (st != NVJPEG_STATUS_SUCCESS) {
            t->decoder = NULL;
            if (absent(st))
                return path_off(e, "nvjpegDecoderCreate", st);
            return nj_failed(st, "nvjpegDecoderCreate", why, why_len);
        }
        SET_TRY(nvjpegDecoderStateCreate(h, t->decoder, &t->state));
        SET_TRY(nvjpegBufferPinnedCreateV2(h, &e->pinned_allocator,
                                           &t->pinned));
        SET_TRY(nvjpegBufferDeviceCreateV2(h, &e->dev_allocator,
                                           &t->device));
        SET_TRY(nvjpegStateAttachPinnedBuffer(t->state, t->pinned));
        SET_TRY(nvjpegStateAttachDeviceBuffer(t->state, t->device));
        SET_TRY(nvjpegDecodeParamsCreate(h, &t->params));
        SET_TRY(nvjpegJpegStreamCreate(h, &t->parsed));
        if (IB_CUDA(cudaStreamCreateWithFlags(&t->stream,
                                              cudaStreamNonBlocking),
                    why, why_len))
            return -1;
    }
    return 0;
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
    if (IB_CUDA(cudaSetDevice(e->device), why, why_len))
        return -1;
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
    if (IB_CUDA(cudaStreamSynchronize(t->stream), why, why_len))
        return -1;
    return rc;
}

#endif /* CM_HAVE_NVJPEG */
