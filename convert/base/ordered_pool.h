/* ordered_pool.h: jobs run by worker threads and taken back in the order
 * they were given.
 *
 * The writers' way of using two cores without changing a byte: the calling
 * thread cuts the output into jobs (chunks of events), worker threads format
 * them into buffers of their own, and the calling thread takes the finished
 * jobs back in order and writes them out.  At most `window` jobs are in
 * flight, so memory stays a few buffers whatever the output's size.
 *
 * Ownership: the caller owns the jobs; the pool only holds pointers to them
 * between tp_opool_give and tp_opool_take.  A job must not be touched by the
 * caller in between.  With no workers (TP_THREADS=1, or threads that could
 * not start) tp_opool_take runs each job on the calling thread as worker 0. */
#ifndef TP_ORDERED_POOL_H
#define TP_ORDERED_POOL_H

#include <stdbool.h>
#include <stddef.h>

/* Runs one job; `worker` (0 .. workers-1) names the thread, so each may
 * keep state of its own in ctx (a cursor, a scratch buffer, counts). */
typedef void (*tp_opool_fn)(void *job, int worker, void *ctx);

typedef struct tp_opool tp_opool;

/* A pool of up to `workers` threads (0: none) with `window` jobs in flight. */
tp_opool *tp_opool_new(int workers, size_t window, tp_opool_fn fn, void *ctx);

/* True when `window` jobs are given and not yet taken: take one first. */
bool tp_opool_full(const tp_opool *p);

/* Hand over the next job (the pool must not be full). */
void tp_opool_give(tp_opool *p, void *job);

/* The oldest job given and not taken, once it has run; NULL when none is. */
void *tp_opool_take(tp_opool *p);

/* Stops and joins the workers (every job given should have been taken). */
void tp_opool_free(tp_opool *p);

#endif
