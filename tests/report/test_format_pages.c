/* test_format_pages.c: format-specific report content (report/formats/format_pages.c
 * and report/formats/<format>/fpage_*.c) through `tracepress report`: the PDF passes qpdf,
 * pdftotext finds the headings and exact numbers, summary.json/summary.md
 * carry the format's member and section, the PNG charts exist. */
#pragma GCC diagnostic ignored "-Woverride-init" /* XPROF(...) defaults, then the test's fields */
#include "tests/lib/etdump_build.h"
#include "report/formats/format_pages.h"
#include "tests/lib/dvdt_samples.h"
#include "tests/lib/fpages_golden.h"
#include "render/text/units.h"
#include "tests/lib/harness.h"
#include "convert/pipeline/pipeline.h"
#include "report/analysis/summary.h"

#include <stdlib.h>
#include <zip.h>

#define ED_SAMPLE "external/etdump/executorch_tutorial_etdump.etdp"
#define ED_RECORD "external/etdump/executorch_sample_etrecord.bin"

static bool have_pdf_tools(void)
{
    if (tp_test_have("qpdf") && tp_test_have("pdftotext"))
        return true;
    fprintf(stderr, "  (skipping: qpdf/pdftotext not installed)\n");
    return false;
}

/* `report` into dir, qpdf --check, and the PDF's text (malloc'ed) or NULL. */
static char *report_text(const char *in, const char *dir, const char *opts)
{
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' report '%s' -o '%s' %s", tp_test_bin(), in, dir, opts);
    if (rc != 0)
        tp_test_fail(__FILE__, __LINE__, "report %s failed (%d): %s", in, rc, out ? out : "");
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s/report.pdf'", dir), 0);
    free(out);
    out = NULL;
    if (tp_test_run(&out, "pdftotext -layout '%s/report.pdf' - 2>/dev/null", dir) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static void want_all(const char *what, const char *text, const char *const *want, int line)
{
    for (int i = 0; want[i]; i++)
        if (!text || !strstr(text, want[i]))
            tp_test_fail(__FILE__, line, "%s lacks \"%s\"", what, want[i]);
}

/* The text of the JSON value after "key": up to the end of its object. */
static char *member(const char *json, const char *key)
{
    char k[128];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = json ? strstr(json, k) : NULL;
    if (!p)
        return NULL;
    p += strlen(k);
    int depth = 0;
    bool str = false;
    const char *q = p;
    for (; *q; q++) {
        if (str) {
            if (*q == '\\')
                q++;
            else if (*q == '"')
                str = false;
        } else if (*q == '"')
            str = true;
        else if (*q == '{' || *q == '[')
            depth++;
        else if ((*q == '}' || *q == ']') && --depth == 0) {
            q++;
            break;
        }
    }
    return strndup(p, (size_t)(q - p));
}

TEST(fpages_table_rows)
{
    CHECK(tp_format_pages_find("etdump") == &tp_fpages_etdump);
    CHECK(tp_format_pages_find("plaidml") == &tp_fpages_plaidml);
    CHECK(tp_format_pages_find("dvdt") == &tp_fpages_dvdt);
    CHECK(tp_format_pages_find("xplane") == &tp_fpages_xplane);
    CHECK(tp_format_pages_find("kineto") == NULL);
    CHECK(tp_format_pages_find(NULL) == NULL);
}

TEST(fpages_etdump_real_sample_report)
{
    if (!have_pdf_tools())
        return;
    const char *dir = tp_test_tmp("fp_ed");
    char rec[4096];
    snprintf(rec, sizeof rec, "--etrecord '%s'", tp_test_shared(ED_RECORD));
    char *txt = report_text(tp_test_shared(ED_SAMPLE), dir, rec);
    static const char *const want[] = {"ExecuTorch Inspector", "Inspector: event block \"Default\"",
                                       "Inspector: event block \"Execute\"", "Top 5 operators by total time",
                                       "native_call_convolution.out", "1.032 ms", /* instruction 3: 1.031719 ms */
                                       "544.783 us",                             /* instruction 0 */
                                       "Method::execute", "1.899 ms", "2.745 us", /* framework tax */
                                       "14 OPERATOR_CALL events hidden",
                                       "Time per module", "maps no event of this ETDump to a module", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
    /* summary.json: the same Inspector object as stats --json */
    char *js = tp_test_read_in(dir, "summary.json"), *st = NULL;
    CHECK_EQ_INT(tp_test_run(&st, "'%s' stats --json '%s' %s", tp_test_bin(), tp_test_shared(ED_SAMPLE), rec), 0);
    char *a = member(js, "etdump_inspector"), *b = member(st, "etdump_inspector");
    CHECK(a && b && strlen(a) > 100);
    CHECK(a && b && strcmp(a, b) == 0);
    CHECK(a && strstr(a, "\"avg_ms\":1.031719") && strstr(a, "\"avg_ms\":1.898821"));
    free(a);
    free(b);
    free(st);
    free(js);
    char *md = tp_test_read_in(dir, "summary.md");
    static const char *const wmd[] = {"#### ExecuTorch Inspector", "**Execute** (run 1), framework tax 0.002745 ms",
                                      "| `native_call_convolution.out` | 3 | 1 | 1.031719 |",
                                      "png/etdump_operators.png", NULL};
    want_all("summary.md", md, wmd, __LINE__);
    free(md);
    CHECK(tp_test_exists_in(dir, "png/etdump_operators.png"));
    CHECK(!tp_test_exists_in(dir, "png/etdump_modules.png")); /* no module known */
}

/* Kineto traces get no format member, section or page. */
TEST(fpages_other_formats_unchanged)
{
    const char *dir = tp_test_tmp("fp_kineto");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report golden/example.pt.trace.json -o '%s'", tp_test_bin(), dir), 0);
    free(out);
    char *js = tp_test_read_in(dir, "summary.json"), *md = tp_test_read_in(dir, "summary.md");
    CHECK(js && !strstr(js, "etdump_inspector") && md && !strstr(md, "Inspector"));
    CHECK(!tp_test_exists_in(dir, "png/etdump_operators.png"));
    free(js);
    free(md);
}

static void zip_put(zip_t *z, const char *name, const char *text)
{
    zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
    CHECK(s && zip_file_add(z, name, s, ZIP_FL_OVERWRITE) >= 0);
}

/* Instruction 0 -> aten.mul.Tensor in module "head"; delegate 2's id 5 ->
 * aten.add.Tensor in "body.conv" (XnnpackBackend). */
static const char *write_etrecord(void)
{
    const char *path = tp_test_tmp("fp_etrecord.bin");
    int ze;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    CHECK(z != NULL);
    if (!z)
        return path;
    zip_put(z, "ETRECORD_V0", "");
    zip_put(z, "debug_handle_map", "{\"forward\": {\"0\": [2]}}");
    zip_put(z, "delegate_map", "{\"forward\": {\"2\": {\"name\": \"XnnpackBackend\", \"delegate_map\": {\"5\": [3]}}}}");
    zip_put(z, "edge_dialect_exported_program/forward",
            "{\"graph_module\": {\"graph\": {\"nodes\": ["
            "{\"target\": \"aten.mul.Tensor\", \"metadata\": {\"debug_handle\": 2, \"nn_module_stack\": "
            "\"L__self__,,Net;L__self___head,head,torch.nn.Linear\"}},"
            "{\"target\": \"aten.add.Tensor\", \"metadata\": {\"debug_handle\": 3, \"nn_module_stack\": "
            "\"L__self___body,body,Body;L__self___body_conv,body.conv,torch.nn.Conv2d\"}}]}}}");
    CHECK(zip_close(z) == 0);
    return path;
}

static const char *write_bytes(const char *name, const uint8_t *p, size_t n)
{
    const char *path = tp_test_tmp(name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(p, 1, n, f);
        fclose(f);
    }
    return path;
}

/* Two identical runs (merged into one block with two samples), a delegated
 * event, modules from an ETRecord.  Expected: mul 300 and 500 ns -> p50
 * 0.0004 ms, avg 0.0004, min 0.0003, max 0.0005; delegate 5: 100 and 300 ns;
 * head 800 ns, body.conv 400 ns. */
TEST(fpages_etdump_synthetic_merged_runs_delegates_modules)
{
    if (!have_pdf_tools())
        return;
    const xev r1[] = {
        XPROF(.name = "native_call_mul.out", .instr = 0, .start = 100, .end = 400),
        XPROF(.name = "OPERATOR_CALL", .instr = 0, .start = 90, .end = 410),
        XPROF(.instr = 2, .dint = 5, .start = 500, .end = 600),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 450, .end = 950),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 50, .end = 1000),
    };
    const xev r2[] = {
        XPROF(.name = "native_call_mul.out", .instr = 0, .start = 2100, .end = 2600),
        XPROF(.name = "OPERATOR_CALL", .instr = 0, .start = 2090, .end = 2610),
        XPROF(.instr = 2, .dint = 5, .start = 2700, .end = 3000),
        XPROF(.name = "DELEGATE_CALL", .instr = 2, .start = 2650, .end = 3050),
        XPROF(.name = "Method::execute", .chain = -1, .instr = 0, .start = 2050, .end = 3100),
    };
    const xrun runs[] = {{"Execute", -1, 5, r1, 0}, {"Execute", -1, 5, r2, 0}};
    size_t n;
    uint8_t *buf = etdump_build(runs, 2, 1, &n);
    const char *in = write_bytes("fp_two_runs.etdp", buf, n);
    free(buf);
    char opts[4096];
    snprintf(opts, sizeof opts, "--etrecord '%s'", write_etrecord());
    const char *dir = tp_test_tmp("fp_ed_syn");
    char *txt = report_text(in, dir, opts);
    static const char *const want[] = {"2 identical runs merged (0..1)", "yes (XnnpackBackend)", "aten.mul.Tensor",
                                       "aten.add.Tensor", "Time per module", "body.conv", "800 ns", "400 ns",
                                       "300 ns", "500 ns", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    char *a = member(js, "etdump_inspector");
    CHECK(a && strstr(a, "\"module\":\"head\",\"total_ms\":0.0008,\"events\":1"));
    CHECK(a && strstr(a, "\"module\":\"body.conv\",\"total_ms\":0.0004,\"events\":1"));
    CHECK(a && strstr(a, "\"raw_ms\":[0.0003,0.0005],\"p10_ms\":0.00032,\"p50_ms\":0.0004"));
    free(a);
    free(js);
    CHECK(tp_test_exists_in(dir, "png/etdump_modules.png"));
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "png/etdump_modules.png") && strstr(md, "2 identical runs merged"));
    free(md);
}

