/* plan.h - the arithmetic of a bandwidth run, apart from CUDA so the CPU
 * tests can check it: sweep sizes and order, chunk ranges, PCIe link.
 *
 *   size_t sizes[64];
 *   size_t n = bw_sweep_sizes(4096, 1 << 30, sizes, 64);  4K, 8K, ... 1G
 *   bw_chunk(total, chunks, c, &first, &count);  chunk c of total elements
 *   int order[BW_SWEEP_CASES];  bw_sweep_order(round, order);
 */
#ifndef BW_PLAN_H
#define BW_PLAN_H

#include <stddef.h>

#include "chart.h"

#ifdef __cplusplus
extern "C" {
#endif

/* min, 2 min, 4 min, ... up to max, then max itself if doubling skipped
 * it. Writes at most cap sizes and returns how many there are in all
 * (0 if min is 0 or min > max). */
size_t bw_sweep_sizes(size_t min, size_t max, size_t *out, size_t cap);

/* The order in which round `round` (0, 1, ...) of one size of --sweep
 * makes its four copies (chart.h's cases): the pageable pair first in
 * even rounds, the pinned pair first in odd ones, each H2D just before the
 * D2H that copies its bytes back. Taking turns, the four cases sample the
 * same stretch of time, so drift in the host's speed hits them alike. */
void bw_sweep_order(int round, int order[BW_SWEEP_CASES]);

/* Splits total elements into `chunks` near-equal pieces (the first
 * total % chunks pieces one larger) and gives piece `index`. */
void bw_chunk(size_t total, size_t chunks, size_t index, size_t *first,
              size_t *count);

/* Raw per-direction bandwidth of a PCIe link in GB/s from sysfs texts such
 * as "32.0 GT/s PCIe" and "16": transfers/s x lanes x encoding / 8 bits.
 * Returns 0 when either text does not parse. */
double bw_pcie_gbps(const char *speed_text, const char *width_text);

/* The same for the GPU at PCI domain:bus:device, read from
 * /sys/bus/pci/devices/.../current_link_{speed,width}; desc receives
 * "PCIe 32.0 GT/s x16". Returns 0 (desc "") when sysfs is unreadable. */
double bw_pcie_link_gbps(int domain, int bus, int device, char *desc,
                         size_t len);

#ifdef __cplusplus
}
#endif

#endif /* BW_PLAN_H */
