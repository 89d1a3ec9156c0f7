/* test_diff.c: `tracepress diff`: matching, self-diff, a kernel made 20%
 * slower named first and tripping the kernel gate, the min-share rule, the
 * step gate, cross-format diffs, and the output files. */
#include "report/diff/diff.h"
#include "tests/lib/harness.h"
#include "render/canvas.h"
#include "convert/pipeline/pipeline.h"

#include <math.h>
#include <stdlib.h>

/* A synthetic Kineto-like trace: `steps` steps of 1000 us (+ step_extra us),
 * each with one host op launching gemm_k (100 us), add_k (50 us * add_pct%),
 * relu_k (20 us), tiny_k (1 us * tiny_pct%) and a templated kernel whose
 * name is `tmpl` (30 us). */
static const char *synth(const char *name, int steps, int add_pct, int tiny_pct, int step_extra, const char *tmpl)
{
    const char *p = tp_test_tmp(name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f)
        return p;
    fputs("{\"traceEvents\":[\n", f);
    int corr = 1;
    for (int s = 0; s < steps; s++) {
        long t0 = 10000L * s;
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                   "\"ts\":%ld,\"dur\":%d},\n", s + 1, t0, 1000 + step_extra);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
                   "\"dur\":500},\n", t0 + 10);
        struct { const char *n; double us; } k[5] = {
            {"gemm_k", 100}, {"add_k", 50.0 * add_pct / 100}, {"relu_k", 20}, {"tiny_k", 1.0 * tiny_pct / 100},
            {tmpl, 30}};
        double dev = t0 + 20;
        for (int i = 0; i < 5; i++, corr++) {
            fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                       "\"ts\":%ld,\"dur\":5,\"args\":{\"correlation\":%d}},\n", t0 + 20 + 10 * i, corr);
            fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%.3f,"
                       "\"dur\":%.3f,\"args\":{\"correlation\":%d}},\n", k[i].n, dev + 5, k[i].us, corr);
            dev += 5 + k[i].us;
        }
    }
    fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}}\n]}\n", f);
    fclose(f);
    return p;
}

#define TMPL_A "void foo_kernel<float>(float*, int)"
#define TMPL_B "foo_kernel<float>"

static int summarize(const char *path, tp_trace *t, tp_summary *s)
{
    tp_load_opts lo = {0};
    tp_err err = {0};
    tp_trace_init(t);
    if (tp_load(path, &lo, t, &err) < 0) {
        fprintf(stderr, "load %s: %s\n", path, err.msg);
        return -1;
    }
    tp_report_opts ro = {path, NULL, 0, NULL, false};
    tp_summary_build(t, &ro, s);
    return 0;
}

static const tp_diff_row *find(const tp_diff_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].name, name) == 0)
            return &t->rows[i];
    return NULL;
}

TEST(diff_matching_and_shares)
{
    const char *a = synth("m_base.json", 4, 100, 100, 0, TMPL_A);
    const char *b = synth("m_cand.json", 4, 120, 150, 0, TMPL_B);
    tp_trace ta, tb;
    tp_summary sa, sb;
    CHECK(summarize(a, &ta, &sa) == 0);
    CHECK(summarize(b, &tb, &sb) == 0);
    tp_diff d;
    tp_diff_build(&sa, &sb, &d);
    CHECK_EQ_INT(d.kernels.n, 5);
    /* add_k: 4 x 50 us -> 4 x 60 us, the largest regression, first */
    CHECK_STR(d.kernels.rows[0].name, "add_k");
    CHECK_EQ_INT(d.kernels.rows[0].delta, 40000);
    CHECK_EQ_INT(d.kernels.rows[0].count[0], 4);
    CHECK_EQ_INT(d.kernels.rows[0].mean[1], 60000);
    CHECK(d.kernels.rows[0].has_rel && d.kernels.rows[0].rel > 0.1999 && d.kernels.rows[0].rel < 0.2001);
    /* change 40 + 2 us (all regressions): add_k explains 40/42 */
    CHECK_EQ_INT(d.kernels.delta, 42000);
    CHECK(d.kernels.rows[0].has_share && d.kernels.rows[0].share > 0.952 && d.kernels.rows[0].share < 0.953);
    const tp_diff_row *r = find(&d.kernels, TMPL_A);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->match, TP_DM_SHORT);
        CHECK_STR(r->cand_name, TMPL_B);
        CHECK_EQ_INT(r->delta, 0);
    }
    r = find(&d.kernels, "gemm_k");
    CHECK(r && r->match == TP_DM_NAME && r->delta == 0);
    /* steps by number, same times */
    CHECK_EQ_INT(d.steps.n, 4);
    CHECK(d.has_steps && d.median_delta == 0 && d.noise_known && !d.beyond_noise);
    CHECK_STR(d.headline, "median_step_time");
    /* ops: the one op's device time */
    CHECK_EQ_INT(d.ops.n, 1);
    CHECK_EQ_INT(d.ops.rows[0].delta, 42000);

    /* gates: add_k (+20%, 24% of device time) trips 10%; tiny_k (+50%) is under 1% share */
    tp_diff_gates g = {0};
    g.kernel_slower = true;
    g.kernel_pct = 10;
    g.kernel_min_share_pct = 1;
    tp_buf why = {0};
    CHECK_EQ_INT(tp_diff_check(&d, &g, &why), 1);
    CHECK(why.data && strstr(why.data, "add_k") && !strstr(why.data, "tiny_k"));
    why.len = 0;
    g.kernel_min_share_pct = 0; /* now tiny_k counts too */
    CHECK_EQ_INT(tp_diff_check(&d, &g, &why), 2);
    why.len = 0;
    g.kernel_pct = 25; /* add_k +20% passes, tiny_k +50% still trips */
    CHECK_EQ_INT(tp_diff_check(&d, &g, &why), 1);
    tp_buf_free(&why);
    tp_diff_free(&d);
    tp_summary_free(&sa);
    tp_summary_free(&sb);
    tp_trace_free(&ta);
    tp_trace_free(&tb);
}

