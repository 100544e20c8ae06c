/* outofcore.cu - part 4 of 04_memory, the advanced part: the blocked GEMM
 * that does save GPU memory. The tutorial's blocking keeps A, B and C on
 * the GPU, so it needs as much memory as one call. Here A, B and C stay in
 * pinned host memory and only what fits in --mem-limit is on the GPU. Two
 * plans (tiling.h):
 *
 *   resident B (when B fits with room to spare):
 *     B comes in piece by piece; meanwhile the first row panels of C are
 *     computed piece by piece: C[r, :] += A[r, p] @ B[p, :]
 *     then for each further row panel r:   A[r, :] comes in, whole rows
 *       C[r, :] = A[r, :] @ B              one GEMM, all of k
 *       C[r, :] goes home                  while the next panel computes
 *   tiled (smaller budgets), a few C tiles of one column c at a time:
 *     for each step (B piece p of column c, in a cycle):
 *       A[rows of the tiles on the GPU, p] packed into one block by host
 *                                          threads, comes in on one stream
 *       B[p, c]                            comes in on another
 *       each tile on the GPU: C tile += A[its rows, p] @ B[p, c]
 *       a tile that has taken every piece goes home (on a third stream),
 *       and the next tile of the column enters its buffer at the next
 *       step, so tiles come and go one at a time, never all at once
 *
 * The GEMMs run on a stream of their own; events say when a buffer is full
 * or free again (streamed.cu runs a plan so). The planner picks the plan
 * and its sizes by their estimated time on this GPU's measured rates
 * (probe.cu): among those within 5% of the shortest estimate, those whose
 * GEMMs take within 5% of the least GEMM time, and of those the fewest
 * bytes moved; it prints those bytes beside the least any plan could move
 * (the I/O lower bound, tiling.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "alloc.h"
#include "check.h"
#include "cost.h"
#include "cpus.h"
#include "floor.h"
#include "memory.h"
#include "options.h"
#include "pack.h"
#include "streamed.h"
#include "tiling.h"
#include "timing.h"
#include "units.h"

void part_outofcore(memory_run *run)
{
    size_t n = run->n, bytes = n * n * sizeof(double);
    char t1[96], t2[96], t3[96], t4[96], described[1024];
    printf("\n== 4. out-of-core blocked GEMM: A, B, C on the host, at most "
           "%s on the GPU ==\n",
           cm_fmt_bytes(run->mem_limit, t1, sizeof t1));

    ooc_job j;
    memset(&j, 0, sizeof j);
    cudaStream_t *streams[] = {&j.gemm, &j.copy_a, &j.copy_b, &j.copy_out};
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++)
        CUDA_CHECK(cudaStreamCreateWithFlags(streams[i],
                                             cudaStreamNonBlocking));
    cudaEvent_t *events[] = {&j.start,   &j.end,     &j.a_in[0],
                             &j.a_in[1], &j.b_in[0], &j.b_in[1],
                             &j.used[0], &j.used[1], &j.done[0],
                             &j.done[1], &j.home[0], &j.home[1],
                             &j.staged[0], &j.staged[1], &j.tile_done};
    /* Events that only order streams need no timestamps. */
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CUDA_CHECK(cudaEventCreateWithFlags(events[i],
                                            cudaEventDisableTiming));
    for (int s = 0; s < OOC_MAX_SLOTS; s++)
        CUDA_CHECK(cudaEventCreateWithFlags(&j.slot_home[s],
                                            cudaEventDisableTiming));
    /* cuBLAS's own workspace comes with the handle, outside the budget,
     * like the CUDA context: --mem-limit bounds the data buffers. */
    CUBLAS_CHECK(cublasCreate(&j.handle));
    CUBLAS_CHECK(cublasSetStream(j.handle, j.gemm));
    double *h_c = pinned_alloc(bytes, "the out-of-core C");
    /* The host threads that pack narrow A pieces into one block: one per
     * CPU we may use, at most PACK_MAX_THREADS. */
    int threads = cm_cpu_count();
    j.packers = pack_pool_start(threads < PACK_MAX_THREADS
                                    ? threads : PACK_MAX_THREADS);

    /* Measure what the plans trade off, on this GPU and host, then plan.
     * main has checked that the budget holds the smallest plan in pool
     * chunks. */
    ooc_rates rates;
    measure_rates(&rates, j.handle, j.gemm, n, run->mem_limit, j.packers,
                  (double *)run->h_a, h_c);
    /* How many copies can run beside each other and the GEMMs: with one
     * copy engine the copies in and out take turns (common/floor.h). */
    CUDA_CHECK(cudaDeviceGetAttribute(&rates.copy_engines,
                                      cudaDevAttrAsyncEngineCount,
                                      run->device));
    printf("copy engines: %d (asyncEngineCount): %s\n", rates.copy_engines,
           cm_copy_engines_meaning(rates.copy_engines));
    ooc_plan plan, other;
    if (ooc_plan_make(n, sizeof(double), run->mem_limit, run->pool_chunk,
                      &rates, run->plan_kind, &plan) != 0) {
        fprintf(stderr, "%s: no out-of-core plan fits in %s\n",
                cm_program_name(), cm_fmt_bytes(run->mem_limit, t1, sizeof t1));
        exit(CM_EXIT_FAIL);
    }
    /* A tiled plan's GEMMs are thin (tile_k is a few hundred): they run
     * slower than the square probe's, so its estimate uses their rate,
     * measured for its shape. (The planner weighed the plans at the
     * square rate; a tile_k above MEM_PROBE_SIDE_MAX keeps that rate,
     * which cost.h counts on.) */
    if (plan.kind == OOC_TILED && plan.tile_k <= MEM_PROBE_SIDE_MAX) {
        rates.tiled_gemm_tflops = probe_tiled_gemm_tflops(j.handle, j.gemm,
                                                          &plan);
        plan.estimate_ms = ooc_estimate_ms(&plan, &rates, NULL);
        printf("measured: DGEMM of the plan's shape, %zu x %zu x %zu (all "
               "its C buffers at once, beta = 1): %.2f TFLOP/s; the "
               "estimate below uses it\n", plan.c_buffers * plan.tile_rows,
               plan.tile_cols, plan.tile_k, rates.tiled_gemm_tflops);
    }
    printf("plan (%s; the budget in %s pool chunks): %s\n",
           run->plan_kind == OOC_ANY ? "estimate within 5% of the "
                                       "shortest, then fastest GEMMs"
                                     : "as --plan asks",
           cm_fmt_bytes_short(run->pool_chunk, t1, sizeof t1),
           ooc_plan_describe(&plan, described, sizeof described));
    /* Why this one: the best plan of the other kind, if any fits. */
    ooc_kind other_kind = plan.kind == OOC_TILED ? OOC_RESIDENT : OOC_TILED;
    if (run->plan_kind == OOC_ANY &&
        ooc_plan_make(n, sizeof(double), run->mem_limit, run->pool_chunk,
                      &rates, other_kind, &other) == 0)
        printf("not chosen: %s\n",
               ooc_plan_describe(&other, described, sizeof described));
    else if (run->plan_kind == OOC_ANY)
        printf("not possible: %s\n", other_kind == OOC_RESIDENT
               ? "B resident (B does not fit with a panel of A and C)"
               : "tiles (the smallest tiling does not fit)");
    /* The least any plan could move with this much GPU memory: every
     * element brought in serves at most about sqrt(M) multiply-adds
     * (tiling.h), and A, B and C must cross at least once. */
    double streaming, once, moved = (double)(plan.h2d_bytes + plan.d2h_bytes);
    double bound = ooc_io_bound_bytes(n, sizeof(double), run->mem_limit,
                                      &streaming, &once);
    printf("I/O: the plan moves %.3f GB (in + out); the lower bound with "
           "M = %zu doubles on the GPU is max(2 n^3 / sqrt(M) = %.3f GB, "
           "each matrix once = %.3f GB) = %.3f GB; moved / bound = %.2fx\n",
           moved / 1e9, run->mem_limit / sizeof(double), streaming / 1e9,
           once / 1e9, bound / 1e9, moved / bound);

    /* All GPU buffers come from one allocation out of a pool of our own,
     * so the pool's high-water marks are exactly what this part held. */
    cudaMemPool_t pool = pool_create(run->device);
    cm_require_device_bytes(plan.device_bytes, "the out-of-core buffers");
    size_t free_before, free_during, total;
    CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    char *d_slab;
    CUDA_CHECK(cudaMallocFromPoolAsync((void **)&d_slab, plan.device_bytes,
                                       pool, j.gemm));
    CUDA_CHECK(cudaStreamSynchronize(j.gemm));
    CUDA_CHECK(cudaMemGetInfo(&free_during, &total));
    for (int i = 0; i < 2; i++) {
        j.d_c[i] = (double *)(d_slab + plan.c_offset[i]);
        j.d_a[i] = (double *)(d_slab + plan.a_offset[i]);
        j.d_b[i] = (double *)(d_slab + plan.b_offset[i]);
    }
    j.plan = &plan;
    j.h_a = run->h_a;
    j.h_b = run->h_b;
    j.h_c = h_c;
    /* Host memory, outside the GPU budget: two staging buffers of one A
     * piece each, pinned so that each goes over at the full rate. */
    if (plan.staging_bytes > 0)
        for (int i = 0; i < 2; i++)
            j.h_stage[i] = pinned_alloc(plan.staging_bytes / 2,
                                        "a step's A piece staging buffer");

    /* Every run's C is checked, not only the last one's: before each run
     * h_c is filled with NaN (every bit set), so a run that wrote nothing,
     * or only part of C, cannot pass on what an earlier run left there.
     * The fill and the check stay outside the events: each run is timed
     * alone, from its first copy in to its last C home. */
    j.copies = 1;
    int runs = run->warmup + run->repeat, worst_run = 0;
    double *samples = (double *)cm_host_alloc(
        (size_t)run->repeat * sizeof(double), "the run times");
    double worst = 0;
    size_t worst_row = 0;
    cm_event_timer timer = cm_timer_create(j.gemm);
    for (int r = 0; r < runs; r++) {
        memset(h_c, 0xff, bytes);
        cm_timer_start(&timer);
        streamed_gemm(&j);
        float ms = cm_timer_stop(&timer);  /* waits: C is home */
        if (r >= run->warmup)
            samples[r - run->warmup] = ms;
        size_t row;
        double ratio = cm_freivalds_check(run->check, h_c, &row);
        if (r == 0 || ratio > worst) {   /* NaN comes back as infinity */
            worst = ratio;
            worst_row = row;
            worst_run = r;
        }
    }
    cm_timer_destroy(&timer);
    cm_stats s = cm_stats_of(samples, run->repeat);
    free(samples);
    /* The same GEMMs without the copies: the compute part of the floor. */
    j.copies = 0;
    cm_stats g = cm_time_events(streamed_gemm, &j, j.gemm, run->warmup,
                                run->repeat);
    CUDA_CHECK(cudaFreeAsync(d_slab, j.gemm));
    CUDA_CHECK(cudaStreamSynchronize(j.gemm));
    uint64_t used_high = 0, reserved_high = 0;
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh,
                                       &used_high));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh,
                                       &reserved_high));
    CUDA_CHECK(cudaMemPoolDestroy(pool));

    double flops = 2.0 * (double)n * (double)n * (double)n;
    /* With two copy engines or more, copies in and out use separate
     * engines and directions of the bus, so they overlap each other and
     * the GEMMs: the floor is the busiest of the three, each at its best
     * rate. With one engine in and out add up (common/floor.h). */
    double in_ms = (double)plan.h2d_bytes / (rates.h2d_gbps * 1e6);
    double out_ms = (double)plan.d2h_bytes / (rates.d2h_gbps * 1e6);
    double floor_ms = cm_overlap_floor_ms(g.median_ms, in_ms, out_ms,
                                          rates.copy_engines);
    /* The bound's bytes on this link: C's n^2 out at the rate out, the
     * rest in at the rate in; with two copy engines or more they overlap
     * (the slower direction), with fewer they add up. No plan's copies
     * can beat that with this budget. */
    double bound_in, bound_out;
    ooc_io_bound_split(n, sizeof(double), run->mem_limit, &bound_in,
                       &bound_out);
    double bound_ms = ooc_io_bound_ms(bound_in, bound_out, rates.h2d_gbps,
                                      rates.d2h_gbps, rates.copy_engines);
    char formula[160];
    cm_overlap_floor_text(formula, sizeof formula, "GEMMs alone",
                          g.median_ms, in_ms, out_ms, rates.copy_engines);
    printf("bytes moved: in %s, out %s\n",
           cm_fmt_bytes(plan.h2d_bytes, t1, sizeof t1),
           cm_fmt_bytes(plan.d2h_bytes, t2, sizeof t2));
    printf("out-of-core: %.3f ms median (min %.3f, max %.3f), %.2f "
           "TFLOP/s, %.2f GB/s moved (in + out / time)\n", s.median_ms,
           s.min_ms, s.max_ms, cm_tflops(flops, s.median_ms),
           cm_gbps(moved, s.median_ms));
    printf("floor = %s = %.3f ms; time / floor = %.2fx\n", formula,
           floor_ms, s.median_ms / floor_ms);
    int overlap = rates.copy_engines >= 2;
    printf("the I/O bound's time: %s(in %.3f GB / %.2f GB/s%s out %.3f GB "
           "/ %.2f GB/s) = %.3f ms (%s); time / that = %.2fx\n",
           overlap ? "max" : "", bound_in / 1e9, rates.h2d_gbps,
           overlap ? "," : " +", bound_out / 1e9, rates.d2h_gbps, bound_ms,
           overlap ? "in and out overlap" : "in and out take turns",
           s.median_ms / bound_ms);
    printf("the plan's estimate replays it on the measured rates, with %s: "
           "%.3f ms; time / estimate = %.2fx\n", plan.kind == OOC_RESIDENT
           ? "B's upload, which most panels must wait for, and the last "
             "panel going home"
           : "the host's packing of each step's A piece, each entering "
             "tile's wait for its buffer's last tile to go home, and the "
             "last tile's trip home",
           plan.estimate_ms,
           s.median_ms / plan.estimate_ms);
    printf("device memory: pool peak in use %s, peak reserved %s, GPU free "
           "fell by %s; budget %s\n",
           cm_fmt_bytes_short((size_t)used_high, t1, sizeof t1),
           cm_fmt_bytes_short((size_t)reserved_high, t2, sizeof t2),
           cm_fmt_bytes_short(free_before > free_during
                              ? free_before - free_during : 0, t3, sizeof t3),
           cm_fmt_bytes_short(run->mem_limit, t4, sizeof t4));
    check_fact(run->verdict, "out-of-core pool bytes in use <= --mem-limit",
               used_high <= run->mem_limit, "peak %llu of %zu bytes",
               (unsigned long long)used_high, run->mem_limit);
    check_fact(run->verdict, "out-of-core pool bytes reserved <= --mem-limit",
               reserved_high <= run->mem_limit, "peak %llu of %zu bytes",
               (unsigned long long)reserved_high, run->mem_limit);
    const char *metric[] = {"ms", "tflops", "bytes_moved", "bytes_in",
                            "bytes_out", "floor_ms", "time_over_floor",
                            "io_bound_bytes", "moved_over_bound",
                            "bound_ms", "time_over_bound_ms", "estimate_ms",
                            "plan_resident", "pool_reserved_high"};
    const char *unit[] = {"ms", "TFLOP/s", "bytes", "bytes", "bytes", "ms",
                          "ratio", "bytes", "ratio", "ms", "ratio", "ms",
                          "bool", "bytes"};
    double value[] = {s.median_ms, cm_tflops(flops, s.median_ms), moved,
                      (double)plan.h2d_bytes, (double)plan.d2h_bytes,
                      floor_ms, s.median_ms / floor_ms, bound, moved / bound,
                      bound_ms, s.median_ms / bound_ms, plan.estimate_ms,
                      plan.kind == OOC_RESIDENT ? 1.0 : 0.0,
                      (double)reserved_high};
    for (size_t i = 0; i < sizeof metric / sizeof *metric; i++)
        csv_row(run->csv, "outofcore", metric[i], value[i], unit[i]);
    run->outofcore_over_floor = s.median_ms / floor_ms;
    run->outofcore_over_bound = moved / bound;

    char label[96], detail[200];
    snprintf(label, sizeof label, "out-of-core C by Freivalds in each of "
             "the %d runs", runs);
    snprintf(detail, sizeof detail, "C filled with NaN before each; worst "
             "ratio %.3g, run %d, row %zu (<= 1 passes)", worst,
             worst_run + 1, worst_row);
    cm_check_true(run->verdict, label, worst <= 1.0, detail);
    check_product(run, "out-of-core C", h_c);   /* the last run's C */
    CUDA_CHECK(cudaFreeHost(h_c));
    for (int i = 0; i < 2; i++)
        if (j.h_stage[i])
            CUDA_CHECK(cudaFreeHost(j.h_stage[i]));
    pack_pool_stop(j.packers);
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CUDA_CHECK(cudaEventDestroy(*events[i]));
    for (int s = 0; s < OOC_MAX_SLOTS; s++)
        CUDA_CHECK(cudaEventDestroy(j.slot_home[s]));
    CUBLAS_CHECK(cublasDestroy(j.handle));
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++)
        CUDA_CHECK(cudaStreamDestroy(*streams[i]));
}
