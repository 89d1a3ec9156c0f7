/* test_pftrace.c: the Perfetto protobuf writer: the wire encoder, args and
 * counters on small inputs, then the bundled example (golden dump) and real
 * Kineto samples decoded back and compared with what the JSON writer writes
 * for the same trace. */
#include "convert/write/chrome_write.h"
#include "tests/lib/harness.h"
#include "convert/codec/pbwire.h"
#include "convert/codec/pbwrite.h"
#include "tests/lib/pftrace_dump.h"
#include "convert/write/pftrace_write.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>

/* ---- helpers ---- */

static int load(const char *path, tp_trace *t)
{
    tp_trace_init(t);
    tp_load_opts o = {0};
    o.read.keep_args = true;
    tp_err err = {0};
    return tp_load(path, &o, t, &err);
}

/* Load `in`, write it as .pftrace to `out`; returns the file's bytes (malloc'ed). */
static char *to_pftrace(const char *in, const char *out, size_t *len, tp_pftrace_stats *st)
{
    tp_trace t;
    if (load(in, &t) != 0) {
        tp_trace_free(&t);
        return NULL;
    }
    tp_err err = {0};
    tp_out *o = tp_out_open(out, NULL, &err);
    if (!o) {
        tp_trace_free(&t);
        return NULL;
    }
    tp_write_pftrace(&t, o, st);
    int rc = tp_out_commit(o, &err);
    tp_trace_free(&t);
    return rc == 0 ? tp_test_read_file(out, len) : NULL;
}

/* What a .pftrace holds, decoded with pbwire. */
typedef struct dtrack {
    uint64_t uuid, parent;
    int64_t pid, tid;
    bool thread, process, counter;
    char name[256];
    uint64_t begins, ends, instants, counters;
    int64_t last_ts;
    int depth;
    bool order_ok;
} dtrack;

/* What a packet sequence carries over from packet to packet. */
typedef struct dseq {
    bool seen;
    uint64_t nnames;        /* event names interned so far (iids 1, 2, 3 ...) */
    uint64_t track;         /* TrackEventDefaults.track_uuid */
    bool incremental;       /* times are deltas on clock 64 */
    int64_t last;
} dseq;

typedef struct decoded {
    dtrack tr[4096];
    size_t ntr;
    uint64_t *flow_ids;
    size_t nflow, flow_cap;
    char names[512][128]; /* event_names of sequence 1 and the first chunk sequence, by iid */
    dseq *seqs;
    size_t nseqs;
    uint64_t packets, bad_iid;
    bool seq_ok;
} decoded;

static dseq *seq_state(decoded *d, uint64_t seq)
{
    if (seq >= d->nseqs) {
        size_t n = d->nseqs;
        d->seqs = tp_xrealloc(d->seqs, (size_t)(seq + 1) * sizeof *d->seqs);
        memset(d->seqs + n, 0, (size_t)(seq + 1 - n) * sizeof *d->seqs);
        d->nseqs = (size_t)seq + 1;
    }
    return &d->seqs[seq];
}

static dtrack *find_track(decoded *d, uint64_t uuid)
{
    for (size_t i = 0; i < d->ntr; i++)
        if (d->tr[i].uuid == uuid)
            return &d->tr[i];
    return NULL;
}

static void copy_str(char *dst, size_t cap, const tp_pb_field *f)
{
    size_t n = f->len < cap - 1 ? f->len : cap - 1;
    memcpy(dst, f->data, n);
    dst[n] = 0;
}

static int decode_desc(decoded *d, tp_pb *r)
{
    tp_err err = {0};
    tp_pb_field f, g;
    if (d->ntr == sizeof d->tr / sizeof d->tr[0])
        return -1;
    dtrack *k = &d->tr[d->ntr++];
    memset(k, 0, sizeof *k);
    k->order_ok = true;
    k->last_ts = INT64_MIN;
    while (tp_pb_next(r, &f, &err) == 1) {
        if (f.num == 1)
            k->uuid = f.v;
        else if (f.num == 5)
            k->parent = f.v;
        else if (f.num == 2)
            copy_str(k->name, sizeof k->name, &f);
        else if (f.num == 8)
            k->counter = true;
        else if (f.num == 3 || f.num == 4) {
            tp_pb s = tp_pb_sub(r, &f);
            k->process = f.num == 3;
            k->thread = f.num == 4;
            while (tp_pb_next(&s, &g, &err) == 1) {
                if (g.num == 1)
                    k->pid = (int64_t)g.v;
                else if (g.num == 2 && f.num == 4)
                    k->tid = (int64_t)g.v;
                else if ((g.num == 5 && f.num == 4) || (g.num == 6 && f.num == 3))
                    copy_str(k->name, sizeof k->name, &g);
            }
        }
    }
    return err.set ? -1 : 0;
}

