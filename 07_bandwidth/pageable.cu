/* pageable.cu - part 1 of 07_bandwidth: the tutorial's measurement,
 *
 *     start_time = time.time()
 *     x_cp = cp.asarray(x_np)
 *     transfer_time = time.time() - start_time
 *
 * split into what its one timed call contains (start-up, allocation, the
 * first copy), then the same pageable copies warm, many times, on the
 * host clock and on CUDA events in turn.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "alloc.h"
#include "bandwidth.h"
#include "check.h"
#include "device.h"
#include "timing.h"
#include "units.h"

/* For the host clock: a pageable cudaMemcpy host-to-device may return
 * once the last piece is staged, before it reaches the GPU, so we wait
 * for the device before the clock is read. */
static void copy_and_wait_region(void *ctx)
{
    bw_copy_region(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* A pageable copy's speed (mostly the CPU's copy through the staging
 * buffers) drifts from second to second. So the host clock and the
 * events take turns within each repetition, the host clock first in even
 * ones and the events first in odd ones: both columns sample the same
 * stretch of time, and only the clocks differ. */
static void time_both_clocks(bw_copy *job, int warmup, int repeat,
                             cm_stats *host, cm_stats *events)
{
    int n = repeat > 0 ? repeat : 1;
    double *host_ms = (double *)cm_host_alloc(2 * (size_t)n * sizeof(double),
                                              "the timings");
    double *event_ms = host_ms + n;
    cm_event_timer timer = cm_timer_create(0);
    for (int i = 0; i < warmup; i++)
        copy_and_wait_region(job);
    for (int i = 0; i < n; i++)
        for (int turn = 0; turn < 2; turn++) {
            if ((i + turn) % 2 == 0) {
                double t0 = cm_now_ms();
                copy_and_wait_region(job);
                host_ms[i] = cm_now_ms() - t0;
            } else {
                cm_timer_start(&timer);
                bw_copy_region(job);
                event_ms[i] = cm_timer_stop(&timer);
            }
        }
    cm_timer_destroy(&timer);
    *host = cm_stats_of(host_ms, n);
    *events = cm_stats_of(event_ms, n);
    free(host_ms);
}

/* One line of part 1's warm table: median, its rate, and the spread. */
static void print_clock_row(const char *name, const char *clock,
                            cm_stats s, double bytes)
{
    printf("     %-14s%-12s%8.2f ms %7.2f GB/s %9.2f - %.2f ms\n", name,
           clock, s.median_ms, cm_gbps(bytes, s.median_ms), s.min_ms,
           s.max_ms);
}

/* Part 1: the tutorial's timing (first call, host clock) beside the right
 * one (warm-up, CUDA events, median), for pageable memory both ways. The
 * device is selected here, inside the first timed step, because that is
 * where the tutorial's first cp.asarray pays for it. */
void part1_tutorial(bw_report *r, bw_buffers *b, int device,
                    size_t device_bytes, size_t side)
{
    char text[64];
    double t0 = cm_now_ms();
    cm_select_device(device, NULL);
    double startup_ms = cm_now_ms() - t0;
    printf("GB/s = 1e9 bytes/s; each rate counts the bytes copied, once per "
           "direction\n(H2D: host to device, D2H: device to host)\n");
    printf("\n1. The tutorial's measurement: x_cp = cp.asarray(x_np), "
           "x_np a %zu x %zu float64\n   array of %s\n", side, side,
           cm_fmt_bytes(b->bytes, text, sizeof text));
    cm_require_device_bytes(device_bytes, "the arrays of this chapter");
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMalloc((void **)&b->d_x, b->bytes));
    double malloc_ms = cm_now_ms() - t0;
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMemcpy(b->d_x, b->h_x, b->bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    double first_h2d_ms = cm_now_ms() - t0;
    /* cp.asnumpy-style: into memory the OS has not handed over yet, so
     * the first copy also pays a page fault per page (4 KiB, or 2 MiB
     * where transparent huge pages back it). */
    t0 = cm_now_ms();
    CUDA_CHECK(cudaMemcpy(b->h_scratch, b->d_x, b->bytes,
                          cudaMemcpyDeviceToHost));
    double first_d2h_ms = cm_now_ms() - t0;
    double tutorial_ms = startup_ms + malloc_ms + first_h2d_ms;
    double bytes = (double)b->bytes;
    printf("   first calls, host clock (what time.time() around them "
           "sees):\n");
    printf("     start-up: driver + context (cudaSetDevice) %10.1f ms\n",
           startup_ms);
    printf("     cudaMalloc of the array                    %10.1f ms\n",
           malloc_ms);
    printf("     first cudaMemcpy H2D                       %10.1f ms "
           "%7.2f GB/s\n", first_h2d_ms, cm_gbps(bytes, first_h2d_ms));
    printf("     = the tutorial's first cp.asarray          %10.1f ms "
           "%7.2f GB/s\n", tutorial_ms, cm_gbps(bytes, tutorial_ms));
    printf("       (it prints %.1f \"MB/s\": its MB is 2^20 bytes)\n",
           bytes / 1048576.0 / (tutorial_ms * 1e-3));
    printf("     first cudaMemcpy D2H, fresh malloc memory  %10.1f ms "
           "%7.2f GB/s\n", first_d2h_ms, cm_gbps(bytes, first_d2h_ms));
    bw_check_host(&r->verdict, "first round trip", b->h_scratch, b->h_x,
                  b->bytes);
    bw_add_row(r, "pageable H2D, tutorial way", b->bytes, "H2D",
               tutorial_ms);

    /* The right way: the same copies, warm, many times, median. Once the
     * host waits for the GPU before reading it, the host clock times the
     * same span as the events; the spread (min - max) shows how far one
     * run strays from the next. */
    printf("   warm (after %d untimed), %d runs on each clock, the two "
           "clocks in turn:\n%39s%34s\n", r->warmup, r->repeat, "median",
           "spread: min - max");
    /* cudaMemcpy (async = 0) on the legacy default stream, as
     * cp.asarray and cp.asnumpy of a NumPy array would. */
    bw_copy h2d = {.dst = b->d_x, .src = b->h_x, .bytes = b->bytes,
                   .kind = cudaMemcpyHostToDevice, .stream = 0, .async = 0};
    bw_copy d2h = {.dst = b->h_scratch, .src = b->d_x, .bytes = b->bytes,
                   .kind = cudaMemcpyDeviceToHost, .stream = 0, .async = 0};
    const char *names[2] = {"pageable H2D", "pageable D2H"};
    bw_copy *jobs[2] = {&h2d, &d2h};
    double *rates[2] = {&b->pageable_h2d_gbps, &b->pageable_d2h_gbps};
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            bw_poison_device(b->d_x, b->bytes);
        else
            bw_poison_host(b->h_scratch, b->bytes);
        cm_stats host, events;
        time_both_clocks(jobs[k], r->warmup, r->repeat, &host, &events);
        print_clock_row(names[k], "host clock", host, bytes);
        print_clock_row("", "CUDA events", events, bytes);
        *rates[k] = bw_add_row(r, names[k], b->bytes,
                               k == 0 ? "H2D" : "D2H", events.median_ms);
        if (k == 0)
            bw_check_device(&r->verdict, "pageable H2D", b->d_x, b->h_x,
                            b->bytes, b->h_scratch);
        else
            bw_check_host(&r->verdict, "pageable D2H", b->h_scratch,
                          b->h_x, b->bytes);
    }
    printf("   the tutorial's way says %.2f GB/s, the right way %.2f GB/s: "
           "%.0f%% of its one\n   timed call was start-up and allocation, "
           "not copying\n", cm_gbps(bytes, tutorial_ms),
           b->pageable_h2d_gbps,
           100.0 * (startup_ms + malloc_ms) / tutorial_ms);
}
