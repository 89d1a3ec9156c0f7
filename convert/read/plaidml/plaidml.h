/* plaidml.h: internals shared by the PlaidML event log reader's files
 * (plaidml_read.c: records and events, plaidml_meta.c: metadata Anys,
 * plaidml_emit.c: clocks, tracks and events into the model).
 * Spec: ../shared/specs/PLAIDML.md; notes: docs/formats/plaidml.md. */
#ifndef TP_PLAIDML_H
#define TP_PLAIDML_H

#include "convert/read/formats.h"
#include "convert/read/plaidml/plaidml_opts.h"
#include "convert/codec/pbwire.h"

enum { PML_HAS_START = 1, PML_HAS_END = 2, PML_ROOT = 4, PML_PLACED = 8 };

/* One activity: the merge of its start, metadata and end events. */
typedef struct pml_act {
    int64_t start, end; /* ns on its own clock (absolute after alignment) */
    uint32_t parent;    /* activity index, or TP_NONE */
    uint32_t kernel;    /* RunInfo: the BuildKernel activity, or TP_NONE */
    uint32_t kinfo;     /* KernelInfo: index into kinfos, or TP_NONE */
    uint32_t meta;      /* args from metadata: index into metas, or TP_NONE */
    uint32_t ev;        /* the model event made from it, or TP_NONE */
    tp_str verb;
    uint16_t clock, domain;
    uint8_t flags;
    uint8_t group;      /* emit: its track family (index into the family table) */
} pml_act;

/* What a KernelInfo says about one kernel. */
typedef struct pml_kinfo {
    tp_str kname, type;
    int64_t flops, bytes; /* -1 when absent */
} pml_kinfo;

/* Ids of both schemas reduce to a 16-byte key: a UUID (tag 1) or
 * (stream, index) (tag 2). */
typedef struct pml_key {
    uint64_t a, b;
    uint8_t tag;
} pml_key;

typedef struct pml_clock {
    pml_key key;
    bool host;          /* host epoch clock */
    bool has_end;
    int64_t end;        /* latest time seen on it (fallback end) */
    int64_t offset;     /* added to its times by alignment */
} pml_clock;

typedef struct pml_slot {
    pml_key key;
    uint32_t act;
} pml_slot;

typedef struct pml_state {
    tp_trace *t;
    const tp_read_opts *o;
    uint64_t record;    /* number of the record being decoded (from 1) */
    uint64_t first_warn_record; /* where the first lenient repair was, for --strict */
    char where[32];     /* "record N", formatted only for an error (pml_where) */

    pml_act *acts;
    size_t nacts, acts_cap;
    pml_slot *slots;    /* open addressing, act == TP_NONE is empty */
    size_t slots_cap, nslots;
    /* current schema: indexes are dense per stream, so small ones are looked
     * up directly (direct[stream][index], TP_NONE = not yet seen) */
    struct pml_direct { uint32_t *act; size_t cap; } *direct;
    size_t ndirect;

    pml_clock *clocks;  /* clocks[0] is the host clock of the current schema */
    size_t nclocks, clocks_cap;
    pml_key *domains;   /* domains[0] is "no domain given" */
    size_t ndomains, domains_cap;
    pml_key *streams;   /* stream UUIDs of the current schema; 0 = unnamed */
    size_t nstreams, streams_cap;
    uint32_t cur_stream;

    tp_argb *metas;
    size_t nmetas, metas_cap;
    pml_kinfo *kinfos;
    size_t nkinfos, kinfos_cap;
    struct pml_device { uint32_t act; tp_str name; } *devices; /* activities with a DeviceInfo */
    size_t ndevices, devices_cap;

    uint64_t legacy_ids, current_ids; /* which schema the ids used */
    struct pml_vcache { size_t len; uint64_t tail; tp_str id; } vcache[64]; /* verbs are few; id 0 = empty */
    struct pml_gcache { tp_str verb; int64_t group; } gcache[32]; /* device track family per verb */
    size_t ngcache;
} pml_state;

/* Ids: decode an Event id field (16-byte UUID or ActivityID).  *none set for
 * the root / invalid id.  `switch_stream`: a stream UUID here becomes the
 * current stream (activity_id), else it only names the stream used. */
int pml_key_of_any(pml_state *s, const tp_pb_field *f, bool switch_stream, pml_key *k, bool *none, tp_err *err);

/* An ActivityID or ClockID that is empty or holds only `1 index`, the usual
 * shape, decoded without the field loop; false for any other (a stream uuid,
 * other or repeated fields, a long varint, malformed bytes). */
static inline bool pml_plain_index(const tp_pb_field *f, uint64_t *index)
{
    const uint8_t *p = f->data, *end = p + f->len;
    *index = 0;
    return p == end || (*p++ == 0x08 && tp_pb_varint_short(&p, end, index) && p == end);
}

/* pml_key_of_any with the usual shape inline (the same key). */
static inline int pml_key_of(pml_state *s, const tp_pb_field *f, bool switch_stream, pml_key *k, bool *none,
                             tp_err *err)
{
    uint64_t index;
    if (f->wt == TP_PB_LEN && f->len != 16 && pml_plain_index(f, &index)) {
        s->current_ids++;
        *k = (pml_key){s->cur_stream, index, 2};
        *none = index == 0;
        return 0;
    }
    return pml_key_of_any(s, f, switch_stream, k, none, err);
}
uint32_t pml_act_get_any(pml_state *s, const pml_key *k);

/* The activity of a key, created on first sight: pml_act_get_any, with one
 * already in the direct table (most lookups) found inline. */
static inline uint32_t pml_act_get(pml_state *s, const pml_key *k)
{
    if (k->tag == 2 && k->a < s->ndirect && k->b < s->direct[k->a].cap && s->direct[k->a].act[k->b] != TP_NONE)
        return s->direct[k->a].act[k->b];
    return pml_act_get_any(s, k);
}

/* Decode one google.protobuf.Any attached to activity `act`. */
int pml_meta(pml_state *s, uint32_t act, const tp_pb *ev, const tp_pb_field *any, tp_err *err);
/* The metadata args builder of an activity (created on first use). */
tp_argb *pml_meta_args(pml_state *s, uint32_t act);

/* Align clocks, place activities on tracks and add the model events. */
int pml_emit(pml_state *s, tp_err *err);

/* Count a lenient repair made while decoding the current record. */
void pml_warn(pml_state *s, const char *what);

/* "record N" for error messages. */
const char *pml_where(pml_state *s);

/* A wire-decoding error (reported at a byte offset inside the record)
 * restated as "record N: bad WHAT: ...". */
int pml_fail_pb(pml_state *s, tp_err *err, const char *what);

/* Verbs the reader and the analyses know. */
#define PML_VERB_RUN "tile::hal::opencl::Kernel::Run"
bool pml_verb_is_executing(const char *verb);

#endif