static int decode(const char *data, size_t len, decoded *d)
{
    memset(d, 0, sizeof *d);
    d->seq_ok = true;
    tp_err err = {0};
    tp_pb r = tp_pb_init(data, len);
    tp_pb_field pf, f, g, h;
    while (tp_pb_next(&r, &pf, &err) == 1) {
        if (pf.num != 1 || pf.wt != TP_PB_LEN)
            return -1;
        d->packets++;
        tp_pb p = tp_pb_sub(&r, &pf);
        int64_t ts = 0;
        uint64_t seq = 0, flags = 0, clock = 0, def_track = 0, inc_base = 0;
        bool has_ts = false, has_inc = false;
        tp_pb_field ev = {0};
        bool has_ev = false;
        tp_pb_field interned = {0};
        while (tp_pb_next(&p, &f, &err) == 1) {
            if (f.num == 8) {
                ts = (int64_t)f.v;
                has_ts = true;
            } else if (f.num == 10)
                seq = f.v;
            else if (f.num == 13)
                flags = f.v;
            else if (f.num == 58)
                clock = f.v;
            else if (f.num == 6) { /* clock snapshot: the sequence's incremental clock */
                tp_pb s = tp_pb_sub(&p, &f);
                while (tp_pb_next(&s, &g, &err) == 1) {
                    tp_pb c = tp_pb_sub(&s, &g);
                    uint64_t id = 0, v = 0, inc = 0;
                    while (tp_pb_next(&c, &h, &err) == 1)
                        id = h.num == 1 ? h.v : id, v = h.num == 2 ? h.v : v, inc = h.num == 3 ? h.v : inc;
                    if (id == 64 && inc) {
                        has_inc = true;
                        inc_base = v;
                    }
                }
            } else if (f.num == 59) { /* defaults: clock 64, the track */
                tp_pb s = tp_pb_sub(&p, &f);
                while (tp_pb_next(&s, &g, &err) == 1)
                    if (g.num == 11) {
                        tp_pb c = tp_pb_sub(&s, &g);
                        while (tp_pb_next(&c, &h, &err) == 1)
                            if (h.num == 11)
                                def_track = h.v;
                    }
            } else if (f.num == 60) {
                tp_pb s = tp_pb_sub(&p, &f);
                if (decode_desc(d, &s) < 0)
                    return -1;
            } else if (f.num == 11) {
                ev = f;
                has_ev = true;
            } else if (f.num == 12)
                interned = f;
        }
        /* every sequence: state cleared on its first packet and only there */
        dseq *sq = seq_state(d, seq);
        if (seq == 0 || (!sq->seen && !(flags & 1)) || (sq->seen && (flags & 1)))
            d->seq_ok = false;
        if (flags & 1) {
            memset(sq, 0, sizeof *sq);
            sq->track = def_track;
            sq->incremental = has_inc;
            sq->last = (int64_t)inc_base;
        }
        sq->seen = true;
        if (interned.data) {
            tp_pb s = tp_pb_sub(&p, &interned);
            while (tp_pb_next(&s, &g, &err) == 1) {
                if (g.num != 2)
                    continue;
                tp_pb e = tp_pb_sub(&s, &g);
                uint64_t iid = 0;
                tp_pb_field name = {0};
                while (tp_pb_next(&e, &h, &err) == 1) {
                    if (h.num == 1)
                        iid = h.v;
                    else if (h.num == 2)
                        name = h;
                }
                if (iid != sq->nnames + 1) /* iids are handed out 1, 2, 3 ... */
                    d->bad_iid++;
                sq->nnames = iid;
                if (iid < 512 && seq <= 2)
                    copy_str(d->names[iid], sizeof d->names[iid], &name);
            }
        }
        if (has_ts && sq->incremental && clock != 6) { /* a delta on the sequence's clock */
            ts += sq->last;
            sq->last = ts;
        }
        if (!has_ev)
            continue;
        tp_pb e = tp_pb_sub(&p, &ev);
        uint64_t type = 0, track = sq->track, name_iid = 0;
        while (tp_pb_next(&e, &g, &err) == 1) {
            if (g.num == 9)
                type = g.v;
            else if (g.num == 11)
                track = g.v;
            else if (g.num == 10)
                name_iid = g.v;
            else if (g.num == 47) {
                TP_GROW(d->flow_ids, d->flow_cap, d->nflow + 1);
                d->flow_ids[d->nflow++] = g.v;
            }
        }
        dtrack *k = find_track(d, track);
        if (!k)
            return -1;
        if (type != 2 && type != 4 && (name_iid == 0 || name_iid > sq->nnames))
            d->bad_iid++;
        if (type == 1 || type == 2) { /* slices: in time order per track (instants of several threads
                                         may share the process or global track, unsorted) */
            if (ts < k->last_ts)
                k->order_ok = false;
            k->last_ts = ts;
        }
        if (type == 1) {
            k->begins++;
            k->depth++;
        } else if (type == 2) {
            k->ends++;
            if (--k->depth < 0)
                k->order_ok = false;
        } else if (type == 3)
            k->instants++;
        else if (type == 4)
            k->counters++;
    }
    return err.set ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* "pid|track name|slices" lines, sorted and joined. */
static char *join_sorted(char **lines, size_t n)
{
    qsort(lines, n, sizeof *lines, cmp_str);
    tp_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        tp_buf_puts(&b, lines[i]);
        tp_buf_putc(&b, '\n');
        free(lines[i]);
    }
    return b.data ? b.data : tp_xstrdup("");
}

