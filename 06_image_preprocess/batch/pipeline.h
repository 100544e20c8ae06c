/* pipeline.h - the batch tool's one pipeline (pipeline.cu; its buffers
 * pipeline_setup.cu): files read and decoded by reader threads, each
 * batch's images decoded into its arena at their own sizes and made
 * into their slots of the tensor by one kernel, the tensor kept on the
 * GPU or brought back, checked if the CLI asks. imgbatch_api.cu drives it
 * for imgbatch.h; the CLI (imgbatch.cu) reads its counts for the report
 * (batch_report.c) and the checks (batch_check.c).
 *
 *   batch_run r = {.o = &options, .src = &src, ...};   (imgbatch_api.cu)
 *   pipeline_pin(&r, &cuda, why, sizeof why);     sizes, pinned buffers
 *   r.dec = dec;                          (opened meanwhile, or before)
 *   pipeline_start(&r, &cuda, why, sizeof why);   the rest, the tensor
 *   pipeline_begin(&r);                    a pass
 *   batch_buf *x;
 *   while (pipeline_next(&r, &x) == 1) ...x is enqueued...
 *   (0: the pass is over, every batch finished and checked;
 *   pipeline_drain(&r) stops one early)
 *   pipeline_stop(&r);
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "batch_inputs.h"
#include "decoder.h"
#include "imgbatch.h"
#include "lib_support.h"
#include "reader_pool.h"
#include "split.h"
#include "transform.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BATCH_ERR_LEN = 1280, MAX_REASONS = 16, BATCH_MAX_SIZE = 4096 };

/* Reasons, counted (they are string constants, so a pointer names
 * one). */
typedef struct {
    const char *why[MAX_REASONS];
    size_t count[MAX_REASONS];
    size_t n;
} reasons;

/* What one pass did: where the files went (gpu counts both GPU paths,
 * hybrid those of nvJPEG's hybrid path among them), how many images the
 * tensor got, where the main thread's time went (ms), and nvJPEG's
 * batched decode seen from both sides: the main thread's time inside
 * its calls, and on the GPU, from an event before each call to one
 * after it (span) and how much of that came after the call returned
 * (tail: the decoder still working). write_ms: the CLI's .npy. */
typedef struct {
    reasons cpu_why, hybrid_why;
    size_t gpu, hybrid, cpu, skipped, n_out;
    double wait_read_ms, submit_ms, wait_gpu_ms, write_ms, wait_check_ms;
    double nj_host_ms, nj_span_ms, nj_tail_ms;
    size_t nj_batches;
    int write_failed;
} pass_counts;

/* What each reader thread did and found; each writes only its own. */
typedef struct {
    double read_ms;              /* reading, screening, decoding */
    double check_ms;             /* checking tensors that came back */
    size_t back_images, back_bad, back_first_bad;   /* that check */
} thread_counts;

/* Batches queued for the readers ahead of the one being submitted. */
enum { PIPELINE_LOOKAHEAD = 2 };

typedef struct batch_buf batch_buf;

