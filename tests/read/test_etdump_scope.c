/* test_etdump_scope.c: with an ETRecord, the ETDump reader derives
 * "Framework Name Scope" (nn_module_stack paths) and "Framework Ops" (op
 * types) lines through the derivation engine: the real tutorial ETDump with
 * an ETRecord written for its model, the real (unrelated) sample ETRecord,
 * and synthetic nested modules, delegates and runs with known answers. */
#pragma GCC diagnostic ignored "-Woverride-init" /* XPROF(...) defaults, then the test's fields */
#include "convert/read/etdump/etdump.h"
#include "tests/lib/etdump_build.h"
#include "report/formats/etdump/etdump_inspector.h"
#include "convert/read/etdump/etrecord.h"
#include "convert/read/formats.h"
#include "tests/lib/harness.h"
#include "convert/model/model.h"

#include <stdlib.h>
#include <zip.h>

#define SAMPLE "external/etdump/executorch_tutorial_etdump.etdp"
#define REAL_RECORD "external/etdump/executorch_sample_etrecord.bin"
#define SCOPE "Framework Name Scope"
#define OPS "Framework Ops"

static void zip_put(zip_t *z, const char *name, const char *text)
{
    /* the text is copied: zip_close reads the sources after this returns
     * (libzip does not free an empty buffer: that one is not copied) */
    size_t n = strlen(text);
    char *copy = n ? malloc(n) : NULL;
    if (n)
        memcpy(copy, text, n);
    zip_source_t *s = zip_source_buffer(z, n ? copy : "", n, n ? 1 : 0);
    CHECK(s && zip_file_add(z, name, s, ZIP_FL_OVERWRITE) >= 0);
}

static const char *write_zip(const char *name, const char *handles, const char *delegates, const char *nodes)
{
    const char *path = tp_test_tmp(name);
    int ze;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    CHECK(z != NULL);
    if (!z)
        return path;
    zip_put(z, "ETRECORD_V0", "");
    zip_put(z, "debug_handle_map", handles);
    zip_put(z, "delegate_map", delegates);
    char *doc = malloc(strlen(nodes) + 64);
    sprintf(doc, "{\"graph_module\": {\"graph\": {\"nodes\": [%s]}}}", nodes);
    zip_put(z, "edge_dialect_exported_program/forward", doc);
    free(doc);
    CHECK(zip_close(z) == 0);
    return path;
}

/* The tutorial's model (devtools tutorial `Net`: conv1, conv2, fc1..fc3;
 * relu, max_pool and flatten are functional, so in the root module) as
 * torch >= 2.3 exports it: instruction i -> debug handle i + 1 -> one node. */
static const char *write_tutorial_etrecord(void)
{
    static const char *const ops[14] = {"convolution", "relu", "max_pool2d_with_indices", "convolution", "relu",
                                        "max_pool2d_with_indices", "permute_copy", "addmm", "relu", "permute_copy",
                                        "addmm", "relu", "permute_copy", "addmm"};
    static const char *const mods[14] = {"conv1", NULL, NULL, "conv2", NULL, NULL, "fc1", "fc1",
                                         NULL, "fc2", "fc2", NULL, "fc3", "fc3"};
    tp_buf h = {0}, n = {0};
    tp_buf_puts(&h, "{\"forward\": {");
    for (int i = 0; i < 14; i++) {
        tp_buf_printf(&h, "%s\"%d\": [%d]", i ? ", " : "", i, i + 1);
        tp_buf_printf(&n,
                      "%s{\"target\": \"executorch.exir.dialects.edge.ops.aten.%s.default\", \"metadata\": "
                      "{\"debug_handle\": \"%d\", \"nn_module_stack\": \"L__self__,,__main__.Net",
                      i ? "," : "", ops[i], i + 1);
        if (mods[i])
            tp_buf_printf(&n, ";L__self___%s,%s,torch.nn.modules.%s", mods[i], mods[i],
                          mods[i][0] == 'c' ? "conv.Conv2d" : "linear.Linear");
        tp_buf_puts(&n, "\"}}");
    }
    tp_buf_puts(&h, "}}");
    tp_buf_putc(&h, 0);
    tp_buf_putc(&n, 0);
    const char *path = write_zip("tutorial_etrecord.bin", h.data, "{}", n.data);
    tp_buf_free(&h);
    tp_buf_free(&n);
    return path;
}

