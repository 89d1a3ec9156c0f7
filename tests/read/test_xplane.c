/* test_xplane.c: the XPlane reader on the three real samples (counts from
 * ../shared/external/xplane/SOURCES.md), the derived-line oracle inside the
 * TF sample, JAX XLA lines, kernel sums computed independently, truncations. */
#include "convert/model/derive.h"
#include "tests/lib/harness.h"
#include "convert/codec/pbwire.h"
#include "convert/read/xplane/xplane.h"

#include <stdlib.h>
#include <string.h>

#define GPU_SAMPLE "external/xplane/gpu_multi_worker_34.83.195.179_6003.xplane.pb"
#define TPU_SAMPLE "external/xplane/tpu_inference_2.xplane.pb"
#define AMD_SAMPLE "external/xplane/amd_mi300_jax08_attention_tw003.xplane.pb"

static char *slurp(const char *rel, size_t *len)
{
    return tp_test_read_file(tp_test_shared(rel), len);
}

/* Read a sample; returns 0 on success. */
static int load(const char *rel, tp_trace *t, bool rederive, int era)
{
    size_t len;
    char *buf = slurp(rel, &len);
    if (!buf)
        return -1;
    tp_read_opts o;
    memset(&o, 0, sizeof o);
    o.keep_args = true;
    tp_xplane_opts xo = {.rederive = rederive};
    tp_format_opts_set(&o, &tp_format_xplane, &xo);
    o.derive_era = era;
    tp_err err;
    memset(&err, 0, sizeof err);
    tp_trace_init(t);
    int rc = tp_xplane_read_mem(buf, len, t, &o, &err);
    if (rc != 0)
        fprintf(stderr, "load %s: %s: %s\n", rel, err.where, err.msg);
    free(buf);
    return rc;
}

static uint32_t find_process(const tp_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nprocesses; i++)
        if (strcmp(tp_str_get(t, t->processes[i].name), name) == 0)
            return (uint32_t)i;
    return TP_NONE;
}

static uint32_t find_track(const tp_trace *t, const char *proc, const char *line)
{
    uint32_t p = find_process(t, proc);
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].process == p && strcmp(tp_str_get(t, t->tracks[i].name), line) == 0)
            return (uint32_t)i;
    return TP_NONE;
}

static size_t track_events(const tp_trace *t, uint32_t track)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        n += t->events[i].track == track;
    return n;
}

static size_t line_events(const tp_trace *t, const char *proc, const char *line)
{
    uint32_t k = find_track(t, proc, line);
    return k == TP_NONE ? 0 : track_events(t, k);
}

static size_t process_events(const tp_trace *t, const char *proc, size_t *ntracks)
{
    uint32_t p = find_process(t, proc);
    size_t n = 0;
    *ntracks = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        if (t->tracks[k].process == p && t->tracks[k].role != TP_TRACK_DERIVED) {
            (*ntracks)++;
            n += track_events(t, (uint32_t)k);
        }
    return n;
}

