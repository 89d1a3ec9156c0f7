/* The table of device peaks (report/perf_models/devices.h, issue 20 item 3):
 * the built-in table, matching on what real traces say, user files, bad
 * files, and the Chrome reader's devinfo from "deviceProperties". */
#include "report/perf_models/devices.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool near(double a, double b) { return fabs(a - b) < 1e-9; }

/* A device described by name, memory and core count, resolved in a scratch trace. */
static void resolve(const tp_device_table *dt, const char *name, int64_t mem, int32_t cores, tp_device_peaks *p)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_device_info d = {.id = 0, .memory_bytes = mem, .cores = cores};
    d.name = name ? tp_intern_cstr(&t, name) : 0;
    tp_device_resolve(dt, &t, &d, p);
    tp_trace_free(&t);
}

/* Every built-in entry parses, has a rule, a label and a source, and the
 * devices the issue names are there. */
TEST(devices_builtin_table_parses)
{
    tp_device_table dt;
    char err[256] = "";
    CHECK_EQ_INT(tp_device_table_load(&dt, NULL, err, sizeof err), 0);
    CHECK_EQ_INT(dt.n, 28);
    static const char *const want[] = {"B200",          "H200-SXM-141GB", "H200-NVL",       "H100-SXM5-80GB",
                                       "H100-PCIe-80GB", "H100-NVL-94GB", "A100-SXM4-80GB", "A100-SXM4-40GB",
                                       "A100-PCIe-80GB", "A100-PCIe-40GB", "A10",           "L4",
                                       "L40S",           "V100-SXM2",      "V100-PCIe",     "T4",
                                       "MI300X",         "MI325X",         "MI250X-GCD",    "MI250-GCD",
                                       "MI210",          "TPU-v2-core",    "TPU-v3-core",   "TPU-v4",
                                       "TPU-v5e",        "TPU-v5p",        "TPU-v6e"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        size_t found = 0;
        for (size_t i = 0; i < dt.n; i++)
            found += strcmp(dt.e[i].id, want[w]) == 0;
        if (found != 1)
            tp_test_fail(__FILE__, __LINE__, "device %s found %zu times", want[w], found);
    }
    for (size_t i = 0; i < dt.n; i++) {
        const tp_device_entry *e = &dt.e[i];
        CHECK(e->nmatch >= 1 && e->label && *e->label && e->source && strstr(e->source, "<https://") && !e->user);
        double any = e->mem_tbps;
        for (int k = 0; k < TP_PEAK_CLASSES; k++)
            any += e->tflops[k];
        CHECK(any > 0);
        /* dense matrix figures never below the vector ones */
        CHECK(e->tflops[TP_PEAK_MATRIX_FP32] == 0 || e->tflops[TP_PEAK_MATRIX_FP32] >= e->tflops[TP_PEAK_VECTOR_FP32]);
    }
    tp_device_table_free(&dt);
    CHECK_STR(tp_peak_class_names[TP_PEAK_MATRIX_FP8], "matrix_fp8");
    CHECK_STR(tp_peak_class_names[TP_PEAK_VECTOR_FP32], "vector_fp32");
}

/* The names real traces give resolve to the right entries (memory and core
 * counts as their deviceProperties say). */
