/* etdump_read.c: ExecuTorch ETDump -> trace model.
 *
 * One process ("ExecuTorch"), two threads: "Method" holds every profile
 * event of every RunData, runs laid one after another in recorded order
 * (a run that starts before the previous one ended is shifted after it), so
 * Method::execute encloses OPERATOR_CALL which encloses native_call_<op>,
 * and delegate events sit inside their DELEGATE_CALL; "Runs" has one span
 * per RunData, marked as a step (id = RunData index).  Debug events become instants at the end of their
 * instruction's profile event (they carry no time).  Allocation events are
 * skipped and counted (the Inspector cannot read them either).
 * Kinds: operator and delegate events KERNEL (the compute); OPERATOR_CALL
 * and DELEGATE_CALL HOST_OP (call + framework overhead, not counted twice);
 * reserved framework events ANNOTATION + TP_EV_FRAMEWORK.
 * With an ETRecord, kernels linked to graph nodes also feed the derivation
 * engine: "Framework Name Scope" (module paths) and "Framework Ops" (op
 * types) lines beside Method, one group per run (docs/formats/etdump.md). */
#include "convert/model/derive.h"
#include "convert/read/etdump/etdump.h"
#include "convert/read/etdump/etrecord.h"
#include "convert/read/etdump/etdump_opts.h"
#include "convert/read/formats.h"
#include "convert/codec/json_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_HEX_MAX 256 /* metadata bytes shown in args; the length is always given */
#define DEBUG_LOOKBACK 64 /* events searched back for a debug event's operator */
#define ALLOC_SKIPPED "etdump: allocation events skipped"
#define DELEGATE_OUTSIDE "etdump: delegate event outside its DELEGATE_CALL (delegate clock differs?)"

static const char *const dtype_names[] = {
    "byte", "char", "short", "int", "long", "half", "float", "double", "complex_half", "complex_float",
    "complex_double", "bool", "qint8", "quint8", "qint32", "bfloat16", "quint4x2", "quint2x4", "bits1x8", "bits2x4",
    "bits4x2", "bits8", "bits16", "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "uint16",
    "uint32", "uint64"};

static bool name_is(const tp_etdump *d, tp_ed_slice s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(tp_ed_text(d, s), lit, n) == 0;
}

static bool delegated(const tp_ed_event *e) { return e->delegate_int != -1 || e->delegate_str.len > 0; }

/* Inspector naming: delegated events are named after their delegate id. */
static tp_str event_name(tp_trace *t, const tp_etdump *d, const tp_ed_event *e)
{
    if (e->delegate_str.len)
        return tp_intern(t, tp_ed_text(d, e->delegate_str), e->delegate_str.len);
    if (e->delegate_int != -1) {
        char b[16];
        return tp_intern(t, b, (size_t)snprintf(b, sizeof b, "%d", e->delegate_int));
    }
    if (e->type == TP_ED_DEBUG && !e->has_name)
        return tp_intern_cstr(t, e->output ? "output" : "debug");
    return tp_intern(t, tp_ed_text(d, e->name), e->name.len);
}

static void put_tensor(tp_buf *b, const tp_ed_tensor *x)
{
    tp_buf_printf(b, "{\"dtype\":\"%s\",\"sizes\":[",
                  x->scalar_type < sizeof dtype_names / sizeof dtype_names[0] ? dtype_names[x->scalar_type] : "unknown");
    for (unsigned i = 0; i < x->ndim_kept; i++)
        tp_buf_printf(b, "%s%lld", i ? "," : "", (long long)x->sizes[i]);
    if (x->ndim > x->ndim_kept)
        tp_buf_puts(b, ",\"...\"");
    tp_buf_printf(b, "],\"ndim\":%u,\"offset\":%lld}", x->ndim, (long long)x->offset);
}

