/* imgbatch_api.cu - the batch tool as a library (imgbatch.h): the
 * options checked, the files collected and checked, the device, the
 * decoders and the pipeline opened; batches handed out one by one
 * (pipeline.cu); everything closed. The CLI (imgbatch.cu) and the
 * example (example.cu) both go through it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cpus.h"
#include "device.h"
#include "timing.h"

#include "imgbatch.h"
#include "imgbatch_say.h"
#include "pipeline.h"
#include "sampler.h"

#ifndef CM_BUILT_SMS
#define CM_BUILT_SMS ""
#endif

/* Images a batch by default: as many as make BATCH_PIXELS samples of
 * decoded planes or of tensor, whichever is larger, so that each buffer
 * stays near 640 MiB of device memory, from 16 to 256. */
static const size_t BATCH_PIXELS = (size_t)1 << 27;
static const size_t MIN_DEFAULT_BATCH = 16, MAX_DEFAULT_BATCH = 256;
static const int DEFAULT_STREAMS = 2;
enum { MAX_READERS = 8 };

struct imgbatch {
    imgbatch_options o;
    path_list list;
    batch_source src;
    tf_spec spec;
    size_t *bytes, skipped, file_bytes, jpegs;
    decoder_plan plan;
    decoder *dec;
    reader_pool *pool;
    batch_run run;
    int passing, done;
    int device;                /* -1 until it is selected */
    /* imgbatch_read_on: the caller's streams that read the batch held,
     * and the event that makes the batch's stream wait for them */
    cudaStream_t readers[MAX_READERS];
    int n_readers;
    cudaEvent_t read_done;
    size_t max_batch;          /* images a batch */
    sampler order_of;          /* each pass's order ... */
    size_t *perm, *order;      /* ... made here (NULL: files in turn) */
    uint64_t epoch;            /* of the pass under way, or the next */
};

/* 1 if the reason why is an allocation's failure: our own "not enough
 * ... memory", CUDA's cudaErrorMemoryAllocation ("out of memory"),
 * nvJPEG's allocator failure; not, say, "an illegal memory access". */
static int ran_out(const char *why)
{
    return strstr(why, "not enough memory") ||
           strstr(why, "not enough host memory") ||
           strstr(why, "not enough GPU memory") ||
           strstr(why, "out of memory") ||
           strstr(why, "cudaErrorMemoryAllocation") ||
           strstr(why, "ALLOCATOR_FAILURE");
}

/* The status of a failed call whose reason is why: memory, or CUDA. */
static imgbatch_status failed_call(const char *why)
{
    return ib_fail(ran_out(why) ? IMGBATCH_ERR_MEMORY : IMGBATCH_ERR_CUDA,
                   "%s", why);
}

/* cm_select_device's checks, returning a reason instead of exiting. */
static imgbatch_status select_device(int index, int verbose)
{
    const char *no = "no usable CUDA device: ";
    int count = 0, driver = 0, runtime = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver) {
        (void)cudaDriverGetVersion(&driver);
        (void)cudaRuntimeGetVersion(&runtime);
        if (driver == 0)
            return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sno NVIDIA driver or GPU "
                        "found", no);
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sthe NVIDIA driver supports "
                    "CUDA %d.%d, older than this program's CUDA runtime "
                    "%d.%d", no, driver / 1000, driver % 1000 / 10,
                    runtime / 1000, runtime % 1000 / 10);
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sthe driver reports no GPU "
                    "(check nvidia-smi and CUDA_VISIBLE_DEVICES)", no);
    if (err != cudaSuccess)
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%s%s: %s", no,
                    cudaGetErrorName(err), cudaGetErrorString(err));
    if (index < 0 || index >= count)
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sdevice %d asked for, but "
                    "there %s %d", no, index, count == 1 ? "is" : "are",
                    count);
    struct cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, index);
    if (err != cudaSuccess)
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sdevice %d: %s: %s", no,
                       index, cudaGetErrorName(err), cudaGetErrorString(err));
    if (!cm_sms_can_run(CM_BUILT_SMS, prop.major, prop.minor))
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sdevice %d (%s) has compute "
                    "capability %d.%d, but this program was built for "
                    "SMS=\"%s\"", no, index, prop.name, prop.major,
                    prop.minor, CM_BUILT_SMS);
    err = cudaSetDevice(index);
    if (err == cudaSuccess)
        err = cudaFree(0);  /* the context, now */
    if (err != cudaSuccess)
        return ib_fail(IMGBATCH_ERR_NO_DEVICE, "%sdevice %d (%s) takes no new "
                    "process now [%s]", no, index, prop.name,
                    cudaGetErrorName(err));
    if (cudaDriverGetVersion(&driver) != cudaSuccess ||
        cudaRuntimeGetVersion(&runtime) != cudaSuccess)
        (void)cudaGetLastError();  /* only said, below */
    if (verbose)
        printf("device %d: %s, compute capability %d.%d, %.2f GiB, %d SMs "
               "(driver CUDA %d.%d, runtime %d.%d)\n", index, prop.name,
               prop.major, prop.minor,
               (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
               prop.multiProcessorCount, driver / 1000, driver % 1000 / 10,
               runtime / 1000, runtime % 1000 / 10);
    return IMGBATCH_OK;
}