TEST(devices_real_names_resolve)
{
    tp_device_peaks p;
    resolve(NULL, "NVIDIA H100 80GB HBM3", 85018279936LL, 132, &p);
    CHECK(p.known);
    CHECK_STR(p.id, "H100-SXM5-80GB");
    CHECK_STR(p.trace_name, "NVIDIA H100 80GB HBM3");
    CHECK_STR(p.label, "NVIDIA H100 SXM5 80GB");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 989.4) && near(p.tflops[TP_PEAK_MATRIX_FP8], 1978.9));
    CHECK(near(p.tflops[TP_PEAK_MATRIX_TF32], 494.7) && near(p.tflops[TP_PEAK_MATRIX_FP32], 66.9));
    CHECK(near(p.mem_tbps, 3.35));
    CHECK(strstr(p.source, "NVIDIA H100 Tensor Core GPU Architecture") == p.source);
    /* Meta's A100 board: 40 or 80 GB by its memory */
    resolve(NULL, "NVIDIA A100-PG509-200", 42297524224LL, 108, &p);
    CHECK_STR(p.id, "A100-SXM4-40GB");
    CHECK(near(p.mem_tbps, 1.555) && near(p.tflops[TP_PEAK_MATRIX_BF16], 312) && p.tflops[TP_PEAK_MATRIX_FP8] == 0);
    resolve(NULL, "NVIDIA A100-PG509-200", 85197848576LL, 108, &p);
    CHECK_STR(p.id, "A100-SXM4-80GB");
    CHECK(near(p.mem_tbps, 2.039));
    resolve(NULL, "NVIDIA A100-PG509-200", 0, 108, &p); /* no memory given: no rule can tell */
    CHECK(!p.known);
    CHECK_STR(p.label, "NVIDIA A100-PG509-200");
    resolve(NULL, "NVIDIA A100 80GB PCIe", 85e9, 108, &p);
    CHECK(near(p.mem_tbps, 1.935));
    /* V100: no bf16, tf32 or fp8 */
    resolve(NULL, "Tesla V100-SXM2-32GB", 34089730048LL, 80, &p);
    CHECK_STR(p.id, "V100-SXM2");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_FP16], 125) && p.tflops[TP_PEAK_MATRIX_BF16] == 0 &&
          p.tflops[TP_PEAK_MATRIX_TF32] == 0 && p.tflops[TP_PEAK_MATRIX_FP8] == 0 && near(p.mem_tbps, 0.9));
    resolve(NULL, "Tesla V100-DGXS-32GB", 34084028416LL, 80, &p);
    CHECK_STR(p.id, "V100-SXM2");
    /* case-insensitive */
    resolve(NULL, "nvidia h100 80gb hbm3", 0, 0, &p);
    CHECK_STR(p.id, "H100-SXM5-80GB");
    /* AMD GCDs by compute units; MI300X by CUs and memory */
    resolve(NULL, "AMD Radeon Graphics", 68702699520LL, 110, &p);
    CHECK_STR(p.id, "MI250X-GCD");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 191.5));
    resolve(NULL, "AMD Instinct MI250X / MI250", 68702699520LL, 104, &p);
    CHECK_STR(p.id, "MI250-GCD");
    resolve(NULL, "AMD Radeon Graphics", 205822885888LL, 304, &p);
    CHECK_STR(p.id, "MI300X");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_FP8], 2614.9) && near(p.mem_tbps, 5.3));
    resolve(NULL, "AMD Radeon Graphics", 8LL << 30, 12, &p); /* an APU: unknown */
    CHECK(!p.known);
    /* XPlane TPU names */
    resolve(NULL, "TPU v6 Lite", 0, 0, &p);
    CHECK_STR(p.id, "TPU-v6e");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 918) && near(p.mem_tbps, 1.638) && p.tflops[TP_PEAK_MATRIX_FP32] == 0);
    resolve(NULL, "TPU v5 lite", 0, 0, &p);
    CHECK_STR(p.id, "TPU-v5e");
    resolve(NULL, "TPU v4", 0, 0, &p);
    CHECK_STR(p.id, "TPU-v4");
    resolve(NULL, "TPU v4 lite", 0, 0, &p); /* v4i: not in the table */
    CHECK(!p.known);
    /* unknown: MTIA, no name at all */
    resolve(NULL, "ARTEMIS", 0, 0, &p);
    CHECK(!p.known);
    CHECK_STR(p.label, "ARTEMIS");
    CHECK_STR(p.id, "");
    CHECK(p.mem_tbps == 0 && p.tflops[TP_PEAK_MATRIX_BF16] == 0);
    resolve(NULL, NULL, 0, 0, &p);
    CHECK(!p.known);
    CHECK_STR(p.label, "");
    CHECK(strstr(tp_device_unknown_hint(), "--device-spec FILE") && strstr(tp_device_unknown_hint(), "docs/REPORT.md"));
}