/* A run without events: the report still builds and says so. */
TEST(fpages_etdump_empty_run)
{
    if (!have_pdf_tools())
        return;
    const xrun run = {"Execute", -1, 0, NULL, 0};
    size_t n;
    uint8_t *buf = etdump_build(&run, 1, 1, &n);
    const char *in = write_bytes("fp_empty.etdp", buf, n);
    free(buf);
    const char *dir = tp_test_tmp("fp_ed_empty");
    char *txt = report_text(in, dir, "");
    static const char *const want[] = {"ExecuTorch Inspector", "no operator events to chart", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
}

TEST(fpages_report_option_errors)
{
    const char *dir = tp_test_tmp("fp_err");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --etrecord /nonexistent/rec.bin", tp_test_bin(),
                             tp_test_shared(ED_SAMPLE), dir),
                 2);
    CHECK(out && strstr(out, "rec.bin"));
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --time-scale furlongs", tp_test_bin(),
                             tp_test_shared(ED_SAMPLE), dir),
                 2);
    free(out);
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --invocation 0", tp_test_bin(),
                             tp_test_shared(ED_SAMPLE), dir),
                 1);
    CHECK(out && strstr(out, "--invocation"));
    free(out);
}

/* The ETDump pages through the recording backend (the real sample, no ETRecord). */
TEST(fpages_etdump_golden_pages)
{
    tp_test_fpages_golden(tp_test_shared(ED_SAMPLE), "executorch_tutorial_etdump.etdp", false, &tp_fpages_etdump,
                          "report/fpages_etdump.rec");
}

