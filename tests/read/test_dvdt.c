/* test_dvdt.c: the dv/dt prof reader: the real ARM CL trace, a synthetic
 * file for every other input form with known answers, and bad input. */
#include "convert/read/dvdt/dvdt.h"
#include "tests/lib/dvdt_samples.h"
#include "tests/lib/harness.h"
#include "report/analysis/steps.h"

#include <stdlib.h>

#define SAMPLE "external/dvdt/dvdt_prof_armcl_tmp-dvdt-prof.json"

/* Detect and read PATH straight through the format table. */
static int load(const char *path, bool keep_args, tp_trace *t, tp_err *err, const char **fmt)
{
    memset(err, 0, sizeof *err);
    tp_trace_init(t);
    tp_input *in = tp_input_open(path, err);
    if (!in)
        return -1;
    const tp_format *f = tp_format_detect(in, err);
    int rc = -1;
    if (f) {
        if (fmt)
            *fmt = f->name;
        tp_read_opts o = {0};
        o.keep_args = keep_args;
        rc = f->read(in, t, &o, err);
    }
    tp_input_close(in);
    return rc;
}

/* The tmpdir is shared by every test of the run: our files are "dvdt-*". */
#define CKP_NAME "dvdt-ckp-0123456789abcdef.0001.json" /* CK point files are named ckp-*.0001.json */

static const char *dv_tmp(const char *name)
{
    char n[256];
    snprintf(n, sizeof n, "dvdt-%s", name);
    return tp_test_tmp(n);
}

static const char *write_tmp(const char *name, const char *text)
{
    const char *path = dv_tmp(name);
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Generic kernel grouping: kind KERNEL events by name. */
typedef struct kgroup {
    const char *name;
    int64_t count, total;
} kgroup;

static size_t group_kernels(const tp_trace *t, kgroup *g, size_t max, int64_t *total, int64_t *count)
{
    size_t n = 0;
    *total = *count = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const tp_event *e = &t->events[i];
        if (e->kind != TP_KIND_KERNEL)
            continue;
        const char *name = tp_str_get(t, e->name);
        size_t k = 0;
        while (k < n && strcmp(g[k].name, name) != 0)
            k++;
        if (k == n) {
            if (n == max)
                continue;
            g[n++] = (kgroup){name, 0, 0};
        }
        g[k].count++;
        g[k].total += e->dur;
        *total += e->dur;
        ++*count;
    }
    return n;
}

static const kgroup *find_group(const kgroup *g, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0)
            return &g[i];
    return NULL;
}

static const tp_event *nth_of_kind(const tp_trace *t, int kind, size_t nth)
{
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].kind == kind && nth-- == 0)
            return &t->events[i];
    return NULL;
}

static bool args_has(const tp_trace *t, const tp_event *e, const char *needle)
{
    size_t len;
    const char *a = tp_args_get(t, e->args, &len);
    return a && strstr(a, needle) != NULL;
}

TEST(dvdt_real_trace_kernel_totals)
{
    tp_trace t;
    tp_err err;
    const char *fmt = NULL;
    CHECK(load(tp_test_shared(SAMPLE), true, &t, &err, &fmt) == 0);
    CHECK_STR(fmt, "dvdt");
    CHECK_EQ_INT(t.events_in, 2736);
    kgroup g[64];
    int64_t total, count;
    size_t n = group_kernels(&t, g, 64, &total, &count);
    CHECK_EQ_INT(count, 100);
    CHECK_EQ_INT(n, 12);
    CHECK_EQ_INT(total, 38604622);
    const kgroup *k = find_group(g, n, "direct_convolution1x1_f32_bifrost_7");
    CHECK(k && k->count == 7 && k->total == 16978827);
    k = find_group(g, n, "batchnormalization_layer");
    CHECK(k && k->count == 27 && k->total == 1962768);
    k = find_group(g, n, "softmax_layer_norm");
    CHECK(k && k->count == 1 && k->total == 7780);
    /* host slices: every call, host times to the microsecond */
    size_t host = 0;
    for (size_t i = 0; i < t.nevents; i++)
        host += t.events[i].kind == TP_KIND_RUNTIME;
    CHECK_EQ_INT(host, 2736);
    const tp_event *first = nth_of_kind(&t, TP_KIND_RUNTIME, 0);
    /* 2018-02-09T10:36:48.553314 .. .553428 */
    CHECK_EQ_INT(first->ts, 1518172608553314000LL);
    CHECK_EQ_INT(first->dur, 114000);
    CHECK_STR(tp_str_get(&t, first->name), "clCreateCommandQueue");
    CHECK(args_has(&t, first, "\"queue\":\"0x55a2b3dc00\""));
    /* every execution is linked to its enqueue and sits inside it on the host clock */
    size_t inside = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (e->kind != TP_KIND_KERNEL)
            continue;
        CHECK(e->link != TP_NONE);
        const tp_event *h = &t.events[e->link];
        CHECK_STR(tp_str_get(&t, h->name), "clEnqueueNDRangeKernel");
        inside += e->ts >= h->ts && e->ts + e->dur <= h->ts + h->dur;
    }
    CHECK_EQ_INT(inside, 100);
    /* first enqueue: fill_image_borders_constant, NULL lws, args decoded */
    const tp_event *k0 = nth_of_kind(&t, TP_KIND_KERNEL, 0);
    CHECK_STR(tp_str_get(&t, k0->name), "fill_image_borders_constant");
    CHECK_EQ_INT(k0->dur, 315018683988486LL - 315018683983278LL);
    CHECK(args_has(&t, k0, "\"lws\":\"NULL\""));
    CHECK(args_has(&t, k0, "\"gws\":[449,1,3]"));
    CHECK(args_has(&t, k0, "\"queue_wait_ns\":3693307"));
    CHECK(args_has(&t, k0, "\"kernel_args\":{"));
    CHECK(args_has(&t, k0, "cl_mem 0x"));
    CHECK(t.processes[1].is_device);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: enqueue without profiling info (no device slice)"), 0);
    tp_trace_free(&t);
}