/* A device the table does not know but whose trace gives its own peaks
 * (XPlane device planes): those, the TFLOPS as matrix_bf16. */
TEST(devices_trace_own_figures)
{
    tp_trace t;
    tp_trace_init(&t);
    tp_device_info d = {.id = 3, .peak_tflops = 123.5, .peak_mem_gbps = 819};
    d.name = tp_intern_cstr(&t, "Some Accelerator v9");
    tp_device_peaks p;
    tp_device_resolve(NULL, &t, &d, &p);
    CHECK(p.known);
    CHECK_STR(p.id, "");
    CHECK_STR(p.label, "Some Accelerator v9");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 123.5) && near(p.mem_tbps, 0.819) && p.tflops[TP_PEAK_MATRIX_FP16] == 0);
    CHECK(strstr(p.source, "the trace's own device plane") == p.source);
    /* the table wins over the trace's own figures */
    d.name = tp_intern_cstr(&t, "TPU v6 Lite");
    tp_device_resolve(NULL, &t, &d, &p);
    CHECK_STR(p.id, "TPU-v6e");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 918));
    tp_trace_free(&t);
}

/* A user file: an entry with a built-in id replaces it, a new entry adds a
 * device, and user entries are tried first. */
TEST(devices_user_file_overrides_and_adds)
{
    const char *f = tp_test_write_text("mine.devices",
                                       "# my devices\r\n"
                                       "device H100-SXM5-80GB\r\n"
                                       "label  H100 as measured\n"
                                       "match  \"NVIDIA H100 80GB HBM3\"\n"
                                       "source m https://example.com/bench.html our GEMM benchmark\n"
                                       "matrix_bf16 700.5   # measured, not the data sheet\n"
                                       "memory_tbps 3\n"
                                       "\n"
                                       "device My-Chip\n"
                                       "match \"My Chip*\" memory_gib 10-20 cores 8-16\n"
                                       "source a https://example.com/a.pdf Sheet A\n"
                                       "source b https://example.com/b.pdf Sheet B\n"
                                       "matrix_fp8 40 a\n"
                                       "vector_fp32 2.5 b\n");
    tp_device_table dt;
    char err[256] = "";
    CHECK_EQ_INT(tp_device_table_load(&dt, f, err, sizeof err), 0);
    CHECK_STR(err, "");
    size_t h100 = 0;
    for (size_t i = 0; i < dt.n; i++)
        h100 += strcmp(dt.e[i].id, "H100-SXM5-80GB") == 0;
    CHECK_EQ_INT(h100, 1);
    CHECK(dt.n >= 2 && dt.e[0].user && dt.e[1].user && !dt.e[2].user);
    tp_device_peaks p;
    resolve(&dt, "NVIDIA H100 80GB HBM3", 85018279936LL, 132, &p);
    CHECK_STR(p.label, "H100 as measured");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 700.5) && near(p.mem_tbps, 3) && p.tflops[TP_PEAK_MATRIX_FP8] == 0);
    CHECK_STR(p.source, "our GEMM benchmark <https://example.com/bench.html>");
    /* the replaced entry's other rules are gone with it */
    resolve(&dt, "NVIDIA H100 SXM5 80GB", 0, 0, &p);
    CHECK(!p.known);
    resolve(&dt, "my chip 2", 16LL << 30, 12, &p);
    CHECK_STR(p.id, "My-Chip");
    CHECK_STR(p.label, "My-Chip"); /* no label: the id */
    CHECK(near(p.tflops[TP_PEAK_MATRIX_FP8], 40) && near(p.tflops[TP_PEAK_VECTOR_FP32], 2.5));
    CHECK_STR(p.source, "Sheet A <https://example.com/a.pdf>; Sheet B <https://example.com/b.pdf>");
    resolve(&dt, "My Chip 2", 16LL << 30, 32, &p); /* too many cores */
    CHECK(!p.known);
    resolve(&dt, "My Chip 2", 32LL << 30, 12, &p); /* too much memory */
    CHECK(!p.known);
    /* built-in entries still resolve */
    resolve(&dt, "NVIDIA L4", 0, 0, &p);
    CHECK_STR(p.id, "L4");
    tp_device_table_free(&dt);

    /* the commands take it: report and stats run */
    const char *ex = "golden/example.pt.trace.json";
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats %s --device-spec '%s'", tp_test_bin(), ex, f), 0);
    free(out);
    /* batch records the file's bytes (hash and size) in its options */
    const char *bdir = tp_test_tmp("devbatch");
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' batch %s -o '%s' -j 1 --device-spec '%s'", tp_test_bin(), ex, bdir, f), 0);
    free(out);
    char *made = tp_test_read_in(bdir, "example/made-by.json");
    size_t flen = 0;
    free(tp_test_read_file(f, &flen));
    char want[64];
    snprintf(want, sizeof want, ";device-spec=%016llx:%zu\"", (unsigned long long)0, flen);
    CHECK(made && strstr(made, ";device-spec=") && strstr(strstr(made, ";device-spec="), want + 29)); /* ":SIZE\"" */
    free(made);
}

