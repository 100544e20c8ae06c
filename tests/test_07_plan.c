/* test_07_plan.c - sweep sizes, chunking and PCIe link arithmetic of
 * 07_bandwidth. */
#include "../07_bandwidth/plan.h"
#include "test.h"

#include <math.h>
#include <stdint.h>

int main(void)
{
    /* 4 KiB to 1 GiB by doubling: 2^12 .. 2^30, 19 sizes. */
    size_t sizes[64];
    size_t n = bw_sweep_sizes(4096, (size_t)1 << 30, sizes, 64);
    EXPECT(n == 19);
    EXPECT(sizes[0] == 4096 && sizes[1] == 8192);
    EXPECT(sizes[18] == (size_t)1 << 30);

    /* A max that doubling skips is added at the end. */
    n = bw_sweep_sizes(1000, 5000, sizes, 64);
    EXPECT(n == 4);
    EXPECT(sizes[0] == 1000 && sizes[1] == 2000 && sizes[2] == 4000 &&
           sizes[3] == 5000);
    EXPECT(bw_sweep_sizes(7, 7, sizes, 64) == 1 && sizes[0] == 7);
    EXPECT(bw_sweep_sizes(8, 7, sizes, 64) == 0);
    EXPECT(bw_sweep_sizes(0, 7, sizes, 64) == 0);
    /* Counting without storing, and a cap that truncates. */
    EXPECT(bw_sweep_sizes(1, 1024, NULL, 0) == 11);
    sizes[2] = 12345;
    EXPECT(bw_sweep_sizes(1, 1024, sizes, 2) == 11);
    EXPECT(sizes[0] == 1 && sizes[1] == 2 && sizes[2] == 12345);
    /* No overflow near the top of size_t. */
    n = bw_sweep_sizes(SIZE_MAX / 2 + 1, SIZE_MAX, sizes, 64);
    EXPECT(n == 2 && sizes[1] == SIZE_MAX);

    /* The sweep's rounds: each makes all four copies once, each H2D just
     * before the D2H that copies its bytes back; the pageable pair leads
     * in even rounds, the pinned pair in odd ones. */
    for (int round = 0; round < 6; round++) {
        int order[BW_SWEEP_CASES], seen[BW_SWEEP_CASES] = {0};
        bw_sweep_order(round, order);
        for (int k = 0; k < BW_SWEEP_CASES; k++) {
            EXPECT(order[k] >= 0 && order[k] < BW_SWEEP_CASES);
            if (order[k] >= 0 && order[k] < BW_SWEEP_CASES)
                seen[order[k]]++;
        }
        for (int c = 0; c < BW_SWEEP_CASES; c++)
            EXPECT(seen[c] == 1);
        int first = round % 2 ? BW_PINNED_H2D : BW_PAGEABLE_H2D;
        int second = round % 2 ? BW_PAGEABLE_H2D : BW_PINNED_H2D;
        EXPECT(order[0] == first && order[1] == first + 1);
        EXPECT(order[2] == second && order[3] == second + 1);
    }
    int even[BW_SWEEP_CASES], odd[BW_SWEEP_CASES];
    bw_sweep_order(0, even);
    bw_sweep_order(1, odd);
    EXPECT(even[0] == BW_PAGEABLE_H2D && even[1] == BW_PAGEABLE_D2H &&
           even[2] == BW_PINNED_H2D && even[3] == BW_PINNED_D2H);
    EXPECT(odd[0] == BW_PINNED_H2D && odd[1] == BW_PINNED_D2H &&
           odd[2] == BW_PAGEABLE_H2D && odd[3] == BW_PAGEABLE_D2H);

    /* Chunks: contiguous, covering everything, sizes differing by <= 1. */
    size_t first, count, next = 0;
    for (size_t c = 0; c < 4; c++) {
        bw_chunk(10, 4, c, &first, &count);
        EXPECT(first == next);
        EXPECT(count == (c < 2 ? 3u : 2u));
        next = first + count;
    }
    EXPECT(next == 10);
    bw_chunk(100000000, 16, 15, &first, &count);
    EXPECT(first == 93750000 && count == 6250000);
    bw_chunk(5, 5, 4, &first, &count);
    EXPECT(first == 4 && count == 1);

    /* PCIe: GT/s x lanes x encoding / 8. Gen5 x16 = 63.02 GB/s. */
    EXPECT(fabs(bw_pcie_gbps("32.0 GT/s PCIe", "16") - 63.0153846) < 1e-6);
    EXPECT(fabs(bw_pcie_gbps("16.0 GT/s PCIe", "16") - 31.5076923) < 1e-6);
    EXPECT(fabs(bw_pcie_gbps("8.0 GT/s PCIe", "8") - 7.87692307) < 1e-6);
    EXPECT(fabs(bw_pcie_gbps("2.5 GT/s PCIe", "1") - 0.25) < 1e-12);
    EXPECT(fabs(bw_pcie_gbps("5.0 GT/s", "4") - 2.0) < 1e-12);
    EXPECT(bw_pcie_gbps("Unknown", "16") == 0);
    EXPECT(bw_pcie_gbps("32.0 GT/s PCIe", "0") == 0);
    EXPECT(bw_pcie_gbps("32.0 GT/s PCIe", "x") == 0);
    EXPECT(bw_pcie_gbps("", "16") == 0);

    /* A device that does not exist: no link, empty description. */
    char desc[64] = "junk";
    EXPECT(bw_pcie_link_gbps(0xffff, 0xff, 0x1f, desc, sizeof desc) == 0);
    EXPECT(desc[0] == '\0');
    return test_summary();
}
