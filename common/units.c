/* units.c - byte and rate formatting. */
#include "units.h"

#include <stdio.h>

char *cm_fmt_bytes(size_t bytes, char *buf, size_t len)
{
    static const char *si[] = {"kB", "MB", "GB", "TB"};
    static const char *iec[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1000) {
        snprintf(buf, len, "%zu bytes", bytes);
        return buf;
    }
    /* One scale for both forms, chosen by the SI value, so 8192 bytes
     * reads "8.19 kB, 8.00 KiB" rather than mixing kB with MiB. */
    int unit = 0;
    double si_scale = 1e3, iec_scale = 1024.0;
    while (unit < 3 && (double)bytes >= si_scale * 1e3) {
        unit++;
        si_scale *= 1e3;
        iec_scale *= 1024.0;
    }
    snprintf(buf, len, "%zu bytes (%.2f %s, %.2f %s)", bytes,
             (double)bytes / si_scale, si[unit], (double)bytes / iec_scale,
             iec[unit]);
    return buf;
}

char *cm_fmt_bytes_short(size_t bytes, char *buf, size_t len)
{
    static const char *iec[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int unit = 0;
    while (unit < 4 && v >= 1024.0) {
        v /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(buf, len, "%zu B", bytes);
    else if (v == (double)(long long)v)
        snprintf(buf, len, "%.0f %s", v, iec[unit]);
    else
        snprintf(buf, len, "%.1f %s", v, iec[unit]);
    return buf;
}

double cm_gbps(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

double cm_tflops(double flops, double ms)
{
    return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0;
}
