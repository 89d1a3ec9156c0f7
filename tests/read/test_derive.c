/* test_derive.c: the op-name parser (XPLANE.md §4 worked examples), the merge
 * rules of the derivation engine (§5) on synthetic annotations with known
 * answers, and derived lines for a linked PyTorch-style trace. */
#include "convert/model/derive.h"
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static int parse(tp_trace *t, const char *s, tp_annot *a)
{
    memset(a, 0, sizeof *a);
    return tp_tfop_parse(t, s, strlen(s), a);
}

static void check_op(const char *in, int cat, const char *display, const char *scopes)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_annot a;
    int c = parse(&t, in, &a);
    if (c != cat)
        tp_test_fail(__FILE__, __LINE__, "%s: category %d, expected %d", in, c, cat);
    CHECK_STR(tp_str_get(&t, a.op_display), display);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", tp_str_get(&t, a.scopes));
    for (char *p = buf; *p; p++)
        if (*p == TP_DERIVE_SEP)
            *p = '|';
    CHECK_STR(buf, scopes);
    tp_trace_free(&t);
}

TEST(tfop_parse_worked_examples)
{
    check_op("model/dense/MatMul:MatMul", TP_TFOP_TF, "MatMul", "model|dense");
    check_op("OpName:_InternalOpType", TP_TFOP_TF, "_InternalOpType", "");
    check_op("scope-1/scope2/OpName:OpType", TP_TFOP_TF, "OpType", "scope-1|scope2");
    check_op("input_pipeline_task0/while/body/_1/InfeedQueue/enqueue/1:InfeedEnqueueTuple", TP_TFOP_TF,
             "InfeedEnqueueTuple", "input_pipeline_task0|while|body|_1|InfeedQueue|enqueue");
    check_op("namescope/OpName_1:", TP_TFOP_TF, "OpName", "namescope");
    check_op("namescope/OpName_a:", TP_TFOP_TF, "OpName_a", "namescope");
    check_op("op_name:op_type", TP_TFOP_JAX, "op_type", "");
    check_op("op_name/op_type:", TP_TFOP_JAX, "op_type", "op_name");
    check_op("op_name:op_type[array=([])]", TP_TFOP_JAX, "op_type", "");
    check_op("jit(_psum)/jit(main)/reduce_sum:", TP_TFOP_JAX, "reduce_sum", "jit(_psum)|jit(main)");
    check_op("namescope.1/namespace__opname2d:namespace__opname2d", TP_TFOP_JAX, "namespace__opname2d",
             "namescope.1");
    check_op("Iterator::Batch::Map::TfRecord", TP_TFOP_TFDATA, "Iterator::TfRecord", "");
    check_op("Iterator::Batch", TP_TFOP_TFDATA, "Iterator::Batch", "");
    check_op("MemcpyHToD", TP_TFOP_MEMCPY, "MemcpyHToD", "");
    check_op("MyTraceMe", TP_TFOP_UNKNOWN, "MyTraceMe", "");
    check_op("SessionRun ", TP_TFOP_UNKNOWN, "SessionRun", "");
    check_op("RunStep/Server:54635", TP_TFOP_UNKNOWN, "RunStep/Server:54635", "");
    check_op("XLA::StartProgram", TP_TFOP_UNKNOWN, "XLA::StartProgram", "");
    check_op("XlaModule:", TP_TFOP_TF, "XlaModule", "");
}

/* A device with one stream and kernels at given spans (ns). */
static uint32_t add_kernel(tp_trace *t, uint32_t track, int64_t ts, int64_t dur, const char *name)
{
    tp_event e;
    tp_event_init(&e);
    e.ts = ts;
    e.dur = dur;
    e.track = track;
    e.kind = TP_KIND_KERNEL;
    e.name = tp_intern_cstr(t, name);
    return tp_event_add(t, &e);
}

