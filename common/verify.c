/* verify.c - error norms, exact compares and the verdict line. */
#include "verify.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

double cm_rel_error(const void *out, cm_dtype out_type, const void *ref,
                    cm_dtype ref_type, size_t n, size_t *worst)
{
    double diff2 = 0, ref2 = 0, worst_abs = -1;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        double o = cm_value_at(out, out_type, i);
        double r = cm_value_at(ref, ref_type, i);
        double d = fabs(o - r);
        if (!isfinite(o) || !isfinite(d)) {
            if (worst)
                *worst = i;
            return INFINITY;
        }
        if (d > worst_abs) {
            worst_abs = d;
            worst_i = i;
        }
        diff2 += d * d;
        ref2 += r * r;
    }
    if (worst)
        *worst = worst_i;
    return ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

double cm_max_abs_error(const void *out, cm_dtype out_type, const void *ref,
                        cm_dtype ref_type, size_t n, size_t *worst)
{
    double worst_abs = 0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(cm_value_at(out, out_type, i) -
                        cm_value_at(ref, ref_type, i));
        if (!isfinite(d)) {
            worst_abs = INFINITY;
            worst_i = i;
            break;
        }
        if (d > worst_abs) {
            worst_abs = d;
            worst_i = i;
        }
    }
    if (worst)
        *worst = worst_i;
    return worst_abs;
}

size_t cm_first_mismatch(const void *a, const void *b, cm_dtype dtype,
                         size_t n)
{
    size_t item = cm_dtype_size(dtype);
    const unsigned char *pa = a, *pb = b;
    /* memcmp over large blocks first: it is much faster than a loop, and
     * only a block that differs needs an element-by-element look. */
    const size_t block = 1 << 16;
    for (size_t start = 0; start < n; start += block) {
        size_t count = n - start < block ? n - start : block;
        if (memcmp(pa + start * item, pb + start * item, count * item) == 0)
            continue;
        for (size_t i = start; i < start + count; i++)
            if (memcmp(pa + i * item, pb + i * item, item) != 0)
                return i;
    }
    return n;
}

static void record(cm_verdict *v, const char *fmt, ...)
{
    v->failures++;
    if (v->failures > 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->first_failure, sizeof v->first_failure, fmt, ap);
    va_end(ap);
}

int cm_check_rel(cm_verdict *v, const char *what, const void *out,
                 cm_dtype out_type, const void *ref, cm_dtype ref_type,
                 size_t n, double tolerance)
{
    size_t worst;
    double err = cm_rel_error(out, out_type, ref, ref_type, n, &worst);
    int ok = err <= tolerance;  /* false for NaN and infinity too */
    v->checks++;
    printf("check %s: relative error %.3e (tolerance %.1e) %s\n", what, err,
           tolerance, ok ? "ok" : "FAILED");
    if (!ok)
        record(v, "FAIL: %s relative error, got %.3e, expected 0 "
               "(tolerance %.1e); worst element %zu: got %.17g, expected "
               "%.17g", what, err, tolerance, worst,
               n ? cm_value_at(out, out_type, worst) : 0.0,
               n ? cm_value_at(ref, ref_type, worst) : 0.0);
    return ok;
}

int cm_check_equal(cm_verdict *v, const char *what, const void *out,
                   const void *ref, cm_dtype dtype, size_t n)
{
    size_t i = cm_first_mismatch(out, ref, dtype, n);
    int ok = i == n;
    v->checks++;
    if (ok) {
        printf("check %s: %zu elements identical ok\n", what, n);
        return 1;
    }
    printf("check %s: element %zu differs FAILED\n", what, i);
    record(v, "FAIL: %s element %zu, got %.17g, expected %.17g "
           "(tolerance 0, exact)", what, i, cm_value_at(out, dtype, i),
           cm_value_at(ref, dtype, i));
    return 0;
}

int cm_check_value(cm_verdict *v, const char *what, double got,
                   double expected, double tolerance)
{
    int ok = fabs(got - expected) <= tolerance;
    v->checks++;
    printf("check %s: got %.10g, expected %.10g (tolerance %g) %s\n", what,
           got, expected, tolerance, ok ? "ok" : "FAILED");
    if (!ok)
        record(v, "FAIL: %s, got %.17g, expected %.17g (tolerance %g)", what,
               got, expected, tolerance);
    return ok;
}

int cm_check_true(cm_verdict *v, const char *what, int ok,
                  const char *detail)
{
    v->checks++;
    printf("check %s: %s %s\n", what, detail, ok ? "ok" : "FAILED");
    if (!ok)
        record(v, "FAIL: %s: %s", what, detail);
    return ok;
}

int cm_verdict_report(const cm_verdict *v)
{
    if (v->checks == 0) {
        printf("FAIL: nothing was checked\n");
        return 1;
    }
    if (v->failures == 0) {
        printf("PASS (%d check%s)\n", v->checks, v->checks == 1 ? "" : "s");
        return 0;
    }
    if (v->failures > 1)
        printf("%s (and %d more failed check%s)\n", v->first_failure,
               v->failures - 1, v->failures == 2 ? "" : "s");
    else
        printf("%s\n", v->first_failure);
    return 1;
}
