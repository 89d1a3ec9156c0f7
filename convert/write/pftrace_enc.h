/* pftrace_enc.h: the .pftrace writer's encoder state, shared by the
 * encoder (pftrace_encode.c: interning, packets, descriptors, counters,
 * track events) and the writer that plans chunks and runs them on threads
 * (pftrace_write.c).  Private to convert/write/. */
#ifndef TP_PFTRACE_ENC_H
#define TP_PFTRACE_ENC_H

#include "convert/write/pftrace_write.h"
#include "convert/write/pftrace_fields.h"
#include "convert/write/pftrace_flows.h"
#include "convert/base/strset.h"
#include "convert/base/i64map.h"
#include "convert/model/tracks.h"

#define MAIN_SEQ 1

/* Interned strings of one kind on one sequence: string id (a tp_str, or an
 * id in the encoder's own strset) -> iid (0 = not yet), the ones first used
 * by the packet being written, and all handed out (to clear the table when
 * a new sequence starts). */
typedef struct interner {
    uint32_t *iid;
    size_t cap;
    uint32_t next;
    uint32_t *pending;
    size_t npending, pending_cap;
    uint32_t *used;
    size_t nused, used_cap;
} interner;

/* How often an annotation's string values repeat (indexed by its name iid):
 * values of a name whose values are mostly new are no longer interned. */
typedef struct value_stats {
    uint32_t seen, fresh;
} value_stats;

struct pfw;

/* What encodes one packet sequence at a time: the main sequence (track
 * descriptors, counters, process and global instants, absolute times), or a
 * worker's chunks (slices of one track, times on the sequence's incremental
 * clock, the track as the sequence's default). */
typedef struct penc {
    /* each worker's encoder on cache lines of its own (they are in one array) */
    _Alignas(64) const struct pfw *w; /* read-only while chunks are encoded */
    tp_buf *b;             /* where the packets go */
    uint32_t seq;
    bool first;            /* the next packet is the sequence's first */
    bool incremental;      /* times are deltas on PF_CLOCK_SEQ */
    int64_t last;          /* the incremental clock: absolute time of the last packet */
    interner names, cats, anns, vals; /* names, cats: tp_str ids; anns, vals: ids in `own` */
    tp_strset own;         /* annotation names and string values: the trace's pools do not grow while writing */
    uint32_t *str_own;     /* tp_str -> id in `own` (0 unknown; OWN_NOT_VALUE: not a valid UTF-8 value) */
    size_t str_own_cap;
    value_stats *vstats;
    size_t vstats_cap;
    uint64_t vbytes;       /* bytes of string values interned on this sequence */
    void *cursor;          /* for tp_args_visit */
    tp_buf scratch;
    uint32_t *stack;
    size_t scap;
    uint64_t packets, slices, instants, clipped, bad_utf8, invalid_args;
} penc;

/* Counter series, numbered in the order first met: (process, name) -> index. */
typedef struct counter_map {
    tp_i64map index;   /* process << 32 | name id (in pfw.series) -> counter index */
    size_t n;
    uint32_t *process; /* per counter: process index */
    uint32_t *name;    /* per counter: track name (id in pfw.series) */
    size_t list_cap;
    /* every counter event's values, parsed once by the survey (which numbers
     * the series) and written from here, in the same order, by the write */
    struct counter_value {
        uint32_t counter;
        double v;
    } *val;
    size_t nval, val_cap, next_val;
    struct counter_planned {
        uint32_t nval;    /* its values in val[] */
        bool invalid;     /* its args did not parse (after nval values) */
    } *ev;
    size_t nev, ev_cap, next_ev;
} counter_map;

typedef struct pfw {
    tp_trace *t;
    tp_out *o;
    tp_pftrace_stats *st;
    const tp_track_index *ix;
    penc main;             /* MAIN_SEQ, written straight into the output */
    counter_map cm;
    tp_strset series;      /* counter track names */
    tp_buf key;
    int64_t shift;         /* added to base_ns + ts so no timestamp is negative */
    uint64_t *puuid;       /* process index -> track uuid */
    uint64_t *tuuid;       /* track index -> track uuid (0: not written) */
    uint64_t counter_base; /* uuid of counter 0 */
    uint64_t global_uuid;  /* track of global instants */
    tp_pf_flows flows;
    /* the counter event being planned (callback context) */
    uint32_t cur_process;
    tp_str cur_name;
} pfw;

static inline int64_t abs_ts(const pfw *w, int64_t ts) { return w->t->base_ns + ts + w->shift; }

/* Does the open slice s still enclose an event starting at e? (the rule of
 * tp_nest_repair: a zero-length slice encloses zero-length ones at its time) */
static inline bool still_open(const tp_event *s, const tp_event *e)
{
    return s->ts + s->dur > e->ts || (s->dur == 0 && e->dur == 0 && s->ts == e->ts);
}

static inline bool thread_item(const tp_event *e)
{
    return e->ph == 'X' || (e->ph == 'i' && !(e->flags & (TP_EV_INSTANT_GLOBAL | TP_EV_INSTANT_PROCESS)));
}

/* pftrace_encode.c: what the writer calls per sequence, chunk or track (the
 * per-event work stays inside the encoder, where it can be inlined). */
void pf_penc_init(penc *e, const pfw *w, tp_buf *b, bool cursor);
void pf_penc_free(penc *e);
void pf_sequence_begin(penc *e, uint32_t seq, uint64_t track, int64_t t0);
void pf_put_event(penc *e, uint32_t i, int type, int64_t ts, uint64_t track);
void pf_write_chunk(penc *e, const uint32_t *ev, size_t n);
void pf_put_process_desc(pfw *w, uint32_t p, int rank);
void pf_put_track_desc(pfw *w, uint32_t k, int rank);
void pf_put_named_desc(pfw *w, uint64_t uuid, uint64_t parent, const char *name, size_t nlen, bool counter, int rank);
void pf_counter_plan(pfw *w, const tp_event *e);
void pf_counter_write(pfw *w, const tp_event *e);

#endif