static void add_op_annot_low(tp_trace *t, tp_derive_input *in, uint32_t ev, const char *tf_op, int64_t group,
                             const char *low)
{
    tp_annot a;
    memset(&a, 0, sizeof a);
    a.event = ev;
    a.flags = TP_ANNOT_OP_SOURCE;
    a.group = group;
    a.scope_inst = TP_NONE;
    tp_tfop_parse(t, tf_op, strlen(tf_op), &a);
    if (low)
        a.low_name = tp_intern_cstr(t, low);
    tp_derive_add(in, &a);
}

static void add_op_annot(tp_trace *t, tp_derive_input *in, uint32_t ev, const char *tf_op, int64_t group)
{
    add_op_annot_low(t, in, ev, tf_op, group, NULL);
}

static uint32_t derived_track(const tp_trace *t, const char *name)
{
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].role == TP_TRACK_DERIVED && strcmp(tp_str_get(t, t->tracks[i].name), name) == 0)
            return (uint32_t)i;
    return TP_NONE;
}

/* "name=dur" for each event of a track, in order. */
static void line_text(const tp_trace *t, uint32_t track, char *out, size_t n)
{
    out[0] = 0;
    size_t len = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].track == track)
            len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s@%lld+%lld", len ? " " : "",
                                    tp_str_get(t, t->events[i].name), (long long)t->events[i].ts,
                                    (long long)t->events[i].dur);
}

static void device(tp_trace *t, uint32_t *stream)
{
    tp_trace_init(t);
    uint32_t p = tp_process_get(t, 1);
    t->processes[p].name = tp_intern_cstr(t, "/device:GPU:0");
    t->processes[p].is_device = true;
    *stream = tp_track_get(t, p, 7);
    t->tracks[*stream].role = TP_TRACK_DEVICE;
}

/* The upstream AdjustDurationForTraceViewer example, in ns. */
TEST(derive_shrinks_identical_nested_spans_by_one_ns)
{
    tp_trace t;
    uint32_t s;
    device(&t, &s);
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    add_op_annot(&t, &in, add_kernel(&t, s, 0, 10, "k1"), "a/b/c/d/e/Add:Add", TP_DERIVE_NO_GROUP);
    add_op_annot(&t, &in, add_kernel(&t, s, 10, 2, "k2"), "a/b/c/d/f/Sub:Sub", TP_DERIVE_NO_GROUP);
    add_op_annot(&t, &in, add_kernel(&t, s, 20, 30, "k3"), "a/g/Mul:Mul", TP_DERIVE_NO_GROUP);
    tp_derive_opts o = {0};
    tp_derive_from(&t, &in, &o);
    char buf[1024];
    line_text(&t, derived_track(&t, "TensorFlow Name Scope"), buf, sizeof buf);
    CHECK_STR(buf, "a@0+50 b@0+12 c@0+11 d@0+11 e@0+10 f@10+1 g@20+30");
    line_text(&t, derived_track(&t, "TensorFlow Ops"), buf, sizeof buf);
    CHECK_STR(buf, "Add@0+10 Sub@10+2 Mul@20+30");
    CHECK(t.tracks[derived_track(&t, "TensorFlow Ops")].derived_of == s);
    tp_derive_input_free(&in);
    tp_trace_free(&t);
}