static char *line_of(int64_t pid, const char *name, uint64_t n)
{
    tp_buf b = {0};
    tp_buf_printf(&b, "%lld|%s|%llu", (long long)pid, name, (unsigned long long)n);
    return b.data;
}

/* Per-track 'X' counts as the JSON writer writes them for the trace in `in`. */
static char *json_side(const char *in, uint64_t *flows, size_t *ntracks)
{
    tp_trace t;
    if (load(in, &t) != 0) {
        tp_trace_free(&t);
        return NULL;
    }
    tp_err err = {0};
    tp_out *o = tp_out_open(tp_test_tmp("side.json"), NULL, &err);
    tp_write_stats st;
    tp_write_chrome(&t, o, &st);
    tp_out_commit(o, &err);
    *flows = st.flows;
    uint64_t *n = tp_xcalloc(t.ntracks + 1, sizeof *n);
    for (size_t i = 0; i < t.nevents; i++)
        if (!(t.events[i].flags & TP_EV_DROPPED) && t.events[i].ph == 'X')
            n[t.events[i].track]++;
    char **lines = tp_xmalloc((t.ntracks + 1) * sizeof *lines);
    size_t m = 0;
    for (size_t k = 0; k < t.ntracks; k++) {
        if (!n[k])
            continue;
        const tp_track *tk = &t.tracks[k];
        tp_str s = tk->name ? tk->name : tk->key;
        char tid[32];
        snprintf(tid, sizeof tid, "%lld", (long long)tk->tid);
        lines[m++] = line_of(t.processes[tk->process].pid, s ? tp_str_get(&t, s) : tid, n[k]);
    }
    *ntracks = m;
    free(n);
    tp_trace_free(&t);
    char *r = join_sorted(lines, m);
    free(lines);
    return r;
}

static char *pftrace_side(decoded *d, size_t *ntracks)
{
    char **lines = tp_xmalloc((d->ntr + 1) * sizeof *lines);
    size_t m = 0;
    for (size_t i = 0; i < d->ntr; i++) {
        dtrack *k = &d->tr[i];
        if (!k->begins)
            continue;
        int64_t pid = k->pid;
        if (!k->thread) {
            dtrack *p = find_track(d, k->parent);
            pid = p ? p->pid : -1;
        }
        char tid[32];
        snprintf(tid, sizeof tid, "%lld", (long long)k->tid);
        lines[m++] = line_of(pid, k->name[0] || !k->thread ? k->name : tid, k->begins);
    }
    *ntracks = m;
    char *r = join_sorted(lines, m);
    free(lines);
    return r;
}

