/* test_plaidml.c: the PlaidML event log reader on the real 2017 sample and on
 * synthetic logs of the current schema (encoded here with pbenc.h), the
 * Program Run analysis, truncations, and the command line. */
#include "convert/read/formats.h"
#include "tests/lib/harness.h"
#include "convert/read/plaidml/plaidml_opts.h"
#include "convert/model/model.h"

#include <stdlib.h>

/* Read PATH with the PlaidML reader; 0 or -1 (err filled). */
static int load(const char *path, tp_trace *t, bool keep_args, bool with_source, tp_err *err)
{
    tp_trace_init(t);
    t->keep_args = keep_args;
    tp_input *in = tp_input_open(path, err);
    if (!in)
        return -1;
    tp_read_opts o = {0};
    o.keep_args = keep_args;
    tp_plaidml_opts po = {.with_source = with_source};
    tp_format_opts_set(&o, &tp_format_plaidml, &po);
    int rc = tp_format_plaidml.read(in, t, &o, err);
    tp_input_close(in);
    return rc;
}

/* Kernel executions grouped by name: count, total. */
typedef struct kstat {
    tp_str name;
    uint64_t count;
    int64_t total;
} kstat;

static size_t group_kernels(const tp_trace *t, kstat **out, uint64_t *runs, int64_t *total)
{
    kstat *ks = NULL;
    size_t n = 0, cap = 0;
    *runs = 0;
    *total = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_KERNEL)
            continue;
        size_t j = 0;
        while (j < n && ks[j].name != e->name)
            j++;
        if (j == n) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                ks = realloc(ks, cap * sizeof *ks);
            }
            ks[n++] = (kstat){e->name, 0, 0};
        }
        ks[j].count++;
        ks[j].total += e->dur;
        (*runs)++;
        *total += e->dur;
    }
    *out = ks;
    return n;
}

TEST(plaidml_2017_sample_kernel_totals)
{
    tp_trace t;
    tp_err err = {0};
    int rc = load(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &t, false, false, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(t.events_in, 145823);
    kstat *ks;
    uint64_t runs;
    int64_t total;
    size_t n = group_kernels(&t, &ks, &runs, &total);
    CHECK_EQ_INT(runs, 19598);
    CHECK_EQ_INT(n, 193);
    CHECK_EQ_INT(total, 3485728682LL);
    size_t top = 0;
    for (size_t i = 1; i < n; i++)
        if (ks[i].total > ks[top].total)
            top = i;
    CHECK_STR(tp_str_get(&t, ks[top].name), "kernel_c4_sdk_2");
    CHECK_EQ_INT(ks[top].count, 156);
    CHECK_EQ_INT(ks[top].total, 746985832LL);
    free(ks);
    tp_trace_free(&t);
}

#include "report/formats/plaidml/plaidml_program_run.h"

/* Timeline rows: no two bars of a row overlap; a child is below its parent. */
static void check_rows(const tp_trace *t, const tp_pml_program_run *r)
{
    CHECK(r->nrows > 0);
    for (size_t i = 0; i < r->nitems; i++) {
        const tp_event *a = &t->events[r->items[i].event];
        CHECK(r->items[i].row < r->nrows);
        for (size_t j = i + 1; j < r->nitems; j++) {
            const tp_event *b = &t->events[r->items[j].event];
            if (r->items[j].row == r->items[i].row && b->ts < a->ts + a->dur && a->ts < b->ts + b->dur) {
                CHECK(!"two bars overlap in one row");
                return;
            }
            if ((b->link == r->items[i].event || b->op == r->items[i].event) && r->items[j].row <= r->items[i].row) {
                CHECK(!"child not below its parent");
                return;
            }
        }
    }
}

TEST(plaidml_2017_program_run_eleventh_invocation)
{
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &t, false, false, &err), 0);
    tp_pml_program_run r;
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, TP_PML_DEFAULT_INVOCATION, false, &r, &err), 0);
    /* cross-checked with an independent Python decode of the sample */
    CHECK_EQ_INT(r.ninvocations, 473);
    CHECK_EQ_INT(r.invocation, 11);
    CHECK_EQ_INT(r.nitems, 278);
    CHECK_EQ_INT(r.ndescendants, 262);
    CHECK_EQ_INT(r.nexecutions, 65);
    CHECK_EQ_INT(r.nmapping, 15);
    CHECK_EQ_INT(r.t1 - r.t0, 29585986);
    CHECK_EQ_INT(r.items[0].event, r.event);
    CHECK_EQ_INT(r.items[0].role, TP_PML_ITEM_INVOCATION);
    CHECK_EQ_INT(r.items[0].row, 0);
    check_rows(&t, &r);
    CHECK_STR(tp_str_get(&t, r.top_total.kernel), "kernel_c4_sdk_2");
    CHECK_EQ_INT(r.top_total.runs, 156);
    CHECK_EQ_INT(r.top_total.total_ns, 746985832);
    CHECK_STR(tp_str_get(&t, r.top_mean.kernel), "kernel_c4_sdk_2");
    CHECK_EQ_INT(r.top_mean.mean_ns, 4788371); /* 746985832 / 156, rounded */
    /* program c4_sdk: tmp_sizes 8 sizes, 67 temporaries; alloc_sizes 8 sizes, 30 allocations */
    CHECK_STR(r.top_total.program, "c4_sdk");
    CHECK_EQ_INT(r.top_total.ntmp, 8);
    CHECK_EQ_INT(r.top_total.tmp_count, 67);
    CHECK_EQ_INT(r.top_total.tmp_bytes, 6370696);
    CHECK_EQ_INT(r.top_total.nalloc, 8);
    CHECK_EQ_INT(r.top_total.alloc_count, 30);
    CHECK_EQ_INT(r.top_total.alloc_bytes, 1383264);
    CHECK_EQ_INT(r.top_total.tmp[0].size, 401408);
    CHECK_EQ_INT(r.top_total.tmp[0].count, 12);
    tp_pml_program_run_free(&r);
    /* asking for more invocations than there are */
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, 474, false, &r, &err), -1);
    tp_pml_program_run_free(&r);
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, 474, true, &r, &err), 0);
    CHECK_EQ_INT(r.invocation, 473);
    tp_pml_program_run_free(&r);
    tp_trace_free(&t);
}

