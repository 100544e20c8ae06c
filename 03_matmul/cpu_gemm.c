/* cpu_gemm.c - a cache-blocked, multithreaded DGEMM in plain C.
 *
 * No CBLAS is installed on the course machines. A naive triple loop on
 * one core does for one check at n = 1000 (lesson.cu uses one), but not
 * for the lab's repeated runs and its sizes up to 4096 (about 69 times the
 * work), where the loop's walk down the columns of B keeps missing the
 * caches.
 * So the reference is the textbook blocked algorithm (Goto and van de
 * Geijn, "Anatomy of high-performance matrix multiplication", 2008),
 * written plainly rather than tuned:
 *   - B is copied ("packed") KC rows x NC columns at a time into strips
 *     NR columns wide, so the inner loop reads it contiguously from cache;
 *   - A is packed MC x KC at a time into strips MR rows tall;
 *   - a micro-kernel keeps an MR x NR block of C in registers while it
 *     walks the shared KC dimension.
 * Each thread owns a band of rows (or of columns, for wide results) of C,
 * packs its own copies and never writes where another thread writes.
 * It is an honest baseline, not OpenBLAS: expect a fraction of the CPU's
 * peak, since the compiler only has the baseline vector ISA to work with.
 */
#include "cpu_gemm.h"
#include "cpus.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Register block MR x NR (doubles) and cache blocks: an MR x KC strip of A
 * and a KC x NR strip of B stay in L1, the MC x KC block of A in L2, the
 * KC x NC panel of B in L2/L3. 4 x 6 accumulators fill 12 of the 16 SSE2
 * registers, leaving room for the operands; MC and NC are multiples of MR
 * and NR. Measured best of a few tries, not a careful tuning. */
enum { MR = 4, NR = 6, KC = 256, MC = 96, NC = 1020 };

/* Below this many multiply-adds one thread is faster than starting more. */
static const double SERIAL_WORK = 1 << 18;

typedef struct {
    size_t m, n, k;             /* this job's block of C is m x n */
    const double *a, *b;        /* its first row of A, first column of B */
    double *c;
    size_t lda, ldb, ldc;       /* leading dimensions of the full arrays */
    double *a_pack, *b_pack;    /* private packing buffers */
} gemm_job;

static size_t min_size(size_t x, size_t y) { return x < y ? x : y; }

int cpu_gemm_max_threads(void)
{
    return cm_cpu_count();
}

/* Copies the mc x kc block of A at a into strips of MR rows: strip s holds
 * a[s*MR + i][p] at a_pack[s*MR*kc + p*MR + i]; rows past mc are zero. */
static void pack_a(size_t mc, size_t kc, const double *a, size_t lda,
                   double *a_pack)
{
    for (size_t s = 0; s < mc; s += MR) {
        for (size_t p = 0; p < kc; p++)
            for (size_t i = 0; i < MR; i++)
                *a_pack++ = s + i < mc ? a[(s + i) * lda + p] : 0.0;
    }
}

/* Copies the kc x nc block of B at b into strips of NR columns: strip s
 * holds b[p][s*NR + j] at b_pack[s*NR*kc + p*NR + j]; zero past nc. */
static void pack_b(size_t kc, size_t nc, const double *b, size_t ldb,
                   double *b_pack)
{
    for (size_t s = 0; s < nc; s += NR) {
        for (size_t p = 0; p < kc; p++)
            for (size_t j = 0; j < NR; j++)
                *b_pack++ = s + j < nc ? b[p * ldb + s + j] : 0.0;
    }
}

/* C[0..mr, 0..nr) += (MR-row strip of A) x (NR-column strip of B). The
 * accumulator has a fixed size and its loops are unrolled completely, so
 * the compiler keeps it in vector registers (without the unrolling GCC -O2
 * leaves it on the stack and runs at half the speed). The zero padding of
 * the strips means only the final store needs mr and nr. */
static void micro_kernel(size_t kc, const double *restrict a_strip,
                         const double *restrict b_strip, double *c,
                         size_t ldc, size_t mr, size_t nr)
{
    double acc[MR][NR];
    memset(acc, 0, sizeof acc);
    for (size_t p = 0; p < kc; p++) {
        const double *restrict a_col = a_strip + p * MR;
        const double *restrict b_row = b_strip + p * NR;
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++)
#pragma GCC unroll 8
            for (int j = 0; j < NR; j++)
                acc[i][j] += a_col[i] * b_row[j];
    }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++)
            c[i * ldc + j] += acc[i][j];
}