/* Round trip: slices per track equal the JSON writer's, flows pair up, every
 * track's packets are in time order and nested, ids are in sequence. */
static void check_round_trip(const char *in, const char *tag)
{
    char out[256];
    snprintf(out, sizeof out, "%s", tp_test_tmp(tag));
    size_t len = 0;
    tp_pftrace_stats st;
    char *data = to_pftrace(in, out, &len, &st);
    CHECK(data != NULL);
    if (!data)
        return;
    decoded *d = tp_xmalloc(sizeof *d);
    CHECK_EQ_INT(decode(data, len, d), 0);
    CHECK(d->seq_ok);
    CHECK_EQ_INT(d->bad_iid, 0);
    CHECK_EQ_INT(d->packets, st.packets);
    CHECK_EQ_INT(d->ntr, st.tracks);
    uint64_t begins = 0, instants = 0, counters = 0;
    for (size_t i = 0; i < d->ntr; i++) {
        if (!d->tr[i].order_ok)
            tp_test_fail(__FILE__, __LINE__, "%s: track %s: packets out of time order or END without BEGIN", tag,
                         d->tr[i].name);
        CHECK_EQ_INT(d->tr[i].depth, 0);
        CHECK_EQ_INT(d->tr[i].begins, d->tr[i].ends);
        begins += d->tr[i].begins;
        instants += d->tr[i].instants;
        counters += d->tr[i].counters;
    }
    CHECK_EQ_INT(begins, st.slices);
    CHECK_EQ_INT(instants, st.instants);
    CHECK_EQ_INT(counters, st.counter_values);
    /* launch flows: each id on two slices (launch, device); input flow
     * chains: on two or more, or one when the rest found no slice */
    if (d->nflow) /* qsort of NULL is undefined even for 0 items (the TPU sample has no flows) */
        qsort(d->flow_ids, d->nflow, sizeof *d->flow_ids, cmp_u64);
    uint64_t paired = 0, twice = 0;
    for (size_t i = 0; i < d->nflow;) {
        size_t j = i;
        while (j < d->nflow && d->flow_ids[j] == d->flow_ids[i])
            j++;
        paired += j - i >= 2;
        twice += j - i == 2;
        i = j;
    }
    CHECK_EQ_INT(paired, st.flows + st.input_flows);
    CHECK(twice >= st.flows);
    uint64_t jflows = 0;
    size_t jtracks = 0, ptracks = 0;
    char *js = json_side(in, &jflows, &jtracks);
    char *ps = pftrace_side(d, &ptracks);
    CHECK(js != NULL);
    if (js)
        CHECK_STR(ps, js);
    CHECK_EQ_INT(ptracks, jtracks);
    CHECK_EQ_INT(st.flows, jflows);
    free(js);
    free(ps);
    free(d->seqs);
    free(d->flow_ids);
    free(d);
    free(data);
}

/* ---- the wire encoder ---- */

