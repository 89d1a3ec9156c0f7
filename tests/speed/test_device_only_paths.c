/* test_device_only_paths.c: `stats --kernels-only` and `stats --csv` ask the
 * reader for device activity only (tp_read_opts.device_only): the Chrome
 * reader then keeps no other event but the first of each (track, category)
 * (convert/read/chrome/chrome_events.c light_event).  What they print (text,
 * --json, --csv, the warnings, the exit code) is what the full read printed
 * (TP_DEVICE_ONLY=0), on one reader and on two halves, on a trace built to
 * hold every case the light path must leave to the full one (odd key
 * orders, steps, flows, memory events, unknown and device-side categories,
 * legacy events without a category, B/E pairs, dropped and repaired events,
 * escapes), and on the shared Kineto samples. */
#include "tests/lib/harness.h"
#include "convert/base/common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every case at least twice per track (the first of a (track, category) is
 * kept, the others not), in a few orders of keys. */
static const char *const odd_events[] = {
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}",
    "{\"args\":{\"name\":\"GPU 0\"},\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0}",
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":9,\"args\":{\"name\":\"only dropped events\"}}",
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":10,\"args\":{\"name\":\"only metadata\"}}",
    /* steps: as annotations and as ops, one on a device track (no step there) */
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":900}",
    "{\"name\":\"ProfilerStep#4\",\"ts\":2000,\"dur\":900,\"pid\":1,\"tid\":1,\"cat\":\"cpu_op\",\"ph\":\"X\"}",
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#9\",\"pid\":0,\"tid\":7,\"ts\":1000,\"dur\":900}",
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#x\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":9}",
    /* host ops, runtime calls, annotations: fields in any order, cat last or first */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":1010,\"dur\":300,\"args\":{\"External id\":1}}",
    "{\"args\":{\"External id\":2},\"dur\":200,\"ts\":1020,\"tid\":1,\"pid\":1,\"name\":\"aten::addmm\",\"cat\":\"cpu_op\",\"ph\":\"X\"}",
    "{\"ts\":1030,\"ph\":\"X\",\"dur\":50,\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"cat\":\"cuda_runtime\",\"args\":{\"correlation\":1}}",
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":2030,\"dur\":50,\"args\":{\"correlation\":2}}",
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Linear_0\",\"pid\":1,\"tid\":1,\"ts\":1005,\"dur\":500}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":2,\"ts\":1010,\"dur\":30}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":2,\"ts\":1050,\"dur\":30,\"extra_key\":[1,2]}",
    /* flows: Kineto's order (cat after ts), a device-kind one */
    "{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1030,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
    "{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":1100,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}",
    "{\"ph\":\"s\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":2030,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
    "{\"ph\":\"f\",\"id\":2,\"pid\":0,\"tid\":7,\"ts\":2100,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}",
    "{\"ph\":\"s\",\"id\":3,\"pid\":4,\"tid\":3,\"ts\":2030,\"cat\":\"kernel\",\"name\":\"odd\"}",
    /* memory events: instants of a category no table knows */
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":1015,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1,\"Bytes\":512,\"Total Allocated\":512,\"Total Reserved\":2048}}",
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":1016,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1,\"Bytes\":-512,\"Total Allocated\":0,\"Total Reserved\":2048}}",
    "{\"ph\":\"C\",\"cat\":\"cpu_op\",\"name\":\"counter\",\"pid\":1,\"tid\":4,\"ts\":1016,\"args\":{\"v\":1}}",
    "{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"global\",\"s\":\"g\",\"pid\":1,\"tid\":5,\"ts\":1017}",
    /* device activity */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_gemm\",\"pid\":0,\"tid\":7,\"ts\":1100,\"dur\":150,\"args\":{\"correlation\":1}}",
    "{\"dur\":151,\"name\":\"sm90_gemm\",\"args\":{\"correlation\":2},\"ts\":2100,\"tid\":7,\"pid\":0,\"ph\":\"X\",\"cat\":\"kernel\"}",
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":8,\"ts\":1300,\"dur\":20}",
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":8,\"ts\":1330,\"dur\":5}",
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":2,\"tid\":7,\"ts\":1330,\"dur\":5}",
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":2,\"tid\":7,\"ts\":1330,\"dur\":5}",
    "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"old_kernel\",\"pid\":0,\"tid\":7,\"ts\":3000,\"dur\":10}",
    /* device-side and unknown categories */
    "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"range\",\"pid\":0,\"tid\":7,\"ts\":1100,\"dur\":10}",
    "{\"ph\":\"X\",\"cat\":\"mystery\",\"name\":\"m\",\"pid\":1,\"tid\":6,\"ts\":1100,\"dur\":10}",
    "{\"ph\":\"i\",\"cat\":\"mystery\",\"name\":\"m\",\"pid\":1,\"tid\":6,\"ts\":1101}",
    "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":1,\"dur\":9000}",
    "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"dma_in\",\"pid\":3,\"tid\":\"stream 1\",\"ts\":1200,\"dur\":10}",
    "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"pe_exe\",\"pid\":3,\"tid\":\"stream 1\",\"ts\":1220,\"dur\":10}",
    "{\"ph\":\"X\",\"cat\":\"mtia_runtime\",\"name\":\"synchronize\",\"pid\":3,\"tid\":\"stream 1\",\"ts\":1240,\"dur\":10}",
    /* legacy events without a category: kernels on "CUDA functions" */
    "{\"ph\":\"X\",\"name\":\"legacy_kernel\",\"pid\":\"CUDA functions\",\"tid\":\"stream 7\",\"ts\":1400,\"dur\":40}",
    "{\"ph\":\"X\",\"name\":\"legacy_op\",\"pid\":1,\"tid\":1,\"ts\":1400,\"dur\":40}",
    "{\"ph\":\"X\",\"cat\":\"\",\"name\":\"empty_cat\",\"pid\":1,\"tid\":1,\"ts\":1400,\"dur\":40}",
    "{\"ph\":\"i\",\"cat\":\"\",\"name\":\"empty_cat\",\"pid\":1,\"tid\":11,\"ts\":1400}",
    /* a step after an event of its (track, category) */
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#6\",\"pid\":1,\"tid\":1,\"ts\":6000,\"dur\":900}",
    /* B/E pairs, an unmatched E */
    "{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"begin_op\",\"pid\":1,\"tid\":1,\"ts\":1500}",
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":1600}",
    "{\"ph\":\"B\",\"cat\":\"kernel\",\"name\":\"be_kernel\",\"pid\":0,\"tid\":7,\"ts\":1500}",
    "{\"ph\":\"E\",\"pid\":0,\"tid\":7,\"ts\":1530}",
    "{\"ph\":\"E\",\"pid\":1,\"tid\":12,\"ts\":1600}",
    /* dropped or repaired: a track whose only events are dropped is no track */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad_ts\",\"pid\":1,\"tid\":9,\"ts\":\"soon\",\"dur\":1}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"no_ts\",\"pid\":1,\"tid\":9,\"dur\":1}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"huge_ts\",\"pid\":1,\"tid\":9,\"ts\":1e30,\"dur\":1}",
    /* times at the edge of the form a counted event's check reads without a value */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long_ts\",\"pid\":1,\"tid\":13,\"ts\":999999999999999.999,\"dur\":999999999999999}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"too_long_ts\",\"pid\":1,\"tid\":14,\"ts\":9999999999999999,\"dur\":1}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"too_long_dur\",\"pid\":1,\"tid\":14,\"ts\":1,\"dur\":9999999999999999}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"fine_ts\",\"pid\":1,\"tid\":14,\"ts\":-5.1234,\"dur\":-0.5}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"neg_dur\",\"pid\":1,\"tid\":1,\"ts\":1700,\"dur\":-5}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"no_dur\",\"pid\":1,\"tid\":1,\"ts\":1700}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad_dur\",\"pid\":1,\"tid\":1,\"ts\":1700,\"dur\":\"long\"}",
    "{\"ph\":\"Z\",\"cat\":\"cpu_op\",\"name\":\"unknown_phase\",\"pid\":1,\"tid\":1,\"ts\":1700}",
    "{\"cat\":\"cpu_op\",\"name\":\"no_ph\",\"pid\":1,\"tid\":1,\"ts\":1700}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"big_pid\",\"pid\":123456789012345678901234,\"tid\":1,\"ts\":1700,\"dur\":1}",
    "{}",
    /* escapes: bad ones are counted in a warning */
    "{\"ph\":\"X\",\"cat\":\"cpu\\u005fop\",\"name\":\"esc\\u0061ped\",\"pid\":1,\"tid\":1,\"ts\":1800,\"dur\":1}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bad\\ud800escape\",\"pid\":1,\"tid\":1,\"ts\":1800,\"dur\":1}",
    "{\"ph\":\"s\",\"id\":\"bad\\ud800id\",\"pid\":1,\"tid\":1,\"ts\":1800,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
    "{\"ph\":\"f\",\"id\":\"esc\\u0061ped_id\",\"pid\":1,\"tid\":1,\"ts\":1800,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Profiler\\u0053tep#5\",\"pid\":1,\"tid\":1,\"ts\":5000,\"dur\":100}",
    /* the first of a (track, category) a global or process instant, a counter, an async event (rv37) */
    "{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"global_first\",\"s\":\"g\",\"pid\":1,\"tid\":15,\"ts\":1900}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"after_global\",\"pid\":1,\"tid\":15,\"ts\":1901,\"dur\":3}",
    "{\"ph\":\"I\",\"cat\":\"cpu_op\",\"name\":\"process_first\",\"s\":\"p\",\"pid\":1,\"tid\":16,\"ts\":1900}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"after_process\",\"pid\":1,\"tid\":16,\"ts\":1901,\"dur\":3}",
    "{\"ph\":\"C\",\"cat\":\"cpu_op\",\"name\":\"counter_a\",\"pid\":1,\"tid\":17,\"ts\":1900,\"args\":{\"v\":1}}",
    "{\"ph\":\"C\",\"cat\":\"cpu_op\",\"name\":\"counter_b\",\"pid\":1,\"tid\":17,\"ts\":1901,\"args\":{\"v\":2,\"w\":3}}",
    "{\"ph\":\"b\",\"cat\":\"cpu_op\",\"name\":\"async\",\"id\":7,\"pid\":1,\"tid\":18,\"ts\":1900}",
    "{\"ph\":\"e\",\"cat\":\"cpu_op\",\"name\":\"async\",\"id\":8,\"pid\":1,\"tid\":18,\"ts\":1910}",
    "{\"ph\":\"s\",\"id\":99,\"pid\":1,\"tid\":18,\"ts\":1910,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
    /* one pid as a number and as a string; a name not UTF-8 */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"string_pid\",\"pid\":\"1\",\"tid\":1,\"ts\":1900,\"dur\":3}",
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"not\xff\xfeutf8\",\"pid\":1,\"tid\":1,\"ts\":1905,\"dur\":3}",
    /* kernels of equal time whose names a counted host event used first (names interned in another order) */
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"zz_tie\",\"pid\":1,\"tid\":1,\"ts\":1920,\"dur\":3}",
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"aa_tie\",\"pid\":0,\"tid\":8,\"ts\":1930,\"dur\":7}",
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"zz_tie\",\"pid\":0,\"tid\":8,\"ts\":1940,\"dur\":7}",
};

