/* test_pftrace_read.c: the Perfetto protobuf reader (convert/read/pftrace/).
 * Our own .pftrace output read back gives the same `stats` as the JSON it
 * came from (kernels, counts, totals, streams, launch flows, steps); a
 * hand-built trace (tests/pftrace/pftrace_example.c: Perfetto's documented
 * shapes with interned data, defaults, an incremental clock, a legacy thread
 * descriptor, and compressed_packets) reads into the expected events; bad
 * input (every truncation, a zip bomb, nesting, garbage) is one line, exit 2,
 * no output. */
#include "tests/lib/harness.h"
#include "tests/pftrace/pftrace_example.h"
#include "convert/pipeline/pipeline.h"

#include <stdlib.h>
#include <string.h>

/* `stats` of a file, without its first line (it names the file and the reader,
 * and counts the events read: the JSON's metadata and flow events are no
 * events of a .pftrace) and the "Cannot tell" lines (they name the missing
 * device table and shapes: Kineto's deviceProperties are not in a .pftrace). */
static char *stats_body(const char *path)
{
    char *out = NULL;
    if (tp_test_run(&out, "%s stats '%s' 2>&1", tp_test_bin(), path) != 0) {
        free(out);
        return NULL;
    }
    tp_buf b = {0};
    const char *p = strchr(out, '\n');
    p = p ? p + 1 : out + strlen(out);
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p + 1) : strlen(p);
        if (strncmp(p, "Cannot tell", 11) != 0)
            tp_buf_put(&b, p, n);
        p += n;
    }
    tp_buf_putc(&b, 0);
    free(out);
    return b.data;
}

static void round_trip(const char *sample, const char *name)
{
    const char *in = tp_test_shared(sample);
    char pf[512];
    snprintf(pf, sizeof pf, "%s", tp_test_tmp(name));
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o '%s' 2>/dev/null", tp_test_bin(), in, pf), 0);
    char *a = stats_body(in), *b = stats_body(pf);
    CHECK(a && b);
    if (a && b && strcmp(a, b) != 0) {
        /* the first line that differs, for the log */
        size_t i = 0, line = 0;
        for (; a[i] && a[i] == b[i]; i++)
            line = a[i] == '\n' ? i + 1 : line;
        tp_test_fail(__FILE__, __LINE__, "%s: stats differ after a .pftrace round trip at:\n%.200s\nvs\n%.200s", sample,
                     a + line, b + line);
    }
    free(a);
    free(b);
}

TEST(pftrace_round_trip_stats_equal_the_json)
{
    round_trip("external/kineto/hta_critical_path_alexnet_2023.json.gz", "pfr_alexnet.pftrace");
    round_trip("external/kineto/hta_nccl_data_2024.json.gz", "pfr_nccl.pftrace");
    round_trip("external/kineto/hta_inference_rank1_2022_capcats.json.gz", "pfr_capcats.pftrace");
    round_trip("external/kineto/kineto_tbplugin_resnet50_pt1.9_2021-06.pt.trace.json.gz", "pfr_resnet.pftrace");
}

TEST(pftrace_is_recognised_by_content)
{
    const char *in = tp_test_shared("external/kineto/hta_critical_path_alexnet_2023.json.gz");
    const char *pf = tp_test_tmp("pfr_named_otherwise.bin");
    CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o '%s.pftrace' 2>/dev/null && mv '%s.pftrace' '%s'",
                             tp_test_bin(), in, pf, pf, pf), 0);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>&1 | head -1", tp_test_bin(), pf), 0);
    CHECK(out && strstr(out, "pftrace trace"));
    free(out);
    /* and a gzipped one */
    CHECK_EQ_INT(tp_test_run(NULL, "gzip -c '%s' > '%s.gz'", pf, pf), 0);
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s.gz' 2>&1 | head -1", tp_test_bin(), pf), 0);
    CHECK(out && strstr(out, "pftrace trace"));
    free(out);
}

static const tp_event *find(const tp_trace *t, const char *name, char ph)
{
    for (size_t i = 0; i < t->nevents; i++)
        if (t->events[i].ph == ph && strcmp(tp_str_get(t, t->events[i].name), name) == 0)
            return &t->events[i];
    return NULL;
}