/* ---- text (ostream) mode ------------------------------------------------ */

static const char TEXT_MODE[] =
    "program banner\n"
    "[dv/dt] clCreateProgramWithSource\n"
    "[dv/dt] clCreateProgramWithSource context 0x00001000\n"
    "[dv/dt] clCreateProgramWithSource count 1\n"
    "[dv/dt] clCreateProgramWithSource sources[0] <<\n"
    "__kernel void gemm_nn(int M, int N, int K) {\n"
    "  /* [dv/dt] in a comment */\n"
    "}\n"
    "\n"
    "[dv/dt] clCreateProgramWithSource sources[0] >>\n"
    "[dv/dt] clCreateProgramWithSource program 0x00002000\n"
    "[dv/dt] clCreateProgramWithSource start 2018-02-09T10:36:48.600000\n"
    "[dv/dt] clCreateProgramWithSource end 2018-02-09T10:36:48.600010\n"
    "[dv/dt] clCreateProgramWithSource errcode 0\n"
    "\n"
    "[dv/dt] clBuildProgram\n"
    "[dv/dt] clBuildProgram program 0x00002000\n"
    "[dv/dt] clBuildProgram options -DA=1 -DB=2\n"
    "[dv/dt] clBuildProgram start 2018-02-09T10:36:48.600020\n"
    "[dv/dt] clBuildProgram end 2018-02-09T10:36:48.600030\n"
    "\n"
    "[dv/dt] clSetKernelArg\n"
    "[dv/dt] clSetKernelArg kernel 0x00005000\n"
    "[dv/dt] clSetKernelArg arg_index 0\n"
    "[dv/dt] clSetKernelArg arg_size 4\n"
    "[dv/dt] clSetKernelArg arg_value 00010000\n"
    "[dv/dt] clSetKernelArg start 2018-02-09T10:36:48.600100\n"
    "[dv/dt] clSetKernelArg end 2018-02-09T10:36:48.600101\n"
    "[dv/dt] clSetKernelArg errcode 0\n"
    "\n"
    "[dv/dt] clSetKernelArg\n"
    "[dv/dt] clSetKernelArg kernel 0x00005000\n"
    "[dv/dt] clSetKernelArg arg_index 1\n"
    "[dv/dt] clSetKernelArg arg_size 4\n"
    "[dv/dt] clSetKernelArg arg_value 40000000\n"
    "[dv/dt] clSetKernelArg start 2018-02-09T10:36:48.600102\n"
    "[dv/dt] clSetKernelArg end 2018-02-09T10:36:48.600103\n"
    "\n"
    "[dv/dt] clSetKernelArg\n"
    "[dv/dt] clSetKernelArg kernel 0x00005000\n"
    "[dv/dt] clSetKernelArg arg_index 2\n"
    "[dv/dt] clSetKernelArg arg_size 4\n"
    "[dv/dt] clSetKernelArg arg_value 20000000\n"
    "[dv/dt] clSetKernelArg start 2018-02-09T10:36:48.600104\n"
    "[dv/dt] clSetKernelArg end 2018-02-09T10:36:48.600105\n"
    "\n"
    "[dv/dt] clEnqueueNDRangeKernel\n"
    "[dv/dt] clEnqueueNDRangeKernel name gemm_nn\n"
    "[dv/dt] clEnqueueNDRangeKernel queue 0x00003000\n"
    "[dv/dt] clEnqueueNDRangeKernel kernel 0x00005000\n"
    "[dv/dt] clEnqueueNDRangeKernel gwo 0 0 0\n"
    "[dv/dt] clEnqueueNDRangeKernel gws 256 64 1\n"
    "[dv/dt] clEnqueueNDRangeKernel lws 16 16 1\n"
    "[dv/dt] clEnqueueNDRangeKernel event_wait_list\n"
    "[dv/dt] clEnqueueNDRangeKernel event 0\n"
    "[dv/dt] clEnqueueNDRangeKernel start 2018-02-09T10:36:48.601000\n"
    "[dv/dt] clEnqueueNDRangeKernel profiling 1000000000 1000050000 1000100000 1002100000\n"
    "[dv/dt] clEnqueueNDRangeKernel end 2018-02-09T10:36:48.603400\n"
    "[dv/dt] clEnqueueNDRangeKernel errcode 0\n"
    "\n"
    "[dv/dt] clEnqueueNDRangeKernel\n"
    "[dv/dt] clEnqueueNDRangeKernel name gemm_nn\n"
    "[dv/dt] clEnqueueNDRangeKernel queue 0x00003000\n"
    "[dv/dt] clEnqueueNDRangeKernel kernel 0x00005000\n"
    "[dv/dt] clEnqueueNDRangeKernel gws 256 64 1\n"
    "[dv/dt] clEnqueueNDRangeKernel lws 0 0 0\n"
    "[dv/dt] clEnqueueNDRangeKernel start 2018-02-09T10:36:48.604000\n"
    "[dv/dt] clEnqueueNDRangeKernel output profiling info error: -7\n"
    "[dv/dt] clEnqueueNDRangeKernel end 2018-02-09T10:36:48.605000\n"
    "[dv/dt] clEnqueueNDRangeKernel errcode 0\n";

