/* test_gemm.c - the row-major GEMM helper's size checks: a size cuBLAS's
 * int cannot hold is an error, never a wrapped cast. */
#include "gemm.h"

#include <limits.h>

#include "test.h"

int main(void)
{
    int s[6] = {0};
    /* In range: each size lands in its own place, INT_MAX included. */
    EXPECT(cm_gemm_int_sizes(123, 45, 67, 70, 50, 48, s) == 0);
    EXPECT(s[0] == 123 && s[1] == 45 && s[2] == 67 && s[3] == 70 &&
           s[4] == 50 && s[5] == 48);
    size_t max = (size_t)INT_MAX;
    EXPECT(cm_gemm_int_sizes(max, 1, 1, 1, max, 1, s) == 0);
    EXPECT(s[0] == INT_MAX && s[4] == INT_MAX);
    /* One past INT_MAX in any of the six places is refused, and the
     * output is left as it was (2^32 + 5 would wrap to 5). */
    size_t over[] = {max + 1, (size_t)1 << 32 | 5, (size_t)-1};
    for (int place = 0; place < 6; place++)
        for (size_t o = 0; o < sizeof over / sizeof *over; o++) {
            size_t sizes[6] = {10, 10, 10, 10, 10, 10};
            sizes[place] = over[o];
            int out[6] = {-7, -7, -7, -7, -7, -7};
            EXPECT(cm_gemm_int_sizes(sizes[0], sizes[1], sizes[2], sizes[3],
                                     sizes[4], sizes[5], out) == -1);
            for (int i = 0; i < 6; i++)
                EXPECT(out[i] == -7);
        }
    /* The GEMM itself refuses before calling cuBLAS: no handle and no
     * GPU are needed to see it. */
    EXPECT(cm_gemm_rowmajor(NULL, max + 1, 4, 4, 1.0, NULL, 4, NULL, 4, 0.0,
                            NULL, 4) == CUBLAS_STATUS_INVALID_VALUE);
    EXPECT(cm_gemm_rowmajor(NULL, 4, 4, 4, 1.0, NULL, 4, NULL, 4, 0.0, NULL,
                            (size_t)1 << 32 | 4) ==
           CUBLAS_STATUS_INVALID_VALUE);
    return test_summary();
}
