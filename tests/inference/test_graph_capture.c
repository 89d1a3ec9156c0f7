/* Graph capture and inference ops (issue 33): a planted replay and capture
 * pair (kernel sequence, not names, decides which op a kernel belongs to; an
 * invocation per graph launch; the unmapped counted; the iteration
 * annotation's sequence lengths reach the attention model), discovery of
 * capture_traces/, the line without a capture, a bad capture_traces/ folder,
 * and TraceLens's inference CSVs of the SGLang decode case row by row. */
#include "convert/pipeline/graph_capture.h"
#include "report/analysis/summary.h"
#include "report/perf_models/op_models_infer.h"
#include "tests/lib/csv.h"
#include "tests/lib/harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a planted pair ---- */

#define BF16 "\"c10::BFloat16\""

/* One decode step: its iteration annotation (generation of 4 requests, sk
 * KV tokens in all) around a graph launch whose five kernels ran: two with
 * the same name from two different matmuls, one the capture never launched. */
static void replay_step(tp_buf *b, int step, int sk)
{
    double t0 = 1000.0 * (step + 1);
    int corr = 50 + step;
    tp_buf_printf(b,
                  ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"execute_4_context_0(sq0sk0sqsq0sqsk0)_"
                  "generation_4(sq4sk%dsqsq4sqsk%d)\",\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":900}",
                  sk, sk, t0);
    tp_buf_printf(b,
                  ",\n{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"runner.py(10): replay\",\"pid\":1,\"tid\":1,"
                  "\"ts\":%.1f,\"dur\":100}",
                  t0 + 10);
    tp_buf_printf(b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":%.1f,"
                  "\"dur\":20,\"args\":{\"correlation\":%d}}",
                  t0 + 20, corr);
    static const char *const kernels[] = {"gemm_k", "norm_k", "gemm_k", "attn_k", "extra_k"};
    for (int k = 0; k < 5; k++)
        tp_buf_printf(b,
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%.1f,\"dur\":%d,"
                      "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                      kernels[k], t0 + 50 + 30 * k, 10 + k, corr);
}

static const char *write_replay(const char *dir)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"start\",\"pid\":1,\"tid\":1,"
                    "\"ts\":1,\"dur\":1}");
    replay_step(&b, 0, 400);
    replay_step(&b, 1, 800);
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    char name[256];
    snprintf(name, sizeof name, "%s/replay.json", dir);
    const char *p = tp_test_write_text(name, b.data);
    tp_buf_free(&b);
    return p;
}

/* A captured op around the launch call of one kernel (captured, not run). */
static void captured(tp_buf *b, double ts, const char *op, const char *args, const char *kernel, int corr)
{
    tp_buf_printf(b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":10,"
                     "\"args\":%s}",
                  op, ts, args);
    tp_buf_printf(b,
                  ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                  "\"ts\":%.1f,\"dur\":2,\"args\":{\"kernel\":\"%s\",\"correlation\":%d}}",
                  ts + 2, kernel, corr);
}

static const char *write_capture(const char *dir, const char *name)
{
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamBeginCapture\","
                    "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,\"args\":{\"correlation\":1}}");
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Layer_0\",\"pid\":1,\"tid\":1,"
                    "\"ts\":15,\"dur\":200}");
    captured(&b, 20, "aten::mm", "{\"Input Dims\":[[4,64],[64,128]],\"Input type\":[" BF16 "," BF16 "]}", "gemm_k", 2);
    captured(&b, 40, "aiter::rmsnorm",
             "{\"Input Dims\":[[4,128],[4,128],[128],[]],\"Input type\":[" BF16 "," BF16 "," BF16 ",\"Scalar\"]}",
             "norm_k", 3);
    captured(&b, 60, "aten::mm", "{\"Input Dims\":[[4,128],[128,64]],\"Input type\":[" BF16 "," BF16 "]}", "gemm_k", 4);
    captured(&b, 80, "vllm::unified_attention_with_output",
             "{\"Input Dims\":[[4,8,64],[100,16,2,64],[100,16,2,64],[4,8,64]],\"Input type\":[" BF16 "," BF16 "," BF16
             "," BF16 "]}",
             "attn_k", 5);
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamEndCapture\",\"pid\":1,\"tid\":1,"
                    "\"ts\":300,\"dur\":1,\"args\":{\"correlation\":6}}\n]}\n");
    tp_buf_putc(&b, 0);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const char *p = tp_test_write_text(path, b.data);
    tp_buf_free(&b);
    return p;
}

