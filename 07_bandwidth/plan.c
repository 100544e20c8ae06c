/* plan.c - sweep sizes and order, chunking and the PCIe link. */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t bw_sweep_sizes(size_t min, size_t max, size_t *out, size_t cap)
{
    if (min == 0 || min > max)
        return 0;
    size_t n = 0, size = min;
    for (;;) {
        if (n < cap)
            out[n] = size;
        n++;
        if (size == max)
            break;
        /* Double, but never step past max or overflow: land on max. */
        size = size > max / 2 ? max : size * 2;
    }
    return n;
}

void bw_sweep_order(int round, int order[BW_SWEEP_CASES])
{
    int pinned_first = round % 2 != 0;
    order[0] = pinned_first ? BW_PINNED_H2D : BW_PAGEABLE_H2D;
    order[1] = pinned_first ? BW_PINNED_D2H : BW_PAGEABLE_D2H;
    order[2] = pinned_first ? BW_PAGEABLE_H2D : BW_PINNED_H2D;
    order[3] = pinned_first ? BW_PAGEABLE_D2H : BW_PINNED_D2H;
}

void bw_chunk(size_t total, size_t chunks, size_t index, size_t *first,
              size_t *count)
{
    size_t base = total / chunks, extra = total % chunks;
    *first = index * base + (index < extra ? index : extra);
    *count = base + (index < extra ? 1 : 0);
}

/* Reads the first line of a small text file into buf; 0 on success. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return got > 0 ? 0 : -1;
}

double bw_pcie_gbps(const char *speed_text, const char *width_text)
{
    double gts = 0;
    long lanes = 0;
    char *end;
    gts = strtod(speed_text, &end);
    if (end == speed_text || strncmp(end, " GT/s", 5) != 0 || gts <= 0)
        return 0;
    lanes = strtol(width_text, &end, 10);
    if (end == width_text || lanes <= 0 || lanes > 64)
        return 0;
    /* Line encoding: PCIe 1 and 2 send 10 bits per byte, PCIe 3 to 5 send
     * 130 bits per 128, PCIe 6 packs 236 payload bytes in 256-byte flits. */
    double efficiency = gts < 8 ? 0.8 : gts < 64 ? 128.0 / 130.0
                                                 : 236.0 / 256.0;
    return gts * (double)lanes * efficiency / 8.0;
}

double bw_pcie_link_gbps(int domain, int bus, int device, char *desc,
                         size_t len)
{
    char path[128], speed[64], width[64];
    desc[0] = '\0';
    snprintf(path, sizeof path,
             "/sys/bus/pci/devices/%04x:%02x:%02x.0/current_link_speed",
             domain, bus, device);
    if (read_line(path, speed, sizeof speed) != 0)
        return 0;
    snprintf(path, sizeof path,
             "/sys/bus/pci/devices/%04x:%02x:%02x.0/current_link_width",
             domain, bus, device);
    if (read_line(path, width, sizeof width) != 0)
        return 0;
    double gbps = bw_pcie_gbps(speed, width);
    if (gbps > 0)
        snprintf(desc, len, "PCIe %.1f GT/s x%ld", strtod(speed, NULL),
                 strtol(width, NULL, 10));
    return gbps;
}