TEST(derive_merges_same_op_and_group_and_splits_on_new_group)
{
    tp_trace t;
    uint32_t s;
    device(&t, &s);
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    /* two kernels of one op merge; the same op in the next step is a new event */
    add_op_annot(&t, &in, add_kernel(&t, s, 0, 10, "k"), "m/MatMul:MatMul", 1);
    add_op_annot(&t, &in, add_kernel(&t, s, 12, 5, "k"), "m/MatMul:MatMul", 1);
    add_op_annot(&t, &in, add_kernel(&t, s, 20, 5, "k"), "m/MatMul:MatMul", 2);
    tp_derive_opts o = {0};
    tp_derive_from(&t, &in, &o);
    char buf[1024];
    line_text(&t, derived_track(&t, "TensorFlow Ops"), buf, sizeof buf);
    CHECK_STR(buf, "MatMul@0+17 MatMul@20+5");
    line_text(&t, derived_track(&t, "Steps"), buf, sizeof buf);
    CHECK_STR(buf, "1@0+17 2@20+5");
    tp_derive_input_free(&in);

    /* the 2022 low-level-name rule: a repeated kernel is a new call of the op */
    tp_trace u;
    device(&u, &s);
    memset(&in, 0, sizeof in);
    add_op_annot_low(&u, &in, add_kernel(&u, s, 0, 10, "k"), "m/MatMul:MatMul", 1, "k");
    add_op_annot_low(&u, &in, add_kernel(&u, s, 12, 5, "k"), "m/MatMul:MatMul", 1, "k");
    o.era = TP_DERIVE_2022;
    tp_derive_from(&u, &in, &o);
    line_text(&u, derived_track(&u, "TensorFlow Ops"), buf, sizeof buf);
    CHECK_STR(buf, "MatMul@0+10 MatMul@12+5");
    tp_derive_input_free(&in);
    tp_trace_free(&t);
    tp_trace_free(&u);
}

TEST(derive_xla_modules_reset_ops_below_them)
{
    tp_trace t;
    uint32_t s;
    device(&t, &s);
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    const char *mods[] = {"jit_f(1)", "jit_f(1)", "jit_g(2)"};
    const char *ops[] = {"fusion", "fusion", "fusion"};
    for (int i = 0; i < 3; i++) {
        tp_annot a;
        memset(&a, 0, sizeof a);
        a.event = add_kernel(&t, s, i * 10, 5, "k");
        a.flags = TP_ANNOT_OP_SOURCE;
        a.group = TP_DERIVE_NO_GROUP;
        a.scope_inst = TP_NONE;
        a.module = tp_intern_cstr(&t, mods[i]);
        a.hlo_ops = tp_intern_cstr(&t, ops[i]);
        a.hlo_prefix = tp_intern_cstr(&t, "1");
        tp_derive_add(&in, &a);
    }
    tp_derive_opts o = {0};
    o.framework_names = true;
    tp_derive_from(&t, &in, &o);
    char buf[512];
    line_text(&t, derived_track(&t, "XLA Modules"), buf, sizeof buf);
    CHECK_STR(buf, "jit_f(1)@0+15 jit_g(2)@20+5");
    line_text(&t, derived_track(&t, "XLA Ops"), buf, sizeof buf);
    CHECK_STR(buf, "fusion@0+15 fusion@20+5");
    tp_derive_input_free(&in);
    tp_trace_free(&t);
}

/* PyTorch shape: ProfilerStep#3 > nn.Module: Net > aten::linear > aten::addmm >
 * cudaLaunchKernel, twice, each launching one kernel; then a second step. */
static uint32_t host_event(tp_trace *t, uint32_t track, int64_t ts, int64_t dur, const char *name, tp_kind k)
{
    tp_event e;
    tp_event_init(&e);
    e.ts = ts;
    e.dur = dur;
    e.track = track;
    e.kind = (uint8_t)k;
    e.name = tp_intern_cstr(t, name);
    return tp_event_add(t, &e);
}