/* The efficiency row of op with these dims in summary.json text: its count, -1 when absent. */
static long row_count(const char *json, const char *op, const char *dims)
{
    char key[512];
    snprintf(key, sizeof key, "{\"op\":\"%s\",\"family\":", op);
    for (const char *p = strstr(json, key); p; p = strstr(p + 1, key)) {
        const char *end = strchr(p, '}');
        const char *d = strstr(p, "\"input_dims\":");
        if (!d || (end && d > strstr(p, "\"count\":")))
            continue;
        if (strncmp(d + 13, dims, strlen(dims)) != 0)
            continue;
        const char *c = strstr(p, "\"count\":");
        return c ? strtol(c + 8, NULL, 10) : -1;
    }
    return -1;
}

TEST(graph_capture_maps_replayed_kernels_by_sequence)
{
    const char *dir = "gc_pair";
    mkdir(tp_test_tmp(dir), 0755);
    const char *replay = write_replay(dir);
    const char *cap = write_capture(dir, "capture.json");
    char *out = NULL;
    char rep[600];
    snprintf(rep, sizeof rep, "%s", tp_test_tmp("gc_pair/rep"));
    int rc = tp_test_run(&out, "%s report %s --graph-capture %s -o %s", tp_test_bin(), replay, cap, rep);
    CHECK_EQ_INT(rc, 0);
    free(out);
    char *js = tp_test_read_in(rep, "summary.json");
    CHECK(js != NULL);
    if (!js)
        return;
    /* the two gemm_k kernels of a launch: two matmuls told apart by their place in the graph, one
     * invocation per graph launch */
    CHECK_EQ_INT(row_count(js, "aten::mm", "[[4,64],[64,128]]"), 2);
    CHECK_EQ_INT(row_count(js, "aten::mm", "[[4,128],[128,64]]"), 2);
    CHECK_EQ_INT(row_count(js, "aiter::rmsnorm", "[[4,128],[4,128],[128],[]]"), 2);
    /* attention: one row per iteration (400 and 800 KV tokens): 8 heads x 2 x sqsk x (64 + 64) FLOPs */
    CHECK(strstr(js, "\"flops\":819200,\"bytes\":212992") != NULL);
    CHECK(strstr(js, "\"flops\":1638400,") != NULL);
    CHECK(strstr(js, "\"graph_launches\":2,\"launches_matched\":2,\"kernels\":10,\"mapped\":8,\"unmapped\":2") != NULL);
    /* the kernels still count as graph replays; the module path comes from the capture */
    CHECK(strstr(js, "\"path\":\"Layer_0\"") != NULL);
    char *md = tp_test_read_in(rep, "summary.md");
    CHECK(md && strstr(md, "graph capture: `capture.json`; 8 of 10 replayed kernels mapped to captured ops"));
    free(md);
    free(js);
    /* a command that would not read it says so (exit 2), and writes nothing */
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s convert %s --graph-capture %s -o %s", tp_test_bin(), replay, cap,
                             tp_test_tmp("gc_pair/conv.json")),
                 2);
    CHECK(out && strstr(out, "--graph-capture is read by report"));
    CHECK(!tp_test_file_exists(tp_test_tmp("gc_pair/conv.json")));
    free(out);
}

TEST(graph_capture_found_beside_the_replay)
{
    const char *dir = "gc_found", *sub = "gc_found/capture_traces";
    mkdir(tp_test_tmp(dir), 0755);
    mkdir(tp_test_tmp(sub), 0755);
    const char *replay = write_replay(dir);
    write_capture(sub, "bs_4.json");
    char det[700];
    snprintf(det, sizeof det, "%s/execution_details.json", sub);
    tp_test_write_text(det, "[{\"file\": \"bs_4.json\", \"batch_size\": 4, \"mode\": \"FULL\"}]");
    char *out = NULL;
    int rc = tp_test_run(&out, "%s stats %s", tp_test_bin(), replay);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strstr(out, "graph capture: bs_4.json (batch 4, FULL); 8 of 10 replayed kernels mapped"));
    free(out);
    /* execution_details.json naming a file that is not there: bad input, one line, exit 2 */
    tp_test_write_text(det, "[{\"file\": \"bs_8.json\", \"batch_size\": 8, \"mode\": \"FULL\"}]");
    out = NULL;
    rc = tp_test_run(&out, "%s stats %s", tp_test_bin(), replay);
    CHECK_EQ_INT(rc, 2);
    CHECK(out && strstr(out, "names ") && strstr(out, "bs_8.json, which is not there"));
    CHECK(out && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
}