/* ---- PlaidML ---- */

#define PML_2017 "external/plaidml/plaidml_2017_mnist_mlp_log.gz"
#define PML_HELLO "external/plaidml/plaidml_hello_eventlog.gz"

TEST(fpages_plaidml_2017_report)
{
    if (!have_pdf_tools())
        return;
    const char *dir = tp_test_tmp("fp_pml");
    char *txt = report_text(tp_test_shared(PML_2017), dir, "");
    /* numbers from docs/formats/plaidml.md (cross-checked there with an independent decode) */
    static const char *const want[] = {"PlaidML: top kernels and their memory", "kernel_c4_sdk_2",
                                       "746.986 ms", /* total, 156 runs */
                                       "4.788 ms",   /* mean */
                                       "6370696", "1383264", "67 in 8 sizes", "30 in 8 sizes",
                                       "tmp_sizes of c4_sdk", "alloc_sizes of c4_sdk",
                                       "Program Run: ScheduleInvocation 11 of 473", "29.586 ms",
                                       "262 descendants (65 kernel executions", "15 buffer-mapping events",
                                       "Top 80 kernels by total time (of 193)", "Top 80 kernels by mean time (of 193)",
                                       "--with-source adds", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    CHECK(txt && !strstr(txt, "OpenCL source of"));
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    char *a = member(js, "plaidml");
    CHECK(a && strstr(a, "{\"invocations\":473,\"program_run\":{\"invocation\":11,\"items\":278,\"descendants\":262,"
                         "\"kernel_executions\":65,\"mapping_events\":15,\"span_ns\":29585986}"));
    CHECK(a && strstr(a, "\"top_total\":{\"kernel\":\"kernel_c4_sdk_2\",\"runs\":156,\"total_ns\":746985832,"
                         "\"mean_ns\":4788371,\"program\":\"c4_sdk\",\"tmp_sizes\":[[401408,12],"));
    CHECK(a && strstr(a, "\"tmp_count\":67,\"tmp_bytes\":6370696") && strstr(a, "\"alloc_count\":30,\"alloc_bytes\":1383264"));
    free(a);
    free(js);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "#### PlaidML") && strstr(md, "ScheduleInvocation 11 of 473") &&
          strstr(md, "| total (ms) | mean (ms) |") &&
          strstr(md, "| `kernel_c4_sdk_2` | highest total | 156 | 746.986 | 4.788 |") &&
          strstr(md, "png/plaidml_program_run.png"));
    free(md);
    CHECK(tp_test_exists_in(dir, "png/plaidml_program_run.png"));
}