TEST(derive_pytorch_lines_follow_launch_links)
{
    tp_trace t;
    tp_trace_init(&t);
    uint32_t hp = tp_process_get(&t, 100), dp = tp_process_get(&t, 0);
    t.processes[dp].is_device = true;
    uint32_t th = tp_track_get(&t, hp, 1), st = tp_track_get(&t, dp, 7);
    t.tracks[st].role = TP_TRACK_DEVICE;
    for (int step = 3; step <= 4; step++) {
        int64_t b = (step - 3) * 1000;
        char sn[32];
        snprintf(sn, sizeof sn, "ProfilerStep#%d", step);
        host_event(&t, th, b, 900, sn, TP_KIND_ANNOTATION);
        host_event(&t, th, b + 10, 800, "nn.Module: Net", TP_KIND_ANNOTATION);
        for (int call = 0; call < 2; call++) {
            int64_t c = b + 20 + call * 300;
            host_event(&t, th, c, 200, "aten::linear", TP_KIND_HOST_OP);
            host_event(&t, th, c + 10, 150, "aten::addmm", TP_KIND_HOST_OP);
            uint32_t launch = host_event(&t, th, c + 20, 20, "cudaLaunchKernel", TP_KIND_RUNTIME);
            uint32_t k = add_kernel(&t, st, c + 100, 50, "gemm");
            t.events[k].link = launch;
            t.events[launch].op = launch - 1;
        }
    }
    tp_derive_opts o = {0};
    o.framework_names = true;
    CHECK(tp_derive_lines(&t, &o, NULL) == 0);
    char buf[1024];
    /* two calls of aten::linear stay two events (the engine keys by call) */
    line_text(&t, derived_track(&t, "Framework Ops"), buf, sizeof buf);
    CHECK_STR(buf, "aten::linear@120+50 aten::linear@420+50 aten::linear@1120+50 aten::linear@1420+50");
    line_text(&t, derived_track(&t, "Framework Name Scope"), buf, sizeof buf);
    CHECK_STR(buf, "nn.Module: Net@120+350 nn.Module: Net@1120+350");
    line_text(&t, derived_track(&t, "Steps"), buf, sizeof buf);
    CHECK_STR(buf, "ProfilerStep#3@120+350 ProfilerStep#4@1120+350");
    uint32_t ops = derived_track(&t, "Framework Ops");
    CHECK(t.tracks[ops].process == dp && t.tracks[ops].derived_of == st);
    /* a second run leaves devices that already have derived lines alone */
    size_t n = t.nevents;
    CHECK(tp_derive_lines(&t, &o, NULL) == 0);
    CHECK_EQ_INT(t.nevents, n);
    tp_trace_free(&t);
}

/* ---- real PyTorch traces through the whole pipeline ---- */
#include "convert/pipeline/pipeline.h"

/* The derived event on `line` of the kernel's device that covers the kernel. */
static const tp_event *covering(const tp_trace *t, const tp_event *k, const char *line)
{
    uint32_t proc = t->tracks[k->track].process;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *d = &t->events[i];
        const char *name = tp_str_get(t, t->tracks[d->track].name);
        size_t n = strlen(line); /* "Framework Ops", or "Framework Ops (stream 7)" on a device of several streams */
        if (!(d->flags & TP_EV_DERIVED) || t->tracks[d->track].process != proc || strncmp(name, line, n) != 0 ||
            (name[n] && strncmp(name + n, " (stream ", 9) != 0))
            continue;
        if (d->ts <= k->ts && k->ts + k->dur <= d->ts + d->dur)
            return d;
    }
    return NULL;
}

static void check_pytorch_sample(const char *rel, size_t min_kernels, bool with_steps)
{
    tp_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.read.keep_args = false;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err;
    memset(&err, 0, sizeof err);
    CHECK(tp_load(tp_test_shared(rel), &lo, &t, &err) == 0);
    size_t checked = 0, stepped = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *k = &t.events[i];
        if (k->kind != TP_KIND_KERNEL || k->link == TP_NONE || (k->flags & TP_EV_DROPPED))
            continue;
        /* the outermost host op around the launch call, found by brute force */
        const tp_event *launch = &t.events[k->link], *top = NULL, *step = NULL;
        for (size_t j = 0; j < t.nevents; j++) {
            const tp_event *h = &t.events[j];
            if (h->ph != 'X' || (h->flags & TP_EV_DERIVED) || h->ts > launch->ts ||
                h->ts + h->dur < launch->ts + launch->dur)
                continue;
            if ((h->flags & TP_EV_STEP) && t.tracks[h->track].role == TP_TRACK_HOST)
                step = h;
            if (h->track != launch->track || h->kind != TP_KIND_HOST_OP)
                continue;
            if (!top || h->ts < top->ts || (h->ts == top->ts && h->dur > top->dur))
                top = h;
        }
        if (!top)
            continue;
        const tp_event *op = covering(&t, k, "Framework Ops");
        CHECK(op != NULL);
        if (op)
            CHECK_STR(tp_str_get(&t, op->name), tp_str_get(&t, top->name));
        checked++;
        if (with_steps && step) {
            const tp_event *s = covering(&t, k, "Steps");
            CHECK(s != NULL);
            if (s)
                CHECK_STR(tp_str_get(&t, s->name), tp_str_get(&t, step->name));
            stepped++;
        }
    }
    CHECK(checked >= min_kernels);
    if (with_steps)
        CHECK(stepped > 0);
    /* derived tracks sit beside a stream of their device */
    for (size_t k = 0; k < t.ntracks; k++)
        if (t.tracks[k].role == TP_TRACK_DERIVED) {
            uint32_t of = t.tracks[k].derived_of;
            CHECK(of != TP_NONE && t.tracks[of].process == t.tracks[k].process &&
                  t.tracks[of].role == TP_TRACK_DEVICE);
        }
    tp_trace_free(&t);
}