TEST(pftrace_wire_encoder_round_trips_through_pbwire)
{
    tp_buf b = {0};
    tp_pbw_uint(&b, 1, 0);
    tp_pbw_uint(&b, 2, 300);
    tp_pbw_int(&b, 3, -1);
    tp_pbw_fixed64(&b, 4, 0x0102030405060708ull);
    tp_pbw_double(&b, 5, 1.5);
    size_t m = tp_pbw_begin(&b, 6);
    for (int i = 0; i < 100; i++) /* 200 bytes: a two-byte length */
        tp_pbw_uint(&b, 1, (uint64_t)i);
    size_t inner = tp_pbw_begin(&b, 2);
    tp_pbw_bytes(&b, 3, "abc", 3);
    tp_pbw_end(&b, inner);
    tp_pbw_end(&b, m);
    uint64_t bad = 0;
    tp_pbw_utf8(&b, 7, "a\xff" "b", 3, &bad);
    CHECK_EQ_INT(bad, 1);
    /* known bytes of the first fields */
    CHECK(memcmp(b.data, "\x08\x00\x10\xac\x02\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 16) == 0);
    tp_pb r = tp_pb_init(b.data, b.len);
    tp_pb_field f;
    tp_err err = {0};
    uint64_t got[8] = {0};
    size_t sublen = 0;
    while (tp_pb_next(&r, &f, &err) == 1) {
        if (f.num <= 5)
            got[f.num] = f.v;
        if (f.num == 6) {
            sublen = f.len;
            tp_pb s = tp_pb_sub(&r, &f);
            tp_pb_field g;
            int n = 0;
            while (tp_pb_next(&s, &g, &err) == 1)
                n++;
            CHECK_EQ_INT(n, 101);
        }
        if (f.num == 7)
            CHECK(f.len == 5 && memcmp(f.data, "a\xEF\xBF\xBD" "b", 5) == 0);
    }
    CHECK(!err.set);
    CHECK_EQ_INT(sublen, 200 + 7);
    CHECK_EQ_INT(got[2], 300);
    CHECK_EQ_INT((int64_t)got[3], -1);
    CHECK(got[4] == 0x0102030405060708ull);
    CHECK(tp_pb_double(got[5]) == 1.5);
    tp_buf_free(&b);
}

/* ---- small inputs ---- */

TEST(pftrace_args_counters_instants_and_dump)
{
    const char *in = tp_test_write_text(
        "pf_small.json",
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5,"
        "\"args\":{\"s\":\"t\\u00e9xt\",\"i\":-7,\"d\":2.5,\"b\":true,\"n\":null,\"a\":[1, {\"x\": 2}],"
        "\"big\":123456789012345678901234567890}},"
        "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":2,\"ts\":11,\"dur\":0},"
        "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":2,\"ts\":12,\"s\":\"t\"},"
        "{\"ph\":\"i\",\"name\":\"everywhere\",\"pid\":1,\"tid\":2,\"ts\":13,\"s\":\"g\"},"
        "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"tid\":2,\"ts\":10,\"args\":{\"used\":5,\"free\":1.5}},"
        "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"tid\":2,\"ts\":20,\"args\":{\"used\":6}},"
        "{\"ph\":\"b\",\"name\":\"async\",\"pid\":1,\"tid\":2,\"ts\":10,\"id\":1}"
        "]}");
    size_t len;
    tp_pftrace_stats st;
    char *data = to_pftrace(in, tp_test_tmp("pf_small.pftrace"), &len, &st);
    CHECK(data != NULL);
    if (!data)
        return;
    CHECK_EQ_INT(st.slices, 2);
    CHECK_EQ_INT(st.instants, 2);
    CHECK_EQ_INT(st.counter_values, 3);
    CHECK_EQ_INT(st.not_written, 1);
    CHECK_EQ_INT(st.tracks, 1 + 1 + 1 + 2); /* process, global instants, thread, 2 counter series */
    tp_buf txt = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_pftrace_dump(data, len, &txt, &err), 0);
    /* string values are interned: the value once in the interned data, its iid on the annotation */
    CHECK(strstr(txt.data, "debug_annotation_string_values {\n") != NULL);
    CHECK(strstr(txt.data, "str: \"t\xc3\xa9xt\"") != NULL);
    CHECK(strstr(txt.data, "string_value_iid: 1") != NULL);
    CHECK(strstr(txt.data, "int_value: -7") != NULL);
    CHECK(strstr(txt.data, "double_value: 2.5") != NULL);
    CHECK(strstr(txt.data, "bool_value: 1") != NULL);
    CHECK(strstr(txt.data, "legacy_json_value: \"null\"") != NULL);
    CHECK(strstr(txt.data, "legacy_json_value: \"[1,{\\\"x\\\":2}]\"") != NULL);
    CHECK(strstr(txt.data, "legacy_json_value: \"123456789012345678901234567890\"") != NULL);
    CHECK(strstr(txt.data, "name: \"mem used\"") != NULL);
    CHECK(strstr(txt.data, "name: \"mem free\"") != NULL);
    CHECK(strstr(txt.data, "double_counter_value: 1.5") != NULL);
    CHECK(strstr(txt.data, "name: \"Global instants\"") != NULL);
    CHECK(strstr(txt.data, "type: TYPE_INSTANT") != NULL);
    /* the zero-length slice nests inside op: BEGIN op, BEGIN inner, END inner, ... */
    const char *b1 = strstr(txt.data, "type: TYPE_SLICE_BEGIN");
    CHECK(b1 && strstr(b1 + 1, "type: TYPE_SLICE_BEGIN") < strstr(b1, "type: TYPE_SLICE_END"));
    tp_buf_free(&txt);
    free(data);
}

TEST(pftrace_invalid_args_are_kept_as_one_string)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_event e;
    tp_event_init(&e);
    e.track = tp_track_get(&t, tp_process_get(&t, 1), 1);
    e.name = tp_intern_cstr(&t, "x");
    e.dur = 10;
    e.args = tp_args_add(&t, "{\"a\":nope}", 10);
    tp_event_add(&t, &e);
    tp_err err = {0};
    const char *path = tp_test_tmp("pf_bad.pftrace");
    tp_out *o = tp_out_open(path, NULL, &err);
    tp_pftrace_stats st;
    tp_write_pftrace(&t, o, &st);
    CHECK_EQ_INT(tp_out_commit(o, &err), 0);
    CHECK_EQ_INT(st.invalid_args, 1);
    size_t len;
    char *data = tp_test_read_file(path, &len);
    tp_buf txt = {0};
    CHECK_EQ_INT(tp_pftrace_dump(data, len, &txt, &err), 0);
    CHECK(strstr(txt.data, "name: \"invalid_args\"") != NULL);
    CHECK(strstr(txt.data, "string_value: \"{\\\"a\\\":nope}\"") != NULL);
    tp_buf_free(&txt);
    free(data);
    tp_trace_free(&t);
}