/* A reason from the file checks: memory that ran out, or the input. */
static imgbatch_status input_failed(const char *why)
{
    return ib_fail(ran_out(why) ? IMGBATCH_ERR_MEMORY : IMGBATCH_ERR_INPUT,
                   "%s", why);
}

/* The files, collected and each checked (no GPU yet). */
static imgbatch_status open_files(imgbatch *b)
{
    const imgbatch_options *o = &b->o;
    char err[BATCH_ERR_LEN];
    char *folder[1] = {(char *)o->folder};
    char **args = o->folder ? folder : (char **)o->files;
    int n = o->folder ? 1 : (int)o->n_files;
    inputs_request q = {.args = o->list ? NULL : args,
                        .n_args = o->list ? 0 : n, .list_file = o->list,
                        .class_folders = o->class_folders,
                        .skipped = o->verbose ? stderr : NULL};
    if (inputs_gather(&q, &b->list, err, sizeof err) != 0)
        return input_failed(err);
    b->src.list = &b->list;
    b->src.channels = b->spec.channels;
    b->src.spec = &b->spec;
    b->src.max_pixels = o->max_pixels;
    b->src.threads = o->threads;
    b->src.exif = o->exif;
    double start = cm_now_ms();
    size_t files = b->list.count;
    if (inputs_check(&b->src, o->skip_bad, o->verbose, &b->skipped,
                     &b->file_bytes, err, sizeof err) != 0)
        return input_failed(err);
    if (b->spec.mode == TF_SAME) {
        b->spec.out_w = b->src.same_width;
        b->spec.out_h = b->src.same_height;
    }
    /* The check read every file: its size, and whether it is a JPEG. */
    b->bytes = b->src.bytes;
    b->src.bytes = NULL;
    b->jpegs = b->src.jpegs;
    if (!o->verbose)
        return IMGBATCH_OK;
    say_files(&b->list, &b->src, files, b->skipped, cm_now_ms() - start);
    say_classes(&b->list, o->folder);
    say_transform(&b->spec);
    return IMGBATCH_OK;
}

static size_t batch_size(const imgbatch *b)
{
    size_t n = b->list.count, sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += b->src.width[i] * b->src.height[i];
    size_t planes = sum / n, out = b->spec.out_w * b->spec.out_h;
    size_t pixels = (planes > out ? planes : out) *
                    (size_t)b->spec.channels;
    size_t by_size = BATCH_PIXELS / (pixels ? pixels : 1);
    return b->o.batch_size ? b->o.batch_size
           : by_size > MAX_DEFAULT_BATCH ? MAX_DEFAULT_BATCH
           : by_size < MIN_DEFAULT_BATCH ? MIN_DEFAULT_BATCH
                                         : by_size;
}

