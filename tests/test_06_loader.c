/* test_06_loader.c - the batch tool's library (imgbatch.h) as a program
 * that uses it meets it: it never ends the process or prints unasked,
 * every failure is a status and a reason, and a file that changes after
 * imgbatch_open checked it is a bad file, never a write past its slot.
 *
 *   test_06_loader          on the CPU, the GPUs hidden: NULL arguments;
 *                           no usable device; each allocation before the
 *                           GPU failing in turn; the CPU decoder given a
 *                           file grown since its check
 *   test_06_loader gpu      on a GPU (exit 77 without one): each
 *                           allocation of open + next + close failing in
 *                           turn, and nothing checked by the library;
 *                           two loaders at once, counted apart;
 *                           work on a stream of the caller's, named by
 *                           imgbatch_read_on, finished before the batch's
 *                           buffer is filled again; a loader used from
 *                           another thread; a file
 *                           changed between open and next, on every
 *                           decode path, with and without skip_bad;
 *                           class folders: their names, labels with
 *                           each batch, each epoch's shuffled order
 *                           (sampler.h's), a shard, drop_last
 *
 * Each run writes its JPEGs into a folder of its own under /tmp (stb's
 * writer) and removes them.
 */
#include "test.h"
#include "../06_image_preprocess/batch/imgbatch.h"
#include "../06_image_preprocess/batch/lib_support.h"
#include "../06_image_preprocess/batch/pipeline.h"
#include "../06_image_preprocess/batch/sampler.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <stb_image_write.h>

enum { FILES = 6, SIDE = 32, GROWN = 96 };

static char dir[64];
static char paths[FILES][128];
/* The bytes of file 1 as checked, and a JPEG of GROWN x GROWN padded
 * with zeros after its end to the same length. */
static unsigned char *as_checked, *grown;
static size_t file_len;