TEST(xplane_gpu_sample_counts)
{
    tp_trace t;
    CHECK(load(GPU_SAMPLE, &t, false, 0) == 0);
    size_t nt;
    CHECK_EQ_INT(process_events(&t, "/host:CPU", &nt), 15354);
    CHECK_EQ_INT(nt, 22);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:1", "Stream #123(MemcpyH2D)"), 19);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:4", "Stream #134(Compute)"), 665);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:4", "TensorFlow Ops"), 665);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:4", "TensorFlow Name Scope"), 2450);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:4", "Steps"), 1);
    size_t n4 = 0, n6 = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        uint32_t p = t.tracks[t.events[i].track].process;
        n4 += p == find_process(&t, "/device:GPU:4");
        n6 += p == find_process(&t, "/device:GPU:6");
    }
    CHECK_EQ_INT(n4, 3875);
    CHECK_EQ_INT(n6, 3880);
    /* pids per §6: host 701, devices 1 + plane id */
    CHECK_EQ_INT(t.processes[find_process(&t, "/host:CPU")].pid, 701);
    CHECK_EQ_INT(t.processes[find_process(&t, "/device:GPU:4")].device, 4);
    CHECK(t.processes[find_process(&t, "/device:GPU:4")].is_device);
    /* derived lines kept beside the device's first stream; tid = uint32(line id) */
    uint32_t ops = find_track(&t, "/device:GPU:4", "TensorFlow Ops");
    CHECK(ops != TP_NONE && t.tracks[ops].role == TP_TRACK_DERIVED);
    CHECK_EQ_INT(t.tracks[ops].tid, 3735928562LL);
    CHECK(t.tracks[ops].derived_of == find_track(&t, "/device:GPU:4", "Stream #63(MemcpyH2D)"));
    /* the first kernel's TF op, from the spec's worked example */
    uint32_t k = find_track(&t, "/device:GPU:4", "Stream #134(Compute)");
    for (size_t i = 0; i < t.nevents; i++)
        if (t.events[i].track == k) {
            CHECK_EQ_INT(t.events[i].kind, TP_KIND_KERNEL);
            CHECK(t.events[i].flags & TP_EV_HAS_CORR);
            size_t al;
            const char *a = tp_args_get(&t, t.events[i].args, &al);
            CHECK(a && strstr(a, "\"level 0\":\"replica_4/bert_span_labeler/bert_encoder_1/transformer/layer_5/"));
            break;
        }
    /* plane stats and planes go to the top-level "xplane" object */
    CHECK(strstr(t.toplevel.data, "\"name\":\"/device:GPU:0\""));
    CHECK(strstr(t.toplevel.data, "\"compute_cap_major\":7"));
    tp_trace_free(&t);
}

/* Lines TensorFlow derived (kept from the file) are derived lines: every
 * event on them is TP_EV_DERIVED, so analyses do not count them as the
 * trace's own slices (the report's "slices" of GPU:4 and GPU:6); and
 * nothing else is. */
TEST(xplane_file_derived_lines_are_flagged_derived)
{
    const char *samples[] = {GPU_SAMPLE, TPU_SAMPLE, AMD_SAMPLE};
    for (int k = 0; k < 3; k++) {
        tp_trace t;
        CHECK(load(samples[k], &t, false, 0) == 0);
        size_t derived = 0;
        for (size_t i = 0; i < t.nevents; i++) {
            const tp_event *e = &t.events[i];
            bool on_line = t.tracks[e->track].role == TP_TRACK_DERIVED;
            CHECK_EQ_INT(on_line, (e->flags & TP_EV_DERIVED) != 0);
            derived += on_line;
        }
        if (k == 0)
            CHECK(derived > 0); /* the GPU sample has TensorFlow's own lines */
        tp_trace_free(&t);
    }
}

TEST(xplane_tpu_sample_counts)
{
    tp_trace t;
    CHECK(load(TPU_SAMPLE, &t, false, 0) == 0);
    size_t nt;
    CHECK_EQ_INT(process_events(&t, "/host:CPU", &nt), 19270);
    CHECK_EQ_INT(nt, 122);
    CHECK_EQ_INT(line_events(&t, "/device:TPU:0", "XLA Modules"), 105);
    CHECK_EQ_INT(line_events(&t, "/device:TPU:1", "XLA Modules"), 103);
    CHECK_EQ_INT(line_events(&t, "/device:TPU:0", "XLA Ops"), 1504);
    CHECK_EQ_INT(line_events(&t, "/device:TPU:3", "XLA Ops"), 1503);
    CHECK_EQ_INT(line_events(&t, "/device:TPU:0", "Async XLA Ops"), 600);
    /* plane ids 2, 10, 18, 26 -> pids 3, 11, 19, 27 */
    CHECK_EQ_INT(t.processes[find_process(&t, "/device:TPU:0")].pid, 3);
    CHECK_EQ_INT(t.processes[find_process(&t, "/device:TPU:3")].pid, 27);
    /* Framework lines derived from the metadata tf_op (jit(_psum)/jit(main)/reduce_sum:) */
    CHECK(line_events(&t, "/device:TPU:0", "TensorFlow Ops") > 0);
    bool reduce_sum = false;
    uint32_t ops = find_track(&t, "/device:TPU:0", "TensorFlow Ops");
    for (size_t i = 0; i < t.nevents; i++)
        if (t.events[i].track == ops && strcmp(tp_str_get(&t, t.events[i].name), "reduce_sum") == 0)
            reduce_sum = true;
    CHECK(reduce_sum);
    tp_trace_free(&t);
}

