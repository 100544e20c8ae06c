/* units.h - byte counts and rates with explicit, unambiguous units.
 *
 *   char buf[64];
 *   printf("array: %s\n", cm_fmt_bytes(800000000, buf, sizeof buf));
 *       -> "array: 800000000 bytes (800.00 MB, 762.94 MiB)"
 *   printf("%.2f GB/s\n", cm_gbps(bytes, ms));     GB/s = 1e9 bytes/s
 *
 * MB = 10^6 bytes and MiB = 2^20 bytes; the output always says which.
 */
#ifndef CM_UNITS_H
#define CM_UNITS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "N bytes", plus SI and binary forms from 1000 bytes up, e.g.
 * "8192 bytes (8.19 kB, 8.00 KiB)". Returns buf. */
char *cm_fmt_bytes(size_t bytes, char *buf, size_t len);

/* Short binary form for table rows and sweeps: "512 B", "8 KiB",
 * "762.9 MiB", "1 GiB". Returns buf. */
char *cm_fmt_bytes_short(size_t bytes, char *buf, size_t len);

/* Bytes per millisecond as GB/s (1e9 bytes per second); 0 if ms <= 0. */
double cm_gbps(double bytes, double ms);

/* Floating-point operations per millisecond as TFLOP/s (1e12 per s). */
double cm_tflops(double flops, double ms);

#ifdef __cplusplus
}
#endif

#endif /* CM_UNITS_H */
