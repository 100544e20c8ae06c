/* pool.c - a pthread pool with futures, ranked queueing and clean shutdown.
 *
 * One mutex guards the queue; workers sleep on work_ready until there is a
 * task or the pool stops. Each future has its own mutex and condition, so
 * a caller can wait on it, or free it, even after the pool is gone.
 */
#include "pool.h"
#include "cpus.h"
#include "timing.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_ERROR_BYTES 512

struct pool_future {
    pthread_mutex_t lock;
    pthread_cond_t finished;
    int done;                 /* guarded by lock */
    int status;
    char error[POOL_ERROR_BYTES];
    double run_ms;
    pool_task_fn fn;
    void *arg;
    long rank;
    pool_future *next;        /* queue link, guarded by the pool's lock */
};

typedef struct {
    pool *p;
    int index;
} worker_start;

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready;
    pool_future *head, *tail; /* queued tasks, sorted by rank, then age */
    int stopping;
    int workers;
    pthread_t *threads;
    worker_start *starts;
};

/* Marks f finished and wakes its waiters. After the unlock the worker
 * never touches f again, so a waiter may free it at once. */
static void complete(pool_future *f, int status)
{
    pthread_mutex_lock(&f->lock);
    f->status = status;
    f->done = 1;
    pthread_cond_broadcast(&f->finished);
    pthread_mutex_unlock(&f->lock);
}

static void *worker_main(void *start_arg)
{
    worker_start *start = start_arg;
    pool *p = start->p;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->work_ready, &p->lock);
        pool_future *f = p->head;
        if (!f) {                       /* stopping and nothing queued */
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        p->head = f->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->lock);

        /* The task runs without any lock held, so it may submit more work
         * (to this pool or another) and wait for it. */
        double t0 = cm_now_ms();
        int status = f->fn(f->arg, start->index, f->error, sizeof f->error);
        f->run_ms = cm_now_ms() - t0;
        if (status != 0 && f->error[0] == '\0')
            snprintf(f->error, sizeof f->error, "task returned %d", status);
        complete(f, status);
    }
}

pool *pool_create(int workers, char *err, size_t err_len)
{
    if (workers < 1) {
        snprintf(err, err_len, "a pool needs at least 1 worker, not %d",
                 workers);
        return NULL;
    }
    pool *p = calloc(1, sizeof *p);
    pthread_t *threads = calloc((size_t)workers, sizeof *threads);
    worker_start *starts = calloc((size_t)workers, sizeof *starts);
    if (!p || !threads || !starts) {
        snprintf(err, err_len, "out of memory for a pool of %d", workers);
        free(p);
        free(threads);
        free(starts);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work_ready, NULL);
    p->threads = threads;
    p->starts = starts;
    for (int i = 0; i < workers; i++) {
        starts[i].p = p;
        starts[i].index = i;
        int rc = pthread_create(&threads[i], NULL, worker_main, &starts[i]);
        if (rc != 0) {
            snprintf(err, err_len, "cannot start worker thread %d of %d: %s",
                     i + 1, workers, strerror(rc));
            p->workers = i;             /* join the ones that did start */
            pool_shutdown(p, POOL_CANCEL);
            return NULL;
        }
    }
    p->workers = workers;
    return p;
}

pool_future *pool_submit_ranked(pool *p, pool_task_fn fn, void *arg,
                                long rank)
{
    pool_future *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->finished, NULL);
    f->fn = fn;
    f->arg = arg;
    f->rank = rank;

    pthread_mutex_lock(&p->lock);
    if (p->stopping) {
        pthread_mutex_unlock(&p->lock);
        pthread_mutex_destroy(&f->lock);
        pthread_cond_destroy(&f->finished);
        free(f);
        return NULL;
    }
    /* Behind every task of the same or a lower rank: appending is the
     * common case; otherwise walk to the first task of a higher rank. */
    if (!p->tail || p->tail->rank <= rank) {
        if (p->tail)
            p->tail->next = f;
        else
            p->head = f;
        p->tail = f;
    } else if (p->head->rank > rank) {
        f->next = p->head;
        p->head = f;
    } else {
        pool_future *q = p->head;
        while (q->next->rank <= rank)
            q = q->next;
        f->next = q->next;
        q->next = f;
    }
    pthread_cond_signal(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
    return f;
}

pool_future *pool_submit(pool *p, pool_task_fn fn, void *arg)
{
    return pool_submit_ranked(p, fn, arg, 0);
}

int pool_wait(pool_future *f)
{
    pthread_mutex_lock(&f->lock);
    while (!f->done)
        pthread_cond_wait(&f->finished, &f->lock);
    int status = f->status;
    pthread_mutex_unlock(&f->lock);
    return status;
}

const char *pool_error(const pool_future *f)
{
    return f->error;
}

double pool_run_ms(const pool_future *f)
{
    return f->run_ms;
}

void pool_future_free(pool_future *f)
{
    if (!f)
        return;
    pool_wait(f);
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->finished);
    free(f);
}

void pool_shutdown(pool *p, pool_stop how)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pool_future *cancelled = NULL;
    if (how == POOL_CANCEL) {           /* take the queue away whole */
        cancelled = p->head;
        p->head = p->tail = NULL;
    }
    pthread_cond_broadcast(&p->work_ready);
    pthread_mutex_unlock(&p->lock);

    while (cancelled) {
        pool_future *next = cancelled->next;
        snprintf(cancelled->error, sizeof cancelled->error,
                 "cancelled: the pool shut down before the task ran");
        complete(cancelled, POOL_CANCELLED);
        cancelled = next;
    }
    for (int i = 0; i < p->workers; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work_ready);
    free(p->threads);
    free(p->starts);
    free(p);
}

int pool_workers(const pool *p)
{
    return p->workers;
}

typedef struct {
    pool_range_fn fn;
    void *arg;
    size_t begin, end;
} slice;

static int run_slice(void *arg, int worker, char *err, size_t err_len)
{
    slice *s = arg;
    (void)worker;
    (void)err;
    (void)err_len;
    s->fn(s->arg, s->begin, s->end);
    return 0;
}

int pool_parallel_for(pool *p, long rank, size_t count, int chunks,
                      pool_range_fn fn, void *arg, double *busy_ms)
{
    if (!p || chunks <= 1 || count <= 1) {
        double t0 = cm_now_ms();
        fn(arg, 0, count);
        if (busy_ms)
            *busy_ms = cm_now_ms() - t0;
        return 0;
    }
    if ((size_t)chunks > count)
        chunks = (int)count;
    slice *slices = calloc((size_t)chunks, sizeof *slices);
    pool_future **futures = calloc((size_t)chunks, sizeof *futures);
    if (!slices || !futures) {
        free(slices);
        free(futures);
        return -1;
    }
    int failed = 0;
    for (int c = 0; c < chunks; c++) {
        slices[c].fn = fn;
        slices[c].arg = arg;
        slices[c].begin = count * (size_t)c / (size_t)chunks;
        slices[c].end = count * (size_t)(c + 1) / (size_t)chunks;
        futures[c] = pool_submit_ranked(p, run_slice, &slices[c], rank);
        if (!futures[c])
            failed = 1;
    }
    double busy = 0;
    for (int c = 0; c < chunks; c++) {
        if (!futures[c])
            continue;
        if (pool_wait(futures[c]) != 0)
            failed = 1;
        busy += pool_run_ms(futures[c]);
        pool_future_free(futures[c]);
    }
    if (busy_ms)
        *busy_ms = busy;
    free(slices);
    free(futures);
    return failed ? -1 : 0;
}

int pool_cpu_count(void)
{
    return cm_cpu_count();
}