TEST(xplane_amd_jax_sample_gets_xla_lines_named_by_hlo_op)
{
    tp_trace t;
    CHECK(load(AMD_SAMPLE, &t, false, 0) == 0);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:0", "Stream #16(Kernel)"), 87);
    CHECK_EQ_INT(line_events(&t, "/device:GPU:0", "Stream #17(Kernel)"), 18);
    uint32_t xla = find_track(&t, "/device:GPU:0", "XLA Ops");
    uint32_t mod = find_track(&t, "/device:GPU:0", "XLA Modules");
    CHECK(xla != TP_NONE && mod != TP_NONE);
    CHECK(t.tracks[xla].derived_of == find_track(&t, "/device:GPU:0", "Stream #16(Kernel)"));
    /* every XLA Ops event is named by an hlo_op of a kernel it covers */
    uint32_t s16 = find_track(&t, "/device:GPU:0", "Stream #16(Kernel)");
    uint32_t s17 = find_track(&t, "/device:GPU:0", "Stream #17(Kernel)");
    size_t nx = 0, named = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *x = &t.events[i];
        if (x->track != xla)
            continue;
        nx++;
        char want[512];
        snprintf(want, sizeof want, "\"hlo_op\":\"%s\"", tp_str_get(&t, x->name));
        for (size_t j = 0; j < t.nevents; j++) {
            const tp_event *k = &t.events[j];
            if ((k->track == s16 || k->track == s17) && k->ts >= x->ts && k->ts + k->dur <= x->ts + x->dur) {
                const char *a = tp_args_get(&t, k->args, NULL);
                if (a && strstr(a, want)) {
                    named++;
                    break;
                }
            }
        }
    }
    CHECK(nx > 0);
    CHECK_EQ_INT(named, nx);
    /* modules are "<hlo_module>(<program_id>)"; the op line is never "XlaModule" */
    bool jit = false;
    for (size_t i = 0; i < t.nevents; i++) {
        if (t.events[i].track == mod && strncmp(tp_str_get(&t, t.events[i].name), "jit_", 4) == 0 &&
            strchr(tp_str_get(&t, t.events[i].name), '('))
            jit = true;
        if (t.events[i].track == find_track(&t, "/device:GPU:0", "TensorFlow Ops"))
            CHECK(strcmp(tp_str_get(&t, t.events[i].name), "XlaModule") != 0);
    }
    CHECK(jit);
    tp_trace_free(&t);
}

typedef struct span {
    int64_t ts, dur;
    const char *name;
} span;

static int cmp_span(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->dur != b->dur)
        return a->dur > b->dur ? -1 : 1;
    return strcmp(a->name, b->name);
}

static span *line_spans(const tp_trace *t, const char *proc, const char *line, size_t *n)
{
    uint32_t k = find_track(t, proc, line);
    span *s = malloc((t->nevents + 1) * sizeof *s);
    *n = 0;
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].track == k)
            s[(*n)++] = (span){t->events[i].ts, t->events[i].dur, tp_str_get(t, t->events[i].name)};
    qsort(s, *n, sizeof *s, cmp_span);
    return s;
}

