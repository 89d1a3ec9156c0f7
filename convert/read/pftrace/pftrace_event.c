/* pftrace_event.c: a packet's interned data and its TrackEvent into the
 * model.  A slice begin is an 'X' event whose end is matched later
 * (pftrace_tracks.c), an instant an 'i' event, a counter value a 'C' event
 * named by its track (after the read); names and categories inline or
 * interned, debug annotations as args (the "correlation" one also as the
 * event's correlation id, as the Chrome reader takes Kineto's arg), flow ids
 * kept for pf_finish.  Field numbers: track_event.proto, debug_annotation.proto,
 * interned_data.proto. */
#include "convert/read/pftrace/pftrace.h"
#include "convert/codec/json_lex.h"
#include "convert/read/vendor_names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TrackEvent fields */
enum {
    TE_DELTA_US = 1,
    TE_CATEGORY_IIDS = 3,
    TE_ANNOTATIONS = 4,
    TE_LEGACY = 6,
    TE_TYPE = 9,
    TE_NAME_IID = 10,
    TE_TRACK = 11,
    TE_EXTRA_VALUES = 12,
    TE_ABSOLUTE_US = 16,
    TE_CATEGORIES = 22,
    TE_NAME = 23,
    TE_COUNTER = 30,
    TE_EXTRA_TRACKS = 31,
    TE_FLOWS_OLD = 36,
    TE_DOUBLE_COUNTER = 44,
    TE_FLOWS = 47,
    TE_TERMINATING = 48,
    T_BEGIN = 1,
    T_END = 2,
    T_INSTANT = 3,
    T_COUNTER = 4,
};

/* DebugAnnotation fields */
enum {
    DA_NAME_IID = 1,
    DA_BOOL = 2,
    DA_UINT = 3,
    DA_INT = 4,
    DA_DOUBLE = 5,
    DA_STRING = 6,
    DA_POINTER = 7,
    DA_NESTED = 8,
    DA_LEGACY_JSON = 9,
    DA_NAME = 10,
    DA_DICT = 11,
    DA_ARRAY = 12,
    DA_STRING_IID = 17,
};

/* ---- interned data ---- */

static int64_t ikey(int kind, uint64_t iid) { return (int64_t)((iid << 2) | (uint64_t)kind); }

/* InternedData: event_categories 1, event_names 2, debug_annotation_names 3
 * ({iid 1, name 2} each), debug_annotation_string_values 29 ({iid 1, str 2}). */
int pf_interned(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f)
{
    tp_pb r = tp_pb_sub(pk, f);
    tp_pb_field g, h;
    int k;
    while ((k = tp_pb_next_fast(&r, &g, c->err)) == 1) {
        int kind = g.num == 1 ? PF_I_CAT : g.num == 2 ? PF_I_NAME : g.num == 3 ? PF_I_ANN : g.num == 29 ? PF_I_VAL : -1;
        if (kind < 0 || g.wt != TP_PB_LEN)
            continue;
        uint64_t iid = 0;
        const uint8_t *str = NULL;
        size_t len = 0;
        tp_pb q = tp_pb_sub(&r, &g);
        while ((k = tp_pb_next(&q, &h, c->err)) == 1) {
            if (h.num == 1 && h.wt == TP_PB_VARINT)
                iid = h.v;
            else if (h.num == 2 && h.wt == TP_PB_LEN) {
                str = h.data;
                len = h.len;
            }
        }
        if (k < 0)
            return -1;
        if (!iid) /* 0 is "no iid" */
            continue;
        tp_i64map_init(&s->interned, 4); /* a sequence's table costs what it holds (docs/ERRORS.md) */
        tp_i64map_put(&s->interned, ikey(kind, iid), tp_intern(c->t, str ? (const char *)str : "", len));
    }
    return k < 0 ? -1 : 0;
}

tp_str pf_lookup(pf_ctx *c, pf_seq *s, int kind, uint64_t iid)
{
    uint32_t v = tp_i64map_get(&s->interned, ikey(kind, iid));
    if (v != TP_I64MAP_EMPTY)
        return v;
    static const char *const what[4] = {"category", "name", "annotation name", "string value"};
    tp_warn(c->t, PF_W_IID, 1);
    char b[64];
    int n = snprintf(b, sizeof b, "[%s iid %llu]", what[kind], (unsigned long long)iid);
    return tp_intern(c->t, b, (size_t)n);
}

