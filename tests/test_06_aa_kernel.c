/* test_06_aa_kernel.c - the antialiased resize's GPU kernel
 * (batch/transform_aa.cu), run on the CPU: its code, cut from the .cu by
 * the build (06_image_preprocess/extra.mk) into transform_aa_kernel.inc,
 * compiled here as C, one POSIX thread for each CUDA thread of a block
 * and a barrier for __syncthreads, the blocks in turn. Its levels must
 * be tf_image_ref's, every one, over images of random sizes, in both
 * paths (tiles, and the direct sum of a downscale by more than 63), every
 * EXIF orientation, one or three planes, with fewer blocks than tiles.
 * What the GPU itself does (its double operations, its memory) is left
 * to the GPU tests (tests/06_antialias.cmake); this test sees the tiles,
 * chunks and indices.
 */
#include "test.h"
#include "../06_image_preprocess/batch/transform.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* CUDA's names, for the kernel's code on the CPU. */
typedef struct {
    unsigned x, y, z;
} dim3_t;
static _Thread_local dim3_t threadIdx, blockIdx;
static dim3_t gridDim;
static pthread_barrier_t block_barrier;
#define __syncthreads() pthread_barrier_wait(&block_barrier)
/* (cuda_runtime_api.h, through transform.h, defines these for its own
 * declarations: ours replace them from here on) */
#undef __device__
#undef __global__
#undef __forceinline__
#undef __shared__
#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__ static   /* one block at a time: one copy serves */
/* One IEEE double operation each, as the intrinsics: this file's build
 * does not contract (extra.mk) */
static double __dadd_rn(double a, double b) { return a + b; }
static double __dmul_rn(double a, double b) { return a * b; }
static double __ddiv_rn(double a, double b) { return a / b; }
static int __double2int_rz(double a) { return (int)a; }
/* The uint8 tensor alone: the dtypes' store is transform.cu's, and
 * test_06_transform checks the reference's. */
typedef struct {
    unsigned out_w, out_h, channels, rows;
    int dtype, flip;
    float mean[3], std[3];
} tf_params;
static void store(void *out, size_t at, unsigned level, unsigned c,
                  const tf_params *p)
{
    (void)c;
    (void)p;
    ((uint8_t *)out)[at] = (uint8_t)level;
}
#include "transform_aa_kernel.inc"

/* The CUDA threads of a block, started once: each launch and its end
 * meet them at launch_barrier (they and main), each block's end at
 * block_barrier (they alone). */
static pthread_barrier_t launch_barrier;
static struct {
    void *out;
    const tf_image *table;
    const uint8_t *arena;
    tf_params p;
    int quit;
} launch_args;

static void *cuda_thread(void *arg)
{
    threadIdx.x = (unsigned)(uintptr_t)arg;
    blockIdx.y = 0;
    for (;;) {
        pthread_barrier_wait(&launch_barrier);  /* a launch, or the end */
        if (launch_args.quit)
            return NULL;
        for (unsigned b = 0; b < gridDim.x; b++) {
            blockIdx.x = b;
            transform_aa_kernel(launch_args.out, launch_args.table,
                                launch_args.arena, launch_args.p);
            pthread_barrier_wait(&block_barrier);  /* the block is done */
        }
        pthread_barrier_wait(&launch_barrier);  /* the launch is done */
    }
}

static pthread_t threads[THREADS];

static void start_threads(void)
{
    if (pthread_barrier_init(&block_barrier, NULL, THREADS) != 0 ||
        pthread_barrier_init(&launch_barrier, NULL, THREADS + 1) != 0) {
        fprintf(stderr, "cannot make the barriers\n");
        exit(1);
    }
    for (unsigned k = 0; k < THREADS; k++)
        if (pthread_create(&threads[k], NULL, cuda_thread,
                           (void *)(uintptr_t)k) != 0) {
            /* those started wait at the barrier: no way back */
            fprintf(stderr, "cannot start %d threads\n", THREADS);
            exit(1);
        }
}

static void stop_threads(void)
{
    launch_args.quit = 1;
    pthread_barrier_wait(&launch_barrier);
    for (unsigned k = 0; k < THREADS; k++)
        pthread_join(threads[k], NULL);
    pthread_barrier_destroy(&block_barrier);
    pthread_barrier_destroy(&launch_barrier);
}