static const char *odd_trace(void)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    size_t n = sizeof odd_events / sizeof odd_events[0];
    for (int copy = 0; copy < 3; copy++) /* each case on a track that already holds one too */
        for (size_t i = 0; i < n; i++)
            tp_buf_printf(&b, "%s%s\n", copy || i ? "," : "", odd_events[i]);
    tp_buf_puts(&b, "]}\n");
    const char *path = tp_test_write_text("device_only_odd.json", b.data);
    tp_buf_free(&b);
    return path;
}

/* stdout, stderr and the exit code of one run, as one text. */
static char *stats_of(const char *env, const char *path, const char *opts)
{
    char *out = NULL, p[PATH_MAX], o[PATH_MAX], e[PATH_MAX]; /* (tp_test_tmp's buffers rotate) */
    snprintf(p, sizeof p, "%s", path);
    snprintf(o, sizeof o, "%s", tp_test_tmp("do.out"));
    snprintf(e, sizeof e, "%s", tp_test_tmp("do.err"));
    int rc = tp_test_run(NULL, "%s '%s' stats '%s' %s >'%s' 2>'%s'", env, tp_test_bin(), p, opts, o, e);
    char *so = tp_test_read_file(o, NULL), *se = tp_test_read_file(e, NULL);
    size_t n = (so ? strlen(so) : 0) + (se ? strlen(se) : 0) + 64;
    out = malloc(n);
    snprintf(out, n, "%s\n--- stderr\n%s\n--- rc %d", so ? so : "", se ? se : "", rc);
    free(so);
    free(se);
    return out;
}

