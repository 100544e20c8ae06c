/* timing.c - host clock and statistics (no CUDA calls here). */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

double cm_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

cm_stats cm_stats_of(double *samples, int count)
{
    cm_stats s = {0, 0, 0, 0};
    if (count <= 0)
        return s;
    qsort(samples, (size_t)count, sizeof samples[0], compare_double);
    s.count = count;
    s.min_ms = samples[0];
    s.max_ms = samples[count - 1];
    s.median_ms = count % 2 ? samples[count / 2]
                            : 0.5 * (samples[count / 2 - 1] +
                                     samples[count / 2]);
    return s;
}

cm_stats cm_time_host(cm_region_fn region, void *ctx, int warmup, int repeat)
{
    for (int i = 0; i < warmup; i++)
        region(ctx);
    double *samples = malloc((size_t)(repeat > 0 ? repeat : 1) *
                             sizeof *samples);
    if (!samples) {
        cm_stats none = {0, 0, 0, 0};
        return none;
    }
    for (int i = 0; i < repeat; i++) {
        double t0 = cm_now_ms();
        region(ctx);
        samples[i] = cm_now_ms() - t0;
    }
    cm_stats s = cm_stats_of(samples, repeat);
    free(samples);
    return s;
}
