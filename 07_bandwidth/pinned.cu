/* pinned.cu - part 2 of 07_bandwidth: pinned (page-locked) host memory,
 * allocated pinned (cudaMallocHost, cudaHostAlloc) or pinned where it
 * lies (cudaHostRegister), against pageable; then the link's practical
 * maximum, measured over pinned copies of three sizes, and the raw rate
 * of the PCIe link when sysfs tells it.
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bandwidth.h"
#include "ceiling.h"
#include "check.h"
#include "plan.h"
#include "timing.h"
#include "units.h"

/* Pinned copies of these sizes (bytes) define the link's practical
 * maximum; large enough that the fixed cost per copy is negligible. */
const size_t CEILING_BYTES[3] = {16u << 20, 64u << 20, 256u << 20};
const size_t QUICK_CEILING_BYTES[3] = {1u << 20, 2u << 20, 4u << 20};

/* Part 2, continued: memory the program already has, such as a NumPy
 * array's (here x_np itself), pinned where it lies. cudaHostRegister locks
 * its pages: no second buffer and no copy into one. The locking is not
 * free (the printed line times it), but it has only pages that exist to
 * lock, where cudaMallocHost must first get new ones: in the README's run
 * it took under a quarter of cudaMallocHost's time. The memory must be
 * unregistered (cudaHostUnregister) before it is freed. */
static void part2_registered(bw_report *r, bw_buffers *b,
                             cudaStream_t stream)
{
    int device, supported = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&supported,
                                      cudaDevAttrHostRegisterSupported,
                                      device));
    if (!supported) {
        printf("   cudaHostRegister: not supported on this device\n");
        bw_add_unmeasured_row(r, "registered H2D", "not supported here");
        return;
    }
    void *h_x = (void *)b->h_x;   /* locked in place, never written */
    double t0 = cm_now_ms();
    CUDA_CHECK(cudaHostRegister(h_x, b->bytes, cudaHostRegisterDefault));
    double register_ms = cm_now_ms() - t0;
    bw_copy h2d = {.dst = b->d_x, .src = b->h_x, .bytes = b->bytes,
                   .kind = cudaMemcpyHostToDevice, .stream = stream,
                   .async = 1};
    bw_poison_device(b->d_x, b->bytes);
    cm_stats s = cm_time_events(bw_copy_region, &h2d, stream, r->warmup,
                                r->repeat);
    double gbps = bw_add_row(r, "registered H2D", b->bytes, "H2D",
                             s.median_ms);
    bw_check_device(&r->verdict, "registered H2D", b->d_x, b->h_x, b->bytes,
                    b->h_scratch);
    t0 = cm_now_ms();
    CUDA_CHECK(cudaHostUnregister(h_x));   /* x_np is pageable again */
    printf("   x_np pinned where it lies: cudaHostRegister took %.1f ms, "
           "cudaHostUnregister\n   %.1f ms; H2D %.2f ms (%.2f - %.2f) "
           "%.2f GB/s (%.2fx pageable)\n", register_ms, cm_now_ms() - t0,
           s.median_ms, s.min_ms, s.max_ms, gbps,
           gbps / b->pageable_h2d_gbps);
}

/* Part 2: pinned memory. The copy engine can read only memory that stays
 * put at a known physical address; pageable memory is first copied by the
 * CPU into a pinned staging buffer inside the driver, pinned memory is
 * read by the engine directly (DMA). */