typedef struct batch_run {
    /* filled by the caller */
    const imgbatch_options *o;
    batch_source *src;           /* the checked files and their sizes */
    const tf_spec *spec;         /* the tensor */
    const size_t *bytes;         /* each file's size */
    decoder *dec;
    reader_pool *pool;           /* the reader threads */
    int threads, streams;        /* in the pool; CUDA streams */
    size_t max_batch;            /* images a batch */
    /* the pass's order: position k of a pass is file order[k] (of the
     * list), pass_images of them; NULL and 0: the files in turn. The
     * caller may rewrite order between passes. */
    const size_t *order;
    size_t pass_images;
    /* set by pipeline_pin and pipeline_start */
    size_t image_elems, image_bytes, sample_bytes;  /* one tensor image */
    size_t n_images;             /* images a pass does (pass_images, or
                                    every file; fewer in a warm-up) */
    int quiet;                   /* 1: "skipped:" lines already printed */
    uint8_t *gpu_decoded;        /* by file: 1 if a GPU path decoded it */
    size_t *out_index;           /* tensor index -> image index */
    /* the check (pipeline_check_start, the CLI's; the library: none) */
    int check;                   /* 1: the picks' sampled rows come back,
                                    and the readers check the batches
                                    that come back (copy_to_host) */
    size_t check_bound;          /* --check-images (0: every image) */
    size_t check_most;           /* picks there is room for */
    size_t n_checked;            /* picks this pass (check_pick_count) */
    size_t *check_pos;           /* pick -> its pass position */
    size_t *check_out;           /* pick -> the tensor index it got,
                                    SIZE_MAX: skipped in the pass */
    uint8_t *check_route;        /* pick -> the route that decoded it */
    size_t check_next;           /* the next pick submit comes to */
    uint8_t *h_samples;          /* each pick's sampled rows, pinned */
    thread_counts *per_thread;
    tf_levels levels;            /* the outputs of every level */
    batch_buf *bufs;             /* streams + 3 of them, in turn */
    int n_bufs;
    int pinned;                  /* 1: pipeline_pin made bufs' pinned
                                    host memory */
    cudaStream_t *lanes;         /* the CUDA streams */
    int lanes_made;              /* of them, created so far */
    void *d_tensor;              /* the whole tensor, or NULL */
    size_t tensor_bytes, arena_bytes, bits_bytes;
    size_t our_device_bytes;     /* every buffer of ours on the GPU */
    int batch_failures;          /* batches nvJPEG failed (lines said) */
    /* the split of each batch's JPEGs between nvJPEG's batched decoder
     * and its hybrid path (split.h); split_on 0: none */
    int split_on;
    split_ctl split;
    size_t nvjpeg_device_bytes;  /* GPU memory nvJPEG took when opened */
    /* one batch's lists for nvjpegDecodeBatched (max_batch each) */
    const uint8_t **list_bits;
    size_t *list_lengths, *list_items;
    nj_dest *list_dests;
    /* the pass */
    pass_counts counts;
    size_t next_batch, n_batches;
    batch_buf *handed;           /* the batch the caller holds */
    int failed;                  /* a file or a CUDA call stopped it */
    int cuda_failed;             /* a CUDA call: the GPU is unusable */
    char error[BATCH_ERR_LEN];
} batch_run;

/* One batch: its files' bytes and routes, its arena of decoded planes
 * (and their pinned staging for the CPU-decoded ones), its table for the
 * kernel, and its part of the tensor. */
struct batch_buf {
    struct batch_run *run;
    size_t job;                /* the readers' job that fills it */
    size_t check_job;          /* their check of its tensor ... */
    int checking;              /* ... while 1 */
    size_t first, count;       /* pass positions first .. + count - 1 */
    size_t *image;             /* by item: its file (index in the list) */
    int lane;                  /* its stream and nvJPEG state */
    uint8_t *h_bits;           /* the files, pinned, one after another */
    size_t *offset;            /* each file's place in h_bits */
    size_t *slot;              /* each file's place in the arena */
    route *how;                /* by item: where it was decoded */
    double *item_ms;           /* by item: the reader's time on it */
    unsigned split_q;          /* the split's share for it (split_q) */
    int *planes;               /* by item: its planes in the arena */
    const char **why;          /* why not by the batched decoder */
    char (*err)[BATCH_ERR_LEN];
    size_t *item_of;           /* tensor position -> item */
    const char **names;        /* tensor position -> path */
    int64_t *labels;           /* tensor position -> label, if labelled */
    uint8_t *h_staging;        /* CPU-decoded planes, pinned, by slot */
    uint8_t *d_arena;          /* every decoded plane, on the GPU */
    tf_image *h_table, *d_table;   /* the kernel's table, pinned and GPU */
    void *d_out, *h_out;       /* its tensor images; h_out: on the host */
    uint8_t *d_samples;        /* their sampled rows, packed */
    size_t good, out_first;    /* images kept, their first tensor index */
    cudaEvent_t done;          /* after its work */
    cudaEvent_t released;      /* after the caller's work on it */
    cudaEvent_t decode_start, decode_end;   /* around nvJPEG's calls */
    double decode_host_ms;     /* the main thread in those calls */
    int in_flight, used, timed;
};

/* Allocates the buffers (the pinned ones too, unless pipeline_pin made
 * them), streams and the check's rows (after the device is selected and
 * the decoder opened), the whole tensor if asked and it
 * fits beside the memory kept free for nvJPEG, and says so if
 * o->verbose. Returns 0, or -1 with why (memory short, a CUDA call
 * failed; *cuda says which: 1 for a CUDA call): pipeline_stop then frees
 * what was made. */
int pipeline_start(batch_run *r, int *cuda, char *why, size_t why_len);