static void check_example(bool compress)
{
    tp_buf b = {0};
    tp_pftrace_example(&b, compress);
    const char *path = tp_test_write(compress ? "pfr_example_z.pftrace" : "pfr_example.pftrace", b.data, b.len);
    tp_buf_free(&b);
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts o = {0};
    o.read.keep_args = true;
    tp_err err = {0};
    CHECK_EQ_INT(tp_load(path, &o, &t, &err), 0);
    CHECK_STR(t.format, "pftrace");
    const tp_event *mm = find(&t, "aten::mm", 'X'), *launch = find(&t, "cudaLaunchKernel", 'X'),
                   *k = find(&t, "ampere_sgemm_128x64_tn", 'X'), *step = find(&t, "ProfilerStep#1", 'X'),
                   *io = find(&t, "io", 'X'), *mark = find(&t, "marker", 'i'), *mem = find(&t, "Memory", 'C');
    CHECK(mm && launch && k && step && io && mark && mem);
    if (!(mm && launch && k && step && io && mark && mem)) {
        tp_trace_free(&t);
        return;
    }
    CHECK_EQ_INT(mm->ts, 1000);
    CHECK_EQ_INT(mm->dur, 1000);
    CHECK_EQ_INT(mm->kind, TP_KIND_HOST_OP);
    const tp_track *tk = &t.tracks[mm->track];
    CHECK_EQ_INT(tk->tid, 5678);
    CHECK_STR(tp_str_get(&t, tk->name), "Main Thread");
    CHECK_EQ_INT(t.processes[tk->process].pid, 1234);
    CHECK_STR(tp_str_get(&t, t.processes[tk->process].name), "MyProcess");
    size_t n;
    const char *args = tp_args_get(&t, mm->args, &n);
    CHECK(args && strstr(args, "\"External id\":7") && strstr(args, "\"Input Dims\":\"[[2, 3], [3, 4]]\""));
    CHECK_EQ_INT(launch->dur, 100);
    CHECK_EQ_INT(launch->kind, TP_KIND_RUNTIME);
    CHECK(launch->flags & TP_EV_HAS_CORR);
    CHECK_EQ_INT(launch->corr, 42);
    /* the kernel: device activity by its track, launched by the call its flow came from */
    CHECK_EQ_INT(k->kind, TP_KIND_KERNEL);
    CHECK_EQ_INT(k->ts, 1500);
    CHECK_EQ_INT(k->dur, 300);
    CHECK(k->link != TP_NONE && &t.events[k->link] == launch);
    CHECK(t.processes[t.tracks[k->track].process].is_device);
    CHECK_EQ_INT(t.tracks[k->track].tid, 7);
    CHECK_EQ_INT(t.tracks[k->track].role, TP_TRACK_DEVICE);
    args = tp_args_get(&t, k->args, &n);
    CHECK(args && strstr(args, "\"grid\":\"[128, 1, 1]\""));
    /* the incremental clock: 4000 on clock 64 is 5000 on the trace clock */
    CHECK_EQ_INT(step->ts, 5000);
    CHECK_EQ_INT(step->dur, 500);
    CHECK(step->flags & TP_EV_STEP);
    CHECK_EQ_INT(io->dur, 100);
    CHECK_EQ_INT(t.tracks[io->track].tid, 999);
    CHECK_STR(tp_str_get(&t, t.tracks[io->track].name), "worker");
    CHECK_EQ_INT(mark->ts, 1900);
    CHECK_EQ_INT(mem->ts, 1000);
    args = tp_args_get(&t, mem->args, &n);
    CHECK(args && strcmp(args, "{\"Usage\":1.5}") == 0);
    /* the delta counter: 2 KB, then 2 + 3 KB */
    int heap = 0;
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (e->ph != 'C' || strcmp(tp_str_get(&t, e->name), "Heap") != 0)
            continue;
        args = tp_args_get(&t, e->args, &n);
        CHECK(args && strcmp(args, e->ts == 1000 ? "{\"bytes\":2048.0}" : "{\"bytes\":5120.0}") == 0);
        heap++;
    }
    CHECK_EQ_INT(heap, 2);
    tp_trace_free(&t);
}

