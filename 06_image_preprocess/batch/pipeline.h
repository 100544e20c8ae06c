/* pipeline.h - the batch tool's one pipeline (pipeline.cu; its buffers
 * pipeline_setup.cu): files read and decoded by reader threads, batches
 * normalized and flipped on the GPU, the tensor kept there or brought
 * back (and appended to the .npy), every image checked. Its checks are
 * batch_check.c, its report batch_report.c; --bare-decode is
 * bare_decode.cu; imgbatch.cu drives it.
 *
 *   batch_run r = {.b = &options, .src = &src, ...};    (imgbatch.cu)
 *   pipeline_start(&r);                  buffers, streams; prints a line
 *   pass_counts c;
 *   size_t n_out = pipeline_pass(&r, &c, "pass");        once per pass
 *   pipeline_stop(&r);
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "batch_cli.h"
#include "batch_inputs.h"
#include "decoder.h"
#include "reader_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BATCH_ERR_LEN = 1280, MAX_REASONS = 16 };
/* The rows of every image that come back for the check, spread from the
 * first to the last (every row of a shorter image). */
#define SAMPLE_ROWS ((size_t)8)

/* Reasons, counted (they are string constants, so a pointer names
 * one). */
typedef struct {
    const char *why[MAX_REASONS];
    size_t count[MAX_REASONS];
    size_t n;
} reasons;

/* What one pass did: where the files went (gpu counts both GPU paths,
 * hybrid those of nvJPEG's hybrid path among them), how many images the
 * tensor got, and where the main thread's time went, in ms. */
typedef struct {
    reasons cpu_why, hybrid_why;
    size_t gpu, hybrid, cpu, skipped, n_out;
    double wait_read_ms, submit_ms, wait_gpu_ms, write_ms, wait_check_ms;
    int write_failed;
} pass_counts;

/* What each reader thread did and found; each writes only its own. */
typedef struct {
    double read_ms;              /* reading, screening, decoding */
    double check_ms;             /* checking tensors that came back */
    size_t back_images, back_bad, back_first_bad;   /* that check */
    size_t one_level, worse, inexact, unreadable;   /* batch_check.c's */
    size_t first_worse;
} thread_counts;

/* Batches queued for the readers ahead of the one being submitted. */
enum { PIPELINE_LOOKAHEAD = 2 };

typedef struct batch_buf batch_buf;

typedef struct batch_run {
    /* filled by the caller */
    const batch_options *b;
    batch_source *src;           /* the checked files, the batch's size */
    const size_t *bytes;         /* each file's size */
    decoder *dec;
    reader_pool *pool;           /* the reader threads */
    int threads;                 /* in the pool */
    size_t max_batch;            /* images a batch */
    FILE *out;                   /* the .npy being written, or NULL */
    /* set by pipeline_start */
    size_t pixels, n_images;     /* an image's, and how many a pass does */
    int quiet;                   /* 1: "skipped:" lines already printed */
    uint8_t *gpu_decoded;        /* by image: 1 if a GPU path decoded it */
    size_t *out_index;           /* tensor index -> image index */
    float *h_samples;            /* SAMPLE_ROWS rows of each tensor image */
    size_t sample_y[SAMPLE_ROWS], n_sample_rows;
    thread_counts *per_thread;
    batch_buf *bufs;             /* b->streams + 3 of them, in turn */
    int n_bufs;
    cudaStream_t *lanes;         /* b->streams CUDA streams */
    int batch_failures;          /* batches nvJPEG failed (lines said) */
} batch_run;

/* One batch: its files' bytes, their routes, the staging of the
 * CPU-decoded planes, and its part of the tensor. */
struct batch_buf {
    struct batch_run *run;
    size_t job;                /* the readers' job that fills it */
    size_t check_job;          /* their check of its tensor ... */
    int checking;              /* ... while 1 */
    size_t first, count;       /* images first .. first + count - 1 */
    int lane;                  /* its stream and nvJPEG state */
    uint8_t *h_bits;           /* the files, pinned, one after another */
    size_t *offset;            /* each file's place in h_bits */
    route *how;                /* by item: where it was decoded */
    const char **why;          /* why not by the batched decoder */
    char (*err)[BATCH_ERR_LEN];
    size_t *item_of;           /* tensor position -> item */
    uint8_t *h_planes;         /* CPU-decoded planes, pinned, by item */
    uint8_t *d_planes;         /* the batch's planes, on the GPU */
    float *d_out, *h_out;      /* its tensor; h_out: back on the host */
    size_t good, out_first;    /* images kept, their first tensor index */
    cudaEvent_t done;
    int in_flight;
};

/* Allocates the batch buffers, streams and the check's rows (after
 * cm_select_device and decoder_open) and prints the pipeline: line.
 * Exits 1 if memory is short. */
void pipeline_start(batch_run *r);

/* One pass over r->n_images files. Returns the images the tensor got
 * (c->n_out). A file that cannot be used stops the program (exit 1,
 * naming it) unless --skip-bad. */
size_t pipeline_pass(batch_run *r, pass_counts *c, const char *label);

void pipeline_stop(batch_run *r);

/* Adds one file to c: decoded by `how`, because of why (NULL: the GPU's
 * batched decoder took it). */
void count_route(pass_counts *c, route how, const char *why);

#ifdef __cplusplus
}
#endif

#endif /* PIPELINE_H */
