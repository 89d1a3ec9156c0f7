/* test_findings_rules.c: the findings over kernel sequences, the input
 * pipeline and GEMM shapes (report/findings/measures_more.c, docs/REPORT.md
 * "Findings"): each planted in a generated trace must be the top finding
 * with evidence naming what was planted, and stay quiet where the trace
 * differs only in what the rule tests. */
#include "tests/lib/harness.h"
#include "tests/lib/find_gen.h"
#include "tests/lib/load_trace.h"
#include "report/findings/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"
#define LN "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float*)"
#define GELU "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int, float*)"
#define ADD "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >(int, float*)"
#define MUL "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float> >(int, float*)"

/* Each step: GEMM, [layer norm, gelu, add, mul], GEMM, the same chain, GEMM; all launched ahead.
 * repeat false: every chain's kernels have names of their own, so no sequence repeats. */
static const char *chain_trace(const char *file, bool repeat)
{
    static const char *const chain[4] = {LN, GELU, ADD, MUL};
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    int n = 0;
    for (int k = 0; k < 5; k++) {
        double t = s;
        for (int c = 0; c < 3; c++) {
            fg_launch(&g, t, "kernel", GEMM, 7, 200, 0), t += 3;
            for (int q = 0; c < 2 && q < 4; q++, t += 3) {
                char own[120];
                snprintf(own, sizeof own, "void at::native::vectorized_elementwise_kernel<4, Op%d>(int)", n * 4 + q);
                fg_launch(&g, t, "kernel", repeat ? chain[q] : own, 7, 30, 0);
            }
            n++;
        }
        fg_step(&g, k, s, 840);
        s += 840;
    }
    return fg_end(&g, file);
}

/* Each step: 2 ms in the dataloader, then five GEMMs launched after it.
 * ahead: the dataloader runs while the previous step's GEMMs still run (a
 * prefetching pipeline), so the GPU never waits for it. */
static const char *data_trace(const char *file, bool ahead)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 5; k++) {
        fg_host(&g, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s, 2000, NULL);
        for (int i = 0; i < 5; i++)
            fg_launch(&g, s + 2000 + 6 * i, "kernel", GEMM, 7, ahead ? 600 : 200, 0);
        fg_step(&g, k, s, 2100);
        s += 2100;
    }
    return fg_end(&g, file);
}

/* aten::mm of matrices [[m,4096],[4096,4096]] on an H100, each taking gemm_us, run by kernel `kernel`
 * (NULL: a BF16 tensor-core GEMM) on inputs of `dtype` (NULL: BFloat16). */
static const char *gemm_trace_of(const char *file, int m, double gemm_us, const char *kernel, const char *dtype)
{
    fg_gen g;
    fg_begin(&g, true);
    char args[200];
    dtype = dtype ? dtype : "c10::BFloat16";
    snprintf(args, sizeof args, "{\"Input Dims\":[[%d,4096],[4096,4096]],\"Input type\":[\"%s\",\"%s\"]}", m, dtype,
             dtype);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 10; i++) {
            fg_host(&g, "cpu_op", "aten::mm", s + 8 * i, 6, args);
            fg_launch(&g, s + 8 * i + 1, "kernel", kernel ? kernel : GEMM, 7, gemm_us, 0);
        }
        fg_step(&g, k, s, 10 * gemm_us);
        s += 10 * gemm_us;
    }
    return fg_end(&g, file);
}

static const char *gemm_trace(const char *file, int m, double gemm_us)
{
    return gemm_trace_of(file, m, gemm_us, NULL, NULL);
}

/* The findings of a trace: f.items ranked; the caller frees with done(). */
typedef struct run {
    tp_trace t;
    tp_summary s;
    tp_findings f;
} run;

static void run_of(const char *path, run *r)
{
    CHECK(tp_test_load_report(path, &r->t, &r->s) == 0);
    tp_findings_build(&r->s, NULL, &r->f);
}

