/* timing_cuda.c - CUDA-event timers. */
#include "timing.h"
#include "check.h"

cm_event_timer cm_timer_create(cudaStream_t stream)
{
    cm_event_timer t;
    CUDA_CHECK(cudaEventCreate(&t.start));
    CUDA_CHECK(cudaEventCreate(&t.stop));
    t.stream = stream;
    return t;
}

void cm_timer_start(cm_event_timer *t)
{
    CUDA_CHECK(cudaEventRecord(t->start, t->stream));
}

float cm_timer_stop(cm_event_timer *t)
{
    float ms = 0;
    CUDA_CHECK(cudaEventRecord(t->stop, t->stream));
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

void cm_timer_destroy(cm_event_timer *t)
{
    CUDA_CHECK(cudaEventDestroy(t->start));
    CUDA_CHECK(cudaEventDestroy(t->stop));
}

cm_stats cm_time_events(cm_region_fn region, void *ctx, cudaStream_t stream,
                        int warmup, int repeat)
{
    for (int i = 0; i < warmup; i++)
        region(ctx);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    /* One event pair per repetition, read after the last one, so the host
     * never waits between repetitions and the GPU runs them back to back. */
    int n = repeat > 0 ? repeat : 1;
    cudaEvent_t *events = malloc(2 * (size_t)n * sizeof *events);
    double *samples = malloc((size_t)n * sizeof *samples);
    if (!events || !samples) {
        fprintf(stderr, "cm_time_events: out of host memory\n");
        exit(1);
    }
    for (int i = 0; i < 2 * n; i++)
        CUDA_CHECK(cudaEventCreate(&events[i]));
    for (int i = 0; i < n; i++) {
        CUDA_CHECK(cudaEventRecord(events[2 * i], stream));
        region(ctx);
        CUDA_CHECK(cudaEventRecord(events[2 * i + 1], stream));
    }
    CUDA_CHECK(cudaEventSynchronize(events[2 * n - 1]));
    for (int i = 0; i < n; i++) {
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, events[2 * i],
                                        events[2 * i + 1]));
        samples[i] = ms;
    }
    for (int i = 0; i < 2 * n; i++)
        CUDA_CHECK(cudaEventDestroy(events[i]));
    cm_stats s = cm_stats_of(samples, n);
    free(events);
    free(samples);
    return s;
}
