/* test_sort_tail_run.c: tp_sort_by_time (convert/model/tracks.c) sorts a
 * list that ends with one long ascending run spanning the rest's times (the
 * memory counters convert appends after a host thread's slices) as the rest
 * alone, then one merge; any other list the general way.  Both ways must give
 * the order a plain sort by (start, longer first, index) gives, ties
 * included (a counter at its memory event's time, both zero-length). */
#include "tests/lib/harness.h"
#include "convert/model/tracks.h"

#include <stdlib.h>
#include <string.h>

static const tp_event *ref_events;

static int cmp_ref(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const tp_event *x = &ref_events[i], *y = &ref_events[j];
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return (i > j) - (i < j);
}

static void add(tp_trace *t, int64_t ts, int64_t dur)
{
    tp_event e;
    memset(&e, 0, sizeof e);
    e.ph = dur ? 'X' : 'i';
    e.ts = ts;
    e.dur = dur;
    tp_event_add(t, &e);
}

/* steps of two interleaved runs (ops, runtime calls), then `tail` events
 * ascending over the whole span, or random when `random_rest` */
static size_t check_shape(int steps, int per, int tail, bool random_rest)
{
    tp_trace t;
    tp_trace_init(&t);
    uint64_t x = 88172645463325252ull;
    for (int s = 0; s < steps; s++)
        for (int part = 0; part < 2; part++)
            for (int i = 0; i < per; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                int64_t ts = random_rest ? (int64_t)(x % 100000u) * 10 : (int64_t)s * 100000 + i * 10 + part * 5;
                add(&t, ts, (int64_t)(x >> 40) % 3); /* zero-length ones too */
            }
    int64_t span = (int64_t)steps * 100000;
    for (int c = 0; c < tail; c++) /* at slice starts (ties), ascending */
        add(&t, (span * c / (tail ? tail : 1)) / 10 * 10, 0);
    size_t n = t.nevents;
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (uint32_t i = 0; i < n; i++)
        a[i] = b[i] = i;
    tp_sort_by_time(&t, a, n);
    ref_events = t.events;
    qsort(b, n, sizeof *b, cmp_ref);
    size_t differ = 0;
    for (size_t j = 0; j < n; j++)
        differ += a[j] != b[j];
    free(a);
    free(b);
    tp_trace_free(&t);
    return differ;
}

TEST(sort_by_time_tail_run_and_general_ways_agree)
{
    CHECK_EQ_INT(check_shape(40, 600, 20000, false), 0); /* the tail way: a long spanning tail */
    CHECK_EQ_INT(check_shape(40, 600, 7000, false), 0);  /* tail just over n / 8 (55000 / 8): the tail way */
    CHECK_EQ_INT(check_shape(40, 600, 1000, false), 0);  /* tail under n / 8: the runs way */
    CHECK_EQ_INT(check_shape(40, 600, 0, false), 0);     /* no tail */
    CHECK_EQ_INT(check_shape(40, 600, 20000, true), 0);  /* the rest not a few runs: the general way */
    CHECK_EQ_INT(check_shape(2, 100, 3000, false), 0);   /* under 4096 in all */
}