/* ---- debug annotations ---- */

/* The shortest text that reads back as the same double, with a fraction or
 * an exponent (a double arg stays one when written as JSON). */
static void put_double(tp_argb *ab, const char *key, double d)
{
    if (!isfinite(d)) {
        tp_argb_cstr(ab, key, isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (strtod(b, NULL) == d)
            break;
    }
    if (!strpbrk(b, ".eE"))
        strcat(b, ".0");
    tp_argb_raw(ab, key, b, strlen(b));
}

typedef struct ann_out {
    bool has_corr;
    int64_t corr;
    uint64_t nested; /* values not read (nested, dictionaries, arrays, protos) */
} ann_out;

/* One DebugAnnotation: into the args (when keep), its correlation id into out. */
static int annotation(pf_ctx *c, pf_seq *s, const tp_pb *te, const tp_pb_field *f, bool keep, ann_out *out)
{
    tp_pb r = tp_pb_sub(te, f);
    tp_pb_field g;
    int k;
    tp_str name = 0;
    bool named = false;
    tp_pb_field val = {0};
    bool has_val = false;
    while ((k = tp_pb_next_fast(&r, &g, c->err)) == 1) {
        if (g.num == DA_NAME_IID && g.wt == TP_PB_VARINT) {
            name = pf_lookup(c, s, PF_I_ANN, g.v);
            named = true;
        } else if (g.num == DA_NAME && g.wt == TP_PB_LEN) {
            name = tp_intern(c->t, (const char *)g.data, g.len);
            named = true;
        } else if (g.num != DA_NAME_IID && g.num != DA_NAME) {
            val = g;
            has_val = true;
        }
    }
    if (k < 0)
        return -1;
    if (!named || !has_val) {
        out->nested += !has_val;
        return 0;
    }
    const char *key = tp_str_get(c->t, name);
    bool is_corr = strcmp(key, "correlation") == 0 || strcmp(key, "correlationId") == 0;
    switch (val.num) {
    case DA_BOOL:
        if (keep)
            tp_argb_bool(&c->ab, key, val.v != 0);
        break;
    case DA_UINT:
        if (is_corr && val.v <= (uint64_t)INT64_MAX) {
            out->has_corr = true;
            out->corr = (int64_t)val.v;
        }
        if (keep)
            tp_argb_uint(&c->ab, key, val.v);
        break;
    case DA_INT:
        if (is_corr) {
            out->has_corr = true;
            out->corr = (int64_t)val.v;
        }
        if (keep)
            tp_argb_int(&c->ab, key, (int64_t)val.v);
        break;
    case DA_DOUBLE:
        if (keep && val.wt == TP_PB_I64)
            put_double(&c->ab, key, tp_pb_double(val.v));
        break;
    case DA_STRING:
        if (keep && val.wt == TP_PB_LEN)
            tp_argb_str(&c->ab, key, (const char *)val.data, val.len);
        break;
    case DA_STRING_IID:
        if (keep) {
            tp_str v = pf_lookup(c, s, PF_I_VAL, val.v);
            key = tp_str_get(c->t, name); /* (the lookup may have grown the string pool) */
            tp_argb_str(&c->ab, key, tp_str_get(c->t, v), tp_str_len(c->t, v));
        }
        break;
    case DA_POINTER:
        if (keep) {
            char b[32];
            int n = snprintf(b, sizeof b, "0x%llx", (unsigned long long)val.v);
            tp_argb_str(&c->ab, key, b, (size_t)n);
        }
        break;
    case DA_LEGACY_JSON:
        if (keep && val.wt == TP_PB_LEN) {
            /* kept as JSON only when it is one whole JSON value */
            const char *p = (const char *)val.data, *end = p + val.len, *next, *why;
            const char *q = tp_json_ws(p, end);
            bool whole = q < end && tp_json_skip(q, end, &next, &why) == TP_JL_OK && tp_json_ws(next, end) == end;
            if (whole)
                tp_argb_raw(&c->ab, key, p, val.len);
            else
                tp_argb_str(&c->ab, key, p, val.len);
        }
        break;
    default: /* nested_value, dictionary_entries, array_values, proto values */
        out->nested++;
        break;
    }
    return 0;
}

/* ---- track events ---- */

/* Kineto's categories (tp_kind_from_cat, as for JSON), then those of
 * rocprofv3's Perfetto output (rocprofiler-sdk's cxx/perfetto.hpp:
 * kernel_dispatch, memory_copy, hip_api, hsa_api, rccl_api, marker_api). */
static uint8_t kind_of_cat(const char *cat, size_t n)
{
    tp_kind k = tp_kind_from_cat(cat, n);
    if (k != TP_KIND_OTHER)
        return (uint8_t)k;
    static const struct {
        const char *cat;
        tp_kind kind;
    } rocprof[] = {
        {"kernel_dispatch", TP_KIND_KERNEL}, {"memory_copy", TP_KIND_MEMCPY}, {"hip_api", TP_KIND_RUNTIME},
        {"hsa_api", TP_KIND_RUNTIME},        {"rccl_api", TP_KIND_RUNTIME},   {"marker_api", TP_KIND_ANNOTATION},
    };
    for (size_t i = 0; i < sizeof rocprof / sizeof rocprof[0]; i++)
        if (strlen(rocprof[i].cat) == n && memcmp(rocprof[i].cat, cat, n) == 0)
            return (uint8_t)rocprof[i].kind;
    return TP_KIND_OTHER;
}

/* A category's class: 1 + its kind, or PF_CAT_MTIA_* (Kineto's MTIA
 * categories, as the Chrome reader reads them: chrome_cats.c). */
static uint8_t cat_class(const char *cat, size_t n)
{
    if (n == strlen(TP_MTIA_DEVICE_CAT) && memcmp(cat, TP_MTIA_DEVICE_CAT, n) == 0)
        return PF_CAT_MTIA_DEVICE;
    if (n == strlen(TP_MTIA_RUNTIME_CAT) && memcmp(cat, TP_MTIA_RUNTIME_CAT, n) == 0)
        return PF_CAT_MTIA_RUNTIME;
    return (uint8_t)(1 + kind_of_cat(cat, n));
}

static void push_flow(pf_ctx *c, uint64_t id, uint32_t ev, bool terminating)
{
    TP_GROW(c->flows, c->flows_cap, c->nflows + 1);
    c->flows[c->nflows++] = (pf_flow){id, ev, terminating};
}

/* flow ids of an event: fixed64 one by one or packed (either encoding) */
static int flow_ids(pf_ctx *c, const tp_pb *te, const tp_pb_field *g, uint32_t ev, bool terminating)
{
    if (g->wt == TP_PB_I64 || g->wt == TP_PB_VARINT) {
        push_flow(c, g->v, ev, terminating);
        return 0;
    }
    if (g->wt != TP_PB_LEN)
        return 0;
    if (g->num == TE_FLOWS_OLD) {
        tp_pb q = tp_pb_sub(te, g);
        uint64_t v;
        int k;
        while ((k = tp_pb_varint(&q, &v, c->err)) == 1)
            push_flow(c, v, ev, terminating);
        return k < 0 ? -1 : 0;
    }
    if (g->len % 8)
        return tp_fail(c->err, c->at, "packed flow ids not a whole number of 8-byte values");
    for (size_t i = 0; i < g->len; i += 8) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | g->data[i + (size_t)b];
        push_flow(c, v, ev, terminating);
    }
    return 0;
}

