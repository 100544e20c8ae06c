/* cost.c - the DGEMM work of a 04_memory run, and shrinking it. */
#include "cost.h"

double mem_run_tflop(const mem_run *r)
{
    double n = (double)r->n, gemm = 2.0 * n * n * n / 1e12;
    double runs = (double)(r->warmup + r->repeat), count = 0, probe = 0;
    if (r->blocked)
        count += 2 * runs;
    if (r->pool)
        count += 1;
    if (r->outofcore) {
        double side = (double)(r->n < MEM_PROBE_SIDE_MAX
                                   ? r->n : MEM_PROBE_SIDE_MAX);
        count += 2 * runs;
        probe = 4 * 2.0 * (side * side * side + n * n * side) / 1e12;
    }
    return count * gemm + probe;
}

int mem_run_shrink(mem_run *r, double tflops, double limit_s)
{
    int changed = 0;
    if (tflops <= 0)
        return 0;
    if (!r->repeat_given && (r->repeat > 3 || r->warmup > 1) &&
        mem_run_tflop(r) / tflops > limit_s) {
        r->repeat = r->repeat < 3 ? r->repeat : 3;
        r->warmup = r->warmup < 1 ? r->warmup : 1;
        changed = 1;
    }
    while (!r->n_given && r->n / 2 >= MEM_RUN_MIN_N &&
           mem_run_tflop(r) / tflops > limit_s) {
        r->n /= 2;
        changed = 1;
    }
    return changed;
}