TEST(dvdt_text_mode)
{
    tp_trace t;
    tp_err err;
    const char *fmt = NULL;
    CHECK(load(write_tmp("text.log", TEXT_MODE), true, &t, &err, &fmt) == 0);
    CHECK_STR(fmt, "dvdt");
    CHECK_EQ_INT(t.events_in, 7);
    kgroup g[8];
    int64_t total, count;
    CHECK_EQ_INT(group_kernels(&t, g, 8, &total, &count), 1);
    CHECK_EQ_INT(count, 1);
    CHECK_EQ_INT(total, 2000000);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: enqueue without profiling info (no device slice)"), 1);
    const tp_event *k = nth_of_kind(&t, TP_KIND_KERNEL, 0);
    CHECK(args_has(&t, k, "\"M\":256,\"N\":64,\"K\":32"));
    CHECK(args_has(&t, k, "\"lws\":[16,16,1]"));
    CHECK(args_has(&t, k, "\"queue_wait_ns\":100000"));
    /* the only aligned pair: t0 - queued, so the kernel starts 100 us after the call */
    CHECK_EQ_INT(k->ts, 1518172608601000000LL + 100000);
    const tp_event *h = &t.events[k->link];
    CHECK_EQ_INT(h->ts, 1518172608601000000LL);
    CHECK_EQ_INT(h->dur, 2400000);
    CHECK(args_has(&t, h, "\"kernel_args\":{\"0\":256,\"1\":64,\"2\":32}"));
    CHECK(args_has(&t, h, "\"event_wait_list\":[]"));
    const tp_event *prog = nth_of_kind(&t, TP_KIND_RUNTIME, 0);
    CHECK_STR(tp_str_get(&t, prog->name), "clCreateProgramWithSource");
    CHECK(args_has(&t, prog, "\"source_bytes\":76")); /* 77 bytes between the brackets, less std::endl's newline */
    const tp_event *build = nth_of_kind(&t, TP_KIND_RUNTIME, 1);
    CHECK(args_has(&t, build, "\"options\":\"-DA=1 -DB=2\""));
    const tp_event *nd2 = nth_of_kind(&t, TP_KIND_RUNTIME, 6);
    CHECK(args_has(&t, nd2, "\"output profiling_error\":-7"));
    CHECK(args_has(&t, nd2, "\"lws\":\"NULL\""));
    tp_trace_free(&t);
}

/* ---- framed program output ---------------------------------------------- */

#define ND(name, kernel, q, s, st, e, t0, t1)                                                                  \
    "{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"" name "\",\"queue\":\"0x3000\",\"kernel\":\"" kernel    \
    "\",\"gwo\":[0,0,0],\"gws\":[64,1,1],\"lws\":[0,0,0],\"event_wait_list\":[],\"event\":\"0\","             \
    "\"profiling\":{\"queued\":" q ",\"submit\":" s ",\"start\":" st ",\"end\":" e "},"                       \
    "\"timestamp\":{\"start\":\"" t0 "\",\"end\":\"" t1 "\"},\"errcode\":0}"

TEST(dvdt_framed_output)
{
    const char *text = "Caffe init\nlayer 1 ...\n[dv/dt] <<\n[\n" ND("k1", "0x5000", "100", "200", "300", "1300",
                                                                       "2018-02-09T10:36:48.000000",
                                                                       "2018-02-09T10:36:48.000010") ",\n"
                       ND("k1", "0x5000", "20000", "20100", "20200", "23200", "2018-02-09T10:36:48.000020",
                          "2018-02-09T10:36:48.000030") "\n]\n[dv/dt] >>\nTotal time: 12 ms\n";
    tp_trace t;
    tp_err err;
    const char *fmt = NULL;
    CHECK(load(write_tmp("framed.log", text), true, &t, &err, &fmt) == 0);
    CHECK_STR(fmt, "dvdt");
    kgroup g[8];
    int64_t total, count;
    CHECK_EQ_INT(group_kernels(&t, g, 8, &total, &count), 1);
    CHECK_EQ_INT(count, 2);
    CHECK_EQ_INT(total, 4000);
    /* t0 - queued: T - 100 and T (T = 48.000000 s); lower median T - 100 lies
     * below max(t0 - queued) = T, so it is clamped to T (inside min(t1 - end)) */
    const tp_event *k = nth_of_kind(&t, TP_KIND_KERNEL, 1);
    CHECK_EQ_INT(k->ts - 1518172608000000000LL, 20200);
    /* queue wait: three nested slices per enqueue on the wait track */
    size_t waits = 0;
    for (size_t i = 0; i < t.nevents; i++)
        waits += strcmp(tp_str_get(&t, t.events[i].name), "queue wait") == 0 && t.events[i].dur == 200;
    CHECK_EQ_INT(waits, 2);
    tp_trace_free(&t);

    /* no closing marker: a clear error */
    CHECK(load(write_tmp("framed_cut.log", "[dv/dt] <<\n[\n" ND("k1", "0x5000", "1", "2", "3", "4",
                                                                 "2018-02-09T10:36:48.000000",
                                                                 "2018-02-09T10:36:48.000010") "\n]\n"),
               true, &t, &err, NULL) == -1);
    CHECK(strstr(err.msg, "no closing") != NULL);
    tp_trace_free(&t);
}

/* ---- GEMM sizes and kernel argument decoding (cjson) --------------------- */

