/* test_findings.c: the findings (report/findings/, docs/REPORT.md
 * "Findings"): each rule planted in a generated trace must be the top
 * finding, and a clean trace (big GEMMs back to back, launched ahead) must
 * yield none; the rule table's parsing and overriding; the outputs (stats
 * text and JSON, summary.md's first line, summary.json). */
#include "tests/lib/harness.h"
#include "tests/lib/find_gen.h"
#include "tests/lib/load_trace.h"
#include "report/findings/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"
#define MM_4096 "{\"Input Dims\":[[4096,4096],[4096,4096]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}"

/* Big GEMMs back to back, every launch ahead of the device: nothing to find.
 * outlier >= 0: that step runs three times the GEMMs.  shapes: each GEMM is
 * an aten::mm of two 4096 x 4096 BF16 matrices on an H100 (137 GFLOP),
 * taking gemm_us. */
static const char *clean_trace(const char *file, int outlier, bool shapes, double gemm_us)
{
    fg_gen g;
    fg_begin(&g, shapes);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 8; k++) {
        int n = k == outlier ? 30 : 10;
        for (int i = 0; i < n; i++) {
            double t = s + 8 * i;
            if (shapes)
                fg_host(&g, "cpu_op", "aten::mm", t, 6, MM_4096);
            fg_launch(&g, t + 1, "kernel", GEMM, 7, gemm_us, 0);
        }
        fg_step(&g, k, s, n * gemm_us);
        s += n * gemm_us; /* the next step's launches come while the device still runs this one's */
    }
    return fg_end(&g, file);
}

/* Tiny kernels, each launched late: the device waits for the host. */
static const char *host_bound_trace(void)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 20; i++) {
            fg_host(&g, "cpu_op", "aten::add", s + 50 * i, 40, NULL);
            fg_launch(&g, s + 50 * i + 30, "kernel", "vectorized_elementwise_kernel", 7, 5, 0);
        }
        fg_step(&g, k, s, 1000);
        s += 1000;
    }
    return fg_end(&g, "host_bound.json");
}

/* Each step: GEMMs queued ahead, then a cudaDeviceSynchronize until they end,
 * then 1.5 ms of host work before the next step launches anything. */
static const char *sync_trace(void)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 5; k++) {
        double end = 0;
        for (int i = 0; i < 10; i++)
            end = fg_launch(&g, s + 6 * i, "kernel", GEMM, 7, 200, 0);
        fg_host(&g, "cpu_op", "aten::item", s + 62, end + 6 - (s + 62), NULL);
        fg_host(&g, "cpu_op", "aten::_local_scalar_dense", s + 63, end + 4 - (s + 63), NULL);
        fg_host(&g, "cuda_runtime", "cudaStreamSynchronize", s + 65, end + 2 - (s + 65), NULL);
        double next = end + 1500;
        fg_step(&g, k, s, next - s);
        s = next;
    }
    return fg_end(&g, "sync.json");
}

/* Each step: GEMMs, then an all-reduce that no computation overlaps. */
static const char *allreduce_trace(void)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 5; i++)
            fg_launch(&g, s + 6 * i, "kernel", GEMM, 7, 200, 0);
        fg_launch(&g, s + 40, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
               20, 800, 0);
        fg_step(&g, k, s, 1800);
        s += 1800;
    }
    return fg_end(&g, "allreduce.json");
}

/* Each step: a pageable host-to-device copy, then the GEMMs that wait for it. */
static const char *memcpy_trace_of(const char *file, double copy_us)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 5; k++) {
        fg_host(&g, "cpu_op", "aten::copy_", s - 1, 4, NULL); /* the op that issues the copy */
        fg_launch(&g, s, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 20, copy_us, 0);
        for (int i = 0; i < 5; i++)
            fg_launch(&g, s + 6 + 6 * i, "kernel", GEMM, 7, 200, 0);
        fg_step(&g, k, s, 1000 + copy_us);
        s += 1000 + copy_us;
    }
    return fg_end(&g, file);
}

static const char *memcpy_trace(void) { return memcpy_trace_of("memcpy.json", 600); }

