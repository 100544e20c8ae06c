/* floor.c - the overlap floor for 0, 1 or more copy engines. */
#include "floor.h"

#include <stdio.h>

static double larger(double a, double b) { return a > b ? a : b; }

double cm_overlap_floor_ms(double compute_ms, double in_ms, double out_ms,
                           int copy_engines)
{
    if (copy_engines >= 2)
        return larger(compute_ms, larger(in_ms, out_ms));
    if (copy_engines == 1)
        return larger(compute_ms, in_ms + out_ms);
    return compute_ms + in_ms + out_ms;
}

char *cm_overlap_floor_text(char *buf, size_t len, const char *compute_name,
                            double compute_ms, double in_ms, double out_ms,
                            int copy_engines)
{
    const char *format =
        copy_engines >= 2 ? "max(%s %.3f ms, in %.3f ms, out %.3f ms)"
        : copy_engines == 1 ? "max(%s %.3f ms, in %.3f ms + out %.3f ms)"
                            : "%s %.3f ms + in %.3f ms + out %.3f ms";
    if (len > 0)
        snprintf(buf, len, format, compute_name, compute_ms, in_ms, out_ms);
    return buf;
}

const char *cm_copy_engines_meaning(int copy_engines)
{
    return copy_engines >= 2 ? "in and out overlap each other and compute"
           : copy_engines == 1 ? "in and out take turns; each overlaps "
                                 "compute"
                               : "copies do not overlap compute";
}
