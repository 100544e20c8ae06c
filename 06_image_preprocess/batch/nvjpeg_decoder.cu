/* nvjpeg_decoder.cu - nvJPEG's batched decode of files of any sizes to
 * their Y plane or their R, G, B planes, on the GPU's hardware JPEG
 * decoder where there is one.
 *
 * The calls, in the order a batch meets them:
 *   nvjpegCreateExV2(backend, our counting allocators, ...)          once
 *   nvjpegJpegStateCreate, then nvjpegDecodeBatchedPreAllocate(max
 *       batch, max size, 4:4:4, format) (the hardware backend), once
 *       per state; each state, the readers' handle and the hybrid
 *       path's made at once, each on a thread of its own (open_parts)
 *   nvjpegJpegStreamParse + nvjpegDecodeBatchedSupported   every file,
 *       on the reader threads: one refused file would fail its batch
 *   nvjpegDecodeBatchedInitialize(n, ..., format)   when n changes
 *   nvjpegDecodeBatched(bitstreams, lengths, planes, stream)  each batch
 * Each file's planes are its own size (nvjpegImage_t: a pointer and a
 * pitch per channel), written by the decoder into our device arena: no
 * decoded pixel crosses PCIe. An RGB run decodes its files of one
 * component with a second set of states, to their Y plane (the kernel
 * repeats it in R, G and B), so that no output format has to guess.
 * The hybrid path is nvjpeg_hybrid.cu; what the two share,
 * nvjpeg_internal.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_screen.h"
#include "lib_support.h"
#include "nvjpeg_decoder.h"

/* Both builds: the decoder and the CLI ask them with nvJPEG or without. */
const char NJ_NO_ENGINE[] = "no hardware JPEG decoder";

int nj_emulate_no_engine(void)
{
    const char *v = getenv("IMGBATCH_EMULATE_NO_ENGINE");
    return v && strcmp(v, "1") == 0;
}

#ifdef CM_HAVE_NVJPEG

#include "nvjpeg_internal.h"

static const char NJ_NO_ENGINE_HERE[] = "no hardware JPEG decoder on this GPU";

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

int nj_failed(nvjpegStatus_t st, const char *call, char *why,
              size_t why_len)
{
    if (st == NVJPEG_STATUS_SUCCESS)
        return 0;
    snprintf(why, why_len, "%.*s failed: %s (%d)", (int)strcspn(call, "("),
             call, nj_status_name(st), (int)st);
    return -1;
}

/* Our allocators, handed to nvJPEG so that we can count what it asks
 * for: the report shows what it holds, and that nothing is allocated
 * once batches run. Their context is the engine's counts, so that two
 * loaders count apart. They go through the library's allocation hook
 * (lib_support.h). nvJPEG orders a free after the work on its stream:
 * the stream is finished first. */
static int count_dev_malloc(void *ctx, void **p, size_t size,
                            cudaStream_t stream)
{
    nj_memory *m = (nj_memory *)ctx;
    (void)stream;
    __atomic_fetch_add(&m->device_allocs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&m->device_bytes, size, __ATOMIC_RELAXED);
    return (int)ib_cuda_malloc(p, size);
}
static int count_dev_free(void *ctx, void *p, size_t size,
                          cudaStream_t stream)
{
    (void)ctx;
    (void)size;
    cudaError_t err = cudaStreamSynchronize(stream);
    cudaError_t freed = cudaFree(p);
    return (int)(err != cudaSuccess ? err : freed);
}
static int count_pinned_malloc(void *ctx, void **p, size_t size,
                               cudaStream_t stream)
{
    nj_memory *m = (nj_memory *)ctx;
    (void)stream;
    __atomic_fetch_add(&m->pinned_allocs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&m->pinned_bytes, size, __ATOMIC_RELAXED);
    return (int)ib_cuda_malloc_host(p, size);
}
static int count_pinned_free(void *ctx, void *p, size_t size,
                             cudaStream_t stream)
{
    (void)ctx;
    (void)size;
    cudaError_t err = cudaStreamSynchronize(stream);
    cudaError_t freed = cudaFreeHost(p);
    return (int)(err != cudaSuccess ? err : freed);
}