/* Both paths print the same for every option set and reader split. */
static void check_same(const char *path)
{
    static const char *const opts[] = {"--kernels-only", "--kernels-only --json", "--csv",
                                       "--kernels-only --drop-cat cpu_op", "--kernels-only --json --drop-cat ac2g",
                                       "--kernels-only --drop-cat mystery --drop-cat cuda_runtime"};
    static const char *const splits[] = {"TP_READ_THREADS=1", "TP_READ_SPLIT_MIN=0"};
    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
            char full_env[128], light_env[128];
            snprintf(full_env, sizeof full_env, "TP_DEVICE_ONLY=0 %s", splits[s]);
            snprintf(light_env, sizeof light_env, "%s", splits[s]);
            char *full = stats_of(full_env, path, opts[i]), *light = stats_of(light_env, path, opts[i]);
            if (strcmp(full, light) != 0)
                tp_test_fail(__FILE__, __LINE__, "%s: stats %s (%s): device_only printed\n%s\nthe full read\n%s", path,
                             opts[i], splits[s], light, full);
            free(full);
            free(light);
        }
}

/* "read: K of N events kept" (TP_TIMING=1): K, or -1 when the line is missing. */
static long kept_of(const char *path, long *in)
{
    char *out = NULL;
    tp_test_run(&out, "TP_TIMING=1 TP_READ_THREADS=1 '%s' stats '%s' --kernels-only 2>&1 >/dev/null", tp_test_bin(),
                path);
    const char *k = out ? strstr(out, "timing: read: ") : NULL;
    long kept = -1;
    if (!k || sscanf(k, "timing: read: %ld of %ld events kept", &kept, in) != 2)
        kept = -1;
    free(out);
    return kept;
}