TEST(derive_pytorch_samples_framework_ops_follow_launch_links)
{
    check_pytorch_sample("external/kineto/hta_critical_path_alexnet_2023.json.gz", 70, false);
    check_pytorch_sample("external/kineto/hta_amd_mi250_rocm6_2.json.gz", 10, true);
}

/* Windows (spans the file gives, CK per_layer_info): written as they are on
 * a Layers line beside the stream given, in the order given, args kept;
 * overlapping and same-named windows neither merge nor clip. */
TEST(derive_windows_make_a_layers_line_beside_their_stream)
{
    tp_trace t;
    uint32_t s;
    device(&t, &s);
    uint32_t s2 = tp_track_get(&t, t.tracks[s].process, 8);
    t.tracks[s2].role = TP_TRACK_DEVICE;
    add_kernel(&t, s, 0, 10, "k");
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    tp_argb ab = {0};
    tp_argb_int(&ab, "index", 1);
    uint64_t args = tp_argb_commit(&t, &ab);
    tp_argb_free(&ab);
    tp_window w = {.track = s2, .ts = 100, .dur = 50, .name = tp_intern_cstr(&t, "conv"), .args = args};
    tp_derive_add_window(&in, &w);
    w.ts = 20; /* earlier, overlapping nothing: stays second */
    w.dur = 5;
    w.name = tp_intern_cstr(&t, "relu");
    w.args = 0;
    tp_derive_add_window(&in, &w);
    w.ts = 120; /* inside the first, same name: not merged */
    w.dur = 100;
    w.name = tp_intern_cstr(&t, "conv");
    tp_derive_add_window(&in, &w);
    tp_derive_opts o = {.per_stream = true};
    CHECK_EQ_INT(tp_derive_from(&t, &in, &o), 3);
    uint32_t k = derived_track(&t, "Layers");
    CHECK(k != TP_NONE);
    CHECK_EQ_INT(t.tracks[k].derived_of, s2);
    CHECK_EQ_INT(t.tracks[k].process, t.tracks[s].process);
    char buf[512];
    line_text(&t, k, buf, sizeof buf);
    CHECK_STR(buf, "conv@100+50 relu@20+5 conv@120+100");
    for (size_t i = 0; i < t.nevents; i++)
        if (t.events[i].track == k) {
            CHECK_STR(tp_str_get(&t, t.events[i].cat), TP_DERIVED_CAT);
            CHECK(t.events[i].flags & TP_EV_DERIVED);
            CHECK_EQ_INT(t.events[i].kind, TP_KIND_ANNOTATION);
            const char *a = tp_args_get(&t, t.events[i].args, NULL);
            if (t.events[i].ts == 100)
                CHECK(a && strcmp(a, "{\"index\":1}") == 0);
            else
                CHECK(!a || !*a || strcmp(a, "{}") == 0);
        }
    CHECK(derived_track(&t, "Framework Ops") == TP_NONE && derived_track(&t, "TensorFlow Ops") == TP_NONE);
    tp_derive_input_free(&in);
    tp_trace_free(&t);
}