/* Events of `line` that differ between the file's own derived line and ours. */
static size_t line_diffs(const tp_trace *file, const tp_trace *ours, const char *proc, const char *line,
                         size_t *nfile, size_t *nours)
{
    span *a = line_spans(file, proc, line, nfile), *b = line_spans(ours, proc, line, nours);
    size_t i = 0, j = 0, diff = 0;
    while (i < *nfile || j < *nours) {
        if (i < *nfile && j < *nours && cmp_span(&a[i], &b[j]) == 0) {
            i++;
            j++;
            continue;
        }
        diff++;
        if (j >= *nours || (i < *nfile && cmp_span(&a[i], &b[j]) < 0))
            i++;
        else
            j++;
    }
    free(a);
    free(b);
    return diff;
}

TEST(xplane_oracle_rederived_lines_match_tensorflow_event_by_event)
{
    tp_trace file, ours, now;
    CHECK(load(GPU_SAMPLE, &file, false, 0) == 0);
    CHECK(load(GPU_SAMPLE, &ours, true, 2020) == 0); /* the rule of the TF that wrote the file */
    CHECK(load(GPU_SAMPLE, &now, true, 0) == 0);     /* today's rule */
    const char *devs[] = {"/device:GPU:4", "/device:GPU:6"};
    const char *lines[] = {"Steps", "TensorFlow Ops", "TensorFlow Name Scope"};
    const size_t expect[2][3] = {{1, 665, 2450}, {1, 665, 2436}};
    for (int d = 0; d < 2; d++)
        for (int l = 0; l < 3; l++) {
            size_t nf, no;
            CHECK_EQ_INT(line_diffs(&file, &ours, devs[d], lines[l], &nf, &no), 0);
            CHECK_EQ_INT(nf, expect[d][l]);
            CHECK_EQ_INT(no, expect[d][l]);
            /* today's rule: Steps and Ops identical; Name Scope differs by the
             * documented rules (deeper levels closed after each op, 1 ns shrink) */
            size_t d2 = line_diffs(&file, &now, devs[d], lines[l], &nf, &no);
            if (l < 2)
                CHECK_EQ_INT(d2, 0);
            else
                CHECK_EQ_INT(no, d == 0 ? 2451 : 2439);
        }
    /* the rebuilt lines replace the file's: no duplicate line */
    size_t nops = 0;
    for (size_t k = 0; k < ours.ntracks; k++)
        nops += ours.tracks[k].process == find_process(&ours, "/device:GPU:4") &&
                strcmp(tp_str_get(&ours, ours.tracks[k].name), "TensorFlow Ops") == 0;
    CHECK_EQ_INT(nops, 1);
    for (size_t i = 0; i < ours.nevents; i++)
        if (ours.tracks[ours.events[i].track].role == TP_TRACK_DERIVED)
            CHECK(ours.events[i].flags & TP_EV_DERIVED);
    tp_trace_free(&file);
    tp_trace_free(&ours);
    tp_trace_free(&now);
}

TEST(xplane_framework_line_names_option)
{
    size_t len;
    char *buf = slurp(AMD_SAMPLE, &len);
    CHECK(buf != NULL);
    tp_read_opts o;
    memset(&o, 0, sizeof o);
    tp_xplane_opts xo = {.framework_names = true};
    tp_format_opts_set(&o, &tp_format_xplane, &xo);
    tp_err err;
    memset(&err, 0, sizeof err);
    tp_trace t;
    tp_trace_init(&t);
    CHECK(tp_xplane_read_mem(buf, len, &t, &o, &err) == 0);
    CHECK(find_track(&t, "/device:GPU:0", "Framework Ops") != TP_NONE);
    CHECK(find_track(&t, "/device:GPU:0", "Framework Name Scope") != TP_NONE);
    CHECK(find_track(&t, "/device:GPU:0", "TensorFlow Ops") == TP_NONE);
    tp_trace_free(&t);
    free(buf);
}

/* ---- an independent walk of the file: kernel time straight from the wire ---- */

static int64_t rnd(int64_t ps) { return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000); }

/* Sum of (end - start) in ns over events having a `kernel_details` stat
 * (event or metadata level), on non-derived lines of device planes. */
