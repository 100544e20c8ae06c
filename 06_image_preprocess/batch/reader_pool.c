/* reader_pool.c - jobs queued in order, their items taken in turn. */
#include "reader_pool.h"
#include "lib_support.h"

#include <pthread.h>
#include <stdlib.h>

/* A queued job; job number n lives in slot n % RP_MAX_JOBS. */
typedef struct {
    rp_item_fn fn;
    void *ctx;
    size_t number, next, count, remaining;
} rp_job;

struct reader_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, idle;  /* items to take; a job is done */
    rp_job jobs[RP_MAX_JOBS];
    size_t posted;              /* jobs posted so far */
    size_t taking;              /* the oldest job with items to hand out */
    int stop, n_threads;
    pthread_t *threads;
    struct worker { reader_pool *pool; int id; } *workers;
};

/* Moves p->taking past the jobs whose items are all handed out. Returns
 * the job to take from, or NULL. Called with p->mu held. */
static rp_job *job_to_take(reader_pool *p)
{
    while (p->taking < p->posted) {
        rp_job *j = &p->jobs[p->taking % RP_MAX_JOBS];
        if (j->next < j->count)
            return j;
        p->taking++;
    }
    return NULL;
}

static int job_done(const reader_pool *p, size_t number)
{
    const rp_job *j = &p->jobs[number % RP_MAX_JOBS];
    return number >= p->posted ? 1 : j->number != number || j->remaining == 0;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    reader_pool *p = w->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        rp_job *j;
        while (!p->stop && (j = job_to_take(p)) == NULL)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->stop)
            break;
        size_t item = j->next++;
        rp_item_fn fn = j->fn;
        void *ctx = j->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, item, w->id);
        pthread_mutex_lock(&p->mu);
        if (--j->remaining == 0)
            pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

reader_pool *rp_start(int n_threads)
{
    if (n_threads < 1)
        return NULL;
    reader_pool *p = ib_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->threads = ib_calloc((size_t)n_threads, sizeof *p->threads);
    p->workers = ib_calloc((size_t)n_threads, sizeof *p->workers);
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

size_t rp_post(reader_pool *p, rp_item_fn fn, void *ctx, size_t count)
{
    pthread_mutex_lock(&p->mu);
    size_t number = p->posted;
    /* The slot's previous job must be done before it is reused. */
    while (number >= RP_MAX_JOBS && !job_done(p, number - RP_MAX_JOBS))
        pthread_cond_wait(&p->idle, &p->mu);
    rp_job *j = &p->jobs[number % RP_MAX_JOBS];
    j->fn = fn;
    j->ctx = ctx;
    j->number = number;
    j->next = 0;
    j->count = count;
    j->remaining = count;
    p->posted = number + 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    return number;
}

void rp_wait_job(reader_pool *p, size_t job)
{
    pthread_mutex_lock(&p->mu);
    while (!job_done(p, job))
        pthread_cond_wait(&p->idle, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void rp_wait(reader_pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (size_t n = p->posted > RP_MAX_JOBS ? p->posted - RP_MAX_JOBS : 0;
         n < p->posted; n++)
        while (!job_done(p, n))
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
