/* threads.h: the one way tracepress runs work beside the calling thread.
 *
 * Every use of a second core is "start this on a thread, or run it here":
 * with TP_THREADS=1 (or the caller's own variable set to 1), or when a
 * thread cannot be started, the work runs on the calling thread and the
 * results are the same (the tests compare both).  Two forms:
 *
 *   tp_run_pair(side, a, here, b, var): side(a) on a second thread while
 *   here(b) runs on this one, then join; both here, side first, otherwise.
 *
 *   tp_side_start / tp_side_join: side work that overlaps a stretch of the
 *   caller's code (a read-ahead, an analysis beside loading).  Without a
 *   thread, tp_side_start runs the work at once.
 *
 * The ordered pool (ordered_pool.h) is the third and last form: many jobs
 * formatted by workers and taken back in order. */
#ifndef TP_THREADS_H
#define TP_THREADS_H

#include <pthread.h>
#include <stdbool.h>

typedef void *(*tp_thread_fn)(void *);

/* True when TP_THREADS=1, or own_var (may be NULL) is set to 1. */
bool tp_single_thread(const char *own_var);

/* side(a) on a second thread and here(b) on this one, then joined; both on
 * this thread (side first) when own_var/TP_THREADS says so or no thread
 * starts.  Returns whether a thread ran. */
bool tp_run_pair(tp_thread_fn side, void *a, tp_thread_fn here, void *b, const char *own_var);

typedef struct {
    pthread_t th;
    bool threaded; /* a thread runs the work: tp_side_join waits for it */
} tp_side;

/* Starts fn(arg) on a second thread, or runs it here at once. */
void tp_side_start(tp_side *s, tp_thread_fn fn, void *arg, const char *own_var);

/* Waits for the work started by tp_side_start (no-op when it ran here). */
void tp_side_join(tp_side *s);

#endif
