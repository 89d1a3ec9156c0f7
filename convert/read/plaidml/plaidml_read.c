/* plaidml_read.c: PlaidML / Vertex.AI event logs (eventlog.gz): the record
 * stream, the magic record, Event decoding for both id schemas and the
 * merging of start / metadata / end events into activities.
 * Spec: ../shared/specs/PLAIDML.md; notes: docs/formats/plaidml.md. */
#include "convert/read/plaidml/plaidml.h"
#include "convert/codec/pbstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(pml_act) <= 48, "pml_act: 48 bytes per activity");

#define PML_MAGIC 0x4C747645u /* "EvtL" little-endian */
#define PML_MAX_RECORD (256u << 20) /* real records are < 1 MB; a larger prefix is corruption */

static const unsigned char magic_record[] = {0x08, 0x0a, 0x06, 0x08, 0xc5, 0xec, 0xd1, 0xe3, 0x04};

static int pml_probe(const unsigned char *head, size_t n, const char *path)
{
    if (n >= sizeof magic_record && memcmp(head, magic_record, sizeof magic_record) == 0)
        return 100;
    /* No magic: a log named like one whose first record still looks like a Record. */
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (base && strstr(base, "eventlog") && n >= 3 && head[0] > 0 && head[0] < 0x80 &&
        (head[1] == 0x0a || head[1] == 0x12))
        return 30;
    return 0;
}

bool pml_verb_is_executing(const char *verb)
{
    size_t n = strlen(verb);
    return n >= 11 && strcmp(verb + n - 11, "::Executing") == 0;
}

const char *pml_where(pml_state *s)
{
    snprintf(s->where, sizeof s->where, "record %llu", (unsigned long long)s->record);
    return s->where;
}

int pml_fail_pb(pml_state *s, tp_err *err, const char *what)
{
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    msg[sizeof msg - 1] = 0;
    err->set = false;
    return tp_fail_at(err, pml_where(s), "bad %s: %s", what, msg);
}

/* A lenient repair; the record of the first one is kept for --strict. */
void pml_warn(pml_state *s, const char *what)
{
    if (!s->first_warn_record)
        s->first_warn_record = s->record;
    tp_warn(s->t, what, 1);
}

/* ---- ids ---- */

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t stream_of(pml_state *s, const uint8_t *uuid)
{
    uint64_t a = load64(uuid), b = load64(uuid + 8);
    for (size_t i = 1; i < s->nstreams; i++)
        if (s->streams[i].a == a && s->streams[i].b == b)
            return (uint32_t)i;
    if (s->nstreams == 0)
        s->nstreams = 1; /* stream 0: events before any UUID */
    TP_GROW(s->streams, s->streams_cap, s->nstreams + 1);
    s->streams[s->nstreams] = (pml_key){a, b, 1};
    return (uint32_t)s->nstreams++;
}

/* A Duration that is empty or holds `1 seconds`, then optionally `2 nanos`
 * (the usual shape), decoded without the field loop; false for any other. */
static inline bool plain_duration(const tp_pb_field *f, uint64_t *sec, uint64_t *nanos)
{
    const uint8_t *p = f->data, *end = p + f->len;
    *sec = *nanos = 0;
    if (p < end && !(*p++ == 0x08 && tp_pb_varint_short(&p, end, sec)))
        return false;
    if (p < end && !(*p++ == 0x10 && tp_pb_varint_short(&p, end, nanos)))
        return false;
    return p == end;
}