TEST(dvdt_gemm_sizes_and_args)
{
    const char *text =
        "[{\"call\":\"clCreateBuffer\",\"context\":\"0x1\",\"flags\":1,\"size\":4096,\"host_ptr\":\"0\","
        "\"buffer\":\"0x7f00001000\",\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000000\",\"end\":\"2020-01-01T00:00:00.000001\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":0,\"arg_size\":4,\"arg_value\":\"80000000\","
        "\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000002\",\"end\":\"2020-01-01T00:00:00.000003\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":1,\"arg_size\":4,\"arg_value\":\"00010000\","
        "\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000002\",\"end\":\"2020-01-01T00:00:00.000003\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":2,\"arg_size\":4,\"arg_value\":\"40000000\","
        "\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000002\",\"end\":\"2020-01-01T00:00:00.000003\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":3,\"arg_size\":8,\"arg_value\":\"001000007f000000\","
        "\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000002\",\"end\":\"2020-01-01T00:00:00.000003\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":4,\"arg_size\":8,\"arg_value\":\"efbeadde00000000\","
        "\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000002\",\"end\":\"2020-01-01T00:00:00.000003\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":5,\"arg_size\":2,\"arg_value\":\"zz00\","
        "\"timestamp\":{\"start\":\"2020-01-01T00:00:00.000002\",\"end\":\"2020-01-01T00:00:00.000003\"}},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":6,\"arg_size\":12,\"arg_value\":\"0100000002000000030000xx\"},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":7,\"arg_size\":12,\"arg_value\":\"010000000200000003000000\"},"
        ND("XgemmDirectNN", "0x9000", "1000", "1000", "2000", "2099152", "2020-01-01T00:00:00.000010",
           "2020-01-01T00:00:00.003000") "]";
    tp_trace t;
    tp_err err;
    const char *fmt = NULL;
    CHECK(load(write_tmp("gemm.json", text), true, &t, &err, &fmt) == 0);
    CHECK_STR(fmt, "dvdt");
    const tp_event *k = nth_of_kind(&t, TP_KIND_KERNEL, 0);
    CHECK(k != NULL);
    CHECK_EQ_INT(k->dur, 2097152); /* 2*128*256*64 flop in 2097152 ns = 2.0 GFLOP/s */
    CHECK(args_has(&t, k, "\"M\":128,\"N\":256,\"K\":64"));
    CHECK(args_has(&t, k, "\"3\":\"cl_mem 0x7f00001000 (4096 bytes)\""));
    CHECK(args_has(&t, k, "\"4\":\"0xdeadbeef\""));
    CHECK(args_has(&t, k, "\"5\":\"zz00\""));
    CHECK(args_has(&t, k, "\"6\":\"0100000002000000030000xx\""));
    CHECK(args_has(&t, k, "\"7\":\"0x010000000200000003000000\"")); /* a struct: bytes in memory order */
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: kernel argument value is not arg_size bytes of hex (kept as text)"), 2);
    tp_trace_free(&t);
}

/* ---- CK point, several repetitions, per-layer windows -------------------- */

TEST(dvdt_ck_point_repetitions_and_layers)
{
    tp_trace t;
    tp_err err;
    const char *fmt = NULL;
    CHECK(load(tp_test_dvdt_ck_point(CKP_NAME, 3), true, &t, &err, &fmt) == 0);
    CHECK_STR(fmt, "dvdt");
    CHECK_EQ_INT(t.nprocesses, 6);
    CHECK_STR(tp_str_get(&t, t.processes[4].name), "repetition 2: host");
    kgroup g[8];
    int64_t total, count;
    CHECK_EQ_INT(group_kernels(&t, g, 8, &total, &count), 2);
    CHECK_EQ_INT(count, 6);
    CHECK_EQ_INT(total, 3 * 20000 + 10000 + 11000 + 12000);
    /* Layers: a derived line beside the queue track, one slice per layer and repetition */
    size_t layers = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        const tp_track *tr = &t.tracks[e->track];
        if (tr->role != TP_TRACK_DERIVED)
            continue;
        layers++;
        CHECK_STR(tp_str_get(&t, tr->name), "Layers");
        CHECK(tr->derived_of != TP_NONE && t.tracks[tr->derived_of].role == TP_TRACK_DEVICE);
        CHECK(t.processes[tr->process].is_device);
        if (layers == 1) {
            CHECK_STR(tp_str_get(&t, e->name), "01: conv1");
            CHECK_EQ_INT(e->ts, 1526820004000000000LL);
            CHECK_EQ_INT(e->dur, 500000);
        }
    }
    CHECK_EQ_INT(layers, 6);
    /* kernels land inside their layer windows: kA at +2 us, kB at +1002 us */
    const tp_event *ka = nth_of_kind(&t, TP_KIND_KERNEL, 0), *kb = nth_of_kind(&t, TP_KIND_KERNEL, 1);
    CHECK_EQ_INT(ka->ts, 1526820004000000000LL + 2000);
    CHECK_EQ_INT(kb->ts, 1526820004000000000LL + 1002000);
    /* the repetition annotation carries time_fw_ms */
    const tp_event *rep = nth_of_kind(&t, TP_KIND_ANNOTATION, 0);
    CHECK(args_has(&t, rep, "\"time_fw_ms\":12.5"));
    tp_trace_free(&t);
}

/* The report names device streams after the process label: each
 * repetition's queue must be told apart there, and the clock note stays in
 * the process name (it used to be the label: three rows read "device clock
 * aligned to host (estimate) queue 0x3000"). */
TEST(dvdt_ck_repetitions_have_distinct_stream_labels)
{
    tp_trace t;
    tp_err err;
    CHECK(load(tp_test_dvdt_ck_point(CKP_NAME, 3), true, &t, &err, NULL) == 0);
    int seen = 0;
    for (size_t i = 0; i < t.ntracks; i++) {
        const tp_track *tr = &t.tracks[i];
        const tp_process *p = &t.processes[tr->process];
        if (tr->role != TP_TRACK_DEVICE || !strstr(tp_str_get(&t, tr->name), "queue 0x3000") ||
            strstr(tp_str_get(&t, tr->name), "wait"))
            continue;
        char want[128], got[256];
        snprintf(want, sizeof want, "repetition %d: OpenCL device queue 0x3000", seen);
        tp_stream_label(&t, (uint32_t)i, got, sizeof got);
        CHECK_STR(got, want);
        snprintf(want, sizeof want, "repetition %d: OpenCL device (device clock aligned to host, estimate)", seen);
        CHECK_STR(tp_str_get(&t, p->name), want);
        seen++;
    }
    CHECK_EQ_INT(seen, 3);
    tp_trace_free(&t);
}

/* ---- bad input ----------------------------------------------------------- */

