/* test_diff.c: `tracepress diff`: matching, self-diff, a kernel made 20%
 * slower named first and tripping the kernel gate, the min-share rule, the
 * step gate, cross-format diffs, and the output files. */
#include "report/diff/diff.h"
#include "render/text/units.h"
#include "tests/lib/harness.h"
#include "tests/lib/load_trace.h"
#include "render/canvas.h"
#include "convert/pipeline/pipeline.h"

#include <math.h>
#include <stdlib.h>

/* A synthetic Kineto-like trace: `steps` steps of 1000 us (+ step_extra us),
 * or of dur_us[i] us when dur_us is given, each with one host op launching
 * gemm_k (100 us), add_k (50 us * add_pct%), relu_k (20 us), tiny_k (1 us *
 * tiny_pct%) and a templated kernel whose name is `tmpl` (30 us), all
 * launched in the step's first 60 us. */
static const char *synth_durs(const char *name, int steps, const int *dur_us, int add_pct, int tiny_pct,
                              int step_extra, const char *tmpl)
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
                   "\"ts\":%ld,\"dur\":%d},\n", s + 1, t0, dur_us ? dur_us[s] : 1000 + step_extra);
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

static const char *synth(const char *name, int steps, int add_pct, int tiny_pct, int step_extra, const char *tmpl)
{
    return synth_durs(name, steps, NULL, add_pct, tiny_pct, step_extra, tmpl);
}

#define TMPL_A "void foo_kernel<float>(float*, int)"
#define TMPL_B "foo_kernel<float>"

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
    CHECK(tp_test_load_report(a, &ta, &sa) == 0);
    CHECK(tp_test_load_report(b, &tb, &sb) == 0);
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
    CHECK(js && strstr(js, "\"schema\":\"tracepress.diff/2\""));
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
    /* equal steps: IQR 0 on both sides, so the floor (1% of the base median) is the noise */
    CHECK(js && strstr(js, "\"median_delta_ns\":100000,\"median_rel\":0.100000,\"noise_ns\":10000,\"noise_known\":true,"
                           "\"noise_from\":\"floor\",\"beyond_noise\":true"));
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
        CHECK(out && strstr(out, "Largest op changes") && strstr(out, "Kernels")); /* no kernel name in common: the ops lead */
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
        CHECK(tp_test_load_report(a, &ta, &sa) == 0);
        CHECK(tp_test_load_report(b, &tb, &sb) == 0);
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
    /* wider than a comment's column (~700 px): two tables of the category and the next columns (md_width.h) */
    CHECK(md && strstr(md, "| count | base (ms) | candidate (ms) |") &&
          strstr(md, "| `GEMM` | 384 → 512 | 3.984 | 5.312 |") && strstr(md, "| `GEMM` | +1.328 | +33.3% |"));
    CHECK(md && strstr(md, "| GPU busy | "));
    free(js);
    free(md);
}

/* ---- the noise rule: median and IQR of the steps (issue 19, item 7) --------
 * One rule decides the verdict and --fail-if-slower: each case runs the
 * command and checks that diff.json, diff.md, diff.pdf and the stderr line
 * all say the same verdict and that the exit code goes with it. */

typedef struct noise_run {
    char *json, *md, *out;
    int rc;
} noise_run;

