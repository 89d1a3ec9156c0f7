/* find_partial.c: whether the trace is a partial one, its events filtered
 * or sampled after the profiler wrote them (docs/REPORT.md "Findings",
 * *Partial traces*).  The GPU idle gaps of such a trace are partly the
 * events the filter removed, so the findings that read the gaps (host-bound,
 * synchronisation stalls, the input pipeline) cannot tell there.
 *
 * The sign: Kineto numbers every host event it records, in the order it
 * writes them, in the "Ev Idx" arg (cpu_op, user_annotation, python_function,
 * cpu_instant_event).  Between two numbered events of the trace's order, a
 * whole trace holds about as many host events as their numbers differ (or
 * more: runtime calls have no number); a filtered or sampled one holds far
 * fewer.  `report` keeps the args of the ops with a cost model only, so the
 * numbered events are a subset and the count between two of them includes
 * the unnumbered ones: the test is per pair of neighbouring numbered events,
 * "more than half of the numbers between them are missing", and the trace is
 * partial when at least half of the pairs are so (a profiling window that
 * starts at a high number, or the Python tracer's second numbering, make a
 * pair or two, not half).  At least 100 numbered events, else nothing is
 * said.  HTA's trace_filter_sampled_rank-0: 835 of its 1,106 pairs skip in
 * `report`; the nccl trace 0 of 3,041, TraceLens Qwen 0 of 1,264.  `stats`
 * keeps the same args as `report` so that both give one verdict.  The ops a
 * graph-capture trace lends the replay are not read: their numbers are the
 * capture's. */
#include "report/findings/findings.h"
#include "convert/base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARTIAL_SAMPLE 4096 /* numbered host events read (the first in the trace's order): bounds the cost and the file pages touched */
#define PARTIAL_MIN 100      /* fewer numbered events tell nothing */

/* The "Ev Idx" value of an args text, or -1. */
static int64_t ev_idx(const char *a, size_t n)
{
    static const char key[] = "\"Ev Idx\"";
    const char *p = memmem(a, n, key, sizeof key - 1);
    if (!p)
        return -1;
    const char *e = a + n;
    p += sizeof key - 1;
    while (p < e && (*p == ' ' || *p == ':'))
        p++;
    int64_t v = 0;
    int nd = 0;
    while (p < e && *p >= '0' && *p <= '9' && nd < 18) {
        v = v * 10 + (*p++ - '0');
        nd++;
    }
    return nd ? v : -1;
}

bool tp_find_partial(const tp_summary *s, char *why, size_t n)
{
    const tp_trace *t = s->t;
    size_t numbered = 0, pairs = 0, skipping = 0;
    uint64_t between = 0, missing = 0, last = 0;
    bool have = false;
    size_t note = 0; /* launch flows noted in place of events (model.h tp_flow_note): counted where they stood */
    for (size_t i = 0; i < t->nevents && numbered < PARTIAL_SAMPLE; i++) {
        for (; note < t->nlaunch_flows && t->launch_flows[note].at <= i; note++)
            between += t->tracks[t->launch_flows[note].track].role == TP_TRACK_HOST;
        const tp_event *e = &t->events[i];
        /* a graph-capture trace's ops copied in (TP_EV_CAPTURED) carry that trace's numbering, not
         * this one's: read among the replay's they would make every pair skip (SGLang decode with its
         * capture_traces/ beside it: 941 of 1,493 pairs, host-bound withheld at 97.9% idle) */
        if ((e->flags & TP_EV_CAPTURED) || t->tracks[e->track].role != TP_TRACK_HOST)
            continue;
        int64_t x = -1;
        if (e->args && e->ph == 'X') {
            size_t len = 0;
            const char *a = tp_args_get(t, e->args, &len);
            x = a ? ev_idx(a, len) : -1;
        }
        if (x < 0) {
            between++;
            continue;
        }
        numbered++;
        if (have && (uint64_t)x > last) {
            uint64_t d = (uint64_t)x - last; /* numbers from the last numbered event to this one */
            pairs++;
            if (d > 2 * (between + 1)) { /* more than half the numbers between them are not in the trace */
                skipping++;
                missing += d - (between + 1);
            }
        }
        last = (uint64_t)x;
        have = true;
        between = 0;
    }
    bool partial = numbered >= PARTIAL_MIN && pairs && skipping * 2 >= pairs;
    if (partial)
        snprintf(why, n,
                 "the trace's events were filtered or sampled: between %zu of the %zu neighbouring pairs of its numbered "
                 "host events (Kineto's \"Ev Idx\") more than half the numbers are missing (%llu events in all); the GPU "
                 "idle gaps may be events the filter removed",
                 skipping, pairs, (unsigned long long)missing);
    return partial;
}