/* ---- synthetic logs of the current schema, built from the spec ---- */

#include "tests/lib/pbenc.h"

#include <zlib.h>

typedef struct synth {
    pbe out;               /* the decompressed log */
    size_t bounds[64];     /* byte offset where each record ends */
    size_t nrec;
} synth;

static void rec_add(synth *s, const pbe *record)
{
    pbe_varint(&s->out, record->len);
    pbe_put(&s->out, record->d, record->len);
    if (s->nrec < 64)
        s->bounds[s->nrec] = s->out.len;
    s->nrec++;
}

static void synth_magic(synth *s)
{
    pbe m = {0}, r = {0};
    pbe_uint(&m, 1, 0x4C747645u);
    pbe_msg(&r, 1, &m);
    rec_add(s, &r);
    pbe_free(&m);
    pbe_free(&r);
}

/* ActivityID {1 index, 2 stream_uuid} */
static void put_id(pbe *b, uint32_t field, uint64_t index, const char *uuid16)
{
    pbe id = {0};
    if (index)
        pbe_uint(&id, 1, index);
    if (uuid16)
        pbe_bytes(&id, 2, uuid16, 16);
    pbe_msg(b, field, &id);
    pbe_free(&id);
}

static void put_time(pbe *b, uint32_t field, int64_t ns)
{
    pbe d = {0};
    if (ns / 1000000000)
        pbe_uint(&d, 1, (uint64_t)(ns / 1000000000));
    if (ns % 1000000000)
        pbe_uint(&d, 2, (uint64_t)(ns % 1000000000));
    pbe_msg(b, field, &d);
    pbe_free(&d);
}

static void synth_event(synth *s, const pbe *ev)
{
    pbe r = {0};
    pbe_msg(&r, 2, ev);
    rec_add(s, &r);
    pbe_free(&r);
}

/* start event (host clock: no clock id) */
static void ev_start(synth *s, uint64_t parent, uint64_t act, const char *verb, int64_t start, const char *uuid)
{
    pbe e = {0};
    put_id(&e, 1, parent, NULL);
    put_id(&e, 2, act, uuid);
    pbe_str(&e, 3, verb);
    put_time(&e, 5, start);
    put_id(&e, 8, 0, NULL);
    synth_event(s, &e);
    pbe_free(&e);
}

static void ev_end(synth *s, uint64_t act, int64_t end)
{
    pbe e = {0};
    put_id(&e, 2, act, NULL);
    put_time(&e, 6, end);
    synth_event(s, &e);
    pbe_free(&e);
}

/* device activity: one complete event on clock `clock` */
static void ev_device(synth *s, uint64_t parent, uint64_t act, const char *verb, uint64_t clock, int64_t start,
                      int64_t end)
{
    pbe e = {0}, c = {0};
    put_id(&e, 1, parent, NULL);
    put_id(&e, 2, act, NULL);
    pbe_str(&e, 3, verb);
    pbe_uint(&c, 1, clock);
    pbe_msg(&e, 4, &c);
    put_time(&e, 5, start);
    put_time(&e, 6, end);
    put_id(&e, 8, 0, NULL);
    synth_event(s, &e);
    pbe_free(&e);
    pbe_free(&c);
}

static void ev_meta(synth *s, uint64_t act, const char *type, const pbe *value)
{
    pbe e = {0}, any = {0};
    char url[200];
    snprintf(url, sizeof url, "type.vertex.ai/%s", type);
    put_id(&e, 2, act, NULL);
    pbe_str(&any, 1, url);
    pbe_msg(&any, 2, value);
    pbe_msg(&e, 7, &any);
    synth_event(s, &e);
    pbe_free(&e);
    pbe_free(&any);
}

static void size_entry(pbe *b, uint32_t field, uint64_t size, uint64_t count)
{
    pbe m = {0};
    pbe_uint(&m, 1, size);
    pbe_uint(&m, 2, count);
    pbe_msg(b, field, &m);
    pbe_free(&m);
}

#define S(x) ((int64_t)(x) * 1000000000LL)
#define MS(x) ((int64_t)(x) * 1000000LL)
#define OFFSET (S(1000) + MS(2) - 1900) /* device clock shift: max(parent start - child start) */

/* The known-answer log: one invocation compiling two kernels kA, kB and
 * running each once on device clock 1; see the CHECKs for the answers. */