/* A bad file: one line naming the file, offset and line, exit 2, for
 * report, stats, diff and batch alike. */
TEST(devices_bad_files)
{
    static char junk[64], longline[1200];
    memcpy(junk, "\x7f" "ELF\x02\x01\x01\0\0\0", 10);
    snprintf(longline, sizeof longline, "device X\n%01100d\n", 0);
    static const struct {
        const char *text;
        size_t len;
        const char *want;
    } bad[] = {
        {"device X\nfoo 1\n", 0,
         "offset 9: line 2: \"foo\" is not a key (device label match source memory_tbps or a class: matrix_fp8 "
         "matrix_bf16 matrix_fp16 matrix_tf32 matrix_fp32 vector_fp32)"},
        {"device X\nmatch \"x\"\nsource s https://x.org/ d\nmatrix_bf16\n", 0,
         "offset 45: line 4: matrix_bf16 wants a number"},
        {"device X\nmatch \"x\"\nsource s https://x.org/ d\nmatrix_bf16 -5\n", 0,
         "offset 57: line 4: matrix_bf16 wants a decimal number > 0 (got \"-5\"; leave a class out when the device "
         "does not do it)"},
        {"device X\nmatch \"x\"\nsource s https://x.org/ d\nmemory_tbps 0\n", 0,
         "offset 57: line 4: memory_tbps wants a decimal number > 0 (got \"0\"; leave a class out when the device "
         "does not do it)"},
        {"# c\ndevice X\nsource s https://x.org/ d\nmatrix_bf16 5\n", 0, "offset 4: line 2: device X has no match line"},
        {"device X\nmatch \"x\"\nmatrix_bf16 5\n", 0,
         "offset 32: line 3: matrix_bf16 wants its source's tag (the entry has 0 sources)"},
        {"device X\nmatch \"x\" cores many\n", 0,
         "offset 25: line 2: cores wants N or LO-HI, whole numbers from 1"},
        {"match \"x\"\n", 0, "offset 0: line 1: a line before the first device line"},
        {"device X\nmatch \"x\"\nsource s https://x.org/ d\nmatrix_bf16 5\ndevice X\n", 0,
         "offset 66: line 5: device X given twice"},
        {longline, 0, "offset 9: line 2: a line longer than 1024 bytes"},
        {junk, 10, "offset 0: line 1: a control character (byte 0x7f): not a device table"},
    };
    const char *ex = "golden/example.pt.trace.json";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *f = tp_test_write("bad.devices", bad[i].text, bad[i].len ? bad[i].len : strlen(bad[i].text));
        const char *dir = tp_test_tmp("baddev.report");
        char *out = NULL, want[600];
        snprintf(want, sizeof want, "tracepress: %s: %s\n", f, bad[i].want);
        CHECK_EQ_INT(tp_test_run(&out, "rm -rf '%s'; '%s' report %s -o '%s' --device-spec '%s'", dir, tp_test_bin(),
                                 ex, dir, f),
                     2);
        if (!out || strcmp(out, want) != 0)
            tp_test_fail(__FILE__, __LINE__, "file %zu: got \"%s\", want \"%s\"", i, out ? out : "", want);
        free(out);
        CHECK_EQ_INT(tp_test_run(NULL, "test ! -e '%s'", dir), 0);
        for (int c = 0; c < 3; c++) { /* stats, diff and batch say the same */
            static const char *const cmd[] = {"stats %s", "diff %s %s -o /dev/null/x", "batch %s -o /dev/null/x"};
            char args[600];
            snprintf(args, sizeof args, cmd[c], ex, ex);
            out = NULL;
            CHECK_EQ_INT(tp_test_run(&out, "'%s' %s --device-spec '%s'", tp_test_bin(), args, f), 2);
            if (!out || strcmp(out, want) != 0)
                tp_test_fail(__FILE__, __LINE__, "file %zu, %s: got \"%s\"", i, cmd[c], out ? out : "");
            free(out);
        }
    }
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats %s --device-spec /nonexistent.devices", tp_test_bin(), ex), 2);
    CHECK(out && strcmp(out, "tracepress: /nonexistent.devices: cannot open: No such file or directory\n") == 0);
    free(out);
}