/* The batch size, and each pass's order (sampler.h): a batch holds at
 * most the images of a pass, unless drop_last was given a larger batch
 * size (no whole batch: refused). b->order stays NULL when every pass
 * is the files in turn. */
static imgbatch_status plan_order(imgbatch *b)
{
    const imgbatch_options *o = &b->o;
    char err[256];
    sampler_config c = {.n = b->list.count, .shuffle = o->shuffle,
                        .seed = o->seed, .rank = (size_t)o->rank,
                        .world_size = (size_t)o->world_size,
                        .drop_last = o->drop_last, .batch_size = 1};
    sampler *s = &b->order_of;
    if (sampler_init(s, &c, err, sizeof err) != 0)
        return ib_fail(IMGBATCH_ERR_INPUT, "%s", err);
    size_t m = batch_size(b);
    if (!(o->drop_last && o->batch_size) && m > s->per_rank)
        m = s->per_rank;
    c.batch_size = m;
    if (sampler_init(s, &c, err, sizeof err) != 0)
        return ib_fail(IMGBATCH_ERR_INPUT, "%s", err);
    b->max_batch = m;
    if (sampler_is_identity(s))
        return IMGBATCH_OK;
    b->perm = (size_t *)ib_malloc(c.n * sizeof(size_t));
    b->order = (size_t *)ib_malloc(s->count * sizeof(size_t));
    if (!b->perm || !b->order)
        return ib_fail(IMGBATCH_ERR_MEMORY, "not enough memory for the "
                       "order of %zu images", c.n);
    if (o->verbose)
        say_order(s);
    return IMGBATCH_OK;
}

static imgbatch_status close_loader(imgbatch *b, char *why,
                                    size_t why_len);

/* The pipeline's pinned buffers, made on a thread of their own while the
 * decoders open: 0.36 to 0.44 s for 2,000 wild files as RGB float16
 * crops on an H100 (NOTES.md, "Opening 100,000 files"). */
typedef struct {
    batch_run *r;
    int device, rc, cuda, started;
    pthread_t thread;
    char why[BATCH_ERR_LEN];
} pin_job;

static void *pin_run(void *arg)
{
    pin_job *j = (pin_job *)arg;
    j->cuda = 1;
    j->rc = IB_CUDA(cudaSetDevice(j->device), j->why, sizeof j->why)
                ? -1 : pipeline_pin(j->r, &j->cuda, j->why, sizeof j->why);
    return NULL;
}

/* The GPU part of imgbatch_open, on the loader's device: the decoders,
 * the reader threads, the pipeline. */