int pml_key_of_any(pml_state *s, const tp_pb_field *f, bool switch_stream, pml_key *k, bool *none, tp_err *err)
{
    *none = false;
    if (f->wt != TP_PB_LEN)
        return tp_fail_at(err, pml_where(s), "id field %u has wire type %u, expected a message or UUID", f->num, f->wt);
    if (f->len == 16) { /* 2017 schema: a raw UUID; all zero is the root */
        s->legacy_ids++;
        *k = (pml_key){load64(f->data), load64(f->data + 8), 1};
        *none = k->a == 0 && k->b == 0;
        return 0;
    }
    /* current schema: ActivityID { 1 index, 2 stream_uuid } */
    s->current_ids++;
    tp_pb r = tp_pb_init(f->data, f->len);
    tp_pb_field g;
    uint64_t index = 0;
    uint32_t stream = s->cur_stream;
    int rc;
    while ((rc = tp_pb_next_fast(&r, &g, err)) == 1) {
        if (g.num == 1 && g.wt == TP_PB_VARINT)
            index = g.v;
        else if (g.num == 2 && g.wt == TP_PB_LEN) {
            if (g.len != 16) {
                pml_warn(s, "plaidml: stream uuid not 16 bytes (ignored)");
                continue;
            }
            stream = stream_of(s, g.data);
            if (switch_stream)
                s->cur_stream = stream;
        }
    }
    if (rc < 0)
        return pml_fail_pb(s, err, "id message");
    *k = (pml_key){stream, index, 2};
    *none = index == 0;
    return 0;
}

