/* gemm_check.c - chapter 03's products checked: every element against a
 * float64 reference, or each row's weighted sum by Freivalds' test, and
 * the probe that says which precision a GEMM ran in.
 *
 * Why element by element. gemm_tolerance bounds the error of each element
 * of C relative to (|A||B|)_ij. A norm over all of C lets a fault hide
 * under it: one element of a 1000 x 1000 product 5% off moves
 * ||C - ref|| / ||ref|| by 0.05 / 1000 = 5e-5, and one row of dot
 * products that each drop their last 4 to 7 of 1000 terms (about 0.5% of
 * each sum) by about 1.7e-4; both pass bf16's 1.4e-3. Taken element by
 * element, the first is 0.05 and the second several times the bound
 * (tests/test_03_gemm_check.c shows both).
 */
#include "gemm_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "cpu_gemm.h"
#include "timing.h"

int gemm_check_by_cpu(size_t n, int sweep, int quick)
{
    if (!sweep)
        return n <= GEMM_CPU_CHECK_MAX_N;
    if (quick) {   /* the quick sweep's largest size goes to Freivalds */
        const size_t *sizes;
        size_t count = gemm_sweep_sizes(1, &sizes);
        return n < sizes[count - 1];
    }
    return n <= GEMM_SWEEP_CPU_CHECK_MAX_N;
}

double gemm_element_error(const void *c, cm_dtype type, const double *ref,
                          size_t count, size_t *worst)
{
    double largest = 0;
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        double got = cm_value_at(c, type, i);
        double diff = fabs(got - ref[i]);
        /* A zero reference (a zero row of A) has an exactly zero C. */
        double err = ref[i] != 0 ? diff / fabs(ref[i])
                                 : (diff == 0 ? 0 : INFINITY);
        if (!(err <= largest)) {          /* also true for NaN */
            largest = isnan(err) ? INFINITY : err;
            at = i;
            if (isinf(largest))
                break;
        }
    }
    if (worst)
        *worst = at;
    return largest;
}

gemm_check gemm_compare(const void *c, cm_dtype type, const double *ref,
                        size_t count, double tolerance)
{
    gemm_check r = {.freivalds = 0, .tolerance = tolerance};
    r.error = gemm_element_error(c, type, ref, count, &r.where);
    if (count > 0) {
        r.got = cm_value_at(c, type, r.where);
        r.expected = ref[r.where];
    }
    r.ok = r.error <= tolerance;
    return r;
}

gemm_check gemm_freivalds(const cm_freivalds_ref *f, const double *c)
{
    gemm_check r = {.freivalds = 1, .tolerance = 1.0};
    r.error = cm_freivalds_check(f, c, &r.where);   /* NaN: infinity */
    r.ok = r.error <= 1.0;
    return r;
}

int gemm_report(cm_verdict *v, const char *what, const gemm_check *r,
                size_t cols)
{
    v->checks++;
    if (r->freivalds)
        printf("check %s by Freivalds' test, each row's sum C x against A "
               "(B x): worst row %zu at %.3g of its tolerance %s\n", what,
               r->where, r->error, r->ok ? "ok" : "FAILED");
    else
        printf("check %s, every element: largest relative error %.3e "
               "(tolerance %.1e) %s\n", what, r->error, r->tolerance,
               r->ok ? "ok" : "FAILED");
    if (r->ok)
        return 1;
    if (++v->failures == 1) {
        char detail[300];
        gemm_describe_failure(r, cols, detail, sizeof detail);
        snprintf(v->first_failure, sizeof v->first_failure, "FAIL: %s, %s",
                 what, detail);
    }
    return 0;
}

void gemm_describe_failure(const gemm_check *r, size_t cols, char *text,
                           size_t size)
{
    size_t i = cols ? r->where / cols : 0, j = cols ? r->where % cols : 0;
    if (r->freivalds)
        snprintf(text, size, "Freivalds' test, row %zu: |(C x)_i - "
                 "(A (B x))_i| got %.3g times its tolerance, expected <= 1",
                 r->where, r->error);
    else
        snprintf(text, size, "element [%zu][%zu]: got %.17g, expected %.17g "
                 "(relative error %.3e, tolerance %.1e)", i, j, r->got,
                 r->expected, r->error, r->tolerance);
}