/* Parse a buffer (copied) and map it with the ETRecord at rec_path (or none). */
static int map_buf(const uint8_t *p, size_t n, const char *rec_path, int era, tp_trace *t)
{
    tp_err err = {0};
    tp_etdump d;
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    tp_trace_init(t);
    tp_read_opts o = {.keep_args = true, .derive_era = era};
    tp_etrecord *rec = NULL;
    if (rec_path && !(rec = tp_etrecord_load(rec_path, &err))) {
        free(copy);
        return -1;
    }
    int rc = tp_etdump_parse(copy, n, &d, &err);
    if (rc == 0)
        rc = tp_etdump_to_trace(&d, rec, &o, t, &err);
    if (rc != 0)
        fprintf(stderr, "  %s\n", err.msg);
    tp_etdump_free(&d);
    tp_etrecord_free(rec);
    return rc;
}

static uint32_t track_named(const tp_trace *t, const char *name)
{
    for (size_t i = 0; i < t->ntracks; i++)
        if (strcmp(tp_str_get(t, t->tracks[i].name), name) == 0)
            return (uint32_t)i;
    return TP_NONE;
}

/* The events of one track, in time order (longer first at one start). */
static size_t line_events(const tp_trace *t, uint32_t track, const tp_event **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].track == track && n < max)
            out[n++] = &t->events[i];
    for (size_t i = 1; i < n; i++) /* insertion sort: a few events */
        for (size_t j = i; j > 0 && (out[j]->ts < out[j - 1]->ts ||
                                     (out[j]->ts == out[j - 1]->ts && out[j]->dur > out[j - 1]->dur));
             j--) {
            const tp_event *x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n;
}

/* One derived event: name, start and duration in ns. */
static void check_ev(const char *file, int line, const tp_trace *t, const tp_event *e, const char *name, int64_t ts,
                     int64_t dur)
{
    if (!e) {
        tp_test_fail(file, line, "no event, expected %s", name);
        return;
    }
    const char *got = tp_str_get(t, e->name);
    if (strcmp(got, name) != 0 || e->ts != ts || e->dur != dur)
        tp_test_fail(file, line, "event %s @%lld +%lld, expected %s @%lld +%lld", got, (long long)e->ts,
                     (long long)e->dur, name, (long long)ts, (long long)dur);
    if (!(e->flags & TP_EV_DERIVED))
        tp_test_fail(file, line, "%s is not a derived event", name);
}
#define CHECK_EV(t, e, name, ts, dur) check_ev(__FILE__, __LINE__, (t), (e), (name), (ts), (dur))

static char *read_sample(size_t *n) { return tp_test_read_file(tp_test_shared(SAMPLE), n); }

/* Real tutorial ETDump + an ETRecord of its model.  Expected values by hand
 * from executorch_tutorial_etdump.flatc.json (ticks are ns): conv2 = instr 3
 * (start 1033343, 1031719 ns); fc1 = permute_copy (instr 6, start 2081748)
 * to the end of addmm (instr 7, 2277513) = 195765 ns; fc3 = 2319627 ..
 * 2323904 = 4277 ns. */