int nj_built(void) { return 1; }

nvjpegStatus_t nj_create(nj_engine *e, nvjpegBackend_t backend,
                         nvjpegHandle_t *h)
{
    return nvjpegCreateExV2(backend, &e->dev_allocator, &e->pinned_allocator,
                            NVJPEG_FLAGS_DEFAULT, h);
}

/* The handle of cfg's backend: the hardware decoder (auto: if the GPU has
 * one, else the hybrid path alone), the GPU hybrid one, or for `hybrid`
 * a handle of that backend used only to parse and for its hybrid path.
 * *batched: 0 when there is no batched decoder. */
static nvjpegStatus_t open_handle(nj_engine *e, const nj_config *cfg,
                                  nvjpegHandle_t *h, int *hardware,
                                  int *batched, char *why, size_t why_len)
{
    *hardware = 0;
    *batched = cfg->backend != NJ_BACKEND_HYBRID;
    if (cfg->backend == NJ_BACKEND_GPU_HYBRID)
        return nj_create(e, NVJPEG_BACKEND_GPU_HYBRID, h);
    if (cfg->backend == NJ_BACKEND_HYBRID)
        return nj_create(e, NVJPEG_BACKEND_HYBRID, h);
    /* The switch stands in for nvjpegCreateExV2's refusal on such GPUs. */
    int emulated = nj_emulate_no_engine();
    nvjpegStatus_t st = emulated ? NVJPEG_STATUS_ARCH_MISMATCH
                                 : nj_create(e, NVJPEG_BACKEND_HARDWARE, h);
    if (st == NVJPEG_STATUS_SUCCESS) {
        *hardware = 1;
        return st;
    }
    int none = st == NVJPEG_STATUS_ARCH_MISMATCH ||
               st == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
               st == NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    if (cfg->backend == NJ_BACKEND_HARDWARE && emulated) {
        snprintf(why, why_len, "%s (IMGBATCH_EMULATE_NO_ENGINE=1 runs as "
                 "without one): --nvjpeg-backend hardware cannot run",
                 NJ_NO_ENGINE);
        return st;
    }
    if (cfg->backend == NJ_BACKEND_HARDWARE || !none) {
        snprintf(why, why_len, "%s: nvjpegCreateExV2(NVJPEG_BACKEND_HARDWARE)"
                 " failed: %s (%d)", none ? NJ_NO_ENGINE_HERE : "nvJPEG",
                 nj_status_name(st), (int)st);
        return st;
    }
    /* T4, V100 and most consumer GPUs: no JPEG engine. Measured with the
     * engine's GPU forced both ways (NOTES.md, "GPUs without the hardware
     * decoder"): the hybrid path on the reader threads decodes several
     * times faster than the GPU hybrid backend's batched decode, whose
     * host work stays on the one thread that calls it. */
    nvjpegStatus_t no_hardware = st;
    *batched = 0;
    st = nj_create(e, NVJPEG_BACKEND_HYBRID, h);
    if (cfg->verbose)
        printf("decoder: %s (%s); every JPEG through nvJPEG's hybrid path on "
               "the %d reader threads instead\n",
               emulated ? NJ_NO_ENGINE : NJ_NO_ENGINE_HERE,
               emulated ? "IMGBATCH_EMULATE_NO_ENGINE=1 runs as without one"
                        : nj_status_name(no_hardware), cfg->n_parsers);
    return st;
}

