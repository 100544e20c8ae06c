/* test_06_pool.c - the decode threads of 06_image_preprocess's batch
 * pipeline, with a fake decoder: every item arrives, in order, in its own
 * slot, failures are reported, buffers are reused only after release,
 * and stopping early joins cleanly. Jobs posted between decodes (the
 * batch's checks) run every part once, on the workers even when nothing
 * is left to decode, and their results are seen after dp_join. Run under
 * TSan: make ... SANITIZE=thread.
 */
#include "test.h"
#include "../06_image_preprocess/batch/decode_pool.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { ITEM_BYTES = 64, MAX_SLOTS = 8 };

typedef struct {
    atomic_int in_decode;      /* decoders running right now */
    atomic_int most_in_decode;
} fake_ctx;

/* Item i: bytes all equal to i % 251, after a short, varying pause;
 * every 7th item fails. */
static int fake_decode(void *ctx, size_t index, uint8_t *dst, char *err,
                       size_t err_len)
{
    fake_ctx *c = ctx;
    int now = atomic_fetch_add(&c->in_decode, 1) + 1;
    int most = atomic_load(&c->most_in_decode);
    while (now > most &&
           !atomic_compare_exchange_weak(&c->most_in_decode, &most, now))
        ;
    struct timespec pause = {0, (long)(index % 5) * 100000};
    nanosleep(&pause, NULL);
    memset(dst, (int)(index % 251), ITEM_BYTES);
    atomic_fetch_sub(&c->in_decode, 1);
    if (index % 7 == 3) {
        snprintf(err, err_len, "item %zu: broken on purpose", index);
        return -1;
    }
    return 0;
}

static void run(size_t n_items, size_t n_slots, int n_threads, size_t hold)
{
    static uint8_t storage[MAX_SLOTS][ITEM_BYTES];
    uint8_t *slots[MAX_SLOTS];
    for (size_t s = 0; s < n_slots; s++)
        slots[s] = storage[s];
    fake_ctx ctx;
    atomic_init(&ctx.in_decode, 0);
    atomic_init(&ctx.most_in_decode, 0);
    dp_pool *pool = dp_start(n_items, slots, n_slots, n_threads,
                             fake_decode, &ctx);
    EXPECT(pool != NULL);
    /* Like the GPU side: hold up to `hold` buffers (images in flight)
     * while waiting for the next one, then release the oldest. */
    size_t good = 0, failed = 0, bad_content = 0;
    for (size_t i = 0; i < n_items; i++) {
        const char *why;
        uint8_t *data = dp_wait(pool, i, &why);
        if (data) {
            EXPECT(data == slots[i % n_slots]);
            for (int k = 0; k < ITEM_BYTES; k++)
                bad_content += data[k] != (uint8_t)(i % 251);
            good++;
        } else {
            char want[64];
            snprintf(want, sizeof want, "item %zu: broken on purpose", i);
            EXPECT(strcmp(why, want) == 0);
            failed++;
        }
        if (i >= hold)
            dp_release(pool, i - hold);
    }
    for (size_t i = n_items > hold ? n_items - hold : 0; i < n_items; i++)
        dp_release(pool, i);
    EXPECT(good + failed == n_items);
    EXPECT(failed == (n_items + 3) / 7);
    EXPECT(bad_content == 0);
    EXPECT(dp_busy_ms(pool) >= 0);
    EXPECT(atomic_load(&ctx.most_in_decode) <= n_threads);
    dp_stop(pool);
}

enum { MAX_PARTS = 64 };

typedef struct {
    atomic_int runs[MAX_PARTS];  /* times each part ran */
    size_t result[MAX_PARTS];    /* plain: seen by the poster after join */
} job_ctx;

static void fake_part(void *ctx, size_t part)
{
    job_ctx *j = ctx;
    atomic_fetch_add(&j->runs[part], 1);
    j->result[part] = 3 * part + 1;
}

/* Every part ran once and wrote its result; clears the counts. */
static int job_done_once(job_ctx *j, size_t parts)
{
    int ok = 1;
    for (size_t k = 0; k < parts; k++) {
        ok &= atomic_load(&j->runs[k]) == 1 && j->result[k] == 3 * k + 1;
        atomic_store(&j->runs[k], 0);
        j->result[k] = 0;
    }
    return ok;
}

/* A job of `parts` parts posted for every item, between dp_wait and
 * dp_release, as the batch does; then jobs on an idle pool, left to the
 * workers alone (the poster only watches), before dp_join. */
static void run_jobs(size_t n_items, size_t n_slots, int n_threads,
                     size_t parts)
{
    static uint8_t storage[MAX_SLOTS][ITEM_BYTES];
    static job_ctx job;
    uint8_t *slots[MAX_SLOTS];
    for (size_t s = 0; s < n_slots; s++)
        slots[s] = storage[s];
    for (size_t k = 0; k < MAX_PARTS; k++)
        atomic_init(&job.runs[k], 0);
    fake_ctx ctx;
    atomic_init(&ctx.in_decode, 0);
    atomic_init(&ctx.most_in_decode, 0);
    dp_pool *pool = dp_start(n_items, slots, n_slots, n_threads,
                             fake_decode, &ctx);
    EXPECT(pool != NULL);
    size_t bad_jobs = 0;
    for (size_t i = 0; i < n_items; i++) {
        const char *why;
        dp_wait(pool, i, &why);
        dp_post(pool, fake_part, &job, parts);
        dp_join(pool);
        bad_jobs += !job_done_once(&job, parts);
        dp_release(pool, i);
    }
    EXPECT(bad_jobs == 0);
    for (int round = 0; round < 3; round++) {
        dp_post(pool, fake_part, &job, parts);
        int waited_ms = 0, all_ran = 0;
        while (!all_ran && waited_ms < 10000) {
            all_ran = 1;
            for (size_t k = 0; k < parts; k++)
                all_ran &= atomic_load(&job.runs[k]) == 1;
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
            waited_ms++;
        }
        EXPECT(all_ran);  /* the workers took it with no item left */
        dp_join(pool);
        EXPECT(job_done_once(&job, parts));
    }
    EXPECT(dp_job_ms(pool) >= 0);
    dp_post(pool, fake_part, &job, 0);  /* no part: nothing to wait for */
    dp_join(pool);
    dp_stop(pool);
}

int main(void)
{
    run(1, 2, 1, 1);
    run(50, 2, 1, 1);
    run(200, 5, 3, 2);
    run(200, 8, 4, 4);
    run(100, 8, 6, 7);   /* n_slots - 1 held while waiting: no deadlock */

    run_jobs(30, 4, 1, 1);
    run_jobs(100, 6, 3, 7);
    run_jobs(60, 8, 4, MAX_PARTS);

    /* Stopping with work left: the workers finish what they hold and go. */
    static uint8_t storage[4][ITEM_BYTES];
    uint8_t *slots[4] = {storage[0], storage[1], storage[2], storage[3]};
    fake_ctx ctx;
    atomic_init(&ctx.in_decode, 0);
    atomic_init(&ctx.most_in_decode, 0);
    dp_pool *pool = dp_start(1000, slots, 4, 3, fake_decode, &ctx);
    const char *why;
    EXPECT(pool && dp_wait(pool, 0, &why) == slots[0]);
    dp_stop(pool);

    /* Refused: fewer than 2 slots or no thread. */
    EXPECT(dp_start(10, slots, 1, 2, fake_decode, &ctx) == NULL);
    EXPECT(dp_start(10, slots, 4, 0, fake_decode, &ctx) == NULL);
    return test_summary();
}
