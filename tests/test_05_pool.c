/* test_05_pool.c - the chapter 05 thread pool: many tiny tasks, more tasks
 * than workers, no tasks, failing tasks, ranks, shutdown with work queued
 * (drained or cancelled) and parallel_for. Run it under SANITIZE=thread
 * too: every shared value here is guarded by a mutex or a future.
 */
#include "../05_hybrid_threads/pool.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static void sleep_ms(int ms)
{
    struct timespec t = {0, (long)ms * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- many tiny tasks, more tasks than workers ---- */
typedef struct {
    int index;
    int worker;
    int result;
} tiny_job;

static atomic_int running, most_running;

static int tiny_task(void *arg, int worker, char *err, size_t err_len)
{
    tiny_job *job = arg;
    (void)err;
    (void)err_len;
    int now = atomic_fetch_add(&running, 1) + 1;
    int seen = atomic_load(&most_running);
    while (now > seen && !atomic_compare_exchange_weak(&most_running, &seen,
                                                       now))
        ;
    job->worker = worker;
    job->result = job->index * 2;
    atomic_fetch_sub(&running, 1);
    return 0;
}

static void test_many_tasks(int workers, int count)
{
    char err[128];
    pool *p = pool_create(workers, err, sizeof err);
    EXPECT(p != NULL);
    EXPECT(pool_workers(p) == workers);
    tiny_job *jobs = calloc((size_t)count, sizeof *jobs);
    pool_future **f = calloc((size_t)count, sizeof *f);
    atomic_store(&most_running, 0);
    for (int i = 0; i < count; i++) {
        jobs[i].index = i;
        f[i] = pool_submit(p, tiny_task, &jobs[i]);
        EXPECT(f[i] != NULL);
    }
    int ok = 1;
    for (int i = 0; i < count; i++) {
        ok &= pool_wait(f[i]) == 0 && strcmp(pool_error(f[i]), "") == 0;
        ok &= jobs[i].result == 2 * i;
        ok &= jobs[i].worker >= 0 && jobs[i].worker < workers;
        pool_future_free(f[i]);
    }
    EXPECT(ok);
    EXPECT(atomic_load(&most_running) <= workers);
    pool_shutdown(p, POOL_DRAIN);
    free(jobs);
    free(f);
}

/* ---- a gate that holds a worker until the test opens it ---- */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int started, open;
    pool *p;                 /* the gate task tries to submit here later */
    int submit_refused;
} gate;

static int gate_task(void *arg, int worker, char *err, size_t err_len)
{
    gate *g = arg;
    (void)worker;
    (void)err;
    (void)err_len;
    pthread_mutex_lock(&g->lock);
    g->started = 1;
    pthread_cond_broadcast(&g->changed);
    while (!g->open)
        pthread_cond_wait(&g->changed, &g->lock);
    pthread_mutex_unlock(&g->lock);
    if (g->p) {
        pool_future *f = pool_submit(g->p, gate_task, g);
        g->submit_refused = f == NULL;
        pool_future_free(f);
    }
    return 0;
}

static void gate_wait_started(gate *g)
{
    pthread_mutex_lock(&g->lock);
    while (!g->started)
        pthread_cond_wait(&g->changed, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

/* ---- ranks: queued tasks run lowest rank first, FIFO within a rank ---- */
static int order[16], order_count;

typedef struct {
    int id;
} ranked_job;

static int record_task(void *arg, int worker, char *err, size_t err_len)
{
    (void)worker;
    (void)err;
    (void)err_len;
    order[order_count++] = ((ranked_job *)arg)->id;  /* one worker only */
    return 0;
}

static void test_ranks(void)
{
    char err[128];
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0,
              NULL, 0};
    pool *p = pool_create(1, err, sizeof err);
    pool_future *held = pool_submit(p, gate_task, &g);
    gate_wait_started(&g);
    long ranks[6] = {3, 1, 2, 1, 0, 3};
    ranked_job jobs[6];
    pool_future *f[6];
    for (int i = 0; i < 6; i++) {
        jobs[i].id = i;
        f[i] = pool_submit_ranked(p, record_task, &jobs[i], ranks[i]);
    }
    gate_open(&g);
    for (int i = 0; i < 6; i++)
        pool_future_free(f[i]);
    pool_future_free(held);
    int expected[6] = {4, 1, 3, 2, 0, 5};
    EXPECT(order_count == 6);
    for (int i = 0; i < 6 && i < order_count; i++)
        EXPECT(order[i] == expected[i]);
    pool_shutdown(p, POOL_DRAIN);
}

/* ---- failing tasks: the status and the message reach the caller ---- */
static int failing_task(void *arg, int worker, char *err, size_t err_len)
{
    int code = *(int *)arg;
    (void)worker;
    if (code == 7)
        snprintf(err, err_len, "task %d: the input was bad", code);
    return code;       /* 5 fails without a message */
}

static void test_failing_tasks(void)
{
    char err[128];
    pool *p = pool_create(2, err, sizeof err);
    int codes[3] = {0, 7, 5};
    pool_future *f[3];
    for (int i = 0; i < 3; i++)
        f[i] = pool_submit(p, failing_task, &codes[i]);
    EXPECT(pool_wait(f[0]) == 0);
    EXPECT(pool_wait(f[1]) == 7);
    EXPECT(strcmp(pool_error(f[1]), "task 7: the input was bad") == 0);
    EXPECT(pool_wait(f[2]) == 5);
    EXPECT(strcmp(pool_error(f[2]), "task returned 5") == 0);
    for (int i = 0; i < 3; i++)
        pool_future_free(f[i]);
    pool_shutdown(p, POOL_DRAIN);
}

/* ---- shutdown with work queued ---- */
static atomic_int ran;

static int counting_task(void *arg, int worker, char *err, size_t err_len)
{
    (void)arg;
    (void)worker;
    (void)err;
    (void)err_len;
    sleep_ms(1);
    atomic_fetch_add(&ran, 1);
    return 0;
}

static void test_drain(void)
{
    char err[128];
    pool *p = pool_create(2, err, sizeof err);
    pool_future *f[20];
    atomic_store(&ran, 0);
    for (int i = 0; i < 20; i++)
        f[i] = pool_submit(p, counting_task, NULL);
    pool_shutdown(p, POOL_DRAIN);          /* runs all 20 first */
    EXPECT(atomic_load(&ran) == 20);
    for (int i = 0; i < 20; i++) {
        EXPECT(pool_wait(f[i]) == 0);
        pool_future_free(f[i]);
    }
}

/* Opens the gate once the first queued task has been cancelled, that is
 * once pool_shutdown has taken the queue away. */
typedef struct {
    gate *g;
    pool_future *queued;
} opener;

static void *open_after_cancel(void *arg)
{
    opener *o = arg;
    pool_wait(o->queued);
    gate_open(o->g);
    return NULL;
}

static void test_cancel(void)
{
    char err[128];
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0,
              NULL, 0};
    pool *p = pool_create(1, err, sizeof err);
    g.p = p;
    pool_future *held = pool_submit(p, gate_task, &g);
    gate_wait_started(&g);
    pool_future *f[10];
    atomic_store(&ran, 0);
    for (int i = 0; i < 10; i++)
        f[i] = pool_submit(p, counting_task, NULL);
    opener o = {&g, f[0]};
    pthread_t helper;
    pthread_create(&helper, NULL, open_after_cancel, &o);
    pool_shutdown(p, POOL_CANCEL);  /* returns once the gate task is done */
    pthread_join(helper, NULL);
    EXPECT(atomic_load(&ran) == 0);
    for (int i = 0; i < 10; i++) {
        EXPECT(pool_wait(f[i]) == POOL_CANCELLED);
        EXPECT(strstr(pool_error(f[i]), "cancelled") != NULL);
        EXPECT(pool_run_ms(f[i]) == 0);
        pool_future_free(f[i]);
    }
    EXPECT(pool_wait(held) == 0);   /* the running task finished */
    EXPECT(g.submit_refused);       /* a stopping pool takes no more */
    pool_future_free(held);
}

/* ---- parallel_for covers every index exactly once ---- */
static void mark_range(void *arg, size_t begin, size_t end)
{
    int *hits = arg;
    for (size_t i = begin; i < end; i++)
        hits[i]++;
}

static void test_parallel_for(pool *p, size_t count, int chunks)
{
    int *hits = calloc(count + 1, sizeof *hits);
    double busy = -1;
    EXPECT(pool_parallel_for(p, 0, count, chunks, mark_range, hits,
                             &busy) == 0);
    int ok = 1;
    for (size_t i = 0; i < count; i++)
        ok &= hits[i] == 1;
    EXPECT(ok);
    EXPECT(hits[count] == 0);
    EXPECT(busy >= 0);
    free(hits);
}

int main(void)
{
    char err[128];
    EXPECT(pool_create(0, err, sizeof err) == NULL);
    EXPECT(strstr(err, "at least 1") != NULL);
    EXPECT(pool_cpu_count() >= 1);

    /* zero tasks: start and stop, both ways, without hanging */
    pool *p = pool_create(3, err, sizeof err);
    pool_shutdown(p, POOL_DRAIN);
    p = pool_create(3, err, sizeof err);
    pool_shutdown(p, POOL_CANCEL);
    pool_shutdown(NULL, POOL_DRAIN);
    pool_future_free(NULL);

    test_many_tasks(4, 10000);      /* many tiny tasks */
    test_many_tasks(2, 100);        /* more tasks than workers */
    test_many_tasks(8, 3);          /* more workers than tasks */
    test_ranks();
    test_failing_tasks();
    test_drain();
    test_cancel();

    p = pool_create(3, err, sizeof err);
    test_parallel_for(p, 1000, 7);
    test_parallel_for(p, 5, 16);    /* more slices than items */
    test_parallel_for(p, 1, 4);
    test_parallel_for(p, 0, 4);
    test_parallel_for(NULL, 100, 4);  /* no pool: the caller does it */
    pool_shutdown(p, POOL_DRAIN);
    return test_summary();
}
