/* 01_array_basics - the lab: what a CuPy array is, in C: memory on the
 * GPU plus a little description (dtype, shape, nbytes, device).
 *
 * Mirrors section 2.24.1.2.2 of the tutorial:
 *     x = cp.array([1, 2, 3, 4])
 *     print(x)                       # [1 2 3 4]
 * and goes on to cp.zeros, cp.arange and cp.random.rand, printing each
 * array exactly as NumPy would and checking it against its host source,
 * then times what print() costs. lesson.cu is the short, standalone
 * version; this program uses the shared helpers in common/.
 *
 * Run: make run-01    (options: make run-01 ARGS="--help")
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <curand.h>

#include "alloc.h"
#include "array.h"
#include "check.h"
#include "device.h"
#include "files.h"
#include "options.h"
#include "timing.h"
#include "units.h"
#include "verify.h"

static const uint64_t RANDOM_SEED = 42;
static const int THREADS_PER_BLOCK = 256;

/* cp.arange(n): element i holds i. A grid-stride loop, so any n works with
 * a grid of any size (lesson.cu explains it step by step). */
__global__ void arange_kernel(int64_t *out, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride)
        out[i] = (int64_t)i;
}

/* cp.arange(n) on the device: one block per THREADS_PER_BLOCK elements,
 * but no more blocks than the GPU holds at once (SMs x resident blocks per
 * SM, from the occupancy calculator): the rest would only wait for a free
 * slot, and the grid-stride loop hands each thread several elements
 * instead. That cap is a choice, not a limit: gridDim.x may reach 2^31-1. */
static void launch_arange(int64_t *d_out, size_t n)
{
    int device, sm_count, blocks_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_count,
                                      cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, arange_kernel, THREADS_PER_BLOCK, 0));
    size_t needed = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    size_t wave = (size_t)sm_count * (size_t)blocks_per_sm;
    int blocks = (int)(needed < wave ? needed : wave);
    arange_kernel<<<blocks, THREADS_PER_BLOCK>>>(d_out, n);
    /* A bad launch configuration is reported here, not by the launch. */
    CUDA_CHECK(cudaGetLastError());
}

/* Device arrays come from common/array.h: cm_array_new allocates (with
 * cudaMalloc, after checking that the GPU has the bytes free), and dtype,
 * shape and nbytes are plain host-side bookkeeping; only `data` lives on
 * the GPU. lesson.cu writes the same calls out by hand. */
static cm_array device_array(cm_dtype dtype, int ndim, size_t rows,
                             size_t cols)
{
    size_t shape[2] = {rows, cols};
    return cm_array_new(dtype, ndim, shape, CM_ON_DEVICE);
}

/* Prints what the array is: the pointer is a GPU virtual address, which
 * the CPU must never dereference; the runtime can tell us where it lives. */
static void describe(const char *name, const cm_array *a)
{
    struct cudaPointerAttributes attr;
    CUDA_CHECK(cudaPointerGetAttributes(&attr, a->data));
    char bytes[64];
    printf("  %s: device pointer %p (%s memory on device %d), dtype %s, "
           "shape (%zu%s", name, a->data,
           attr.type == cudaMemoryTypeDevice ? "device" : "other",
           attr.device, cm_dtype_name(a->dtype), a->shape[0],
           a->ndim == 1 ? ",)" : ", ");
    if (a->ndim == 2)
        printf("%zu)", a->shape[1]);
    printf(", nbytes %s\n", cm_fmt_bytes(a->nbytes, bytes, sizeof bytes));
}

/* print(x) for a device array: the CPU cannot read GPU memory, so, like
 * CuPy, we copy the whole array back first and print the copy. That is
 * what cm_array_print does for a device array too, but it throws its copy
 * away; we copy into a host cm_array ourselves and return it, so that the
 * caller can check exactly what was printed. */
static void *print_device_array(const cm_array *a)
{
    cm_array h_copy = cm_array_new(a->dtype, a->ndim, a->shape, CM_ON_HOST);
    cm_array_copy(&h_copy, a);
    cm_array_print(stdout, &h_copy);
    return h_copy.data;
}

typedef struct {
    void *h_dst;
    const cm_array *src;
} copy_back;

static void copy_back_region(void *ctx)
{
    copy_back *c = (copy_back *)ctx;
    CUDA_CHECK(cudaMemcpy(c->h_dst, c->src->data, c->src->nbytes,
                          cudaMemcpyDeviceToHost));
}

/* For the CSV only: x's copy in (cp.array's transfer) and big's arange
 * kernel, each writing the values that were checked above again. */
typedef struct {
    const void *h_src;
    const cm_array *dst;
} copy_in;