/* diff of two synthetic traces with these step times (us); pct < 0: no gate. */
static noise_run noise_case(const char *tag, const int *base, int nb, const int *cand, int nc, double pct,
                            const char *verdict, int want_rc)
{
    noise_run r = {0};
    char an[64], bn[64], dn[64], gate[48] = "";
    snprintf(an, sizeof an, "noise_%s_base.json", tag);
    snprintf(bn, sizeof bn, "noise_%s_cand.json", tag);
    snprintf(dn, sizeof dn, "noise_%s.diff", tag);
    char a[1024], b[1024], dir[1024];
    snprintf(a, sizeof a, "%s", synth_durs(an, nb, base, 100, 100, 0, "k5"));
    snprintf(b, sizeof b, "%s", synth_durs(bn, nc, cand, 100, 100, 0, "k5"));
    snprintf(dir, sizeof dir, "%s", tp_test_tmp(dn));
    if (pct >= 0)
        snprintf(gate, sizeof gate, "--fail-if-slower %g", pct);
    r.rc = tp_test_run(&r.out, "'%s' diff '%s' '%s' -o '%s' %s", tp_test_bin(), a, b, dir, gate);
    if (r.rc != want_rc)
        tp_test_fail(__FILE__, __LINE__, "%s: exit %d, expected %d: %s", tag, r.rc, want_rc, r.out ? r.out : "");
    r.json = tp_test_read_in(dir, "diff.json");
    r.md = tp_test_read_in(dir, "diff.md");
    char want[96];
    snprintf(want, sizeof want, "\"verdict\":\"%s\"", verdict);
    if (!r.json || !strstr(r.json, want))
        tp_test_fail(__FILE__, __LINE__, "%s: diff.json has no %s", tag, want);
    snprintf(want, sizeof want, "**Verdict: %s.**", verdict);
    if (!r.md || !strstr(r.md, want))
        tp_test_fail(__FILE__, __LINE__, "%s: diff.md has no %s", tag, want);
    snprintf(want, sizeof want, ", %s; wrote ", verdict);
    if (!r.out || !strstr(r.out, want))
        tp_test_fail(__FILE__, __LINE__, "%s: the stderr line has no \"%s\": %s", tag, want, r.out ? r.out : "");
    if (tp_test_have("pdftotext")) {
        char *txt = NULL, p[1100];
        snprintf(p, sizeof p, "%s/diff.pdf", dir);
        tp_test_run(&txt, "pdftotext '%s' - 2>/dev/null", p);
        snprintf(want, sizeof want, "Verdict: %s.", verdict);
        if (!txt || !strstr(txt, want))
            tp_test_fail(__FILE__, __LINE__, "%s: diff.pdf has no \"%s\"", tag, want);
        free(txt);
    }
    /* the gate and the verdict agree: a tripped gate is reported, and only for these verdicts */
    bool tripped = r.rc == 3;
    CHECK(!tripped || strcmp(verdict, "slower") == 0 || strcmp(verdict, "no noise estimate") == 0);
    CHECK(!r.json || (strstr(r.json, "\"tripped\":0") != NULL) == !tripped);
    CHECK(!r.md || (strstr(r.md, "**Gate failed**") != NULL) == tripped);
    return r;
}

static void noise_free(noise_run *r)
{
    free(r->json);
    free(r->md);
    free(r->out);
}

