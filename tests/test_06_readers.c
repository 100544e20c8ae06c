/* test_06_readers.c - the reader threads of 06's batched pipeline
 * (batch/reader_pool.c): every item of a job runs once, on a thread
 * index below the pool's size; rp_wait returns only when all have
 * returned; jobs follow each other on the same threads, including empty
 * ones and jobs larger or smaller than the pool; jobs queued behind each
 * other (more than RP_MAX_JOBS, so rp_post waits for a slot) each run
 * every item once, and rp_wait_job(job) returns only when that job's
 * items have returned. Run under TSan: make ... SANITIZE=thread.
 */
#include "test.h"
#include "../06_image_preprocess/batch/reader_pool.h"

#include <stdatomic.h>
#include <time.h>

enum { MAX_ITEMS = 1000, THREADS = 4 };

typedef struct {
    atomic_int runs[MAX_ITEMS];
    atomic_int bad_thread;
    int per_thread[THREADS];  /* each thread writes only its own */
} job;

static void item(void *ctx, size_t i, int thread)
{
    job *j = ctx;
    if (thread < 0 || thread >= THREADS) {
        atomic_fetch_add(&j->bad_thread, 1);
        return;
    }
    if (i % 7 == 0) {
        struct timespec pause = {0, 50000};
        nanosleep(&pause, NULL);
    }
    j->per_thread[thread]++;
    atomic_fetch_add(&j->runs[i], 1);
}

int main(void)
{
    static job j;
    reader_pool *pool = rp_start(THREADS);
    EXPECT(pool && rp_threads(pool) == THREADS);
    if (!pool)
        return test_summary();
    const size_t sizes[5] = {MAX_ITEMS, 1, 0, 3, 257};
    for (int round = 0; round < 5; round++) {
        for (size_t i = 0; i < MAX_ITEMS; i++)
            atomic_store(&j.runs[i], 0);
        for (int t = 0; t < THREADS; t++)
            j.per_thread[t] = 0;
        rp_post(pool, item, &j, sizes[round]);
        rp_wait(pool);
        int once = 1, total = 0;
        for (size_t i = 0; i < MAX_ITEMS; i++)
            once &= atomic_load(&j.runs[i]) == (i < sizes[round]);
        for (int t = 0; t < THREADS; t++)
            total += j.per_thread[t];
        EXPECT(once);
        EXPECT((size_t)total == sizes[round]);
    }
    EXPECT(atomic_load(&j.bad_thread) == 0);

    /* Queued jobs: QUEUED of them posted before any wait. */
    enum { QUEUED = RP_MAX_JOBS + 3 };
    static job q[QUEUED];
    const size_t qsizes[QUEUED] = {300, 0, 17, 1, 257, 64, 5};
    size_t number[QUEUED];
    for (int k = 0; k < QUEUED; k++)
        number[k] = rp_post(pool, item, &q[k], qsizes[k]);
    for (int k = 0; k < QUEUED; k++) {
        rp_wait_job(pool, number[k]);
        int once = 1;
        for (size_t i = 0; i < MAX_ITEMS; i++)
            once &= atomic_load(&q[k].runs[i]) == (i < qsizes[k]);
        EXPECT(once);
        EXPECT(k == 0 || number[k] == number[k - 1] + 1);
    }
    rp_wait(pool);
    for (int k = 0; k < QUEUED; k++)
        EXPECT(atomic_load(&q[k].bad_thread) == 0);
    /* Two queued, the second waited for first: the first is done too
     * once rp_wait returns. */
    static job a, b;
    size_t na = rp_post(pool, item, &a, 200);
    size_t nb = rp_post(pool, item, &b, 3);
    rp_wait_job(pool, nb);
    rp_wait(pool);
    rp_wait_job(pool, na);
    int all_a = 1;
    for (size_t i = 0; i < 200; i++)
        all_a &= atomic_load(&a.runs[i]) == 1;
    EXPECT(all_a);
    EXPECT(atomic_load(&b.runs[0]) == 1 && atomic_load(&b.runs[2]) == 1);
    rp_stop(pool);
    EXPECT(rp_start(0) == NULL);
    return test_summary();
}