/* Each step: 100 kernels of 5 us launched ahead, 4 us apart on the device. */
static const char *small_trace(void)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    g.gpu = s;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 100; i++)
            fg_launch(&g, s + 3 * i, "kernel", "vectorized_elementwise_kernel", 7, 5, 4);
        fg_step(&g, k, s, 900);
        s += 900;
    }
    return fg_end(&g, "small.json");
}

/* The planted traces test the other rules: the critical path's rules
 * (cpu_bound_path, launch_gaps_path, tests/critical) would rank above them
 * on most of them, so these tests leave the critical path out (the
 * measures then cannot tell) and put it back at their end. */

static void findings_of(const char *path, tp_findings *f, tp_trace *t, tp_summary *s)
{
    CHECK(tp_test_load_report(path, t, s) == 0);
    tp_findings_build(s, NULL, f);
}

static void done(tp_findings *f, tp_trace *t, tp_summary *s)
{
    tp_findings_free(f);
    tp_summary_free(s);
    tp_trace_free(t);
}

/* causes, then the critical path's corroborating view, then memory risks */
static int rank_of(const tp_finding *x) { return x->m->risk ? 2 : x->m->corroborates ? 1 : 0; }

/* The planted rule is the top finding, impact within the figures' bounds. */
static void check_top(const char *path, const char *id, int line)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    findings_of(path, &f, &t, &s);
    if (!f.n)
        tp_test_fail(__FILE__, line, "%s: no finding, expected %s", path, id);
    else if (strcmp(f.items[0].rule->id, id) != 0)
        tp_test_fail(__FILE__, line, "%s: top finding %s, expected %s", path, f.items[0].rule->id, id);
    else {
        const tp_measure *m = f.items[0].m;
        if (m->impact_ns <= 0 || m->impact_ns > m->impact_base_ns || m->nevidence == 0)
            tp_test_fail(__FILE__, line, "%s: impact %lld of %lld, %zu evidence lines", path, (long long)m->impact_ns,
                         (long long)m->impact_base_ns, m->nevidence);
    }
    for (size_t i = 1; i < f.n; i++) /* ranked: the causes before the path's corroborating view, impact desc, then id */
        if (rank_of(&f.items[i]) < rank_of(&f.items[i - 1]) ||
            (rank_of(&f.items[i]) == rank_of(&f.items[i - 1]) &&
             (f.items[i].m->impact_ns > f.items[i - 1].m->impact_ns ||
              (f.items[i].m->impact_ns == f.items[i - 1].m->impact_ns &&
               strcmp(f.items[i].rule->id, f.items[i - 1].rule->id) < 0))))
            tp_test_fail(__FILE__, line, "%s: findings %zu and %zu out of order", path, i - 1, i);
    done(&f, &t, &s);
}

TEST(findings_clean_trace_has_none)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    findings_of(clean_trace("clean.json", -1, false, 1000), &f, &t, &s);
    CHECK_EQ_INT(f.n, 0);
    /* it had every measure's data but the roofline's and the GEMM shapes' (no shapes): those say so, once each */
    CHECK_EQ_INT(f.nunsure, 2);
    CHECK_STR(f.unsure[0]->id, "compute_headroom");
    CHECK_STR(f.unsure[1]->id, "gemm_tiles");
    done(&f, &t, &s);
    /* with shapes, the GEMMs at 86% of their roof (160 us for 137 GFLOP on an H100): quiet too */
    findings_of(clean_trace("clean_shapes.json", -1, true, 160), &f, &t, &s);
    CHECK_EQ_INT(f.n, 0);
    CHECK_EQ_INT(f.nunsure, 0);
    done(&f, &t, &s);
}

TEST(findings_planted_are_the_top_finding)
{
    check_top(host_bound_trace(), "host_bound", __LINE__);
    check_top(sync_trace(), "sync_stall", __LINE__);
    check_top(allreduce_trace(), "exposed_comm", __LINE__);
    check_top(memcpy_trace(), "exposed_memcpy", __LINE__);
    check_top(small_trace(), "small_kernels", __LINE__);
    check_top(clean_trace("slow_gemm.json", -1, true, 2000), "compute_headroom", __LINE__); /* 7% of the roof */
    check_top(clean_trace("outlier.json", 3, false, 1000), "step_variance", __LINE__);
}

