/* test_ordered_pool.c: jobs come back in the order given, each run once,
 * on its worker's own state, with and without threads, whatever their
 * lengths (the writers' byte-identical output rests on this). */
#include "tests/lib/harness.h"
#include "convert/base/ordered_pool.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

typedef struct job {
    int id;
    int runs;
    int worker;
} job;

typedef struct ctx {
    atomic_int ran[4]; /* jobs run by each worker */
} ctx;

static void run_job(void *p, int worker, void *c)
{
    job *j = p;
    ctx *x = c;
    if (j->id % 7 == 3) { /* some jobs are slow, so a later one finishes first */
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    j->runs++;
    j->worker = worker;
    atomic_fetch_add(&x->ran[worker & 3], 1);
}

static void check_pool(int workers, size_t window)
{
    enum { N = 300 };
    static job jobs[N];
    memset(jobs, 0, sizeof jobs);
    ctx x;
    for (int i = 0; i < 4; i++)
        atomic_init(&x.ran[i], 0);
    tp_opool *p = tp_opool_new(workers, window, run_job, &x);
    int given = 0, taken = 0;
    while (taken < N) {
        while (given < N && !tp_opool_full(p)) {
            jobs[given].id = given;
            tp_opool_give(p, &jobs[given++]);
        }
        job *j = tp_opool_take(p);
        if (!j || j->id != taken || j->runs != 1) {
            tp_test_fail(__FILE__, __LINE__, "workers %d window %zu: job %d came back as %d (runs %d)", workers,
                         window, taken, j ? j->id : -1, j ? j->runs : -1);
            break;
        }
        CHECK(j->worker >= 0 && j->worker < (workers > 0 ? workers : 1));
        taken++;
    }
    CHECK(tp_opool_take(p) == NULL); /* nothing left */
    tp_opool_free(p);
    int total = 0;
    for (int i = 0; i < 4; i++)
        total += atomic_load(&x.ran[i]);
    CHECK_EQ_INT(total, N);
}

TEST(ordered_pool_returns_jobs_in_order_each_run_once)
{
    check_pool(0, 1);
    check_pool(0, 8);
    check_pool(1, 1);
    check_pool(2, 1);
    check_pool(2, 3);
    check_pool(2, 8);
    check_pool(4, 10);
}