static void at(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static int write_all(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(bytes, 1, len, f) == len;
    if (f)
        ok &= fclose(f) == 0;
    return ok;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        if (f)
            fclose(f);
        return NULL;
    }
    *len = (size_t)st.st_size;
    unsigned char *p = malloc(*len ? *len : 1);
    if (p && fread(p, 1, *len, f) != *len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

/* FILES gray noise JPEGs of SIDE x SIDE (noise at quality 100: many
 * bytes), and the grown one: flat at quality 10, fewer bytes, padded. */
static void write_files(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_06_loader_XXXXXX");
    EXPECT(mkdtemp(dir) != NULL);
    unsigned char pixels[GROWN * GROWN];
    unsigned seed = 12345;
    for (int k = 0; k < FILES; k++) {
        for (int i = 0; i < SIDE * SIDE; i++) {
            seed = seed * 1103515245u + 12345u;
            pixels[i] = (unsigned char)(seed >> 16);
        }
        char name[32];
        snprintf(name, sizeof name, "img_%d.jpg", k);
        at(paths[k], sizeof paths[k], name);
        EXPECT(stbi_write_jpg(paths[k], SIDE, SIDE, 1, pixels, 100));
    }
    as_checked = read_all(paths[1], &file_len);
    memset(pixels, 128, sizeof pixels);
    char small[160];
    at(small, sizeof small, "grown.tmp");
    EXPECT(stbi_write_jpg(small, GROWN, GROWN, 1, pixels, 10));
    size_t small_len = 0;
    unsigned char *bits = read_all(small, &small_len);
    remove(small);
    EXPECT(as_checked && bits && small_len < file_len);
    grown = calloc(1, file_len);
    if (grown && bits && small_len < file_len)
        memcpy(grown, bits, small_len);
    free(bits);
}

static void remove_files(void)
{
    for (int k = 0; k < FILES; k++)
        remove(paths[k]);
    EXPECT(rmdir(dir) == 0);
    free(as_checked);
    free(grown);
}

static void options(imgbatch_options *o)
{
    imgbatch_defaults(o);
    o->folder = dir;
    o->resize_width = o->resize_height = 16;
    o->batch_size = 2;
    o->threads = 2;
    o->streams = 2;
}

/* A reason: one line, not empty. */
static int a_reason(void)
{
    const char *r = imgbatch_failure_reason();
    return r[0] != '\0' && !strchr(r, '\n');
}

/* NULL arguments: a status and a reason, never a crash. */
static void null_arguments(imgbatch *b)
{
    imgbatch_options o;
    imgbatch_batch x;
    imgbatch_info info;
    imgbatch *none = (imgbatch *)&o;
    options(&o);
    EXPECT(imgbatch_open(NULL, &o) == IMGBATCH_ERR_OPTIONS && a_reason());
    EXPECT(imgbatch_open(&none, NULL) == IMGBATCH_ERR_OPTIONS && a_reason());
    EXPECT(imgbatch_next(NULL, &x) == -1 && a_reason() &&
           strstr(imgbatch_failure_reason(), "imgbatch_next"));
    EXPECT(imgbatch_rewind(NULL) == IMGBATCH_ERR_OPTIONS && a_reason());
    EXPECT(imgbatch_get_info(NULL, &info) == IMGBATCH_ERR_OPTIONS);
    EXPECT(imgbatch_close(NULL) == IMGBATCH_OK);
    EXPECT(imgbatch_read_on(NULL, 0) == IMGBATCH_ERR_OPTIONS && a_reason());
    if (!b)
        return;
    EXPECT(imgbatch_next(b, NULL) == -1 && a_reason());
    EXPECT(imgbatch_get_info(b, NULL) == IMGBATCH_ERR_OPTIONS && a_reason());
}

/* stdout, into a file while the library runs: it must stay empty. */
static int saved_stdout = -1;
static char capture[160];

static void capture_stdout(void)
{
    at(capture, sizeof capture, "stdout.txt");
    fflush(stdout);
    saved_stdout = dup(1);
    FILE *f = fopen(capture, "w");
    EXPECT(f && dup2(fileno(f), 1) == 1);
    if (f)
        fclose(f);
}

static void check_stdout_empty(void)
{
    fflush(stdout);
    dup2(saved_stdout, 1);
    close(saved_stdout);
    struct stat st;
    memset(&st, 0, sizeof st);
    EXPECT(stat(capture, &st) == 0 && st.st_size == 0);
    if (st.st_size)
        fprintf(stderr, "the library printed with verbose 0: see %s\n",
                capture);
    else
        remove(capture);
}

/* The CPU decoder (stb_image) given the grown bytes of a file checked at
 * SIDE x SIDE: a bad file, named, with its new size. */
static void cpu_decode_grown(void)
{
    char *list_paths[1] = {paths[1]};
    path_list list = {.paths = list_paths, .count = 1};
    size_t width = SIDE, height = SIDE;
    tf_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.mode = TF_RESIZE;
    spec.out_w = spec.out_h = 16;
    spec.channels = 1;
    batch_source src = {.list = &list, .width = &width, .height = &height,
                        .channels = 1, .spec = &spec,
                        .max_pixels = (size_t)1 << 24};
    decoder_plan plan = decoder_choose(DECODER_CPU, nj_built(), 1);
    decoder_config dc = {.plan = &plan, .src = &src, .max_batch = 1,
                         .threads = 1, .states = 1, .max_width = SIDE,
                         .max_height = SIDE};
    char why[BATCH_ERR_LEN], err[BATCH_ERR_LEN];
    int fatal = 1, planes = 0;
    const char *route_why = NULL;
    decoder *d = decoder_open(&dc, &fatal, why, sizeof why);
    EXPECT(d && !fatal);
    if (!d || !grown)
        return;
    uint8_t slot[SIDE * SIDE];
    err[0] = '\0';
    route how = decoder_file(d, 0, 0, grown, file_len, 0, slot, NULL,
                             &planes, &route_why, err, sizeof err);
    EXPECT(how == ROUTE_BAD && strstr(err, paths[1]) && strstr(err, "96 x 96"));
    how = decoder_file(d, 0, 0, as_checked, file_len, 0, slot, NULL,
                       &planes, &route_why, err, sizeof err);
    EXPECT(how == ROUTE_CPU);
    decoder_close(d);
}

static int cpu_tests(void)
{
    /* Before any CUDA call: the driver reads it once. */
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    write_files();
    null_arguments(NULL);
    imgbatch_options o;
    options(&o);
    imgbatch *b = (imgbatch *)&o;
    capture_stdout();
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_ERR_NO_DEVICE && b == NULL &&
           a_reason() && strstr(imgbatch_failure_reason(),
                                "no usable CUDA device"));
    /* Each host allocation before the GPU is looked for, failing in turn:
     * a status and a reason naming memory, nothing held (the sanitizer
     * build finds a leak), until none is left to fail. */
    long n = 0, failures = 0;
    /* The files in turn, then shuffled (the order's own buffers). */
    for (;; n++) {
        imgbatch_test_fail_after(n);
        b = (imgbatch *)&o;
        imgbatch_status st = imgbatch_open(&b, &o);
        if (!imgbatch_test_failed() && !o.shuffle) {
            EXPECT(st == IMGBATCH_ERR_NO_DEVICE);
            o.shuffle = 1;
            n = -1;
            continue;
        }
        if (!imgbatch_test_failed()) {
            EXPECT(st == IMGBATCH_ERR_NO_DEVICE);
            break;
        }
        failures++;
        EXPECT(st == IMGBATCH_ERR_MEMORY && b == NULL && a_reason() &&
               strstr(imgbatch_failure_reason(), "memory"));
        if (st != IMGBATCH_ERR_MEMORY)
            fprintf(stderr, "allocation %ld: status %d: %s\n", n, (int)st,
                    imgbatch_failure_reason());
    }
    imgbatch_test_fail_after(-1);
    /* collect (the list grown, its labels, three names), check (two), the
     * sizes; twice, and the order's two */
    EXPECT(failures >= 2 * 7 + 2);
    cpu_decode_grown();
    check_stdout_empty();
    printf("host allocations before the GPU: %ld, each failed once\n",
           failures);
    remove_files();
    return test_summary();
}

/* One pass: the images it gave, or -1 if next failed (its reason then
 * kept in why). */
static long one_pass(imgbatch *b, char *why, size_t why_len)
{
    imgbatch_batch x;
    long images = 0;
    int rc;
    while ((rc = imgbatch_next(b, &x)) == 1)
        images += (long)x.count;
    if (rc < 0)
        snprintf(why, why_len, "%s", imgbatch_failure_reason());
    return rc < 0 ? -1 : images;
}

/* Allocations of open + a pass + close failing in turn: a status and a
 * reason, or a run that went round it (nvJPEG's own buffers, whose batch
 * or file then goes to stb_image) and gave every image. A walk over all
 * of them opens nvJPEG some hundreds of times (minutes on an H200), so by
 * default SAMPLES of them, spread evenly from the first to the last;
 * IMGBATCH_TEST_EVERY_ALLOCATION=1 walks every one. */
#define SAMPLES 40
static void fail_each_allocation(int keep_whole, imgbatch_backend backend)
{
    imgbatch_options o;
    options(&o);
    o.keep_whole = keep_whole;
    o.backend = backend;
    o.copy_to_host = !keep_whole;
    char why[BATCH_ERR_LEN];
    /* A run that fails nothing counts them. */
    imgbatch_test_fail_after(-1);
    imgbatch *b = NULL;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    EXPECT(b && one_pass(b, why, sizeof why) == FILES);
    /* The library checks nothing (imgbatch.h): no rows kept, no batch
     * that came back compared. */
    if (b) {
        batch_run *r = imgbatch_run(b);
        size_t back = 0;
        for (int t = 0; t < r->threads; t++)
            back += r->per_thread[t].back_images;
        EXPECT(!r->check && !r->h_samples && r->n_checked == 0 &&
               back == 0);
    }
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    long total = imgbatch_test_allocations();
    const char *every = getenv("IMGBATCH_TEST_EVERY_ALLOCATION");
    long tries = every && strcmp(every, "1") == 0 ? total + 1
                 : total + 1 < SAMPLES ? total + 1 : SAMPLES;
    long tried = 0, reported = 0, went_round = 0;
    for (long i = 0; i < tries; i++, tried++) {
        /* the i-th of tries spread over 0..total (total: none fails) */
        long n = tries > 1 ? i * total / (tries - 1) : 0;
        imgbatch_test_fail_after(n);
        b = NULL;
        imgbatch_status st = imgbatch_open(&b, &o);
        long images = -2;
        if (st == IMGBATCH_OK) {
            images = one_pass(b, why, sizeof why);
            imgbatch_status closed = imgbatch_close(b);
            EXPECT(closed == IMGBATCH_OK || a_reason());
        } else {
            EXPECT(b == NULL && a_reason());
        }
        if (!imgbatch_test_failed())
            EXPECT(st == IMGBATCH_OK && images == FILES);
        else if (st != IMGBATCH_OK || images == -1)
            reported++;
        else if (images == FILES)
            went_round++;
        else
            EXPECT(!"a pass that neither failed nor gave every image");
    }
    imgbatch_test_fail_after(-1);
    fprintf(stderr, "keep_whole %d, backend %d: %ld allocations, %ld of "
            "them failed in turn: %ld failures reported, %ld gone round\n",
            keep_whole, (int)backend, total, tried, reported, went_round);
    EXPECT(total > 0 && reported >= 4);
}

/* The allocations nvJPEG asked of loader b's engine. */
static nj_memory counted(imgbatch *b)
{
    nj_memory m;
    nj_allocations(decoder_engine(imgbatch_run(b)->dec), &m);
    return m;
}

/* Two loaders at once, each through nvJPEG's hybrid path (whose buffers
 * grow through our allocators as files come, so both count some):
 * batches taken in turn from each, each counting its own nvJPEG
 * allocations; a second open leaves the first's counts as they were. */
static void two_loaders(void)
{
    imgbatch_options o;
    options(&o);
    o.backend = IMGBATCH_BACKEND_HYBRID;
    imgbatch *a = NULL, *b = NULL;
    char why[BATCH_ERR_LEN];
    EXPECT(imgbatch_open(&a, &o) == IMGBATCH_OK);
    if (!a)
        return;
    EXPECT(one_pass(a, why, sizeof why) == FILES);
    nj_memory a1 = counted(a);
    o.batch_size = 3;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    nj_memory a2 = counted(a);
    EXPECT(a2.device_allocs == a1.device_allocs &&
           a2.device_bytes == a1.device_bytes &&
           a2.pinned_allocs == a1.pinned_allocs &&
           a2.pinned_bytes == a1.pinned_bytes);
    long got_a = 0, got_b = 0;
    int ra = 1, rb = 1;
    EXPECT(imgbatch_rewind(a) == IMGBATCH_OK);
    while (b && (ra == 1 || rb == 1)) {
        imgbatch_batch x;
        if (ra == 1 && (ra = imgbatch_next(a, &x)) == 1)
            got_a += (long)x.count;
        if (rb == 1 && (rb = imgbatch_next(b, &x)) == 1)
            got_b += (long)x.count;
    }
    EXPECT(ra == 0 && rb == 0 && got_a == FILES && got_b == FILES);
    if (nj_built() && b) {
        nj_memory b1 = counted(b);
        EXPECT(a1.device_allocs + a1.pinned_allocs > 0);
        EXPECT(b1.device_allocs + b1.pinned_allocs > 0);
        fprintf(stderr, "two loaders: nvJPEG allocations %zu + %zu and "
                "%zu + %zu (device + pinned)\n", a1.device_allocs,
                a1.pinned_allocs, b1.device_allocs, b1.pinned_allocs);
    }
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    EXPECT(imgbatch_close(a) == IMGBATCH_OK);
}

/* Work of the caller's on its own stream that reads a batch: 300 ms on
 * CUDA's callback thread, then a flag. */
static int reader_done;
static void CUDART_CB slow_reader(void *arg)
{
    struct timespec wait = {.tv_sec = 0, .tv_nsec = 300000000L};
    (void)arg;
    nanosleep(&wait, NULL);
    __atomic_store_n(&reader_done, 1, __ATOMIC_SEQ_CST);
}

/* imgbatch_read_on: a stream of the caller's waits for the batch, and
 * the batch's stream for the work enqueued there before the next step:
 * with 2 streams, batch 2 runs on batch 0's, so it is ready only after
 * the slow reader of batch 0 ended (without the wait, in well under
 * 300 ms). Its bounds: a batch held, 8 streams. */
static void read_on_other_stream(void)
{
    imgbatch_options o;
    options(&o);
    imgbatch *b = NULL;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    if (!b)
        return;
    cudaStream_t s[9];
    for (int k = 0; k < 9; k++)
        EXPECT(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking) ==
               cudaSuccess);
    EXPECT(imgbatch_read_on(b, s[0]) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "no batch is held"));
    imgbatch_batch x0, x1, x2;
    EXPECT(imgbatch_next(b, &x0) == 1);
    for (int k = 0; k < 8; k++)
        EXPECT(imgbatch_read_on(b, s[k]) == IMGBATCH_OK);
    EXPECT(imgbatch_read_on(b, s[0]) == IMGBATCH_OK);  /* no second slot */
    EXPECT(imgbatch_read_on(b, s[8]) == IMGBATCH_ERR_OPTIONS &&
           strstr(imgbatch_failure_reason(), "at most 8"));
    __atomic_store_n(&reader_done, 0, __ATOMIC_SEQ_CST);
    EXPECT(cudaLaunchHostFunc(s[0], slow_reader, NULL) == cudaSuccess);
    EXPECT(imgbatch_next(b, &x1) == 1 && imgbatch_next(b, &x2) == 1);
    EXPECT(x2.stream == x0.stream && x1.stream != x0.stream);
    EXPECT(cudaEventSynchronize(x2.ready) == cudaSuccess);
    EXPECT(__atomic_load_n(&reader_done, __ATOMIC_SEQ_CST) == 1);
    EXPECT(imgbatch_next(b, &x2) == 0);
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    for (int k = 0; k < 9; k++)
        EXPECT(cudaStreamSynchronize(s[k]) == cudaSuccess &&
               cudaStreamDestroy(s[k]) == cudaSuccess);
}

