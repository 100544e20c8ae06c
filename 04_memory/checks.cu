/* checks.cu - what every part of 04_memory uses to check and record its
 * results (memory.h): each product by Freivalds' method and against the
 * one-call C, a condition with the detail of what was seen, one CSV row;
 * and pinned host memory, or one line saying why not.
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "memory.h"
#include "options.h"
#include "units.h"

void check_fact(cm_verdict *v, const char *what, int ok, const char *fmt,
                ...)
{
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    cm_check_true(v, what, ok, detail);
}

void csv_row(FILE *csv, const char *part, const char *metric, double value,
             const char *unit)
{
    if (csv)
        fprintf(csv, "%s,%s,%.9g,%s\n", part, metric, value, unit);
}

double *pinned_alloc(size_t bytes, const char *what)
{
    void *h_p = NULL;
    cudaError_t err = cudaMallocHost(&h_p, bytes);
    if (err != cudaSuccess) {
        char need[64];
        fprintf(stderr, "%s: not enough pinned host memory for %s: need %s "
                "(%s)\n", cm_program_name(), what,
                cm_fmt_bytes(bytes, need, sizeof need),
                cudaGetErrorName(err));
        exit(CM_EXIT_FAIL);
    }
    return (double *)h_p;
}

void check_product(const memory_run *run, const char *what,
                   const double *h_c)
{
    char label[160], detail[160];
    size_t row;
    double worst = cm_freivalds_check(run->check, h_c, &row);
    snprintf(label, sizeof label, "%s by Freivalds", what);
    snprintf(detail, sizeof detail, "worst ratio |(C x)_i - (A (B x))_i| "
             "/ tolerance_i %.3g, row %zu (<= 1 passes)", worst, row);
    cm_check_true(run->verdict, label, worst <= 1.0, detail);
    if (run->h_single && run->h_single != h_c) {
        /* Two GEMMs summing in different orders are each within n u |A||B|
         * of the exact product (u = eps / 2), and |A||B| = AB here since
         * every input is >= 0: they differ by at most n eps, relative. We
         * allow 2 n eps; a lost or doubled block product is off by orders
         * of magnitude more (1e-2 for one of the 1000 at n = 10000). */
        snprintf(label, sizeof label, "%s vs one-call C", what);
        cm_check_rel(run->verdict, label, h_c, CM_FLOAT64, run->h_single,
                     CM_FLOAT64, run->n * run->n,
                     2.0 * (double)run->n * DBL_EPSILON);
    }
}
