/* pipeline_setup.cu - the pipeline's buffers (pipeline.h), allocated
 * once before the first batch and freed after the last: the batch
 * buffers in turn (pinned files, the arena of decoded planes and its
 * pinned staging, the kernel's table, the batch's tensor images), the
 * whole tensor when it is kept and fits, the CUDA streams and events,
 * the readers' counts; the CLI's check (its picks' rows, sized by
 * --check-images, pipeline_check_start) and each pass's picks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "units.h"

#include "batch_check.h"
#include "pipeline.h"

/* GPU memory left free beside our buffers, the whole tensor or the
 * batches' own: nvJPEG grows its buffers for files larger than it was
 * told of, its hybrid path's grow with each thread's largest file, and
 * the caller's kernels need some. */
static const size_t RESERVE_BYTES = (size_t)512 << 20;
static const size_t RESERVE_SHARE = 20;  /* or 1/20 of the GPU, if more */

size_t pipeline_slot_bytes(const batch_run *r, size_t image)
{
    size_t bytes = (size_t)r->src->channels * r->src->width[image] *
                   r->src->height[image];
    return (bytes + 255) / 256 * 256;
}

static size_t file_bytes(const batch_run *r, size_t image)
{
    return r->bytes[image];
}

static int larger_first(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The most one batch needs of a per-file amount. In turn, the batches
 * are the runs of max_batch consecutive files; in an order (shuffled, a
 * shard), any max_batch files may meet in one, so the largest of them
 * together. Returns 0 when memory for that runs out. */
static size_t largest_batch(const batch_run *r,
                            size_t (*of)(const batch_run *, size_t))
{
    size_t most = 1;
    if (r->order) {
        size_t n = r->src->list->count, sum = 0;
        size_t *each = (size_t *)ib_malloc(n * sizeof(size_t));
        if (!each)
            return 0;
        for (size_t i = 0; i < n; i++)
            each[i] = of(r, i);
        qsort(each, n, sizeof *each, larger_first);
        for (size_t i = 0; i < n && i < r->max_batch; i++)
            sum += each[i];
        free(each);
        return sum > most ? sum : most;
    }
    for (size_t first = 0; first < r->n_images; first += r->max_batch) {
        size_t sum = 0;
        for (size_t i = first; i < first + r->max_batch && i < r->n_images;
             i++)
            sum += of(r, i);
        most = sum > most ? sum : most;
    }
    return most;
}

int pipeline_shape(const batch_run *r, size_t n, size_t shape[4])
{
    int d = 0;
    shape[d++] = n;
    if (r->spec->channels == 3)
        shape[d++] = 3;
    shape[d++] = r->spec->out_h;
    shape[d++] = r->spec->out_w;
    return d;
}

/* "(2000, 3, 224, 224) float16" */
static void shape_text(const batch_run *r, char *buf, size_t len)
{
    size_t shape[4];
    int d = pipeline_shape(r, r->n_images, shape), at = 0;
    at += snprintf(buf + at, len - (size_t)at, "(");
    for (int k = 0; k < d; k++)
        at += snprintf(buf + at, len - (size_t)at, "%s%zu", k ? ", " : "",
                       shape[k]);
    snprintf(buf + at, len - (size_t)at, ") %s",
             tf_dtype_name(r->spec->dtype));
}

static void say_memory(const batch_run *r, int whole, int asked,
                       size_t free_bytes, size_t reserve)
{
    char a[32], b[32], c[32], d[32], e[32], shape[96];
    nj_memory m;
    nj_allocations(decoder_engine(r->dec), &m);
    printf("GPU memory: nvJPEG took %s when it opened (cudaMemGetInfo "
           "before and after; %zu allocations of %s through our "
           "allocator), our buffers %s, %s free before them\n",
           cm_fmt_bytes_short(r->nvjpeg_device_bytes, a, sizeof a),
           m.device_allocs, cm_fmt_bytes_short(m.device_bytes, b, sizeof b),
           cm_fmt_bytes_short(r->our_device_bytes, c, sizeof c),
           cm_fmt_bytes_short(free_bytes, d, sizeof d));
    shape_text(r, shape, sizeof shape);
    cm_fmt_bytes_short(r->tensor_bytes, e, sizeof e);
    if (whole)
        printf("tensor: %s, %s, kept whole on the GPU at %p to %p (each "
               "batch a slice of it)\n", shape, e, r->d_tensor,
               (void *)((uint8_t *)r->d_tensor + r->tensor_bytes));
    else
        printf("tensor: %s, %s%s%s%s: batches of %zu images reuse %d "
               "buffers in turn%s\n", shape, e,
               asked ? ", more than fits beside the buffers (" : "",
               asked ? cm_fmt_bytes_short(reserve, a, sizeof a) : "",
               asked ? " kept free for nvJPEG and the CUDA libraries)" : "",
               r->max_batch, r->n_bufs,
               r->o->copy_to_host ? ", each copied back to host memory"
                                  : " on the GPU");
}

/* A CUDA call of pipeline_start: on failure why says which, and *cuda
 * is 1. */
#define START_CUDA(call)                                                  \
    do {                                                                  \
        if (IB_CUDA(call, why, why_len)) {                                \
            *cuda = 1;                                                    \
            return -1;                                                    \
        }                                                                 \
    } while (0)

/* A host allocation of pipeline_start: NULL is a failure naming what. */
#define START_ALLOC(ptr, type, bytes, what)                               \
    do {                                                                  \
        if (!((ptr) = (type)ib_calloc(1, (bytes)))) {                     \
            snprintf(why, why_len, "not enough host memory for %s",       \
                     what);                                               \
            return -1;                                                    \
        }                                                                 \
    } while (0)

/* The split of each batch's JPEGs (split.h), where the decoder can: said
 * if verbose, also when it cannot. */
static void start_split(batch_run *r)
{
    double share = r->o->hybrid_share;
    r->split_on = share != 0 && decoder_can_split(r->dec);
    split_init(&r->split, share, r->threads);
    if (!r->o->verbose || share == 0)
        return;
    if (!r->split_on)
        printf("split: --hybrid-share does nothing here: no hardware JPEG "
               "decoder with nvJPEG's hybrid path beside it\n");
    else if (share < 0)
        printf("split: each batch's JPEGs shared between the hardware "
               "decoder and nvJPEG's hybrid path on the %d reader threads, "
               "%.0f%% to the second at first, then what makes both finish "
               "together (from each side's time a file)\n", r->threads,
               100 * SPLIT_FIRST_SHARE);
    else
        printf("split: %.0f%% of each batch's JPEGs that the hardware "
               "decoder takes go to nvJPEG's hybrid path on the %d reader "
               "threads\n", 100 * share, r->threads);
}

int pipeline_pin(batch_run *r, int *cuda, char *why, size_t why_len)
{
    const tf_spec *s = r->spec;
    *cuda = 0;
    r->n_images = r->order ? r->pass_images : r->src->list->count;
    r->n_bufs = r->streams + 1 + PIPELINE_LOOKAHEAD;
    r->image_elems = (size_t)s->channels * s->out_w * s->out_h;
    r->image_bytes = r->image_elems * tf_elem_bytes(s->dtype);
    r->sample_bytes = tf_samples_bytes(s, 1);
    tf_levels_make(s, &r->levels);
    r->bits_bytes = largest_batch(r, file_bytes);
    r->arena_bytes = largest_batch(r, pipeline_slot_bytes);
    if (!r->bits_bytes || !r->arena_bytes) {
        snprintf(why, why_len, "not enough host memory to size the "
                 "batches");
        return -1;
    }
    size_t n = (size_t)r->n_bufs, m = r->max_batch;
    size_t table = m * sizeof(tf_image), out = m * r->image_bytes;
    size_t back = r->o->copy_to_host;
    size_t host = n * (r->bits_bytes + r->arena_bytes + table +
                       (back ? out : 0));
    size_t available = cm_host_available_bytes(NULL);
    char a[32], b[32];
    if (host > available) {
        snprintf(why, why_len, "not enough host memory for the pinned "
                 "batch buffers: need %s, %s "
                 "available", cm_fmt_bytes_short(host, a, sizeof a),
                 cm_fmt_bytes_short(available, b, sizeof b));
        return -1;
    }
    /* Zeroed first, so that pipeline_stop frees exactly what was made. */
    START_ALLOC(r->bufs, batch_buf *, n * sizeof(batch_buf), "the batches");
    for (size_t k = 0; k < n; k++) {
        batch_buf *x = &r->bufs[k];
        START_CUDA(ib_cuda_malloc_host((void **)&x->h_bits, r->bits_bytes));
        START_CUDA(ib_cuda_malloc_host((void **)&x->h_staging,
                                       r->arena_bytes));
        START_CUDA(ib_cuda_malloc_host((void **)&x->h_table, table));
        if (back)
            START_CUDA(ib_cuda_malloc_host(&x->h_out, out));
    }
    r->pinned = 1;
    return 0;
}

int pipeline_start(batch_run *r, int *cuda, char *why, size_t why_len)
{
    *cuda = 0;
    if (!r->pinned && pipeline_pin(r, cuda, why, why_len) != 0)
        return -1;
    size_t n = (size_t)r->n_bufs, m = r->max_batch;
    size_t table = m * sizeof(tf_image), out = m * r->image_bytes;
    size_t samples = m * r->sample_bytes;
    char a[32], b[32], c[32], d[32];
    size_t free_bytes, total;
    START_CUDA(cudaMemGetInfo(&free_bytes, &total));
    size_t base = n * (r->arena_bytes + table + samples);
    r->tensor_bytes = r->n_images * r->image_bytes;
    size_t reserve = total / RESERVE_SHARE > RESERVE_BYTES
                         ? total / RESERVE_SHARE : RESERVE_BYTES;
    /* The planner's test hook (tests only): IMGBATCH_TEST_TENSOR_ROOM=B
     * leaves B bytes free beside the arenas and the reserve, as a GPU
     * with less memory would: the tensor then goes to batch buffers in
     * turn, or even those do not fit. */
    const char *room = getenv("IMGBATCH_TEST_TENSOR_ROOM");
    if (room) {
        size_t left = base + reserve + (size_t)strtoull(room, NULL, 10);
        if (left < free_bytes)
            free_bytes = left;
    }
    /* The reserve stays free whichever way the tensor goes. */
    int whole = r->o->keep_whole &&
                base + r->tensor_bytes + reserve <= free_bytes;
    size_t need = base + (whole ? r->tensor_bytes : n * out);
    if (need + reserve > free_bytes) {
        snprintf(why, why_len, "not enough GPU memory for the batch "
                 "buffers: need %s and %s kept free for nvJPEG and the "
                 "CUDA libraries, %s free of %s",
                 cm_fmt_bytes_short(need, a, sizeof a),
                 cm_fmt_bytes_short(reserve, b, sizeof b),
                 cm_fmt_bytes_short(free_bytes, c, sizeof c),
                 cm_fmt_bytes_short(total, d, sizeof d));
        return -1;
    }
    r->our_device_bytes = need;
    START_ALLOC(r->lanes, cudaStream_t *,
                (size_t)r->streams * sizeof(cudaStream_t), "the streams");
    START_ALLOC(r->per_thread, thread_counts *,
                (size_t)r->threads * sizeof(thread_counts),
                "the reader threads' counts");
    START_ALLOC(r->gpu_decoded, uint8_t *, r->src->list->count,
                "the routes");
    START_ALLOC(r->out_index, size_t *, r->n_images * sizeof(size_t),
                "the tensor index");
    START_ALLOC(r->list_bits, const uint8_t **, m * sizeof(uint8_t *),
                "the batch lists");
    START_ALLOC(r->list_lengths, size_t *, m * sizeof(size_t),
                "the batch lists");
    START_ALLOC(r->list_items, size_t *, m * sizeof(size_t),
                "the batch lists");
    START_ALLOC(r->list_dests, nj_dest *, m * sizeof(nj_dest),
                "the batch lists");
    if (whole)
        START_CUDA(ib_cuda_malloc(&r->d_tensor, r->tensor_bytes));
    for (size_t k = 0; k < n; k++) {
        batch_buf *x = &r->bufs[k];
        x->run = r;
        START_CUDA(ib_cuda_malloc((void **)&x->d_arena, r->arena_bytes));
        START_CUDA(ib_cuda_malloc((void **)&x->d_table, table));
        START_CUDA(ib_cuda_malloc((void **)&x->d_samples, samples));
        if (!whole)
            START_CUDA(ib_cuda_malloc(&x->d_out, out));
        START_CUDA(cudaEventCreateWithFlags(&x->done,
                                            cudaEventDisableTiming));
        START_CUDA(cudaEventCreateWithFlags(&x->released,
                                            cudaEventDisableTiming));
        START_CUDA(cudaEventCreate(&x->decode_start));
        START_CUDA(cudaEventCreate(&x->decode_end));
        START_ALLOC(x->offset, size_t *, m * sizeof(size_t), "offsets");
        START_ALLOC(x->slot, size_t *, m * sizeof(size_t), "slots");
        START_ALLOC(x->how, route *, m * sizeof(route), "routes");
        START_ALLOC(x->item_ms, double *, m * sizeof(double), "times");
        START_ALLOC(x->planes, int *, m * sizeof(int), "planes");
        START_ALLOC(x->why, const char **, m * sizeof(char *), "routes");
        START_ALLOC(x->err, char (*)[BATCH_ERR_LEN], m * BATCH_ERR_LEN,
                    "messages");
        START_ALLOC(x->item_of, size_t *, m * sizeof(size_t), "items");
        START_ALLOC(x->names, const char **, m * sizeof(char *), "names");
        START_ALLOC(x->image, size_t *, m * sizeof(size_t), "items");
        START_ALLOC(x->labels, int64_t *, m * sizeof(int64_t), "labels");
    }
    for (; r->lanes_made < r->streams; r->lanes_made++)
        START_CUDA(cudaStreamCreateWithFlags(&r->lanes[r->lanes_made],
                                             cudaStreamNonBlocking));
    start_split(r);
    if (r->o->verbose) {
        say_memory(r, whole, r->o->keep_whole, free_bytes, reserve);
        printf("pipeline: %d batch buffers in turn on %d CUDA streams, "
               "each with pinned %s for files, an arena of %s on the GPU "
               "for the decoded planes (with pinned staging for those the "
               "CPU decodes)\n", r->n_bufs, r->streams,
               cm_fmt_bytes_short(r->bits_bytes, a, sizeof a),
               cm_fmt_bytes_short(r->arena_bytes, b, sizeof b));
    }
    return 0;
}

int pipeline_check_start(batch_run *r, size_t bound, int *cuda, char *why,
                         size_t why_len)
{
    size_t most = check_pick_count(r->n_images, bound);
    most = most ? most : 1;
    size_t rows = most * r->sample_bytes;
    char a[32], b[32];
    *cuda = 0;
    if (rows > cm_host_available_bytes(NULL)) {
        snprintf(why, why_len, "not enough host memory for the check's "
                 "rows of %zu images: need %s, %s available", most,
                 cm_fmt_bytes_short(rows, a, sizeof a),
                 cm_fmt_bytes_short(cm_host_available_bytes(NULL), b,
                                    sizeof b));
        return -1;
    }
    START_ALLOC(r->check_pos, size_t *, most * sizeof(size_t),
                "the check's picks");
    START_ALLOC(r->check_out, size_t *, most * sizeof(size_t),
                "the check's picks");
    START_ALLOC(r->check_route, uint8_t *, most, "the check's picks");
    START_CUDA(ib_cuda_malloc_host((void **)&r->h_samples, rows));
    r->check_bound = bound;
    r->check_most = most;
    r->check = 1;
    return 0;
}

void pipeline_pick(batch_run *r)
{
    r->n_checked = r->check ? check_pick_count(r->n_images, r->check_bound)
                            : 0;
    r->n_checked = r->n_checked < r->check_most ? r->n_checked
                                                : r->check_most;
    r->check_next = 0;
    for (size_t k = 0; k < r->n_checked; k++) {
        r->check_pos[k] = check_pick_position(r->n_images, r->n_checked, k);
        r->check_out[k] = SIZE_MAX;
    }
}

int pipeline_copy_picks(batch_run *r, batch_buf *x, size_t first,
                        cudaStream_t stream)
{
    size_t end = r->check_next, bytes = r->sample_bytes;
    while (first < end && r->check_out[first] == SIZE_MAX)
        first++;
    if (first == end)
        return 0;
    if (RUN_CUDA(r, launch_gather_samples(x->d_samples, x->d_out,
                                          (int)x->good, r->spec, stream)))
        return -1;
    for (size_t k = first; k < end;) {
        size_t run = 1;
        if (r->check_out[k] == SIZE_MAX) {
            k++;
            continue;
        }
        while (k + run < end &&
               r->check_out[k + run] == r->check_out[k] + run)
            run++;
        if (RUN_CUDA(r, cudaMemcpyAsync(
                r->h_samples + k * bytes,
                x->d_samples + (r->check_out[k] - x->out_first) * bytes,
                run * bytes, cudaMemcpyDeviceToHost, stream)))
            return -1;
        k += run;
    }
    return 0;
}

/* Frees with a CUDA call, keeping the first failure in r->error. */
static void stop_cuda(batch_run *r, cudaError_t err, const char *call,
                      int *rc)
{
    if (err != cudaSuccess) {
        pipeline_cuda(r, err, call);
        *rc = -1;
    }
}
#define STOP_CUDA(call) stop_cuda(r, (call), #call, &rc)

int pipeline_stop(batch_run *r)
{
    int rc = 0;
    if (r->bufs && r->lanes && r->pool && pipeline_drain(r) != 0)
        rc = -1;
    for (int k = 0; r->bufs && k < r->n_bufs; k++) {
        batch_buf *x = &r->bufs[k];
        if (x->h_bits)
            STOP_CUDA(cudaFreeHost(x->h_bits));
        if (x->h_staging)
            STOP_CUDA(cudaFreeHost(x->h_staging));
        if (x->d_arena)
            STOP_CUDA(cudaFree(x->d_arena));
        if (x->h_table)
            STOP_CUDA(cudaFreeHost(x->h_table));
        if (x->d_table)
            STOP_CUDA(cudaFree(x->d_table));
        if (x->d_samples)
            STOP_CUDA(cudaFree(x->d_samples));
        if (x->d_out && !r->d_tensor)
            STOP_CUDA(cudaFree(x->d_out));
        if (x->h_out)
            STOP_CUDA(cudaFreeHost(x->h_out));
        if (x->done)
            STOP_CUDA(cudaEventDestroy(x->done));
        if (x->released)
            STOP_CUDA(cudaEventDestroy(x->released));
        if (x->decode_start)
            STOP_CUDA(cudaEventDestroy(x->decode_start));
        if (x->decode_end)
            STOP_CUDA(cudaEventDestroy(x->decode_end));
        free(x->offset);
        free(x->slot);
        free(x->how);
        free(x->item_ms);
        free(x->planes);
        free(x->why);
        free(x->err);
        free(x->item_of);
        free(x->names);
        free(x->image);
        free(x->labels);
    }
    for (int k = 0; k < r->lanes_made; k++)
        STOP_CUDA(cudaStreamDestroy(r->lanes[k]));
    if (r->d_tensor)
        STOP_CUDA(cudaFree(r->d_tensor));
    if (r->h_samples)
        STOP_CUDA(cudaFreeHost(r->h_samples));
    free(r->bufs);
    free(r->lanes);
    free(r->gpu_decoded);
    free(r->out_index);
    free(r->list_bits);
    free(r->list_lengths);
    free(r->list_items);
    free(r->list_dests);
    free(r->per_thread);
    free(r->check_pos);
    free(r->check_out);
    free(r->check_route);
    r->check_pos = r->check_out = NULL;
    r->check_route = NULL;
    r->check = 0;
    r->n_checked = 0;
    r->bufs = NULL;
    r->pinned = 0;
    r->lanes = NULL;
    r->lanes_made = 0;
    r->d_tensor = NULL;
    r->h_samples = NULL;
    r->gpu_decoded = NULL;
    r->out_index = NULL;
    r->list_bits = NULL;
    r->list_lengths = NULL;
    r->list_items = NULL;
    r->list_dests = NULL;
    r->per_thread = NULL;
    return rc;
}