int nj_engine_present(char *why, size_t why_len)
{
    if (nj_emulate_no_engine()) {
        snprintf(why, why_len, "IMGBATCH_EMULATE_NO_ENGINE=1");
        return 0;
    }
    /* A handle of its own, not an engine's: nothing here is counted. */
    nvjpegHandle_t h;
    nvjpegStatus_t st = nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL,
                                       NVJPEG_FLAGS_DEFAULT, &h);
    if (st != NVJPEG_STATUS_SUCCESS) {
        snprintf(why, why_len, "nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE): "
                 "%s", nj_status_name(st));
        return 0;
    }
    unsigned int engines = 0, cores = 0;
    st = nvjpegGetHardwareDecoderInfo(h, &engines, &cores);
    nvjpegStatus_t destroyed = nvjpegDestroy(h);
    if (st == NVJPEG_STATUS_SUCCESS)
        st = destroyed;
    if (st != NVJPEG_STATUS_SUCCESS) {
        snprintf(why, why_len, "nvjpegGetHardwareDecoderInfo: %s",
                 nj_status_name(st));
        return -1;
    }
    snprintf(why, why_len, "nvJPEG hardware decoder, %u engines", engines);
    return 1;
}

/* Room for n decode states of one output format; each is made by
 * open_state, on a thread of its own. Returns 0, or -1 with why. */
static int make_states(nj_engine *e, nj_states *s,
                       nvjpegOutputFormat_t format,
                       nvjpegChromaSubsampling_t most, char *why,
                       size_t why_len)
{
    s->format = format;
    s->most = most;
    s->state = (nvjpegJpegState_t *)ib_calloc((size_t)e->n_states,
                                              sizeof *s->state);
    s->initialized_n = (int *)ib_calloc((size_t)e->n_states, sizeof(int));
    if (!s->state || !s->initialized_n) {
        snprintf(why, why_len, "not enough memory for nvJPEG's states");
        return -1;
    }
    for (int k = 0; k < e->n_states; k++)
        s->initialized_n[k] = -1;
    return 0;
}

/* The hardware backend's buffers of state k for the largest batch, now,
 * so that no batch waits for cudaMalloc (not fatal if refused: nvJPEG
 * then allocates at the first batches, which the warm-up takes, and the
 * report counts them). */
static void preallocate(nj_engine *e, const nj_config *cfg, nj_states *s,
                        int k)
{
    nvjpegStatus_t st = nvjpegDecodeBatchedPreAllocate(
        e->handle, s->state[k], cfg->max_batch, (int)cfg->max_width,
        (int)cfg->max_height, s->most, s->format);
    if (st != NVJPEG_STATUS_SUCCESS && k == 0 && e->verbose)
        printf("decoder: nvjpegDecodeBatchedPreAllocate refused: %s "
               "(%d)\n", nj_status_name(st), (int)st);
}

/* State k of s, and with the hardware backend its buffers. Returns 0,
 * or -1 with why. */
static int open_state(nj_engine *e, const nj_config *cfg, nj_states *s,
                      int k, char *why, size_t why_len)
{
    if (NJ_FAILED(nvjpegJpegStateCreate(e->handle, &s->state[k]), why,
                  why_len)) {
        s->state[k] = NULL;
        return -1;
    }
    if (e->hardware)
        preallocate(e, cfg, s, k);
    return 0;
}

/* Destroys what make_states and open_state made (the states are zeroed
 * until made). */
static void destroy_states(nj_states *s, int n)
{
    for (int k = 0; s->state && k < n; k++)
        if (s->state[k])
            (void)nvjpegJpegStateDestroy(s->state[k]);
    free(s->state);
    free(s->initialized_n);
    s->state = NULL;
    s->initialized_n = NULL;
}

/* The readers' side: a handle of its own for their parses (the main one
 * if a second fails) and one parsed-stream object a thread. */
static int open_screen(nj_engine *e, const nj_config *cfg, char *why,
                       size_t why_len)
{
    e->screen_handle = e->handle;
    if (e->hardware &&
        nj_create(e, NVJPEG_BACKEND_HARDWARE, &e->screen_handle) !=
            NVJPEG_STATUS_SUCCESS)
        e->screen_handle = e->handle;
    for (int t = 0; t < cfg->n_parsers; t++)
        if (NJ_FAILED(nvjpegJpegStreamCreate(e->screen_handle,
                                             &e->parsers[t]), why, why_len))
            return -1;
    return 0;
}

