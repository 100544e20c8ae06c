/* test_04_cost.c - the DGEMM work of a 04_memory run and its shrinking
 * on a GPU with slow FP64. */
#include <math.h>

#include "test.h"
#include "../04_memory/cost.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b); }

int main(void)
{
    /* The default run: n = 10000 (2 TFLOP a GEMM), 2 + 10 runs. Blocked
     * 24 GEMMs, pool 1, out-of-core 24 plus 4 probe GEMMs of 4096 and 4
     * of a tiled plan's shape, each counted as 10000 x 10000 x 4096. */
    mem_run r = {10000, 2, 10, 1, 1, 1, 0, 0};
    double probe = 4 * 2.0 * 4096.0 * 4096.0 * 4096.0 / 1e12 +
                   4 * 2.0 * 1e8 * 4096.0 / 1e12;
    EXPECT(near(mem_run_tflop(&r), 49 * 2.0 + probe));
    mem_run blocked = {10000, 2, 10, 1, 0, 0, 0, 0};
    EXPECT(near(mem_run_tflop(&blocked), 48.0));
    mem_run pool = {10000, 2, 10, 0, 1, 0, 0, 0};
    EXPECT(near(mem_run_tflop(&pool), 2.0));
    /* Below 4096 the probe GEMMs are of side n: 4 square, 4 counted for
     * a tiled plan's shape. */
    mem_run small = {1000, 0, 1, 0, 0, 1, 0, 0};
    EXPECT(near(mem_run_tflop(&small), (2 + 8) * 2e9 / 1e12));
    mem_run none = {10000, 2, 10, 0, 0, 0, 0, 0};
    EXPECT(mem_run_tflop(&none) == 0);

    /* An H200 (about 50 TFLOP/s): about 2 s, nothing changes. */
    mem_run h200 = r;
    EXPECT(mem_run_shrink(&h200, 50.0, MEM_RUN_LIMIT_S) == 0);
    EXPECT(h200.n == 10000 && h200.repeat == 10 && h200.warmup == 2);
    /* 1.3 TFLOP/s (an RTX 4090): 78 s; 3 repeats after 1 bring it to
     * 29 s, n stays. */
    mem_run geforce = r;
    EXPECT(mem_run_shrink(&geforce, 1.3, MEM_RUN_LIMIT_S) == 1);
    EXPECT(geforce.n == 10000 && geforce.repeat == 3 &&
           geforce.warmup == 1);
    EXPECT(mem_run_tflop(&geforce) / 1.3 <= MEM_RUN_LIMIT_S);
    /* 0.2 TFLOP/s: n halves to 5000 as well. */
    mem_run slow = r;
    EXPECT(mem_run_shrink(&slow, 0.2, MEM_RUN_LIMIT_S) == 1);
    EXPECT(slow.n == 5000 && slow.repeat == 3 && slow.warmup == 1);
    EXPECT(mem_run_tflop(&slow) / 0.2 <= MEM_RUN_LIMIT_S);
    /* Never below MEM_RUN_MIN_N, however slow. */
    mem_run crawl = r;
    EXPECT(mem_run_shrink(&crawl, 1e-6, MEM_RUN_LIMIT_S) == 1);
    EXPECT(crawl.n == 2500 && crawl.n >= MEM_RUN_MIN_N);
    /* What the user gave is kept. */
    mem_run given_n = r, given_repeat = r, given_both = r;
    given_n.n_given = 1;
    EXPECT(mem_run_shrink(&given_n, 0.2, MEM_RUN_LIMIT_S) == 1);
    EXPECT(given_n.n == 10000 && given_n.repeat == 3);
    given_repeat.repeat_given = 1;
    EXPECT(mem_run_shrink(&given_repeat, 0.2, MEM_RUN_LIMIT_S) == 1);
    EXPECT(given_repeat.repeat == 10 && given_repeat.n < 10000);
    given_both.n_given = given_both.repeat_given = 1;
    EXPECT(mem_run_shrink(&given_both, 0.2, MEM_RUN_LIMIT_S) == 0);
    EXPECT(given_both.n == 10000 && given_both.repeat == 10);
    /* No rate measured: nothing to go on, nothing changes. */
    mem_run unknown = r;
    EXPECT(mem_run_shrink(&unknown, 0, MEM_RUN_LIMIT_S) == 0);
    return test_summary();
}