static imgbatch_status open_gpu(imgbatch *b)
{
    const imgbatch_options *o = &b->o;
    int threads = o->threads ? o->threads : inputs_default_threads();
    /* A split keeps the readers as busy as the main thread, which then
     * needs a core of its own. */
    if (!o->threads && o->hybrid_share != 0 && threads > 1 &&
        threads >= cm_cpu_count())
        threads--;
    int streams = o->streams ? o->streams : DEFAULT_STREAMS;
    size_t max_batch = b->max_batch;
    if (!(b->pool = rp_start(threads)))
        return ib_fail(IMGBATCH_ERR_MEMORY, "cannot start the reader "
                       "threads");
    if (o->verbose && b->plan.note)
        printf("decoder: %s\n", b->plan.note);
    size_t max_w = 0, max_h = 0, free0, free1, total;
    for (size_t i = 0; i < b->list.count; i++) {
        max_w = b->src.width[i] > max_w ? b->src.width[i] : max_w;
        max_h = b->src.height[i] > max_h ? b->src.height[i] : max_h;
    }
    decoder_config dc = {.plan = &b->plan, .src = &b->src,
                         .max_batch = (int)max_batch, .threads = threads,
                         .states = streams, .max_width = max_w,
                         .max_height = max_h,
                         .backend = (nj_backend)o->backend,
                         .verbose = o->verbose};
    char why[BATCH_ERR_LEN];
    int fatal;
    if (IB_CUDA(cudaMemGetInfo(&free0, &total), why, sizeof why))
        return failed_call(why);
    batch_run *r = &b->run;
    r->o = &b->o;
    r->src = &b->src;
    r->spec = &b->spec;
    r->bytes = b->bytes;
    r->pool = b->pool;
    r->threads = threads;
    r->streams = streams;
    r->max_batch = max_batch;
    r->order = b->order;
    r->pass_images = b->order ? b->order_of.count : 0;
    pin_job pin = {.r = r, .device = b->device};
    pin.started = pthread_create(&pin.thread, NULL, pin_run, &pin) == 0;
    b->dec = decoder_open(&dc, &fatal, why, sizeof why);
    if (pin.started)
        pthread_join(pin.thread, NULL);
    else
        pin_run(&pin);
    if (!b->dec) {
        if (fatal)
            return failed_call(why);
        /* --nvjpeg-backend hardware on a GPU without a JPEG engine */
        int no_engine = strncmp(why, NJ_NO_ENGINE, strlen(NJ_NO_ENGINE)) == 0;
        return ib_fail(no_engine ? IMGBATCH_ERR_NO_DEVICE : IMGBATCH_ERR_INPUT,
                       "%s", why);
    }
    if (IB_CUDA(cudaMemGetInfo(&free1, &total), why, sizeof why))
        return failed_call(why);
    if (o->verbose)
        printf("decoder: %s; %d reader threads (CPU decodes: stb_image), "
               "batches of %zu images\n", decoder_describe(b->dec), threads,
               max_batch);
    if (pin.rc != 0)
        return pin.cuda ? failed_call(pin.why)
                        : ib_fail(IMGBATCH_ERR_MEMORY, "%s", pin.why);
    r->dec = b->dec;
    r->nvjpeg_device_bytes = free0 > free1 ? free0 - free1 : 0;
    int cuda;
    if (pipeline_start(r, &cuda, why, sizeof why) != 0)
        return cuda ? failed_call(why)
                    : ib_fail(IMGBATCH_ERR_MEMORY, "%s", why);
    return IMGBATCH_OK;
}

/* The batch held was read on the caller's streams (imgbatch_read_on):
 * its stream waits for the work enqueued there by now, so that the
 * event the pipeline records next on it (release_handed) comes after
 * that work too. On the loader's device. Returns 0, or -1 with why. */
static int release_readers(imgbatch *b, char *why, size_t why_len)
{
    batch_run *r = &b->run;
    int n = b->n_readers;
    b->n_readers = 0;
    if (!r->handed)
        return 0;
    cudaStream_t lane = r->lanes[r->handed->lane];
    for (int k = 0; k < n; k++)
        if (IB_CUDA(cudaEventRecord(b->read_done, b->readers[k]), why,
                    why_len) ||
            IB_CUDA(cudaStreamWaitEvent(lane, b->read_done, 0), why,
                    why_len))
            return -1;
    return 0;
}

imgbatch_status imgbatch_read_on(imgbatch *b, cudaStream_t stream)
{
    if (!b)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_read_on: the loader "
                       "is NULL");
    batch_run *r = &b->run;
    if (r->failed)
        return ib_fail(r->cuda_failed ? IMGBATCH_ERR_CUDA
                                      : IMGBATCH_ERR_INPUT, "%s", r->error);
    if (!r->handed)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_read_on: no batch "
                       "is held (imgbatch_next gave none since the last "
                       "step)");
    for (int k = 0; k < b->n_readers; k++)
        if (b->readers[k] == stream)
            return IMGBATCH_OK;
    if (b->n_readers == MAX_READERS)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_read_on: at most %d "
                       "streams a batch", (int)MAX_READERS);
    int caller;
    char why[BATCH_ERR_LEN];
    if (IB_CUDA(ib_enter_device(b->device, &caller), why, sizeof why))
        return failed_call(why);
    int bad = (!b->read_done &&
               IB_CUDA(cudaEventCreateWithFlags(&b->read_done,
                                                cudaEventDisableTiming),
                       why, sizeof why)) ||
              IB_CUDA(cudaStreamWaitEvent(stream, r->handed->done, 0), why,
                      sizeof why);
    ib_leave_device(b->device, caller);
    if (bad)
        return failed_call(why);
    b->readers[b->n_readers++] = stream;
    return IMGBATCH_OK;
}