TEST(diff_self_no_change_exit_0)
{
    const char *dir = tp_test_tmp("self.diff");
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' diff golden/example.pt.trace.json golden/example.pt.trace.json -o '%s' "
                               "--fail-if-slower 0 --fail-if-kernel-slower 0 --kernel-min-share 0",
                         tp_test_bin(), dir);
    CHECK_EQ_INT(rc, 0);
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/diff.md", dir);
    char *md = tp_test_read_file(p, NULL);
    CHECK(md && strstr(md, "**Verdict: no change.**"));
    CHECK(md && strstr(md, "Gates passed."));
    CHECK(md && strstr(md, "No kernel's total time changed."));
    free(md);
    snprintf(p, sizeof p, "%s/diff.json", dir);
    char *js = tp_test_read_file(p, NULL);
    CHECK(js && strstr(js, "\"schema\":\"tracepress.diff/1\""));
    CHECK(js && strstr(js, "\"verdict\":\"no change\""));
    CHECK(js && strstr(js, "\"tripped\":0"));
    CHECK(js && !strstr(js, "\"match\":\"added\"") && !strstr(js, "\"match\":\"removed\""));
    free(js);
    for (int i = 0; i < 3; i++) {
        static const char *const f[] = {"diff.pdf", "png/changes.png", "png/steps.png"};
        snprintf(p, sizeof p, "%s/%s", dir, f[i]);
        CHECK(tp_test_file_exists(p));
    }
}

TEST(diff_kernel_20pct_slower_named_first_gate_exit_3)
{
    const char *a = synth("g_base.json", 5, 100, 100, 0, "k5");
    const char *b = synth("g_cand.json", 5, 120, 100, 0, "k5");
    const char *dir = tp_test_tmp("slow.diff");
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' diff '%s' '%s' -o '%s' --fail-if-kernel-slower 10", tp_test_bin(), a, b, dir);
    CHECK_EQ_INT(rc, 3);
    CHECK(out && strstr(out, "gate: kernel add_k +20.0%"));
    free(out);
    char p[1024];
    snprintf(p, sizeof p, "%s/diff.md", dir);
    char *md = tp_test_read_file(p, NULL);
    const char *reg = md ? strstr(md, "#### Top regressions") : NULL;
    CHECK(reg != NULL);
    if (reg) {
        /* the first table row after the header names add_k */
        const char *row = strstr(reg, "|---|");
        row = row ? strchr(row, '\n') : NULL;
        CHECK(row && strncmp(row + 1, "| `add_k`", 9) == 0);
    }
    CHECK(md && strstr(md, "**Gate failed** (1)"));
    free(md);
    /* 20% slower passes a 25% gate; the step gate sees no change in step time */
    rc = tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' -q --fail-if-kernel-slower 25 --fail-if-slower 1",
                     tp_test_bin(), a, b, dir);
    CHECK_EQ_INT(rc, 0);
    /* deterministic: the same run twice gives the same bytes */
    snprintf(p, sizeof p, "%s/diff.json", dir);
    char *j1 = tp_test_read_file(p, NULL);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' -q --fail-if-kernel-slower 25 --fail-if-slower 1",
                             tp_test_bin(), a, b, dir), 0);
    char *j2 = tp_test_read_file(p, NULL);
    CHECK(j1 && j2 && strcmp(j1, j2) == 0);
    free(j1);
    free(j2);
}