TEST(etdump_scope_tutorial_sample_with_its_modules)
{
    size_t n;
    char *raw = read_sample(&n);
    CHECK(raw != NULL);
    if (!raw)
        return;
    tp_trace t;
    CHECK_EQ_INT(map_buf((const uint8_t *)raw, n, write_tutorial_etrecord(), 0, &t), 0);
    uint32_t method = track_named(&t, "Method"), scope = track_named(&t, SCOPE), ops = track_named(&t, OPS);
    CHECK(method != TP_NONE && scope != TP_NONE && ops != TP_NONE);
    CHECK(track_named(&t, "Steps") == TP_NONE); /* the Runs thread is the steps line */
    if (scope == TP_NONE || ops == TP_NONE) {
        tp_trace_free(&t);
        free(raw);
        return;
    }
    CHECK_EQ_INT(t.tracks[scope].role, TP_TRACK_DERIVED);
    CHECK_EQ_INT(t.tracks[scope].derived_of, method);
    CHECK_EQ_INT(t.tracks[ops].derived_of, method);
    const tp_event *ev[32];
    /* Name Scope: 5 modules; fc1..fc3 each span their permute_copy + addmm */
    CHECK_EQ_INT(line_events(&t, scope, ev, 32), 5);
    CHECK_EV(&t, ev[0], "conv1", 426786, 544783);
    CHECK_EV(&t, ev[1], "conv2", 1033343, 1031719);
    CHECK_EV(&t, ev[2], "fc1", 2081748, 195765);
    CHECK_EV(&t, ev[3], "fc2", 2278504, 40422);
    CHECK_EV(&t, ev[4], "fc3", 2319627, 4277);
    /* Ops: one per instruction (two adjacent calls never merge), the op type */
    CHECK_EQ_INT(line_events(&t, ops, ev, 32), 14);
    CHECK_EV(&t, ev[0], "aten.convolution.default", 426786, 544783);
    CHECK_EV(&t, ev[6], "aten.permute_copy.default", 2081748, 153501);
    CHECK_EV(&t, ev[13], "aten.addmm.default", 2323213, 691);
    int kernels = 0;
    for (size_t i = 0; i < t.nevents; i++)
        kernels += t.events[i].kind == TP_KIND_KERNEL && !(t.events[i].flags & TP_EV_DERIVED);
    CHECK_EQ_INT(kernels, 14); /* derived events are not kernels */
    tp_trace_free(&t);

    /* the report's time per module names the same modules (innermost path) */
    tp_etdump d;
    tp_err err = {0};
    CHECK_EQ_INT(tp_etdump_load(tp_test_shared(SAMPLE), &d, &err), 0);
    tp_etrecord *rec = tp_etrecord_load(write_tutorial_etrecord(), &err);
    tp_inspector in;
    const tp_ed_scale ns = {1, 1, "ns"};
    CHECK_EQ_INT(tp_etdump_inspect(&d, rec, &ns, &in, &err), 0);
    CHECK_EQ_INT(in.nmodules, 5);
    if (in.nmodules == 5) {
        CHECK_STR(in.modules[0].name, "conv2");
        CHECK_EQ_INT(in.modules[0].total_ns, 1031719);
        CHECK_STR(in.modules[2].name, "fc1"); /* conv1 544783, then fc1 153501 + 40962 */
        CHECK_EQ_INT(in.modules[2].total_ns, 194463);
    }
    tp_inspector_free(&in);
    tp_etrecord_free(rec);
    tp_etdump_free(&d);
    free(raw);
}

/* The real sample ETRecord belongs to a toy `mul` model: empty maps, no
 * nn_module_stack.  It links nothing, so there are no derived lines; nor
 * without an ETRecord. */
TEST(etdump_scope_real_etrecord_maps_nothing)
{
    size_t n;
    char *raw = read_sample(&n);
    CHECK(raw != NULL);
    if (!raw)
        return;
    for (int with = 0; with < 2; with++) {
        tp_trace t;
        CHECK_EQ_INT(map_buf((const uint8_t *)raw, n, with ? tp_test_shared(REAL_RECORD) : NULL, 0, &t), 0);
        CHECK_EQ_INT(t.ntracks, 2); /* Method, Runs */
        CHECK(track_named(&t, SCOPE) == TP_NONE && track_named(&t, OPS) == TP_NONE);
        CHECK_EQ_INT(t.nevents, 33);
        tp_trace_free(&t);
    }
    tp_trace t;
    CHECK_EQ_INT(map_buf((const uint8_t *)raw, n, write_tutorial_etrecord(), 0, &t), 0);
    CHECK_EQ_INT(t.nevents, 33 + 5 + 14);
    tp_trace_free(&t);
    free(raw);
}