TEST(fpages_plaidml_invocation_and_source)
{
    if (!have_pdf_tools())
        return;
    const char *dir = tp_test_tmp("fp_pml_src");
    char *txt = report_text(tp_test_shared(PML_2017), dir, "--invocation 3 --with-source");
    static const char *const want[] = {"Program Run: ScheduleInvocation 3 of 473", "OpenCL source of kernel_c4_sdk_2",
                                       "__kernel void kernel_c4_sdk_2(", "Program text of c4_sdk",
                                       "X_I_1[X_I_1_0, X_I_1_1],", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    CHECK(txt && !strstr(txt, "--with-source adds"));
    free(txt);
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --invocation 474", tp_test_bin(),
                             tp_test_shared(PML_2017), tp_test_tmp("fp_pml_bad")),
                 2);
    CHECK(out && strstr(out, "ScheduleInvocation 474 asked for, the trace has 473"));
    free(out);
}

/* The one-event "Hello, World!" log: a report that says there is nothing to show. */
TEST(fpages_plaidml_hello_log)
{
    if (!have_pdf_tools())
        return;
    const char *dir = tp_test_tmp("fp_pml_hello");
    char *txt = report_text(tp_test_shared(PML_HELLO), dir, "");
    static const char *const want[] = {"PlaidML: nothing to show", "1 events read, 0 slices", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    char *a = member(js, "plaidml");
    CHECK_STR(a, "{\"invocations\":0,\"program_run\":null,\"top_mean\":null,\"top_total\":null}");
    free(a);
    free(js);
    CHECK(!tp_test_exists_in(dir, "png/plaidml_program_run.png"));
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "nothing to show"));
    free(md);
}

/* The PlaidML pages through the recording backend (invocation 11, no sources). */
TEST(fpages_plaidml_golden_pages)
{
    tp_test_fpages_golden(tp_test_shared(PML_2017), "plaidml_2017_mnist_mlp_log.gz", false, &tp_fpages_plaidml,
                          "report/fpages_plaidml.rec");
}