/* Debug value summary as a JSON object. */
static void put_value(tp_buf *b, const tp_etdump *d, const tp_ed_event *e)
{
    static const char *const types[] = {"null", "int", "bool", "float", "double", "tensor", "tensor_list", "string"};
    tp_buf_printf(b, "{\"type\":\"%s\"", e->val_type < 8 ? types[e->val_type] : "unknown");
    switch (e->val_type) {
    case TP_ED_VAL_INT:
        tp_buf_printf(b, ",\"value\":%lld", (long long)e->v.i);
        break;
    case TP_ED_VAL_BOOL:
        tp_buf_printf(b, ",\"value\":%s", e->v.i ? "true" : "false");
        break;
    case TP_ED_VAL_FLOAT:
    case TP_ED_VAL_DOUBLE:
        if (e->v.d != e->v.d || e->v.d - e->v.d != 0)
            tp_buf_puts(b, ",\"value\":null");
        else
            tp_buf_printf(b, ",\"value\":%.17g", e->v.d);
        break;
    case TP_ED_VAL_TENSOR_LIST:
        tp_buf_printf(b, ",\"count\":%u", e->list_len);
        __attribute__((fallthrough)); /* then the first tensor's summary */
    case TP_ED_VAL_TENSOR:
        if (e->v.tensor != UINT32_MAX) {
            tp_buf_puts(b, ",\"tensor\":");
            put_tensor(b, &d->tensors[e->v.tensor]);
        }
        break;
    default:
        break;
    }
    if (e->output)
        tp_buf_puts(b, ",\"output\":true");
    tp_buf_putc(b, '}');
}

/* The graph nodes of one profile event (ETRecord), looked up once for its
 * args and its derived-line annotation. */
typedef struct linked {
    const tp_etr_node *nodes[TP_ETR_MAX_NODES];
    size_t n;
    const char *backend; /* delegate backend of the instruction, or NULL */
} linked;

static void link_event(linked *l, const tp_etrecord *rec, const tp_etdump *d, const tp_ed_event *e)
{
    l->n = 0;
    l->backend = NULL;
    if (!rec || e->instruction_id < 0 || (e->has_name && tp_ed_is_framework(tp_ed_text(d, e->name), e->name.len)))
        return;
    char idb[16];
    const char *id = NULL;
    size_t idlen = 0;
    if (e->delegate_str.len) {
        id = tp_ed_text(d, e->delegate_str);
        idlen = e->delegate_str.len;
    } else if (e->delegate_int != -1) {
        idlen = (size_t)snprintf(idb, sizeof idb, "%d", e->delegate_int);
        id = idb;
    }
    l->n = tp_etrecord_nodes(rec, e->instruction_id, id, idlen, l->nodes, TP_ETR_MAX_NODES, &l->backend);
}

static void put_link_args(tp_argb *a, const linked *l)
{
    if (l->backend)
        tp_argb_cstr(a, "delegate_backend_name", l->backend);
    if (l->n == 0)
        return;
    tp_buf j = {0};
    tp_buf_putc(&j, '[');
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            tp_buf_putc(&j, ',');
        tp_json_put_string(&j, l->nodes[i]->target, strlen(l->nodes[i]->target), NULL);
    }
    tp_buf_putc(&j, ']');
    tp_argb_raw(a, "op_types", j.data, j.len);
    const tp_etr_node *mn = tp_etr_module_node(l->nodes, l->n);
    if (mn) {
        tp_argb_cstr(a, "module_hierarchy", mn->modules);
        tp_argb_cstr(a, "module", mn->module);
    }
    for (size_t i = 0; i < l->n; i++)
        if (l->nodes[i]->stack_trace) {
            tp_argb_cstr(a, "stack_trace", l->nodes[i]->stack_trace);
            break;
        }
    tp_buf_free(&j);
}

