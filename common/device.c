/* device.c - device selection with a clear "why not". */
#include "device.h"
#include "check.h"
#include "options.h"

#include <ctype.h>
#include <stdlib.h>

/* The Makefile passes its SMS list; a build without it checks nothing. */
#ifndef CM_BUILT_SMS
#define CM_BUILT_SMS ""
#endif

int cm_sms_can_run(const char *built, int major, int minor)
{
    int any = 0, last_major = 0, last_minor = 0, last_plain = 0;
    const char *p = built;
    while (*p) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        char *end;
        long sm = strtol(p, &end, 10);
        char suffix = *end == 'a' || *end == 'f' ? *end : 0;
        const char *next = end + (suffix ? 1 : 0);
        if (end == p || sm <= 0 || (*next && !isspace((unsigned char)*next))) {
            while (*p && !isspace((unsigned char)*p))  /* not an SM */
                p++;
            continue;
        }
        p = next;
        any = 1;
        int sm_major = (int)(sm / 10), sm_minor = (int)(sm % 10);
        if (sm_major == major &&
            (suffix == 'a' ? minor == sm_minor : minor >= sm_minor))
            return 1;
        last_major = sm_major;
        last_minor = sm_minor;
        last_plain = !suffix;
    }
    if (!any)
        return 1;
    return last_plain && (major > last_major ||
                          (major == last_major && minor >= last_minor));
}

/* One line saying why the device takes no new context, and exit 77. */
static void refused_context(int index, const char *name, cudaError_t err)
{
    int mode = -1;
    cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, index);
    if (mode == cudaComputeModeExclusiveProcess)
        fprintf(stderr, "no usable CUDA device: device %d (%s) is busy: it "
                "is in exclusive-process compute mode and another process "
                "holds it (nvidia-smi shows which)\n", index, name);
    else if (mode == cudaComputeModeProhibited)
        fprintf(stderr, "no usable CUDA device: device %d (%s) is in "
                "compute mode Prohibited: no process may use it\n", index,
                name);
    else
        fprintf(stderr, "no usable CUDA device: device %d (%s) takes no new"
                " process now [%s]; nvidia-smi shows what holds it\n", index,
                name, cudaGetErrorName(err));
    exit(CM_EXIT_NO_DEVICE);
}

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
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    /* Without machine code or PTX that this GPU can run, the first kernel
     * launch would fail (cudaErrorNoKernelImageForDevice): say it here,
     * with the fix. */
    if (!cm_sms_can_run(CM_BUILT_SMS, prop.major, prop.minor)) {
        fprintf(stderr, "no usable CUDA device: device %d (%s) has compute "
                "capability %d.%d, but this program was built for "
                "SMS=\"%s\"; rebuild with make SMS=%d%d\n", index,
                prop.name, prop.major, prop.minor, CM_BUILT_SMS, prop.major,
                prop.minor);
        exit(CM_EXIT_NO_DEVICE);
    }
    /* cudaSetDevice creates the device's context (since CUDA 12), and
     * cudaFree(0) makes sure of it, so that a GPU that lets no new process
     * in says so here, not at the first allocation. */
    err = cudaSetDevice(index);
    if (err == cudaSuccess)
        err = cudaFree(0);
    if (err == cudaErrorDevicesUnavailable ||
        err == cudaErrorDeviceAlreadyInUse)
        refused_context(index, prop.name, err);
    if (err != cudaSuccess) {
        fprintf(stderr, "%s:%d: creating a context on device %d (%s) "
                "failed: %s: %s\n", __FILE__, __LINE__, index, prop.name,
                cudaGetErrorName(err), cudaGetErrorString(err));
        exit(CM_EXIT_FAIL);
    }
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
