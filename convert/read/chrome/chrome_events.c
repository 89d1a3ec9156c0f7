/* chrome_events.c: the traceEvents array into the model, event by event:
 * each is parsed (chrome_parse.h) and committed.  Committing resolves its
 * track (with caches: events repeat a few (pid, tid) pairs), interns its
 * strings, turns ts/dur text into exact nanoseconds, keeps its args (a
 * handle into the file when it is mapped, chrome_args.h), applies the
 * metadata events that name, label and order processes and threads, and
 * adds the event.  Part of the Chrome reader (chrome_read_int.h). */
#include "convert/read/chrome/chrome_parse.h"
#include "convert/read/chrome/chrome_args.h"
#include "convert/codec/json_lex.h"
#include "convert/codec/json_write.h"
#include "convert/model/trace_append.h"

#include <stdlib.h>
#include <string.h>

/* Where a span starts in the input (its opening quote), or the event's
 * offset when it does not point into the buffer. */
static uint64_t span_off(const reader *r, const span *s)
{
    if (s->p && s->p >= r->buf && s->p <= r->buf + r->len)
        return off_of(r, s->p) - (s->str && s->p > r->buf ? 1 : 0);
    return r->ev_at;
}

static bool utf8_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = p[i] < 0x80 ? 1 : tp_utf8_seq_len(p + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* tp_intern with a cache in front: kernel names are 100-500 bytes, and
 * hashing all of them was a tenth of `stats`.  The slot comes from the
 * length and the first and last (up to) eight bytes; a hit is checked by comparing
 * the whole text, so a collision only costs a tp_intern. */
static tp_str intern_text(reader *r, const char *s, size_t n)
{
    if (n == 0)
        return tp_intern(r->t, s, n);
    uint64_t a = 0, b;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else { /* "ac2g", "kernel": categories and flow names are short */
        memcpy(&a, s, n);
        b = a;
    }
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xbf58476d1ce4e5b9ull;
    size_t slot = (size_t)(h >> 55); /* 512 slots */
    /* up to 16 bytes, a and b are the whole text: equal ends are equal texts
     * (categories, pids, short names: no memcmp call) */
    if (r->recent[slot].len == n && r->recent[slot].a == a && r->recent[slot].b == b) {
        tp_str id = r->recent[slot].id;
        if (n <= 16 || memcmp(tp_str_get(r->t, id), s, n) == 0)
            return id;
    }
    tp_str id = tp_intern(r->t, s, n);
    r->recent[slot].id = id;
    r->recent[slot].len = (uint32_t)n;
    r->recent[slot].a = a;
    r->recent[slot].b = b;
    return id;
}

static tp_str intern_span(reader *r, const span *s)
{
    if (!s->escaped) {
        if (!r->o->strict)
            return intern_text(r, s->p, s->n);
        /* --strict: raw bytes that are not UTF-8 (the writers would replace
         * them) are an error at the string; each distinct string is checked once */
        size_t before = r->t->nstr;
        tp_str id = tp_intern(r->t, s->p, s->n);
        if (r->t->nstr > before && !utf8_ok(s->p, s->n)) {
            r->bad_utf8++;
            bad_string_at(r, span_off(r, s));
        }
        return id;
    }
    uint64_t before = r->bad_utf8;
    r->scratch.len = 0;
    tp_json_unescape(&r->scratch, s->p, s->n, &r->bad_utf8);
    if (r->bad_utf8 != before)
        bad_string_at(r, span_off(r, s));
    return tp_intern(r->t, r->scratch.data ? r->scratch.data : "", r->scratch.len);
}

/* A pid/tid: integer, integer-valued string, "stream N", or any string. */
typedef struct ident {
    bool is_str;
    int64_t num;
    tp_str key;
} ident;

static int ident_of(reader *r, const span *s, ident *id)
{
    memset(id, 0, sizeof *id);
    if (s->n == 0 && !s->str)
        return 0; /* missing: 0 */
    if (!s->str) {
        if (tp_parse_int(s->p, s->n, &id->num) == 0)
            return 0;
        int64_t v;
        const char *why;
        if (tp_parse_fixed(s->p, s->n, 0, &v, &why) == 0) { /* 7.0 */
            id->num = v;
            return 0;
        }
        tp_warn_at(r->t, "pid/tid beyond int64 (kept as text)", 1, span_off(r, s));
        id->is_str = true;
        id->key = tp_intern(r->t, s->p, s->n);
        return 0;
    }
    if (tp_parse_int(s->p, s->n, &id->num) == 0)
        return 0;
    if (s->n > 7 && memcmp(s->p, "stream ", 7) == 0 && tp_parse_int(s->p + 7, s->n - 7, &id->num) == 0)
        return 1; /* label kept as the thread name */
    id->is_str = true;
    id->key = intern_span(r, s);
    return 0;
}

static uint32_t track_for_slow(reader *r, const raw_event *ev);

/* n bytes (pids and tids: a few) equal, without a memcmp call per event */
static inline bool short_eq(const char *x, const char *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

static uint32_t track_for(reader *r, const raw_event *ev)
{
    uint8_t flags = (uint8_t)(1 | (ev->pid.str ? 2 : 0) | (ev->tid.str ? 4 : 0) | (ev->tid.p ? 8 : 0) |
                              (ev->pid.p ? 16 : 0));
    for (int i = 0; i < 4; i++) {
        const struct last_pair *l = &r->last[i];
        if (l->flags == flags && ev->pid.n == l->pid_n && ev->tid.n == l->tid_n &&
            (!ev->pid.p || short_eq(ev->pid.p, l->pid, ev->pid.n)) &&
            (!ev->tid.p || short_eq(ev->tid.p, l->tid, ev->tid.n)))
            return l->track;
    }
    uint32_t k = track_for_slow(r, ev);
    if (ev->pid.n <= sizeof r->last[0].pid && ev->tid.n <= sizeof r->last[0].tid) {
        struct last_pair *l = &r->last[r->last_next++ % 4];
        if (ev->pid.p)
            memcpy(l->pid, ev->pid.p, ev->pid.n);
        if (ev->tid.p)
            memcpy(l->tid, ev->tid.p, ev->tid.n);
        l->pid_n = (uint8_t)ev->pid.n;
        l->tid_n = (uint8_t)ev->tid.n;
        l->flags = flags;
        l->track = k;
    }
    return k;
}

static uint32_t track_for_slow(reader *r, const raw_event *ev)
{
    tp_trace *t = r->t;
    tp_str pk = tp_intern(t, ev->pid.p ? ev->pid.p : "", ev->pid.n);
    tp_str tk = ev->tid.p ? tp_intern(t, ev->tid.p, ev->tid.n) : pk; /* missing tid = pid */
    bool pstr = ev->pid.str, tstr = ev->tid.p ? ev->tid.str : ev->pid.str;
    size_t h = ((size_t)pk * 0x9E3779B1u + (size_t)tk * 31u + (pstr ? 7u : 0u) + (tstr ? 13u : 0u));
    if (r->nslots == 0) {
        r->nslots = 1024;
        r->slots = tp_xcalloc(r->nslots, sizeof *r->slots);
    }
    for (size_t probe = 0; probe < r->nslots; probe++) {
        track_slot *s = &r->slots[(h + probe) & (r->nslots - 1)];
        if (!s->used)
            break;
        if (s->pid == pk && s->tid == tk && s->pid_str == pstr && s->tid_str == tstr)
            return s->track;
    }
    /* slow path: resolve ids, find or create */
    ident pid, tid;
    ident_of(r, &ev->pid, &pid);
    int stream = 0;
    if (ev->tid.p)
        stream = ident_of(r, &ev->tid, &tid);
    else
        tid = pid;
    uint32_t proc = pid.is_str ? tp_process_get_key(t, pid.key) : tp_process_get(t, pid.num);
    uint32_t track = tid.is_str ? tp_track_get_key(t, proc, tid.key) : tp_track_get(t, proc, tid.num);
    if (stream && t->tracks[track].name == 0)
        t->tracks[track].name = intern_span(r, &ev->tid);
    /* insert (grow the table when half full) */
    if ((r->nused + 1) * 2 > r->nslots) {
        size_t ncap = r->nslots * 2;
        track_slot *ns = tp_xcalloc(ncap, sizeof *ns);
        for (size_t i = 0; i < r->nslots; i++) {
            track_slot *s = &r->slots[i];
            if (!s->used)
                continue;
            size_t hh = ((size_t)s->pid * 0x9E3779B1u + (size_t)s->tid * 31u + (s->pid_str ? 7u : 0u) +
                         (s->tid_str ? 13u : 0u));
            size_t j = hh & (ncap - 1);
            while (ns[j].used)
                j = (j + 1) & (ncap - 1);
            ns[j] = *s;
        }
        free(r->slots);
        r->slots = ns;
        r->nslots = ncap;
    }
    size_t j = h & (r->nslots - 1);
    while (r->slots[j].used)
        j = (j + 1) & (r->nslots - 1);
    r->slots[j] = (track_slot){pk, tk, pstr, tstr, track, true};
    r->nused++;
    return track;
}

/* The times the model holds (model.h: TP_TS_MIN .. TP_DUR_MAX) */
#define TS_MIN TP_TS_MIN
#define TS_MAX TP_TS_MAX
#define DUR_MAX TP_DUR_MAX

/* A time that scan_scalar found to be [-]digits[.digits], with at most 3
 * decimals and 16 integer digits, in ns: its digits are read a word at a
 * time (tp_digits_value), whose words may start up to 7 bytes before the
 * digits: in the buffer, after the key ("ts": ...) at least.  false: the
 * general way (tp_parse_fixed).  tp_parse_fixed's loop per digit was 8% of
 * the reader's instructions (43 MB real-shaped, cachegrind). */
static bool time_fast(const reader *r, const span *s, int64_t *out)
{
    size_t ni = s->int_n, nf = s->frac_n;
    if (ni == 0 || ni > 16 || nf > 3)
        return false;
    const char *d0 = s->p + (s->p[0] == '-');
    if ((size_t)(d0 - r->buf) + ni < 8 || (size_t)(d0 + ni + 1 - r->buf) + nf < 8)
        return false; /* a word would start before the buffer */
    uint64_t v = tp_digits_value(d0, ni);
    if (nf)
        v = v * tp_pow10((unsigned)nf) + tp_digits_value(d0 + ni + 1, nf);
    v *= tp_pow10(3 - (unsigned)nf); /* at most 16 + 3 digits: fits */
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = s->p[0] == '-' ? -(int64_t)v : (int64_t)v;
    return true;
}

static int parse_time(reader *r, const span *s, int64_t *out, uint64_t at, int64_t lo, int64_t hi)
{
    if (time_fast(r, s, out) && *out >= lo && *out < hi)
        return 0;
    const char *why;
    if (tp_parse_fixed(s->p, s->n, 3, out, &why) == 0) {
        if (*out >= lo && *out < hi)
            return 0;
        why = "outside the time range tracepress keeps (2^61 ns around the epoch)";
    }
    if (r->o->strict)
        return tp_fail(r->err, at, "bad time value '%.*s': %s", (int)(s->n > 40 ? 40 : s->n), s->p, why);
    tp_warn_at(r->t, "bad or out-of-range ts/dur (event dropped)", 1, at);
    tp_drop_count(r->t, "bad or out-of-range ts/dur", 1);
    return 1;
}

/* ev's args as they stand in the input: a handle into the mapped file when
 * there is one (chrome_args.h), else a copy in the arena. */
static uint64_t args_of_input(reader *r, const raw_event *ev)
{
    uint64_t h = tp_chrome_args_handle(r->t, off_of(r, ev->args), ev->args_n);
    return h ? h : tp_args_add(r->t, ev->args, ev->args_n);
}

/* keep_args_of asked once per name */
static bool wants_args(reader *r, tp_str name)
{
    if (name >= r->want_cap) {
        size_t old = r->want_cap;
        TP_GROW(r->want, r->want_cap, (size_t)name + 1);
        memset(r->want + old, 0, r->want_cap - old);
    }
    if (!r->want[name]) {
        const char *s = tp_str_get(r->t, name);
        r->want[name] = r->o->keep_args_of(s, strlen(s)) ? 1 : 2;
    }
    return r->want[name] == 1;
}

static uint64_t args_handle(reader *r, const raw_event *ev, tp_str name)
{
    tp_trace *t = r->t;
    if (r->o->strict) { /* bytes that are not UTF-8 in args: what convert's writer would replace */
        if (ev->args && !utf8_ok(ev->args, ev->args_n)) {
            r->bad_utf8++;
            bad_string_at(r, off_of(r, ev->args));
        } else if (ev->extra->len && !utf8_ok(ev->extra->data, ev->extra->len)) {
            r->bad_utf8++;
            bad_string_at(r, r->ev_at);
        }
    }
    bool keep = r->o->keep_args || (r->o->keep_args_of && ev->args && wants_args(r, name));
    if (!keep && !(ev->ph.n == 1 && ev->ph.p[0] == 'C'))
        return 0;
    if (ev->extra->len == 0)
        return ev->args ? args_of_input(r, ev) : 0;
    /* extra event keys travel with the args as "{args}\x1f,extra" so the
     * writer can put them back at event level */
    tp_buf *s = &r->scratch;
    s->len = 0;
    if (ev->args)
        tp_buf_put(s, ev->args, ev->args_n);
    tp_buf_putc(s, '\x1f');
    tp_buf_put(s, ev->extra->data, ev->extra->len);
    return tp_args_add(t, s->data, s->len);
}

/* ---- metadata ---- */

static void meta_mark(uint8_t **a, size_t *cap, uint32_t i, uint8_t bit)
{
    if (i >= *cap) {
        size_t old = *cap;
        TP_GROW(*a, *cap, (size_t)i + 1);
        memset(*a + old, 0, *cap - old);
    }
    (*a)[i] |= bit;
}

/* Where a metadata event's value goes: a process's or a thread's fields. */
typedef struct meta_target {
    tp_str *name, *label; /* label NULL: threads have none */
    int64_t *sort_index;
    bool *has_sort;
    uint8_t **set;        /* the second half notes names and labels set, for the join */
    size_t *set_cap;
    uint32_t i;           /* the process or track */
} meta_target;

/* "process_name" / "thread_name", "process_labels", "process_sort_index" /
 * "thread_sort_index" (the name after its `prefix` bytes), one rule for
 * processes and threads.  Returns true when the event was applied (it is
 * then not kept); false for other metadata, or a value of the wrong type. */
static bool apply_meta(reader *r, const raw_event *ev, size_t prefix, const meta_target *m)
{
    const char *what = ev->name.p + prefix;
    size_t n = ev->name.n - prefix;
    int64_t v;
    uint8_t bit;
    if (key_is(what, n, "name") && ev->m_name.str) {
        *m->name = intern_span(r, &ev->m_name);
        bit = TP_APPEND_SET_NAME;
    } else if (m->label && key_is(what, n, "labels") && ev->m_labels.str) {
        *m->label = intern_span(r, &ev->m_labels);
        bit = TP_APPEND_SET_LABEL;
    } else if (key_is(what, n, "sort_index") && ev->m_sort.p && tp_parse_int(ev->m_sort.p, ev->m_sort.n, &v) == 0) {
        *m->sort_index = v;
        *m->has_sort = true;
        return true;
    } else
        return false;
    if (r->second)
        meta_mark(m->set, m->set_cap, m->i, bit);
    return true;
}

/* With nothing to link (o->no_corr: `stats` without --steps), the flow
 * events ('s', 't', 'f': a third of a Kineto trace's events, two per kernel
 * launch) draw nothing and nobody reads them: they are counted in
 * events_in, parsed and checked like the others (same warnings and
 * errors), and then only the first of each (track, category) is kept, so
 * that every track and category that has events still has one (the tracks
 * `stats` counts, under --drop-cat too).  Flows of a device kind (a
 * "kernel" category on an 's') are all kept: they mark device processes.
 * 1 GB: 0.09 s of CPU and 75 MB of fresh memory less. */
static bool keep_flow(reader *r, const tp_event *e)
{
    if (!r->o->no_corr || (e->ph != 's' && e->ph != 't' && e->ph != 'f') || e->kind != TP_KIND_OTHER)
        return true;
    int64_t key = (int64_t)((uint64_t)e->track << 32 | e->cat);
    if (tp_i64map_get(&r->flow_seen, key) != TP_I64MAP_EMPTY)
        return false;
    tp_i64map_put(&r->flow_seen, key, 1);
    return true;
}

/* A time scan_scalar's fast path found to be [-]digits[.digits] with at
 * most 15 integer digits and 3 decimals: one that parse_time reads without a
 * word, within range (below 10^18 ns) (light_event's events need no value). */
static bool time_plainly_ok(const span *s)
{
    return !s->str && s->int_n >= 1 && s->int_n <= 15 && s->frac_n <= 3;
}

/* An event's times (ts, dur), checked with the warnings and drops of every
 * event: 0, 1 (dropped, said in a warning), -1 (--strict's error).  Without
 * `values` (an event counted, not kept) a plain time is only checked. */
static int event_times(reader *r, const raw_event *ev, char ph, uint64_t at, tp_event *e, bool values)
{
    tp_trace *t = r->t;
    if (ev->ts.p) {
        int k = !values && time_plainly_ok(&ev->ts) ? 0 : parse_time(r, &ev->ts, &e->ts, at, TS_MIN, TS_MAX);
        if (k)
            return k;
    } else if (ph != 'M') {
        if (r->o->strict)
            return tp_fail(r->err, at, "event without \"ts\"");
        tp_warn_at(t, "events without \"ts\" (dropped)", 1, at);
        tp_drop_count(t, "no \"ts\"", 1);
        return 1;
    }
    if (ev->dur.p) {
        if (!values && time_plainly_ok(&ev->dur) && ev->dur.p[0] != '-')
            return 0;
        int k = parse_time(r, &ev->dur, &e->dur, at, -DUR_MAX, DUR_MAX);
        if (k)
            return k;
        if (e->dur < 0) {
            if (r->o->strict)
                return tp_fail(r->err, at, "negative duration");
            tp_warn_at(t, "negative durations (set to 0)", 1, at);
            e->dur = 0;
        }
    } else if (ph == 'X') {
        tp_warn_at(t, "X events without \"dur\" (dur 0)", 1, at);
    }
    return 0;
}

/* A category's class (chrome_cat_class), looked up once per category. */
static uint8_t cat_class_of(reader *r, tp_str cat)
{
    if (cat >= r->cat_kind_cap) {
        size_t old = r->cat_kind_cap;
        TP_GROW(r->cat_kind, r->cat_kind_cap, (size_t)cat + 1);
        memset(r->cat_kind + old, 0, r->cat_kind_cap - old);
    }
    if (!r->cat_kind[cat])
        r->cat_kind[cat] = chrome_cat_class(tp_str_get(r->t, cat), tp_str_len(r->t, cat));
    return r->cat_kind[cat];
}

/* ---- tp_read_opts.device_only: `stats --kernels-only` ----
 * The command prints the events counted, the tracks that hold one, the
 * steps and the table of device activities.  An event that is none of
 * these (a host op, a runtime call, an annotation, a flow: nine in ten of
 * a Kineto trace's events) is counted and its times checked as any other
 * (the same warnings, drops and errors: it was parsed as any other), and
 * then kept only when it is the first of its (track, category): the track
 * still holds an event, under --drop-cat too, as keep_flow does for flows.
 * The others are neither interned nor stored, and the passes after the
 * read do not walk them.  Anything the full path decides from more than
 * its category and phase takes the full path: no category (legacy
 * kernels), escaped text (name, category, id), a "ProfilerStep#" name (steps), unknown or
 * device-side categories, MTIA's, metadata, 'B'/'E' pairs, unknown phases.
 * Field order does not matter: the event is parsed whole before this.
 * TP_DEVICE_ONLY=0 turns it off (the tests compare both paths).
 * LIGHT_NO: the full path.  LIGHT_SKIP: counted only.  LIGHT_FIRST: the
 * first of its (track, category): the full path, and noted once stored. */
enum { LIGHT_NO, LIGHT_SKIP, LIGHT_FIRST };

static int light_event(reader *r, const raw_event *ev, char ph, uint32_t track, int64_t *key)
{
    switch (ph) {
    case 'X': case 'i': case 'I': case 'C': case 'b': case 'e': case 'n': case 's': case 't': case 'f':
    case 'R': case 'N': case 'O': case 'D': case 'P': case 'S': case 'T': case 'F': case 'c':
    case 'V': case 'v': case '(': case ')':
        break;
    default: /* 'B', 'E', 'M', unknown phases */
        return LIGHT_NO;
    }
    if (!ev->cat.p || ev->cat.escaped || (ev->name.p && ev->name.escaped) || (ev->id.p && ev->id.escaped))
        return LIGHT_NO; /* the full path counts bad escapes at each one */
    if (ev->name.n >= 13 && memcmp(ev->name.p, "ProfilerStep#", 13) == 0)
        return LIGHT_NO;
    tp_str cat = intern_span(r, &ev->cat);
    uint8_t cls = cat_class_of(r, cat);
    bool light = cls == 1 + TP_KIND_HOST_OP || cls == 1 + TP_KIND_RUNTIME || cls == 1 + TP_KIND_ANNOTATION ||
                 (cls == 1 + TP_KIND_OTHER && ph != 'X'); /* an unknown category's slices are noted */
    if (!light)
        return LIGHT_NO;
    *key = (int64_t)((uint64_t)track << 32 | cat);
    if ((uint64_t)*key + 1 == r->light_last) /* runs of one (track, category) */
        return LIGHT_SKIP;
    if (tp_i64map_get(&r->flow_seen, *key) == TP_I64MAP_EMPTY)
        return LIGHT_FIRST;
    r->light_last = (uint64_t)*key + 1;
    return LIGHT_SKIP;
}

/* ---- tp_read_opts.flows_as_ids: report, stats, diff, a job's ranks, convert ----
 * Kineto's launch flows ("ac2g" 's'/'f' pairs, one of each per launch: a
 * fifth of a real trace's events) are arrows for a viewer; the analyses
 * read only which correlation ids have a start and an end (gpu_time.c,
 * TraceLens's "linked"), and convert replaces them by flows bound to the
 * slices (tp_load_opts.written: read again when nothing links).  Such
 * a flow is counted and its times checked as any event (the same warnings,
 * drops and errors: a flow dropped for its times is not noted, as it was no
 * event), its id noted in t->launch_flows (model.h), and the event kept only when
 * it is the first of its (track, category), so every track that held an
 * event still holds one.  Whatever the full path decides from more than
 * that takes it: an escaped name, category or id, an id that is not a
 * plain integer from 0 to 2^63-1 (no launch flow to gpu_time.c), a "dur"
 * (a slice to what reads slices), flow keys (warned about there), --strict
 * (it checks the args' UTF-8).  The note keeps where the event stood (what
 * reads events in order reads notes there: model.h tp_flow_note), and its
 * name and category are interned as the event's would be (the order of
 * string ids is read too).  Field order does not matter: the event is
 * parsed whole before this.
 * Returns 1 when the event takes the full path (*first_key set when it is
 * the first of its (track, category): noted as kept once stored), else 0 or
 * -1 (--strict's error) as commit_event. */
static int flow_as_id(reader *r, const raw_event *ev, char ph, uint32_t track, uint64_t at, int64_t *first_key)
{
    if ((ph != 's' && ph != 'f') || r->o->strict || ev->cat.n != 4 || ev->cat.escaped ||
        memcmp(ev->cat.p, "ac2g", 4) != 0 || (ev->name.p && ev->name.escaped) || !ev->id.p || ev->id.str ||
        ev->bind.p || ev->flow || ev->dur.p)
        return 1;
    int64_t id;
    if (tp_parse_int(ev->id.p, ev->id.n, &id) != 0 || id < 0)
        return 1;
    /* the name and the category interned as the full path interns them, in its order: string ids are
     * in order of first sight, and some orders read them (pftrace flow chains, a job's tied names) */
    if (ev->name.p)
        intern_span(r, &ev->name);
    if (!r->ac2g)
        r->ac2g = intern_span(r, &ev->cat);
    int64_t key = (int64_t)((uint64_t)track << 32 | r->ac2g);
    /* flows alternate between a launching thread and a stream: the last two tracks found kept spare most lookups */
    if ((uint64_t)key + 1 != r->flow_kept[0] && (uint64_t)key + 1 != r->flow_kept[1]) {
        if (tp_i64map_get(&r->flow_seen, key) == TP_I64MAP_EMPTY) {
            *first_key = key; /* the first of its (track, category): an event, noted once stored */
            return 1;
        }
        r->flow_kept[1] = r->flow_kept[0];
        r->flow_kept[0] = (uint64_t)key + 1;
    }
    tp_event e;
    tp_event_init(&e);
    int k = event_times(r, ev, ph, at, &e, false);
    if (k)
        return k < 0 ? -1 : 0;
    tp_launch_flow_note(r->t, (uint64_t)id, ph == 'f', track);
    return 0;
}

static int commit_event(reader *r, raw_event *ev, uint64_t at)
{
    tp_trace *t = r->t;
    r->ev_at = at;
    if (!ev->ph.p) {
        if (!ev->name.p && !ev->ts.p && !ev->pid.p) {
            tp_warn_at(t, "objects with no ph, name, ts or pid (skipped)", 1, at);
            return 0;
        }
        if (r->o->strict)
            return tp_fail(r->err, at, "event without \"ph\"");
        tp_warn_at(t, "events without \"ph\" (dropped)", 1, at);
        tp_drop_count(t, "no \"ph\"", 1);
        return 0;
    }
    t->events_in++;
    /* a phase is one ASCII letter or sign: anything else (a multi-byte
     * character, a control) is an unknown phase, kept as '?' so the output
     * never holds half a UTF-8 sequence */
    char ph = ev->ph.n == 1 && ev->ph.p[0] > 0x20 && ev->ph.p[0] < 0x7f ? ev->ph.p[0] : '?';
    if (ph == 'M' && ev->name.n > 8 && memcmp(ev->name.p, "process_", 8) == 0) {
        /* process metadata names no thread: resolve the process only */
        ident pid;
        ident_of(r, &ev->pid, &pid);
        uint32_t pi = pid.is_str ? tp_process_get_key(t, pid.key) : tp_process_get(t, pid.num);
        tp_process *pr = &t->processes[pi]; /* after the call: it may grow the array */
        if (apply_meta(r, ev, 8, &(meta_target){&pr->name, &pr->label, &pr->sort_index, &pr->has_sort,
                                                &r->pmeta_set, &r->pmeta_set_cap, pi}))
            return 0;
    }
    uint32_t track = track_for(r, ev);
    if (ph == 'M' && ev->name.n > 7 && memcmp(ev->name.p, "thread_", 7) == 0) {
        tp_track *tk = &t->tracks[track];
        if (apply_meta(r, ev, 7, &(meta_target){&tk->name, NULL, &tk->sort_index, &tk->has_sort, &r->meta_set,
                                                &r->meta_set_cap, track}))
            return 0;
    }
    int64_t light_key = 0;
    int light = chrome_device_only(r) ? light_event(r, ev, ph, track, &light_key) : LIGHT_NO;
    if (light == LIGHT_SKIP) { /* counted and checked, not kept (light_event) */
        tp_event e;
        tp_event_init(&e);
        return event_times(r, ev, ph, at, &e, false) < 0 ? -1 : 0;
    }
    if (r->o->flows_as_ids) {
        int k = flow_as_id(r, ev, ph, track, at, &light_key);
        if (k <= 0)
            return k;
        if (light_key)
            light = LIGHT_FIRST;
    }
    /* other metadata: kept as an event and written back */
    tp_event e;
    tp_event_init(&e);
    e.ph = ph;
    e.track = track;
    if (ev->name.p)
        e.name = intern_span(r, &ev->name);
    if (ev->cat.p)
        e.cat = intern_span(r, &ev->cat);
    int times = event_times(r, ev, ph, at, &e, true);
    if (times)
        return times < 0 ? -1 : 0;
    if (ev->has_corr && ev->corr >= 0 && ev->corr <= UINT32_MAX) {
        e.corr = (uint32_t)ev->corr;
        e.flags |= TP_EV_HAS_CORR;
    }
    if (ev->id.p) {
        e.flags |= TP_EV_HAS_ID;
        int64_t v;
        if (!ev->id.str && tp_parse_int(ev->id.p, ev->id.n, &v) == 0)
            e.id = (uint64_t)v;
        else {
            /* string ids ("0x1f") and numbers beyond int64 are kept as text */
            e.flags |= TP_EV_ID_STRING;
            e.id = ev->id.str ? intern_span(r, &ev->id) : tp_intern(t, ev->id.p, ev->id.n);
        }
    }
    if (ev->bp.p && ev->bp.n == 1 && ev->bp.p[0] == 'e')
        e.flags |= TP_EV_BP_ENCLOSING;
    if (ev->scope.p && ev->scope.n == 1) {
        if (ev->scope.p[0] == 'g')
            e.flags |= TP_EV_INSTANT_GLOBAL;
        else if (ev->scope.p[0] == 'p')
            e.flags |= TP_EV_INSTANT_PROCESS;
    }
    switch (ph) {
    case 'X':
        break;
    case 'B': {
        e.args = args_handle(r, ev, e.name);
        uint32_t idx = tp_event_add(t, &e);
        chrome_bstack_push(r, track, idx);
        if (ev->bind.p || ev->flow)
            chrome_note_flow(r, ev, &e, idx);
        return 0;
    }
    case 'E': {
        if ((track >= r->bstack_tracks || r->bdepth[track] == 0) && r->second) {
            /* its 'B' may be open in the first half: decided when the halves join */
            TP_GROW(r->orphans, r->orphans_cap, r->norphans + 1);
            uint64_t a = r->o->keep_args && ev->args && ev->args_n > 2 ? args_of_input(r, ev) : 0;
            r->orphans[r->norphans++] = (orphan_e){track, at, e.ts, a};
            return 0;
        }
        if (track >= r->bstack_tracks || r->bdepth[track] == 0) {
            if (r->o->strict)
                return tp_fail(r->err, at, "'E' event without a matching 'B'");
            tp_warn_at(t, "unmatched E events (dropped)", 1, at);
            tp_drop_count(t, "'E' without a matching 'B'", 1);
            return 0;
        }
        tp_event *b = &t->events[r->bstack[track][--r->bdepth[track]]];
        b->ph = 'X';
        b->dur = e.ts >= b->ts ? e.ts - b->ts : 0;
        b->flags |= TP_EV_FROM_BE;
        chrome_merge_args(r, b, ev);
        return 0;
    }
    case 'I':
        e.ph = 'i';
        break;
    case 'i': case 'C': case 'b': case 'e': case 'n': case 's': case 't': case 'f': case 'M':
    case 'R': case 'N': case 'O': case 'D': case 'P': case 'S': case 'T': case 'F': case 'c':
    case 'V': case 'v': case '(': case ')':
        break;
    default:
        if (r->o->strict)
            return tp_fail(r->err, at, "unknown phase '%.*s'", (int)(ev->ph.n > 8 ? 8 : ev->ph.n), ev->ph.p);
        tp_warn_at(t, "unknown phases (kept)", 1, at);
    }
    e.args = args_handle(r, ev, e.name);
    uint8_t cls = cat_class_of(r, e.cat);
    if (cls < CAT_KNOWN_OTHER)
        e.kind = (uint8_t)(cls - 1);
    else if (cls == CAT_KNOWN_OTHER)
        e.kind = TP_KIND_OTHER;
    else { /* told apart by name: cached per (category, name) */
        int64_t key = (int64_t)((uint64_t)e.cat << 32 | e.name);
        uint32_t k = tp_i64map_get(&r->name_kind, key);
        if (k == TP_I64MAP_EMPTY) {
            k = chrome_kind_by_name(t, cls, e.name);
            tp_i64map_put(&r->name_kind, key, k);
        }
        e.kind = (uint8_t)k;
    }
    if (!keep_flow(r, &e))
        return 0;
    uint32_t idx = tp_event_add(t, &e);
    if (light == LIGHT_FIRST) /* its (track, category) holds an event now (light_event, flow_as_id) */
        tp_i64map_put(&r->flow_seen, light_key, 1);
    if (ev->bind.p || ev->flow || e.ph == 'f')
        chrome_note_flow(r, ev, &e, idx);
    /* a track's first device event, a slice of an unknown category, an MTIA call */
    bool device = e.kind >= TP_KIND_KERNEL && e.kind <= TP_KIND_SYNC;
    if (device ? e.track >= r->dev_track_cap || !r->dev_track[e.track]
               : (e.kind == TP_KIND_OTHER && e.ph == 'X' && e.cat && cls != CAT_KNOWN_OTHER) ||
                     cls == CAT_MTIA_RUNTIME)
        chrome_cats_note(r, &e, idx, cls);
    return 0;
}

/* ---- the traceEvents array ---- */

/* Parse the traceEvents array body, event by event, refilling as needed.
 * On entry r->pos is just after '['.  Returns 0 or -1. */
int chrome_read_events(reader *r)
{
    raw_event ev;
    bool first = true;
    for (;;) {
        const char *p = tp_json_ws(r->buf + r->pos, r->buf + r->len);
        r->pos = (size_t)(p - r->buf);
        const char *end = r->buf + r->len;
        if (p >= end) {
            if (chrome_more_or_truncated(r, p, "the traceEvents array") < 0)
                return -1;
            continue;
        }
        if (*p == ']') {
            r->pos++;
            if (r->half)
                chrome_half_cancel(r); /* the array ended before the split: it was not between events */
            return 0;
        }
        if (r->abandon && atomic_load_explicit(r->abandon, memory_order_relaxed))
            return 0; /* second half, no longer wanted */
        if (!first) { /* an event was read: a comma (or the end) must follow */
            if (*p != ',')
                return tp_fail(r->err, off_of(r, p), "expected ',' or ']' between events");
            const char *q = tp_json_ws_guess(&r->ws_event, p + 1, end);
            if (q >= end && !r->eof) {
                if (chrome_refill(r, r->pos) < 0)
                    return -1;
                continue;
            }
            first = true; /* the comma is consumed: an event comes next */
            if (q < end && *q == ']') {
                if (r->o->strict)
                    return tp_fail(r->err, off_of(r, p), "trailing comma in traceEvents");
                tp_warn_at(r->t, "trailing commas", 1, off_of(r, p));
                r->pos = (size_t)(q - r->buf) + 1;
                return 0;
            }
            p = q;
            r->pos = (size_t)(p - r->buf);
        }
        if (p >= end) {
            if (r->eof)
                return tp_fail(r->err, off_of(r, p), "file ends inside the traceEvents array (truncated?)");
            continue;
        }
        if (*p != '{') {
            if (r->top_is_array && !r->second && r->t->events_in == 0) /* `[1, 2]`: JSON, but no trace */
                return tp_fail(r->err, off_of(r, p), "not a trace: the top-level array holds %s, not event objects",
                               chrome_json_what(*p));
            return tp_fail(r->err, off_of(r, p), "expected an event object");
        }
        if (r->half && off_of(r, p) >= r->half_split) {
            /* the first half reached the split: join the halves (0: the second half
             * read the rest of the array; 1: the split was not here, go on alone) */
            int k = chrome_half_meet(r, off_of(r, p));
            if (k <= 0)
                return k;
        }
        const char *next = p, *why = "malformed event";
        int k = parse_event(r, p, end, &ev, &next, &why);
        if (k == TP_JL_MORE) {
            if (chrome_more_or_truncated(r, p, "an event") < 0)
                return -1;
            continue;
        }
        if (k == TP_JL_BAD) {
            /* find the failing position roughly: report the event start */
            return tp_fail(r->err, off_of(r, p), "%s", why);
        }
        if ((size_t)(next - p) > MAX_UNIT) /* a mapped file is not copied, but the same cap holds */
            return tp_fail(r->err, off_of(r, p), "one event or top-level value is larger than %zu MB (corrupt file?)",
                           MAX_UNIT >> 20);
        if (commit_event(r, &ev, off_of(r, p)) < 0)
            return -1;
        if (r->o->strict && (r->t->nwarnings || r->bad_utf8)) /* a lenient problem: the first one in the file */
            return chrome_strict_error(r);
        r->pos = (size_t)(next - r->buf);
        release_behind(r);
        first = false;
    }
}
