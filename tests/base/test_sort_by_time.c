/* test_sort_by_time.c: a long track is sorted in two halves on two threads
 * and merged (convert/model/tracks.c); the order must be the one-thread order:
 * by start, longer first, then event index, with many ties. */
#include "tests/lib/harness.h"
#include "convert/model/tracks.h"

#include <stdlib.h>
#include <string.h>

TEST(sort_by_time_two_threads_give_the_one_thread_order)
{
    enum { N = 200000 }; /* above the two-thread threshold */
    tp_trace t;
    tp_trace_init(&t);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        tp_event e;
        memset(&e, 0, sizeof e);
        e.ph = 'X';
        e.ts = (int64_t)(x % 5000);         /* many equal starts */
        e.dur = (int64_t)((x >> 20) % 4);   /* and equal durations: the index decides */
        tp_event_add(&t, &e);
    }
    uint32_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (uint32_t i = 0; i < N; i++)
        a[i] = b[i] = N - 1 - i; /* not the index order */
    const char *old = getenv("TP_THREADS");
    char *saved = old ? strdup(old) : NULL;
    unsetenv("TP_THREADS");
    tp_sort_by_time(&t, a, N);
    setenv("TP_THREADS", "1", 1);
    tp_sort_by_time(&t, b, N);
    if (saved) {
        setenv("TP_THREADS", saved, 1);
        free(saved);
    } else
        unsetenv("TP_THREADS");
    CHECK(memcmp(a, b, N * sizeof *a) == 0);
    size_t bad = 0;
    for (size_t j = 1; j < N; j++) {
        const tp_event *p = &t.events[a[j - 1]], *q = &t.events[a[j]];
        bad += !(p->ts < q->ts || (p->ts == q->ts && (p->dur > q->dur || (p->dur == q->dur && a[j - 1] < a[j]))));
    }
    CHECK_EQ_INT(bad, 0);
    free(a);
    free(b);
    tp_trace_free(&t);
}

/* A list of a few long sorted runs (a host thread's ops, then its runtime
 * calls, step after step) is merged run by run: the same strict order,
 * ties (equal starts and durations) decided by the index. */
TEST(sort_by_time_of_a_few_long_runs)
{
    enum { STEPS = 40, PER = 600 };
    tp_trace t;
    tp_trace_init(&t);
    for (int s = 0; s < STEPS; s++)
        for (int part = 0; part < 2; part++) /* two sorted runs per step, interleaved in time */
            for (int i = 0; i < PER; i++) {
                tp_event e;
                memset(&e, 0, sizeof e);
                e.ph = 'X';
                e.ts = s * 100000 + i * 10 + part * 5 + (i % 7 == 0 ? -5 * part : 0); /* some equal starts */
                e.dur = (i % 3);
                tp_event_add(&t, &e);
            }
    size_t n = t.nevents;
    uint32_t *a = malloc(n * sizeof *a);
    for (uint32_t i = 0; i < n; i++)
        a[i] = i;
    tp_sort_by_time(&t, a, n);
    size_t bad = 0;
    for (size_t j = 1; j < n; j++) {
        const tp_event *p = &t.events[a[j - 1]], *q = &t.events[a[j]];
        bad += !(p->ts < q->ts || (p->ts == q->ts && (p->dur > q->dur || (p->dur == q->dur && a[j - 1] < a[j]))));
    }
    CHECK_EQ_INT(bad, 0);
    bool *seen = calloc(n, 1); /* a permutation */
    for (size_t j = 0; j < n; j++)
        seen[a[j]] = true;
    size_t missing = 0;
    for (size_t j = 0; j < n; j++)
        missing += !seen[j];
    CHECK_EQ_INT(missing, 0);
    free(seen);
    free(a);
    tp_trace_free(&t);
}