static int64_t direct_kernel_sum(const char *buf, size_t len, size_t *count)
{
    tp_err err;
    memset(&err, 0, sizeof err);
    tp_pb top = tp_pb_init(buf, len);
    tp_pb_field pf;
    int64_t sum = 0;
    *count = 0;
    while (tp_pb_next(&top, &pf, &err) == 1) {
        if (pf.num != 1)
            continue;
        /* the stat id of kernel_details, and metadata ids whose stats have it */
        int64_t kd = INT64_MIN;
        tp_pb pl = tp_pb_sub(&top, &pf);
        tp_pb_field f, g, h;
        bool device = false;
        while (tp_pb_next(&pl, &f, &err) == 1) {
            if (f.num == 2)
                device = f.len > 8 && memcmp(f.data, "/device:", 8) == 0;
            if (f.num != 5)
                continue;
            tp_pb e = tp_pb_sub(&pl, &f);
            while (tp_pb_next(&e, &g, &err) == 1)
                if (g.num == 2) {
                    tp_pb v = tp_pb_sub(&e, &g);
                    int64_t id = 0;
                    bool is_kd = false;
                    while (tp_pb_next(&v, &h, &err) == 1) {
                        if (h.num == 1)
                            id = (int64_t)h.v;
                        if (h.num == 2 && h.len == 14 && memcmp(h.data, "kernel_details", 14) == 0)
                            is_kd = true;
                    }
                    if (is_kd)
                        kd = id;
                }
        }
        if (!device || kd == INT64_MIN)
            continue;
        pl = tp_pb_sub(&top, &pf);
        while (tp_pb_next(&pl, &f, &err) == 1) {
            if (f.num != 3)
                continue;
            tp_pb ln = tp_pb_sub(&pl, &f);
            int64_t ts = 0, id = 0;
            while (tp_pb_next(&ln, &g, &err) == 1) {
                if (g.num == 1)
                    id = (int64_t)g.v;
                if (g.num == 3)
                    ts = (int64_t)g.v;
            }
            if (tp_xplane_is_derived_line_id(id))
                continue;
            ln = tp_pb_sub(&pl, &f);
            while (tp_pb_next(&ln, &g, &err) == 1) {
                if (g.num != 4)
                    continue;
                tp_pb ev = tp_pb_sub(&ln, &g);
                int64_t off = 0, dur = 0;
                bool kernel = false;
                while (tp_pb_next(&ev, &h, &err) == 1) {
                    if (h.num == 2)
                        off = (int64_t)h.v;
                    if (h.num == 3)
                        dur = (int64_t)h.v;
                    if (h.num == 4) {
                        tp_pb st = tp_pb_sub(&ev, &h);
                        tp_pb_field s;
                        while (tp_pb_next(&st, &s, &err) == 1)
                            if (s.num == 1 && (int64_t)s.v == kd)
                                kernel = true;
                    }
                }
                if (kernel) {
                    sum += (ts + rnd(off + dur)) - (ts + rnd(off));
                    (*count)++;
                }
            }
        }
    }
    return sum;
}

TEST(xplane_kernel_time_equals_direct_sum_over_the_file)
{
    const char *samples[] = {GPU_SAMPLE, AMD_SAMPLE};
    for (int s = 0; s < 2; s++) {
        size_t len, count;
        char *buf = slurp(samples[s], &len);
        CHECK(buf != NULL);
        int64_t want = direct_kernel_sum(buf, len, &count);
        tp_trace t;
        CHECK(load(samples[s], &t, false, 0) == 0);
        int64_t got = 0;
        size_t n = 0;
        for (size_t i = 0; i < t.nevents; i++)
            if (t.events[i].kind == TP_KIND_KERNEL) {
                got += t.events[i].dur;
                n++;
            }
        CHECK(count > 0);
        CHECK_EQ_INT(n, count);
        CHECK_EQ_INT(got, want);
        if (s == 0)
            CHECK_EQ_INT(count, 665 * 2);
        tp_trace_free(&t);
        free(buf);
    }
}

/* ---- truncation: every cut is a clean error, or a valid shorter XSpace ---- */