/* ---- the example and real samples ---- */

TEST(golden_example_pftrace)
{
    size_t len;
    tp_pftrace_stats st;
    char *data = to_pftrace("golden/example.pt.trace.json", tp_test_tmp("example.pftrace"), &len, &st);
    CHECK(data != NULL);
    if (!data)
        return;
    tp_buf txt = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_pftrace_dump(data, len, &txt, &err), 0);
    CHECK_GOLDEN("convert/example.pftrace.txt", txt.data, txt.len);
    CHECK(st.flows > 0);
    tp_buf_free(&txt);
    free(data);
}

TEST(pftrace_round_trip_matches_json_writer)
{
    check_round_trip("golden/example.pt.trace.json", "rt_example.pftrace");
    static const char *const samples[] = {
        "external/kineto/hta_critical_path_alexnet_2023.json.gz",
        "external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz",
        "external/kineto/hta_amd_mi250_rocm6_2.json.gz",
        "external/kineto/hta_triton_example.json.gz",
        NULL,
    };
    for (int i = 0; samples[i]; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "rt_%d.pftrace", i);
        check_round_trip(tp_test_shared(samples[i]), tag);
    }
}

TEST(pftrace_xplane_round_trip_matches_json_writer)
{
    static const char *const samples[] = {
        "external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb",
        "external/xplane/tpu_inference_2.xplane.pb",
        "external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb",
        NULL,
    };
    for (int i = 0; samples[i]; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "rt_xplane_%d.pftrace", i);
        check_round_trip(tp_test_shared(samples[i]), tag);
    }
}

/* Tracks cut into many chunks (sequences): still the JSON writer's slices,
 * nested, in order; and the same bytes from 1 and from 4 threads. */
TEST(pftrace_chunks_round_trip_and_do_not_depend_on_threads)
{
    const char *in = tp_test_shared("external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb");
    setenv("TP_PF_CHUNK_EVENTS", "50", 1);
    check_round_trip(in, "rt_chunks.pftrace");
    check_round_trip(tp_test_shared("external/kineto/hta_critical_path_alexnet_2023.json.gz"), "rt_chunks_k.pftrace");
    const char *a = tp_test_tmp("chunks_1.pftrace"), *b = tp_test_tmp("chunks_4.pftrace");
    CHECK_EQ_INT(tp_test_run(NULL, "TP_THREADS=1 %s convert -q '%s' -o %s", tp_test_bin(), in, a), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "TP_THREADS=4 %s convert -q '%s' -o %s", tp_test_bin(), in, b), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", a, b), 0);
    unsetenv("TP_PF_CHUNK_EVENTS");
    size_t la, lb;
    char *x = tp_test_read_file(a, &la);
    CHECK_EQ_INT(tp_test_run(NULL, "TP_THREADS=3 %s convert -q '%s' -o %s", tp_test_bin(), in, b), 0);
    char *y = tp_test_read_file(b, &lb);
    CHECK(x && y && la != lb); /* the chunk size is what changes the bytes */
    free(x);
    free(y);
}