imgbatch_status imgbatch_open(imgbatch **out, const imgbatch_options *o)
{
    if (!out || !o)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_open: %s is NULL",
                       out ? "the options" : "the loader's address");
    *out = NULL;
    imgbatch *b = (imgbatch *)ib_calloc(1, sizeof *b);
    if (!b)
        return ib_fail(IMGBATCH_ERR_MEMORY, "not enough memory");
    b->o = *o;
    b->device = -1;
    imgbatch_status st = ib_check_options(o, &b->spec);
    if (st == IMGBATCH_OK)
        st = open_files(b);
    if (st == IMGBATCH_OK)
        st = plan_order(b);
    if (st == IMGBATCH_OK) {
        b->plan = decoder_choose((decoder_request)o->decoder, nj_built(),
                                 b->jpegs > 0);
        if (b->plan.fail)
            st = ib_fail(IMGBATCH_ERR_INPUT, "%s", b->plan.note);
    }
    /* The caller's device is given back whatever happens: the loader
     * keeps its own. */
    int caller = ib_current_device();
    if (st == IMGBATCH_OK)
        st = select_device(o->device, o->verbose);
    if (st == IMGBATCH_OK) {
        b->device = o->device;
        st = open_gpu(b);
    }
    if (st != IMGBATCH_OK) {
        char why[BATCH_ERR_LEN];  /* the first failure is the reason */
        (void)close_loader(b, why, sizeof why);
        ib_leave_device(o->device, caller);
        return st;
    }
    ib_leave_device(b->device, caller);
    *out = b;
    return IMGBATCH_OK;
}

int imgbatch_next(imgbatch *b, imgbatch_batch *out)
{
    if (!b || !out) {
        ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_next: %s is NULL",
                b ? "the batch" : "the loader");
        return -1;
    }
    batch_run *r = &b->run;
    if (r->failed) {
        ib_fail(r->cuda_failed ? IMGBATCH_ERR_CUDA : IMGBATCH_ERR_INPUT, "%s",
                r->error);
        return -1;
    }
    if (b->done)
        return 0;
    int caller;
    char why[BATCH_ERR_LEN];
    if (IB_CUDA(ib_enter_device(b->device, &caller), why, sizeof why)) {
        failed_call(why);
        return -1;
    }
    batch_buf *x = NULL;
    int rc = 0;
    if (release_readers(b, why, sizeof why) != 0) {
        ib_leave_device(b->device, caller);
        failed_call(why);
        return -1;
    }
    if (!b->passing) {
        /* This epoch's order, before the pass's first reads. */
        if (b->order)
            sampler_order(&b->order_of, b->epoch, b->perm, b->order);
        rc = pipeline_begin(r) == 0 ? 0 : -1;
        b->passing = rc == 0;
    }
    if (rc == 0)
        rc = pipeline_next(r, &x);
    ib_leave_device(b->device, caller);
    if (rc == 0) {
        b->passing = 0;
        b->done = 1;
        r->quiet = 1;  /* a skipped file is said once */
    }
    if (rc < 0)
        ib_fail(r->cuda_failed ? IMGBATCH_ERR_CUDA : IMGBATCH_ERR_INPUT, "%s",
                r->error);
    if (rc != 1)
        return rc;
    memset(out, 0, sizeof *out);
    out->data = x->d_out;
    out->count = x->good;
    out->channels = (size_t)b->spec.channels;
    out->height = b->spec.out_h;
    out->width = b->spec.out_w;
    out->dtype = b->o.dtype;
    out->bytes = x->good * r->image_bytes;
    out->first = x->out_first;
    out->stream = r->lanes[x->lane];
    out->ready = x->done;
    out->files = x->names;
    out->host = x->h_out;
    out->labels = b->list.labels ? x->labels : NULL;
    return 1;
}

