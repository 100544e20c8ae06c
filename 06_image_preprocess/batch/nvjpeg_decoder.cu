/* nvjpeg_decoder.cu - nvJPEG's batched decode to the luma plane, on the
 * GPU's hardware JPEG decoder where there is one.
 *
 * The calls, in the order a batch meets them:
 *   nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, our allocators, ...)  once
 *   nvjpegDecodeBatchedPreAllocate(max batch, size, 4:4:4, Y)      once
 *   nvjpegJpegStreamParseHeader + nvjpegDecodeBatchedSupported   every
 *       file, on the reader threads: one refused file would fail its
 *       batch
 *   nvjpegDecodeBatchedInitialize(n, ..., NVJPEG_OUTPUT_Y)  when n changes
 *   nvjpegDecodeBatched(bitstreams, lengths, planes, stream)  each batch
 * NVJPEG_OUTPUT_Y asks for the luma plane alone, written by the decoder
 * into our device buffers: no decoded pixel crosses PCIe.
 * The hybrid path is nvjpeg_hybrid.cu; what the two share,
 * nvjpeg_internal.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "jpeg_screen.h"
#include "nvjpeg_decoder.h"

#ifdef CM_HAVE_NVJPEG

#include "nvjpeg_internal.h"

const char *nj_status_name(nvjpegStatus_t s)
{
#define NJ_NAME(status) case status: return #status
    switch (s) {
    NJ_NAME(NVJPEG_STATUS_SUCCESS);
    NJ_NAME(NVJPEG_STATUS_NOT_INITIALIZED);
    NJ_NAME(NVJPEG_STATUS_INVALID_PARAMETER);
    NJ_NAME(NVJPEG_STATUS_BAD_JPEG);
    NJ_NAME(NVJPEG_STATUS_JPEG_NOT_SUPPORTED);
    NJ_NAME(NVJPEG_STATUS_ALLOCATOR_FAILURE);
    NJ_NAME(NVJPEG_STATUS_EXECUTION_FAILED);
    NJ_NAME(NVJPEG_STATUS_ARCH_MISMATCH);
    NJ_NAME(NVJPEG_STATUS_INTERNAL_ERROR);
    NJ_NAME(NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED);
    NJ_NAME(NVJPEG_STATUS_INCOMPLETE_BITSTREAM);
    }
#undef NJ_NAME
    return "unknown nvJPEG status";
}

/* Our allocators, handed to nvJPEG so that we can count what it asks
 * for: the report shows that nothing is allocated once batches run.
 * nvJPEG's allocator hooks take no context, so the counts are global
 * (one engine at a time). */
static size_t device_allocs, pinned_allocs;

static int count_dev_malloc(void **p, size_t size)
{
    __atomic_fetch_add(&device_allocs, 1, __ATOMIC_RELAXED);
    return (int)cudaMalloc(p, size);
}
static int count_dev_free(void *p) { return (int)cudaFree(p); }
static int count_pinned_malloc(void **p, size_t size, unsigned int flags)
{
    __atomic_fetch_add(&pinned_allocs, 1, __ATOMIC_RELAXED);
    return (int)cudaHostAlloc(p, size, flags);
}
static int count_pinned_free(void *p) { return (int)cudaFreeHost(p); }

int nj_built(void) { return 1; }

nvjpegDevAllocator_t nj_counted_dev = {count_dev_malloc, count_dev_free};
nvjpegPinnedAllocator_t nj_counted_pinned = {count_pinned_malloc,
                                             count_pinned_free};

nvjpegStatus_t nj_create(nvjpegBackend_t backend, nvjpegHandle_t *h)
{
    return nvjpegCreateEx(backend, &nj_counted_dev, &nj_counted_pinned,
                          NVJPEG_FLAGS_DEFAULT, h);
}

nj_engine *nj_open(int max_batch, size_t width, size_t height,
                   int n_parsers, int n_states, char *why, size_t why_len)
{
    nvjpegHandle_t handle;
    int hardware = 1;
    nvjpegStatus_t st = nj_create(NVJPEG_BACKEND_HARDWARE, &handle);
    if (st == NVJPEG_STATUS_ARCH_MISMATCH ||
        st == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
        st == NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED) {
        /* T4, V100 and most consumer GPUs: no JPEG engine. */
        nvjpegStatus_t no_hardware = st;
        hardware = 0;
        st = nj_create(NVJPEG_BACKEND_GPU_HYBRID, &handle);
        printf("decoder: this GPU has no hardware JPEG decoder (%s); "
               "%s\n", nj_status_name(no_hardware),
               st == NVJPEG_STATUS_SUCCESS
                   ? "using nvJPEG's GPU hybrid backend instead"
                   : "decoding on the CPU instead");
    }
    if (st != NVJPEG_STATUS_SUCCESS) {
        snprintf(why, why_len, "nvjpegCreateEx failed: %s (%d)",
                 nj_status_name(st), (int)st);
        return NULL;
    }
    device_allocs = pinned_allocs = 0;  /* the counts start here */
    nj_engine *e = (nj_engine *)calloc(1, sizeof *e);
    if (e) {
        e->parsers = (nvjpegJpegStream_t *)calloc((size_t)n_parsers,
                                                  sizeof *e->parsers);
        e->planes = (nvjpegImage_t *)calloc((size_t)max_batch,
                                            sizeof *e->planes);
        e->state = (nvjpegJpegState_t *)calloc((size_t)n_states,
                                               sizeof *e->state);
        e->initialized_n = (int *)calloc((size_t)n_states, sizeof(int));
    }
    if (!e || !e->parsers || !e->planes || !e->state || !e->initialized_n) {
        fprintf(stderr, "imgbatch: not enough memory for nvJPEG's batch "
                "lists\n");
        exit(1);
    }
    e->handle = handle;
    e->hardware = hardware;
    e->n_parsers = n_parsers;
    e->n_states = n_states;
    e->max_batch = max_batch;
    e->width = width;
    e->height = height;
    for (int k = 0; k < n_states; k++) {
        e->initialized_n[k] = -1;
        NVJPEG_CHECK(nvjpegJpegStateCreate(handle, &e->state[k]));
    }
    for (int t = 0; t < n_parsers; t++)
        NVJPEG_CHECK(nvjpegJpegStreamCreate(handle, &e->parsers[t]));
    if (hardware) {
        unsigned int engines = 0, cores = 0;
        NVJPEG_CHECK(nvjpegGetHardwareDecoderInfo(handle, &engines, &cores));
        snprintf(e->text, sizeof e->text, "nvJPEG hardware decoder (%u "
                 "engines, %u cores each)", engines, cores);
        /* The buffers for the largest batch, now, so that no batch waits
         * for cudaMalloc (4:4:4 needs the most of them). Not fatal if
         * refused: nvJPEG then allocates at the first batches, which the
         * warm-up takes, and the report counts what it allocated. */
        for (int k = 0; k < n_states; k++) {
            st = nvjpegDecodeBatchedPreAllocate(
                handle, e->state[k], max_batch, (int)width, (int)height,
                NVJPEG_CSS_444, NVJPEG_OUTPUT_Y);
            if (st != NVJPEG_STATUS_SUCCESS) {
                printf("decoder: nvjpegDecodeBatchedPreAllocate refused: "
                       "%s (%d)\n", nj_status_name(st), (int)st);
                break;
            }
        }
    } else {
        snprintf(e->text, sizeof e->text, "nvJPEG GPU hybrid backend");
    }
    nj_open_hybrid(e);
    return e;
}