/* The Chrome reader fills t->devinfo from "deviceProperties" (tp_test_load
 * initialises the trace). */
TEST(devices_chrome_reader_fills_devinfo)
{
    tp_trace t;
    CHECK_EQ_INT(tp_test_load(tp_test_shared("external/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz"), &t),
                 0);
    CHECK_EQ_INT(t.ndevinfo, 1);
    if (t.ndevinfo == 1) {
        const tp_device_info *d = &t.devinfo[0];
        CHECK_STR(tp_str_get(&t, d->name), "NVIDIA H100 80GB HBM3");
        CHECK_EQ_INT(d->id, 0);
        CHECK_EQ_INT(d->memory_bytes, 85018279936LL);
        CHECK_EQ_INT(d->cores, 132);
        CHECK(d->cc_major == 9 && d->cc_minor == 0);
        tp_device_peaks p;
        tp_device_resolve(NULL, &t, d, &p);
        CHECK_STR(p.id, "H100-SXM5-80GB");
    }
    tp_trace_free(&t);

    CHECK_EQ_INT(tp_test_load(tp_test_shared("external/kineto/hta_critical_path_alexnet_2023.json.gz"), &t), 0);
    CHECK_EQ_INT(t.ndevinfo, 8);
    for (size_t i = 0; i < t.ndevinfo; i++) {
        CHECK_STR(tp_str_get(&t, t.devinfo[i].name), "NVIDIA A100-PG509-200");
        CHECK_EQ_INT(t.devinfo[i].id, (int64_t)i);
        CHECK_EQ_INT(t.devinfo[i].memory_bytes, 42297524224LL);
        CHECK_EQ_INT(t.devinfo[i].cores, 108);
    }
    tp_device_peaks p;
    tp_device_resolve(NULL, &t, &t.devinfo[0], &p);
    CHECK_STR(p.id, "A100-SXM4-40GB");
    tp_trace_free(&t);

    /* the MI250 sample: four GCDs of 104 CUs and 64 GiB, named generically */
    CHECK_EQ_INT(tp_test_load(tp_test_shared("external/kineto/hta_amd_mi250_rocm6_2.json.gz"), &t), 0);
    CHECK_EQ_INT(t.ndevinfo, 4);
    CHECK_STR(tp_str_get(&t, t.devinfo[3].name), "AMD Radeon Graphics");
    CHECK(t.devinfo[3].cores == 104 && t.devinfo[3].memory_bytes == 68702699520LL && t.devinfo[3].id == 3);
    tp_device_resolve(NULL, &t, &t.devinfo[0], &p);
    CHECK_STR(p.id, "MI250-GCD");
    CHECK(near(p.tflops[TP_PEAK_MATRIX_BF16], 181.05) && near(p.mem_tbps, 1.6) && near(p.tflops[TP_PEAK_VECTOR_FP32], 22.65));
    tp_trace_free(&t);

    /* MTIA: id and name only */
    CHECK_EQ_INT(tp_test_load(tp_test_shared("external/hta/mtia_inference_rank_0.json.gz"), &t), 0);
    CHECK_EQ_INT(t.ndevinfo, 1);
    CHECK(t.ndevinfo == 1 && t.devinfo[0].id == 17 && t.devinfo[0].cores == 0 && t.devinfo[0].memory_bytes == 0);
    CHECK_STR(tp_str_get(&t, t.devinfo[0].name), "ARTEMIS");
    tp_device_resolve(NULL, &t, &t.devinfo[0], &p);
    CHECK(!p.known);
    tp_trace_free(&t);

    /* V100s; and a trace without deviceProperties */
    CHECK_EQ_INT(tp_test_load(tp_test_shared("external/kineto/kineto_tbplugin_resnet50_pt1.9_2021-06.pt.trace.json.gz"), &t),
                 0);
    CHECK_EQ_INT(t.ndevinfo, 4);
    CHECK_STR(tp_str_get(&t, t.devinfo[1].name), "Tesla V100-DGXS-32GB");
    CHECK_EQ_INT(t.devinfo[1].memory_bytes, 34087305216LL);
    tp_trace_free(&t);
    CHECK_EQ_INT(tp_test_load(tp_test_shared("external/kineto/kineto_plugin_resnet50_array_2020-12.pt.trace.json.gz"), &t),
                 0);
    CHECK_EQ_INT(t.ndevinfo, 0);
    tp_trace_free(&t);
}