TEST(dvdt_every_truncation_is_a_clean_error)
{
    size_t len;
    char *all = tp_test_read_file(tp_test_shared(SAMPLE), &len);
    CHECK(all != NULL);
    if (!all)
        return;
    const char *path = dv_tmp("cut.json");
    size_t cuts[64], n = 0;
    for (size_t c = 1; c < 1200; c += 37) /* inside the first records, strings, numbers */
        cuts[n++] = c;
    for (size_t k = 1; k < 16; k++)
        cuts[n++] = len * k / 16;
    cuts[n++] = len - 2;
    for (size_t i = 0; i < n; i++) {
        FILE *f = fopen(path, "wb");
        fwrite(all, 1, cuts[i], f);
        fclose(f);
        tp_trace t;
        tp_err err;
        tp_trace_init(&t);
        memset(&err, 0, sizeof err);
        tp_input *in = tp_input_open(path, &err);
        tp_read_opts o = {0};
        int rc = tp_format_dvdt.read(in, &t, &o, &err);
        tp_input_close(in);
        CHECK(rc == -1);
        CHECK(err.set && strncmp(err.where, "offset ", 7) == 0);
        if (rc != -1)
            fprintf(stderr, "  cut at %zu was accepted\n", cuts[i]);
        tp_trace_free(&t);
    }
    free(all);
}

TEST(dvdt_bad_records)
{
    tp_trace t;
    tp_err err;
    /* an enqueue without profiling info: host slice, no device slice, counted */
    CHECK(load(write_tmp("noprof.json",
                         "[{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"k\",\"queue\":\"0x1\",\"kernel\":\"0x2\","
                         "\"timestamp\":{\"start\":\"2018-02-09T10:36:48.000000\",\"end\":\"2018-02-09T10:36:48.000010\"},"
                         "\"output profiling_error\":-7}]"),
               true, &t, &err, NULL) == 0);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: enqueue without profiling info (no device slice)"), 1);
    CHECK_EQ_INT(t.nevents, 1);
    tp_trace_free(&t);
    /* placeholder host clock and garbage profiling */
    CHECK(load(write_tmp("weird.json",
                         "[{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"k\",\"queue\":\"0x1\",\"kernel\":\"0x2\","
                         "\"timestamp\":{\"start\":\"1970-01-01 00:00:00.000\",\"end\":\"1970-01-01 00:00:00.000\"},"
                         "\"profiling\":{\"queued\":\"x\",\"submit\":1,\"start\":2,\"end\":3}},"
                         "{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"k\",\"queue\":\"0x1\",\"kernel\":\"0x2\","
                         "\"profiling\":{\"queued\":50,\"submit\":40,\"start\":60,\"end\":70}}]"),
               true, &t, &err, NULL) == 0);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: enqueue with unreadable profiling counters (no device slice)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: no host clock in this build (WALLCLOCK=timeofday placeholder)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: profiling counters out of order (clamped)"), 1);
    const tp_event *k = nth_of_kind(&t, TP_KIND_KERNEL, 0);
    CHECK(k && k->ts == 60 - 50 && k->dur == 10); /* no host clock: device timeline from the first queued */
    tp_trace_free(&t);
    /* values that would overflow int64 sums: counters outside 0..2^53, host years outside 1970..2200 */
    CHECK(load(write_tmp("huge.json",
                         "[{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"k\",\"queue\":\"0x1\",\"kernel\":\"0x2\","
                         "\"timestamp\":{\"start\":\"9999-01-01T00:00:00.000000\",\"end\":\"9999-01-01T00:00:00.000000\"},"
                         "\"profiling\":{\"queued\":-9223372036854775808,\"submit\":1,\"start\":2,\"end\":3}},"
                         "{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"k\",\"queue\":\"0x1\",\"kernel\":\"0x2\","
                         "\"profiling\":{\"queued\":0,\"submit\":1,\"start\":2,\"end\":9.2e18}}]"),
               true, &t, &err, NULL) == 0);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: enqueue with unreadable profiling counters (no device slice)"), 2);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: call without a valid host timestamp (no host slice)"), 2);
    CHECK_EQ_INT(t.nevents, 0);
    tp_trace_free(&t);
    /* structural errors */
    CHECK(load(write_tmp("notobj.json", "[{\"call\":\"clFinish\"}, 42]"), true, &t, &err, NULL) == -1);
    CHECK_STR(err.where, "offset 22");
    CHECK(strstr(err.msg, "not a JSON object") != NULL);
    tp_trace_free(&t);
    CHECK(load(write_tmp("nocall.json", "[{\"errcode\":0}]"), true, &t, &err, NULL) == -1);
    CHECK(strstr(err.msg, "no \"call\"") != NULL);
    tp_trace_free(&t);
    /* a real ck-caffe point (firefly-rk3399, AlexNet/clBLAS) has time_ms values like 17796200000000.0 */
    CHECK(load(write_tmp("ckp-layers.0001.json",
                         "{\"characteristics_list\": [{\"run\": {\"time_fw_ms\": 9549.93, \"per_layer_info\": ["
                         "{\"direction\": \"forward\", \"index\": 1, \"label\": \"01: conv1\", \"time_ms\": 17796200000000.0,"
                         " \"timestamp\": \"0520 14:16:26.911214\"}]}}]}"),
               true, &t, &err, NULL) == 0);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: per_layer_info entry with a missing or out-of-range timestamp/time_ms (skipped)"), 1);
    CHECK_EQ_INT(tp_warning_count(&t, "dvdt: CK repetition without dvdt_prof"), 1);
    tp_trace_free(&t);
    CHECK(load(write_tmp("ckp-bad.0001.json", "{\"characteristics_list\": 3}"), true, &t, &err, NULL) == -1);
    CHECK(strstr(err.msg, "characteristics_list") != NULL);
    tp_trace_free(&t);
    CHECK(load(write_tmp("garbage.dvdt", "[dv/dt] hello\n"), true, &t, &err, NULL) == -1);
    CHECK(strstr(err.msg, "no dv/dt records") != NULL);
    tp_trace_free(&t);
}

/* ---- analysis (report/formats/dvdt/dvdt_analysis.c) through the pipeline -------------- */

#include "report/formats/dvdt/dvdt_analysis.h"
#include "convert/pipeline/pipeline.h"

#include <math.h>

static int pipeline_load(const char *path, tp_trace *t)
{
    tp_load_opts o;
    memset(&o, 0, sizeof o);
    tp_err err = {0};
    tp_trace_init(t);
    int rc = tp_load(path, &o, t, &err); /* keep_args off, as stats/report load */
    if (rc)
        fprintf(stderr, "  load %s: %s %s\n", path, err.where, err.msg);
    return rc;
}