void part2_pinned(bw_report *r, bw_buffers *b, int quick)
{
    char text[64];
    printf("\n2. Pinned (page-locked) host memory, the same %s\n",
           cm_fmt_bytes(b->bytes, text, sizeof text));
    /* Pinning is slow (the OS locks every page), so pin once and reuse.
     * cudaHostAlloc with flags is the general form of cudaMallocHost. */
    double t0 = cm_now_ms();
    CUDA_CHECK(cudaMallocHost((void **)&b->h_pinned, b->bytes));
    double pin_ms = cm_now_ms() - t0;
    t0 = cm_now_ms();
    CUDA_CHECK(cudaHostAlloc((void **)&b->h_pinned_back, b->bytes,
                             cudaHostAllocDefault));
    double pin_back_ms = cm_now_ms() - t0;
    memcpy(b->h_pinned, b->h_x, b->bytes);
    printf("   cudaMallocHost took %.1f ms, cudaHostAlloc %.1f ms: pin once, "
           "reuse\n", pin_ms, pin_back_ms);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    bw_copy h2d = {.dst = b->d_x, .src = b->h_pinned, .bytes = b->bytes,
                   .kind = cudaMemcpyHostToDevice, .stream = stream,
                   .async = 1};
    bw_copy d2h = {.dst = b->h_pinned_back, .src = b->d_x, .bytes = b->bytes,
                   .kind = cudaMemcpyDeviceToHost, .stream = stream,
                   .async = 1};
    bw_poison_device(b->d_x, b->bytes);
    cm_stats s = cm_time_events(bw_copy_region, &h2d, stream, r->warmup,
                                r->repeat);
    b->pinned_h2d_gbps = bw_add_row(r, "pinned H2D", b->bytes, "H2D",
                                    s.median_ms);
    bw_check_device(&r->verdict, "pinned H2D", b->d_x, b->h_x, b->bytes,
                    b->h_scratch);
    bw_poison_host(b->h_pinned_back, b->bytes);
    cm_stats t = cm_time_events(bw_copy_region, &d2h, stream, r->warmup,
                                r->repeat);
    b->pinned_d2h_gbps = bw_add_row(r, "pinned D2H", b->bytes, "D2H",
                                    t.median_ms);
    bw_check_host(&r->verdict, "pinned D2H", b->h_pinned_back, b->h_x,
                  b->bytes);
    printf("   cudaMemcpyAsync, median of %d (min - max):\n   H2D %.2f ms "
           "(%.2f - %.2f) %.2f GB/s (%.2fx pageable),\n   D2H %.2f ms "
           "(%.2f - %.2f) %.2f GB/s (%.2fx pageable)\n", r->repeat,
           s.median_ms, s.min_ms, s.max_ms, b->pinned_h2d_gbps,
           b->pinned_h2d_gbps / b->pageable_h2d_gbps, t.median_ms, t.min_ms,
           t.max_ms, b->pinned_d2h_gbps,
           b->pinned_d2h_gbps / b->pageable_d2h_gbps);
    part2_registered(r, b, stream);
    CUDA_CHECK(cudaStreamDestroy(stream));

    /* The practical maximum of the link: the best median over pinned
     * copies of other sizes, measured now on this machine. */
    const size_t *sizes = quick ? QUICK_CEILING_BYTES : CEILING_BYTES;
    char size_text[3][32];
    for (int i = 0; i < 3; i++)
        cm_fmt_bytes_short(sizes[i], size_text[i], sizeof size_text[i]);
    printf("   the link's practical maximum: the best pinned median over "
           "copies of\n   %s, %s and %s:\n", size_text[0], size_text[1],
           size_text[2]);
    enum cudaMemcpyKind kinds[2] = {cudaMemcpyHostToDevice,
                                    cudaMemcpyDeviceToHost};
    double *best[2] = {&b->link_h2d_gbps, &b->link_d2h_gbps};
    double mine[2] = {b->pinned_h2d_gbps, b->pinned_d2h_gbps};
    for (int k = 0; k < 2; k++) {
        int best_i = 0;
        *best[k] = 0;
        for (int i = 0; i < 3; i++) {
            double g = cm_measure_pinned_gbps(sizes[i], kinds[k], r->warmup,
                                              r->repeat);
            if (g > *best[k]) {
                *best[k] = g;
                best_i = i;
            }
        }
        printf("     %s %.2f GB/s (at %s): the %s copy above reaches "
               "%.1f%% of it\n", k ? "D2H" : "H2D", *best[k],
               size_text[best_i], cm_fmt_bytes_short(b->bytes, text, 32),
               100.0 * mine[k] / *best[k]);
    }
    /* And the raw rate of the PCIe link it runs over, if sysfs tells. */
    struct cudaDeviceProp prop;
    int device;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    double raw = bw_pcie_link_gbps(prop.pciDomainID, prop.pciBusID,
                                   prop.pciDeviceID, text, sizeof text);
    if (raw > 0)
        printf("   %s: %.2f GB/s raw per direction; the best pinned copy "
               "is %.0f%% of it\n   (packet headers and flow control take "
               "the rest)\n", text, raw,
               100.0 * (b->link_h2d_gbps > b->link_d2h_gbps
                            ? b->link_h2d_gbps : b->link_d2h_gbps) / raw);
    else
        printf("   PCIe link speed not readable from /sys: raw rate "
               "unknown\n");
}