/* One part of the open, made on a thread of its own: each nvJPEG handle
 * costs a quarter of a second or more to create, and each decode state
 * of the hardware backend about a sixth of a second (measured on an
 * H100; NOTES.md, "Opening 100,000 files"). The handle is thread safe, a
 * state is used by one thread at a time, and each part writes only its
 * own fields of the engine. */
typedef enum { PART_SCREEN, PART_HYBRID, PART_STATE } part_kind;

typedef struct {
    nj_engine *e;
    const nj_config *cfg;
    int device;   /* a new thread's CUDA calls go to device 0 otherwise */
    part_kind kind;
    nj_states *states;  /* PART_STATE: states->state[k] */
    int k;
    int started;
    pthread_t thread;
    int rc;
    char why[256];
} open_part;

static void *open_part_run(void *arg)
{
    open_part *p = (open_part *)arg;
    p->rc = -1;
    if (IB_CUDA(cudaSetDevice(p->device), p->why, sizeof p->why))
        return NULL;
    p->rc = 0;
    if (p->kind == PART_STATE)
        p->rc = open_state(p->e, p->cfg, p->states, p->k, p->why,
                           sizeof p->why);
    else if (p->kind == PART_HYBRID)
        p->rc = nj_open_hybrid(p->e, p->why, sizeof p->why);
    else
        p->rc = open_screen(p->e, p->cfg, p->why, sizeof p->why);
    return NULL;
}

/* The engine's parts after its handle; 0, or -1 with why. The readers'
 * handle, the hybrid path's and each state with its buffers are made at
 * once, each on a thread of its own; a part whose thread cannot start is
 * made here after. */
static int open_parts(nj_engine *e, const nj_config *cfg, char *why,
                      size_t why_len)
{
    e->parsers = (nvjpegJpegStream_t *)ib_calloc((size_t)cfg->n_parsers,
                                                 sizeof *e->parsers);
    e->planes = (nvjpegImage_t *)ib_calloc((size_t)cfg->max_batch,
                                           sizeof *e->planes);
    /* the screen, the hybrid path, and up to two sets of states */
    size_t n_parts = 2 + 2 * (size_t)e->n_states;
    open_part *parts = (open_part *)ib_calloc(n_parts, sizeof *parts);
    if (!e->parsers || !e->planes || !parts) {
        free(parts);
        snprintf(why, why_len, "not enough memory for nvJPEG's batch "
                 "lists");
        return -1;
    }
    int device = 0, rc = 0;
    if (IB_CUDA(cudaGetDevice(&device), why, why_len) ||
        (e->batched &&
         (make_states(e, &e->main,
                      cfg->rgb ? NVJPEG_OUTPUT_RGB : NVJPEG_OUTPUT_Y,
                      NVJPEG_CSS_444, why, why_len) != 0 ||
          (cfg->rgb && make_states(e, &e->gray, NVJPEG_OUTPUT_Y,
                                   NVJPEG_CSS_GRAY, why, why_len) != 0)))) {
        free(parts);
        return -1;
    }
    /* the batched decoder's states, each with its buffers (open_state) */
    size_t n_states = e->batched ? (size_t)e->n_states * (cfg->rgb ? 2 : 1)
                                 : 0;
    size_t used = 2 + n_states;
    for (size_t k = 0; k < used; k++) {
        open_part *p = &parts[k];
        p->e = e;
        p->cfg = cfg;
        p->device = device;
        p->kind = k == 0 ? PART_SCREEN : k == 1 ? PART_HYBRID : PART_STATE;
        if (k >= 2) {
            size_t i = k - 2;
            p->states = i < (size_t)e->n_states ? &e->main : &e->gray;
            p->k = (int)(i % (size_t)e->n_states);
        }
        p->started = pthread_create(&p->thread, NULL, open_part_run, p) == 0;
    }
    for (size_t k = 0; k < used; k++) {
        if (parts[k].started)
            pthread_join(parts[k].thread, NULL);
        else
            open_part_run(&parts[k]);
        if (parts[k].rc != 0 && rc == 0) {
            snprintf(why, why_len, "%s", parts[k].why);
            rc = -1;
        }
    }
    free(parts);
    if (rc != 0)
        return -1;
    if (e->hardware) {
        unsigned int engines = 0, cores = 0;
        if (NJ_FAILED(nvjpegGetHardwareDecoderInfo(e->handle, &engines,
                                                   &cores), why, why_len))
            return -1;
        snprintf(e->text, sizeof e->text, "nvJPEG hardware decoder (%u "
                 "engines, %u cores each)", engines, cores);
    } else {
        snprintf(e->text, sizeof e->text, "%s",
                 e->batched ? "nvJPEG GPU hybrid backend"
                            : "no batched decoder: every JPEG on nvJPEG's "
                              "hybrid path");
    }
    return 0;
}

