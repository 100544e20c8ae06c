/* cpu_gemm.h - the CPU reference for chapter 03: C = A B in float64.
 *
 *   int used = cpu_gemm(m, n, k, h_a, h_b, h_ref, cpu_gemm_max_threads());
 *   if (used < 0) ...out of host memory...
 *
 * Row-major, like NumPy: A is m x k, B is k x n, C is m x n, each stored
 * densely (leading dimension = number of columns). Plain C11 + pthreads, no
 * BLAS: cache blocking and a small register-blocked kernel, on as many
 * threads as the caller allows (cpu_gemm_max_threads: the CPUs this
 * process may use, not every core of the machine).
 */
#ifndef CPU_GEMM_H
#define CPU_GEMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs this process may use (cm_cpu_count: its affinity mask and its
 * cgroup's CPU quota; at least 1). */
int cpu_gemm_max_threads(void);

/* C = A B (C is overwritten). Uses up to max_threads threads, fewer when
 * the matrix is too small to share out. Returns the number of threads that
 * did the work, or -1 if host memory for the packing buffers ran out. */
int cpu_gemm(size_t m, size_t n, size_t k, const double *a, const double *b,
             double *c, int max_threads);

#ifdef __cplusplus
}
#endif

#endif /* CPU_GEMM_H */
