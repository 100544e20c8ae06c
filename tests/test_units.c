/* test_units.c - byte counts and rates say exactly which unit they use. */
#include "test.h"
#include "units.h"

#define FMT(fn, bytes) fn(bytes, buf, sizeof buf)

int main(void)
{
    char buf[96];
    EXPECT(strcmp(FMT(cm_fmt_bytes, 0), "0 bytes") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes, 32), "32 bytes") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes, 999), "999 bytes") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes, 8192),
                  "8192 bytes (8.19 kB, 8.00 KiB)") == 0);
    /* The tutorial's 10000 x 10000 float64 array: 800 MB but 762.94 MiB,
     * which the tutorial prints as "762.94 MB". */
    EXPECT(strcmp(FMT(cm_fmt_bytes, 800000000),
                  "800000000 bytes (800.00 MB, 762.94 MiB)") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes, (size_t)1 << 30),
                  "1073741824 bytes (1.07 GB, 1.00 GiB)") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes, 2500000000000u),
                  "2500000000000 bytes (2.50 TB, 2.27 TiB)") == 0);

    EXPECT(strcmp(FMT(cm_fmt_bytes_short, 512), "512 B") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes_short, 8192), "8 KiB") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes_short, 1536), "1.5 KiB") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes_short, 800000000), "762.9 MiB") == 0);
    EXPECT(strcmp(FMT(cm_fmt_bytes_short, (size_t)1 << 30), "1 GiB") == 0);

    /* 1e9 bytes in 1000 ms is 1 GB/s; 2 TFLOP in 1000 ms is 2 TFLOP/s. */
    EXPECT(cm_gbps(1e9, 1000.0) == 1.0);
    EXPECT(cm_gbps(800e6, 50.0) == 16.0);
    EXPECT(cm_gbps(1e9, 0.0) == 0.0);
    EXPECT(cm_tflops(2e12, 1000.0) == 2.0);
    EXPECT(cm_tflops(2e9, 1.0) == 2.0);
    return test_summary();
}
