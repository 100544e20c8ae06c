/* decode_pool.c - the decode threads of the batch pipeline (pthreads). */
#include "decode_pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum slot_state { SLOT_FREE, SLOT_DECODING, SLOT_READY, SLOT_FAILED };

typedef struct {
    uint8_t *buffer;
    size_t index;           /* the item it holds, while not free */
    enum slot_state state;
    char why[512];
} dp_slot;

struct dp_pool {
    pthread_mutex_t lock;
    pthread_cond_t changed;  /* a slot changed state, a job was posted, or
                                stop was set */
    pthread_cond_t job_done; /* the posted job's last part returned */
    dp_slot *slots;
    size_t n_slots, n_items;
    size_t next;             /* the next item a worker will take */
    int stop;
    double busy_ms, job_ms;
    dp_decode_fn decode;
    void *ctx;
    /* The posted job: parts [job_next, job_parts) are not started yet,
     * job_returned of them have returned. */
    dp_job_fn job;
    void *job_ctx;
    size_t job_parts, job_next, job_returned;
    pthread_t *threads;
    int n_threads;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Runs the next part of the posted job, called and returning with the
 * lock held; the part itself runs without it. */
static void run_part(dp_pool *p, int by_worker)
{
    size_t part = p->job_next++;
    dp_job_fn job = p->job;
    void *ctx = p->job_ctx;
    pthread_mutex_unlock(&p->lock);
    double start = now_ms();
    job(ctx, part);
    double spent = now_ms() - start;
    pthread_mutex_lock(&p->lock);
    if (by_worker)
        p->job_ms += spent;
    if (++p->job_returned == p->job_parts)
        pthread_cond_broadcast(&p->job_done);
}

/* Each worker first helps with a posted job, else takes the next item as
 * soon as its slot is free, decodes it without holding the lock and
 * publishes the result. It waits for more until dp_stop. */
static void *worker(void *arg)
{
    dp_pool *p = arg;
    char why[sizeof p->slots[0].why];
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        if (p->job_next < p->job_parts) {
            run_part(p, 1);
            continue;
        }
        if (p->next >= p->n_items ||
            p->slots[p->next % p->n_slots].state != SLOT_FREE) {
            pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        size_t index = p->next++;
        dp_slot *s = &p->slots[index % p->n_slots];
        s->index = index;
        s->state = SLOT_DECODING;
        pthread_mutex_unlock(&p->lock);

        why[0] = '\0';
        double start = now_ms();
        int rc = p->decode(p->ctx, index, s->buffer, why, sizeof why);
        double spent = now_ms() - start;

        pthread_mutex_lock(&p->lock);
        s->state = rc == 0 ? SLOT_READY : SLOT_FAILED;
        snprintf(s->why, sizeof s->why, "%s", why);
        p->busy_ms += spent;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

dp_pool *dp_start(size_t n_items, uint8_t *const *slots, size_t n_slots,
                  int n_threads, dp_decode_fn decode, void *ctx)
{
    if (n_slots < 2 || n_threads < 1)
        return NULL;
    dp_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->slots = calloc(n_slots, sizeof *p->slots);
    p->threads = calloc((size_t)n_threads, sizeof *p->threads);
    if (!p->slots || !p->threads) {
        free(p->slots);
        free(p->threads);
        free(p);
        return NULL;
    }
    for (size_t i = 0; i < n_slots; i++) {
        p->slots[i].buffer = slots[i];
        p->slots[i].index = SIZE_MAX;
    }
    p->n_slots = n_slots;
    p->n_items = n_items;
    p->decode = decode;
    p->ctx = ctx;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    pthread_cond_init(&p->job_done, NULL);
    for (; p->n_threads < n_threads; p->n_threads++)
        if (pthread_create(&p->threads[p->n_threads], NULL, worker, p) != 0)
            break;
    if (p->n_threads == 0) {
        dp_stop(p);
        return NULL;
    }
    return p;
}

uint8_t *dp_wait(dp_pool *p, size_t index, const char **why)
{
    dp_slot *s = &p->slots[index % p->n_slots];
    pthread_mutex_lock(&p->lock);
    while (s->index != index ||
           (s->state != SLOT_READY && s->state != SLOT_FAILED))
        pthread_cond_wait(&p->changed, &p->lock);
    uint8_t *result = s->state == SLOT_READY ? s->buffer : NULL;
    *why = s->why;
    pthread_mutex_unlock(&p->lock);
    return result;
}

void dp_release(dp_pool *p, size_t index)
{
    dp_slot *s = &p->slots[index % p->n_slots];
    pthread_mutex_lock(&p->lock);
    if (s->index == index)
        s->state = SLOT_FREE;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

double dp_busy_ms(dp_pool *p)
{
    pthread_mutex_lock(&p->lock);
    double ms = p->busy_ms;
    pthread_mutex_unlock(&p->lock);
    return ms;
}

void dp_post(dp_pool *p, dp_job_fn job, void *ctx, size_t n_parts)
{
    pthread_mutex_lock(&p->lock);
    p->job = job;
    p->job_ctx = ctx;
    p->job_parts = n_parts;
    p->job_next = p->job_returned = 0;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

void dp_join(dp_pool *p)
{
    pthread_mutex_lock(&p->lock);
    while (p->job_next < p->job_parts)
        run_part(p, 0);
    while (p->job_returned < p->job_parts)
        pthread_cond_wait(&p->job_done, &p->lock);
    p->job_parts = p->job_next = p->job_returned = 0;
    pthread_mutex_unlock(&p->lock);
}

double dp_job_ms(dp_pool *p)
{
    pthread_mutex_lock(&p->lock);
    double ms = p->job_ms;
    pthread_mutex_unlock(&p->lock);
    return ms;
}

void dp_stop(dp_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->changed);
    pthread_cond_destroy(&p->job_done);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p->slots);
    free(p);
}