TEST(graph_capture_absent_one_line_and_nothing_else)
{
    const char *dir = "gc_none";
    mkdir(tp_test_tmp(dir), 0755);
    const char *replay = write_replay(dir);
    char *out = NULL;
    char rep[600];
    snprintf(rep, sizeof rep, "%s", tp_test_tmp("gc_none/rep"));
    CHECK_EQ_INT(tp_test_run(&out, "%s report %s -o %s", tp_test_bin(), replay, rep), 0);
    free(out);
    char *md = tp_test_read_in(rep, "summary.md");
    CHECK(md && strstr(md, "graph replays ran 120.000 us of device time (10 kernels) without ops or shapes: a trace "
                           "recorded while the graphs were captured"));
    free(md);
    char *js = tp_test_read_in(rep, "summary.json");
    CHECK(js && !strstr(js, "\"op\":\"aten::mm\"")); /* nothing guessed */
    free(js);
    /* a trace without graph replays: no member, no line */
    snprintf(rep, sizeof rep, "%s", tp_test_tmp("gc_none/rep2"));
    out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "%s report golden/example.pt.trace.json -o %s", tp_test_bin(), rep), 0);
    free(out);
    js = tp_test_read_in(rep, "summary.json");
    CHECK(js && !strstr(js, "graph_capture"));
    free(js);
}

TEST(inference_iteration_annotations)
{
    tp_chunk_stats cs;
    CHECK(tp_chunk_stats_parse("execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)_generation_3("
                               "sq3sk6144sqsq3sqsk6144)",
                               &cs));
    CHECK(cs.c_sq == 6144 && cs.c_sk == 7144 && cs.c_sqsq == 20971520 && cs.c_sqsk == 23019520 && cs.g_sq == 3 &&
          cs.g_sk == 6144 && cs.g_sqsq == 3 && cs.g_sqsk == 6144);
    CHECK(tp_chunk_stats_parse("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 "
                               "g_sqsk=12]",
                               &cs));
    CHECK(cs.c_sq == 5 && cs.c_sk == 8 && cs.c_sqsk == 40 && cs.g_sk == 12);
    CHECK(!tp_chunk_stats_parse("step[DECODE bs=64]", &cs));                        /* native: no lengths */
    CHECK(!tp_chunk_stats_parse("execute_context_0(0)_generation_64(64)", &cs));   /* native vLLM */
    CHECK(!tp_chunk_stats_parse("execute_1_context_1(sq99999999999999999999sk1sqsq1sqsk1)_generation_0(sq0sk0sqsq0"
                                "sqsk0)",
                                &cs)); /* past int64 */
    tp_op_family f;
    CHECK(tp_infer_op("sglang_profiler::attention_paged_attention_ragged_100", 53, &f) >= 0 && f == TP_FAM_ATTENTION);
    CHECK(tp_infer_op("sglang_profiler::attention_paged_attention_raggedx", 50, &f) < 0);
}

/* ---- TraceLens's inference CSVs of the SGLang decode case ---- */

/* TraceLens's name without SGLang's per-layer suffix, and the op of ours
 * that launched the same kernels (a wrapper's inner op) */
static bool same_op(const char *ours, const char *theirs)
{
    size_t n = strlen(theirs);
    if (strncmp(ours, theirs, n) == 0 && (ours[n] == 0 || (ours[n] == '_' && ours[n + 1] >= '0' && ours[n + 1] <= '9')))
        return true;
    return strcmp(theirs, "aiter::gemm_a16w16") == 0 && strcmp(ours, "aten::mm") == 0;
}