TEST(diff_noise_one_outlier_does_not_hide_a_40pct_regression)
{
    /* the case: the base has one far outlier (a step cut to 200 us),
     * the candidate's median is 40% higher and each of its steps is slower
     * than the slowest base step (1060 us).  The old rule said "within
     * noise": half the widest range, (1060 - 200) / 2 = 430 us > +410 us. */
    static const int base[8] = {1000, 1030, 200, 1010, 1060, 1020, 1050, 1040};
    static const int cand[8] = {1440, 1400, 1470, 1410, 1430, 1460, 1420, 1450};
    noise_run r = noise_case("outlier", base, 8, cand, 8, 5, "slower", 3);
    /* base sorted 200 1000 1010 1020 1030 1040 1050 1060: median (lower) 1020,
     * Q1 at 1.75 = 1007.5, Q3 at 5.25 = 1042.5, IQR 35 us; noise 1.5 x 35 */
    CHECK(r.json && strstr(r.json, "\"step_median_ns\":1020000,\"step_min_ns\":200000,\"step_max_ns\":1060000,"
                                   "\"step_median_of\":8,\"step_q1_ns\":1007500,\"step_q3_ns\":1042500,"
                                   "\"step_iqr_ns\":35000"));
    CHECK(r.json && strstr(r.json, "\"step_median_ns\":1430000,\"step_min_ns\":1400000,\"step_max_ns\":1470000,"
                                   "\"step_median_of\":8,\"step_q1_ns\":1417500,\"step_q3_ns\":1452500,"
                                   "\"step_iqr_ns\":35000"));
    CHECK(r.json && strstr(r.json, "\"median_delta_ns\":410000,\"median_rel\":0.401961,\"noise_ns\":52500,"
                                   "\"noise_known\":true,\"noise_from\":\"iqr_base\",\"beyond_noise\":true}"));
    CHECK(r.out && strstr(r.out, "gate: median step time +40.2% (1.020 ms -> 1.430 ms), beyond the "
                                 "step-to-step noise (52.500 us), over --fail-if-slower 5%"));
    CHECK(r.md && strstr(r.md, "step-to-step noise ±52.500 us (1.5 × IQR of the base steps), so the change is "
                               "larger than the noise."));
    CHECK(r.md && strstr(r.md, "| step IQR | 35.000" TP_NBSP "us | 35.000" TP_NBSP "us | |"));
    CHECK(r.md && strstr(r.md, "| step Q1 – Q3 | 1.008" TP_NBSP "ms – 1.043" TP_NBSP "ms | 1.418" TP_NBSP "ms – 1.453" TP_NBSP "ms | |"));
    noise_free(&r);

    /* the same with the outlier in the candidate (a 3000 us step): old noise
     * (3000 - 1400) / 2 = 800 us; the IQR barely moves */
    static const int base2[8] = {1000, 1010, 1020, 1030, 1040, 1050, 1060, 1005};
    static const int cand2[8] = {1400, 1410, 3000, 1420, 1430, 1440, 1450, 1460};
    r = noise_case("outlier_cand", base2, 8, cand2, 8, 5, "slower", 3);
    CHECK(r.json && strstr(r.json, "\"beyond_noise\":true"));
    noise_free(&r);
}

TEST(diff_noise_same_distribution_is_within_noise_and_passes_the_gate)
{
    static const int base[8] = {1000, 1030, 1010, 1060, 1020, 1050, 1040, 1005};
    /* the same steps shuffled: the same median and device time, "no change" */
    static const int shuf[8] = {1040, 1005, 1060, 1020, 1000, 1050, 1030, 1010};
    noise_run r = noise_case("shuffled", base, 8, shuf, 8, 0, "no change", 0);
    noise_free(&r);
    /* shuffled with jitter: median 1020 -> 1027 (+0.7%), over a 0.5% gate
     * but within 1.5 x IQR (base Q1 1008.75, Q3 1042.5: 50.625 us), so the
     * gate holds and says why */
    static const int jit[8] = {1042, 1003, 1061, 1018, 1036, 1009, 1052, 1027};
    r = noise_case("jitter", base, 8, jit, 8, 0.5, "within noise", 0);
    CHECK(r.json && strstr(r.json, "\"median_delta_ns\":7000,\"median_rel\":0.006863,\"noise_ns\":50625,"
                                   "\"noise_known\":true,\"noise_from\":\"iqr_base\",\"beyond_noise\":false}"));
    CHECK(r.json && strstr(r.json, "\"slower_within_noise\":true,\"tripped\":0"));
    CHECK(r.md && strstr(r.md, "Gates passed."));
    CHECK(r.md && strstr(r.md, "`--fail-if-slower 0.5%` did not trip: the median step time grew by +0.7%, but "
                               "within the noise."));
    noise_free(&r);
}

TEST(diff_noise_improvement_is_faster_and_never_trips)
{
    static const int base[8] = {1000, 1030, 1010, 1060, 1020, 1050, 1040, 1005};
    static const int cand[8] = {700, 730, 710, 760, 720, 750, 740, 705};
    noise_run r = noise_case("faster", base, 8, cand, 8, 0, "faster", 0);
    CHECK(r.json && strstr(r.json, "\"median_delta_ns\":-300000,"));
    CHECK(r.json && strstr(r.json, "\"beyond_noise\":true}"));
    CHECK(r.json && strstr(r.json, "\"slower_within_noise\":false,\"tripped\":0"));
    noise_free(&r);
}