/* The kernel over one image (table entry t), grid_x blocks. */
static void launch(void *out, const tf_image *t, const uint8_t *arena,
                   const tf_spec *s, unsigned grid_x)
{
    memset(&launch_args.p, 0, sizeof launch_args.p);
    launch_args.p.out_w = (unsigned)s->out_w;
    launch_args.p.out_h = (unsigned)s->out_h;
    launch_args.p.channels = (unsigned)s->channels;
    launch_args.p.flip = s->flip;
    launch_args.out = out;
    launch_args.table = t;
    launch_args.arena = arena;
    gridDim.x = grid_x;
    pthread_barrier_wait(&launch_barrier);
    pthread_barrier_wait(&launch_barrier);
}

static unsigned long long state = 88172645463325252ull;
static size_t below(size_t n)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (size_t)(state % n);
}

int main(void)
{
    int direct = 0, tiled = 0, oriented = 0, wrong_images = 0;
    start_threads();
    for (int k = 0; k < 160; k++) {
        tf_spec s;
        memset(&s, 0, sizeof s);
        s.antialias = 1;
        s.dtype = TF_UINT8;
        s.channels = below(2) ? 3 : 1;
        s.flip = (int)below(2);
        int planes = s.channels == 3 && below(2) ? 3 : 1;
        size_t w = 1 + below(300), h = 1 + below(300);
        if (k % 5 == 0) {  /* long and thin: downscales past 63 */
            w = 1 + below(3000);
            h = 1 + below(20);
        }
        int o = 1 + (int)below(8);
        if (below(2)) {
            s.mode = TF_RESIZE;
            s.out_w = 1 + below(70);
            s.out_h = 1 + below(70);
        } else {
            s.mode = TF_SHORT_CROP;
            s.short_side = 1 + below(80);
            s.out_w = 1 + below(s.short_side);
            s.out_h = 1 + below(s.short_side);
        }
        tf_place pl;
        if (tf_place_oriented(&s, w, h, o, &pl) != 0) {
            k--;
            continue;
        }
        size_t up_w = o >= 5 ? h : w, up_h = o >= 5 ? w : h;
        int is_direct = tf_aa_taps(pl.scaled_w, up_w) > MAX_TAPS ||
                        tf_aa_taps(pl.scaled_h, up_h) > MAX_TAPS;
        direct += is_direct;
        tiled += !is_direct;
        oriented += o != 1;
        uint8_t *arena = malloc(w * h * (size_t)planes);
        for (size_t i = 0; i < w * h * (size_t)planes; i++)
            arena[i] = (uint8_t)below(256);
        tf_image t;
        memset(&t, 0, sizeof t);
        t.plane_bytes = planes == 3 ? (unsigned)(w * h) : 0;
        t.src_w = (unsigned)w;
        t.src_h = (unsigned)h;
        t.scaled_w = (unsigned)pl.scaled_w;
        t.scaled_h = (unsigned)pl.scaled_h;
        t.crop_x = (unsigned)pl.crop_x;
        t.crop_y = (unsigned)pl.crop_y;
        t.orientation = (unsigned)pl.orientation;
        size_t n = (size_t)s.channels * s.out_w * s.out_h;
        uint8_t *got = calloc(n, 1), *want = malloc(n);
        size_t tiles = ((s.out_w + TILE_W - 1) / TILE_W) *
                       ((s.out_h + TILE_H - 1) / TILE_H);
        /* now and then fewer blocks than tiles: a block's loop */
        unsigned grid = (unsigned)(k % 3 == 0 && tiles > 1 ? tiles / 2
                                                           : tiles);
        launch(got, &t, arena, &s, grid);
        tf_image_ref(&s, &pl, arena, planes, w, h, want);
        size_t differ = 0;
        for (size_t i = 0; i < n; i++)
            differ += got[i] != want[i];
        if (differ) {
            wrong_images++;
            fprintf(stderr, "%zu x %zu, orientation %d, %d plane(s), "
                    "%d channel(s), to %zu x %zu of %zu x %zu, %u "
                    "blocks: %zu of %zu levels differ\n", w, h, o, planes,
                    s.channels, s.out_w, s.out_h, pl.scaled_w,
                    pl.scaled_h, grid, differ, n);
        }
        free(arena);
        free(got);
        free(want);
    }
    stop_threads();
    EXPECT(wrong_images == 0);
    /* The cases reached both paths and the orientations. */
    EXPECT(direct >= 10 && tiled >= 100 && oriented >= 100);
    return test_summary();
}