/* Decimal text of v (the hot path of args: no printf). */
static void put_int(tp_buf *b, int64_t v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    tp_buf_put(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* An integer member with a literal key, appended to the args builder
 * directly (tp_argb's fields are public: buf and member count). */
static void put_int_member(tp_argb *a, const char *key_lit, size_t key_len, int64_t v)
{
    tp_buf_putc(&a->buf, a->n++ ? ',' : '{');
    tp_buf_put(&a->buf, key_lit, key_len);
    put_int(&a->buf, v);
}
#define INT_MEMBER(a, key, v) put_int_member((a), "\"" key "\":", sizeof(key) + 2, (v))

static void put_common_args(tp_argb *a, const tp_etdump *d, const tp_ed_event *e, size_t run)
{
    INT_MEMBER(a, "run", (int64_t)run);
    INT_MEMBER(a, "instruction_id", e->instruction_id);
    INT_MEMBER(a, "chain_index", e->chain_index);
    if (e->delegate_int != -1)
        tp_argb_int(a, "delegate_debug_id_int", e->delegate_int);
    if (e->delegate_str.len)
        tp_argb_str(a, "delegate_debug_id_str", tp_ed_text(d, e->delegate_str), e->delegate_str.len);
    if (delegated(e) && e->has_name)
        tp_argb_str(a, "profile_name", tp_ed_text(d, e->name), e->name.len);
}

static void put_metadata(tp_argb *a, const tp_etdump *d, const tp_ed_event *e)
{
    static const char hex[] = "0123456789abcdef";
    if (!e->metadata.len)
        return;
    uint32_t n = e->metadata.len < META_HEX_MAX ? e->metadata.len : META_HEX_MAX;
    char buf[2 * META_HEX_MAX];
    const uint8_t *m = d->data + e->metadata.pos;
    for (uint32_t i = 0; i < n; i++) {
        buf[2 * i] = hex[m[i] >> 4];
        buf[2 * i + 1] = hex[m[i] & 15];
    }
    tp_argb_str(a, "delegate_debug_metadata", buf, 2 * n);
    tp_argb_uint(a, "delegate_debug_metadata_len", e->metadata.len);
}

/* Times are kept below TIME_MAX so that ts + dur and later rebasing cannot
 * overflow, whatever ticks a corrupt file holds. */
#define TIME_MAX (INT64_MAX / 4)

static int64_t sat_add(int64_t a, int64_t b) { return a > TIME_MAX - b ? TIME_MAX : a + b; }
static int64_t clamp_time(int64_t v) { return v > TIME_MAX ? TIME_MAX : v; }

typedef struct mapper {
    tp_trace *t;
    const tp_etdump *d;
    const tp_read_opts *o;
    const tp_etrecord *rec;
    tp_ed_scale sc;
    uint32_t method_track, runs_track;
    tp_str cat_framework, cat_call, cat_kernel, cat_delegate, cat_debug, cat_run;
    uint32_t *ev_index; /* per ETDump event of the current run: trace event index or TP_NONE */
    size_t ev_cap;
    tp_argb a;
    tp_buf tmp;
    int64_t prev_end;
    bool have_prev;
    /* with an ETRecord: the derived lines' annotations, and per graph node its
     * op and scope path, interned once (0 = not yet) */
    linked link;
    tp_derive_input din;
    tp_str *node_op, *node_scopes;
} mapper;

/* The node's module paths as name-scope levels (TP_DERIVE_SEP-joined). */
static tp_str node_scopes(mapper *m, const tp_etr_node *n)
{
    if (!m->node_scopes[n->index]) {
        tp_buf b = {0};
        for (uint32_t k = 0; k < n->npaths; k++) {
            if (k)
                tp_buf_putc(&b, TP_DERIVE_SEP);
            tp_buf_puts(&b, n->paths[k]);
        }
        m->node_scopes[n->index] = tp_intern(m->t, b.data, b.len);
        tp_buf_free(&b);
    }
    return m->node_scopes[n->index];
}

/* A kernel linked to graph nodes, for the Framework Ops / Name Scope lines:
 * op = the first node's op type, scopes = the module paths of the node the
 * args name as `module`; one op call per profiled event (an instruction is
 * one call: two adjacent calls of one op type stay two events); the group
 * is the run, so runs never merge. */
static void annotate(mapper *m, uint32_t ev, size_t run)
{
    const linked *l = &m->link;
    tp_annot a;
    memset(&a, 0, sizeof a);
    a.event = ev;
    a.flags = TP_ANNOT_OP_SOURCE;
    a.group = (int64_t)run;
    a.op_inst = ev + 1;
    a.scope_inst = TP_NONE;
    const tp_etr_node *first = l->nodes[0];
    if (!m->node_op[first->index])
        m->node_op[first->index] = tp_intern_cstr(m->t, first->target);
    a.op = m->node_op[first->index];
    if (!a.op) /* a node without a target: the event's own name */
        a.op = m->t->events[ev].name;
    a.op_display = a.op;
    const tp_etr_node *mn = tp_etr_module_node(l->nodes, l->n);
    if (mn)
        a.scopes = node_scopes(m, mn);
    tp_derive_add(&m->din, &a);
}

/* One RunData: its events on the Method thread (after the previous run),
 * delegate events tied to their DELEGATE_CALL, the framework tax on
 * Method::execute, and the run's span on the Runs thread.  A wrapped
 * (uint32) event starts at its raw start tick. */
static void map_run(mapper *m, size_t ri)
{
    tp_trace *t = m->t;
    const tp_etdump *d = m->d;
    const tp_ed_run *run = &d->runs[ri];
    /* a file without events has no array: no offset into NULL (UB) */
    const tp_ed_event *evs = d->events ? d->events + run->first : NULL;
    TP_GROW(m->ev_index, m->ev_cap, run->n + 1);

    /* The run's extent on its own clock, to lay it after the previous run. */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < run->n; i++)
        if (evs[i].type == TP_ED_PROFILE) {
            uint64_t ticks;
            tp_ed_elapsed(evs[i].start, evs[i].end, &ticks);
            int64_t s = clamp_time(tp_ed_ns(&m->sc, evs[i].start));
            int64_t e = sat_add(s, clamp_time(tp_ed_ns(&m->sc, ticks)));
            lo = s < lo ? s : lo;
            hi = e > hi ? e : hi;
        }
    int64_t shift = 0;
    if (lo == INT64_MAX) /* no profile events: a point after the previous run */
        lo = hi = m->have_prev ? m->prev_end : 0;
    if (m->have_prev && lo < m->prev_end) {
        shift = m->prev_end - lo;
        tp_warn(t, "etdump: run started before the previous one ended (laid after it)", 1);
    }

    int64_t exec_dur = -1, calls_dur = 0;
    uint32_t exec_ev = TP_NONE;
    int64_t last_end = sat_add(lo, shift);
    for (size_t i = 0; i < run->n; i++) {
        const tp_ed_event *e = &evs[i];
        m->ev_index[i] = TP_NONE;
        if (e->type == TP_ED_ALLOC)
            continue;
        tp_event ev;
        tp_event_init(&ev);
        ev.track = m->method_track;
        ev.name = event_name(t, d, e);
        tp_argb_reset(&m->a);
        if (e->type == TP_ED_PROFILE) {
            uint64_t ticks;
            bool wrapped = e->end < e->start;
            if (!tp_ed_elapsed(e->start, e->end, &ticks))
                tp_warn(t, "etdump: end time before start time beyond the uint32 wraparound rule (duration 0)", 1);
            ev.ts = sat_add(clamp_time(tp_ed_ns(&m->sc, e->start)), shift);
            ev.dur = clamp_time(tp_ed_ns(&m->sc, ticks));
            if (ev.dur > TIME_MAX - ev.ts)
                ev.dur = TIME_MAX - ev.ts;
            bool fw = e->has_name && !delegated(e) && tp_ed_is_framework(tp_ed_text(d, e->name), e->name.len);
            bool call = !delegated(e) && (name_is(d, e->name, "OPERATOR_CALL") || name_is(d, e->name, "DELEGATE_CALL"));
            if (fw) {
                ev.kind = TP_KIND_ANNOTATION;
                ev.flags |= TP_EV_FRAMEWORK;
                ev.cat = m->cat_framework;
            } else if (call) {
                ev.kind = TP_KIND_HOST_OP;
                ev.cat = m->cat_call;
                calls_dur = sat_add(calls_dur, ev.dur);
            } else if (!delegated(e) && name_is(d, e->name, "Method::step")) {
                ev.kind = TP_KIND_ANNOTATION;
                ev.cat = m->cat_framework;
            } else {
                ev.kind = TP_KIND_KERNEL;
                ev.cat = delegated(e) ? m->cat_delegate : m->cat_kernel;
            }
            link_event(&m->link, m->rec, d, e);
            if (m->o->keep_args) {
                put_common_args(&m->a, d, e, ri);
                if (e->start <= INT64_MAX && e->end <= INT64_MAX) {
                    INT_MEMBER(&m->a, "start_ticks", (int64_t)e->start);
                    INT_MEMBER(&m->a, "end_ticks", (int64_t)e->end);
                } else {
                    tp_argb_uint(&m->a, "start_ticks", e->start);
                    tp_argb_uint(&m->a, "end_ticks", e->end);
                }
                if (wrapped)
                    tp_argb_bool(&m->a, "uint32_wraparound", true);
                put_metadata(&m->a, d, e);
                put_link_args(&m->a, &m->link);
            }
            if (ev.ts + ev.dur > last_end) /* both below TIME_MAX */
                last_end = ev.ts + ev.dur;
            ev.args = tp_argb_commit(t, &m->a);
            m->ev_index[i] = tp_event_add(t, &ev);
            if (ev.kind == TP_KIND_KERNEL && m->link.n)
                annotate(m, m->ev_index[i], ri);
            if (fw && name_is(d, e->name, "Method::execute")) {
                exec_ev = m->ev_index[i];
                exec_dur = ev.dur;
            }
        } else { /* debug: an instant after the last profile event of its instruction */
            ev.ph = 'i';
            ev.kind = TP_KIND_OTHER;
            ev.cat = m->cat_debug;
            ev.ts = last_end;
            /* the op's own event ends just before its output is logged: look a
             * few events back only (a long scan per debug event is quadratic) */
            for (size_t k = i; k-- > 0 && i - k <= DEBUG_LOOKBACK;)
                if (evs[k].type == TP_ED_PROFILE && evs[k].instruction_id == e->instruction_id &&
                    evs[k].chain_index == e->chain_index && evs[k].delegate_int == e->delegate_int &&
                    evs[k].delegate_str.len == e->delegate_str.len &&
                    memcmp(tp_ed_text(d, evs[k].delegate_str), tp_ed_text(d, e->delegate_str), e->delegate_str.len) == 0 &&
                    m->ev_index[k] != TP_NONE) {
                    const tp_event *p = &t->events[m->ev_index[k]];
                    ev.ts = p->ts + p->dur;
                    break;
                }
            if (m->o->keep_args) {
                put_common_args(&m->a, d, e, ri);
                m->tmp.len = 0;
                put_value(&m->tmp, d, e);
                tp_argb_raw(&m->a, "value", m->tmp.data, m->tmp.len);
            }
            ev.args = tp_argb_commit(t, &m->a);
            m->ev_index[i] = tp_event_add(t, &ev);
        }
    }

    /* Delegate events belong to the DELEGATE_CALL of their instruction, which
     * is recorded right after them (scopes are written when they end): one
     * backward pass remembers the last DELEGATE_CALL seen. */
    uint32_t call_ev = TP_NONE;
    int32_t call_instr = -1;
    for (size_t i = run->n; i-- > 0;) {
        const tp_ed_event *e = &evs[i];
        if (e->type != TP_ED_PROFILE || m->ev_index[i] == TP_NONE)
            continue;
        if (!delegated(e)) {
            if (name_is(d, e->name, "DELEGATE_CALL")) {
                call_ev = m->ev_index[i];
                call_instr = e->instruction_id;
            }
            continue;
        }
        if (call_ev == TP_NONE || call_instr != e->instruction_id)
            continue;
        tp_event *de = &t->events[m->ev_index[i]];
        const tp_event *call = &t->events[call_ev];
        de->op = call_ev;
        if (de->ts < call->ts || de->ts + de->dur > call->ts + call->dur)
            tp_warn(t, DELEGATE_OUTSIDE, 1);
    }

    /* Framework tax of the run: Method::execute minus its instruction calls. */
    if (exec_ev != TP_NONE && m->o->keep_args) {
        tp_event *x = &t->events[exec_ev];
        size_t len;
        const char *old = tp_args_get(t, x->args, &len);
        tp_buf b = {0};
        tp_buf_put(&b, old, len - 1); /* without the closing brace */
        char num[48];
        tp_format_fixed(num, calls_dur, 6);
        tp_buf_printf(&b, ",\"instruction_calls_ms\":%s", num);
        tp_format_fixed(num, exec_dur - calls_dur, 6);
        tp_buf_printf(&b, ",\"framework_tax_ms\":%s}", num);
        x->args = tp_args_add(t, b.data, b.len);
        tp_buf_free(&b);
    }

    /* The run span. */
    tp_event rs;
    tp_event_init(&rs);
    rs.track = m->runs_track;
    rs.ts = sat_add(lo, shift);
    rs.dur = hi - lo;
    rs.kind = TP_KIND_ANNOTATION;
    rs.flags = TP_EV_STEP; /* a run is an iteration: --steps N selects RunData N */
    rs.id = ri;
    rs.cat = m->cat_run;
    rs.name = run->name.len ? tp_intern(t, tp_ed_text(d, run->name), run->name.len) : tp_intern_cstr(t, "run");
    if (m->o->keep_args) {
        tp_argb_uint(&m->a, "run", ri);
        tp_argb_uint(&m->a, "events", run->n);
        if (run->bundled_input_index != -1)
            tp_argb_int(&m->a, "bundled_input_index", run->bundled_input_index);
        if (run->nallocators)
            tp_argb_uint(&m->a, "allocators", run->nallocators);
        rs.args = tp_argb_commit(t, &m->a);
    }
    tp_event_add(t, &rs);
    m->prev_end = sat_add(hi, shift);
    m->have_prev = true;
}

int tp_etdump_to_trace(const tp_etdump *d, const tp_etrecord *rec, const tp_read_opts *o, tp_trace *t, tp_err *err)
{
    mapper m = {.t = t, .d = d, .o = o, .rec = rec};
    if (tp_ed_scale_parse(tp_etdump_opts_of(o)->time_scale, &m.sc, err) < 0)
        return -1;
    t->format = "etdump";
    uint32_t proc = tp_process_get(t, 1);
    t->processes[proc].name = tp_intern_cstr(t, "ExecuTorch");
    m.method_track = tp_track_get(t, proc, 1);
    t->tracks[m.method_track].name = tp_intern_cstr(t, "Method");
    m.runs_track = tp_track_get(t, proc, 2);
    t->tracks[m.runs_track].name = tp_intern_cstr(t, "Runs");
    /* categories are the kind names, so converted output reads back with the same kinds */
    m.cat_framework = tp_intern_cstr(t, tp_kind_name(TP_KIND_ANNOTATION));
    m.cat_call = tp_intern_cstr(t, tp_kind_name(TP_KIND_HOST_OP));
    m.cat_kernel = tp_intern_cstr(t, tp_kind_name(TP_KIND_KERNEL));
    m.cat_delegate = m.cat_kernel;
    m.cat_debug = tp_intern_cstr(t, "debug");
    m.cat_run = m.cat_framework;
    t->events_in += d->nprofile + d->ndebug + d->nalloc;
    TP_GROW_EVENTS(t, t->nevents + d->nprofile + d->ndebug + d->nruns); /* one allocation */
    /* ~110 bytes of args per profile event: avoid regrowing (and copying) the
     * arena, unless events share tables (legal, never written by flatcc) and
     * the estimate runs far beyond the file's size */
    uint64_t args_est = (d->nprofile + d->ndebug) * 112 + 4096;
    if (o->keep_args && args_est <= 2 * (uint64_t)d->len + 4096)
        TP_GROW(t->args_data, t->args_cap, t->args_len + (size_t)args_est);
    if (rec) {
        size_t nn = tp_etrecord_node_count(rec);
        m.node_op = tp_xcalloc(nn + 1, sizeof *m.node_op);
        m.node_scopes = tp_xcalloc(nn + 1, sizeof *m.node_scopes);
    }
    for (size_t r = 0; r < d->nruns; r++)
        map_run(&m, r);
    if (m.din.nannots) {
        /* Framework Ops / Framework Name Scope beside the Method thread; the
         * Runs thread already is the steps line */
        tp_derive_opts dopt = {.framework_names = true,
                               .per_stream = true,
                               .no_steps_line = true,
                               .era = tp_derive_era_of(o->derive_era)};
        tp_derive_from(t, &m.din, &dopt);
    }
    tp_derive_input_free(&m.din);
    free(m.node_op);
    free(m.node_scopes);
    if (d->nalloc)
        tp_warn(t, ALLOC_SKIPPED, d->nalloc);
    if (d->ncut)
        tp_warn(t, "etdump: names longer than 1024 bytes cut", d->ncut);
    if (d->nempty)
        tp_warn(t, "etdump: events with no member skipped", d->nempty);
    if (d->trailing)
        tp_warn(t, "etdump: bytes after the size-prefixed buffer ignored", d->trailing);
    free(m.ev_index);
    tp_argb_free(&m.a);
    tp_buf_free(&m.tmp);
    /* --strict: repairs are errors (skipped allocation events and delegate
     * times on another clock are observations, not repairs) */
    for (size_t i = 0; o->strict && i < t->nwarnings; i++)
        if (strcmp(t->warnings[i].what, ALLOC_SKIPPED) != 0 && strcmp(t->warnings[i].what, DELEGATE_OUTSIDE) != 0)
            return tp_fail_at(err, "", "%s: %llu (rejected by --strict)", t->warnings[i].what,
                              (unsigned long long)t->warnings[i].count);
    return 0;
}

static int etdump_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    return tp_etdump_probe(head, n);
}

static void etdump_free_boxed(void *p)
{
    tp_etdump_free(p);
    free(p);
}

static int etdump_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    size_t len;
    char *data = tp_input_slurp(in, &len, (uint64_t)1 << 31, err);
    if (!data)
        return -1;
    tp_etdump *d = tp_xmalloc(sizeof *d);
    int rc = tp_etdump_parse((uint8_t *)data, len, d, err);
    tp_etrecord *rec = NULL;
    const char *etrecord = tp_etdump_opts_of(o)->etrecord;
    if (rc == 0 && etrecord && !(rec = tp_etrecord_load(etrecord, err)))
        rc = -1;
    if (rc == 0)
        rc = tp_etdump_to_trace(d, rec, o, t, err);
    tp_etrecord_free(rec);
    if (rc == 0 && !o->keep_args && !t->format_data) {
        /* analyses (stats, report) get the decoded file for the Inspector;
         * convert has no use for it and frees it now */
        t->format_data = d;
        t->format_data_free = etdump_free_boxed;
    } else {
        etdump_free_boxed(d);
    }
    return rc;
}

/* The command line's ETDump options (one set per process). */
static tp_etdump_opts cli_opts;

static int set_etrecord(const void **slot, const char *v, const char **why)
{
    (void)why;
    cli_opts.etrecord = v; /* (protected as an input by the option parser: reads_file) */
    *slot = &cli_opts;
    return 0;
}

static int set_time_scale(const void **slot, const char *v, const char **why)
{
    (void)why; /* checked when a trace is read: the error names the file, as every reader's does */
    cli_opts.time_scale = v;
    *slot = &cli_opts;
    return 0;
}

static const tp_format_option etdump_options[] = {
    {"--etrecord", "FILE", "ExecuTorch: the ETRecord of the program (op types, modules, Name Scope line)",
     set_etrecord, true},
    {"--time-scale", "UNIT", "ExecuTorch: unit of the ETDump's times (ns default, us, ms, s, cycles:HZ)",
     set_time_scale, false},
    {NULL, NULL, NULL, NULL, false},
};

const tp_format tp_format_etdump = {
    "etdump", "ExecuTorch ETDump (size-prefixed flatbuffer \"ED00\"; --etrecord, --time-scale)", ".etdp",
    etdump_probe, etdump_read, 0, etdump_options,
};