typedef struct {
    imgbatch *b;
    int device;            /* the thread's device before the calls */
    int device_after;
    long images;
    double worst;          /* furthest value from [0, 1] */
} thread_job;

/* On its own thread, set to job->device: a pass, each batch's host
 * copy read once ready. */
static void *pass_on_thread(void *arg)
{
    thread_job *job = (thread_job *)arg;
    cudaSetDevice(job->device);
    imgbatch_batch x;
    int rc;
    while ((rc = imgbatch_next(job->b, &x)) == 1) {
        if (cudaEventSynchronize(x.ready) != cudaSuccess) {
            job->images = -1;
            break;
        }
        const float *v = (const float *)x.host;
        for (size_t i = 0; i < x.count * x.height * x.width; i++) {
            double off = v[i] < 0 ? -v[i] : v[i] > 1 ? v[i] - 1 : 0;
            job->worst = off > job->worst ? off : job->worst;
        }
        job->images += (long)x.count;
    }
    if (rc < 0)
        job->images = -1;
    cudaGetDevice(&job->device_after);
    return NULL;
}

/* A loader on device 0 used from another thread, whose current device
 * (the last GPU) stays as it was; the opening thread's device too. */
static void another_thread(int devices)
{
    imgbatch_options o;
    options(&o);
    o.copy_to_host = 1;
    int last = devices - 1, now = -1;
    cudaSetDevice(last);
    imgbatch *b = NULL;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    EXPECT(cudaGetDevice(&now) == cudaSuccess && now == last);
    if (!b)
        return;
    thread_job job = {.b = b, .device = last, .device_after = -1};
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, pass_on_thread, &job) == 0);
    pthread_join(t, NULL);
    EXPECT(job.images == FILES && job.worst == 0 &&
           job.device_after == last);
    /* Back on this thread, after a rewind: the loader goes on. */
    char why[BATCH_ERR_LEN];
    EXPECT(imgbatch_rewind(b) == IMGBATCH_OK);
    EXPECT(one_pass(b, why, sizeof why) == FILES);
    EXPECT(cudaGetDevice(&now) == cudaSuccess && now == last);
    null_arguments(b);
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    EXPECT(cudaGetDevice(&now) == cudaSuccess && now == last);
    cudaSetDevice(0);
}

