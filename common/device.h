/* device.h - pick the GPU a program runs on, or say why there is none.
 *
 *   struct cudaDeviceProp prop;
 *   cm_select_device((int)opt.device, &prop);
 *       -> "device 0: NVIDIA H200, compute capability 9.0, 139.80 GiB, 132 SMs
 *           (driver CUDA 13.0, runtime 13.0)"   (one line)
 *
 * With no driver, no device or no device at that index, a GPU this build
 * has no code for, or a GPU that lets no new process in (exclusive-process
 * mode, held by another process), it prints one line saying which to
 * stderr and exits 77, the code CTest counts as "skipped".
 */
#ifndef CM_DEVICE_H
#define CM_DEVICE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes device `index` current (its context created), prints its one-line
 * description, fills prop (may be NULL) and returns index. Exits 77 if it
 * cannot. */
int cm_select_device(int index, struct cudaDeviceProp *prop);

/* Whether a program built for the compute capabilities in `built` (the
 * Makefile's SMS, "75 80 86 89 90 100 120": machine code for each, PTX
 * for the last) runs on a GPU of capability major.minor: machine code for
 * X.Y runs on X.Z for Z >= Y, and the PTX on any capability at or above
 * its own (the driver compiles it). An "a" suffix (90a) runs on its exact
 * capability only, an "f" suffix (100f) on its major version, neither
 * through PTX on later ones. A list with no numbers says nothing: 1. */
int cm_sms_can_run(const char *built, int major, int minor);

#ifdef __cplusplus
}
#endif

#endif /* CM_DEVICE_H */