static void check_truncations(const char *buf, size_t len, size_t stride)
{
    /* cuts exactly between top-level fields leave a valid, shorter XSpace */
    tp_err e0;
    memset(&e0, 0, sizeof e0);
    bool *boundary = calloc(len + 1, 1);
    tp_pb top = tp_pb_init(buf, len);
    tp_pb_field f;
    while (tp_pb_next(&top, &f, &e0) == 1)
        boundary[tp_pb_offset(&top)] = true;
    size_t bad = 0, ok = 0;
    for (size_t n = 0; n < len; n += (n < 4096 ? 1 : stride)) {
        tp_trace t;
        tp_trace_init(&t);
        tp_read_opts o;
        memset(&o, 0, sizeof o);
        o.keep_args = true;
        tp_err err;
        memset(&err, 0, sizeof err);
        char *copy = malloc(n + 1); /* exact-size buffer: ASan sees any overread */
        memcpy(copy, buf, n);
        int rc = tp_xplane_read_mem(copy, n, &t, &o, &err);
        if (rc == 0) {
            ok++;
            if (!boundary[n] || n == 0)
                bad++;
        } else {
            CHECK(err.set && strncmp(err.where, "offset ", 7) == 0 && err.msg[0]);
        }
        free(copy);
        tp_trace_free(&t);
    }
    CHECK_EQ_INT(bad, 0);
    free(boundary);
}

TEST(xplane_every_truncation_is_a_clean_error)
{
    size_t len;
    char *buf = slurp(AMD_SAMPLE, &len);
    CHECK(buf != NULL);
    /* every cut of the first 4 KB (the first plane's metadata and stats),
     * then every 997th byte through the whole file */
    check_truncations(buf, len, 997);
    free(buf);
}

/* Cuts inside a plane: the plane's length is rewritten to the cut, so the
 * decoder meets broken lines, events and stats, not only a short file. */
TEST(xplane_truncated_planes_are_clean_errors)
{
    size_t len;
    char *buf = slurp(AMD_SAMPLE, &len);
    CHECK(buf != NULL);
    tp_err e0;
    memset(&e0, 0, sizeof e0);
    tp_pb top = tp_pb_init(buf, len);
    tp_pb_field f;
    const uint8_t *plane = NULL;
    size_t plen = 0;
    while (tp_pb_next(&top, &f, &e0) == 1) /* the plane with kernels: /device:GPU:0 */
        if (f.num == 1 && f.len > 16 && memmem(f.data, f.len < 64 ? f.len : 64, "/device:GPU:0", 13)) {
            plane = f.data;
            plen = f.len;
            break;
        }
    CHECK(plane != NULL);
    size_t errors = 0, cuts = 0;
    for (size_t n = 0; plane && n < plen; n += (n < 8192 ? 1 : 7)) {
        uint8_t *x = malloc(n + 12);
        size_t k = 0;
        x[k++] = 0x0a;
        size_t v = n;
        do {
            x[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
            v >>= 7;
        } while (v);
        memcpy(x + k, plane, n);
        tp_trace t;
        tp_trace_init(&t);
        tp_read_opts o;
        memset(&o, 0, sizeof o);
        o.keep_args = true;
        tp_err err;
        memset(&err, 0, sizeof err);
        if (tp_xplane_read_mem(x, k + n, &t, &o, &err) != 0) {
            errors++;
            CHECK(err.set && strncmp(err.where, "offset ", 7) == 0);
        }
        cuts++;
        tp_trace_free(&t);
        free(x);
    }
    CHECK(errors > cuts / 2); /* most cuts land inside a field */
    free(buf);
}

/* ---- end to end, through the tracepress binary ---- */

TEST(xplane_stats_json_kernel_totals_equal_direct_sum)
{
    const char *samples[] = {GPU_SAMPLE, AMD_SAMPLE};
    for (int s = 0; s < 2; s++) {
        size_t len, count;
        char *buf = slurp(samples[s], &len);
        CHECK(buf != NULL);
        int64_t want = direct_kernel_sum(buf, len, &count);
        free(buf);
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "%s stats --json '%s'", tp_test_bin(), tp_test_shared(samples[s])), 0);
        long long total = 0, n = 0;
        for (const char *p = out; p && (p = strstr(p, "\"kind\":\"kernel\",\"count\":")) != NULL;) {
            long long c = 0, ns = 0;
            CHECK(sscanf(p, "\"kind\":\"kernel\",\"count\":%lld,\"total_ns\":%lld", &c, &ns) == 2);
            n += c;
            total += ns;
            p++;
        }
        CHECK_EQ_INT(n, count);
        CHECK_EQ_INT(total, want);
        free(out);
    }
}