static void synth_log(synth *s)
{
    const char *uuid = "0123456789abcdef";
    synth_magic(s);
    ev_start(s, 0, 1, "plaidml::invoker::ScheduleInvocation", S(1000), uuid);
    ev_start(s, 1, 2, "tile::local_machine::Compile", S(1000) + 100, NULL);
    ev_start(s, 2, 3, "tile::hal::opencl::BuildKernel", S(1000) + 200, NULL);
    pbe ki = {0}, lk = {0}, sub = {0};
    pbe_str(&ki, 1, "kA");
    pbe_str(&ki, 2, "__kernel void kA() {}");
    pbe_msg(&lk, 2, &sub); /* contraction */
    pbe_uint(&lk, 101, 1000);
    pbe_uint(&lk, 102, 500);
    pbe_msg(&ki, 3, &lk);
    ev_meta(s, 3, "vertexai.tile.hal.opencl.proto.KernelInfo", &ki);
    ev_end(s, 3, S(1000) + 300);
    pbe_free(&ki);
    pbe_free(&lk);
    ev_start(s, 2, 4, "tile::hal::opencl::BuildKernel", S(1000) + 400, NULL);
    pbe_str(&ki, 1, "kB");
    pbe_uint(&sub, 1, 1); /* zero { copy: true } */
    pbe_msg(&lk, 3, &sub);
    pbe_msg(&ki, 3, &lk);
    ev_meta(s, 4, "vertexai.tile.hal.opencl.proto.KernelInfo", &ki);
    ev_end(s, 4, S(1000) + 500);
    pbe_free(&ki);
    pbe_free(&lk);
    pbe_free(&sub);
    pbe ci = {0}, prog = {0}, kmap = {0};
    pbe_str(&prog, 1, "p1");
    pbe_str(&prog, 2, "d1");
    pbe_str(&prog, 3, "function () -> () {}");
    pbe_msg(&ci, 1, &prog);
    size_entry(&ci, 2, 1024, 2);
    size_entry(&ci, 2, 64, 3);
    size_entry(&ci, 3, 1024, 1);
    pbe_str(&kmap, 1, "kA");
    pbe_msg(&ci, 4, &kmap);
    pbe_free(&kmap);
    pbe_str(&kmap, 1, "kB");
    pbe_msg(&ci, 4, &kmap);
    ev_meta(s, 2, "vertexai.tile.hal.proto.CompilationInfo", &ci);
    pbe_free(&ci);
    pbe_free(&prog);
    pbe_free(&kmap);
    ev_end(s, 2, S(1000) + 600);
    ev_start(s, 1, 5, "tile::local_machine::Program::Run", S(1000) + MS(1) - 10, NULL);
    pbe unk = {0};
    pbe_str(&unk, 1, "1234567"); /* 9 bytes */
    ev_meta(s, 5, "foo.Bar", &unk);
    pbe_free(&unk);
    /* run kA */
    ev_start(s, 5, 6, "tile::hal::opencl::Kernel::Run", S(1000) + MS(1), NULL);
    pbe ri = {0};
    put_id(&ri, 1, 3, NULL);
    ev_meta(s, 6, "vertexai.tile.hal.opencl.proto.RunInfo", &ri);
    pbe_free(&ri);
    ev_device(s, 6, 7, "tile::hal::opencl::HostQueue", 1, 500, 550);
    ev_device(s, 6, 8, "tile::hal::opencl::DevQueue", 1, 550, 600);
    ev_device(s, 6, 9, "tile::hal::opencl::Executing", 1, 600, 900);
    ev_end(s, 6, S(1000) + MS(1) + 50);
    /* run kB */
    ev_start(s, 5, 10, "tile::hal::opencl::Kernel::Run", S(1000) + MS(2), NULL);
    put_id(&ri, 1, 4, NULL);
    ev_meta(s, 10, "vertexai.tile.hal.opencl.proto.RunInfo", &ri);
    pbe_free(&ri);
    ev_device(s, 10, 11, "tile::hal::opencl::HostQueue", 1, 1900, 1950);
    ev_device(s, 10, 12, "tile::hal::opencl::DevQueue", 1, 1950, 2000);
    ev_device(s, 10, 13, "tile::hal::opencl::Executing", 1, 2000, 2600);
    ev_end(s, 10, S(1000) + MS(2) + 50);
    ev_end(s, 5, S(1000) + MS(3));
    ev_end(s, 1, S(1000) + MS(10));
    /* after the invocation: a buffer mapping, and an activity never ended */
    ev_start(s, 0, 14, "vertexai::AllocBuffer", S(1000) + MS(20), NULL);
    ev_start(s, 0, 15, "vertexai::GetMapBase", S(1000) + MS(25), NULL);
    ev_end(s, 15, S(1000) + MS(30));
    /* an event without an activity id (skipped), and a second stream whose
     * index 1 is a different activity */
    pbe e = {0};
    pbe_str(&e, 3, "no id");
    synth_event(s, &e);
    pbe_free(&e);
    ev_start(s, 0, 1, "vertexai::OpenDevices", S(1000) + MS(31), "fedcba9876543210");
    ev_end(s, 1, S(1000) + MS(32));
}

static const char *write_tmp(const char *name, const void *d, size_t n, bool gz)
{
    const char *path = tp_test_tmp(name);
    if (gz) {
        gzFile f = gzopen(path, "wb");
        gzwrite(f, d, (unsigned)n);
        gzclose(f);
    } else {
        FILE *f = fopen(path, "wb");
        fwrite(d, 1, n, f);
        fclose(f);
    }
    return path;
}

static uint32_t find_event(const tp_trace *t, const char *cat, const char *name)
{
    for (size_t i = 0; i < t->nevents; i++)
        if (strcmp(tp_str_get(t, t->events[i].cat), cat) == 0 &&
            (!name || strcmp(tp_str_get(t, t->events[i].name), name) == 0))
            return (uint32_t)i;
    return TP_NONE;
}

