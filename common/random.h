/* random.h - uniform random fill, like np.random.rand, on the host
 * (a seeded xoshiro256** generator) or on the GPU (cuRAND).
 *
 *   cm_fill_uniform_f64(h_a, n, 42);                 host, reproducible
 *   cm_curand_uniform(d_a, CM_FLOAT64, n, 42, stream);  device, cuRAND
 *
 * The two generators differ, so host and device fills are not the same
 * numbers; each is reproducible for a given seed.
 */
#ifndef CM_RANDOM_H
#define CM_RANDOM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host fills: n values uniform in [0, 1). */
void cm_fill_uniform_f64(double *h_data, size_t n, uint64_t seed);
void cm_fill_uniform_f32(float *h_data, size_t n, uint64_t seed);

/* A small generator for callers that need their own stream of numbers. */
typedef struct { uint64_t s[4]; } cm_rng;
cm_rng cm_rng_seed(uint64_t seed);
uint64_t cm_rng_next(cm_rng *rng);
double cm_rng_uniform(cm_rng *rng);   /* [0, 1) with 53 random bits */

/* Device fill with cuRAND's default generator (XORWOW) on stream; values
 * lie in (0, 1], cuRAND's range. dtype must be CM_FLOAT32 or CM_FLOAT64.
 * Returns once the numbers are written. */
void cm_curand_uniform(void *d_data, cm_dtype dtype, size_t n,
                       uint64_t seed, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* CM_RANDOM_H */