TEST(diff_step_gate_and_noise)
{
    /* steps 10% longer in the candidate, no kernel change */
    const char *a = synth("s_base.json", 3, 100, 100, 0, "k5");
    const char *b = synth("s_cand.json", 3, 100, 100, 100, "k5");
    const char *dir = tp_test_tmp("steps.diff");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff '%s' '%s' -o '%s' --fail-if-slower 5", tp_test_bin(), a, b, dir), 3);
    CHECK(out && strstr(out, "gate: median step time +10.0%"));
    free(out);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' -q --fail-if-slower 15", tp_test_bin(), a, b, dir),
                 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/diff.json", dir);
    char *js = tp_test_read_file(p, NULL);
    CHECK(js && strstr(js, "\"verdict\":\"slower\""));
    CHECK(js && strstr(js, "\"median_delta_ns\":100000,\"median_rel\":0.100000,\"noise_ns\":0,\"noise_known\":true,"
                           "\"beyond_noise\":true"));
    free(js);
}

TEST(diff_across_formats)
{
    /* Kineto JSON vs its own conversion (.json.gz): same content, no change */
    const char *conv = tp_test_tmp("example.conv.json.gz");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' convert golden/example.pt.trace.json -o '%s' -q", tp_test_bin(), conv),
                 0);
    const char *dir = tp_test_tmp("conv.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff golden/example.pt.trace.json '%s' -o '%s' -q --fail-if-slower 0 "
                                   "--fail-if-kernel-slower 0", tp_test_bin(), conv, dir), 0);
    char p[1024];
    snprintf(p, sizeof p, "%s/diff.json", dir);
    char *js = tp_test_read_file(p, NULL);
    CHECK(js && strstr(js, "\"verdict\":\"no change\""));
    free(js);
    /* ETDump vs Kineto: nothing in common, still a complete diff (device time compared, no steps in ETDump) */
    const char *et = tp_test_shared("external/etdump/executorch_tutorial_etdump.etdp");
    if (!tp_test_file_exists(et))
        return;
    const char *dir2 = tp_test_tmp("cross.diff");
    char *out = NULL;
    int rc = tp_test_run(&out, "'%s' diff '%s' golden/example.pt.trace.json -o '%s' -q", tp_test_bin(), et, dir2);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n", out ? out : "");
    free(out);
    snprintf(p, sizeof p, "%s/diff.json", dir2);
    js = tp_test_read_file(p, NULL);
    CHECK(js && strstr(js, "\"format\":\"etdump\""));
    CHECK(js && strstr(js, "\"match\":\"added\"") && strstr(js, "\"match\":\"removed\""));
    free(js);
    snprintf(p, sizeof p, "%s/diff.pdf", dir2);
    CHECK(tp_test_file_exists(p));
    if (tp_test_have("qpdf") && tp_test_have("pdftotext")) {
        CHECK_EQ_INT(tp_test_run(&out, "qpdf --check '%s'", p), 0);
        free(out);
        CHECK_EQ_INT(tp_test_run(&out, "pdftotext -layout '%s' - 2>/dev/null", p), 0);
        CHECK(out && strstr(out, "Largest kernel changes") && strstr(out, "Kernels"));
        free(out);
    }
}

TEST(diff_usage_and_input_errors)
{
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff golden/example.pt.trace.json", tp_test_bin()), 1);
    free(out);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff a b --fail-if-slower x", tp_test_bin()), 1);
    free(out);
    const char *bad = tp_test_tmp("bad.json");
    FILE *f = fopen(bad, "w");
    if (f) {
        fputs("{\"traceEvents\":[{\"ph\":\"X\",", f);
        fclose(f);
    }
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff golden/example.pt.trace.json '%s' -o '%s'", tp_test_bin(), bad,
                             tp_test_tmp("bad.diff")), 2);
    CHECK(out && strncmp(out, "tracepress: ", 12) == 0 && strstr(out, "bad.json"));
    free(out);
}