/* 150 events in one block: the table runs over several pages, header repeated. */
TEST(fpages_etdump_long_block_paginates)
{
    if (!have_pdf_tools())
        return;
    enum { N = 150 };
    static xev ev[N];
    static char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "op_%03d", i);
        ev[i] = XPROF(.name = names[i], .instr = i, .start = 1000 * (uint64_t)i, .end = 1000 * (uint64_t)i + 10 + i);
    }
    const xrun run = {"Execute", -1, N, ev, 0};
    size_t n;
    uint8_t *buf = etdump_build(&run, 1, 1, &n);
    const char *in = write_bytes("fp_long.etdp", buf, n);
    free(buf);
    const char *dir = tp_test_tmp("fp_ed_long");
    char *txt = report_text(in, dir, "");
    static const char *const want[] = {"Events of block \"Execute\" (continued)", "op_000", "op_149",
                                       "159 ns", /* op_149: 10 + 149 ns */
                                       "Top 80 operators by total time (of 150", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
}

/* ---- dv/dt ---- */

#define DVDT_REAL "external/dvdt/dvdt_prof_armcl_tmp-dvdt-prof.json"

static const char *write_text(const char *name, const char *text)
{
    return write_bytes(name, (const uint8_t *)text, strlen(text));
}

/* Expected numbers computed independently (Python statistics over the raw
 * file's profiling end - start and start - queued). */
TEST(fpages_dvdt_real_trace_report)
{
    if (!have_pdf_tools())
        return;
    const char *dir = tp_test_tmp("fp_dvdt");
    char *txt = report_text(tp_test_shared(DVDT_REAL), dir, "");
    static const char *const want[] = {"dv/dt: execution time per kernel", "dv/dt: queue wait per kernel",
                                       "dv/dt: per position", "100 kernel executions of 12 kernels",
                                       "38604.622 us in all", "batchnormalization_layer",
                                       "1962.768", /* total of its 27 executions */
                                       "72.695",   /* mean 72695.111 ns */
                                       "59.233",   /* std (ddof=1) 59232.681 ns */
                                       "335.852",  /* mean queue wait */
                                       "16978.827", "2425.547", "522.793", /* direct_convolution1x1_f32_bifrost_7 */
                                       NULL};
    want_all("pdftotext", txt, want, __LINE__);
    CHECK(txt && !strstr(txt, "GEMM sizes") && !strstr(txt, "CK repetitions"));
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    char *a = member(js, "dvdt");
    CHECK(a && strstr(a, "{\"name\":\"batchnormalization_layer\",\"exec_total_ns\":1962768,\"exec\":{\"count\":27,"
                         "\"mean_ns\":72695.111,\"std_ns\":59232.681,\"min_ns\":22918.000,"));
    CHECK(a && strstr(a, "\"queue_wait\":{\"count\":27,\"mean_ns\":335852.037,"));
    CHECK(a && strstr(a, "\"gemms\":[]"));
    free(a);
    free(js);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, "#### dv/dt (OpenCL)") && strstr(md, "execution time 38604.622 us"));
    free(md);
    CHECK(!tp_test_exists_in(dir, "png/dvdt_repetitions.png"));
}

/* CK point, 3 repetitions: kernel execution per repetition 30, 31, 32 us
 * (mean 31, std 1); time_fw 12.5, 13.5, 14.5 ms; layers conv1 (kA) and relu1 (kB). */
