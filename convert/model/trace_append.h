/* trace_append.h: append one trace to another, for readers that read the
 * later part of an input on a second thread into a trace of its own (the
 * Chrome reader's halves, the XPlane reader's plane parts) and then join it
 * to the first part's.
 *
 * The result is the trace one reader would have built: the second trace's
 * strings are interned after the first's, its processes and tracks found or
 * created in its order, its args arena appended (tp_args_append), its events
 * appended with every index remapped, its devices (t->devinfo, after t's)
 * and recorded op costs (merged by tp_costs_add) carried over with their
 * names remapped, and its warnings and drop counters added.  What differs between readers is a parameter (tp_append_how). */
#ifndef TP_TRACE_APPEND_H
#define TP_TRACE_APPEND_H

#include "convert/model/model.h"

/* Where the second trace's parts went in the first (valid after the call
 * until tp_append_map_free). */
typedef struct tp_append_map {
    tp_str *str;          /* u's string id -> t's */
    uint32_t *process;    /* u's process index -> t's */
    uint32_t *track;      /* u's track index -> t's */
    uint32_t first_event; /* u's event i is t's event first_event + i */
    uint64_t args_shift;  /* added to u's arena handles (tp_args_append) */
} tp_append_map;

/* What a metadata event of the second part set, per process or track. */
enum { TP_APPEND_SET_NAME = 1, TP_APPEND_SET_LABEL = 2 };

typedef struct tp_append_how {
    /* Metadata.  merge_meta false: u's processes and tracks are new to t
     * (XPlane: planes whose pids the first part does not have), and every
     * field of them is copied.  merge_meta true: they may be t's own, and u
     * overrides what its metadata events set, as the later event does in one
     * pass (Chrome): a process's name or label where process_set[i] has the
     * bit (missing entries: none), a track's name where track_set[i] has
     * TP_APPEND_SET_NAME or t's track has none, sort indexes that u has. */
    bool merge_meta;
    const uint8_t *process_set;
    size_t nprocess_set;
    const uint8_t *track_set;
    size_t ntrack_set;
    /* Called once the strings are mapped (m->str only), before anything else
     * changes in t; false stops there: tp_trace_append returns false (the
     * strings interned stay, harmless).  May be NULL. */
    bool (*strings_mapped)(void *ctx, const tp_append_map *m);
    /* Called after the events are appended and before u's warnings and
     * counters are added (what the reader counts there comes first, as it
     * does now in the Chrome halves).  May be NULL. */
    void (*events_appended)(void *ctx, const tp_append_map *m);
    void *ctx;
} tp_append_how;

/* Append u to t.  u's events are either in an array of u's own (copied into
 * t's, and u's array freed) or already in t's array just after t's events (a
 * slice t handed to the second reader: remapped where they are).  Event
 * indexes in them (link, op) are shifted; external args handles keep their
 * meaning, arena handles move by m->args_shift.  u keeps its strings, args
 * and tables (the caller may read them, e.g. through the map) until it is
 * freed.  Returns false only when how->strings_mapped did; m is filled
 * either way and released by tp_append_map_free. */
bool tp_trace_append(tp_trace *t, tp_trace *u, const tp_append_how *how, tp_append_map *m);
void tp_append_map_free(tp_append_map *m);

#endif