/* Between open (which checked img_1.jpg at SIDE x SIDE) and next, the
 * file becomes a GROWN x GROWN JPEG of the same length: a bad file,
 * named; skipped with skip_bad. On each decode path. */
static void changed_file(imgbatch_decoder decoder, imgbatch_backend backend,
                         int skip_bad)
{
    imgbatch_options o;
    options(&o);
    o.decoder = decoder;
    o.backend = backend;
    o.skip_bad = skip_bad;
    imgbatch *b = NULL;
    imgbatch_status st = imgbatch_open(&b, &o);
    if (st != IMGBATCH_OK && !nj_built() && decoder == IMGBATCH_DECODER_GPU)
        return;  /* no GPU decoder in this build */
    EXPECT(st == IMGBATCH_OK);
    if (!b)
        return;
    EXPECT(write_all(paths[1], grown, file_len));
    char why[BATCH_ERR_LEN];
    why[0] = '\0';
    long images = one_pass(b, why, sizeof why);
    if (skip_bad)
        EXPECT(images == FILES - 1);
    else
        EXPECT(images == -1 && strstr(why, "img_1.jpg") &&
               strstr(why, "96 x 96"));
    if (images != (skip_bad ? FILES - 1 : -1) || (!skip_bad &&
                                                  !strstr(why, "96 x 96")))
        fprintf(stderr, "decoder %d backend %d skip_bad %d: %ld images, "
                "%s\n", (int)decoder, (int)backend, skip_bad, images, why);
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    EXPECT(write_all(paths[1], as_checked, file_len));
}