TEST(device_only_odd_cases_print_what_the_full_read_prints)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", odd_trace());
    check_same(path);
    /* the light path was taken: kernels, steps and the cases above kept, repeats of host events not */
    long in = 0, kept = kept_of(path, &in);
    CHECK(kept > 0);
    CHECK(kept < in);
    char *out = stats_of("", path, "--kernels-only");
    CHECK(out && strstr(out, "4 steps")); /* #3, #4, #5 (escaped), #6: not #9 on the device, not #x */
    CHECK(out && strstr(out, "sm90_gemm"));
    CHECK(out && strstr(out, "legacy_kernel"));
    CHECK(out && strstr(out, "bad or out-of-range ts/dur (event dropped): 15")); /* three files' worth of cases */
    free(out);
}

/* The host events of a long trace are counted, not kept: kernels and one
 * event per (track, category) are (the old read kept all 4,000). */
TEST(device_only_keeps_device_activity_and_one_event_per_track_category)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n");
    for (int i = 0; i < 1000; i++)
        tp_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op_%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":5},\n"
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
                      "\"dur\":2,\"args\":{\"correlation\":%d}},\n"
                      "{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":%d,\"ts\":%d,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":3}\n",
                      i ? "," : "", i, 1 + i % 2, 1000 + i * 10, 1 + i % 2, 1001 + i * 10, i + 1, i + 1, 1 + i % 2,
                      1001 + i * 10, i % 4, 1003 + i * 10);
    tp_buf_puts(&b, "]}\n");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", tp_test_write_text("device_only_long.json", b.data));
    tp_buf_free(&b);
    long in = 0, kept = kept_of(path, &in);
    CHECK_EQ_INT(in, 4000);
    CHECK_EQ_INT(kept, 1000 + 2 * 3); /* the kernels, and two threads' three categories */
    check_same(path);
}

TEST(device_only_shared_kineto_samples_print_what_the_full_read_prints)
{
    static const char *const samples[] = {
        "external/kineto/hta_nccl_data_2024.json.gz",
        "external/kineto/kineto_tbplugin_resnet50_pt1.8_2021-01.pt.trace.json.gz",
        "external/kineto/hta_inference_rank1_2022_capcats.json.gz",
        "external/hta/mtia_inference_rank_0.json.gz",
        "external/hta/cupti_profiler_trace.json.gz",
        "external/tracelens/inference_sglang_decode/sglang_Qwen3-8B_decode.json.gz",
    };
    tp_test_each_shared(samples, sizeof samples / sizeof samples[0], check_same);
    check_same("golden/example.pt.trace.json");
    /* a converted trace: derived lines, flows bound to slices, the kinds as categories */
    char conv[PATH_MAX];
    snprintf(conv, sizeof conv, "%s", tp_test_tmp("device_only_converted.json"));
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert golden/example.pt.trace.json -o '%s'", tp_test_bin(), conv), 0);
    check_same(conv);
}