TEST(findings_evidence_names_the_events)
{
    tp_trace t;
    tp_summary s;
    tp_findings f;
    findings_of(sync_trace(), &f, &t, &s);
    CHECK(f.n >= 1);
    const tp_measure *m = f.n ? f.items[0].m : NULL;
    bool calls = false, gap = false;
    for (size_t i = 0; m && i < m->nevidence; i++) {
        calls |= strstr(m->evidence[i], "cudaStreamSynchronize x5") && strstr(m->evidence[i], "aten::item x5");
        gap |= strstr(m->evidence[i], "largest gap: 1.5") != NULL;
    }
    CHECK(calls && gap);
    done(&f, &t, &s);
    findings_of(memcpy_trace(), &f, &t, &s);
    m = f.n ? f.items[0].m : NULL;
    bool pageable = false, h2d = false, issuer = false;
    for (size_t i = 0; m && i < m->nevidence; i++) {
        pageable |= strstr(m->evidence[i], "pageable memory: 5 copies, 3.000 ms") != NULL;
        h2d |= strstr(m->evidence[i], "host to device: 5 copies") != NULL;
        issuer |= strstr(m->evidence[i], "issued by: aten::copy_ x5, 3.000 ms") != NULL;
    }
    CHECK(pageable && h2d && issuer);
    done(&f, &t, &s);
}

TEST(findings_rules_file_overrides_adds_and_refuses)
{
    const char *in = sync_trace();
    /* a file's rule replaces the built-in one by id: at 100% it no longer fires; a new id adds a rule */
    const char *rules = tp_test_write_text("mine.rules",
                                           "# mine\n"
                                           "sync_stall | sync_idle | 100% | low | never | nothing\n"
                                           "my_idle | host_wait_idle | 0.5% | low | Some idle waits for the host | look\n");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' --rules '%s' --json", tp_test_bin(), in, rules), 0);
    CHECK(out && !strstr(out, "\"id\":\"sync_stall\"") && strstr(out, "\"findings\":["));
    free(out);
    /* parse errors: one line with the offset and the line, exit 2, nothing on stdout */
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"a | sync_idle | 5% | high | t\n", "offset 0: line 1: want ID"},
        {"\nB | sync_idle | 5% | high | t | n\n", "offset 1: line 2: an ID is"},
        {"a | nosuch | 5% | high | t | n\n", "line 1: \"nosuch\" is no measure"},
        {"a | sync_idle | 5 | high | t | n\n", "line 1: a threshold is a share"},
        {"a | sync_idle | 101% | high | t | n\n", "line 1: a threshold is a share"},
        {"a | sync_idle | 5% | urgent | t | n\n", "line 1: a severity is"},
        {"a | sync_idle | 5% | high | t | n\na | sync_idle | 6% | high | t | n\n", "offset 34: line 2: rule a given twice"},
        /* a bidirectional control, written as a space, would unbold summary.md's verdict (review of issue 31) */
        {"a | sync_idle | 5% | high | \xe2\x80\xaeTitle\xe2\x81\xa9 | n\n", "line 1: a control character in a rule"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = tp_test_write_text("bad.rules", bad[i].text);
        const char *o = tp_test_tmp("bad.report");
        CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' --rules '%s' -o '%s' 2>&1", tp_test_bin(), in, p, o), 2);
        if (!out || !strstr(out, bad[i].want) || strchr(out, '\n') != out + strlen(out) - 1)
            tp_test_fail(__FILE__, __LINE__, "rule %zu: got %s", i, out ? out : "(null)");
        CHECK(!tp_test_file_exists(o));
        free(out);
    }
    /* a 1 MiB file of 30,000 short rules took 3.8 s of ID compares (quadratic): at most 1,000 rules (review of issue 31) */
    tp_buf many = {0};
    for (int i = 0; i < 1200; i++)
        tp_buf_printf(&many, "r%d|sync_idle|1%%|low|t|n\n", i);
    tp_buf_putc(&many, 0);
    const char *mp = tp_test_write_text("many.rules", many.data);
    tp_buf_free(&many);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s' --rules '%s' 2>&1", tp_test_bin(), in, mp), 2);
    tp_find_rules builtin;
    char err[256], want[64];
    CHECK_EQ_INT(tp_find_rules_load(&builtin, NULL, err, sizeof err), 0);
    snprintf(want, sizeof want, "line %zu: more than 1000 rules", 1000 - builtin.n + 1); /* the built-in ones count */
    tp_find_rules_free(&builtin);
    CHECK(out && strstr(out, want) && strchr(out, '\n') == out + strlen(out) - 1);
    free(out);
    /* --rules is for one trace's findings */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' stats '%s' --rules '%s' --csv", tp_test_bin(), in, rules), 1);
}