static void copy_in_region(void *ctx)
{
    copy_in *c = (copy_in *)ctx;
    CUDA_CHECK(cudaMemcpy(c->dst->data, c->h_src, c->dst->nbytes,
                          cudaMemcpyHostToDevice));
}

static void arange_region(void *ctx)
{
    const cm_array *a = (const cm_array *)ctx;
    launch_arange((int64_t *)a->data, a->size);
}

int main(int argc, char **argv)
{
    size_t range_n = 10, big_side = 1000;
    /* Both bounds keep every byte count at most 2^33: no product of them
     * comes near size_t's limit. */
    cm_opt own[] = {
        {.name = "n", .type = CM_OPT_SIZE, .value = &range_n,
         .metavar = "N", .help = "length of cp.arange(N)",
         .min = 1, .max = 1 << 30},
        {.name = "big", .type = CM_OPT_SIZE, .value = &big_side,
         .metavar = "N", .help = "side of the N x N array printed with '...'",
         .min = 1, .max = 1 << 15},
    };
    cm_cli cli = {.program = "01_array_basics",
                  .summary = "Device arrays from host data, printed as "
                             "NumPy prints them (mirrors cp.array).",
                  .opts = own, .n_opts = sizeof own / sizeof own[0]};
    cm_options opt = cm_options_default();
    cm_parse_or_exit(&cli, &opt, argc, argv);
    if (opt.quick && !opt.repeat_given)
        opt.repeat = 3;

    /* Before the GPU is touched: the host memory the largest step holds
     * (a printed copy and its reference), and the CSV file, so that a
     * size or a path that cannot work fails at once, in one line. */
    size_t r_bytes = range_n * sizeof(int64_t);
    size_t big_bytes = big_side * big_side * sizeof(int64_t);
    cm_require_host_bytes(2 * (r_bytes > big_bytes ? r_bytes : big_bytes),
                          "a printed array and its reference");
    cm_out_file csv_file;
    FILE *csv = cm_csv_open(&csv_file, opt.csv,
                            "step,bytes,ms_median,ms_min,gb_per_s");

    cm_select_device((int)opt.device, NULL);
    cm_verdict verdict = {0};

    /* x = cp.array([1, 2, 3, 4]): NumPy makes int64 from Python ints. The
     * host list is copied into freshly allocated device memory. */
    printf("\nx = cp.array([1, 2, 3, 4])\n");
    const int64_t h_x[4] = {1, 2, 3, 4};
    cm_array x = device_array(CM_INT64, 1, 4, 0);
    CUDA_CHECK(cudaMemcpy(x.data, h_x, x.nbytes, cudaMemcpyHostToDevice));
    describe("x", &x);
    printf("print(x)\n");
    void *h_printed = print_device_array(&x);
    cm_check_equal(&verdict, "x printed == host list", h_printed, h_x,
                   CM_INT64, x.size);
    free(h_printed);

    /* z = cp.zeros((2, 3)): float64 by default. All-zero bytes are the
     * float 0.0, so cudaMemset can do it without a kernel. */
    printf("\nz = cp.zeros((2, 3))\n");
    cm_array z = device_array(CM_FLOAT64, 2, 2, 3);
    CUDA_CHECK(cudaMemset(z.data, 0, z.nbytes));
    describe("z", &z);
    h_printed = print_device_array(&z);
    double h_zeros[6] = {0, 0, 0, 0, 0, 0};
    cm_check_equal(&verdict, "z printed == zeros", h_printed, h_zeros,
                   CM_FLOAT64, z.size);
    free(h_printed);

    /* r = cp.arange(n): computed on the GPU by our own kernel. The copy
     * back inside print_device_array waits for it, so a fault inside the
     * kernel would be reported there at the latest. */
    printf("\nr = cp.arange(%zu)\n", range_n);
    cm_array r = device_array(CM_INT64, 1, range_n, 0);
    launch_arange((int64_t *)r.data, range_n);
    describe("r", &r);
    h_printed = print_device_array(&r);
    int64_t *h_range = (int64_t *)cm_host_alloc(r.nbytes, "range reference");
    for (size_t i = 0; i < range_n; i++)
        h_range[i] = (int64_t)i;
    cm_check_equal(&verdict, "r printed == 0..n-1", h_printed, h_range,
                   CM_INT64, r.size);
    free(h_range);
    free(h_printed);

    /* u = cp.random.rand(3, 4): cuRAND fills device memory directly, in
     * (0, 1]; cp.random.rand makes an exact 1.0 of these 0.0, for NumPy's
     * [0, 1), and we print cuRAND's own. Its host-side generator, same
     * type and seed, produces the very same numbers on the CPU: an exact,
     * independent reference. */
    printf("\nu = cp.random.rand(3, 4)   (cuRAND XORWOW, seed %llu)\n",
           (unsigned long long)RANDOM_SEED);
    cm_array u = device_array(CM_FLOAT64, 2, 3, 4);
    curandGenerator_t gen, host_gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_XORWOW));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, RANDOM_SEED));
    CURAND_CHECK(curandGenerateUniformDouble(gen, (double *)u.data, u.size));
    describe("u", &u);
    h_printed = print_device_array(&u);
    double h_random[12];
    CURAND_CHECK(curandCreateGeneratorHost(&host_gen,
                                           CURAND_RNG_PSEUDO_XORWOW));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(host_gen, RANDOM_SEED));
    CURAND_CHECK(curandGenerateUniformDouble(host_gen, h_random, 12));
    cm_check_equal(&verdict, "u printed == cuRAND host generator", h_printed,
                   h_random, CM_FLOAT64, u.size);
    free(h_printed);

    /* Above 1000 elements NumPy prints only the corners, but print() still
     * copies the whole array back first: the printed 36 numbers cost a
     * full-size transfer. */
    printf("\nbig = cp.arange(%zu * %zu).reshape(%zu, %zu)\n", big_side,
           big_side, big_side, big_side);
    cm_array big = device_array(CM_INT64, 2, big_side, big_side);
    launch_arange((int64_t *)big.data, big.size);
    describe("big", &big);
    h_printed = print_device_array(&big);
    int64_t *h_big = (int64_t *)cm_host_alloc(big.nbytes, "big reference");
    for (size_t i = 0; i < big.size; i++)
        h_big[i] = (int64_t)i;
    cm_check_equal(&verdict, "big printed == 0..n-1", h_printed, h_big,
                   CM_INT64, big.size);
    free(h_big);

    /* What print() costs: the copy back, timed with CUDA events after a
     * warm-up. The stop event is recorded after the copy on the same
     * stream, so it completes only once the copy has. */
    printf("\ncost of print(): the device-to-host copy, median of %lld\n",
           opt.repeat);
    const cm_array *timed[2] = {&x, &big};
    const char *names[2] = {"x", "big"};
    for (int k = 0; k < 2; k++) {
        copy_back job = {.h_dst = h_printed, .src = timed[k]};
        cm_stats s = cm_time_events(copy_back_region, &job, 0,
                                    (int)opt.warmup, (int)opt.repeat);
        char bytes[64];
        printf("  print(%s): copies %s in %.4f ms", names[k],
               cm_fmt_bytes(timed[k]->nbytes, bytes, sizeof bytes),
               s.median_ms);
        /* For 32 bytes the time is the call's fixed cost, not the bytes:
           a GB/s would mean nothing, so it is printed from 1 MB up. */
        if (timed[k]->nbytes >= 1000000)
            printf(" (%.2f GB/s)", cm_gbps((double)timed[k]->nbytes,
                                           s.median_ms));
        printf("\n");
        if (csv)
            fprintf(csv, "print(%s) D2H,%zu,%.6f,%.6f,%.3f\n", names[k],
                    timed[k]->nbytes, s.median_ms, s.min_ms,
                    cm_gbps((double)timed[k]->nbytes, s.median_ms));
    }
    /* The CSV also times the two steps that make x and big (the rows that
     * make compare-01 sets beside CuPy's cp.array and cp.arange): the copy
     * of x's 4 values in, and the arange kernel over big, both on CUDA
     * events. They rewrite the same values, so the checks above stand. */
    if (csv) {
        copy_in job = {.h_src = h_x, .dst = &x};
        cm_stats s = cm_time_events(copy_in_region, &job, 0,
                                    (int)opt.warmup, (int)opt.repeat);
        fprintf(csv, "cp.array(x) H2D,%zu,%.6f,%.6f,%.3f\n", x.nbytes,
                s.median_ms, s.min_ms, cm_gbps((double)x.nbytes,
                                               s.median_ms));
        s = cm_time_events(arange_region, &big, 0, (int)opt.warmup,
                           (int)opt.repeat);
        fprintf(csv, "cp.arange(big) kernel,%zu,%.6f,%.6f,%.3f\n",
                big.nbytes, s.median_ms, s.min_ms,
                cm_gbps((double)big.nbytes, s.median_ms));
    }
    cm_csv_finish(&csv_file, &verdict);   /* kept only if every check passed */
    free(h_printed);

    CURAND_CHECK(curandDestroyGenerator(gen));
    CURAND_CHECK(curandDestroyGenerator(host_gen));
    cm_array *all[5] = {&x, &z, &r, &u, &big};
    for (int k = 0; k < 5; k++)
        cm_array_free(all[k]);
    printf("\n");
    return cm_verdict_report(&verdict);
}