nj_engine *nj_open(const nj_config *cfg, int *fatal, char *why,
                   size_t why_len)
{
    *fatal = 1;
    why[0] = '\0';
    nj_engine *e = (nj_engine *)ib_calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, why_len, "not enough memory for nvJPEG's engine");
        return NULL;
    }
    e->dev_allocator.dev_malloc = count_dev_malloc;
    e->dev_allocator.dev_free = count_dev_free;
    e->dev_allocator.dev_ctx = &e->counts;
    e->pinned_allocator.pinned_malloc = count_pinned_malloc;
    e->pinned_allocator.pinned_free = count_pinned_free;
    e->pinned_allocator.pinned_ctx = &e->counts;
    e->verbose = cfg->verbose;
    e->rgb = cfg->rgb;
    e->n_parsers = cfg->n_parsers;
    e->n_states = cfg->n_states;
    e->max_batch = cfg->max_batch;
    nvjpegStatus_t st = open_handle(e, cfg, &e->handle, &e->hardware,
                                    &e->batched, why, why_len);
    if (st != NVJPEG_STATUS_SUCCESS) {
        if (!why[0])
            snprintf(why, why_len, "nvjpegCreateExV2 failed: %s (%d)",
                     nj_status_name(st), (int)st);
        /* No backend here that cfg allows; but memory, or a broken
         * nvJPEG, is a failure. */
        *fatal = st == NVJPEG_STATUS_ALLOCATOR_FAILURE ||
                 st == NVJPEG_STATUS_EXECUTION_FAILED ||
                 st == NVJPEG_STATUS_INTERNAL_ERROR;
        e->handle = NULL;
        nj_close(e);
        return NULL;
    }
    if (open_parts(e, cfg, why, why_len) != 0) {
        nj_close(e);
        return NULL;
    }
    *fatal = 0;
    return e;
}

const char *nj_describe(const nj_engine *e) { return e->text; }

int nj_batched(const nj_engine *e) { return e->batched; }

int nj_hardware(const nj_engine *e) { return e->hardware; }

const char *nj_screen(nj_engine *e, int parser, const uint8_t *data,
                      size_t len)
{
    nvjpegJpegStream_t s = e->parsers[parser];
    /* The whole stream, not its header alone: a stream corrupt past its
     * header fails the hardware decoder's batch, and the parse finds
     * some of those. Not NVJPEG_CHECK: a file nvJPEG cannot parse is not
     * our error; it goes to the CPU, whose decoder says what is wrong
     * with it. */
    nvjpegStatus_t st =
        nvjpegJpegStreamParse(e->screen_handle, data, len, 0, 0, s);
    if (st != NVJPEG_STATUS_SUCCESS)
        return "nvjpegJpegStreamParse refused it";
    if (!e->hardware)
        return NULL;  /* the GPU hybrid backend takes every parsed one */
    int refused = 1;
    st = nvjpegDecodeBatchedSupported(e->screen_handle, s, &refused);
    if (st != NVJPEG_STATUS_SUCCESS)
        return "nvjpegDecodeBatchedSupported failed on it";
    /* Beware the sense: 0 means supported. */
    return refused ? "refused by nvjpegDecodeBatchedSupported" : NULL;
}