TEST(findings_outputs_stats_summary_md_and_json)
{
    const char *in = host_bound_trace();
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, "Findings (") && strstr(out, " 1. host_bound [high] The GPU waits for the host") &&
          strstr(out, "next: Capture the step in CUDA graphs"));
    free(out);
    const char *dir = tp_test_tmp("hb.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), in, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    /* host-bound in each of its 5 steps: the verdict says so (docs/REPORT.md "Findings", *Scope*) */
    CHECK(md && strncmp(md, "**The GPU waits for the host to launch work in every step, 5 of 5**: up to ", 73) == 0);
    const char *nl = md ? strchr(md, '\n') : NULL;
    CHECK(nl && nl - md < 200);
    CHECK(md && strstr(md, "\n1. **The GPU waits for the host to launch work in every step, 5 of 5** (`host_bound`, high): up to "));
    free(md);
    char *js = tp_test_read_in(dir, "summary.json");
    CHECK(js && strstr(js, "\n\"findings\":[\n{\"id\":\"host_bound\",") && strstr(js, "\"findings_unsure\":["));
    free(js);
    /* a clean trace says so in words */
    const char *cdir = tp_test_tmp("clean.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), clean_trace("clean2.json", -1, false, 1000),
                             cdir), 0);
    md = tp_test_read_in(cdir, "summary.md");
    CHECK(md && strncmp(md, "**No finding**: none of the 15 rules reached its threshold on this trace.\n", 73) == 0);
    free(md);
}

/* The --rules file is an input: a report whose output would replace it is refused, the file kept. */
TEST(findings_rules_file_is_an_input)
{
    const char *in = host_bound_trace();
    const char *dir = tp_test_tmp("rules_out");
    char *out = NULL;
    static const char rules[] = "mine | host_wait_idle | 1% | low | t | n\n";
    CHECK_EQ_INT(tp_test_run(NULL, "mkdir -p '%s' && printf '%%s' '%s' > '%s/summary.md'", dir, rules, dir), 0);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' report '%s' -o '%s' --rules '%s/summary.md' 2>&1", tp_test_bin(), in, dir, dir),
                 2);
    CHECK(out && strstr(out, "refusing to overwrite the input file"));
    free(out);
    char *kept = tp_test_read_in(dir, "summary.md");
    CHECK_STR(kept, rules);
    free(kept);
    CHECK(!tp_test_exists_in(dir, "summary.json"));
}

/* One long gap holding most of the host wait: the finding says it may be the profiling window. */
TEST(findings_host_bound_confidence_of_one_gap)
{
    fg_gen g;
    fg_begin(&g, false);
    fg_launch(&g, 100, "kernel", GEMM, 7, 50, 0);
    for (int i = 0; i < 20; i++)
        fg_launch(&g, 100000 + 50 * i, "kernel", GEMM, 7, 20, 0);
    const char *path = fg_end(&g, "one_gap.json");
    tp_trace t;
    tp_summary s;
    tp_findings f;
    findings_of(path, &f, &t, &s);
    CHECK(f.n >= 1 && strcmp(f.items[0].rule->id, "host_bound") == 0);
    CHECK(f.n && f.items[0].m->confidence && strstr(f.items[0].m->confidence, "one gap holds 9") &&
          strstr(f.items[0].m->confidence, "profiling window"));
    done(&f, &t, &s);
    /* summary.md, read in a pull request, says it beside the impact (review of issue 31: only the
     * PDF and summary.json did, and the PR comment claimed the whole gap as time to gain) */
    const char *dir = tp_test_tmp("one_gap.report");
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' -o '%s'", tp_test_bin(), path, dir), 0);
    char *md = tp_test_read_in(dir, "summary.md");
    CHECK(md && strstr(md, ". Partial evidence: one gap holds 9") && strstr(md, "profiling window"));
    free(md);
    findings_of(host_bound_trace(), &f, &t, &s); /* many even gaps: no such note */
    CHECK(f.n && f.items[0].m->confidence == NULL);
    done(&f, &t, &s);
}

