/* test_floor.c - the overlap floor for 0, 1, 2 and 3 copy engines. */
#include "floor.h"

#include <math.h>
#include <string.h>

#include "test.h"

static int near(double a, double b) { return fabs(a - b) < 1e-12; }

int main(void)
{
    /* Copies longer than compute, and the other way round. */
    double gemm = 43.0, in = 28.0, out = 14.0;
    EXPECT(near(cm_overlap_floor_ms(gemm, in, out, 2), 43.0));
    EXPECT(near(cm_overlap_floor_ms(gemm, in, out, 3), 43.0));
    EXPECT(near(cm_overlap_floor_ms(gemm, in, out, 1), 43.0)); /* 42 < 43 */
    EXPECT(near(cm_overlap_floor_ms(20.0, in, out, 2), 28.0));
    /* One engine: in and out add, even when each alone is below compute. */
    EXPECT(near(cm_overlap_floor_ms(30.0, in, out, 1), 42.0));
    EXPECT(near(cm_overlap_floor_ms(30.0, in, out, 2), 30.0));
    EXPECT(near(cm_overlap_floor_ms(gemm, in, out, 0), 85.0));
    EXPECT(near(cm_overlap_floor_ms(gemm, in, out, -1), 85.0));
    /* The floor never drops as engines go away. */
    for (int e = 0; e < 3; e++)
        EXPECT(cm_overlap_floor_ms(30.0, in, out, e) >=
               cm_overlap_floor_ms(30.0, in, out, e + 1));

    char text[160];
    EXPECT(strcmp(cm_overlap_floor_text(text, sizeof text, "GEMMs alone",
                                        43.269, 28.828, 14.45, 3),
                  "max(GEMMs alone 43.269 ms, in 28.828 ms, out 14.450 ms)")
           == 0);
    EXPECT(strcmp(cm_overlap_floor_text(text, sizeof text, "kernel", 1.0,
                                        2.0, 3.0, 1),
                  "max(kernel 1.000 ms, in 2.000 ms + out 3.000 ms)") == 0);
    EXPECT(strcmp(cm_overlap_floor_text(text, sizeof text, "kernel", 1.0,
                                        2.0, 3.0, 0),
                  "kernel 1.000 ms + in 2.000 ms + out 3.000 ms") == 0);
    /* Too small a buffer is cut short and still terminated. */
    EXPECT(strlen(cm_overlap_floor_text(text, 8, "kernel", 1.0, 2.0, 3.0,
                                        2)) == 7);
    EXPECT(strcmp(cm_copy_engines_meaning(1),
                  "in and out take turns; each overlaps compute") == 0);
    EXPECT(strcmp(cm_copy_engines_meaning(2), cm_copy_engines_meaning(7))
           == 0);
    EXPECT(strcmp(cm_copy_engines_meaning(0),
                  "copies do not overlap compute") == 0);
    return test_summary();
}