TEST(xplane_convert_loads_in_the_trace_engine)
{
    const char *samples[] = {GPU_SAMPLE, TPU_SAMPLE, AMD_SAMPLE};
    const char *mods = getenv("TP_NODE_MODULES");
    char def[1024];
    if (!mods || !*mods) {
        const char *np = getenv("NODE_PATH");
        snprintf(def, sizeof def, "%s", np && *np ? np : "build/node/node_modules");
        mods = def;
    }
    for (int s = 0; s < 3; s++) {
        char *out = NULL;
        const char *json = tp_test_tmp(s == 0 ? "gpu.json" : s == 1 ? "tpu.json" : "amd.json");
        CHECK_EQ_INT(tp_test_run(&out, "%s convert -q '%s' -o '%s'", tp_test_bin(), tp_test_shared(samples[s]), json),
                     0);
        free(out);
        if (!tp_test_have("node")) {
            tp_test_fail(__FILE__, __LINE__, "node is not installed: cannot check the output in the trace engine");
            continue;
        }
        out = NULL;
        int rc = tp_test_run(&out, "TP_NODE_MODULES='%s' node tests/check_trace.mjs '%s'", mods, json);
        if (rc != 0)
            fprintf(stderr, "%s\n", out ? out : "");
        CHECK_EQ_INT(rc, 0);
        CHECK(out && strstr(out, "\"bad_nesting\":0") && strstr(out, "\"loaded\":true"));
        free(out);
    }
}

TEST(xplane_convert_of_a_truncated_file_exits_2_with_one_line)
{
    size_t len;
    char *buf = slurp(GPU_SAMPLE, &len);
    CHECK(buf != NULL);
    const size_t cuts[] = {1, 2, 3, 100, 4096, len / 3, len / 2, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *in = tp_test_tmp("cut.xplane.pb");
        FILE *f = fopen(in, "wb");
        CHECK(f != NULL);
        fwrite(buf, 1, cuts[i], f);
        fclose(f);
        char *out = NULL;
        int rc = tp_test_run(&out, "%s convert '%s' -o '%s'", tp_test_bin(), in, tp_test_tmp("cut.json"));
        CHECK_EQ_INT(rc, 2);
        CHECK(out && strstr(out, ": offset ") && strchr(out, '\n') == out + strlen(out) - 1);
        CHECK(!tp_test_file_exists(tp_test_tmp("cut.json")));
        free(out);
    }
    free(buf);
}

TEST(xplane_convert_rederive_and_line_name_options)
{
    char *out = NULL;
    const char *json = tp_test_tmp("rederive.json");
    CHECK_EQ_INT(tp_test_run(&out, "%s convert -q '%s' -o '%s' --rederive --derive-rule 2020 --line-names framework",
                             tp_test_bin(), tp_test_shared(GPU_SAMPLE), json),
                 0);
    free(out);
    size_t n;
    char *text = tp_test_read_file(json, &n);
    CHECK(text && strstr(text, "\"Framework Name Scope\"") && !strstr(text, "\"TensorFlow Name Scope\""));
    free(text);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s convert '%s' -o '%s' --line-names pytorch", tp_test_bin(),
                             tp_test_shared(GPU_SAMPLE), tp_test_tmp("bad.json")),
                 1);
    free(out);
}