static uint64_t warning_count(const tp_trace *t, const char *prefix)
{
    for (size_t i = 0; i < t->nwarnings; i++)
        if (strncmp(t->warnings[i].what, prefix, strlen(prefix)) == 0)
            return t->warnings[i].count;
    return 0;
}

/* Odd deviceProperties are counted warnings, never errors, and the
 * top-level text is still written back as it was. */
TEST(devices_chrome_odd_device_properties)
{
    const char *f = tp_test_write_text(
        "odd.json", "{\"deviceProperties\":[1,{\"id\":2,\"name\":5},{\"id\":\"3\",\"name\":\"X\\u0041\",\"numSms\":\"many\","
                    "\"totalGlobalMem\":1024},null],\n\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
                    "\"ts\":1,\"dur\":2}]}");
    tp_trace t;
    CHECK_EQ_INT(tp_test_load(f, &t), 0);
    CHECK_EQ_INT(t.ndevinfo, 2);
    if (t.ndevinfo == 2) {
        CHECK(t.devinfo[0].id == 2 && t.devinfo[0].name == 0);
        CHECK(t.devinfo[1].id == 3 && t.devinfo[1].cores == 0 && t.devinfo[1].memory_bytes == 1024);
        CHECK_STR(tp_str_get(&t, t.devinfo[1].name), "XA");
    }
    CHECK_EQ_INT(warning_count(&t, "deviceProperties entries that are not objects"), 2);
    CHECK_EQ_INT(warning_count(&t, "deviceProperties entries with a field of the wrong type"), 2);
    tp_trace_free(&t);

    f = tp_test_write_text("odd2.json", "{\"deviceProperties\":{\"name\":\"x\"},\"traceEvents\":[]}");
    CHECK_EQ_INT(tp_test_load(f, &t), 0);
    CHECK_EQ_INT(t.ndevinfo, 0);
    CHECK_EQ_INT(warning_count(&t, "deviceProperties that is not an array"), 1);
    tp_trace_free(&t);
    /* convert writes the top-level text back verbatim */
    char *out = NULL;
    const char *conv = tp_test_tmp("odd2.out.json");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' convert '%s' -o '%s' && grep -c '\"deviceProperties\":{\"name\":\"x\"}' '%s'",
                             tp_test_bin(), f, conv, conv),
                 0);
    free(out);
}