/* Nested modules, an op in the root module, delegate events with and
 * without nodes of their own, and two runs whose boundary ops share a
 * module.  ETRecord: instructions 0..3, 5 -> handles 1..5; delegate 1 of
 * instruction 4 -> handle 6; handle 5 is written in the dynamo form. */
static const char *write_nested_etrecord(void)
{
    return write_zip(
        "nested_etrecord.bin", "{\"forward\": {\"0\": 1, \"1\": [2], \"2\": [3], \"3\": [4], \"5\": [5]}}",
        "{\"forward\": {\"4\": {\"name\": \"XnnpackBackend\", \"delegate_map\": {\"1\": [6]}}}}",
        "{\"target\": \"aten.mm.default\", \"metadata\": {\"debug_handle\": 1, \"nn_module_stack\": "
        "\"L__self__,,Net;L__self___block,block,Block;L__self___block_attn,block.attn,Attn\"}},"
        "{\"target\": \"aten._softmax.default\", \"metadata\": {\"debug_handle\": 2, \"nn_module_stack\": "
        "\"L__self__,,Net;L__self___block,block,Block;L__self___block_attn,block.attn,Attn\"}},"
        "{\"target\": \"aten.gelu.default\", \"metadata\": {\"debug_handle\": 3, \"nn_module_stack\": "
        "\"L__self__,,Net;L__self___block,block,Block;L__self___block_mlp,block.mlp,Mlp\"}},"
        "{\"target\": \"aten.add.Tensor\", \"metadata\": {\"debug_handle\": 4, \"nn_module_stack\": \"L__self__,,Net\"}},"
        "{\"target\": \"aten.mm.default\", \"metadata\": {\"debug_handle\": 5, \"nn_module_stack\": "
        "\"L__self___block,L['self'].block,Block;L__self___block_attn,L['self'].block.attn,Attn\"}},"
        "{\"target\": \"aten.linear.default\", \"metadata\": {\"debug_handle\": 6, \"nn_module_stack\": "
        "\"L__self__,,Net;L__self___head,head,Linear\"}}");
}

static uint8_t *nested_etdump(size_t *n)
{
    static xev ev[2][11];
    for (int r = 0; r < 2; r++) {
        uint64_t o = 1000u * (uint64_t)r; /* run 1 starts where run 0 ends: no shift */
        const xev run[11] = {
            XPROF(.name = "native_call_mm.out", .instr = 0, .start = o + 100, .end = o + 200),
            XPROF(.name = "OPERATOR_CALL", .instr = 0, .start = o + 95, .end = o + 205),
            XPROF(.name = "native_call__softmax.out", .instr = 1, .start = o + 210, .end = o + 300),
            XPROF(.name = "native_call_gelu.out", .instr = 2, .start = o + 310, .end = o + 400),
            XPROF(.name = "native_call_add.out", .instr = 3, .start = o + 410, .end = o + 500),
            XPROF(.instr = 4, .dint = 1, .start = o + 610, .end = o + 700),
            XPROF(.instr = 4, .dint = 2, .start = o + 700, .end = o + 800), /* no node of its own */
            XPROF(.name = "DELEGATE_CALL", .instr = 4, .start = o + 600, .end = o + 900),
            XPROF(.name = "native_call_mm.out", .instr = 5, .start = o + 910, .end = o + 1000),
            XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = o + 50, .end = o + 1050),
            XDBG(.name = "out", .instr = 5, .vtype = 1, .ival = 1),
        };
        memcpy(ev[r], run, sizeof run);
    }
    const xrun runs[2] = {{"Execute", -1, 11, ev[0], 0}, {"Execute", -1, 11, ev[1], 0}};
    return etdump_build(runs, 2, 1, n);
}