TEST(pftrace_cli_decodes_with_protoc_is_deterministic_and_gzips)
{
    const char *a = tp_test_tmp("cli_a.pftrace"), *b = tp_test_tmp("cli_b.pftrace"),
               *gz = tp_test_tmp("cli_c.pftrace.gz");
    const char *in = tp_test_shared("external/kineto/hta_critical_path_alexnet_2023.json.gz");
    char *log = NULL;
    CHECK_EQ_INT(tp_test_run(&log, "%s convert '%s' -o %s", tp_test_bin(), in, a), 0);
    CHECK(log && strstr(log, "launch flows") && strstr(log, " events in, "));
    free(log);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o %s", tp_test_bin(), in, b), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o %s", tp_test_bin(), in, gz), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "cmp -s %s %s", a, b), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -dc %s | cmp -s - %s", gz, a), 0);
    if (tp_test_have("protoc")) {
        CHECK_EQ_INT(tp_test_run(NULL, "protoc --decode_raw < %s > /dev/null", a), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q golden/example.pt.trace.json -o %s && "
                                       "protoc --decode_raw < %s > /dev/null",
                                 tp_test_bin(), a, a),
                     0);
    } else
        printf("  note: protoc not installed: skipped the protoc --decode_raw check\n");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q --split steps '%s' -o %s", tp_test_bin(), in,
                             tp_test_tmp("cli_split.pftrace")),
                 1); /* --split writes JSON only */
    char *help = NULL;
    CHECK_EQ_INT(tp_test_run(&help, "%s help convert", tp_test_bin()), 0);
    CHECK(help && strstr(help, ".pftrace"));
    free(help);
}

TEST(pftrace_input_flows_bind_to_slices)
{
    /* fwdbwd-style flows: 's' inside fwd, 'f' (bp e) inside bwd on another
     * thread; a second chain reusing the id; one 'f' (no bp) before its slice;
     * one 's' outside any slice (not written) */
    const char *in = tp_test_write_text(
        "pf_flows.json",
        "[{\"ph\":\"X\",\"name\":\"fwd\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
        "{\"ph\":\"s\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":1},"
        "{\"ph\":\"X\",\"name\":\"bwd\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":10},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":7,\"pid\":1,\"tid\":2,\"ts\":21},"
        "{\"ph\":\"X\",\"name\":\"fwd2\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":10},"
        "{\"ph\":\"s\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":41},"
        "{\"ph\":\"f\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":7,\"pid\":1,\"tid\":2,\"ts\":55},"
        "{\"ph\":\"X\",\"name\":\"bwd2\",\"pid\":1,\"tid\":2,\"ts\":60,\"dur\":10},"
        "{\"ph\":\"s\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":9,\"pid\":1,\"tid\":1,\"ts\":100}]");
    size_t len;
    tp_pftrace_stats st;
    char *data = to_pftrace(in, tp_test_tmp("pf_flows.pftrace"), &len, &st);
    CHECK(data != NULL);
    if (!data)
        return;
    CHECK_EQ_INT(st.input_flows, 2);
    CHECK_EQ_INT(st.not_written, 1);
    decoded *d = tp_xmalloc(sizeof *d);
    CHECK_EQ_INT(decode(data, len, d), 0);
    CHECK_EQ_INT(d->nflow, 4);
    qsort(d->flow_ids, d->nflow, sizeof *d->flow_ids, cmp_u64);
    CHECK(d->nflow == 4 && d->flow_ids[0] == d->flow_ids[1] && d->flow_ids[2] == d->flow_ids[3] &&
          d->flow_ids[1] != d->flow_ids[2]);
    tp_buf txt = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_pftrace_dump(data, len, &txt, &err), 0);
    /* the 'f' without "bp":"e" at 55 binds to the next slice, bwd2: its
     * packet (which interns the name) carries a flow id */
    const char *bwd2 = strstr(txt.data, "name: \"bwd2\"");
    CHECK(bwd2 != NULL);
    if (bwd2) {
        const char *pk = bwd2;
        while (pk > txt.data && strncmp(pk, "\npacket {", 9) != 0)
            pk--;
        const char *fl = strstr(pk, "flow_ids:");
        CHECK(fl != NULL && fl < bwd2);
    }
    free(d->seqs);
    free(d->flow_ids);
    free(d);
    tp_buf_free(&txt);
    free(data);
}