/* The part of pipeline_start that needs no decoder (the caller's fields
 * filled but dec): the sizes, the batch buffers and their pinned host
 * memory, the slowest part (cudaMallocHost pins each page). It touches
 * nothing but r's own fields, so it may run on a thread of its own
 * (made current on the loader's device) while the decoders open;
 * pipeline_start calls it when nobody has. Returns 0, or -1 as
 * pipeline_start. */
int pipeline_pin(batch_run *r, int *cuda, char *why, size_t why_len);

/* The CLI's check, after pipeline_start: each pass, the sampled rows of
 * at most `bound` of its images (0: all; batch_check.h's check_pick_*
 * say which) come back to pinned memory, and with copy_to_host the
 * readers check every batch that comes back. Host memory for the
 * bound's picks, not for every file. Returns 0, or -1 with why (*cuda:
 * 1 for a CUDA call). */
int pipeline_check_start(batch_run *r, size_t bound, int *cuda, char *why,
                         size_t why_len);

/* The check's picks of a pass of r->n_images (pipeline_begin; none
 * without pipeline_check_start). */
void pipeline_pick(batch_run *r);

/* The sampled rows of the check's picks in batch x (picks first ..
 * r->check_next - 1, submitted), gathered on the GPU and copied on
 * stream to their places in r->h_samples, a run of picks that are
 * neighbours in both in one copy; nothing without a pick. Returns 0,
 * or -1 (the run stopped: r->error). */
int pipeline_copy_picks(batch_run *r, batch_buf *x, size_t first,
                        cudaStream_t stream);

/* A pass over r->n_images files: queues the first reads. Returns 0, or
 * -1 (r->error) when the GPU failed. */
int pipeline_begin(batch_run *r);

/* Submits the next batch, its files read: returns 1 with *out (its work
 * enqueued on its lane, not finished), 0 when the pass is over (every
 * batch finished, every check done), -1 when a file cannot be used (not
 * skip_bad; r->error names it) or a CUDA call failed (r->error names it,
 * r->cuda_failed is 1). */
int pipeline_next(batch_run *r, batch_buf **out);

/* Finishes a pass early (after -1, or to stop): the readers idle, every
 * batch in flight finished. Returns 0, or -1 when the GPU failed (then
 * r->error says how, unless an earlier failure is there). */
int pipeline_drain(batch_run *r);

/* Frees whatever pipeline_pin and pipeline_start made, also after a
 * failure half-way. Returns 0, or -1 if a CUDA call failed on the way
 * (r->error). */
int pipeline_stop(batch_run *r);

/* A CUDA call of the run: 0 if it succeeded; else -1, and the run is
 * stopped with the call's failure (the first one is kept in r->error). */
int pipeline_cuda(batch_run *r, cudaError_t err, const char *call);
#define RUN_CUDA(r, call) pipeline_cuda((r), (call), #call)

/* Bytes of image `image`'s slot in an arena: room for the run's
 * channels of planes of its size, rounded up to 256. */
size_t pipeline_slot_bytes(const batch_run *r, size_t image);

/* The tensor's shape for n images: (n, H, W) gray, (n, 3, H, W) RGB.
 * Returns the number of dimensions. */
int pipeline_shape(const batch_run *r, size_t n, size_t shape[4]);

/* Adds one file to c: decoded by `how`, because of why (NULL: the GPU's
 * batched decoder took it). */
void count_route(pass_counts *c, route how, const char *why);

/* The loader's options checked, as the tensor's spec; and its failures:
 * the status, with the reason kept for imgbatch_failure_reason
 * (imgbatch_options.c). */
imgbatch_status ib_check_options(const imgbatch_options *o, tf_spec *s);
/* Its refusal of an antialias without a resize, which the command line
 * makes too (a usage error there). */
#define IB_ANTIALIAS_ALONE "--antialias needs a resize: --resize WxH, or " \
    "--resize-short S with --crop WxH"

imgbatch_status ib_fail(imgbatch_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The run inside a loader (imgbatch_api.cu), for the CLI's report, and
 * the files its check left out and the bytes of those it kept. */
batch_run *imgbatch_run(imgbatch *b);
void imgbatch_file_counts(const imgbatch *b, size_t *skipped,
                          size_t *file_bytes);

#ifdef __cplusplus
}
#endif

#endif /* PIPELINE_H */