/* diff: findings new, gone and grown between two runs, and the --fail-on-finding gate */
TEST(findings_in_diff_and_its_gate)
{
    const char *clean = clean_trace("d_clean.json", -1, false, 1000), *ar = allreduce_trace();
    const char *dir = tp_test_tmp("fd.diff");
    char *out = NULL;
    /* a new high finding trips both an ID and a severity gate; the reason names it */
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding exposed_comm 2>&1", tp_test_bin(),
                             clean, ar, dir), 3);
    CHECK(out && strstr(out, "gate: finding exposed_comm (high) is new: 44.4% of the GPU span"));
    free(out);
    char *js = tp_test_read_in(dir, "diff.json");
    CHECK(js && strstr(js, "\"findings\":[\n{\"id\":\"exposed_comm\",") && strstr(js, "\"status\":\"new\"") &&
          strstr(js, "\"fail_on_finding\":\"exposed_comm\""));
    free(js);
    char *md = tp_test_read_in(dir, "diff.md");
    /* where it holds: in each of the candidate's 5 steps */
    CHECK(md && strstr(md, "\n- new: Communication is not hidden behind computation in every step, 5 of 5 (`exposed_comm`, "
                           "high): 44.4% of the GPU span (not found in the base)\n"));
    free(md);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding high", tp_test_bin(), clean, ar, dir),
                 3);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding sync_stall", tp_test_bin(), clean, ar,
                             dir), 0);
    /* gone: no gate */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding low", tp_test_bin(), ar, clean, dir),
                 0);
    md = tp_test_read_in(dir, "diff.md");
    CHECK(md && strstr(md, "\n- gone: Communication is not hidden behind computation in every step, 5 of 5 (`exposed_comm`, "
                           "high): was 44.4%"));
    free(md);
    /* grew: the copies take 600 us of a 1.6 ms step, then 2 ms of a 3 ms step */
    const char *m1 = memcpy_trace_of("m1.json", 600), *m2 = memcpy_trace_of("m2.json", 2000);
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding medium 2>&1", tp_test_bin(), m1, m2,
                             dir), 3);
    CHECK(out && strstr(out, "finding exposed_memcpy (medium) grew from 37.5% to 66.7% of the GPU span"));
    free(out);
    /* the same run twice: nothing new, the gate passes */
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding low", tp_test_bin(), m1, m1, dir), 0);
    js = tp_test_read_in(dir, "diff.json");
    CHECK(js && strstr(js, "\"id\":\"exposed_memcpy\"") && strstr(js, "\"status\":\"same\""));
    free(js);
    CHECK_EQ_INT(tp_test_run(NULL, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding 'High!'", tp_test_bin(), m1, m1, dir),
                 1);
}

/* A typo'd ID in a CI gate could never trip: diff runs the built-in rules only, so an ID that is
 * none of them is a usage error, not a gate that passes every change (review of issue 31). */
TEST(findings_gate_refuses_an_unknown_id)
{
    const char *clean = clean_trace("u_clean.json", -1, false, 1000), *ar = allreduce_trace();
    const char *dir = tp_test_tmp("fu.diff");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' diff -q '%s' '%s' -o '%s' --fail-on-finding exposed_com 2>&1", tp_test_bin(),
                             clean, ar, dir),
                 1);
    CHECK(out && strstr(out, "--fail-on-finding takes a finding ID (built in, a job's, or of --rules FILE)") && !tp_test_file_exists(dir));
    free(out);
}

/* summary.md's first line stays under 200 characters whatever a --rules title holds: 200 bytes of
 * "@" (each escaped to "@&#8203;") or of plain words beside a 40-byte ID (review of issue 31: 871
 * and 201 characters before). */
