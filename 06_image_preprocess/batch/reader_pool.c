/* reader_pool.c - one job at a time, its items taken in turn. */
#include "reader_pool.h"

#include <pthread.h>
#include <stdlib.h>

struct reader_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, idle;  /* items to take; the job is done */
    rp_item_fn fn;
    void *ctx;
    size_t next, count, remaining;
    int stop, n_threads;
    pthread_t *threads;
    struct worker { reader_pool *pool; int id; } *workers;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    reader_pool *p = w->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->next >= p->count)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->stop)
            break;
        size_t item = p->next++;
        rp_item_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, item, w->id);
        pthread_mutex_lock(&p->mu);
        if (--p->remaining == 0)
            pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

reader_pool *rp_start(int n_threads)
{
    if (n_threads < 1)
        return NULL;
    reader_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = calloc((size_t)n_threads, sizeof *p->threads);
    p->workers = calloc((size_t)n_threads, sizeof *p->workers);
    if (!p->threads || !p->workers) {
        free(p->threads);
        free(p->workers);
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (int t = 0; t < n_threads; t++) {
        p->workers[t].pool = p;
        p->workers[t].id = t;
        if (pthread_create(&p->threads[t], NULL, worker_main,
                           &p->workers[t]) != 0) {
            rp_stop(p);
            return NULL;
        }
        p->n_threads = t + 1;
    }
    return p;
}

void rp_post(reader_pool *p, rp_item_fn fn, void *ctx, size_t count)
{
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->next = 0;
    p->count = count;
    p->remaining = count;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

void rp_wait(reader_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->remaining > 0)
        pthread_cond_wait(&p->idle, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

int rp_threads(const reader_pool *p)
{
    return p->n_threads;
}

void rp_stop(reader_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int t = 0; t < p->n_threads; t++)
        pthread_join(p->threads[t], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->idle);
    free(p->threads);
    free(p->workers);
    free(p);
}