TEST(inference_sglang_decode_rows_equal_tracelens)
{
    const char *base = "external/tracelens/inference_sglang_decode";
    char rel[512];
    snprintf(rel, sizeof rel, "%s/sglang_Qwen3-8B_decode.json.gz", base);
    const char *path = tp_test_shared(rel);
    tp_load_opts lo = {0};
    lo.read.keep_args_of = tp_summary_wants_args;
    lo.no_derive = true;
    tp_capture_stats cap;
    lo.capture = &cap, lo.discover_captures = true;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    if (tp_load(path, &lo, &t, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"the SGLang decode case loads with its capture");
        tp_trace_free(&t);
        return;
    }
    CHECK_EQ_INT(cap.nfiles, 1);
    CHECK_EQ_INT(cap.files[0].batch_size, 32);
    CHECK_EQ_INT(cap.mapped, 544);
    CHECK_EQ_INT(cap.activities, 544);
    tp_report_opts ro = {path, NULL, 0, NULL, false, NULL, false, NULL};
    tp_summary s;
    tp_summary_build(&t, &ro, &s);
    /* the sheets: the matches per family */
    static const struct {
        const char *sheet;
        int rows, matched; /* what this case has: every GEMM, attention, RMSNorm and RoPE row */
    } sheets[] = {{"GEMM", 9, 9}, {"InferenceAttention_fwd", 2, 2}, {"RMSNorm_fwd", 4, 4}, {"RoPE_fwd", 1, 1},
                  {"UnaryElementwise", 9, 9}};
    for (size_t k = 0; k < sizeof sheets / sizeof *sheets; k++) {
        snprintf(rel, sizeof rel, "%s/perf_csvs/%s.csv", base, sheets[k].sheet);
        char *text = tp_test_read_file(tp_test_shared(rel), NULL);
        CHECK(text != NULL);
        if (!text)
            continue;
        const char *p = text;
        csv_row head = {0}, r = {0};
        CHECK(tp_csv_next(&p, &head));
        int c_name = tp_csv_col(&head, "name"), c_gf = tp_csv_col(&head, "GFLOPS_first"),
            c_mb = tp_csv_col(&head, "Data Moved (MB)_first");
        int rows = 0, matched = 0;
        while (tp_csv_next(&p, &r)) {
            if (r.n != head.n) {
                tp_csv_free(&r);
                continue;
            }
            rows++;
            uint64_t want_flops = (uint64_t)llround(strtod(r.f[c_gf], NULL) * 1e9),
                     want_bytes = (uint64_t)llround(strtod(r.f[c_mb], NULL) * 1048576.0);
            bool ok = false;
            for (size_t i = 0; i < s.eff.n && !ok; i++)
                ok = same_op(s.eff.rows[i].op, r.f[c_name]) && s.eff.rows[i].flops == want_flops &&
                     s.eff.rows[i].bytes == want_bytes;
            if (ok)
                matched++;
            else
                fprintf(stderr, "%s %s: FLOPs %llu bytes %llu: no row of ours\n", sheets[k].sheet, r.f[c_name],
                        (unsigned long long)want_flops, (unsigned long long)want_bytes);
            tp_csv_free(&r);
        }
        fprintf(stderr, "SGLang decode %s: %d of %d rows equal (FLOPs and bytes)\n", sheets[k].sheet, matched, rows);
        CHECK_EQ_INT(rows, sheets[k].rows);
        CHECK_EQ_INT(matched, sheets[k].matched);
        tp_csv_free(&head);
        free(text);
    }
    /* the modelled share of device time: 0.3% without the capture */
    CHECK(s.eff.modelled_ns * 100 > s.eff.device_ns * 98);
    tp_summary_free(&s);
    tp_trace_free(&t);
}

/* The cost of op `name` with these recorded inputs, through the model table. */
static int cost_of(const char *name, const char *args, const tp_chunk_stats *cs, tp_op_cost *c, const char **why)
{
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    tp_op_inputs in;
    int rc = tp_op_inputs_parse(args, strlen(args), &doc, &in, why);
    if (rc == 0) {
        in.chunk = cs;
        rc = tp_op_cost_of(name, &in, c, why);
    }
    tp_jdoc_free(&doc);
    return rc;
}

