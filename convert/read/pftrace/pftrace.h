/* pftrace.h: the Perfetto protobuf trace reader's shared state
 * (docs/formats/pftrace.md says what is read and where it goes).
 *   pftrace_read.c    the format row, the Trace's packets, packet sequences
 *                     (interned data, defaults, incremental clocks), clock
 *                     snapshots, compressed_packets (zlib, bounded);
 *   pftrace_event.c   TrackEvent and its debug annotations into the model;
 *   pftrace_tracks.c  track descriptors into processes and tracks, slice
 *                     begin/end matching, flows.
 * Field numbers: Perfetto's protos/perfetto/trace/ (trace_packet.proto,
 * track_event/ protos, interned_data/, clock_snapshot.proto), checked there;
 * the writer's subset is convert/write/pftrace_fields.h. */
#ifndef TP_PFTRACE_READ_H
#define TP_PFTRACE_READ_H

#include "convert/base/i64map.h"
#include "convert/codec/pbwire.h"
#include "convert/read/formats.h"

#define PF_MAX_BYTES ((uint64_t)16 << 30) /* the file is read whole (after gzip), up to this */
#define PF_MAX_NESTING 4                  /* compressed_packets inside compressed_packets, at most */
#define PF_MAX_PARENTS 64                 /* a track's parent chain is followed this far */
#define PF_INFLATE_FLOOR ((uint64_t)64 << 20) /* compressed_packets may always expand this much */

/* Problems of the file (not of what it holds that this reader does not
 * read): counted, and errors with --strict (pftrace_read.c). */
#define PF_W_IID "pftrace: interned ids their sequence does not define (shown as [iid N])"
#define PF_W_STATE "pftrace: packets needing incremental state their sequence never set (skipped)"
#define PF_W_ORPHAN_END "pftrace: slice ends without a begin on their track (not read)"
#define PF_W_SEQ_CLOCK "pftrace: times on a sequence clock no snapshot defined (events dropped)"
#define PF_W_NO_NAME "pftrace: track events without a name"

/* pf_ctx.cat_kind beyond 1 + tp_kind: Kineto's MTIA categories, whose
 * device events are told apart by name and whose runtime calls on a device
 * (its "Submission Queue" tracks) are syncs, as the Chrome reader has them. */
enum { PF_CAT_MTIA_DEVICE = 0x40, PF_CAT_MTIA_RUNTIME = 0x41 };

/* Interned data kinds (InternedData fields), the low bits of a key. */
enum { PF_I_CAT = 0, PF_I_NAME = 1, PF_I_ANN = 2, PF_I_VAL = 3 };

/* A clock of one sequence (ids 64..127) or of the trace (the rest). */
typedef struct pf_clock {
    uint32_t id;
    bool incremental;
    int64_t last;      /* incremental: the clock's last value (its own units) */
    int64_t mult;      /* ns per unit */
    int64_t offset;    /* trace-clock ns = value * mult + offset */
} pf_clock;

/* What a packet sequence carries from packet to packet. */
typedef struct pf_seq {
    uint32_t id;
    bool valid;            /* SEQ_INCREMENTAL_STATE_CLEARED seen */
    uint64_t gen;          /* clears so far (delta counters restart at 0) */
    tp_i64map interned;    /* iid << 2 | kind -> tp_str */
    uint32_t def_clock;    /* TracePacketDefaults.timestamp_clock_id, 0 none */
    bool has_def_track;
    uint64_t def_track;    /* TrackEventDefaults.track_uuid */
    bool has_thread;       /* a ThreadDescriptor packet named the sequence's thread */
    uint32_t thread_slot;
    pf_clock *clocks;
    size_t nclocks, clocks_cap;
} pf_seq;

/* A track as the file describes it (by uuid), resolved into the model's
 * processes and tracks once the file is read. */
