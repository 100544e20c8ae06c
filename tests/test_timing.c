/* test_timing.c - statistics of timing samples and the host clock. */
#include "test.h"
#include "timing.h"

static int calls;
static void count_call(void *ctx)
{
    (void)ctx;
    calls++;
}

int main(void)
{
    double odd[] = {5, 1, 4, 2, 3};
    cm_stats s = cm_stats_of(odd, 5);
    EXPECT(s.count == 5 && s.min_ms == 1 && s.median_ms == 3 &&
           s.max_ms == 5);
    EXPECT(odd[0] == 1 && odd[4] == 5);  /* sorted in place */

    double even[] = {10, 2, 8, 4};
    s = cm_stats_of(even, 4);
    EXPECT(s.median_ms == 6 && s.min_ms == 2 && s.max_ms == 10);

    double one[] = {7.5};
    s = cm_stats_of(one, 1);
    EXPECT(s.median_ms == 7.5 && s.min_ms == 7.5 && s.max_ms == 7.5);

    double dup[] = {3, 3, 1, 3};
    s = cm_stats_of(dup, 4);
    EXPECT(s.median_ms == 3 && s.min_ms == 1);

    s = cm_stats_of(NULL, 0);
    EXPECT(s.count == 0 && s.median_ms == 0);

    /* The monotonic clock never goes back. */
    double t0 = cm_now_ms(), t1 = cm_now_ms();
    EXPECT(t1 >= t0);

    /* Host timing runs warm-up + repeat calls and times only the repeats. */
    calls = 0;
    s = cm_time_host(count_call, NULL, 3, 7);
    EXPECT(calls == 10 && s.count == 7 && s.min_ms >= 0 &&
           s.min_ms <= s.median_ms && s.median_ms <= s.max_ms);
    return test_summary();
}