static uint32_t event_slot(pf_ctx *c, pf_seq *s, bool has_track, uint64_t track)
{
    if (has_track)
        return pf_slot_get(c, track);
    if (s->has_def_track)
        return pf_slot_get(c, s->def_track);
    if (s->has_thread)
        return s->thread_slot;
    return TP_NONE;
}

int pf_track_event(pf_ctx *c, pf_seq *s, const tp_pb *pk, const tp_pb_field *f, bool has_ts, int64_t ts)
{
    tp_trace *t = c->t;
    tp_pb r = tp_pb_sub(pk, f);
    tp_pb_field g;
    int k;
    uint64_t type = 0, track = 0;
    bool has_track = false, has_name = false, has_value = false, legacy = false, extra = false;
    tp_str name = 0, cat = 0;
    int ncats = 0;
    double value = 0;
    bool abs_ok = false;
    int64_t abs_us = 0;
    c->scratch.len = 0; /* the categories, comma-joined as the Chrome format joins them */
    while ((k = tp_pb_next_fast(&r, &g, c->err)) == 1) {
        switch (g.num) {
        case TE_TYPE:
            type = g.v;
            break;
        case TE_TRACK:
            if (g.wt == TP_PB_VARINT) {
                track = g.v;
                has_track = true;
            }
            break;
        case TE_NAME_IID:
            if (g.wt == TP_PB_VARINT) {
                name = pf_lookup(c, s, PF_I_NAME, g.v);
                has_name = true;
            }
            break;
        case TE_NAME:
            if (g.wt == TP_PB_LEN) {
                name = tp_intern(t, (const char *)g.data, g.len);
                has_name = true;
            }
            break;
        case TE_CATEGORY_IIDS:
        case TE_CATEGORIES: {
            tp_str one;
            if (g.num == TE_CATEGORIES && g.wt == TP_PB_LEN)
                one = tp_intern(t, (const char *)g.data, g.len);
            else if (g.wt == TP_PB_VARINT)
                one = pf_lookup(c, s, PF_I_CAT, g.v);
            else if (g.wt == TP_PB_LEN) { /* packed iids: the first names the category */
                tp_pb q = tp_pb_sub(&r, &g);
                uint64_t v;
                int kk;
                while ((kk = tp_pb_varint(&q, &v, c->err)) == 1) {
                    one = pf_lookup(c, s, PF_I_CAT, v);
                    if (ncats++)
                        tp_buf_putc(&c->scratch, ',');
                    tp_buf_put(&c->scratch, tp_str_get(t, one), tp_str_len(t, one));
                }
                if (kk < 0)
                    return -1;
                break;
            } else
                break;
            if (ncats++)
                tp_buf_putc(&c->scratch, ',');
            tp_buf_put(&c->scratch, tp_str_get(t, one), tp_str_len(t, one));
            break;
        }
        case TE_COUNTER:
            if (g.wt == TP_PB_VARINT) {
                value = (double)(int64_t)g.v;
                has_value = true;
            }
            break;
        case TE_DOUBLE_COUNTER:
            if (g.wt == TP_PB_I64) {
                value = tp_pb_double(g.v);
                has_value = true;
            }
            break;
        case TE_ABSOLUTE_US:
            if (g.wt == TP_PB_VARINT) {
                abs_us = (int64_t)g.v;
                abs_ok = true;
            }
            break;
        case TE_LEGACY:
            legacy = true;
            break;
        case TE_EXTRA_TRACKS:
        case TE_EXTRA_VALUES:
        case 45:
        case 46:
            extra = true;
            break;
        default:
            break;
        }
    }
    if (k < 0)
        return -1;
    if (ncats)
        cat = tp_intern(t, c->scratch.data, c->scratch.len);
    if (extra)
        tp_warn(t, "pftrace: extra counter values on track events (not read)", 1);
    if (type < T_BEGIN || type > T_COUNTER) {
        tp_warn(t, legacy ? "pftrace: legacy (Chrome JSON-style) track events (not read)"
                          : "pftrace: track events of no known type (not read)", 1);
        return 0;
    }
    t->events_in += type != T_END; /* a slice is one event, as a Chrome 'X' */
    if (!has_ts) {
        if (!abs_ok || abs_us < TP_TS_MIN / 1000 || abs_us >= TP_TS_MAX / 1000) {
            tp_drop_count(t, "pftrace: track events without a time (dropped)", 1);
            return 0;
        }
        ts = abs_us * 1000;
    }
    uint32_t slot = event_slot(c, s, has_track, track);
    if (slot == TP_NONE) {
        tp_drop_count(t, "pftrace: track events without a track (dropped)", 1);
        return 0;
    }
    if (type == T_END) {
        TP_GROW(c->marks, c->marks_cap, c->nmarks + 1);
        c->marks[c->nmarks++] = (pf_mark){ts, slot, TP_NONE, c->order++};
        return 0;
    }
    if (type == T_COUNTER && !has_value) {
        tp_drop_count(t, "pftrace: counter events without a value (dropped)", 1);
        return 0;
    }
    if (type == T_COUNTER) { /* CounterDescriptor: deltas on this sequence, a unit multiplier */
        pf_slot *cs = &c->slots[slot];
        if (cs->counter_delta) {
            if (cs->counter_seq != s->id || cs->counter_gen != s->gen)
                cs->counter_last = 0;
            value += cs->counter_last;
            cs->counter_last = value;
            cs->counter_seq = s->id;
            cs->counter_gen = s->gen;
        }
        if (cs->counter_mult && cs->counter_mult != 1)
            value *= (double)cs->counter_mult;
    }
    tp_event e;
    tp_event_init(&e);
    e.ts = ts;
    e.track = slot; /* a slot until pf_finish makes it a track */
    e.name = name;
    e.cat = cat;
    e.ph = type == T_BEGIN ? 'X' : type == T_INSTANT ? 'i' : 'C';
    if (type != T_COUNTER && !has_name)
        tp_warn(t, PF_W_NO_NAME, 1);
    if (cat >= c->cat_kind_cap) { /* the kind of each category, found once */
        size_t old = c->cat_kind_cap;
        TP_GROW(c->cat_kind, c->cat_kind_cap, (size_t)cat + 1);
        memset(c->cat_kind + old, 0, c->cat_kind_cap - old);
    }
    if (cat && !c->cat_kind[cat])
        c->cat_kind[cat] = cat_class(tp_str_get(t, cat), tp_str_len(t, cat));
    uint8_t cls = cat ? c->cat_kind[cat] : 1 + TP_KIND_OTHER;
    if (cls == PF_CAT_MTIA_DEVICE) /* Kineto's MTIA device events: told apart by name */
        e.kind = tp_vendor_mtia_device_kind(tp_str_get(t, name));
    else
        e.kind = cls == PF_CAT_MTIA_RUNTIME ? TP_KIND_RUNTIME : (uint8_t)(cls - 1);
    uint32_t idx = (uint32_t)t->nevents;
    /* the annotations, and the flows, in a second walk (the name is known now) */
    bool keep = t->keep_args || (c->o->keep_args_of && name &&
                                 c->o->keep_args_of(tp_str_get(t, name), tp_str_len(t, name)));
    ann_out ao = {0};
    tp_argb_reset(&c->ab);
    r = tp_pb_sub(pk, f);
    while ((k = tp_pb_next_fast(&r, &g, c->err)) == 1) {
        int rc = 0;
        if (g.num == TE_ANNOTATIONS && g.wt == TP_PB_LEN && type != T_COUNTER)
            rc = annotation(c, s, &r, &g, keep, &ao);
        else if ((g.num == TE_FLOWS || g.num == TE_FLOWS_OLD || g.num == TE_TERMINATING) && type != T_COUNTER)
            rc = flow_ids(c, &r, &g, idx, g.num == TE_TERMINATING);
        if (rc < 0)
            return -1;
    }
    if (k < 0)
        return -1;
    if (ao.nested)
        tp_warn(t, "pftrace: debug annotations with nested, dictionary, array or proto values (not read)", ao.nested);
    if (ao.has_corr && ao.corr >= 0 && ao.corr <= UINT32_MAX) {
        e.corr = (uint32_t)ao.corr;
        e.flags |= TP_EV_HAS_CORR;
    }
    if (type == T_COUNTER) { /* named by its track once tracks are known: the value kept as args for now */
        tp_argb_reset(&c->ab);
        put_double(&c->ab, "value", value);
        e.args = tp_argb_commit(t, &c->ab);
    } else
        e.args = tp_argb_commit(t, &c->ab);
    tp_event_add(t, &e);
    if (type == T_BEGIN) {
        TP_GROW(c->marks, c->marks_cap, c->nmarks + 1);
        c->marks[c->nmarks++] = (pf_mark){ts, slot, idx, c->order++};
    }
    return 0;
}