/* ---- the PNG charts at GitHub's comment width ------------------------------
 * GitHub shows an image at most ~800 px wide in a PR comment: the 800 pt page
 * rendered at 2 px/pt is halved, so 1 pt of the page is 1 px on screen. */

/* `nk` kernels with long templated names, `steps` steps; in the candidate the
 * first `nch` kernels are 25% slower (even) or 20% faster (odd) -- one
 * change: 20% slower. */
static const char *synth_many(const char *name, int nk, int nch, int steps, int cand)
{
    const char *p = tp_test_tmp(name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f)
        return p;
    fputs("{\"traceEvents\":[\n", f);
    int corr = 1;
    for (int s = 0; s < steps; s++) {
        long t0 = 20000L * s;
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                   "\"ts\":%ld,\"dur\":%d},\n", s + 1, t0, 10000 + (s % 3) * 50 + (cand ? 300 : 0));
        double dev = t0 + 20;
        for (int i = 0; i < nk; i++, corr++) {
            double us = 20 + 7 * i;
            if (cand && i < nch)
                us *= nch == 1 ? 1.2 : i % 2 == 0 ? 1.25 : 0.8;
            fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                       "\"ts\":%ld,\"dur\":1,\"args\":{\"correlation\":%d}},\n", t0 + 20 + i, corr);
            fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::(anonymous namespace)::"
                       "vectorized_elementwise_kernel_with_a_long_name_%02d<4, at::native::BinaryFunctor<float, "
                       "float, float, at::native::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, "
                       "at::detail::Array<char*, 3>)\",\"pid\":0,\"tid\":7,\"ts\":%.3f,\"dur\":%.3f,"
                       "\"args\":{\"correlation\":%d}},\n", i, dev + 1, us, corr);
            dev += 1 + us;
        }
    }
    fputs("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}}\n]}\n", f);
    fclose(f);
    return p;
}

typedef struct tbox {
    double x0, y0, x1, y1;
    char s[160];
} tbox;

/* Draws the page on the recording canvas; checks every text is >= 12 pt,
 * inside the page and overlaps no other text.  Returns the page height. */
static double check_png_page(const tp_diff *d, int which, size_t *ntext)
{
    tp_buf b = {0};
    tp_canvas *cv = tp_canvas_rec(&b);
    tp_diff_png_page(cv, d, which);
    tp_canvas_close(cv, NULL);
    double pw = 0, ph = 0;
    tbox *bx = NULL;
    size_t n = 0, cap = 0;
    for (char *line = b.data, *eol; line && *line; line = eol + 1) {
        eol = strchr(line, '\n');
        if (!eol)
            break;
        *eol = 0;
        char font[16], s[160] = "";
        double size, x, y, ang;
        if (sscanf(line, "page %lf %lf", &pw, &ph) == 2)
            continue;
        if (sscanf(line, "text %15s %lf %lf %lf %lf #%*x \"%159[^\"]\"", font, &size, &x, &y, &ang, s) < 5)
            continue;
        tp_font f = TP_FONT_REGULAR;
        for (int k = 0; k < TP_FONT_COUNT; k++)
            if (strcmp(font, tp_font_name((tp_font)k)) == 0)
                f = (tp_font)k;
        if (size < 12 - 1e-9)
            tp_test_fail(__FILE__, __LINE__, "chart %d: %.2f pt text \"%s\" (under 12 px at 800 px)", which, size, s);
        double w = tp_text_width(f, size, s), a = tp_font_ascent(f, size), dsc = tp_font_descent(f, size);
        TP_GROW(bx, cap, n + 1);
        if (ang == 0)
            bx[n] = (tbox){x, y - a, x + w, y + dsc, ""};
        else if (ang == -90)
            bx[n] = (tbox){x - a, y - w, x + dsc, y, ""};
        else {
            tp_test_fail(__FILE__, __LINE__, "chart %d: text at %.0f degrees: \"%s\"", which, ang, s);
            continue;
        }
        snprintf(bx[n].s, sizeof bx[n].s, "%s", s);
        n++;
    }
    CHECK(pw == 800);
    for (size_t i = 0; i < n; i++) {
        if (bx[i].x0 < -0.01 || bx[i].y0 < -0.01 || bx[i].x1 > pw + 0.01 || bx[i].y1 > ph + 0.01)
            tp_test_fail(__FILE__, __LINE__, "chart %d: \"%s\" outside the page", which, bx[i].s);
        for (size_t j = i + 1; j < n; j++) {
            double ox = fmin(bx[i].x1, bx[j].x1) - fmax(bx[i].x0, bx[j].x0);
            double oy = fmin(bx[i].y1, bx[j].y1) - fmax(bx[i].y0, bx[j].y0);
            if (ox > 0.5 && oy > 0.5)
                tp_test_fail(__FILE__, __LINE__, "chart %d: \"%s\" overlaps \"%s\"", which, bx[i].s, bx[j].s);
        }
    }
    free(bx);
    tp_buf_free(&b);
    *ntext = n;
    return ph;
}

