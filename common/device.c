/* device.c - device selection with a clear "why not". */
#include "device.h"
#include "check.h"
#include "options.h"

int cm_select_device(int index, struct cudaDeviceProp *prop_out)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver) {
        fprintf(stderr, "no usable CUDA device: no NVIDIA driver is loaded"
                " (or it is older than this CUDA runtime) [%s]\n",
                cudaGetErrorName(err));
        exit(CM_EXIT_NO_DEVICE);
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        fprintf(stderr, "no usable CUDA device: the driver reports no GPU"
                " (check nvidia-smi and CUDA_VISIBLE_DEVICES)\n");
        exit(CM_EXIT_NO_DEVICE);
    }
    if (err != cudaSuccess) {
        fprintf(stderr, "no usable CUDA device: %s: %s\n",
                cudaGetErrorName(err), cudaGetErrorString(err));
        exit(CM_EXIT_NO_DEVICE);
    }
    if (index < 0 || index >= count) {
        fprintf(stderr, "no usable CUDA device: --device %d asked for, but"
                " there %s %d (0..%d)\n", index, count == 1 ? "is" : "are",
                count, count - 1);
        exit(CM_EXIT_NO_DEVICE);
    }
    CUDA_CHECK(cudaSetDevice(index));
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    printf("device %d: %s, compute capability %d.%d, %.2f GiB, %d SMs "
           "(driver CUDA %d.%d, runtime %d.%d)\n",
           index, prop.name, prop.major, prop.minor,
           (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
           prop.multiProcessorCount, driver / 1000, driver % 1000 / 10,
           runtime / 1000, runtime % 1000 / 10);
    if (prop_out)
        *prop_out = prop;
    return index;
}