/* The Layers line, converted and read again, is still a derived line beside
 * its queue (it had category "annotation": read again it became a device
 * stream of its own and its slices counted as the trace's). */
TEST(dvdt_layers_line_stays_derived_when_read_again)
{
    const char *out = dv_tmp("layers-again.json");
    remove(out);
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert -q '%s' -o '%s'", tp_test_bin(), tp_test_dvdt_ck_point(CKP_NAME, 2), out), 0);
    free(msg);
    tp_trace t;
    CHECK_EQ_INT(pipeline_load(out, &t), 0);
    int lines = 0, layer_events = 0;
    for (size_t i = 0; i < t.ntracks; i++) {
        const tp_track *tr = &t.tracks[i];
        if (strcmp(tp_str_get(&t, tr->name), "Layers") != 0)
            continue;
        lines++;
        CHECK_EQ_INT(tr->role, TP_TRACK_DERIVED);
        CHECK(tr->derived_of != TP_NONE && strcmp(tp_str_get(&t, t.tracks[tr->derived_of].name), "queue 0x3000") == 0);
    }
    for (size_t i = 0; i < t.nevents; i++)
        if (strcmp(tp_str_get(&t, t.tracks[t.events[i].track].name), "Layers") == 0) {
            layer_events++;
            CHECK(t.events[i].flags & TP_EV_DERIVED);
        }
    CHECK_EQ_INT(lines, 2);
    CHECK_EQ_INT(layer_events, 4);
    tp_trace_free(&t);
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-6 * (fabs(b) > 1 ? fabs(b) : 1); }

TEST(dvdt_analysis_real_trace_describe)
{
    tp_trace t;
    CHECK(pipeline_load(tp_test_shared(SAMPLE), &t) == 0);
    tp_dvdt_analysis a;
    tp_dvdt_analyse(&t, &a);
    CHECK_EQ_INT(a.nkernels, 12);
    CHECK_EQ_INT(a.nreps, 1);
    CHECK_EQ_INT(a.reps[0].kernels, 100);
    CHECK_EQ_INT(a.reps[0].exec_total_ns, 38604622);
    CHECK_EQ_INT(a.reps[0].time_fw_ns, -1);
    CHECK_EQ_INT(a.npositions, 100);
    CHECK_EQ_INT(a.ngemms, 0);
    CHECK_EQ_INT(a.nlayers, 0);
    const tp_dvdt_kernel_row *k = &a.kernels[0]; /* largest total first */
    CHECK_STR(tp_str_get(&t, k->name), "direct_convolution1x1_f32_bifrost_7");
    CHECK_EQ_INT(k->exec.count, 7);
    CHECK(near(k->exec.mean, 2425546.714285714));
    CHECK(near(k->exec.std, 522792.85418022383));
    CHECK(near(k->exec.min, 1304262) && near(k->exec.max, 2986458));
    CHECK(near(k->exec.p25, 2502575) && near(k->exec.p50, 2549909) && near(k->exec.p75, 2566524));
    CHECK(near(k->wait.mean, 243188) && near(k->wait.std, 13002.493594179028));
    CHECK(near(k->wait.p75, 250491.5));
    const tp_dvdt_kernel_row *bn = NULL;
    for (size_t i = 0; i < a.nkernels; i++)
        if (strcmp(tp_str_get(&t, a.kernels[i].name), "batchnormalization_layer") == 0)
            bn = &a.kernels[i];
    CHECK(bn && bn->exec.count == 27 && near(bn->exec.p25, 42561.5) && near(bn->exec.std, 59232.680741250195));
    CHECK(bn && near(bn->wait.mean, 335852.037037037) && near(bn->wait.max, 1744417));
    /* one repetition: each position is one execution, in time order */
    CHECK_STR(tp_str_get(&t, a.positions[0].name), "fill_image_borders_constant");
    CHECK_EQ_INT(a.positions[0].exec.count, 1);
    CHECK(near(a.positions[0].exec.mean, 5208));
    CHECK(isnan(a.positions[0].exec.std));
    tp_dvdt_analysis_free(&a);
    tp_trace_free(&t);
}

TEST(dvdt_analysis_ck_repetitions_positions_layers)
{
    tp_trace t;
    CHECK(pipeline_load(tp_test_dvdt_ck_point(CKP_NAME, 3), &t) == 0);
    tp_dvdt_analysis a;
    tp_dvdt_analyse(&t, &a);
    CHECK_EQ_INT(a.nreps, 3);
    for (int r = 0; r < 3; r++) {
        CHECK_EQ_INT(a.reps[r].kernels, 2);
        CHECK_EQ_INT(a.reps[r].exec_total_ns, 30000 + 1000 * r);
        CHECK_EQ_INT(a.reps[r].time_fw_ns, 12500000 + 1000000 * r);
    }
    CHECK(near(a.rep_exec.mean, 31000) && near(a.rep_exec.std, 1000));
    CHECK(near(a.rep_time_fw.mean, 13500000) && near(a.rep_time_fw.std, 1000000));
    CHECK_EQ_INT(a.npositions, 2);
    CHECK_STR(tp_str_get(&t, a.positions[0].name), "kA");
    CHECK(!a.positions[0].mixed);
    CHECK_EQ_INT(a.positions[0].exec.count, 3);
    CHECK(near(a.positions[0].exec.mean, 11000) && near(a.positions[0].exec.std, 1000));
    CHECK(near(a.positions[0].exec.p25, 10500) && near(a.positions[0].exec.p75, 11500));
    CHECK(near(a.positions[1].exec.mean, 20000) && near(a.positions[1].exec.std, 0));
    /* layers: conv1 holds kA, relu1 holds kB, in every repetition */
    CHECK_EQ_INT(a.nlayers, 6);
    CHECK_EQ_INT(a.unassigned, 0);
    for (size_t l = 0; l < a.nlayers; l++) {
        const tp_dvdt_layer_row *L = &a.layers[l];
        CHECK_EQ_INT(L->repetition, (int)(l / 2));
        CHECK_EQ_INT(L->kernels, 1);
        CHECK_EQ_INT(L->nparts, 1);
        bool conv = l % 2 == 0;
        CHECK_STR(tp_str_get(&t, L->label), conv ? "01: conv1" : "02: relu1");
        CHECK_EQ_INT(L->time_ns, conv ? 500000 : 300000);
        CHECK_EQ_INT(L->kernel_ns, conv ? 10000 + 1000 * (int64_t)(l / 2) : 20000);
        CHECK_STR(tp_str_get(&t, a.parts[L->first_part].name), conv ? "kA" : "kB");
    }
    tp_dvdt_analysis_free(&a);
    tp_trace_free(&t);
}

