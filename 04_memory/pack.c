/* pack.c - a fork-join pool of host threads that packs rows (pack.h).
 * Each job is one barrier to start the workers and one to wait for them:
 * the job's rows, counted across its blocks, are split in equal ranges, so
 * no queue is needed. */
#include "pack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

typedef struct {
    pack_pool *pool;
    int index;
} pack_worker;

struct pack_pool {
    int threads, quit;
    pthread_t tid[PACK_MAX_THREADS];
    pack_worker worker[PACK_MAX_THREADS];
    pthread_barrier_t go, done;  /* the workers and the caller */
    /* The job, written by the caller before `go`, read after it. */
    const pack_block *blocks;
    size_t count, src_pitch, width, rows;
};

/* A pthread call that returned err: one line and exit 1. */
static void pthread_check(int err, const char *call)
{
    if (err != 0)
        cm_fail("%s failed: %s", call, strerror(err));
}

static void barrier_wait(pthread_barrier_t *b)
{
    int err = pthread_barrier_wait(b);
    if (err != PTHREAD_BARRIER_SERIAL_THREAD)
        pthread_check(err, "pthread_barrier_wait");
}

static void *pack_worker_main(void *arg)
{
    pack_worker *w = (pack_worker *)arg;
    pack_pool *p = w->pool;
    for (;;) {
        barrier_wait(&p->go);
        if (p->quit)
            return NULL;
        size_t t = (size_t)p->threads, i = (size_t)w->index;
        size_t first = p->rows * i / t, end = p->rows * (i + 1) / t;
        /* Rows first .. end - 1 of the blocks laid end to end. */
        size_t at = 0;
        for (size_t b = 0; b < p->count && at < end; b++) {
            const pack_block *k = &p->blocks[b];
            size_t lo = first > at ? first - at : 0;
            size_t hi = end - at < k->rows ? end - at : k->rows;
            for (size_t r = lo; r < hi; r++)
                memcpy((char *)k->dst + r * p->width,
                       (const char *)k->src + r * p->src_pitch, p->width);
            at += k->rows;
        }
        barrier_wait(&p->done);
    }
}

pack_pool *pack_pool_start(int threads)
{
    if (threads < 1 || threads > PACK_MAX_THREADS)
        cm_fail("pack_pool_start: %d threads, not 1 to %d", threads,
                PACK_MAX_THREADS);
    pack_pool *p = (pack_pool *)calloc(1, sizeof *p);
    if (!p)
        cm_fail("out of host memory for the packing threads");
    p->threads = threads;
    unsigned parties = (unsigned)threads + 1;
    pthread_check(pthread_barrier_init(&p->go, NULL, parties),
                  "pthread_barrier_init");
    pthread_check(pthread_barrier_init(&p->done, NULL, parties),
                  "pthread_barrier_init");
    for (int i = 0; i < threads; i++) {
        p->worker[i].pool = p;
        p->worker[i].index = i;
        pthread_check(pthread_create(&p->tid[i], NULL, pack_worker_main,
                                     &p->worker[i]),
                      "pthread_create");
    }
    return p;
}

int pack_pool_threads(const pack_pool *pool) { return pool->threads; }

void pack_blocks(pack_pool *p, const pack_block *blocks, size_t count,
                 size_t src_pitch, size_t width)
{
    p->blocks = blocks;
    p->count = count;
    p->src_pitch = src_pitch;
    p->width = width;
    p->rows = 0;
    for (size_t b = 0; b < count; b++)
        p->rows += blocks[b].rows;
    /* The barriers order the job's fields before the workers read them,
     * and the workers' copies before we return. */
    barrier_wait(&p->go);
    barrier_wait(&p->done);
}

void pack_rows(pack_pool *p, void *dst, const void *src, size_t src_pitch,
               size_t width, size_t rows)
{
    pack_block one = {dst, src, rows};
    pack_blocks(p, &one, 1, src_pitch, width);
}

void pack_pool_stop(pack_pool *p)
{
    p->quit = 1;
    barrier_wait(&p->go);
    for (int i = 0; i < p->threads; i++)
        pthread_check(pthread_join(p->tid[i], NULL), "pthread_join");
    pthread_check(pthread_barrier_destroy(&p->go), "pthread_barrier_destroy");
    pthread_check(pthread_barrier_destroy(&p->done),
                  "pthread_barrier_destroy");
    free(p);
}
