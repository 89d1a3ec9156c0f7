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

#include "tracks.h"

typedef struct tp_pf_flows {
    uint32_t *start;  /* event i's flow ids are ids[start[i] .. start[i+1]) */
    uint32_t *ids;
    uint64_t launch;  /* launch flows */
    uint64_t input;   /* input flow chains bound to two or more slices */
    uint64_t unbound; /* input flow events with no slice to bind to (not written) */
} tp_pf_flows;

/* ix: tp_track_index of t; torder: tp_track_order(t). */
void tp_pf_flows_plan(const tp_trace *t, const tp_track_index *ix, const uint32_t *torder, tp_pf_flows *f);
void tp_pf_flows_free(tp_pf_flows *f);

#endif