TEST(plaidml_synthetic_current_schema_known_answers)
{
    synth s = {0};
    synth_log(&s);
    const char *path = write_tmp("synth.eventlog.gz", s.out.d, s.out.len, true);
    tp_trace t;
    tp_err err = {0};
    int rc = load(path, &t, true, false, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
    CHECK_EQ_INT(rc, 0);
    CHECK_STR(t.format, "plaidml");
    CHECK_EQ_INT(t.events_in, s.nrec - 1);
    CHECK_EQ_INT(t.nevents, 16); /* 15 activities in stream 1 + 1 in stream 2 */
    CHECK_EQ_INT(tp_warning_count(&t, "plaidml: event without activity id (skipped)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "plaidml: activity without end (ends at the last time on its clock)"), 1);

    uint64_t runs;
    int64_t total;
    kstat *ks;
    size_t n = group_kernels(&t, &ks, &runs, &total);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(runs, 2);
    CHECK_EQ_INT(total, 900);
    free(ks);

    uint32_t exA = find_event(&t, "tile::hal::opencl::Executing", "kA");
    uint32_t exB = find_event(&t, "tile::hal::opencl::Executing", "kB");
    uint32_t runA = TP_NONE, runB = TP_NONE;
    for (size_t i = 0; i < t.nevents; i++)
        if (strcmp(tp_str_get(&t, t.events[i].cat), "tile::hal::opencl::Kernel::Run") == 0)
            *(runA == TP_NONE ? &runA : &runB) = (uint32_t)i;
    CHECK(exA != TP_NONE && exB != TP_NONE && runA != TP_NONE && runB != TP_NONE);
    if (exA == TP_NONE || exB == TP_NONE || runA == TP_NONE || runB == TP_NONE)
        return;
    const tp_event *a = &t.events[exA], *b = &t.events[exB];
    CHECK_EQ_INT(a->kind, TP_KIND_KERNEL);
    CHECK_EQ_INT(a->ts, 600 + OFFSET);
    CHECK_EQ_INT(a->dur, 300);
    CHECK_EQ_INT(b->ts, 2000 + OFFSET);
    CHECK_EQ_INT(b->ts, S(1000) + MS(2) + 100); /* kB's HostQueue starts exactly at its Kernel::Run */
    CHECK_EQ_INT(a->link, runA);
    CHECK_EQ_INT(b->link, runB);
    CHECK_EQ_INT(t.events[runA].kind, TP_KIND_RUNTIME);
    size_t alen;
    const char *args = tp_args_get(&t, t.events[runA].args, &alen);
    CHECK(args && strstr(args, "\"kernel\":\"kA\""));
    args = tp_args_get(&t, a->args, &alen);
    CHECK(args && strstr(args, "\"kernel_type\":\"contraction\"") && strstr(args, "\"flops\":1000") &&
          strstr(args, "\"bytes\":500"));
    args = tp_args_get(&t, b->args, &alen);
    CHECK(args && strstr(args, "\"kernel_type\":\"copy\""));
    /* queue waits: same kernel name, not kernels, on their own device tracks */
    uint32_t hq = find_event(&t, "tile::hal::opencl::HostQueue", "kA");
    CHECK(hq != TP_NONE);
    if (hq != TP_NONE) {
        CHECK_EQ_INT(t.events[hq].kind, TP_KIND_OTHER);
        CHECK_EQ_INT(t.events[hq].op, runA);
        CHECK(t.events[hq].track != a->track);
        CHECK(t.processes[t.tracks[a->track].process].is_device);
        CHECK_STR(tp_str_get(&t, t.tracks[a->track].name), "Executing");
        CHECK_STR(tp_str_get(&t, t.tracks[t.events[hq].track].name), "Host queue");
    }
    /* host nesting: Kernel::Run -> Program::Run -> invocation on one host track */
    uint32_t inv = find_event(&t, "plaidml::invoker::ScheduleInvocation", NULL);
    uint32_t prun = find_event(&t, "tile::local_machine::Program::Run", NULL);
    CHECK(inv != TP_NONE && prun != TP_NONE);
    if (inv != TP_NONE && prun != TP_NONE) {
        CHECK_EQ_INT(t.events[prun].op, inv);
        CHECK_EQ_INT(t.events[runA].op, prun);
        CHECK_EQ_INT(t.events[runA].track, t.events[inv].track);
        CHECK_EQ_INT(t.events[inv].kind, TP_KIND_HOST_OP);
        args = tp_args_get(&t, t.events[prun].args, &alen);
        CHECK(args && strstr(args, "\"foo.Bar\":9"));
    }
    /* an activity without end ends at the last time on its stream's host
     * clock (stream 2's clock, which ends at 32 ms, is another clock) */
    uint32_t ab = find_event(&t, "vertexai::AllocBuffer", NULL);
    CHECK(ab != TP_NONE);
    if (ab != TP_NONE)
        CHECK_EQ_INT(t.events[ab].dur, MS(30) - MS(20));
    /* the second stream's activity 1 is its own activity */
    CHECK(find_event(&t, "vertexai::OpenDevices", NULL) != TP_NONE);
    /* sources only with --with-source */
    uint32_t bk = find_event(&t, "tile::hal::opencl::BuildKernel", NULL);
    args = bk != TP_NONE ? tp_args_get(&t, t.events[bk].args, &alen) : NULL;
    CHECK(args && strstr(args, "\"kernel\":\"kA\"") && !strstr(args, "__kernel"));

    tp_pml_program_run r;
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, TP_PML_DEFAULT_INVOCATION, true, &r, &err), 0);
    CHECK_EQ_INT(r.ninvocations, 1);
    CHECK_EQ_INT(r.invocation, 1);
    CHECK_EQ_INT(r.ndescendants, 12);
    CHECK_EQ_INT(r.nexecutions, 2);
    CHECK_EQ_INT(r.nmapping, 1);
    CHECK_EQ_INT(r.t0, S(1000));
    check_rows(&t, &r);
    CHECK_EQ_INT(r.t1, S(1000) + MS(30));
    CHECK_STR(tp_str_get(&t, r.top_total.kernel), "kB");
    CHECK_STR(tp_str_get(&t, r.top_mean.kernel), "kB");
    CHECK_STR(r.top_total.program, "p1");
    CHECK_EQ_INT(r.top_total.tmp_count, 5);
    CHECK_EQ_INT(r.top_total.tmp_bytes, 2240);
    CHECK_EQ_INT(r.top_total.alloc_count, 1);
    CHECK_EQ_INT(r.top_total.alloc_bytes, 1024);
    tp_pml_program_run_free(&r);
    tp_trace_free(&t);

    CHECK_EQ_INT(load(path, &t, true, true, &err), 0);
    bk = find_event(&t, "tile::hal::opencl::BuildKernel", NULL);
    args = bk != TP_NONE ? tp_args_get(&t, t.events[bk].args, &alen) : NULL;
    CHECK(args && strstr(args, "__kernel void kA() {}"));
    tp_trace_free(&t);
    pbe_free(&s.out);
}

TEST(plaidml_every_truncation_is_clean)
{
    synth s = {0};
    synth_log(&s);
    CHECK(s.nrec < 64);
    for (size_t cut = 1; cut < s.out.len; cut++) {
        const char *path = write_tmp("cut.eventlog", s.out.d, cut, false);
        tp_trace t;
        tp_err err = {0};
        int rc = load(path, &t, true, false, &err);
        size_t rec = 0; /* the record the cut falls in (0-based) */
        while (rec < s.nrec && s.bounds[rec] <= cut)
            rec++;
        bool boundary = rec > 0 && s.bounds[rec - 1] == cut;
        if (boundary) {
            CHECK_EQ_INT(rc, 0);
        } else {
            char want[32];
            snprintf(want, sizeof want, "record %zu", rec + 1);
            CHECK_EQ_INT(rc, -1);
            CHECK_STR(err.where, want);
        }
        tp_trace_free(&t);
    }
    pbe_free(&s.out);
}

TEST(plaidml_truncated_gzip_names_the_record)
{
    /* the first 1 MB of the real 2017 log */
    size_t len;
    char *gz = tp_test_read_file(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &len);
    CHECK(gz && len > (1u << 20));
    if (!gz)
        return;
    const char *path = write_tmp("cut2017.gz", gz, 1u << 20, false);
    free(gz);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(path, &t, false, false, &err), -1);
    CHECK(strncmp(err.where, "record ", 7) == 0);
    CHECK(strstr(err.msg, "truncated") != NULL);
    tp_trace_free(&t);
}