imgbatch_status imgbatch_rewind(imgbatch *b)
{
    if (!b)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_rewind: the loader "
                       "is NULL");
    batch_run *r = &b->run;
    if (b->passing && !r->failed) {
        int caller;
        char why[BATCH_ERR_LEN];
        if (IB_CUDA(ib_enter_device(b->device, &caller), why, sizeof why))
            return failed_call(why);
        int readers_failed = release_readers(b, why, sizeof why);
        pipeline_drain(r);
        ib_leave_device(b->device, caller);
        if (readers_failed)
            return failed_call(why);
    }
    if (r->failed)
        return ib_fail(r->cuda_failed ? IMGBATCH_ERR_CUDA
                                      : IMGBATCH_ERR_INPUT, "%s", r->error);
    /* A pass that began (a batch asked for) was this epoch's. */
    if (b->passing || b->done)
        b->epoch++;
    b->passing = b->done = 0;
    return IMGBATCH_OK;
}

imgbatch_status imgbatch_get_info(const imgbatch *b, imgbatch_info *info)
{
    if (!b || !info)
        return ib_fail(IMGBATCH_ERR_OPTIONS, "imgbatch_get_info: %s is NULL",
                       b ? "the info" : "the loader");
    const batch_run *r = &b->run;
    memset(info, 0, sizeof *info);
    info->images = b->list.count;
    info->pass_images = b->order ? b->order_of.count : b->list.count;
    info->channels = (size_t)b->spec.channels;
    info->height = b->spec.out_h;
    info->width = b->spec.out_w;
    info->dtype = b->o.dtype;
    info->image_bytes = r->image_bytes;
    info->batch_images = r->max_batch;
    info->tensor = r->d_tensor;
    info->tensor_bytes = r->d_tensor ? r->tensor_bytes : 0;
    info->classes = b->list.classes;
    info->class_names = (const char *const *)b->list.class_names;
    info->unread = b->list.unread;
    return IMGBATCH_OK;
}

/* Frees everything the loader holds, on its device. Returns IMGBATCH_OK,
 * or a status with why when a CUDA call failed on the way (the rest is
 * freed all the same). */
static imgbatch_status close_loader(imgbatch *b, char *why, size_t why_len)
{
    imgbatch_status st = IMGBATCH_OK;
    int caller = -1, on_device = b->device >= 0;
    /* Without its device nothing of the GPU can be freed; the host's
     * memory still is. */
    if (on_device && IB_CUDA(ib_enter_device(b->device, &caller), why,
                             why_len)) {
        st = IMGBATCH_ERR_CUDA;
        on_device = 0;
    }
    if (on_device && release_readers(b, why, why_len) != 0)
        st = IMGBATCH_ERR_CUDA;
    if (on_device && b->run.o) {
        int was_failed = b->run.cuda_failed;
        if (pipeline_stop(&b->run) != 0 && !was_failed) {
            snprintf(why, why_len, "%s", b->run.error);
            st = IMGBATCH_ERR_CUDA;
        }
    }
    if (on_device)
        decoder_close(b->dec);
    if (on_device && b->read_done &&
        IB_CUDA(cudaEventDestroy(b->read_done), why, why_len))
        st = IMGBATCH_ERR_CUDA;
    if (b->pool)
        rp_stop(b->pool);
    if (on_device)
        ib_leave_device(b->device, caller);
    inputs_free(&b->src);
    path_list_free(&b->list);
    free(b->bytes);
    free(b->perm);
    free(b->order);
    free(b);
    return st;
}

imgbatch_status imgbatch_close(imgbatch *b)
{
    if (!b)
        return IMGBATCH_OK;
    char why[BATCH_ERR_LEN];
    imgbatch_status st = close_loader(b, why, sizeof why);
    return st == IMGBATCH_OK ? st : ib_fail(st, "%s", why);
}

batch_run *imgbatch_run(imgbatch *b) { return &b->run; }

void imgbatch_file_counts(const imgbatch *b, size_t *skipped,
                          size_t *file_bytes)
{
    *skipped = b->skipped;
    *file_bytes = b->file_bytes;
}