TEST(derive_launch_stats_per_step)
{
    tp_trace t;
    uint32_t s;
    device(&t, &s);
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    uint32_t dev = t.tracks[s].process;
    tp_derive_add_launch(&in, dev, 1, 100, 4000);
    tp_derive_add_launch(&in, dev, 1, 5000, 2001);
    tp_derive_add_launch(&in, dev, 2, 9000, 10);
    tp_step_name sn = {1, tp_intern_cstr(&t, "train_step_1")};
    in.names = &sn;
    in.nnames = 1;
    tp_derive_opts o = {0};
    tp_derive_from(&t, &in, &o);
    in.names = NULL;
    char buf[512];
    uint32_t k = derived_track(&t, "Launch Stats");
    line_text(&t, k, buf, sizeof buf);
    CHECK_STR(buf, "Launch Stats for train_step_1@100+6901 Launch Stats for 2@9000+10");
    for (size_t i = 0; i < t.nevents; i++)
        if (t.events[i].track == k && t.events[i].ts == 100) {
            const char *a = tp_args_get(&t, t.events[i].args, NULL);
            CHECK(a && strstr(a, "\"num_launches\":2") && strstr(a, "\"max_launch_time_us\":4.000") &&
                  strstr(a, "\"avg_launch_time_us\":3.001"));
        }
    tp_derive_input_free(&in);
    tp_trace_free(&t);
}

/* Deep name scopes (hostile input: a few KB of XPlane can name scopes a
 * thousand deep): kernels alternate between two paths that differ at level
 * 0, so every kernel opens every level again.  Levels past
 * TP_DERIVE_MAX_LEVELS are counted in a warning, not derived; a new level
 * resets only the open ones (it once reset every level ever opened). */
TEST(derive_deep_scopes_alternating_paths)
{
    enum { DEPTH = 1000, KERNELS = 60 };
    tp_trace t;
    uint32_t s;
    device(&t, &s);
    tp_derive_input in;
    memset(&in, 0, sizeof in);
    char *path[2];
    for (int p = 0; p < 2; p++) {
        path[p] = malloc(DEPTH * 8 + 16);
        size_t len = 0;
        for (int d = 0; d < DEPTH; d++)
            len += (size_t)sprintf(path[p] + len, "%c%d/", p ? 'y' : 'x', d);
        sprintf(path[p] + len, "Op:Op");
    }
    for (int k = 0; k < KERNELS; k++)
        add_op_annot(&t, &in, add_kernel(&t, s, 10 * k, 5, "k"), path[k % 2], TP_DERIVE_NO_GROUP);
    tp_derive_opts o = {0};
    tp_derive_from(&t, &in, &o);
    uint32_t scope = derived_track(&t, "TensorFlow Name Scope"), ops = derived_track(&t, "TensorFlow Ops");
    size_t nscope = 0, nops = 0;
    int64_t deepest_last = -1;
    for (size_t i = 0; i < t.nevents; i++) {
        nscope += t.events[i].track == scope;
        nops += t.events[i].track == ops;
        if (t.events[i].track == scope && strcmp(tp_str_get(&t, t.events[i].name), "y63") == 0)
            deepest_last = t.events[i].ts;
        CHECK(t.events[i].track != scope || strcmp(tp_str_get(&t, t.events[i].name), "y64") != 0);
    }
    CHECK_EQ_INT(nscope, (size_t)KERNELS * TP_DERIVE_MAX_LEVELS);
    bool warned = false;
    for (size_t w = 0; w < t.nwarnings; w++)
        warned |= strstr(t.warnings[w].what, "deeper than 64") && t.warnings[w].count == 2 * (DEPTH - TP_DERIVE_MAX_LEVELS);
    CHECK(warned);
    CHECK_EQ_INT(nops, KERNELS);
    CHECK_EQ_INT(deepest_last, 10 * (KERNELS - 1));
    free(path[0]);
    free(path[1]);
    tp_derive_input_free(&in);
    tp_trace_free(&t);
}