static uint64_t key_hash(const pml_key *k)
{
    uint64_t h = (k->a ^ (k->b * 0x9E3779B97F4A7C15ull) ^ k->tag) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static void slots_grow(pml_state *s)
{
    size_t cap = s->slots_cap ? s->slots_cap * 2 : 4096;
    pml_slot *n = tp_xmalloc(cap * sizeof *n);
    for (size_t i = 0; i < cap; i++)
        n[i].act = TP_NONE;
    for (size_t i = 0; i < s->slots_cap; i++) {
        if (s->slots[i].act == TP_NONE)
            continue;
        size_t j = key_hash(&s->slots[i].key) & (cap - 1);
        while (n[j].act != TP_NONE)
            j = (j + 1) & (cap - 1);
        n[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = n;
    s->slots_cap = cap;
}

static uint32_t act_new(pml_state *s)
{
    TP_GROW(s->acts, s->acts_cap, s->nacts + 1);
    pml_act *a = &s->acts[s->nacts];
    memset(a, 0, sizeof *a);
    a->parent = a->kernel = a->kinfo = a->meta = a->ev = TP_NONE;
    return (uint32_t)s->nacts++;
}

#define DIRECT_MAX (1u << 22) /* larger indexes (or a hostile log) use the hash table */

uint32_t pml_act_get_any(pml_state *s, const pml_key *k)
{
    if (k->tag == 2 && k->b < DIRECT_MAX && k->a < 65536) {
        if (k->a >= s->ndirect) { /* streams are few: grow one row at a time */
            size_t n = (size_t)k->a + 1;
            s->direct = tp_xrealloc(s->direct, n * sizeof *s->direct);
            memset(s->direct + s->ndirect, 0, (n - s->ndirect) * sizeof *s->direct);
            s->ndirect = n;
        }
        struct pml_direct *d = &s->direct[k->a];
        if (k->b >= d->cap) {
            size_t cap = d->cap ? d->cap : 1024;
            while (cap <= k->b)
                cap *= 2;
            d->act = tp_xrealloc(d->act, cap * sizeof *d->act);
            for (size_t i = d->cap; i < cap; i++)
                d->act[i] = TP_NONE;
            d->cap = cap;
        }
        if (d->act[k->b] == TP_NONE)
            d->act[k->b] = act_new(s);
        return d->act[k->b];
    }
    if ((s->nslots + 1) * 2 > s->slots_cap)
        slots_grow(s);
    size_t j = key_hash(k) & (s->slots_cap - 1);
    while (s->slots[j].act != TP_NONE) {
        const pml_key *o = &s->slots[j].key;
        if (o->a == k->a && o->b == k->b && o->tag == k->tag)
            return s->slots[j].act;
        j = (j + 1) & (s->slots_cap - 1);
    }
    s->slots[j].key = *k;
    s->slots[j].act = act_new(s);
    s->nslots++;
    return s->slots[j].act;
}

/* Clocks and domains are few: linear lookups. */
static uint16_t clock_get(pml_state *s, const pml_key *k)
{
    for (size_t i = 0; i < s->nclocks; i++)
        if (s->clocks[i].key.a == k->a && s->clocks[i].key.b == k->b && s->clocks[i].key.tag == k->tag)
            return (uint16_t)i;
    if (s->nclocks >= 65535)
        return 0;
    TP_GROW(s->clocks, s->clocks_cap, s->nclocks + 1);
    memset(&s->clocks[s->nclocks], 0, sizeof s->clocks[0]);
    s->clocks[s->nclocks].key = *k;
    return (uint16_t)s->nclocks++;
}

static uint16_t domain_get(pml_state *s, const pml_key *k)
{
    for (size_t i = 1; i < s->ndomains; i++)
        if (s->domains[i].a == k->a && s->domains[i].b == k->b && s->domains[i].tag == k->tag)
            return (uint16_t)i;
    if (s->ndomains >= 65535)
        return 0;
    TP_GROW(s->domains, s->domains_cap, s->ndomains + 1);
    s->domains[s->ndomains] = *k;
    return (uint16_t)s->ndomains++;
}

/* google.protobuf.Duration -> ns; *set false for a zero (unset) time. */
static int duration_ns(pml_state *s, const tp_pb_field *f, int64_t *ns, bool *set, tp_err *err)
{
    *set = false;
    if (f->wt != TP_PB_LEN)
        return tp_fail_at(err, pml_where(s), "time field %u is not a Duration message", f->num);
    uint64_t sec, nanos;
    if (!plain_duration(f, &sec, &nanos)) {
        tp_pb r = tp_pb_init(f->data, f->len);
        tp_pb_field g;
        int rc;
        sec = nanos = 0;
        while ((rc = tp_pb_next_fast(&r, &g, err)) == 1) {
            if (g.num == 1 && g.wt == TP_PB_VARINT)
                sec = g.v;
            else if (g.num == 2 && g.wt == TP_PB_VARINT)
                nanos = g.v;
        }
        if (rc < 0)
            return pml_fail_pb(s, err, "Duration");
    }
    /* int32 nanos on the wire: a sign-extended varint */
    int64_t v;
    if (__builtin_mul_overflow((int64_t)sec, (int64_t)1000000000, &v) ||
        __builtin_add_overflow(v, (int64_t)(int32_t)(uint32_t)nanos, &v)) {
        pml_warn(s, "plaidml: time out of range (ignored)");
        return 0;
    }
    *ns = v;
    *set = v != 0; /* the analysis tools treat a zero time as unset */
    return 0;
}

/* The last (up to) 8 bytes of a verb: verbs share their prefixes
 * ("tile::hal::opencl::") and differ at the end. */
static uint64_t verb_tail(const char *v, size_t n)
{
    if (n >= 8)
        return load64((const uint8_t *)v + n - 8);
    uint64_t x = 0;
    memcpy(&x, v, n);
    return x;
}

/* Interning a verb for every event costs a hash of the whole string; the
 * few distinct verbs are found first in a small direct-mapped cache, by
 * length and tail before the whole string is compared.  Two verbs on one
 * slot only cost a tp_intern (which gives the same id). */
static tp_str verb_id(pml_state *s, const char *v, size_t n)
{
    uint64_t tail = verb_tail(v, n);
    struct pml_vcache *c = &s->vcache[((tail ^ n) * 0x9E3779B97F4A7C15ull) >> 58];
    if (c->id && c->tail == tail && c->len == n && memcmp(tp_str_get(s->t, c->id), v, n) == 0)
        return c->id;
    tp_str id = tp_intern(s->t, v, n);
    *c = (struct pml_vcache){n, tail, id}; /* the id: string pool pointers move */
    return id;
}

/* One Event message. */
static int read_event(pml_state *s, const uint8_t *data, size_t len, tp_err *err)
{
    tp_pb r = tp_pb_init(data, len);
    tp_pb_field f, parent = {0}, act = {0}, clock = {0}, domain = {0};
    const uint8_t *verb = NULL;
    size_t verb_len = 0;
    int64_t start = 0, end = 0;
    bool has_start = false, has_end = false, has_meta = false;
    int rc;
    while ((rc = tp_pb_next_fast(&r, &f, err)) == 1) {
        switch (f.num) {
        case 1: parent = f; break;
        case 2: act = f; break;
        case 3:
            if (f.wt == TP_PB_LEN) {
                verb = f.data;
                verb_len = f.len;
            }
            break;
        case 4: clock = f; break;
        case 5:
            if (duration_ns(s, &f, &start, &has_start, err) < 0)
                return -1;
            break;
        case 6:
            if (duration_ns(s, &f, &end, &has_end, err) < 0)
                return -1;
            break;
        case 7: has_meta = true; break;
        case 8: domain = f; break;
        default: break; /* unknown fields are skipped, as protobuf does */
        }
    }
    if (rc < 0)
        return pml_fail_pb(s, err, "Event");
    if (!act.num) {
        pml_warn(s, "plaidml: event without activity id (skipped)");
        return 0;
    }
    /* the activity id first: a stream UUID on it switches the current stream */
    pml_key k, pk;
    bool none, pnone = true;
    if (pml_key_of(s, &act, true, &k, &none, err) < 0)
        return -1;
    if (none) {
        pml_warn(s, "plaidml: event without activity id (skipped)");
        return 0;
    }
    if (parent.num && pml_key_of(s, &parent, false, &pk, &pnone, err) < 0)
        return -1;
    /* the parent is created before the child so it usually gets the lower index */
    uint32_t p = (parent.num && !pnone) ? pml_act_get(s, &pk) : TP_NONE;
    uint32_t a = pml_act_get(s, &k);
    pml_act *A = &s->acts[a];
    if (parent.num) {
        if (p == a)
            pml_warn(s, "plaidml: activity is its own parent (ignored)");
        else if (p == TP_NONE)
            A->flags |= PML_ROOT, A->parent = TP_NONE;
        else
            A->parent = p;
    }
    if (verb_len)
        A->verb = verb_id(s, (const char *)verb, verb_len);
    if (clock.num) {
        pml_key ck;
        if (clock.wt == TP_PB_LEN && clock.len == 16) {
            ck = (pml_key){load64(clock.data), load64(clock.data + 8), 1};
        } else {
            bool cnone;
            if (pml_key_of(s, &clock, false, &ck, &cnone, err) < 0)
                return -1;
            ck.tag = 2; /* ClockID {1 index}: index 0 is the host clock */
        }
        A->clock = clock_get(s, &ck);
    } else if (has_start && k.tag == 2) {
        pml_key host = {s->cur_stream, 0, 2}; /* current schema: no clock id = host clock */
        A->clock = clock_get(s, &host);
    }
    if (domain.num) {
        pml_key dk;
        bool dnone;
        if (pml_key_of(s, &domain, false, &dk, &dnone, err) < 0)
            return -1;
        A->domain = dnone ? 0 : domain_get(s, &dk);
    }
    pml_clock *C = s->nclocks ? &s->clocks[A->clock] : NULL;
    if (has_start) {
        A->start = start;
        A->flags |= PML_HAS_START;
    }
    if (has_end) {
        A->end = end;
        A->flags |= PML_HAS_END;
    }
    if (C && (has_start || has_end)) {
        int64_t last = has_end ? end : start;
        if (!C->has_end || last > C->end)
            C->end = last, C->has_end = true;
    }
    if (has_meta) { /* second pass: metadata may refer to other activities */
        tp_pb m = tp_pb_init(data, len);
        while (tp_pb_next_fast(&m, &f, err) == 1)
            if (f.num == 7 && pml_meta(s, a, &m, &f, err) < 0)
                return -1;
    }
    return 0;
}

/* One Record: the magic (only valid first) and/or events. */
static int read_record(pml_state *s, const uint8_t *data, size_t len, uint64_t recno, tp_err *err)
{
    tp_pb r = tp_pb_init(data, len);
    tp_pb_field f;
    bool magic = false, events = false;
    int rc;
    while ((rc = tp_pb_next_fast(&r, &f, err)) == 1) {
        if (f.num == 1 && f.wt == TP_PB_LEN) {
            tp_pb m = tp_pb_init(f.data, f.len);
            tp_pb_field g;
            uint64_t value = 0;
            int mr;
            while ((mr = tp_pb_next_fast(&m, &g, err)) == 1)
                if (g.num == 1 && g.wt == TP_PB_VARINT)
                    value = g.v;
            if (mr < 0)
                return pml_fail_pb(s, err, "magic message");
            if (value != PML_MAGIC)
                return tp_fail_at(err, pml_where(s), "magic is 0x%llx, expected 0x%x (\"EvtL\")",
                                  (unsigned long long)value, PML_MAGIC);
            magic = true;
        } else if (f.num == 2 && f.wt == TP_PB_LEN) {
            events = true;
            s->t->events_in++;
            if (read_event(s, f.data, f.len, err) < 0)
                return -1;
        }
    }
    if (rc < 0)
        return pml_fail_pb(s, err, "Record");
    if (recno == 1 && !magic)
        return tp_fail_at(err, pml_where(s), "not a PlaidML event log: the first record has no \"EvtL\" magic");
    if (!magic && !events)
        return tp_fail_at(err, pml_where(s), "record holds neither a magic nor an event");
    return 0;
}

static void state_free(pml_state *s)
{
    free(s->acts);
    free(s->slots);
    for (size_t i = 0; i < s->ndirect; i++)
        free(s->direct[i].act);
    free(s->direct);
    free(s->clocks);
    free(s->domains);
    free(s->streams);
    for (size_t i = 0; i < s->nmetas; i++)
        tp_argb_free(&s->metas[i]);
    free(s->metas);
    free(s->kinfos);
    free(s->devices);
}

static int pml_read(tp_input *in, tp_trace *t, const tp_read_opts *o, tp_err *err)
{
    t->format = "plaidml";
    pml_state s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.o = o;
    pml_key host0 = {0, 0, 2}; /* clock 0: the host clock of events that name none */
    clock_get(&s, &host0);
    s.ndomains = 1;
    TP_GROW(s.domains, s.domains_cap, 1);
    s.domains[0] = (pml_key){0, 0, 0};
    tp_pbstream ps;
    tp_pbstream_init(&ps, in, PML_MAX_RECORD);
    int rc = 0;
    for (;;) {
        const unsigned char *rec;
        size_t len;
        bool zero;
        int k = tp_pbstream_next(&ps, &rec, &len, &zero, err);
        if (k < 0) {
            rc = -1;
            break;
        }
        if (k == 0) {
            if (zero) {
                s.record = ps.records + 1;
                pml_warn(&s, "plaidml: zero-length record ends the log");
            }
            if (ps.records == 0) {
                rc = tp_fail_at(err, "record 1", "not a PlaidML event log: no records");
            }
            break;
        }
        s.record = ps.records;
        if (read_record(&s, rec, len, ps.records, err) < 0) {
            rc = -1;
            break;
        }
    }
    tp_pbstream_free(&ps);
    if (rc == 0)
        rc = pml_emit(&s, err);
    if (rc == 0 && o->strict && t->nwarnings) {
        char where[32] = "";
        if (s.first_warn_record)
            snprintf(where, sizeof where, "record %llu", (unsigned long long)s.first_warn_record);
        rc = tp_fail_at(err, where, "%s (%llu), rejected by --strict", t->warnings[0].what,
                        (unsigned long long)t->warnings[0].count);
    }
    state_free(&s);
    return rc;
}

static tp_plaidml_opts cli_opts; /* the command line's (one set per process) */

static int set_with_source(const void **slot, const char *v, const char **why)
{
    (void)v;
    (void)why;
    cli_opts.with_source = true;
    *slot = &cli_opts;
    return 0;
}

static int set_invocation(const void **slot, const char *v, const char **why)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*v == 0 || *end || n <= 0 || n > 1000000000LL) {
        *why = "takes a positive whole number";
        return -1;
    }
    cli_opts.invocation = (size_t)n;
    *slot = &cli_opts;
    return 0;
}

static const tp_format_option plaidml_options[] = {
    {"--with-source", NULL, "PlaidML, dv/dt: keep kernel sources and program text in the args", set_with_source,
     false},
    {"--invocation", "N", "PlaidML report: the ScheduleInvocation of the Program Run page (default 11)",
     set_invocation, false},
    {NULL, NULL, NULL, NULL, false},
};

const tp_format tp_format_plaidml = {
    "plaidml",
    "PlaidML / Vertex.AI event log (eventlog.gz: delimited protobuf Records, 2017 and later schemas)",
    "eventlog.gz",
    pml_probe,
    pml_read,
    TP_FMT_OWN_DERIVED_LINES,
    plaidml_options,
};