const char *nj_describe(const nj_engine *e) { return e->text; }

const char *nj_screen(nj_engine *e, int parser, const uint8_t *data,
                      size_t len)
{
    nvjpegJpegStream_t s = e->parsers[parser];
    /* The header is all the verdict needs (nvjpegDecodeBatched reads the
     * whole stream anyway). Not NVJPEG_CHECK: a file nvJPEG cannot parse
     * is not our error; it goes to the CPU, whose decoder says what is
     * wrong with it. */
    nvjpegStatus_t st = nvjpegJpegStreamParseHeader(e->handle, data, len, s);
    if (st != NVJPEG_STATUS_SUCCESS)
        return "nvjpegJpegStreamParseHeader refused it";
    if (!e->hardware)
        return NULL;  /* the hybrid backend takes every parsed baseline */
    int refused = 1;
    st = nvjpegDecodeBatchedSupported(e->handle, s, &refused);
    if (st != NVJPEG_STATUS_SUCCESS)
        return "nvjpegDecodeBatchedSupported failed on it";
    /* Beware the sense: 0 means supported. */
    return refused ? "refused by nvjpegDecodeBatchedSupported" : NULL;
}

int nj_decode(nj_engine *e, int slot, cudaStream_t stream,
              const uint8_t *const *data, const size_t *lengths,
              uint8_t *const *d_planes, int n, char *why, size_t why_len)
{
    nvjpegStatus_t st = NVJPEG_STATUS_SUCCESS;
    if (n != e->initialized_n[slot]) {
        /* One host thread feeds the decoder; the output is the Y plane.
         * Buffers were allocated for max_batch, so this only resets. */
        st = nvjpegDecodeBatchedInitialize(e->handle, e->state[slot], n, 1,
                                           NVJPEG_OUTPUT_Y);
        if (st != NVJPEG_STATUS_SUCCESS) {
            snprintf(why, why_len, "nvjpegDecodeBatchedInitialize(%d) "
                     "failed: %s (%d)", n, nj_status_name(st), (int)st);
            e->initialized_n[slot] = -1;
            return -1;
        }
        e->initialized_n[slot] = n;
    }
    for (int i = 0; i < n; i++) {
        memset(&e->planes[i], 0, sizeof e->planes[i]);
        e->planes[i].channel[0] = d_planes[i];
        e->planes[i].pitch[0] = e->width;
    }
    st = nvjpegDecodeBatched(e->handle, e->state[slot], data, lengths,
                             e->planes, stream);
    if (st != NVJPEG_STATUS_SUCCESS) {
        snprintf(why, why_len, "nvjpegDecodeBatched failed: %s (%d)",
                 nj_status_name(st), (int)st);
        e->initialized_n[slot] = -1;  /* a failed batch must be reset */
        return -1;
    }
    return 0;
}

void nj_allocations(const nj_engine *e, size_t *device, size_t *pinned)
{
    (void)e;
    *device = __atomic_load_n(&device_allocs, __ATOMIC_RELAXED);
    *pinned = __atomic_load_n(&pinned_allocs, __ATOMIC_RELAXED);
}

void nj_close(nj_engine *e)
{
    if (!e)
        return;
    if (e->hybrid)
        nj_close_hybrid(e, e->n_parsers, e->hybrid_handle);
    for (int t = 0; t < e->n_parsers; t++)
        NVJPEG_CHECK(nvjpegJpegStreamDestroy(e->parsers[t]));
    for (int k = 0; k < e->n_states; k++)
        NVJPEG_CHECK(nvjpegJpegStateDestroy(e->state[k]));
    NVJPEG_CHECK(nvjpegDestroy(e->handle));
    free(e->parsers);
    free(e->planes);
    free(e->state);
    free(e->initialized_n);
    free(e);
}

#endif /* CM_HAVE_NVJPEG */