/* One pass: each image's path (copied) and label in names and labels
 * (2 * FILES at most). Returns the images, or -1; *in_order: 1 if every
 * batch's first was the count before it and it had labels. */
static long pass_files(imgbatch *b, char (*names)[192], int64_t *labels,
                       int *in_order)
{
    imgbatch_batch x;
    long n = 0;
    int rc;
    *in_order = 1;
    while ((rc = imgbatch_next(b, &x)) == 1) {
        *in_order &= x.first == (size_t)n && x.labels != NULL;
        for (size_t i = 0; i < x.count && n < 2 * FILES; i++, n++) {
            snprintf(names[n], sizeof names[n], "%s", x.files[i]);
            labels[n] = x.labels ? x.labels[i] : -1;
        }
    }
    return rc < 0 ? -1 : n;
}

/* A pass of b against epoch's permutation of the FILES copies: the
 * images at positions rank, rank + world, ... (count of them), each
 * labelled with its class (0 for the first half, 1 for the second). */
static void expect_order(imgbatch *b, const char (*copy)[192],
                         uint64_t seed, uint64_t epoch, size_t rank,
                         size_t world, long count)
{
    char names[2 * FILES][192];
    int64_t labels[2 * FILES];
    size_t perm[FILES];
    int in_order = 0;
    long n = pass_files(b, names, labels, &in_order);
    EXPECT(n == count && in_order);
    sampler_permutation(FILES, seed, epoch, perm);
    for (long i = 0; i < n && i < count; i++) {
        size_t k = perm[(rank + (size_t)i * world) % FILES];
        EXPECT(strcmp(names[i], copy[k]) == 0 &&
               labels[i] == (k >= FILES / 2));
    }
}