int nj_parsed_size(nj_engine *e, int parser, size_t *width, size_t *height)
{
    unsigned int w = 0, h = 0;
    if (nvjpegJpegStreamGetFrameDimensions(e->parsers[parser], &w, &h) !=
        NVJPEG_STATUS_SUCCESS)
        return -1;
    *width = w;
    *height = h;
    return 0;
}

int nj_decode(nj_engine *e, int slot, int gray_files, cudaStream_t stream,
              const uint8_t *const *data, const size_t *lengths,
              const nj_dest *dests, int n, char *why, size_t why_len)
{
    nj_states *s = gray_files && e->rgb ? &e->gray : &e->main;
    int planes = s->format == NVJPEG_OUTPUT_RGB ? 3 : 1;
    nvjpegStatus_t st = NVJPEG_STATUS_SUCCESS;
    if (n != s->initialized_n[slot]) {
        /* One host thread feeds the decoder. Buffers were allocated for
         * max_batch, so this only resets. */
        st = nvjpegDecodeBatchedInitialize(e->handle, s->state[slot], n, 1,
                                           s->format);
        if (st != NVJPEG_STATUS_SUCCESS) {
            snprintf(why, why_len, "nvjpegDecodeBatchedInitialize(%d) "
                     "failed: %s (%d)", n, nj_status_name(st), (int)st);
            s->initialized_n[slot] = -1;
            return -1;
        }
        s->initialized_n[slot] = n;
    }
    for (int i = 0; i < n; i++) {
        size_t plane = dests[i].width * dests[i].height;
        memset(&e->planes[i], 0, sizeof e->planes[i]);
        for (int c = 0; c < planes; c++) {
            e->planes[i].channel[c] = dests[i].plane0 + (size_t)c * plane;
            e->planes[i].pitch[c] = dests[i].width;
        }
    }
    st = nvjpegDecodeBatched(e->handle, s->state[slot], data, lengths,
                             e->planes, stream);
    if (st != NVJPEG_STATUS_SUCCESS) {
        snprintf(why, why_len, "nvjpegDecodeBatched failed: %s (%d)",
                 nj_status_name(st), (int)st);
        s->initialized_n[slot] = -1;  /* a failed batch must be reset */
        return -1;
    }
    return 0;
}

void nj_allocations(const nj_engine *e, nj_memory *m)
{
    memset(m, 0, sizeof *m);
    if (!e)
        return;
    m->device_allocs = __atomic_load_n(&e->counts.device_allocs,
                                       __ATOMIC_RELAXED);
    m->device_bytes = __atomic_load_n(&e->counts.device_bytes,
                                      __ATOMIC_RELAXED);
    m->pinned_allocs = __atomic_load_n(&e->counts.pinned_allocs,
                                       __ATOMIC_RELAXED);
    m->pinned_bytes = __atomic_load_n(&e->counts.pinned_bytes,
                                      __ATOMIC_RELAXED);
}

/* Whatever nj_open made, also half-way: a failure to destroy leaves
 * nothing to do but go on. */
void nj_close(nj_engine *e)
{
    if (!e)
        return;
    nj_close_hybrid(e);
    for (int t = 0; e->parsers && t < e->n_parsers; t++)
        if (e->parsers[t])
            (void)nvjpegJpegStreamDestroy(e->parsers[t]);
    destroy_states(&e->main, e->n_states);
    destroy_states(&e->gray, e->n_states);
    if (e->screen_handle && e->screen_handle != e->handle)
        (void)nvjpegDestroy(e->screen_handle);
    if (e->handle)
        (void)nvjpegDestroy(e->handle);
    free(e->parsers);
    free(e->planes);
    free(e);
}

#endif /* CM_HAVE_NVJPEG */
