/* pftrace_flows.h: which slices carry which flow ids in a .pftrace.
 *
 * Launch flows: one id per device event with a launch (tp_event.link), on the
 * device slice and on its launch slice (a launch carries the ids of all its
 * device events).  Input flows ('s'/'t'/'f' events the pipeline kept, e.g.
 * Kineto "fwdbwd"): each flow event is bound to a slice on its track as
 * Perfetto's JSON importer does ('s', 't' and 'f' with "bp":"e": the
 * innermost slice open at its time; other 'f': the next slice starting at or
 * after it), and each chain s -> t... -> f (same cat and id, in time order)
 * gets one id on all its slices.  Ids are numbered in output order. */
#ifndef TP_PFTRACE_FLOWS_H
#define TP_PFTRACE_FLOWS_H

#include "convert/model/tracks.h"

/* Most slices carry at most one id (a launch and its kernel), so ids are kept
 * as one number per event, and only events with several ids in a sorted list:
 * 4 bytes per event (the list of (event, id) pairs it replaced, sorted with
 * qsort, took 30 bytes per launch at its peak). */
#define TP_PF_MANY UINT32_MAX

struct tp_pf_pair;

typedef struct tp_pf_flows {
    uint32_t *one;    /* per event: its only flow id, 0 = none, TP_PF_MANY = several (below) */
    uint32_t *mev, *mid; /* (event, id) of the events with several ids, sorted, no duplicates */
    size_t nm;
    uint64_t launch;  /* launch flows */
    uint64_t input;   /* input flow chains bound to two or more slices */
    uint64_t unbound; /* input flow events with no slice to bind to (not written) */
    /* while planning */
    uint32_t next;
    uint32_t *fl;     /* input flow events seen */
    size_t nfl, flcap;
    struct tp_pf_pair *extra; /* ids of events that have several */
    size_t nextra, extra_cap;
} tp_pf_flows;

void tp_pf_flows_begin(tp_pf_flows *f, const tp_trace *t);
void tp_pf_flows_visit(tp_pf_flows *f, const tp_trace *t, uint32_t i);
void tp_pf_flows_end(tp_pf_flows *f, const tp_trace *t, const tp_track_index *ix);
void tp_pf_flows_free(tp_pf_flows *f);

/* The flow ids of event i, ascending: their number, and *ids pointing at
 * them (at *one_buf for a single id). */
static inline size_t tp_pf_flow_ids(const tp_pf_flows *f, uint32_t i, uint32_t *one_buf, const uint32_t **ids)
{
    uint32_t v = f->one[i];
    if (v != TP_PF_MANY) {
        *one_buf = v;
        *ids = one_buf;
        return v != 0;
    }
    size_t lo = 0, hi = f->nm; /* first pair of event i */
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (f->mev[m] < i)
            lo = m + 1;
        else
            hi = m;
    }
    size_t n = 0;
    while (lo + n < f->nm && f->mev[lo + n] == i)
        n++;
    *ids = f->mid + lo;
    return n;
}

#endif