TEST(etdump_scope_synthetic_nested_modules_delegates_runs)
{
    size_t n;
    uint8_t *buf = nested_etdump(&n);
    const char *rec = write_nested_etrecord();
    static const int eras[] = {0, 2022, 2020};
    for (size_t k = 0; k < sizeof eras / sizeof eras[0]; k++) {
        tp_trace t;
        CHECK_EQ_INT(map_buf(buf, n, rec, eras[k], &t), 0);
        uint32_t scope = track_named(&t, SCOPE), ops = track_named(&t, OPS);
        CHECK(scope != TP_NONE && ops != TP_NONE);
        CHECK(track_named(&t, "Steps") == TP_NONE);
        const tp_event *ev[64];
        size_t ns = scope == TP_NONE ? 0 : line_events(&t, scope, ev, 64);
        CHECK_EQ_INT(ns, 12);
        for (int r = 0; r < 2 && ns == 12; r++) {
            const tp_event **e = ev + 6 * r;
            int64_t o = 1000 * r;
            /* two ops in block.attn: one event over both; block goes on into block.mlp */
            CHECK_EV(&t, e[0], "block", o + 100, 300);
            CHECK_EV(&t, e[1], "block.attn", o + 100, 200);
            CHECK_EV(&t, e[2], "block.mlp", o + 310, 90);
            /* add (root module only): no scope event, and it closes block;
             * delegate 1 has its own node in head, delegate 2 has none */
            CHECK_EV(&t, e[3], "head", o + 610, 90);
            /* the dynamo-era paths of handle 5 read as block / block.attn;
             * identical nested spans: the inner one 1 ns shorter (2024 rule) */
            CHECK_EV(&t, e[4], "block", o + 910, 90);
            CHECK_EV(&t, e[5], "block.attn", o + 910, eras[k] == 0 ? 89 : 90);
        }
        /* ops: every linked kernel (not the call events, not delegate 2) */
        size_t no = ops == TP_NONE ? 0 : line_events(&t, ops, ev, 64);
        CHECK_EQ_INT(no, 12);
        if (no == 12) {
            CHECK_EV(&t, ev[0], "aten.mm.default", 100, 100);
            CHECK_EV(&t, ev[3], "aten.add.Tensor", 410, 90);
            CHECK_EV(&t, ev[4], "aten.linear.default", 610, 90);
            CHECK_EV(&t, ev[5], "aten.mm.default", 910, 90);
            CHECK_EV(&t, ev[6], "aten.mm.default", 1100, 100); /* run 1: a new event */
        }
        const char *a = ns == 12 ? tp_args_get(&t, ev[0]->args, NULL) : NULL;
        CHECK(a && strstr(a, "\"group_id\":0") != NULL); /* the RunData index */
        tp_trace_free(&t);
    }
    free(buf);
}