/* One thread's share: its block of C, computed serially. */
static void *gemm_block(void *arg)
{
    const gemm_job *job = (const gemm_job *)arg;
    for (size_t i = 0; i < job->m; i++)
        memset(job->c + i * job->ldc, 0, job->n * sizeof(double));
    for (size_t jc = 0; jc < job->n; jc += NC) {
        size_t nc = min_size(NC, job->n - jc);
        for (size_t pc = 0; pc < job->k; pc += KC) {
            size_t kc = min_size(KC, job->k - pc);
            pack_b(kc, nc, job->b + pc * job->ldb + jc, job->ldb,
                   job->b_pack);
            for (size_t ic = 0; ic < job->m; ic += MC) {
                size_t mc = min_size(MC, job->m - ic);
                pack_a(mc, kc, job->a + ic * job->lda + pc, job->lda,
                       job->a_pack);
                for (size_t jr = 0; jr < nc; jr += NR)
                    for (size_t ir = 0; ir < mc; ir += MR)
                        micro_kernel(kc, job->a_pack + ir * kc,
                                     job->b_pack + jr * kc,
                                     job->c + (ic + ir) * job->ldc + jc + jr,
                                     job->ldc, min_size(MR, mc - ir),
                                     min_size(NR, nc - jr));
            }
        }
    }
    return NULL;
}

/* Share out bands of `total` rows or columns in multiples of `granule`,
 * so that only the last band has a partial register block. */
static size_t band_start(size_t total, size_t granule, int bands, int t)
{
    size_t units = (total + granule - 1) / granule;
    size_t start = units * (size_t)t / (size_t)bands * granule;
    return min_size(start, total);
}

int cpu_gemm(size_t m, size_t n, size_t k, const double *a, const double *b,
             double *c, int max_threads)
{
    if (m == 0 || n == 0)
        return 1;
    /* Split C along its longer side: rows when it is tall, columns when it
     * is wide (a few rows of a long product, for instance). */
    int by_rows = m >= n;
    size_t side = by_rows ? m : n, granule = by_rows ? MR : NR;
    size_t bands = (side + granule - 1) / granule;
    int threads = max_threads > 0 ? max_threads : 1;
    if ((size_t)threads > bands)
        threads = (int)bands;
    if ((double)m * (double)n * (double)k < SERIAL_WORK)
        threads = 1;

    size_t a_pack_len = MR * KC * ((min_size(MC, m) + MR - 1) / MR);
    size_t b_pack_len = NR * KC * ((min_size(NC, n) + NR - 1) / NR);
    gemm_job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    int *started = calloc((size_t)threads, sizeof *started);
    int ok = jobs && ids && started;
    for (int t = 0; ok && t < threads; t++) {
        size_t lo = band_start(side, granule, threads, t);
        size_t hi = band_start(side, granule, threads, t + 1);
        gemm_job *job = &jobs[t];
        job->m = by_rows ? hi - lo : m;
        job->n = by_rows ? n : hi - lo;
        job->k = k;
        job->a = by_rows ? a + lo * k : a;
        job->b = by_rows ? b : b + lo;
        job->c = by_rows ? c + lo * n : c + lo;
        job->lda = k;
        job->ldb = n;
        job->ldc = n;
        job->a_pack = malloc(a_pack_len * sizeof(double));
        job->b_pack = malloc(b_pack_len * sizeof(double));
        ok = job->a_pack && job->b_pack;
    }
    /* Thread 0's share runs on the calling thread. A thread that cannot be
     * started is not an error: the caller does its share afterwards. */
    int used = 1;
    for (int t = 1; ok && t < threads; t++) {
        started[t] = pthread_create(&ids[t], NULL, gemm_block, &jobs[t]) == 0;
        used += started[t];
    }
    if (ok)
        gemm_block(&jobs[0]);
    for (int t = 1; ok && t < threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            gemm_block(&jobs[t]);
    }
    for (int t = 0; jobs && t < threads; t++) {
        free(jobs[t].a_pack);
        free(jobs[t].b_pack);
    }
    free(jobs);
    free(ids);
    free(started);
    return ok ? used : -1;
}