TEST(xplane_converted_output_reconverts_identically)
{
    const char *samples[] = {GPU_SAMPLE, TPU_SAMPLE, AMD_SAMPLE};
    for (int s = 0; s < 3; s++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s", tp_test_tmp("x1.json"));
        snprintf(b, sizeof b, "%s", tp_test_tmp("x2.json"));
        CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), tp_test_shared(samples[s]), a), 0);
        /* the derived lines come back as derived lines, launch links by "correlation" */
        CHECK_EQ_INT(tp_test_run(NULL, "%s convert -q '%s' -o '%s'", tp_test_bin(), a, b), 0);
        CHECK_EQ_INT(tp_test_run(NULL, "cmp -s '%s' '%s'", a, b), 0);
        char *k1 = NULL, *k2 = NULL;
        tp_test_run(&k1, "%s stats --json --kernels-only '%s' | sed -n 's/.*\"kernel_total_ns\"/K/p;/^{\"name\"/p'", tp_test_bin(),
                    tp_test_shared(samples[s]));
        tp_test_run(&k2, "%s stats --json --kernels-only '%s' | sed -n 's/.*\"kernel_total_ns\"/K/p;/^{\"name\"/p'", tp_test_bin(), a);
        CHECK(k1 && k2 && strlen(k1) > 10 && strcmp(k1, k2) == 0);
        free(k1);
        free(k2);
    }
}

/* Corrupt bytes anywhere (deterministic): the reader returns an error or a
 * trace, never reads out of bounds (run under ASan by `make test`). */
static void corrupt_rounds(const char *rel, int rounds)
{
    size_t len;
    char *buf = slurp(rel, &len);
    CHECK(buf != NULL);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t errors = 0;
    for (int round = 0; round < rounds && buf; round++) {
        char *copy = malloc(len);
        memcpy(copy, buf, len);
        for (int k = 0; k < 1 + round % 8; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            copy[x % len] = (char)(x >> 40);
        }
        tp_trace t;
        tp_trace_init(&t);
        tp_read_opts o;
        memset(&o, 0, sizeof o);
        o.keep_args = true;
        tp_xplane_opts xo = {.rederive = round % 2};
        tp_format_opts_set(&o, &tp_format_xplane, &xo);
        tp_err err;
        memset(&err, 0, sizeof err);
        if (tp_xplane_read_mem(copy, len, &t, &o, &err) != 0) {
            errors++;
            CHECK(err.set && err.msg[0]);
        }
        tp_trace_free(&t);
        free(copy);
    }
    CHECK(errors > 0);
    free(buf);
}

TEST(xplane_corrupted_bytes_never_crash)
{
    corrupt_rounds(AMD_SAMPLE, 300);
    corrupt_rounds(GPU_SAMPLE, 40); /* with --rederive on every other round: the engine on bad data */
}

/* pbwire's one- and two-byte varint fast paths give the same answers and
 * errors as the general loop. */
TEST(pbwire_varint_fast_paths)
{
    const uint8_t one[] = {0x7f}, two[] = {0xac, 0x02}, cut[] = {0xac}, three[] = {0x80, 0x80, 0x01};
    uint64_t v = 0;
    tp_err err;
    memset(&err, 0, sizeof err);
    tp_pb r = tp_pb_init(one, 1);
    CHECK_EQ_INT(tp_pb_varint(&r, &v, &err), 1);
    CHECK_EQ_INT(v, 127);
    r = tp_pb_init(two, 2);
    CHECK_EQ_INT(tp_pb_varint(&r, &v, &err), 1);
    CHECK_EQ_INT(v, 300);
    CHECK(r.p == r.end);
    r = tp_pb_init(three, 3);
    CHECK_EQ_INT(tp_pb_varint(&r, &v, &err), 1);
    CHECK_EQ_INT(v, 16384);
    r = tp_pb_init(cut, 1);
    CHECK_EQ_INT(tp_pb_varint(&r, &v, &err), -1);
    CHECK(err.set);
}