TEST(diff_pngs_readable_at_800px)
{
    static const struct {
        int nk, nch, steps;
    } cases[] = {{6, 1, 3}, {40, 35, 45}};
    for (int c = 0; c < 2; c++) {
        char an[32], bn[32];
        snprintf(an, sizeof an, "png%d_a.json", c);
        snprintf(bn, sizeof bn, "png%d_b.json", c);
        const char *a = synth_many(an, cases[c].nk, cases[c].nch, cases[c].steps, 0);
        const char *b = synth_many(bn, cases[c].nk, cases[c].nch, cases[c].steps, 1);
        tp_trace ta, tb;
        tp_summary sa, sb;
        CHECK(summarize(a, &ta, &sa) == 0);
        CHECK(summarize(b, &tb, &sb) == 0);
        tp_diff d;
        tp_diff_build(&sa, &sb, &d);
        size_t nt = 0;
        double h = check_png_page(&d, 0, &nt);
        if (c == 0) {
            /* one change: a short image, not a mostly empty 480 pt canvas */
            CHECK(h <= 130);
            CHECK(nt >= 5); /* title, legend x2, label, value */
        } else {
            /* the 20 largest of 35 changes, each row a full 24 pt high */
            CHECK(h >= 20 * 24 && h <= 20 * 24 + 130);
            CHECK(nt >= 3 + 2 * 20);
        }
        CHECK(d.has_steps);
        h = check_png_page(&d, 1, &nt);
        CHECK(h == 480);
        /* title, legend, ticks, axis title, a label per bar (45 steps: the first 20 of each run) */
        CHECK(nt >= (size_t)(4 + 2 * (cases[c].steps < 20 ? cases[c].steps : 20)));
        tp_diff_free(&d);
        tp_summary_free(&sa);
        tp_summary_free(&sb);
        tp_trace_free(&ta);
        tp_trace_free(&tb);
    }
}

/* Per op category and the GPU time model: two graph-replay decode traces,
 * 24 layers against 30 layers plus two bare one-layer graphs per step
 * (scripts/gen/gen_graphs: a layer's GEMMs take 11.25 + 9.5 us). */
TEST(diff_per_category_and_gpu_time)
{
    const char *a = tp_test_tmp("cat_a.json"), *b = tp_test_tmp("cat_b.json"), *dir = tp_test_tmp("cat.diff");
    CHECK_EQ_INT(tp_test_run(NULL, "build/gen/gen_graphs '%s' && build/gen/gen_graphs --layers 30 --bare 2 '%s'", a, b),
                 0);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff '%s' '%s' -o '%s' -q", tp_test_bin(), a, b, dir), 0);
    char *js = tp_test_read_in(dir, "diff.json"), *md = tp_test_read_in(dir, "diff.md");
    /* GEMM: 8 steps x 24 layers x 20.75 us -> 8 x (30 + 2) x 20.75 us */
    CHECK(js && strstr(js, "\"categories\":{\"base_total_ns\":"));
    CHECK(js && strstr(js, "{\"name\":\"GEMM\",\"short_name\":\"GEMM\",\"match\":\"name\",\"base\":{\"count\":384,"
                           "\"total_ns\":3984000,"));
    CHECK(js && strstr(js, "\"candidate\":{\"count\":512,\"total_ns\":5312000,"));
    CHECK(js && strstr(js, "\"gpu_time\":{\"base\":{\"span_ns\":"));
    CHECK(md && strstr(md, "#### Op categories (device time)\n\n| category (slower) |"));
    CHECK(md && strstr(md, "| `GEMM` | 384 → 512 | 3.98 ms | 5.31 ms | +1.33 ms | +33.3% |"));
    CHECK(md && strstr(md, "| GPU busy | "));
    free(js);
    free(md);
}
