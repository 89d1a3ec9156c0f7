/* nsys_launches.c: the launch map of the SQLite readers (nsys, rocpd):
 * (process << 32 | correlation id) -> the launch call's event.
 *
 * Correlation ids are handed out in call order within a process and the
 * API tables are written in time order, so each process's ids arrive
 * (nearly) sorted: they are kept as a sorted array per process, 8 bytes an
 * entry, where a hash map took 24 to 36 (12-byte slots at most half full,
 * both tables while it doubled: 302 MB of a 1.02 GB export's 1,302 MB read
 * peak, docs/formats/nsys.md).  An id that arrives out of order (threads
 * that enter the runtime at once) goes to a small hash map beside it, so
 * any order costs at most what the hash map alone did, and a lookup is a
 * step from the last one found (device rows come in the same order), else
 * a binary search. */
#include "convert/read/nsys/nsys.h"

#include <stdlib.h>

static ns_corr_run *run_of(ns_launches *m, int64_t hi, bool create)
{
    if (m->nruns && m->last_hi == hi)
        return &m->runs[m->last_run];
    uint32_t r = tp_i64map_get(&m->procs, hi);
    if (r == TP_I64MAP_EMPTY) {
        if (!create)
            return NULL;
        TP_GROW(m->runs, m->runs_cap, m->nruns + 1);
        ns_corr_run z = {0};
        m->runs[m->nruns] = z;
        r = (uint32_t)m->nruns++;
        tp_i64map_put(&m->procs, hi, r);
    }
    m->last_hi = hi;
    m->last_run = r;
    return &m->runs[r];
}

/* index of corr in the run, or -1 */
static int64_t find(ns_corr_run *run, uint32_t corr)
{
    size_t c = run->cursor;
    if (c + 1 < run->n && run->corr[c + 1] == corr)
        return (int64_t)(run->cursor = c + 1);
    if (c < run->n && run->corr[c] == corr)
        return (int64_t)c;
    size_t lo = 0, hi = run->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (run->corr[mid] < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < run->n && run->corr[lo] == corr)
        return (int64_t)(run->cursor = lo);
    return -1;
}

uint32_t ns_launch_get(ns_launches *m, int64_t key)
{
    if (key < 0)
        return TP_I64MAP_EMPTY;
    ns_corr_run *run = run_of(m, key >> 32, false);
    uint32_t corr = (uint32_t)key;
    /* past the run's end: in neither part (an id kept aside was below the end when it came) */
    if (!run || !run->n || corr > run->corr[run->n - 1])
        return TP_I64MAP_EMPTY;
    int64_t i = find(run, corr);
    if (i >= 0)
        return run->ev[i];
    return m->aside.n ? tp_i64map_get(&m->aside, key) : TP_I64MAP_EMPTY;
}

void ns_launch_put(ns_launches *m, int64_t key, uint32_t ev)
{
    if (key < 0)
        return;
    ns_corr_run *run = run_of(m, key >> 32, true);
    uint32_t corr = (uint32_t)key;
    if (!run->n || corr > run->corr[run->n - 1]) {
        if (run->n == run->cap) {
            /* small first: a hostile export may give every row a process of its own
             * (then about 130 bytes a process: the run, its slot in procs, two blocks) */
            size_t cap = run->cap ? run->cap * 2 : 4;
            run->corr = tp_xrealloc(run->corr, cap * sizeof *run->corr);
            run->ev = tp_xrealloc(run->ev, cap * sizeof *run->ev);
            run->cap = cap;
        }
        run->corr[run->n] = corr;
        run->ev[run->n++] = ev;
        return;
    }
    int64_t i = find(run, corr);
    if (i >= 0)
        run->ev[i] = ev;
    else
        tp_i64map_put(&m->aside, key, ev);
}

void ns_launch_clear(ns_launches *m)
{
    for (size_t i = 0; i < m->nruns; i++)
        m->runs[i].n = m->runs[i].cursor = 0;
    tp_i64map_clear(&m->aside);
}

void ns_launch_free(ns_launches *m)
{
    for (size_t i = 0; i < m->nruns; i++) {
        free(m->runs[i].corr);
        free(m->runs[i].ev);
    }
    free(m->runs);
    tp_i64map_free(&m->procs);
    tp_i64map_free(&m->aside);
    ns_launches z = {0};
    *m = z;
}