/* Class folders a (files 0 to 2) and b (3 to 5), a notes.txt beside
 * them: the classes and the file left out in the info; shuffled, each
 * epoch the sampler's permutation with each image's label; a rewind
 * before any batch starts no epoch; rank 1 of 4 (padded) kept whole;
 * drop_last's one whole batch of 4. */
static void data_set(void)
{
    char cls[160], sub[2][176], copy[FILES][192], notes[192];
    at(cls, sizeof cls, "cls");
    EXPECT(mkdir(cls, 0755) == 0);
    for (int c = 0; c < 2; c++) {
        snprintf(sub[c], sizeof sub[c], "%s/%c", cls, 'a' + c);
        EXPECT(mkdir(sub[c], 0755) == 0);
    }
    for (int k = 0; k < FILES; k++) {
        size_t len = 0;
        unsigned char *bytes = read_all(paths[k], &len);
        snprintf(copy[k], sizeof copy[k], "%s/img_%d.jpg",
                 sub[k < FILES / 2 ? 0 : 1], k);
        EXPECT(bytes && write_all(copy[k], bytes, len));
        free(bytes);
    }
    snprintf(notes, sizeof notes, "%s/notes.txt", cls);
    EXPECT(write_all(notes, "x", 1));
    imgbatch_options o;
    options(&o);
    o.folder = cls;
    o.class_folders = 1;
    o.shuffle = 1;
    o.seed = 3;
    imgbatch *b = NULL;
    imgbatch_info info;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    if (b && imgbatch_get_info(b, &info) == IMGBATCH_OK) {
        EXPECT(info.classes == 2 && info.class_names &&
               strcmp(info.class_names[0], "a") == 0 &&
               strcmp(info.class_names[1], "b") == 0 &&
               info.unread == 1 && info.images == FILES &&
               info.pass_images == FILES);
        for (uint64_t epoch = 0; epoch < 3; epoch++) {
            EXPECT(imgbatch_rewind(b) == IMGBATCH_OK);
            expect_order(b, copy, 3, epoch, 0, 1, FILES);
        }
    }
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    o.rank = 1;
    o.world_size = 4;
    o.keep_whole = 1;
    b = NULL;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    if (b && imgbatch_get_info(b, &info) == IMGBATCH_OK) {
        EXPECT(info.pass_images == 2 && info.tensor != NULL &&
               info.tensor_bytes == 2 * info.image_bytes);
        expect_order(b, copy, 3, 0, 1, 4, 2);
        EXPECT(imgbatch_rewind(b) == IMGBATCH_OK);
        expect_order(b, copy, 3, 1, 1, 4, 2);
    }
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    o.rank = 0;
    o.world_size = 1;
    o.keep_whole = 0;
    o.drop_last = 1;
    o.batch_size = 4;
    b = NULL;
    EXPECT(imgbatch_open(&b, &o) == IMGBATCH_OK);
    if (b && imgbatch_get_info(b, &info) == IMGBATCH_OK) {
        EXPECT(info.pass_images == 4 && info.batch_images == 4);
        expect_order(b, copy, 3, 0, 0, 1, 4);
    }
    EXPECT(imgbatch_close(b) == IMGBATCH_OK);
    for (int k = 0; k < FILES; k++)
        remove(copy[k]);
    remove(notes);
    EXPECT(rmdir(sub[0]) == 0 && rmdir(sub[1]) == 0 && rmdir(cls) == 0);
}