TEST(findings_first_line_under_200_with_any_title)
{
    const char *in = host_bound_trace();
    static const char *const titles[] = {"@", "Abcdefghi "};
    for (size_t t = 0; t < 2; t++) {
        tp_buf r = {0};
        tp_buf_puts(&r, "abcdefghijabcdefghijabcdefghijabcdefghij | host_wait_idle | 1% | high | ");
        for (size_t k = strlen(titles[t]); k <= 200; k += strlen(titles[t]))
            tp_buf_puts(&r, titles[t]);
        tp_buf_puts(&r, " | next\n");
        tp_buf_putc(&r, 0);
        const char *rules = tp_test_write_text("long.rules", r.data);
        tp_buf_free(&r);
        const char *dir = tp_test_tmp("long.report");
        CHECK_EQ_INT(tp_test_run(NULL, "'%s' report '%s' --rules '%s' -o '%s'", tp_test_bin(), in, rules, dir), 0);
        char *md = tp_test_read_in(dir, "summary.md");
        CHECK(md && strncmp(md, "**", 2) == 0 && strchr(md, '\n'));
        size_t chars = 0;
        for (const char *c = md; c && *c && *c != '\n'; c++)
            chars += ((unsigned char)*c & 0xC0) != 0x80;
        if (chars >= 200)
            tp_test_fail(__FILE__, __LINE__, "title %zu: first line of %zu characters", t, chars);
        CHECK(md && strstr(md, "... in every step, 5 of 5**: up to "));
        free(md);
    }
}

/* The host-bound trace with a second host thread (an output or logging thread) sitting in
 * synchronisations the whole time: the launching thread is not held back by them, so the
 * verdict stays host-bound (review of issue 31: before, every gap began "inside" the side
 * thread's syncs and sync_stall took 89.9% of the GPU span as the top finding). */
TEST(findings_sync_on_another_thread_is_no_stall)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 20; i++) {
            fg_host(&g, "cpu_op", "aten::add", s + 50 * i, 40, NULL);
            fg_launch(&g, s + 50 * i + 30, "kernel", "vectorized_elementwise_kernel", 7, 5, 0);
        }
        fg_step(&g, k, s, 1000);
        s += 1000;
    }
    for (double x = 100; x < s; x += 500)
        tp_buf_printf(&g.b, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,"
                            "\"tid\":2,\"ts\":%.3f,\"dur\":495}", x);
    const char *in = fg_end(&g, "side_sync.json");
    char *out = NULL;
    CHECK_EQ_INT(tp_test_run(&out, "'%s' stats '%s'", tp_test_bin(), in), 0);
    CHECK(out && strstr(out, " 1. host_bound [high]") && !strstr(out, "sync_stall ["));
    free(out);
}

/* Host-bound evidence names the host ops that fill the gaps: between two
 * launches the launching thread runs a host-only op for 300 us each time. */
TEST(findings_host_bound_names_the_ops_in_the_gaps)
{
    fg_gen g;
    fg_begin(&g, false);
    double s = 100;
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 3; i++) {
            double at = s + 350 * i;
            fg_host(&g, "cpu_op", "my::preprocess", at, 300, NULL); /* no kernel: pure host work */
            fg_host(&g, "cpu_op", "aten::add", at + 305, 40, NULL);
            fg_launch(&g, at + 330, "kernel", "vectorized_elementwise_kernel", 7, 5, 0);
        }
        fg_step(&g, k, s, 1100);
        s += 1100;
    }
    tp_trace t;
    tp_summary su;
    tp_findings f;
    findings_of(fg_end(&g, "host_fill.json"), &f, &t, &su);
    CHECK(f.n >= 1 && strcmp(f.items[0].rule->id, "host_bound") == 0);
    const tp_measure *m = f.n ? f.items[0].m : NULL;
    bool named = false;
    for (size_t i = 0; m && i < m->nevidence; i++)
        named |= strstr(m->evidence[i], "the launching thread ran (top-level ops") &&
                 strstr(m->evidence[i], ": my::preprocess ") != NULL; /* the largest first */
    CHECK(named);
    done(&f, &t, &su);
}