TEST(diff_noise_tiny_step_counts)
{
    /* 1 step per side: no spread, so no claim; the gate has only its PCT */
    static const int one_a[1] = {1000}, one_b[1] = {1400};
    noise_run r = noise_case("one", one_a, 1, one_b, 1, 5, "no noise estimate", 3);
    CHECK(r.json && strstr(r.json, "\"noise_ns\":0,\"noise_known\":false,\"noise_from\":null,\"beyond_noise\":false}"));
    CHECK(r.md && strstr(r.md, "**Verdict: no noise estimate.** Median step time 1.000" TP_NBSP "ms → 1.400" TP_NBSP "ms (+400.000" TP_NBSP "us, +40.0%); the base run has a "
                               "single step, so there is no step-to-step spread to tell a change from noise."));
    CHECK(r.out && strstr(r.out, "gate: median step time +40.0% (1.000 ms -> 1.400 ms), no noise estimate, "
                                 "over --fail-if-slower 5%"));
    noise_free(&r);
    r = noise_case("one_pass", one_a, 1, one_b, 1, 50, "no noise estimate", 0);
    noise_free(&r);
    r = noise_case("one_same", one_a, 1, one_a, 1, 0, "no change", 0);
    noise_free(&r);
    /* 1 step against 4: both runs need 2 */
    static const int four[4] = {1000, 1100, 1050, 1020};
    r = noise_case("one_four", four, 4, one_b, 1, 5, "no noise estimate", 3);
    CHECK(r.md && strstr(r.md, "the candidate run has a single step"));
    noise_free(&r);

    /* 2 steps per side: Q1/Q3 at 1/4 and 3/4 of the way, IQR = half the
     * difference: base 1000, 1100 -> IQR 50 us, noise 75 us */
    static const int two_a[2] = {1100, 1000}, two_b[2] = {1060, 1160}, two_c[2] = {1200, 1300};
    r = noise_case("two_noise", two_a, 2, two_b, 2, 1, "within noise", 0);
    CHECK(r.json && strstr(r.json, "\"step_median_of\":2,\"step_q1_ns\":1025000,\"step_q3_ns\":1075000,"
                                   "\"step_iqr_ns\":50000"));
    CHECK(r.json && strstr(r.json, "\"median_delta_ns\":60000,\"median_rel\":0.060000,\"noise_ns\":75000,"));
    noise_free(&r);
    r = noise_case("two_slower", two_a, 2, two_c, 2, 1, "slower", 3);
    CHECK(r.json && strstr(r.json, "\"median_delta_ns\":200000,\"median_rel\":0.200000,\"noise_ns\":75000,"));
    noise_free(&r);
}

TEST(diff_noise_quartiles_exact)
{
    static const struct {
        size_t n;
        int64_t v[11], q1, q3;
    } c[] = {
        {1, {5}, 5, 5},
        {2, {10, 20}, 13, 18},              /* 12.5 and 17.5, rounded half up */
        {3, {100, 200, 400}, 150, 300},
        {4, {1000, 2000, 3000, 4000}, 1750, 3250},
        {5, {7, 15, 36, 39, 40}, 15, 39},
        {6, {7, 15, 36, 39, 40, 41}, 20, 40}, /* 20.25, 39.75 */
        {11, {6, 7, 15, 36, 39, 40, 41, 42, 43, 47, 49}, 26, 43}, /* 25.5, 42.5 */
        {2, {0, INT64_MAX}, 2305843009213693952LL, 6917529027641081855LL}, /* no overflow */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int64_t q1 = -1, q3 = -1;
        tp_diff_quartiles(c[i].v, c[i].n, &q1, &q3);
        if (q1 != c[i].q1 || q3 != c[i].q3)
            tp_test_fail(__FILE__, __LINE__, "case %zu: Q1 %lld Q3 %lld, expected %lld %lld", i, (long long)q1,
                         (long long)q3, (long long)c[i].q1, (long long)c[i].q3);
    }
}