typedef struct pf_slot {
    uint64_t uuid;
    uint64_t parent;
    bool has_parent, described, is_process, is_thread, is_counter;
    int64_t pid, tid;
    tp_str name;           /* TrackDescriptor.name, or the process / thread name */
    int64_t rank;          /* sibling_order_rank */
    bool has_rank;
    uint32_t track;        /* the model track (resolved), TP_NONE before */
    uint32_t process;      /* the model process (resolved) */
    bool global;           /* a root track that is no process: global instants */
    bool device;           /* a device's track: slices without a category are device activity */
    bool counter_delta;    /* CounterDescriptor.is_incremental: values are deltas on their sequence */
    int64_t counter_mult;  /* CounterDescriptor.unit_multiplier (0: 1) */
    double counter_last;   /* the last value (delta counters) */
    uint32_t counter_seq;  /* ... on this sequence, */
    uint64_t counter_gen;  /* ... since this clear of its state */
} pf_slot;

/* One slice end point, matched once the whole file is read (Perfetto sorts
 * by time before it matches too). */
typedef struct pf_mark {
    int64_t ts;
    uint32_t slot;
    uint32_t ev;           /* BEGIN: the event; END: TP_NONE */
    uint64_t order;        /* place in the file */
} pf_mark;

/* A flow id on an event. */
typedef struct pf_flow {
    uint64_t id;
    uint32_t ev;
    bool terminating;
} pf_flow;

typedef struct pf_ctx {
    tp_trace *t;
    const tp_read_opts *o;
    tp_err *err;
    const uint8_t *base;   /* the file's bytes (error offsets) */
    const char *map;       /* base when the file is mapped (pages read are handed back), else NULL */
    uint64_t unmapped;     /* pages before this offset were handed back */
    uint64_t at;           /* offset of the packet being read (of its outermost packet when inflated) */
    pf_seq *seqs;
    size_t nseqs, seqs_cap;
    tp_i64map seq_index;   /* trusted_packet_sequence_id -> seqs[] */
    pf_clock *clocks;      /* the trace's clocks (from snapshots) */
    size_t nclocks, clocks_cap;
    uint32_t trace_clock;  /* BOOTTIME (6) unless a snapshot names another */
    bool trace_clock_used; /* a time was placed on it: it cannot change (as Perfetto) */
    pf_slot *slots;
    size_t nslots, slots_cap;
    tp_i64map slot_of;     /* uuid -> slots[] */
    tp_i64map thread_slot; /* pid << 32 | tid -> slots[] (ThreadDescriptor packets) */
    pf_mark *marks;
    size_t nmarks, marks_cap;
    pf_flow *flows;
    size_t nflows, flows_cap;
    uint64_t order;
    uint64_t inflated, inflate_budget;
    tp_buf inflate_buf[PF_MAX_NESTING];
    uint8_t *cat_kind;     /* category (tp_str) -> 1 + its kind or PF_CAT_*, 0 not yet known */
    size_t cat_kind_cap;
    tp_argb ab;
    tp_buf scratch;
} pf_ctx;

/* pftrace_read.c */
pf_seq *pf_seq_of(pf_ctx *c, uint32_t id);
/* ts (on clock `clock`, 0: the sequence's default or the trace clock) in
 * trace-clock ns; false (counted) when it cannot be placed. */
bool pf_time(pf_ctx *c, pf_seq *s, uint32_t clock, uint64_t raw, int64_t *ts);

/* pftrace_event.c */
int pf_interned(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f);
tp_str pf_lookup(pf_ctx *c, pf_seq *s, int kind, uint64_t iid);
int pf_track_event(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f, bool has_ts, int64_t ts);

/* pftrace_tracks.c */
uint32_t pf_slot_get(pf_ctx *c, uint64_t uuid);
uint32_t pf_thread_slot(pf_ctx *c, int64_t pid, int64_t tid, const uint8_t *name, size_t nlen);
int pf_track_descriptor(pf_ctx *c, const tp_pb *pk, const tp_pb_field *f);
int pf_thread_packet(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f);
int pf_process_packet(pf_ctx *c, const tp_pb *pk, const tp_pb_field *f);
/* Tracks into the model, slices matched, flows bound; after the last packet. */
void pf_finish(pf_ctx *c);

#endif
