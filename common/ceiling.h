/* ceiling.h - measure the limits a benchmark is compared against, on the
 * GPU in hand, instead of quoting a datasheet.
 *
 *   double d2d = cm_measure_device_copy_gbps(1 << 30, 2, 10);
 *   double h2d = cm_measure_pinned_gbps(256 << 20, cudaMemcpyHostToDevice,
 *                                       2, 10);
 *
 * Each returns the median GB/s (1e9 bytes/s) of `repeat` timed copies after
 * `warmup` untimed ones. Device copies count bytes read + bytes written.
 */
#ifndef CM_CEILING_H
#define CM_CEILING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMemcpyAsync device-to-device of `bytes`; counts 2 * bytes moved. */
double cm_measure_device_copy_gbps(size_t bytes, int warmup, int repeat);

/* cudaMemcpyAsync between pinned host memory and the device, one
 * direction (cudaMemcpyHostToDevice or cudaMemcpyDeviceToHost). */
double cm_measure_pinned_gbps(size_t bytes, enum cudaMemcpyKind kind,
                              int warmup, int repeat);

#ifdef __cplusplus
}
#endif

#endif /* CM_CEILING_H */