const char *gemm_ran_as(gemm_precision p, int major, int minor, char *text,
                        size_t size)
{
    const gemm_precision_info *info = gemm_info(p);
    if (!info)
        snprintf(text, size, "?");
    else if (p == GEMM_TF32 && major < 8)
        snprintf(text, size, "%s (runs as fp32 on sm_%d%d)", info->name,
                 major, minor);
    else
        snprintf(text, size, "%s", info->name);
    return text;
}

/* GEMM_PROBE_X as precision p reads it: the leading bits of x that fit
 * in p's significand (its other bits are below half the last one kept). */
static double probe_as(gemm_precision p)
{
    int bits = gemm_info(p)->significand_bits;
    return (1.0 + 0x1.0p-5) + (bits > 9 ? 0x1.0p-9 : 0) +
           (bits > 20 ? 0x1.0p-20 : 0) + (bits > 30 ? 0x1.0p-30 : 0);
}

gemm_precision gemm_probe_reads_as(double c)
{
    for (int p = 0; p < GEMM_PRECISIONS; p++)
        if (c == probe_as((gemm_precision)p))
            return (gemm_precision)p;
    return GEMM_PRECISIONS;
}

gemm_probe gemm_probe_start(gemm_precision asked)
{
    gemm_probe r = {.asked = asked, .read_as = GEMM_FP64, .where = 0,
                    .got = GEMM_PROBE_X, .ok = 1};
    return r;
}

void gemm_probe_scan(gemm_probe *r, const void *c, cm_dtype type,
                     size_t count, size_t first)
{
    for (size_t i = 0; i < count; i++) {
        double got = cm_value_at(c, type, i);
        gemm_precision p = gemm_probe_reads_as(got);
        if (p > r->read_as) {       /* a lower precision, or none */
            r->read_as = p;
            r->where = first + i;
            r->got = got;
        }
    }
    r->ok = r->read_as <= r->asked;
}

const char *gemm_probe_name(gemm_precision read_as)
{
    const gemm_precision_info *info = gemm_info(read_as);
    return info ? info->name : "none";
}

void gemm_probe_describe(const gemm_probe *r, size_t cols, char *text,
                         size_t size)
{
    size_t i = cols ? r->where / cols : 0, j = cols ? r->where % cols : 0;
    snprintf(text, size, "element [%zu][%zu] = %.17g reads x = %s as %s, "
             "expected %s or higher", i, j, r->got, GEMM_PROBE_TEXT,
             gemm_probe_name(r->read_as), gemm_probe_name(r->asked));
}

int gemm_cpu_reference(size_t n, const double *a, const double *b,
                       double *ref, int repeat, double budget_ms,
                       gemm_cpu_times *times)
{
    /* The GPU's steady times are medians of warm runs, so the CPU's must
     * be too for a fair speedup: the first run (A and B not yet in cache,
     * the packing buffers' pages fresh) is the CPU's first call. The warm
     * runs recompute the same ref: cpu_gemm sums every element in the same
     * order on every run. */
    double t0 = cm_now_ms();
    times->threads = cpu_gemm(n, n, n, a, b, ref, cpu_gemm_max_threads());
    times->first_ms = cm_now_ms() - t0;
    if (times->threads < 0)
        return -1;
    int runs = repeat > 0 ? repeat : 1;
    double *warm = (double *)cm_host_alloc((size_t)runs * sizeof(double),
                                           "CPU times");
    double spent = 0;
    times->warm_runs = 0;
    while (times->warm_runs < runs &&
           (times->warm_runs == 0 || spent < budget_ms)) {
        t0 = cm_now_ms();
        if (cpu_gemm(n, n, n, a, b, ref, cpu_gemm_max_threads()) < 0) {
            free(warm);
            return -1;
        }
        warm[times->warm_runs] = cm_now_ms() - t0;
        spent += warm[times->warm_runs++];
    }
    times->warm_ms = cm_stats_of(warm, times->warm_runs).median_ms;
    free(warm);
    return times->threads;
}