TEST(inference_op_models_worked_examples)
{
    tp_op_cost c;
    const char *why = "";
    /* aiter::gemm_a16w16 (x [32, 4096], w [24576, 4096]): 2 M N K; (M K + N K + M N) x 2 bytes (TraceLens's row) */
    CHECK(cost_of("aiter::gemm_a16w16",
                  "{\"Input Dims\":[[32,4096],[24576,4096],[],[],[],[],[]],\"Input type\":[" BF16 "," BF16
                  ",\"\",\"Scalar\",\"\",\"\",\"\"]}",
                  NULL, &c, &why) == 0);
    CHECK(c.family == TP_FAM_GEMM && c.flops == 6442450944ull && c.bytes == 203161600ull);
    /* fp8 block-scaled: 1-byte x and w, bf16 out, scales not counted */
    CHECK(cost_of("aiter::gemm_a8w8_blockscale_ck",
                  "{\"Input Dims\":[[128,7168],[4096,7168],[128,56],[32,56]],\"Input type\":[\"c10::Float8_e4m3fnuz\","
                  "\"c10::Float8_e4m3fnuz\",\"float\",\"float\"]}",
                  NULL, &c, &why) == 0);
    CHECK(c.flops == 7516192768ull && c.bytes == 917504ull + 29360128ull + 1048576ull && c.peak == TP_PEAK_MATRIX_FP8);
    /* vLLM's unquantized GEMM with a bias: the output in the bias's dtype, the bias read */
    CHECK(cost_of("vllm::rocm_unquantized_gemm",
                  "{\"Input Dims\":[[8,64],[32,64],[32]],\"Input type\":[" BF16 "," BF16 "," BF16 "]}", NULL, &c,
                  &why) == 0);
    CHECK(c.flops == 2ull * 8 * 32 * 64 && c.bytes == (8 * 64 + 32 * 64 + 8 * 32 + 32) * 2ull);
    /* vLLM's aiter fused MoE: M 4 tokens, K 1024, N 512, E 8 experts, top 2, gated: 6 M K N topk + M K (2 topk - 1)
     * FLOPs; x and y, and the weights of E (1 - (6/8)^4) = 5.46875 experts, 3 N K each */
    CHECK(cost_of("vllm::rocm_aiter_fused_moe",
                  "{\"Input Dims\":[[4,1024],[8,1024,1024],[8,1024,512],[4,2],[4,2]],\"Input type\":[" BF16 "," BF16
                  "," BF16 ",\"float\",\"int\"]}",
                  NULL, &c, &why) == 0);
    CHECK(c.flops == 25178112ull && c.bytes == 17219584ull);
    CHECK(cost_of("aiter::fmoe_g1u1", "{\"Input Dims\":[[4,1024],[4,1024],[8,1024,1024],[8,1024,512]]}", NULL, &c,
                  &why) != 0); /* no top-k recorded: no cost */
    /* vLLM's unfused Triton MoE (GPT-OSS decode, 32 tokens, hidden 3072, 32 experts, top 4, swiglu, mxfp4
     * weights): the experts' intermediate size is not among its inputs (the capture trace allocates the up
     * GEMM's output [1, 128, 2944], not 3072): no cost, with the reason, rather than N taken equal to K */
    tp_moe_hint mh = {4, true, true, 4, 0, {0}, {0}};
    const char *mf = "{\"Input Dims\":[[32,3072],[32,32],[],[]],\"Input type\":[" BF16 "," BF16 ",\"\",\"\"]}";
    tp_jdoc doc;
    tp_jdoc_init(&doc);
    tp_op_inputs in;
    CHECK(tp_op_inputs_parse(mf, strlen(mf), &doc, &in, &why) == 0);
    in.moe = &mh;
    CHECK(tp_op_cost_of("vllm::moe_forward", &in, &c, &why) != 0 && strstr(why, "intermediate size is not recorded"));
    mh.topk = 0; /* the reasons before it stay */
    CHECK(tp_op_cost_of("vllm::moe_forward", &in, &c, &why) != 0 && strstr(why, "TopK"));
    in.moe = NULL; /* without its kernels' word: no cost */
    CHECK(tp_op_cost_of("vllm::moe_forward", &in, &c, &why) != 0 && strstr(why, "matmul_ogs"));
    tp_jdoc_free(&doc);
    /* aiter's flash attention, q k v [B, L, H, d] (xDiT Flux: 768 tokens, 24 heads, 128): TraceLens's SDPA row */
    CHECK(cost_of("aiter::fmha_v3_fwd",
                  "{\"Input Dims\":[[1,768,24,128],[1,768,24,128],[1,768,24,128],[],[],[],[]],\"Input type\":[" BF16
                  "," BF16 "," BF16 ",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\","
                  "\"\",\"0.\",\"0.088388347648318447\",\"False\",\"-1\"]}",
                  NULL, &c, &why) == 0);
    CHECK(c.family == TP_FAM_ATTENTION && c.flops == 7247757312ull && c.bytes == 18ull * 1048576);
    /* SGLang's paged attention of the decode case: 32 requests, 32785 KV tokens */
    tp_chunk_stats cs = {0, 0, 0, 0, 32, 32785, 32, 32785};
    const char *pa = "{\"Input Dims\":[[32,32,128],[10905190400],[32,32,128],[835874,1,8,128],[835874,1,8,128],[33],"
                     "[20971520],[4096],[],[1],[1],[]],\"Input type\":[" BF16 ",\"unsigned char\"," BF16 "," BF16
                     "," BF16 ",\"int\",\"int\",\"int\",\"\",\"float\",\"float\",\"\"]}";
    CHECK(cost_of("sglang_profiler::attention_paged_attention_ragged_100", pa, &cs, &c, &why) == 0);
    CHECK(c.flops == 537149440ull && c.bytes == 134811648ull);
    /* without the iteration's statistics: no cost, and the reason says why */
    CHECK(cost_of("sglang_profiler::attention_paged_attention_ragged_100", pa, NULL, &c, &why) != 0);
    CHECK(strstr(why, "iteration annotation") != NULL);
}

