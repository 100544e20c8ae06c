/* device.c - device selection with a clear "why not". */
#include "device.h"
#include "check.h"
#include "options.h"

#include <ctype.h>
#include <stdarg.h>
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

/* "program: no usable CUDA device: <why>" on stderr, and exit 77. */
static void no_device(const char *why, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
static void no_device(const char *why, ...)
{
    va_list ap;
    va_start(ap, why);
    if (*cm_program_name())
        fprintf(stderr, "%s: ", cm_program_name());
    fprintf(stderr, "no usable CUDA device: ");
    vfprintf(stderr, why, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(CM_EXIT_NO_DEVICE);
}

/* One line saying why the device takes no new context, and exit 77. The
 * mode is only read to word the line: a failed read leaves -1. */
static void refused_context(int index, const char *name, cudaError_t err)
{
    int mode = -1;
    (void)cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, index);
    if (mode == cudaComputeModeExclusiveProcess)
        no_device("device %d (%s) is busy: it is in exclusive-process "
                  "compute mode and another process holds it (nvidia-smi "
                  "shows which)", index, name);
    if (mode == cudaComputeModeProhibited)
        no_device("device %d (%s) is in compute mode Prohibited: no "
                  "process may use it", index, name);
    no_device("device %d (%s) takes no new process now [%s]; nvidia-smi "
              "shows what holds it", index, name, cudaGetErrorName(err));
}

int cm_select_device(int index, struct cudaDeviceProp *prop_out)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver) {
        /* The same error for no driver at all (its version reads as 0; a
         * failed read leaves 0 too) and for one too old. */
        int driver = 0, runtime = 0;
        (void)cudaDriverGetVersion(&driver);
        (void)cudaRuntimeGetVersion(&runtime);
        if (driver == 0)
            no_device("no NVIDIA driver or GPU found");
        no_device("the NVIDIA driver supports CUDA %d.%d, older than this "
                  "program's CUDA runtime %d.%d [%s]", driver / 1000,
                  driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10,
                  cudaGetErrorName(err));
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
        no_device("the driver reports no GPU (check nvidia-smi and "
                  "CUDA_VISIBLE_DEVICES)");
    if (err != cudaSuccess)
        no_device("%s: %s", cudaGetErrorName(err), cudaGetErrorString(err));
    if (index < 0 || index >= count)
        no_device("--device %d asked for, but there %s %d (0..%d)", index,
                  count == 1 ? "is" : "are", count, count - 1);
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    /* Without machine code or PTX that this GPU can run, the first kernel
     * launch would fail (cudaErrorNoKernelImageForDevice): say it here,
     * with the fix. */
    if (!cm_sms_can_run(CM_BUILT_SMS, prop.major, prop.minor))
        no_device("device %d (%s) has compute capability %d.%d, but this "
                  "program was built for SMS=\"%s\"; rebuild with make "
                  "SMS=%d%d", index, prop.name, prop.major, prop.minor,
                  CM_BUILT_SMS, prop.major, prop.minor);
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