TEST(pftrace_hand_built_example_reads_as_documented)
{
    check_example(false);
}

TEST(pftrace_compressed_packets_read_as_plain_ones)
{
    check_example(true);
    /* the same JSON from both */
    tp_buf plain = {0};
    tp_pftrace_example(&plain, false);
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s", tp_test_write("pfr_plain.pftrace", plain.data, plain.len));
    snprintf(pb, sizeof pb, "%s", tp_test_tmp("pfr_example_z.pftrace"));
    tp_buf_free(&plain);
    char *a = NULL, *b = NULL;
    CHECK_EQ_INT(tp_test_run(&a, "%s convert '%s' -o - 2>/dev/null", tp_test_bin(), pa), 0);
    CHECK_EQ_INT(tp_test_run(&b, "%s convert '%s' -o - 2>/dev/null", tp_test_bin(), pb), 0);
    CHECK(a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    /* the converted trace loads in the trace engine, its launch flow bound (tests/check_trace.mjs) */
    if (tp_test_have("node") && tp_test_file_exists("build/node/node_modules")) {
        char out_json[512];
        snprintf(out_json, sizeof out_json, "%s", tp_test_tmp("pfr_example.json"));
        CHECK_EQ_INT(tp_test_run(NULL, "%s convert '%s' -o '%s' 2>/dev/null", tp_test_bin(), pb, out_json), 0);
        char *out = NULL;
        CHECK_EQ_INT(tp_test_run(&out, "node tests/check_trace.mjs '%s'", out_json), 0);
        CHECK(out && strstr(out, "\"bad_nesting\":0") && strstr(out, "\"flows_bound\":1") &&
              strstr(out, "\"problems\":[]"));
        free(out);
    }
}

/* One line on stderr, exit 2, no output file. */
static void check_bad(const char *path, const char *expect)
{
    const char *out_path = tp_test_tmp("pfr_bad_out.json");
    remove(out_path);
    char *out = NULL;
    int rc = tp_test_run(&out, "%s convert '%s' --format pftrace -o '%s' 2>&1", tp_test_bin(), path, out_path);
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strchr(out, '\n') == out + strlen(out) - 1);
    if (expect && !(out && strstr(out, expect)))
        tp_test_fail(__FILE__, __LINE__, "%s: expected \"%s\" in: %s", path, expect, out ? out : "(null)");
    CHECK(!tp_test_file_exists(out_path));
    free(out);
}

TEST(pftrace_every_truncation_is_one_line)
{
    tp_buf b = {0};
    tp_pftrace_example(&b, false);
    size_t bad = 0, cuts = 0;
    for (size_t cut = 1; cut < b.len; cut += 1 + cut / 8) {
        const char *p = tp_test_write("pfr_cut.pftrace", b.data, cut);
        char *out = NULL;
        int rc = tp_test_run(&out, "%s stats '%s' --format pftrace 2>&1 >/dev/null", tp_test_bin(), p);
        /* a cut between packets is a shorter trace (0); inside one, an error (2) of one line */
        if (!(rc == 0 || (rc == 2 && out && strchr(out, '\n') == out + strlen(out) - 1)))
            bad++;
        cuts++;
        free(out);
    }
    CHECK(cuts > 20);
    CHECK_EQ_INT(bad, 0);
    /* a cut inside a packet: "ends early" */
    check_bad(tp_test_write("pfr_cut.pftrace", b.data, b.len - 3), NULL);
    tp_buf_free(&b);
}