/* A graph that forks onto two streams: the replay's time order (stream 8's
 * norm runs first) is not the capture's call order; per stream, in time
 * order, each call still finds its kernel. */
TEST(graph_capture_two_streams)
{
    mkdir(tp_test_tmp("gc_streams"), 0755);
    tp_buf b = {0};
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,"
                    "\"tid\":1,\"ts\":100,\"dur\":10,\"args\":{\"correlation\":9}}");
    static const struct {
        const char *k;
        int ts, stream;
    } acts[] = {{"norm_k", 105, 8}, {"gemm_k", 110, 7}, {"gemm_k", 140, 7}};
    for (int i = 0; i < 3; i++)
        tp_buf_printf(&b,
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%d,\"dur\":20,"
                      "\"args\":{\"correlation\":9,\"device\":0,\"stream\":%d}}",
                      acts[i].k, acts[i].stream, acts[i].ts, acts[i].stream);
    tp_buf_puts(&b, "\n]}\n");
    tp_buf_putc(&b, 0);
    const char *replay = tp_test_write_text("gc_streams/replay.json", b.data);
    b.len = 0;
    tp_buf_puts(&b, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamBeginCapture\","
                    "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1}");
    captured(&b, 20, "aten::mm", "{\"Input Dims\":[[4,64],[64,128]],\"Input type\":[" BF16 "," BF16 "]}", "gemm_k", 2);
    captured(&b, 40, "aiter::rmsnorm",
             "{\"Input Dims\":[[4,128],[4,128],[128],[]],\"Input type\":[" BF16 "," BF16 "," BF16 ",\"Scalar\"]}",
             "norm_k", 3);
    captured(&b, 60, "aten::mm", "{\"Input Dims\":[[4,128],[128,64]],\"Input type\":[" BF16 "," BF16 "]}", "gemm_k", 4);
    tp_buf_puts(&b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamEndCapture\",\"pid\":1,\"tid\":1,"
                    "\"ts\":300,\"dur\":1}\n]}\n");
    tp_buf_putc(&b, 0);
    const char *cap = tp_test_write_text("gc_streams/capture.json", b.data);
    tp_buf_free(&b);
    tp_load_opts lo = {0};
    lo.read.keep_args_of = tp_summary_wants_args;
    lo.no_derive = true;
    lo.captures[0] = cap, lo.ncaptures = 1;
    tp_capture_stats st;
    lo.capture = &st;
    tp_trace t;
    tp_trace_init(&t);
    tp_err err = {0};
    CHECK(tp_load(replay, &lo, &t, &err) == 0);
    CHECK_EQ_INT(st.mapped, 3);
    CHECK_EQ_INT(st.not_replayed, 0);
    /* the first gemm_k on stream 7 is the first matmul's, the norm on stream 8 the norm's */
    for (size_t i = 0; i < t.nevents; i++) {
        const tp_event *e = &t.events[i];
        if (e->kind != TP_KIND_KERNEL)
            continue;
        CHECK(e->op != TP_NONE);
        if (e->op == TP_NONE)
            continue;
        const char *op = tp_str_get(&t, t.events[e->op].name), *args = tp_args_get(&t, t.events[e->op].args, NULL);
        if (e->ts == 105000)
            CHECK_STR(op, "aiter::rmsnorm");
        else
            CHECK(strcmp(op, "aten::mm") == 0 &&
                  strstr(args, e->ts == 110000 ? "[[4,64],[64,128]]" : "[[4,128],[128,64]]") != NULL);
    }
    tp_trace_free(&t);
}