TEST(plaidml_hello_log_is_empty_but_valid)
{
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(tp_test_shared("external/plaidml/plaidml_hello_eventlog.gz"), &t, true, false, &err), 0);
    CHECK_EQ_INT(t.events_in, 1);
    CHECK_EQ_INT(t.nevents, 0);
    CHECK_EQ_INT(tp_warning_count(&t, "plaidml: event without activity id (skipped)"), 1);
    tp_pml_program_run r;
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, TP_PML_DEFAULT_INVOCATION, true, &r, &err), 0);
    CHECK_EQ_INT(r.ninvocations, 0);
    CHECK_EQ_INT(r.nitems, 0);
    CHECK_EQ_INT(r.top_total.kernel, 0);
    tp_pml_program_run_free(&r);
    tp_trace_free(&t);
}

TEST(plaidml_bad_records_fail_cleanly)
{
    tp_trace t;
    tp_err err = {0};
    /* not a magic first record */
    const unsigned char notmagic[] = {0x03, 0x12, 0x01, 0x1a};
    CHECK_EQ_INT(load(write_tmp("nomagic", notmagic, sizeof notmagic, false), &t, true, false, &err), -1);
    CHECK_STR(err.where, "record 1");
    tp_trace_free(&t);
    /* wrong magic value */
    const unsigned char badmagic[] = {0x04, 0x0a, 0x02, 0x08, 0x05};
    err = (tp_err){0};
    CHECK_EQ_INT(load(write_tmp("badmagic", badmagic, sizeof badmagic, false), &t, true, false, &err), -1);
    CHECK(strstr(err.msg, "magic") != NULL);
    tp_trace_free(&t);
    /* a record with neither magic nor event; an absurd length */
    const unsigned char empty[] = {0x08, 0x0a, 0x06, 0x08, 0xc5, 0xec, 0xd1, 0xe3, 0x04, 0x02, 0x18, 0x01};
    err = (tp_err){0};
    CHECK_EQ_INT(load(write_tmp("empty", empty, sizeof empty, false), &t, true, false, &err), -1);
    CHECK_STR(err.where, "record 2");
    tp_trace_free(&t);
    const unsigned char huge[] = {0x08, 0x0a, 0x06, 0x08, 0xc5, 0xec, 0xd1, 0xe3, 0x04, 0xff, 0xff, 0xff, 0xff, 0x0f};
    err = (tp_err){0};
    CHECK_EQ_INT(load(write_tmp("huge", huge, sizeof huge, false), &t, true, false, &err), -1);
    CHECK_STR(err.where, "record 2");
    tp_trace_free(&t);
    /* a malformed Event (length past its end) inside a well-framed record */
    const unsigned char badev[] = {0x08, 0x0a, 0x06, 0x08, 0xc5, 0xec, 0xd1, 0xe3, 0x04, 0x04, 0x12, 0x02, 0x1a, 0x09};
    err = (tp_err){0};
    CHECK_EQ_INT(load(write_tmp("badev", badev, sizeof badev, false), &t, true, false, &err), -1);
    CHECK_STR(err.where, "record 2");
    tp_trace_free(&t);
}

