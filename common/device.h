/* device.h - pick the GPU a program runs on, or say why there is none.
 *
 *   struct cudaDeviceProp prop;
 *   cm_select_device((int)opt.device, &prop);
 *       -> "device 0: NVIDIA H200, compute capability 9.0, 139.80 GiB, 132 SMs"
 *
 * With no driver, no device or no device at that index it prints one line
 * saying which to stderr and exits 77, the code CTest counts as "skipped".
 */
#ifndef CM_DEVICE_H
#define CM_DEVICE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes device `index` current, prints its one-line description, fills
 * prop (may be NULL) and returns index. Exits 77 if it cannot. */
int cm_select_device(int index, struct cudaDeviceProp *prop);

#ifdef __cplusplus
}
#endif

#endif /* CM_DEVICE_H */