TEST(dvdt_analysis_gemm_gflops)
{
    tp_trace t;
    /* the GEMM file of dvdt_gemm_sizes_and_args; written again here */
    const char *text =
        "[{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":0,\"arg_size\":4,\"arg_value\":\"80000000\"},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":1,\"arg_size\":4,\"arg_value\":\"00010000\"},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":2,\"arg_size\":4,\"arg_value\":\"40000000\"},"
        ND("XgemmDirectNN", "0x9000", "1000", "1000", "2000", "2099152", "2020-01-01T00:00:00.000010",
           "2020-01-01T00:00:00.003000") ","
        ND("XgemmDirectNN", "0x9000", "3000000", "3000000", "3000000", "5097152", "2020-01-01T00:00:00.004000",
           "2020-01-01T00:00:00.008000") "]";
    CHECK(pipeline_load(write_tmp("gemm2.json", text), &t) == 0);
    tp_dvdt_analysis a;
    tp_dvdt_analyse(&t, &a);
    CHECK_EQ_INT(a.ngemms, 1);
    const tp_dvdt_gemm_row *g = &a.gemms[0];
    CHECK_STR(tp_str_get(&t, g->name), "XgemmDirectNN");
    CHECK(g->m == 128 && g->n == 256 && g->k == 64);
    CHECK_EQ_INT(g->count, 2);
    CHECK_EQ_INT(g->total_ns, 2097152 * 2);
    CHECK(near(g->gflop, 2 * 4194304 / 1e9));
    CHECK(near(g->gflops, 2.0));
    tp_dvdt_analysis_free(&a);
    tp_trace_free(&t);
}

/* ---- the command line: stats --json, convert + trace engine --------------- */

TEST(dvdt_stats_json_real_trace)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats --json --kernels-only '%s'", tp_test_bin(), tp_test_shared(SAMPLE));
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"format\":\"dvdt\""));
    CHECK(out && strstr(out, "\"kernel_total_ns\":38604622"));
    CHECK(out && strstr(out, "\"kernel_instances\":100"));
    CHECK(out && strstr(out, "{\"name\":\"softmax_layer_norm\",\"kind\":\"kernel\",\"count\":1,\"total_ns\":7780,"));
    size_t rows = 0;
    for (const char *p = out; p && (p = strstr(p, "{\"name\":")); p++)
        rows++;
    CHECK_EQ_INT(rows, 12);
    free(out);
    /* gzip'ed and on stdin: read, not mapped; same numbers */
    const char *gz = dv_tmp("sample.json.gz");
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "gzip -c '%s' > '%s' && %s stats --json '%s' && cat '%s' | %s stats --json -",
                             tp_test_shared(SAMPLE), gz, tp_test_bin(), gz, tp_test_shared(SAMPLE), tp_test_bin()),
                 0);
    const char *second = out ? strstr(out, "\"kernel_total_ns\":38604622,\"kernel_instances\":100") : NULL;
    CHECK(second && strstr(second + 1, "\"kernel_total_ns\":38604622,\"kernel_instances\":100"));
    free(out);
}

static void check_in_engine(const char *in, const char *name, const char *expect)
{
    char *out = NULL;
    const char *conv = dv_tmp(name);
    remove(conv);
    int rc = tp_test_run(&out, "%s convert -q '%s' -o '%s'", tp_test_bin(), in, conv);
    CHECK_EQ_INT(rc, 0);
    free(out);
    out = NULL;
    /* the output read back (Chrome reader) has the same kernel table: kinds survive as categories */
    char *s_in = NULL, *s_out = NULL;
    tp_test_run(&s_in, "%s stats --json --kernels-only '%s' 2>/dev/null | sed -n 's/.*\"kernel_total_ns\"/K/p;/^{\"name\"/p'", tp_test_bin(), in);
    tp_test_run(&s_out, "%s stats --json --kernels-only '%s' 2>/dev/null | sed -n 's/.*\"kernel_total_ns\"/K/p;/^{\"name\"/p'", tp_test_bin(), conv);
    CHECK(s_in && s_out && strlen(s_in) > 10 && strcmp(s_in, s_out) == 0);
    free(s_in);
    free(s_out);
    if (getenv("TP_SKIP_NODE") || !tp_test_have("node")) {
        fprintf(stderr, "  (TP_SKIP_NODE or no node: trace-engine check of %s skipped)\n", name);
        return;
    }
    rc = tp_test_run(&out, "node tests/check_trace.mjs '%s'", conv);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "\"bad_nesting\":0") && strstr(out, "\"problems\":[]"));
    CHECK(out && strstr(out, expect));
    if (rc)
        fprintf(stderr, "%s\n", out ? out : "");
    free(out);
}

TEST(dvdt_converted_output_loads_in_trace_engine)
{
    check_in_engine(tp_test_shared(SAMPLE), "real.json", "\"flows_bound\":100");
    check_in_engine(tp_test_dvdt_ck_point(CKP_NAME, 3), "ckp.json", "\"flows_bound\":6");
    check_in_engine(write_tmp("text2.log", TEXT_MODE), "text.json", "\"flows_bound\":1");
}