TEST(plaidml_probe)
{
    const unsigned char magic[] = {0x08, 0x0a, 0x06, 0x08, 0xc5, 0xec, 0xd1, 0xe3, 0x04, 0x11};
    CHECK_EQ_INT(tp_format_plaidml.probe(magic, sizeof magic, "x.gz"), 100);
    const unsigned char json[] = "{\"traceEvents\":[]}";
    CHECK_EQ_INT(tp_format_plaidml.probe(json, sizeof json - 1, "eventlog.json"), 0);
    const unsigned char rec[] = {0x11, 0x12, 0x0f};
    CHECK(tp_format_plaidml.probe(rec, sizeof rec, "/tmp/my_eventlog.gz") > 0);
    CHECK_EQ_INT(tp_format_plaidml.probe(rec, sizeof rec, "/tmp/trace.gz"), 0);
}

/* ---- through the pipeline and the command line ---- */

#include "report/analysis/kernel_table.h"
#include "convert/pipeline/pipeline.h"

TEST(plaidml_2017_through_pipeline_and_kernel_table)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts lo = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_load(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &lo, &t, &err), 0);
    CHECK_STR(t.format, "plaidml");
    tp_kernel_table kt;
    tp_kernel_table_build(&t, &kt);
    CHECK_EQ_INT(kt.n, 193);
    CHECK_EQ_INT(kt.instances, 19598);
    CHECK_EQ_INT(kt.total_ns, 3485728682LL);
    CHECK(kt.n > 0);
    if (kt.n) {
        CHECK_STR(tp_str_get(&t, kt.rows[0].name), "kernel_c4_sdk_2");
        CHECK_EQ_INT(kt.rows[0].count, 156);
        CHECK_EQ_INT(kt.rows[0].total_ns, 746985832LL);
    }
    tp_kernel_table_free(&kt);
    /* linking keeps the reader's parent chain: BuildKernel -> Build -> Compile */
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (strcmp(tp_str_get(&t, e->cat), "tile::hal::opencl::BuildKernel") != 0)
            continue;
        CHECK(e->op != TP_NONE);
        if (e->op != TP_NONE)
            CHECK_STR(tp_str_get(&t, t.events[e->op].cat), "tile::hal::opencl::Build");
        break;
    }
    tp_pml_program_run r;
    CHECK_EQ_INT(tp_pml_program_run_analyze(&t, 11, false, &r, &err), 0);
    CHECK_EQ_INT(r.ndescendants, 262);
    tp_pml_program_run_free(&r);
    tp_trace_free(&t);
}

/* No derived lines on PlaidML (pipeline.c): the launch-link rule found only
 * Program::Run above the kernels and wrote a copy of every execution. */
TEST(plaidml_2017_gets_no_derived_lines)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts lo = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_load(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &lo, &t, &err), 0);
    size_t derived_tracks = 0, derived_events = 0;
    for (size_t i = 0; i < t.ntracks; i++)
        derived_tracks += t.tracks[i].role == TP_TRACK_DERIVED;
    for (size_t i = 0; i < t.nevents; i++)
        derived_events += (t.events[i].flags & TP_EV_DERIVED) != 0;
    CHECK_EQ_INT(derived_tracks, 0);
    CHECK_EQ_INT(derived_events, 0);
    tp_trace_free(&t);
    const char *json = tp_test_tmp("p2017-noderived.json");
    char *out = NULL;
    int rc = tp_test_run(&out, "%s convert '%s' -o '%s' 2>&1", tp_test_bin(),
                         tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), json);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "145823 events in, 92491 out,"));
    free(out);
    size_t len;
    char *doc = tp_test_read_file(json, &len);
    CHECK(doc && !strstr(doc, "\"cat\":\"derived\"") && !strstr(doc, "Framework Ops"));
    free(doc);
}

TEST(plaidml_cli_stats_json)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats '%s' --json --kernels-only", tp_test_bin(),
                         tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"format\":\"plaidml\""));
    CHECK(out && strstr(out, "\"kernel_total_ns\":3485728682,\"kernel_instances\":19598"));
    CHECK(out && strstr(out, "{\"name\":\"kernel_c4_sdk_2\",\"kind\":\"kernel\",\"count\":156,\"total_ns\":746985832,"));
    size_t rows = 0;
    for (const char *p = out; p && (p = strstr(p, "{\"name\":")); p++)
        rows++;
    CHECK_EQ_INT(rows, 193);
    free(out);
    /* the one-event Hello log: valid and empty */
    rc = tp_test_run(&out, "%s stats '%s' --json", tp_test_bin(),
                     tp_test_shared("external/plaidml/plaidml_hello_eventlog.gz"));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"kernel_instances\":0,\"kernels\":[]"));
    free(out);
}

/* node + the trace engine check on a converted log (skipped without node) */
static void check_in_engine(const char *json)
{
    if (!tp_test_have("node"))
        return;
    char *out = NULL;
    int rc = tp_test_run(&out, "node tests/check_trace.mjs '%s'", json);
    if (rc != 0 || !out || !strstr(out, "\"bad_nesting\":0"))
        fprintf(stderr, "check_trace: %s\n", out ? out : "");
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"bad_nesting\":0"));
    free(out);
}

