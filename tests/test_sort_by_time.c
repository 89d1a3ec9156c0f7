/* test_sort_by_time.c: a long track is sorted in two halves on two threads
 * and merged (convert/tracks.c); the order must be the one-thread order:
 * by start, longer first, then event index, with many ties. */
#include "harness.h"
#include "tracks.h"

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
