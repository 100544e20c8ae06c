/* floor.h - the least time work can take when copies and compute overlap,
 * given the copy engines the GPU has (cudaDeviceProp.asyncEngineCount).
 *
 *   double ms = cm_overlap_floor_ms(gemm_ms, in_ms, out_ms, engines);
 *   char text[160];
 *   cm_overlap_floor_text(text, sizeof text, "GEMMs", gemm_ms, in_ms,
 *                         out_ms, engines);  "max(GEMMs 4.000 ms, in ...)"
 */
#ifndef CM_FLOOR_H
#define CM_FLOOR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copy engines move data while the SMs compute. With two or more, a copy
 * to the device and one back run at once, each on its own engine: the
 * floor is the longest of compute, in and out. With one, the two
 * directions take turns: max(compute, in + out). With none (or a negative
 * count), nothing overlaps: compute + in + out. */
double cm_overlap_floor_ms(double compute_ms, double in_ms, double out_ms,
                           int copy_engines);

/* The same floor as a formula with its values, for a report line:
 *   2+: "max(NAME 43.269 ms, in 28.828 ms, out 14.450 ms)"
 *   1:  "max(NAME 43.269 ms, in 28.828 ms + out 14.450 ms)"
 *   0:  "NAME 43.269 ms + in 28.828 ms + out 14.450 ms"
 * Returns buf (always terminated; cut short if len is too small). */
char *cm_overlap_floor_text(char *buf, size_t len, const char *compute_name,
                            double compute_ms, double in_ms, double out_ms,
                            int copy_engines);

/* What the engine count means for the two directions, for a report line:
 * "in and out overlap each other and compute" (2+), "in and out take
 * turns; each overlaps compute" (1), "copies do not overlap compute"
 * (0). A static string. */
const char *cm_copy_engines_meaning(int copy_engines);

#ifdef __cplusplus
}
#endif

#endif /* CM_FLOOR_H */