TEST(dvdt_strict_rejects_repairs)
{
    const char *path = write_tmp("badhex.json", "[{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9\",\"arg_index\":0,"
                                                "\"arg_size\":4,\"arg_value\":\"zz000000\"}]");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' --strict", tp_test_bin(), path), 2);
    CHECK(out && strstr(out, "badhex.json: offset 1: call record 0: kernel argument value is not arg_size bytes of hex"));
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s'", tp_test_bin(), path), 0);
    free(out);
}

TEST(dvdt_two_queues_and_buffer_copies)
{
    /* queue 0xA: write (MEMCPY) then kernel; queue 0xB: kernel then read (MEMCPY) */
#define CALL(call, extra, q, st, e, t0, t1)                                                                     \
    "{\"call\":\"" call "\",\"queue\":\"" q "\"," extra "\"profiling\":{\"queued\":" st ",\"submit\":" st       \
    ",\"start\":" st ",\"end\":" e "},\"timestamp\":{\"start\":\"2020-01-01T00:00:00." t0                       \
    "\",\"end\":\"2020-01-01T00:00:00." t1 "\"}}"
    const char *text =
        "[" CALL("clEnqueueWriteBuffer", "\"buffer\":\"0x10\",\"blocking\":1,\"offset\":0,\"size\":4096,", "0xA",
                 "1000", "2000", "000001", "000003") ","
        CALL("clEnqueueNDRangeKernel", "\"name\":\"ka\",\"kernel\":\"0x20\",\"gws\":[1,1,1],\"lws\":[1,1,1],",
             "0xA", "3000", "7000", "000003", "000008") ","
        CALL("clEnqueueNDRangeKernel", "\"name\":\"kb\",\"kernel\":\"0x21\",\"gws\":[1,1,1],\"lws\":[1,1,1],",
             "0xB", "9000", "10000", "000009", "000011") ","
        CALL("clEnqueueReadBuffer", "\"buffer\":\"0x10\",\"blocking\":1,\"offset\":0,\"size\":4096,", "0xB",
             "12000", "15000", "000012", "000016") "]";
#undef CALL
    tp_trace t;
    tp_err err;
    CHECK(load(write_tmp("queues.json", text), true, &t, &err, NULL) == 0);
    const tp_event *ka = nth_of_kind(&t, TP_KIND_KERNEL, 0), *kb = nth_of_kind(&t, TP_KIND_KERNEL, 1);
    const tp_event *w = nth_of_kind(&t, TP_KIND_MEMCPY, 0), *r = nth_of_kind(&t, TP_KIND_MEMCPY, 1);
    CHECK(ka && kb && w && r);
    if (!(ka && kb && w && r))
        return;
    CHECK_STR(tp_str_get(&t, w->name), "clEnqueueWriteBuffer");
    CHECK_STR(tp_str_get(&t, r->name), "clEnqueueReadBuffer");
    CHECK_EQ_INT(w->dur, 1000);
    CHECK_EQ_INT(r->dur, 3000);
    CHECK(args_has(&t, w, "\"size\":4096"));
    CHECK_EQ_INT(w->track, ka->track);
    CHECK_EQ_INT(kb->track, r->track);
    CHECK(ka->track != kb->track);
    CHECK_STR(tp_str_get(&t, t.tracks[ka->track].name), "queue 0xA");
    CHECK_STR(tp_str_get(&t, t.tracks[kb->track].name), "queue 0xB");
    CHECK_EQ_INT(t.tracks[kb->track].role, TP_TRACK_DEVICE);
    /* the offset is host - device = 0 here: every t0 - queued is 0 */
    CHECK_EQ_INT(kb->ts - 1577836800000000000LL, 9000);
    tp_trace_free(&t);
}

/* Converted output of the synthetic inputs, byte for byte (review changes with git diff). */
static void golden_convert(const char *in, const char *name)
{
    const char *out_path = dv_tmp(strrchr(name, '/') + 1);
    remove(out_path);
    char *msg = NULL;
    CHECK_EQ_INT(tp_test_run(&msg, "%s convert -q '%s' -o '%s'", tp_test_bin(), in, out_path), 0);
    free(msg);
    size_t len = 0;
    char *data = tp_test_read_file(out_path, &len);
    CHECK(data != NULL);
    if (data)
        CHECK_GOLDEN(name, data, len);
    free(data);
}

TEST(dvdt_golden_conversions)
{
    golden_convert(write_tmp("golden_text.log", TEXT_MODE), "convert/dvdt_text.json");
    golden_convert(tp_test_dvdt_ck_point(CKP_NAME, 2), "convert/dvdt_ckp.json");
}

TEST(dvdt_analysis_of_empty_and_foreign_traces)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_dvdt_analysis a;
    tp_dvdt_analyse(&t, &a); /* nothing at all */
    CHECK(a.nkernels == 0 && a.npositions == 0 && a.ngemms == 0 && a.nreps == 0 && a.nlayers == 0);
    CHECK_EQ_INT(a.rep_exec.count, 0);
    CHECK(isnan(a.rep_exec.mean));
    tp_dvdt_analysis_free(&a);
    /* a device with one kernel but no dv/dt args: no wait statistics, no GEMM rows */
    uint32_t p = tp_process_get(&t, 7);
    t.processes[p].is_device = true;
    tp_event e;
    tp_event_init(&e);
    e.track = tp_track_get(&t, p, 1);
    e.kind = TP_KIND_KERNEL;
    e.name = tp_intern_cstr(&t, "k");
    e.ts = 100;
    e.dur = 50;
    tp_event_add(&t, &e);
    tp_dvdt_analyse(&t, &a);
    CHECK_EQ_INT(a.nkernels, 1);
    CHECK_EQ_INT(a.kernels[0].exec.count, 1);
    CHECK_EQ_INT(a.kernels[0].wait.count, 0);
    CHECK_EQ_INT(a.ngemms, 0);
    CHECK_EQ_INT(a.nreps, 1);
    CHECK_EQ_INT(a.reps[0].exec_total_ns, 50);
    tp_dvdt_analysis_free(&a);
    tp_trace_free(&t);
}
