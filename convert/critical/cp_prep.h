/* cp_prep.h: what every window's graph shares, computed once per trace
 * (critical.h): the candidates sorted by time, the streams' queue lengths
 * and the synchronisation matches.  Private to convert/critical/. */
#ifndef TP_CP_PREP_H
#define TP_CP_PREP_H

#include "convert/critical/critical.h"

typedef struct cp_prep {
    const tp_trace *t;
    uint32_t *logical;  /* track -> the track it was split off from (overlap rows folded) */
    uint32_t *host;     /* host candidates (ops, runtime calls, data loading), by (ts, index) */
    size_t nhost;
    uint32_t *dev;      /* device activity and sync events with a launch call, by (launch ts, index) */
    size_t ndev;
    int32_t *q_run;     /* per dev position: the stream's queue length just after the launch */
    int32_t *q_dev;     /* per dev position: the stream's queue length just after the activity started */
    uint32_t *wait_src; /* per dev position: the device event a cudaStreamWaitEvent makes this one wait for */
    uint32_t *sync_src; /* per dev position (Event Sync): the device event its host call waits for */
    uint32_t *ev2local; /* event -> its place in the current window + 1, 0: none (cp_local); calloc'ed: no pass
                         * over the trace's events to fill it */
    uint32_t *last_of;  /* track -> last node on the stream in the current window (work), TP_NONE */
    uint8_t *name_bits; /* name id -> CPN_* bits, for the names of the candidates: each name's strstr once a
                         * trace, not once a window (the lanes only read it) */
    uint8_t *has_sync;  /* event -> 1: a runtime call some sync device event links to (cudaStreamSynchronize
                         * with its "Stream Sync"); a cudaDeviceSynchronize / cudaStreamSynchronize without
                         * one (traces before PyTorch 2.1 record none) waits for every stream */
    tp_str lock[3];     /* cudaLaunchKernel, cudaMemcpyAsync, cudaHostAlloc */
    tp_str blocking[6];
    tp_str stream_sync, context_sync, event_sync;
    uint64_t matched_waits, matched_event_syncs; /* sync dependencies found (for the notes) */
    bool keep_links;    /* the paths' links kept (tp_critical_begin) */
} cp_prep;

/* The event's place in the current window, TP_NONE: not in it. */
static inline uint32_t cp_local(const cp_prep *p, uint32_t ev)
{
    return p->ev2local[ev] - 1u; /* 0 - 1: TP_NONE */
}

/* What a name is (cp_prep.name_bits); CPN_KNOWN: the bits were worked out. */
enum { CPN_KNOWN = 1, CPN_DATA_LOADING = 2, CPN_COMM = 4, CPN_LOCK = 8, CPN_BLOCKING = 16, CPN_DEVICE_WAIT = 32 };

enum { CP_ITEM_ACTIVITY = 0, CP_ITEM_STREAM_SYNC, CP_ITEM_CONTEXT_SYNC, CP_ITEM_EVENT_SYNC, CP_ITEM_OTHER };

void cp_prep_build(const tp_trace *t, const uint32_t *logical, cp_prep *p);
void cp_prep_free(cp_prep *p);
bool cp_is_activity(const tp_event *e);
/* which of CP_ITEM_* dev event e is */
int cp_item_kind(const cp_prep *p, const tp_event *e);
/* e a candidate (its name's bits known) */
bool cp_is_data_loading(const cp_prep *p, const tp_event *e);
/* the CPN_* bits of a candidate's name */
static inline uint8_t cp_name_bits(const cp_prep *p, tp_str name)
{
    return name < p->t->nstr ? p->name_bits[name] : CPN_KNOWN;
}

/* One window's path (cp_graph.c). */
void cp_path_window(cp_prep *p, const tp_cp_window *w, tp_cp_path *out);
/* The candidates a window's graph would take (binary searches only). */
size_t cp_window_size(const cp_prep *p, const tp_cp_window *w);
/* A window past the work budget (critical.c): no path, counted as skipped. */
void cp_path_skipped(const tp_cp_window *w, tp_cp_path *out);

#endif
