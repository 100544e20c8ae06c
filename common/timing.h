/* timing.h - host and CUDA-event timers, and min / median / max statistics.
 *
 *   static void step(void *ctx) { ... enqueue work on the stream ... }
 *   cm_stats s = cm_time_events(step, &ctx, stream, opt.warmup, opt.repeat);
 *   printf("kernel: %.3f ms median (min %.3f, max %.3f)\n",
 *          s.median_ms, s.min_ms, s.max_ms);
 *
 * Event timing measures what the region enqueues on `stream`; host timing
 * measures wall time, so its region must synchronize before returning.
 */
#ifndef CM_TIMING_H
#define CM_TIMING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double min_ms, median_ms, max_ms;
    int count;
} cm_stats;

/* Milliseconds on the monotonic clock, from an arbitrary origin. */
double cm_now_ms(void);

/* Sorts samples[0..count) in place and summarises them; the median of an
 * even count is the mean of the middle two. count 0 gives all zeros. */
cm_stats cm_stats_of(double *samples, int count);

typedef void (*cm_region_fn)(void *ctx);

/* Runs region warmup times untimed, then repeat times, each bracketed by
 * CUDA events recorded on stream. Waits for the last event. */
cm_stats cm_time_events(cm_region_fn region, void *ctx, cudaStream_t stream,
                        int warmup, int repeat);

/* Same with the host clock; region must finish its work (synchronize). */
cm_stats cm_time_host(cm_region_fn region, void *ctx, int warmup,
                      int repeat);

/* A pair of events for timing one region by hand:
 *   cm_event_timer t = cm_timer_create(stream); cm_timer_start(&t);
 *   ...; float ms = cm_timer_stop(&t); cm_timer_destroy(&t);
 * cm_timer_stop waits for the stop event, so it returns a finished time. */
typedef struct {
    cudaEvent_t start, stop;
    cudaStream_t stream;
} cm_event_timer;

cm_event_timer cm_timer_create(cudaStream_t stream);
void cm_timer_start(cm_event_timer *t);
float cm_timer_stop(cm_event_timer *t);
void cm_timer_destroy(cm_event_timer *t);

#ifdef __cplusplus
}
#endif

#endif /* CM_TIMING_H */