TEST(plaidml_cli_convert_loads_in_trace_engine)
{
    const char *json = tp_test_tmp("p2017.json");
    char *out = NULL;
    int rc = tp_test_run(&out, "%s convert '%s' -o '%s'", tp_test_bin(),
                         tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), json);
    CHECK_EQ_INT(rc, 0);
    free(out);
    size_t len;
    char *doc = tp_test_read_file(json, &len);
    CHECK(doc && strstr(doc, "\"name\":\"kernel_c4_sdk_2\""));
    CHECK(doc && !strstr(doc, "// Function work group size")); /* no sources by default */
    free(doc);
    check_in_engine(json);

    /* synthetic current-schema log: 2 flows, queue and execution tracks */
    synth s = {0};
    synth_log(&s);
    const char *in = write_tmp("synth2.eventlog.gz", s.out.d, s.out.len, true);
    pbe_free(&s.out);
    json = tp_test_tmp("synth.json");
    rc = tp_test_run(&out, "%s convert '%s' -o '%s' --with-source", tp_test_bin(), in, json);
    CHECK_EQ_INT(rc, 0);
    free(out);
    doc = tp_test_read_file(json, &len);
    CHECK(doc && strstr(doc, "__kernel void kA() {}"));
    free(doc);
    check_in_engine(json);
    if (tp_test_have("node")) {
        rc = tp_test_run(&out, "node tests/check_trace.mjs '%s'", json);
        if (!out || !strstr(out, "\"flows\":2,\"flows_bound\":2"))
            fprintf(stderr, "check_trace (rc %d): %s\n", rc, out ? out : "");
        CHECK(out && strstr(out, "\"flows\":2,\"flows_bound\":2"));
        free(out);
    }
}

TEST(plaidml_cli_truncated_input_leaves_no_output)
{
    size_t len;
    char *gz = tp_test_read_file(tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"), &len);
    CHECK(gz != NULL);
    if (!gz)
        return;
    const char *in = write_tmp("half2017.eventlog.gz", gz, len / 2, false);
    free(gz);
    const char *json = tp_test_tmp("half2017.json");
    char *out = NULL;
    int rc = tp_test_run(&out, "%s convert '%s' -o '%s'", tp_test_bin(), in, json);
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, ": record ") && strstr(out, "truncated"));
    CHECK(!tp_test_file_exists(json));
    free(out);
}

/* Damaged logs: flipped bytes must give a clean result or a clean error. */
TEST(plaidml_flipped_bytes_never_crash)
{
    synth s = {0};
    synth_log(&s);
    uint32_t seed = 7;
    int ok = 0, failed = 0;
    for (int it = 0; it < 400; it++) {
        unsigned char *d = malloc(s.out.len);
        memcpy(d, s.out.d, s.out.len);
        for (int k = 0; k < 1 + it % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = 9 + (seed >> 8) % (s.out.len - 9); /* keep the magic record */
            seed = seed * 1103515245u + 12345u;
            d[at] ^= (unsigned char)(1u << ((seed >> 8) % 8));
        }
        const char *path = write_tmp("flip.eventlog", d, s.out.len, false);
        free(d);
        tp_trace t;
        tp_err err = {0};
        int rc = load(path, &t, true, false, &err);
        if (rc == 0)
            ok++;
        else {
            failed++;
            CHECK(err.set && strncmp(err.where, "record ", 7) == 0);
        }
        tp_trace_free(&t);
    }
    CHECK_EQ_INT(ok + failed, 400);
    CHECK(ok > 0 && failed > 0);
    pbe_free(&s.out);
}

TEST(plaidml_strict_rejects_repairs)
{
    tp_trace t;
    tp_err err = {0};
    tp_trace_init(&t);
    tp_input *in = tp_input_open(tp_test_shared("external/plaidml/plaidml_hello_eventlog.gz"), &err);
    CHECK(in != NULL);
    if (!in)
        return;
    tp_read_opts o = {0};
    o.strict = true;
    CHECK_EQ_INT(tp_format_plaidml.read(in, &t, &o, &err), -1);
    CHECK_STR(err.where, "record 2");
    CHECK(strstr(err.msg, "event without activity id") && strstr(err.msg, "--strict"));
    tp_input_close(in);
    tp_trace_free(&t);
    /* the 2017 sample needs no repair */
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats --strict '%s'", tp_test_bin(),
                         tp_test_shared("external/plaidml/plaidml_2017_mnist_mlp_log.gz"));
    CHECK_EQ_INT(rc, 0);
    free(out);
}

/* Two domains, two device clocks: one aligned through its host parent, one
 * whose only parent never started (kept on its own times, with a warning). */
static void ev_full(synth *s, uint64_t parent, uint64_t act, const char *verb, uint64_t clock, int64_t start,
                    int64_t end, uint64_t domain)
{
    pbe e = {0}, c = {0};
    put_id(&e, 1, parent, NULL);
    put_id(&e, 2, act, NULL);
    pbe_str(&e, 3, verb);
    if (clock) {
        pbe_uint(&c, 1, clock);
        pbe_msg(&e, 4, &c);
    }
    put_time(&e, 5, start);
    if (end)
        put_time(&e, 6, end);
    put_id(&e, 8, domain, NULL);
    synth_event(s, &e);
    pbe_free(&e);
    pbe_free(&c);
}

TEST(plaidml_domains_and_device_clocks)
{
    synth s = {0};
    synth_magic(&s);
    ev_full(&s, 0, 1, "vertexai::A", 0, S(10), S(10) + 100, 1);
    ev_full(&s, 0, 2, "vertexai::B", 0, S(10) + 50, S(10) + 150, 2);
    ev_full(&s, 1, 3, "tile::hal::opencl::Executing", 1, 1000, 1010, 1);
    ev_full(&s, 99, 4, "tile::hal::opencl::Executing", 2, 7000, 7020, 1);
    const char *path = write_tmp("domains.eventlog", s.out.d, s.out.len, false);
    pbe_free(&s.out);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(path, &t, true, false, &err), 0);
    CHECK_EQ_INT(t.nevents, 4);
    CHECK_EQ_INT(t.nprocesses, 4);
    uint32_t a = find_event(&t, "vertexai::A", NULL), b = find_event(&t, "vertexai::B", NULL);
    CHECK(a != TP_NONE && b != TP_NONE);
    if (a == TP_NONE || b == TP_NONE)
        return;
    const tp_process *pa = &t.processes[t.tracks[t.events[a].track].process];
    const tp_process *pb = &t.processes[t.tracks[t.events[b].track].process];
    CHECK(pa != pb);
    CHECK_STR(tp_str_get(&t, pa->name), "PlaidML host (domain 1)");
    CHECK_STR(tp_str_get(&t, pb->name), "PlaidML host (domain 2)");
    size_t n3 = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (e->kind != TP_KIND_KERNEL)
            continue;
        n3++;
        CHECK(t.processes[t.tracks[e->track].process].is_device);
        if (e->dur == 10) {
            CHECK_EQ_INT(e->ts, S(10)); /* aligned to its host parent */
            CHECK_EQ_INT(e->link, a);
        } else {
            CHECK_EQ_INT(e->ts, 7000); /* no aligned parent: own times */
            CHECK_EQ_INT(e->link, TP_NONE);
        }
    }
    CHECK_EQ_INT(n3, 2);
    CHECK_EQ_INT(tp_warning_count(&t, "plaidml: device clock without host parents (not aligned)"), 1);
    tp_trace_free(&t);
}

