/* ordered_pool.c: jobs run by worker threads, taken back in order (see
 * ordered_pool.h).  Workers take the given jobs in order, so the oldest job
 * is always the first to start: the caller waits for as little as it can. */
#include "convert/base/ordered_pool.h"

#include "convert/base/common.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

enum { JOB_WAITING, JOB_DONE };

typedef struct opool_worker {
    struct tp_opool *p;
    int id;
    pthread_t th;
} opool_worker;

struct tp_opool {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    void **job;      /* ring of `cap` slots: job i is in slot i % cap */
    uint8_t *state;
    size_t cap;
    size_t given;    /* jobs given (written by the caller, under mu when there are workers) */
    size_t started;  /* jobs a worker has begun (workers, under mu) */
    size_t taken;    /* jobs taken back (the caller only) */
    bool stop;
    int nworkers;
    opool_worker *w;
    tp_opool_fn fn;
    void *ctx;
};

static void *worker_main(void *arg)
{
    opool_worker *w = arg;
    tp_opool *p = w->p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->started == p->given && !p->stop)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->started == p->given)
            break;
        size_t slot = p->started++ % p->cap;
        void *job = p->job[slot];
        pthread_mutex_unlock(&p->mu);
        p->fn(job, w->id, p->ctx);
        pthread_mutex_lock(&p->mu);
        p->state[slot] = JOB_DONE;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

tp_opool *tp_opool_new(int workers, size_t window, tp_opool_fn fn, void *ctx)
{
    tp_opool *p = tp_xcalloc(1, sizeof *p);
    p->cap = window ? window : 1;
    p->job = tp_xcalloc(p->cap, sizeof *p->job);
    p->state = tp_xcalloc(p->cap, sizeof *p->state);
    p->fn = fn;
    p->ctx = ctx;
    if (workers <= 0)
        return p;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->w = tp_xcalloc((size_t)workers, sizeof *p->w);
    for (int i = 0; i < workers; i++) {
        p->w[p->nworkers] = (opool_worker){p, p->nworkers, 0};
        if (pthread_create(&p->w[p->nworkers].th, NULL, worker_main, &p->w[p->nworkers]) == 0)
            p->nworkers++;
    }
    if (!p->nworkers) { /* none could start: the caller runs the jobs */
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->work);
        pthread_cond_destroy(&p->done);
        free(p->w);
        p->w = NULL;
    }
    return p;
}

bool tp_opool_full(const tp_opool *p) { return p->given - p->taken >= p->cap; }

void tp_opool_give(tp_opool *p, void *job)
{
    size_t slot = p->given % p->cap;
    if (!p->nworkers) {
        p->job[slot] = job;
        p->given++;
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->job[slot] = job;
    p->state[slot] = JOB_WAITING;
    p->given++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

void *tp_opool_take(tp_opool *p)
{
    if (p->taken == p->given)
        return NULL;
    size_t slot = p->taken++ % p->cap;
    if (!p->nworkers) {
        p->fn(p->job[slot], 0, p->ctx);
        return p->job[slot];
    }
    pthread_mutex_lock(&p->mu);
    while (p->state[slot] != JOB_DONE)
        pthread_cond_wait(&p->done, &p->mu);
    void *job = p->job[slot];
    pthread_mutex_unlock(&p->mu);
    return job;
}

void tp_opool_free(tp_opool *p)
{
    if (!p)
        return;
    if (p->nworkers) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->work);
        pthread_mutex_unlock(&p->mu);
        for (int i = 0; i < p->nworkers; i++)
            pthread_join(p->w[i].th, NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->work);
        pthread_cond_destroy(&p->done);
        free(p->w);
    }
    free(p->job);
    free(p->state);
    free(p);
}