static void done(run *r)
{
    tp_findings_free(&r->f);
    tp_summary_free(&r->s);
    tp_trace_free(&r->t);
}

static const char *top_id(const run *r) { return r->f.n ? r->f.items[0].rule->id : "(none)"; }

static bool fired(const run *r, const char *id)
{
    for (size_t i = 0; i < r->f.n; i++)
        if (strcmp(r->f.items[i].rule->id, id) == 0)
            return true;
    return false;
}

static bool evidence_has(const run *r, const char *text)
{
    const tp_measure *m = r->f.n ? r->f.items[0].m : NULL;
    for (size_t i = 0; m && i < m->nevidence; i++)
        if (strstr(m->evidence[i], text))
            return true;
    return false;
}

TEST(findings_fusion_candidates_planted_and_quiet)
{
    run r;
    run_of(chain_trace("chains.json", true), &r);
    CHECK_STR(top_id(&r), "fusion_candidates");
    /* 10 chains of 4 kernels, 120 us each; a fusion leaves the 30 us of one kernel: 10 x 90 us */
    CHECK(r.f.n && r.f.items[0].m->impact_ns == 900000);
    CHECK(evidence_has(&r, "10 x [vectorized_layer_norm_kernel -> vectorized_elementwise_kernel -> "));
    CHECK(evidence_has(&r, "(4 kernels) on "));
    done(&r);
    /* the same kernels in chains that never repeat: nothing a fusion pattern would catch */
    run_of(chain_trace("chains_once.json", false), &r);
    CHECK(!fired(&r, "fusion_candidates"));
    CHECK_EQ_INT(r.f.n, 0);
    done(&r);
}