/* Activity indexes beyond the direct table go through the hash table. */
TEST(plaidml_huge_activity_indexes)
{
    synth s = {0};
    synth_magic(&s);
    const uint64_t big = (uint64_t)1 << 40;
    ev_full(&s, 0, big, "vertexai::Outer", 0, S(5), S(5) + 1000, 0);
    ev_full(&s, big, big + 1, "vertexai::Inner", 0, S(5) + 10, S(5) + 20, 0);
    ev_full(&s, big, 3, "vertexai::Small", 0, S(5) + 30, S(5) + 40, 0);
    const char *path = write_tmp("big.eventlog", s.out.d, s.out.len, false);
    pbe_free(&s.out);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(path, &t, true, false, &err), 0);
    CHECK_EQ_INT(t.nevents, 3);
    uint32_t outer = find_event(&t, "vertexai::Outer", NULL);
    uint32_t inner = find_event(&t, "vertexai::Inner", NULL);
    uint32_t small = find_event(&t, "vertexai::Small", NULL);
    CHECK(outer != TP_NONE && inner != TP_NONE && small != TP_NONE);
    if (outer != TP_NONE && inner != TP_NONE && small != TP_NONE) {
        CHECK_EQ_INT(t.events[inner].op, outer);
        CHECK_EQ_INT(t.events[small].op, outer);
        CHECK_EQ_INT(t.events[inner].track, t.events[outer].track);
    }
    tp_trace_free(&t);
}

/* Ids and times in shapes other than the usual `1 index` / `1 seconds,
 * 2 nanos` (which the reader decodes without its field loop) mean what
 * protobuf says: fields in any order, the last of a repeated one wins,
 * unknown fields are skipped, negative nanos are 10-byte varints. */
TEST(plaidml_unusual_id_and_time_encodings)
{
    synth s = {0};
    synth_magic(&s);
    ev_start(&s, 0, 1, "vertexai::Outer", S(7), NULL);
    pbe e = {0}, id = {0}, d = {0};
    /* parent {index 9, index 1}: the last wins */
    pbe_uint(&id, 1, 9);
    pbe_uint(&id, 1, 1);
    pbe_msg(&e, 1, &id);
    pbe_free(&id);
    /* activity {unknown field 5, index 2} */
    pbe_uint(&id, 5, 77);
    pbe_uint(&id, 1, 2);
    pbe_msg(&e, 2, &id);
    pbe_free(&id);
    pbe_str(&e, 3, "vertexai::Inner");
    /* start {nanos 500, seconds 7}: nanos first */
    pbe_uint(&d, 2, 500);
    pbe_uint(&d, 1, 7);
    pbe_msg(&e, 5, &d);
    pbe_free(&d);
    /* end {seconds 8, nanos -100}: 8 s - 100 ns */
    pbe_uint(&d, 1, 8);
    pbe_uint(&d, 2, (uint64_t)(int64_t)-100);
    pbe_msg(&e, 6, &d);
    pbe_free(&d);
    synth_event(&s, &e);
    pbe_free(&e);
    /* end of activity 1 {nanos 900 only}, via an id of a 2-byte index 1 (0x81 0x00) */
    static const uint8_t long_one[] = {0x08, 0x81, 0x00};
    pbe_bytes(&e, 2, long_one, sizeof long_one);
    pbe_uint(&d, 2, 900);
    pbe_uint(&d, 1, 9);
    pbe_uint(&d, 2, 950); /* repeated nanos: the last wins */
    pbe_msg(&e, 6, &d);
    pbe_free(&d);
    synth_event(&s, &e);
    pbe_free(&e);
    const char *path = write_tmp("shapes.eventlog", s.out.d, s.out.len, false);
    pbe_free(&s.out);
    tp_trace t;
    tp_err err = {0};
    CHECK_EQ_INT(load(path, &t, true, false, &err), 0);
    CHECK_EQ_INT(t.nevents, 2);
    CHECK_EQ_INT(t.nwarnings, 0);
    uint32_t outer = find_event(&t, "vertexai::Outer", NULL);
    uint32_t inner = find_event(&t, "vertexai::Inner", NULL);
    CHECK(outer != TP_NONE && inner != TP_NONE);
    if (outer != TP_NONE && inner != TP_NONE) {
        CHECK_EQ_INT(t.events[outer].ts, S(7));
        CHECK_EQ_INT(t.events[outer].dur, S(2) + 950);
        CHECK_EQ_INT(t.events[inner].op, outer);
        CHECK_EQ_INT(t.events[inner].ts, S(7) + 500);
        CHECK_EQ_INT(t.events[inner].dur, S(1) - 100 - 500);
    }
    tp_trace_free(&t);
}