TEST(pftrace_compressed_bomb_and_nesting_are_bounded)
{
    tp_buf b = {0};
    /* 80 MB from about 80 KB: over 64 MB + 100 times the file */
    tp_pftrace_bomb(&b, 80);
    check_bad(tp_test_write("pfr_bomb.pftrace", b.data, b.len), "expand beyond");
    /* with --max-inflate 0 it reads (the padding is a field the reader skips) */
    CHECK_EQ_INT(tp_test_run(NULL, "%s stats --max-inflate 0 '%s' >/dev/null 2>&1", tp_test_bin(),
                             tp_test_tmp("pfr_bomb.pftrace")),
                 0);
    tp_pftrace_nested(&b, 3);
    CHECK_EQ_INT(tp_test_run(NULL, "%s stats '%s' >/dev/null 2>&1", tp_test_bin(),
                             tp_test_write("pfr_nest3.pftrace", b.data, b.len)),
                 0);
    tp_pftrace_nested(&b, 4);
    check_bad(tp_test_write("pfr_nest4.pftrace", b.data, b.len), "nested more than 3 deep");
    /* corrupt deflate data */
    tp_pftrace_nested(&b, 1);
    b.data[b.len - 6] ^= 0x55;
    b.data[b.len - 9] ^= 0x55;
    check_bad(tp_test_write("pfr_corrupt.pftrace", b.data, b.len), "compressed_packets");
    tp_buf_free(&b);
}

TEST(pftrace_garbage_is_one_line)
{
    static const char bytes[] = "\x0a\x7f\x40\x01garbage";
    check_bad(tp_test_write("pfr_garbage.pftrace", bytes, sizeof bytes - 1), NULL);
    check_bad(tp_test_write("pfr_empty.pftrace", "", 0), NULL);
    check_bad(tp_test_write_text("pfr_text.pftrace", "{\"traceEvents\": []}"), "not a Perfetto trace");
}

TEST(pftrace_file_problems_are_errors_with_strict)
{
    /* the example with one more slice end on the thread: counted, or an error with --strict */
    tp_buf b = {0};
    tp_pftrace_example(&b, false);
    static const unsigned char end_packet[] = {0x0a, 0x0b, 0x40, 0xd0, 0x0f, 0x5a, 0x04, 0x48, 0x02, 0x58, 0x65, 0x50, 0x09};
    tp_buf_put(&b, end_packet, sizeof end_packet); /* ts 2000, SLICE_END on track 101, sequence 9 */
    const char *p = tp_test_write("pfr_orphan.pftrace", b.data, b.len);
    tp_buf_free(&b);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats '%s' 2>&1 >/dev/null", tp_test_bin(), p), 0);
    CHECK(out && strstr(out, "slice ends without a begin on their track (not read): 1"));
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s stats --strict '%s' 2>&1 >/dev/null", tp_test_bin(), p), 2);
    CHECK(out && strstr(out, "rejected by --strict") && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
}

TEST(pftrace_rocprof_categories_and_flow_launch)
{
    tp_buf b = {0};
    tp_pftrace_rocprof_like(&b);
    const char *path = tp_test_write("pfr_rocprof.pftrace", b.data, b.len);
    tp_buf_free(&b);
    tp_trace t;
    tp_trace_init(&t);
    tp_load_opts o = {0};
    tp_err err = {0};
    CHECK_EQ_INT(tp_load(path, &o, &t, &err), 0);
    const tp_event *call = find(&t, "hipLaunchKernel", 'X'), *k = find(&t, "gemm_kernel", 'X');
    CHECK(call && k);
    if (call && k) {
        CHECK_EQ_INT(call->kind, TP_KIND_RUNTIME);
        CHECK_EQ_INT(call->dur, 100); /* its end came first in the file */
        CHECK_EQ_INT(k->kind, TP_KIND_KERNEL);
        CHECK_EQ_INT(k->dur, 600);
        CHECK(k->link != TP_NONE && &t.events[k->link] == call);
        CHECK(t.processes[t.tracks[k->track].process].is_device);
        /* the queue moved to a device process of its own: the host thread stays a host thread */
        CHECK(t.tracks[k->track].process != t.tracks[call->track].process);
        CHECK_EQ_INT(t.tracks[call->track].role, TP_TRACK_HOST);
        CHECK_STR(tp_str_get(&t, t.tracks[k->track].name), "HIP Dispatch Queue [0]");
    }
    tp_trace_free(&t);
}
