/* random_cuda.c - cuRAND device fill. */
#include <curand.h>

#include "random.h"
#include "check.h"

void cm_curand_uniform(void *d_data, cm_dtype dtype, size_t n,
                       uint64_t seed, cudaStream_t stream)
{
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetStream(gen, stream));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed));
    /* cuRAND returns (0, 1]: 1.0 can appear, 0.0 cannot. NumPy's rand is
     * [0, 1); the difference does not matter for anything we compute. */
    if (dtype == CM_FLOAT64)
        CURAND_CHECK(curandGenerateUniformDouble(gen, (double *)d_data, n));
    else if (dtype == CM_FLOAT32)
        CURAND_CHECK(curandGenerateUniform(gen, (float *)d_data, n));
    else {
        fprintf(stderr, "cm_curand_uniform: dtype %s is not a float type\n",
                cm_dtype_name(dtype));
        exit(1);
    }
    /* The generator's state lives on the GPU; let its work finish before
     * we destroy it. */
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CURAND_CHECK(curandDestroyGenerator(gen));
}