TEST(fpages_dvdt_ck_point_repetitions_and_layers)
{
    if (!have_pdf_tools())
        return;
    tp_buf b = {0};
    tp_buf_puts(&b, "{\n  \"characteristics_list\": [");
    for (int r = 0; r < 3; r++)
        tp_test_dvdt_ck_rep(&b, r);
    tp_buf_puts(&b, "]}\n");
    tp_buf_putc(&b, 0);
    const char *in = write_text("ckp-fedcba9876543210.0001.json", b.data);
    tp_buf_free(&b);
    const char *dir = tp_test_tmp("fp_dvdt_ck");
    char *txt = report_text(in, dir, "");
    static const char *const want[] = {"dv/dt: CK repetitions", "Kernel execution per repetition (n=3)",
                                       "CK time_fw_ms (n=3)", "kernel execution: mean 31.000 us, std 1.000 us",
                                       "time_fw: mean 13500.000 us, std 1000.000 us", "dv/dt: per-layer timing",
                                       "01: conv1", "kA x1 10.000", "kB x1 20.000", "14500.000", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    char *a = member(js, "dvdt");
    CHECK(a && strstr(a, "\"repetitions\":[{\"repetition\":0,\"kernels\":2,\"exec_total_ns\":30000,\"time_fw_ns\":12500000},"));
    CHECK(a && strstr(a, "\"repetition_exec\":{\"count\":3,\"mean_ns\":31000.000,\"std_ns\":1000.000,"));
    CHECK(a && strstr(a, "{\"repetition\":2,\"label\":\"02: relu1\",\"time_ns\":300000,\"kernels\":1,\"kernel_ns\":20000,"
                         "\"parts\":[{\"name\":\"kB\",\"count\":1,\"total_ns\":20000}]}"));
    free(a);
    free(js);
    CHECK(tp_test_exists_in(dir, "png/dvdt_repetitions.png"));
}

#define ND(name, kernel, q, s, st, e, t0, t1)                                                                  \
    "{\"call\":\"clEnqueueNDRangeKernel\",\"name\":\"" name "\",\"queue\":\"0x3000\",\"kernel\":\"" kernel    \
    "\",\"gwo\":[0,0,0],\"gws\":[64,1,1],\"lws\":[0,0,0],\"event_wait_list\":[],\"event\":\"0\","             \
    "\"profiling\":{\"queued\":" q ",\"submit\":" s ",\"start\":" st ",\"end\":" e "},"                       \
    "\"timestamp\":{\"start\":\"" t0 "\",\"end\":\"" t1 "\"},\"errcode\":0}"

/* A GEMM with M=128, N=256, K=64 run twice in 2,097,152 ns each: 2 GFLOP/s. */
TEST(fpages_dvdt_gemm_sizes)
{
    if (!have_pdf_tools())
        return;
    const char *in = write_text(
        "fp_gemm.json",
        "[{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":0,\"arg_size\":4,\"arg_value\":\"80000000\"},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":1,\"arg_size\":4,\"arg_value\":\"00010000\"},"
        "{\"call\":\"clSetKernelArg\",\"kernel\":\"0x9000\",\"arg_index\":2,\"arg_size\":4,\"arg_value\":\"40000000\"},"
        ND("XgemmDirectNN", "0x9000", "1000", "1000", "2000", "2099152", "2020-01-01T00:00:00.000010",
           "2020-01-01T00:00:00.003000") ","
        ND("XgemmDirectNN", "0x9000", "3000000", "3000000", "3000000", "5097152", "2020-01-01T00:00:00.004000",
           "2020-01-01T00:00:00.008000") "]");
    const char *dir = tp_test_tmp("fp_dvdt_gemm");
    char *txt = report_text(in, dir, "");
    static const char *const want[] = {"dv/dt: GEMM sizes and GFLOP/s", "XgemmDirectNN", "4194.304", "0.008389",
                                       "2.000", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    char *a = member(js, "dvdt");
    CHECK(a && strstr(a, "\"gemms\":[{\"name\":\"XgemmDirectNN\",\"M\":128,\"N\":256,\"K\":64,\"count\":2,"
                         "\"total_ns\":4194304,\"gflop\":0.008389,\"gflops\":2.000}]"));
    free(a);
    free(js);
}

/* The dv/dt pages of the real trace through the recording backend. */
TEST(fpages_dvdt_golden_pages)
{
    tp_test_fpages_golden(tp_test_shared(DVDT_REAL), "dvdt_prof_armcl_tmp-dvdt-prof.json", false, &tp_fpages_dvdt,
                          "report/fpages_dvdt.rec");
}

/* API calls but no kernel execution: a report that says so. */
TEST(fpages_dvdt_no_kernels)
{
    if (!have_pdf_tools())
        return;
    const char *in = write_text("fp_dvdt_nok.json",
                                "[{\"call\":\"clFinish\",\"queue\":\"0x3000\",\"timestamp\":{\"start\":"
                                "\"2020-01-01T00:00:00.000010\",\"end\":\"2020-01-01T00:00:00.000020\"},\"errcode\":0}]");
    const char *dir = tp_test_tmp("fp_dvdt_nok");
    char *txt = report_text(in, dir, "");
    static const char *const want[] = {"dv/dt kernels: nothing to show", "no kernel executions", NULL};
    want_all("pdftotext", txt, want, __LINE__);
    free(txt);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "\"dvdt\":{\"kernels\":[],"));
    free(js);
}
