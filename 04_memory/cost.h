/* cost.h - what a run of 04_memory costs in DGEMM work, and a smaller
 * default run for a GPU whose FP64 rate is low (GeForce cards run FP64
 * at 1/32 to 1/64 of FP32: the default run takes minutes there).
 *
 *   mem_run r = {n, warmup, repeat, blocked, pool, outofcore, 0, 0};
 *   double tflop = mem_run_tflop(&r);          seconds = tflop / rate
 *   if (mem_run_shrink(&r, rate, MEM_RUN_LIMIT_S)) ...say what changed
 */
#ifndef MEM_COST_H
#define MEM_COST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEM_RUN_LIMIT_S 30.0    /* GEMM seconds a default run may take */
#define MEM_RUN_MIN_N 2500      /* shrinking n stops here */
#define MEM_PROBE_SIDE_MAX 4096 /* probe.cu's GEMM rate tests: the square
                                   side, and a tiled plan's inner size,
                                   at most */

typedef struct {
    size_t n;                      /* A, B, C are n x n */
    int warmup, repeat;
    int blocked, pool, outofcore;  /* the parts that run GEMMs */
    int n_given, repeat_given;     /* set by the user: never changed */
} mem_run;

/* 10^12 flop of DGEMM the parts of r run: each GEMM is 2 n^3 flop (the
 * blocked and out-of-core ones add up to that too). Blocked: the one
 * call and the blocked calls, warmup + repeat times each; pool: one;
 * out-of-core: with and without copies, warmup + repeat times each, plus
 * probe.cu's rate tests: 4 GEMMs of side min(n, 4096) at most, and, for
 * a tiled plan, 4 of its tile's GEMMs, each at most n x n x min(n, 4096)
 * (counted whatever the plan: it is not known yet). */
double mem_run_tflop(const mem_run *r);

/* If r's GEMMs would take more than limit_s at tflops (10^12 flop/s):
 * first 3 repeats after 1 warm-up (unless repeat_given), then n halved
 * while it is still too long (unless n_given), not below MEM_RUN_MIN_N.
 * Returns 1 if it changed r, else 0. */
int mem_run_shrink(mem_run *r, double tflops, double limit_s);

#ifdef __cplusplus
}
#endif

#endif /* MEM_COST_H */