TEST(findings_input_bound_planted_and_quiet)
{
    run r;
    run_of(data_trace("data.json", false), &r);
    CHECK_STR(top_id(&r), "input_bound");
    CHECK(evidence_has(&r, "host time in the dataloader 10.000 ms (5 slices)"));
    CHECK(evidence_has(&r, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__: 10.000 ms"));
    /* the idle it covers is its, not the host's launching: host_bound stays quiet */
    CHECK(!fired(&r, "host_bound"));
    done(&r);
    run_of(data_trace("data_ahead.json", true), &r);
    CHECK(!fired(&r, "input_bound"));
    CHECK_EQ_INT(r.f.n, 0);
    done(&r);
}

TEST(findings_gemm_tiles_planted_and_quiet)
{
    run r;
    /* M 4095 at BF16: not a multiple of 8; 2 ms for 137 GFLOP is about 7% of an H100's roof */
    run_of(gemm_trace("gemm4095.json", 4095, 2000), &r);
    CHECK_STR(top_id(&r), "gemm_tiles");
    CHECK(evidence_has(&r, "aten::mm [[4095,4096],[4096,4096]]: M 4095, N 4096, K 4096: M not a multiple of 8 "
                           "(matrix_bf16); 50 calls"));
    /* its headroom is gemm_tiles', not counted again by compute_headroom */
    CHECK(!fired(&r, "compute_headroom"));
    done(&r);
    /* the same GEMMs with M 4096: the headroom is compute_headroom's */
    run_of(gemm_trace("gemm4096.json", 4096, 2000), &r);
    CHECK_STR(top_id(&r), "compute_headroom");
    CHECK(!fired(&r, "gemm_tiles"));
    done(&r);
    /* fp32 inputs on TF32 tensor cores need multiples of 4: M 4094 is not; on CUDA cores (SIMT sgemm)
     * there is no tile to waste, so the same shape is compute_headroom's */
    run_of(gemm_trace_of("gemm_tf32.json", 4094, 8000, "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
                         "float"), &r);
    CHECK_STR(top_id(&r), "gemm_tiles");
    CHECK(evidence_has(&r, "M not a multiple of 4 (matrix_tf32)"));
    done(&r);
    run_of(gemm_trace_of("gemm_simt.json", 4094, 80000, "ampere_sgemm_128x64_nn", "float"), &r);
    CHECK(!fired(&r, "gemm_tiles"));
    done(&r);
    /* M 4095 at 86% of the roof: quiet */
    run_of(gemm_trace("gemm4095_fast.json", 4095, 160), &r);
    CHECK_STR(top_id(&r), "(none)");
    done(&r);
}

/* `diff --rules FILE`: both runs' findings under the file's rules; a bad file is one line, exit 2. */
TEST(findings_rules_file_for_diff)
{
    const char *base = data_trace("d_base.json", true), *cand = data_trace("d_cand.json", false);
    const char *dir = tp_test_tmp("rules.diff");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding input_bound 2>&1", tp_test_bin(),
                             base, cand, dir), 3);
    CHECK(out && strstr(out, "gate: finding input_bound (high) is new"));
    free(out);
    /* a file raising input_bound's threshold to 100%: not found in either run, the gate passes */
    const char *rules = tp_test_write_text("diff.rules", "input_bound | dataloader_idle | 100% | high | t | n\n"
                                                         "my_wait | dataloader_idle | 1% | low | Data waits | look\n");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --rules '%s' --fail-on-finding input_bound",
                             tp_test_bin(), base, cand, dir, rules), 0);
    char *md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "- new: Data waits") && strstr(md, "(`my_wait`, low): ") && !strstr(md, "`input_bound`"));
    free(md);
    /* a file's own rule gates too */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --rules '%s' --fail-on-finding my_wait",
                             tp_test_bin(), base, cand, dir, rules), 3);
    /* a rule the file turns off could never trip the gate: a usage error, not a gate that always passes */
    const char *off = tp_test_write_text("diff_off.rules", "input_bound | dataloader_idle | 5% | off | t | n\n");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --rules '%s' --fail-on-finding input_bound 2>&1",
                             tp_test_bin(), base, cand, tp_test_tmp("rules_off.diff"), off), 1);
    CHECK(out && strstr(out, "turns that rule off") && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
    CHECK(!tp_test_file_exists(tp_test_tmp("rules_off.diff")));
    const char *bad = tp_test_write_text("diff_bad.rules", "x | nosuch | 5% | high | t | n\n");
    const char *dir2 = tp_test_tmp("rules_bad.diff");
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --rules '%s' 2>&1", tp_test_bin(), base, cand, dir2,
                             bad), 2);
    CHECK(out && strstr(out, "line 1: \"nosuch\" is no measure") && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
    CHECK(!tp_test_file_exists(dir2));
}

/* `batch --rules FILE`: each report's findings under the file's rules; the file's bytes are part of
 * the options a row was made with, so another file remakes the rows. */
TEST(findings_rules_file_for_batch)
{
    const char *in = tp_test_tmp("rules_batch_in");
    const char *out_dir = tp_test_tmp("rules.batch");
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && cp '%s' '%s/data.json'", in, data_trace("b_data.json", false), in),
                 0);
    const char *r1 = tp_test_write_text("batch1.rules", "input_bound | dataloader_idle | 5% | high | Fetching first | n\n");
    const char *r2 = tp_test_write_text("batch2.rules", "input_bound | dataloader_idle | 5% | high | Fetching second | n\n");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch '%s' -o '%s' --rules '%s' -j 1 >/dev/null 2>&1", tp_test_bin(), in,
                             out_dir, r1), 0);
    CHECK_EQ_INT(tp_test_run(&out, "cat '%s'/*/report/summary.md", out_dir), 0);
    CHECK(out && strncmp(out, "**Fetching first", 16) == 0 && strstr(out, "**: up to "));
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' batch '%s' -o '%s' --rules '%s' -j 1 >/dev/null 2>&1", tp_test_bin(), in,
                             out_dir, r2), 0);
    CHECK_EQ_INT(tp_test_run(&out, "cat '%s'/*/report/summary.md", out_dir), 0);
    CHECK(out && strncmp(out, "**Fetching second", 17) == 0 && strstr(out, "**: up to "));
    free(out);
}