/* The args and the report use the same normalised paths as the line. */
TEST(etdump_scope_module_paths_normalised)
{
    const char *rec_path = write_zip(
        "paths_etrecord.bin", "{\"forward\": {\"0\": [1, 2, 3]}}", "{}",
        "{\"target\": \"a\", \"metadata\": {\"debug_handle\": 1, \"nn_module_stack\": "
        "\"L__self___layers_0,L['self'].layers[0],Block;L__self___layers_0_ff,L['self'].layers[0]['ff'],Ff\"}},"
        "{\"target\": \"b\", \"metadata\": {\"debug_handle\": 2, \"nn_module_stack\": "
        "\"k,getattr(L['self'].x, 'y'),T;r,L['self'],Net\"}},"
        "{\"target\": \"c\", \"metadata\": {\"debug_handle\": 3, \"nn_module_stack\": \"L__self__,,Net;k,a,b,T\"}}");
    tp_err err = {0};
    tp_etrecord *r = tp_etrecord_load(rec_path, &err);
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_EQ_INT(tp_etrecord_node_count(r), 3);
    const tp_etr_node *a = tp_etrecord_node(r, 0), *b = tp_etrecord_node(r, 1), *c = tp_etrecord_node(r, 2);
    CHECK_EQ_INT(a->npaths, 2);
    CHECK_STR(a->paths[0], "layers.0");
    CHECK_STR(a->module, "layers.0.ff");
    CHECK_STR(a->modules, "layers.0/layers.0.ff");
    CHECK_EQ_INT(b->npaths, 1); /* not the simple form: kept; the root alone is left out */
    CHECK_STR(b->module, "getattr(L['self'].x, 'y')");
    CHECK_STR(c->module, "a,b"); /* a comma in the path */
    for (uint32_t i = 0; i < 3; i++)
        CHECK_EQ_INT(tp_etrecord_node(r, i)->index, i);
    const tp_etr_node *nodes[4];
    const char *backend;
    CHECK_EQ_INT(tp_etrecord_nodes(r, 0, NULL, 0, nodes, 4, &backend), 3);
    CHECK(tp_etr_module_node(nodes, 3) == a);
    tp_etrecord_free(r);
}

/* ---- through the command line ---- */

static int count(const char *hay, const char *needle)
{
    int k = 0;
    for (const char *p = hay; hay && (p = strstr(p, needle)) != NULL; p++)
        k++;
    return k;
}

TEST(etdump_scope_cli_convert_loads_and_reconverts)
{
    size_t n;
    uint8_t *buf = nested_etdump(&n);
    const char *in = tp_test_write("nested.etdp", buf, n);
    free(buf);
    const char *rec = write_nested_etrecord();
    const char *json = tp_test_tmp("nested_scope.json"), *again = tp_test_tmp("nested_scope2.json");
    const char *plain = tp_test_tmp("nested_plain.json");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s --etrecord %s -o %s", tp_test_bin(), in, rec, json), 0);
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), in, plain), 0);
    char *text = tp_test_read_file(json, NULL), *ptext = tp_test_read_file(plain, NULL);
    CHECK(text && strstr(text, "\"args\":{\"name\":\"" SCOPE "\"}") && strstr(text, "\"args\":{\"name\":\"" OPS "\"}"));
    CHECK_EQ_INT(count(text, "\"cat\":\"derived\""), 24);
    CHECK(text && strstr(text, "{\"ph\":\"X\",\"cat\":\"derived\",\"name\":\"block.attn\",\"pid\":1,\"tid\":3,\"ts\":0.050,"
                               "\"dur\":0.200,\"args\":{\"group_id\":0}}"));
    CHECK(ptext && !strstr(ptext, "derived") && !strstr(ptext, "Framework"));
    /* a converted trace read again keeps its lines, byte for byte */
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q %s -o %s", tp_test_bin(), json, again), 0);
    char *text2 = tp_test_read_file(again, NULL);
    CHECK(text && text2 && strcmp(text, text2) == 0);
    if (!getenv("TP_SKIP_NODE") && tp_test_have("node")) {
        char *out = NULL;
        int rc = tp_test_run(&out, "node tests/check_trace.mjs %s", json);
        if (rc != 0)
            fprintf(stderr, "  check_trace: %s\n", out ? out : "");
        CHECK_EQ_INT(rc, 0);
        free(out);
    } else {
        fprintf(stderr, "  (node absent or TP_SKIP_NODE: trace-engine check skipped)\n");
    }
    /* --steps 1: run 1 and its derived events only */
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s convert -q %s --etrecord %s --steps 1 -o %s", tp_test_bin(), in, rec, again), 0);
    free(out);
    char *text3 = tp_test_read_file(again, NULL);
    CHECK_EQ_INT(count(text3, "\"cat\":\"derived\""), 12);
    free(text3);
    free(text2);
    free(text);
    free(ptext);
}