static int gpu_tests(void)
{
    write_files();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        /* The library says why: that line is the skip's reason, as every
         * other GPU test gives it. */
        imgbatch_options o;
        options(&o);
        imgbatch *b = NULL;
        imgbatch_status st = imgbatch_open(&b, &o);
        EXPECT(st == IMGBATCH_ERR_NO_DEVICE && !b);
        printf("%s: skipped\n", imgbatch_failure_reason());
        remove_files();
        return st == IMGBATCH_ERR_NO_DEVICE ? 77 : test_summary();
    }
    capture_stdout();
    fail_each_allocation(0, IMGBATCH_BACKEND_AUTO);
    fail_each_allocation(1, IMGBATCH_BACKEND_AUTO);
    fail_each_allocation(0, IMGBATCH_BACKEND_HYBRID);
    two_loaders();
    read_on_other_stream();
    another_thread(devices);
    for (int skip = 0; skip <= 1; skip++) {
        changed_file(IMGBATCH_DECODER_GPU, IMGBATCH_BACKEND_AUTO, skip);
        changed_file(IMGBATCH_DECODER_GPU, IMGBATCH_BACKEND_GPU_HYBRID, skip);
        changed_file(IMGBATCH_DECODER_GPU, IMGBATCH_BACKEND_HYBRID, skip);
        changed_file(IMGBATCH_DECODER_CPU, IMGBATCH_BACKEND_AUTO, skip);
    }
    data_set();
    check_stdout_empty();
    remove_files();
    return test_summary();
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "gpu") == 0)
        return gpu_tests();
    if (argc != 1) {
        fprintf(stderr, "usage: test_06_loader [gpu]\n");
        return 2;
    }
    return cpu_tests();
}
